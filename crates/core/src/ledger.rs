//! An account's cash ledger as the broker reads it: every change of its cash (fills, splits and
//! dividends, settled option contracts), read so that they and the cash agree, and the ledger
//! [`signet_domain::trading::ledger`] builds from them. The cash activities of every door and the
//! account's reset (which gives an account its opening deposit again) read it here.

use rust_decimal::Decimal;
use signet_domain::Rejection;
use signet_domain::options::settlement::Settled;
use signet_domain::trading::corporate::Applied;
use signet_domain::trading::ledger::{self, Activity, Fill};
use signet_model::ErrorCode;
use signet_model::ids::AccountId;
use signet_store::{AccountRecord, ExecutionQuery};

use crate::accounts::Accounts;
use crate::error::CoreError;

/// Fills read a page at a time to build the ledger.
const FILLS_A_READ: u32 = 1000;
/// The most fills a ledger is built from (it holds them all, about 200 bytes each): beyond, the
/// call is refused rather than the server's memory spent.
const MAX_LEDGER_FILLS: usize = 200_000;
/// How many times the changes are read before the call gives up on an account that keeps filling.
const READS: usize = 3;

/// Every change of the account's cash, oldest first, with the account as it was after the last
/// of them.
pub struct CashChanges {
    pub account: AccountRecord,
    pub fills: Vec<Fill>,
    pub applied: Vec<Applied>,
    pub settled: Vec<Settled>,
}

impl CashChanges {
    /// The ledger, oldest first: the opening deposit, then each change of the cash.
    pub fn ledger(&self) -> Vec<Activity> {
        ledger::ledger(
            self.account.cash,
            self.account.created_at,
            &self.fills,
            &self.applied,
            &self.settled,
        )
    }
}

impl Accounts<'_> {
    /// The account's [`CashChanges`]: read again when a fill or an action landed meanwhile, so
    /// that the cash and what moved it agree. `LIMIT_EXCEEDED` beyond [`MAX_LEDGER_FILLS`];
    /// `SERVICE_NOT_AVAILABLE` when the account filled during each of [`READS`] reads.
    pub async fn cash_changes(&self, account_id: &AccountId) -> Result<CashChanges, CoreError> {
        // The account's `limit` newest fills older than `before_fill_id`.
        let newest = |before_fill_id, limit| ExecutionQuery {
            account_id: account_id.clone(),
            client_order_id: None,
            from_ms: None,
            to_ms: None,
            before_fill_id,
            limit,
        };
        for _ in 0..READS {
            let mut fills = Vec::new();
            let mut before_fill_id = None;
            loop {
                let page = self.store.executions(&newest(before_fill_id, FILLS_A_READ)).await?;
                let read = page.len();
                before_fill_id = page.last().map(|e| e.fill_id);
                fills.extend(page.into_iter().map(|e| Fill {
                    fill_id: e.fill_id,
                    time_ms: e.time_ms,
                    instrument_id: e.instrument_id,
                    side: e.side,
                    quantity: e.quantity,
                    price: e.price,
                    commission: e.commission,
                    symbol: e.symbol,
                    client_order_id: e.order.client_order_id,
                }));
                if read < FILLS_A_READ as usize {
                    break;
                }
                if fills.len() > MAX_LEDGER_FILLS {
                    return Err(Rejection::new(
                        ErrorCode::LimitExceeded,
                        format!(
                            "the cash ledger is built for accounts of up to {MAX_LEDGER_FILLS} fills; this one has more"
                        ),
                    )
                    .into());
                }
            }
            fills.reverse();
            let applied = self.store.applied_actions(account_id).await?;
            let settled = self.store.option_settlements(account_id).await?;
            let account = self
                .store
                .account(account_id)
                .await?
                .ok_or(CoreError::Internal("an account owned a moment ago is gone"))?;
            let latest = self.store.executions(&newest(None, 1)).await?;
            let applied_since = self.store.applied_actions(account_id).await?;
            let settled_since = self.store.option_settlements(account_id).await?;
            if latest.first().map(|e| e.fill_id) == fills.last().map(|f| f.fill_id)
                && applied_since.len() == applied.len()
                && settled_since.len() == settled.len()
            {
                return Ok(CashChanges {
                    account,
                    fills,
                    applied,
                    settled,
                });
            }
        }
        Err(Rejection::new(
            ErrorCode::ServiceNotAvailable,
            "the account is filling faster than its ledger can be read: retry shortly",
        )
        .into())
    }

    /// The account's opening cash: its cash now less what its fills, splits, dividends and
    /// settlements moved (the ledger's first entry, the deposit it was made with).
    pub async fn opening_cash(&self, account_id: &AccountId) -> Result<Decimal, CoreError> {
        let changes = self.cash_changes(account_id).await?;
        let cash = changes.account.cash;
        Ok(changes.ledger().first().map_or(cash, |deposit| deposit.amount))
    }
}
