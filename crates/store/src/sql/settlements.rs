//! Option contracts settled when the simulated market crosses their expiry
//! ([`crate::TradingStore::settle_expired_options`]): each contract held at its expiry is
//! exercised, assigned or expires ([`signet_domain::options::settlement::settle`]) at its
//! underlying's close of the expiry day, once per account and contract (`option_settlements`),
//! and the open orders of expired contracts are cancelled.

use rust_decimal::Decimal;
use signet_domain::options::Contract;
use signet_domain::options::settlement::{Settled, SettlementKind, settle};
use signet_domain::times::WallTime;
use signet_domain::trading::accounting::Holding;
use signet_domain::trading::events::action_position_payload;
use signet_domain::trading::order::Order;
use signet_model::AccountType;
use signet_model::ids::AccountId;

use super::SqlStore;
use super::query::{Dialect, Tx, query};
use super::trading::expire_orders;
use super::trading_rows::{OPEN, holding, record_position_event, save_cash, save_position};
use crate::rows::{Decoded, ORDER_COLUMNS, parse_column};
use crate::{SettledOptions, StoreError};

/// Why the open orders of an expired contract end.
const EXPIRED: &str = "cancelled: the contract expired";

/// Contract ids start here ([`Contract::instrument_id`]).
const FIRST_CONTRACT_ID: i64 = 1 << 55;

impl SqlStore {
    pub(super) async fn settle_expired_options(
        &self,
        today: i32,
        time: WallTime,
    ) -> Result<SettledOptions, StoreError> {
        let mut tx = self.writer.begin_write().await?;
        let held: Vec<(String, i64)> = query(
            "SELECT account_id, instrument_id FROM positions WHERE instrument_id >= $1 AND quantity != '0'
             ORDER BY account_id, instrument_id",
        )
        .bind(FIRST_CONTRACT_ID)
        .fetch_all(&mut tx)
        .await?;
        let expired = |id: i64| Contract::of_id(id).is_some_and(|p| p.expiry < today);
        let mut settled = SettledOptions::default();
        let mut locked: Option<AccountId> = None;
        for (account_id, contract_id) in held.into_iter().filter(|(_, id)| expired(*id)) {
            let account_id = AccountId::from(account_id);
            // On PostgreSQL each account is locked as a fill locks it, in the order of their ids.
            if tx.dialect() == Dialect::Postgres && locked.as_deref() != Some(account_id.as_str()) {
                let _: Option<(String,)> = query("SELECT account_id FROM accounts WHERE account_id = $1 FOR UPDATE")
                    .bind(&account_id)
                    .fetch_optional(&mut tx)
                    .await?;
                locked = Some(account_id.clone());
            }
            if let Some(s) = settle_one(&mut tx, &account_id, contract_id, time).await? {
                settled.settled.push(s);
            }
        }
        settled.cancelled = cancel_expired_orders(&mut tx, today, time).await?;
        tx.commit().await?;
        Ok(settled)
    }

    pub(super) async fn option_settlements(&self, account_id: &AccountId) -> Result<Vec<Settled>, StoreError> {
        let rows: Vec<SettledRow> = query(
            "SELECT settlement_id, account_id, contract_id, symbol, expiry, kind, contracts, close, shares, cash, time
             FROM option_settlements WHERE account_id = $1 ORDER BY settlement_id",
        )
        .bind(account_id)
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter().map(SettledRow::decode).collect()
    }
}

