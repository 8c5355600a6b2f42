use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An element of the `GET /trading/accounts/list` array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Account {
    pub account_id: String,
    pub account_type: AccountType,
    pub account_class: AccountClass,
    pub account_label: String,
    pub user_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AccountType {
    Cash,
    Margin,
}

impl AccountType {
    pub const fn as_str(self) -> &'static str {
        match self {
            AccountType::Cash => "CASH",
            AccountType::Margin => "MARGIN",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "CASH" => Some(AccountType::Cash),
            "MARGIN" => Some(AccountType::Margin),
            _ => None,
        }
    }

    /// The class a client uses to pick the account (catalog 3.1): individual US accounts.
    pub const fn class(self) -> AccountClass {
        match self {
            AccountType::Cash => AccountClass::IndividualCash,
            AccountType::Margin => AccountClass::IndividualMargin,
        }
    }
}

/// The US classes among those the official clients match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AccountClass {
    IndividualCash,
    IndividualMargin,
}

impl AccountClass {
    pub const fn as_str(self) -> &'static str {
        match self {
            AccountClass::IndividualCash => "INDIVIDUAL_CASH",
            AccountClass::IndividualMargin => "INDIVIDUAL_MARGIN",
        }
    }
}

/// `POST /admin/accounts/reset`: start an account over (apps created with `--admin`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ResetAccountRequest {
    pub account_id: String,
    /// The cash it starts over with; its opening cash (its first deposit) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cash: Option<String>,
}

/// An account started over: no order, fill, position or activity but its cash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ResetAccountView {
    pub account_id: String,
    pub cash: String,
}
