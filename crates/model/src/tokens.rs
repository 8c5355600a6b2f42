//! The start-up calls of the official clients (catalog section 2).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `GET /openapi/config`. Clients require a non-empty object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ConfigResponse {
    pub token_check_enabled: bool,
}

/// Body of `POST /auth/tokens/create` (token optional: a token saved earlier) and
/// `POST /auth/tokens/check` (token required).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TokenRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TokenResponse {
    pub token: String,
    /// Expiry in milliseconds since the Unix epoch.
    pub expires: i64,
    pub status: TokenStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TokenStatus {
    /// Created, waiting for the account holder's approval.
    Pending,
    /// Approved: requests may carry it in `x-access-token`.
    Normal,
    /// Revoked, unknown, or belonging to another app.
    Invalid,
    /// Past its expiry.
    Expired,
}

impl TokenStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            TokenStatus::Pending => "PENDING",
            TokenStatus::Normal => "NORMAL",
            TokenStatus::Invalid => "INVALID",
            TokenStatus::Expired => "EXPIRED",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "PENDING" => Some(TokenStatus::Pending),
            "NORMAL" => Some(TokenStatus::Normal),
            "INVALID" => Some(TokenStatus::Invalid),
            "EXPIRED" => Some(TokenStatus::Expired),
            _ => None,
        }
    }
}