/// Settles the account's contract `contract_id` (expired, held) at its underlying's close of the
/// expiry day; `None` when that close is not stored yet (the next crossing tries again) or the
/// contract was settled before.
async fn settle_one(
    tx: &mut Tx,
    account_id: &AccountId,
    contract_id: i64,
    time: WallTime,
) -> Result<Option<Settled>, StoreError> {
    let parts = Contract::of_id(contract_id).expect("a contract's id");
    let close: Option<(i64,)> = query("SELECT close_e6 FROM daily_bars WHERE instrument_id = $1 AND day = $2")
        .bind(parts.underlying_id)
        .bind(parts.expiry)
        .fetch_optional(&mut *tx)
        .await?;
    let Some((close_e6,)) = close else {
        return Ok(None);
    };
    let close = Decimal::new(close_e6, 6).normalize();
    let (symbol, quantity, average_cost): (String, String, String) =
        query("SELECT symbol, quantity, average_cost FROM positions WHERE account_id = $1 AND instrument_id = $2")
            .bind(account_id)
            .bind(contract_id)
            .fetch_one(&mut *tx)
            .await?;
    let contracts = holding(&quantity, &average_cost)?.quantity;
    if contracts.is_zero() {
        // Closed since it was listed as held.
        return Ok(None);
    }
    let (account_type, cash): (String, String) = query("SELECT account_type, cash FROM accounts WHERE account_id = $1")
        .bind(account_id)
        .fetch_one(&mut *tx)
        .await?;
    let account_type = parse_column("account type", &account_type, AccountType::parse)?;
    let cash: Decimal = parse_column("cash", &cash, |t| t.parse().ok())?;
    let (underlying_symbol,): (String,) = query("SELECT symbol FROM instruments WHERE instrument_id = $1")
        .bind(parts.underlying_id)
        .fetch_one(&mut *tx)
        .await?;
    let shares_held: Option<(String, String)> =
        query("SELECT quantity, average_cost FROM positions WHERE account_id = $1 AND instrument_id = $2")
            .bind(account_id)
            .bind(parts.underlying_id)
            .fetch_optional(&mut *tx)
            .await?;
    let underlying = match shares_held {
        Some((q, c)) => holding(&q, &c)?,
        None => Holding::default(),
    };
    let s = settle(&parts, contracts, close, account_type, underlying, cash);
    let inserted: Option<(i64,)> = query(
        "INSERT INTO option_settlements (account_id, contract_id, symbol, expiry, kind, contracts, close, shares,
             cash, time)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (account_id, contract_id) DO NOTHING
         RETURNING settlement_id",
    )
    .bind(account_id)
    .bind(contract_id)
    .bind(&symbol)
    .bind(parts.expiry)
    .bind(s.kind.as_str())
    .bind(contracts.normalize().to_string())
    .bind(close.to_string())
    .bind(s.shares.normalize().to_string())
    .bind(s.cash.normalize().to_string())
    .bind(time.0)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((settlement_id,)) = inserted else {
        return Ok(None);
    };
    query("UPDATE positions SET quantity = '0', average_cost = '0' WHERE account_id = $1 AND instrument_id = $2")
        .bind(account_id)
        .bind(contract_id)
        .execute(&mut *tx)
        .await?;
    position_event(tx, account_id, &symbol, contract_id, Holding::default(), s.kind, time).await?;
    if !s.shares.is_zero() {
        save_position(tx, account_id, parts.underlying_id, &underlying_symbol, s.underlying).await?;
        position_event(
            tx,
            account_id,
            &underlying_symbol,
            parts.underlying_id,
            s.underlying,
            s.kind,
            time,
        )
        .await?;
    }
    save_cash(tx, account_id, cash + s.cash).await?;
    Ok(Some(Settled {
        settlement_id,
        account_id: account_id.clone(),
        contract_id,
        symbol,
        expiry: parts.expiry,
        kind: s.kind,
        contracts,
        close,
        shares: s.shares,
        cash: s.cash,
        time_ms: time.0,
    }))
}

/// A position event of the account, in the feed every node reads.
async fn position_event(
    tx: &mut Tx,
    account_id: &AccountId,
    symbol: &str,
    instrument_id: i64,
    after: Holding,
    kind: SettlementKind,
    time: WallTime,
) -> Result<(), StoreError> {
    let payload = action_position_payload(account_id, symbol, instrument_id, after, kind.as_str());
    record_position_event(tx, account_id, time.0, kind.as_str(), payload).await
}

/// Cancels the open orders of contracts that expired before `today`, with their events.
async fn cancel_expired_orders(tx: &mut Tx, today: i32, time: WallTime) -> Result<Vec<Order>, StoreError> {
    let open: Vec<Decoded<Order>> = query(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE option_contract_id IS NOT NULL AND {OPEN} ORDER BY seq"
    ))
    .fetch_all(&mut *tx)
    .await?;
    let expired = Decoded::all(open)
        .into_iter()
        .filter(|o| Contract::of_id(o.instrument_id).is_some_and(|p| p.expiry < today));
    expire_orders(tx, expired, EXPIRED, time).await
}

#[derive(sqlx::FromRow)]
struct SettledRow {
    settlement_id: i64,
    account_id: String,
    contract_id: i64,
    symbol: String,
    expiry: i32,
    kind: String,
    contracts: String,
    close: String,
    shares: String,
    cash: String,
    time: i64,
}

impl SettledRow {
    fn decode(self) -> Result<Settled, StoreError> {
        let number = |name: &str, text: &str| parse_column(name, text, |t| t.parse::<Decimal>().ok());
        Ok(Settled {
            settlement_id: self.settlement_id,
            kind: parse_column("settlement kind", &self.kind, SettlementKind::parse)?,
            contracts: number("contracts", &self.contracts)?,
            close: number("close", &self.close)?,
            shares: number("shares", &self.shares)?,
            cash: number("cash", &self.cash)?,
            account_id: self.account_id.into(),
            contract_id: self.contract_id,
            symbol: self.symbol,
            expiry: self.expiry,
            time_ms: self.time,
        })
    }
}
