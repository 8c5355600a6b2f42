//! Accounts as the broker sees them: whose they are, what their positions are worth, and what the
//! buying-power check weighs. The trading handlers and the gRPC trade-events service ask here.

use rust_decimal::Decimal;
use signet_domain::Rejection;
use signet_domain::options::is_contract;
use signet_domain::trading::buying_power::{Position, Standing};
use signet_domain::trading::claims::Claims;
use signet_model::ErrorCode;
use signet_model::ids::{AccountId, AppKey, OrderId};
use signet_store::{AccountRecord, PositionRecord, Store};

use crate::claims::{ClaimsCache, View};
use crate::error::CoreError;
use crate::simulator::Simulator;

/// What an account's questions read: the store, the claims cache and the simulator's prices.
#[derive(Clone, Copy)]
pub struct Accounts<'a> {
    pub store: &'a dyn Store,
    pub claims: &'a ClaimsCache,
    pub simulator: &'a Simulator,
}

impl Accounts<'_> {
    /// The account if it belongs to the app `app_key`; the same refusal whether it exists or
    /// not, so that a caller learns nothing of other apps' accounts.
    pub async fn owned_by(&self, app_key: &AppKey, account_id: &AccountId) -> Result<AccountRecord, CoreError> {
        // An id sent with spaces around it names the same account.
        let account_id = AccountId::from(account_id.trim());
        let known = match self.claims.account(&account_id) {
            Some(known) => Some(known),
            None => self.store.account(&account_id).await?,
        };
        match known {
            Some(a) if a.app_key == *app_key => Ok(a),
            _ => Err(Rejection::new(
                ErrorCode::AccountNotFoundOrDenied,
                "no account with this account_id belongs to the calling app",
            )
            .into()),
        }
    }

    /// The accounts of the app `app_key`, oldest first.
    pub async fn of_app(&self, app_key: &AppKey) -> Result<Vec<AccountRecord>, CoreError> {
        Ok(self.store.accounts(Some(app_key)).await?)
    }

    /// The account of this id, whoever owns it (for the operator's calls).
    pub async fn find(&self, account_id: &AccountId) -> Result<Option<AccountRecord>, CoreError> {
        Ok(self.store.account(account_id).await?)
    }

    /// The account as the buying-power check weighs it now (cash, positions at the last prices,
    /// the claims of its open orders but `replacing`), with its positions as stored. The balance
    /// call reads the same, so that the buying power it shows is the one placement enforces.
    pub async fn standing(
        &self,
        account_id: &AccountId,
        replacing: Option<&OrderId>,
    ) -> Result<(Standing, Vec<PositionRecord>), CoreError> {
        let now = self.simulator.now_ms();
        let price_now = |instrument_id: i64| self.last_price(instrument_id, now);
        // A contract is priced once its underlying's figures of the day are read: the contracts
        // of market orders whose claim had no price are read, and the claims reckoned again.
        let unpriced = parking_lot::Mutex::new(Vec::new());
        let noting_unpriced = |instrument_id: i64| {
            let price = self.simulator.last_of(instrument_id, now);
            if price.is_none() && is_contract(instrument_id) {
                unpriced.lock().push(instrument_id);
            }
            price.unwrap_or_default()
        };
        let mut view = self
            .claims
            .view(self.store, account_id, replacing, noting_unpriced)
            .await?;
        let unpriced = unpriced.into_inner();
        let reckon_again = !unpriced.is_empty();
        let held = view.positions.iter().map(|p| p.instrument_id);
        self.simulator.prepare(held.chain(unpriced)).await;
        if reckon_again {
            view = self.claims.view(self.store, account_id, replacing, price_now).await?;
        }
        let View {
            account,
            positions,
            claims: Claims {
                cash,
                premiums,
                selling,
            },
        } = view;
        let standing = Standing {
            account_type: account.account_type,
            cash: account.cash,
            positions: positions
                .iter()
                .map(|p| Position {
                    instrument_id: p.instrument_id,
                    quantity: p.holding.quantity,
                    price: price_now(p.instrument_id),
                })
                .collect(),
            reserved: cash,
            reserved_premiums: premiums,
            selling,
        };
        Ok((standing, positions))
    }

    /// The simulator's last price of an instrument at `now` (zero when it quotes none): what
    /// placement prices positions and market orders at.
    pub fn last_price(&self, instrument_id: i64, now: i64) -> Decimal {
        self.simulator.last_of(instrument_id, now).unwrap_or_default()
    }
}
