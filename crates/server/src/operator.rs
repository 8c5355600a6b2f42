//! What the operator does to apps, accounts and tokens, over the database: `signet admin`, the
//! console's apps page and `serve --demo`'s first app. These run beside a live server on the
//! same database.

use std::sync::Arc;

use rust_decimal::Decimal;
use secrecy::SecretString;
use signet_model::ids::{AccountId, AppKey};
use signet_model::{AccountType, TokenStatus};
use signet_store::{AccountRecord, AppRecord, AppStatus, Store, StoreError, TokenRecord, TokenSelector};

use crate::secrets::{KeyError, MasterKey, random_hex};

#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    #[error("no app has the key {0}")]
    UnknownApp(String),
    #[error("an app name is 1 to 64 characters without control characters")]
    InvalidName,
    #[error("an account label is 1 to 64 characters without control characters")]
    InvalidLabel,
    #[error("starting cash must be zero or more")]
    NegativeCash,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// A new app's credentials: shown once, never stored in the clear.
#[derive(Debug)]
pub struct Credentials {
    pub app_key: AppKey,
    pub app_secret: SecretString,
    pub account_ids: Vec<AccountId>,
}

pub struct Operator {
    store: Arc<dyn Store>,
    key: Arc<MasterKey>,
}

pub const CURRENCY: &str = "USD";

fn now_ms() -> i64 {
    signet_domain::simulator::clock::wall_clock_ms()
}

fn valid_text(s: &str) -> bool {
    (1..=64).contains(&s.chars().count()) && !s.chars().any(char::is_control)
}

impl Operator {
    pub fn new(store: Arc<dyn Store>, key: Arc<MasterKey>) -> Self {
        Operator { store, key }
    }

    /// Creates an app with one CASH and one MARGIN paper account holding `starting_cash` each.
    pub async fn create_app(&self, name: &str, starting_cash: Decimal) -> Result<Credentials, OperatorError> {
        self.create_app_with_role(name, starting_cash, false).await
    }

    /// [`Operator::create_app`], for an app that may also drive the market simulator when `admin`.
    pub async fn create_app_with_role(
        &self,
        name: &str,
        starting_cash: Decimal,
        admin: bool,
    ) -> Result<Credentials, OperatorError> {
        if !valid_text(name) {
            return Err(OperatorError::InvalidName);
        }
        let app_key = AppKey::from(random_hex::<16>()?);
        let app_secret = SecretString::from(random_hex::<16>()?);
        let now = now_ms();
        let app = AppRecord {
            sealed_secret: self.key.seal(&app_key, &app_secret)?,
            app_key: app_key.clone(),
            name: name.to_owned(),
            status: AppStatus::Active,
            user_id: random_hex::<8>()?,
            created_at: now,
            admin,
        };
        let mut accounts = Vec::new();
        for account_type in [AccountType::Cash, AccountType::Margin] {
            accounts.push(new_account(&app_key, account_type, starting_cash, None, now)?);
        }
        self.store.create_app(&app, &accounts).await?;
        Ok(Credentials {
            app_key,
            app_secret,
            account_ids: accounts.into_iter().map(|a| a.account_id).collect(),
        })
    }

    pub async fn apps(&self) -> Result<Vec<AppRecord>, OperatorError> {
        Ok(self.store.apps().await?)
    }

    /// Revokes an app: its requests are refused from then on (within the server's app cache time).
    pub async fn revoke_app(&self, app_key: &AppKey) -> Result<(), OperatorError> {
        if self.store.set_app_status(app_key, AppStatus::Revoked).await? {
            Ok(())
        } else {
            Err(OperatorError::UnknownApp(app_key.to_string()))
        }
    }

    pub async fn create_account(
        &self,
        app_key: &AppKey,
        account_type: AccountType,
        starting_cash: Decimal,
        label: Option<&str>,
    ) -> Result<AccountRecord, OperatorError> {
        if self.store.app(app_key).await?.is_none() {
            return Err(OperatorError::UnknownApp(app_key.to_string()));
        }
        let account = new_account(app_key, account_type, starting_cash, label, now_ms())?;
        self.store.create_account(&account).await?;
        Ok(account)
    }

    pub async fn accounts(&self, app_key: Option<&AppKey>) -> Result<Vec<AccountRecord>, OperatorError> {
        Ok(self.store.accounts(app_key).await?)
    }

    pub async fn tokens(&self, app_key: Option<&AppKey>) -> Result<Vec<TokenRecord>, OperatorError> {
        Ok(self.store.tokens(app_key).await?)
    }

    /// A one-time login link to the console of the server at `base` (`http://HOST:PORT`).
    pub async fn console_link(&self, base: &str, ttl: std::time::Duration) -> Result<String, OperatorError> {
        let token = random_hex::<32>()?;
        let now = now_ms();
        let expires_at = now + i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        self.store
            .create_console_login(&crate::tokens::hash_token(&token), expires_at, now)
            .await?;
        Ok(format!("{}/console/login?token={token}", base.trim_end_matches('/')))
    }

    /// Approves pending tokens (one token, or all of an app's); returns how many were approved.
    pub async fn approve_tokens(&self, selector: TokenSelector<'_>) -> Result<u64, OperatorError> {
        Ok(self
            .store
            .set_token_status(selector, TokenStatus::Pending, TokenStatus::Normal)
            .await?)
    }
}

fn new_account(
    app_key: &AppKey,
    account_type: AccountType,
    cash: Decimal,
    label: Option<&str>,
    now: i64,
) -> Result<AccountRecord, OperatorError> {
    if cash.is_sign_negative() {
        return Err(OperatorError::NegativeCash);
    }
    let label = match label {
        Some(l) if !valid_text(l) => return Err(OperatorError::InvalidLabel),
        Some(l) => l.to_owned(),
        None => match account_type {
            AccountType::Cash => "Individual Cash".to_owned(),
            AccountType::Margin => "Individual Margin".to_owned(),
        },
    };
    Ok(AccountRecord {
        account_id: random_hex::<8>()?.to_uppercase().into(),
        app_key: app_key.clone(),
        account_type,
        account_label: label,
        currency: CURRENCY.to_owned(),
        cash,
        created_at: now,
    })
}
