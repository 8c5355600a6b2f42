//! Splits and dividends applied to the positions held when the simulated market crosses their
//! ex-dates ([`crate::TradingStore::cross_ex_dates`]). The days crossed so far are a mark in
//! `meta`, read and moved in the transaction that applies what lies between, and locked there on
//! PostgreSQL: nodes crossing the same day at once apply it once, one after the other. Each
//! application is also a row of `corporate_action_entries`, unique per account, instrument,
//! ex-date and kind: a clock set back and moved forward again does not pay twice.

use rust_decimal::Decimal;
use signet_domain::marketdata::{ActionKind, ActionSource, CorporateAction};
use signet_domain::times::WallTime;
use signet_domain::trading::corporate::{Applied, apply};
use signet_domain::trading::events::split_position_payload;
use signet_domain::trading::order::Order;
use signet_model::ids::AccountId;

use super::SqlStore;
use super::query::{Dialect, Tx, query};
use super::trading::expire_orders;
use super::trading_rows::{OPEN, holding, record_position_event, save_cash};
use crate::rows::{Decoded, ORDER_COLUMNS, parse_column};
use crate::{Crossed, StoreError};

/// The `meta` key of the last New York day whose ex-dates were crossed.
const MARK: &str = "ex_dates_crossed_through";

/// The orders of an instrument's own shares, not of option contracts on it: an option order
/// keeps its underlying's id in `instrument_id` (`rows::stored_instrument`), and an action of the
/// underlying leaves option orders alone (as it does option positions, whose `instrument_id` is
/// the contract's).
const OF_SHARES: &str = "option_contract_id IS NULL";

/// Why a split cancels the open orders of its instrument.
const SPLIT_CANCELS: &str = "cancelled by the broker: a split of the instrument changed its prices";

impl SqlStore {
    pub(super) async fn cross_ex_dates(&self, today: i32, time: WallTime) -> Result<Crossed, StoreError> {
        let mut tx = self.writer.begin_write().await?;
        let lock = match tx.dialect() {
            Dialect::Postgres => " FOR UPDATE",
            Dialect::Sqlite => "",
        };
        let mark: Option<(String,)> = query(format!("SELECT value FROM meta WHERE key = $1{lock}"))
            .bind(MARK)
            .fetch_optional(&mut tx)
            .await?;
        let Some((mark,)) = mark else {
            // A database's first crossing: nothing before today is applied to its positions.
            query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT DO NOTHING")
                .bind(MARK)
                .bind(today.to_string())
                .execute(&mut tx)
                .await?;
            tx.commit().await?;
            return Ok(Crossed::default());
        };
        let crossed_through: i32 = parse_column("the ex-dates' mark", &mark, |m| m.parse().ok())?;
        if crossed_through == today {
            return Ok(Crossed::default());
        }
        query("UPDATE meta SET value = $1 WHERE key = $2")
            .bind(today.to_string())
            .bind(MARK)
            .execute(&mut tx)
            .await?;
        let mut crossed = Crossed::default();
        if today > crossed_through {
            for (instrument_id, action) in actions_between(&mut tx, crossed_through, today).await? {
                lock_accounts(&mut tx, instrument_id, action.kind).await?;
                if action.kind == ActionKind::Split {
                    crossed
                        .cancelled
                        .extend(cancel_open_orders(&mut tx, instrument_id, time).await?);
                }
                crossed
                    .applied
                    .extend(apply_to_holders(&mut tx, instrument_id, &action, time).await?);
            }
        }
        tx.commit().await?;
        Ok(crossed)
    }

    pub(super) async fn applied_actions(&self, account_id: &AccountId) -> Result<Vec<Applied>, StoreError> {
        let rows: Vec<EntryRow> = query(
            "SELECT entry_id, account_id, instrument_id, symbol, ex_day, kind, value, quantity_before,
                    quantity_after, cash, time
             FROM corporate_action_entries WHERE account_id = $1 ORDER BY entry_id",
        )
        .bind(account_id)
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter().map(EntryRow::decode).collect()
    }
}

/// The actions with an ex-date after `after` and on or before `through`, by day, a dividend
/// before a split of the same day (a dividend is declared on the shares before it).
async fn actions_between(tx: &mut Tx, after: i32, through: i32) -> Result<Vec<(i64, CorporateAction)>, StoreError> {
    let rows: Vec<(i64, i32, String, String, String)> = query(
        "SELECT instrument_id, day, kind, value, source FROM corporate_actions
         WHERE day > $1 AND day <= $2 ORDER BY day, kind, instrument_id",
    )
    .bind(after)
    .bind(through)
    .fetch_all(&mut *tx)
    .await?;
    rows.into_iter()
        .map(|(instrument_id, day, kind, value, source)| {
            Ok((
                instrument_id,
                CorporateAction {
                    day,
                    kind: parse_column("action kind", &kind, ActionKind::parse)?,
                    value: parse_column("action value", &value, |v| v.parse().ok())?,
                    source: parse_column("action source", &source, ActionSource::parse)?,
                },
            ))
        })
        .collect()
}

/// On PostgreSQL, locks the accounts the action changes (the holders, and for a split the owners
/// of open orders of the instrument) in one order, as a fill locks its account: a fill under way
/// ends before, or waits for the action.
async fn lock_accounts(tx: &mut Tx, instrument_id: i64, kind: ActionKind) -> Result<(), StoreError> {
    if tx.dialect() != Dialect::Postgres {
        return Ok(());
    }
    let orders = match kind {
        ActionKind::Split => {
            format!("UNION SELECT account_id FROM orders WHERE instrument_id = $1 AND {OF_SHARES} AND {OPEN}")
        }
        ActionKind::Dividend => String::new(),
    };
    let _: Vec<(String,)> = query(format!(
        "SELECT account_id FROM accounts WHERE account_id IN (
             SELECT account_id FROM positions WHERE instrument_id = $1 AND quantity != '0' {orders})
         ORDER BY account_id FOR UPDATE"
    ))
    .bind(instrument_id)
    .fetch_all(&mut *tx)
    .await?;
    Ok(())
}

/// Cancels every open order of the instrument, with its event, as the broker does on a split.
async fn cancel_open_orders(tx: &mut Tx, instrument_id: i64, time: WallTime) -> Result<Vec<Order>, StoreError> {
    let open: Vec<Decoded<Order>> = query(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE instrument_id = $1 AND {OF_SHARES} AND {OPEN} ORDER BY seq"
    ))
    .bind(instrument_id)
    .fetch_all(&mut *tx)
    .await?;
    expire_orders(tx, Decoded::all(open), SPLIT_CANCELS, time).await
}

/// Applies the action to every position of the instrument, once per account.
async fn apply_to_holders(
    tx: &mut Tx,
    instrument_id: i64,
    action: &CorporateAction,
    time: WallTime,
) -> Result<Vec<Applied>, StoreError> {
    // A fraction of a share left by a split is paid at the last close before it, divided by
    // its ratio (the price the split makes of it); or else at the shares' own cost.
    let close_before: Option<(i64,)> =
        query("SELECT close_e6 FROM daily_bars WHERE instrument_id = $1 AND day < $2 ORDER BY day DESC LIMIT 1")
            .bind(instrument_id)
            .bind(action.day)
            .fetch_optional(&mut *tx)
            .await?;
    let split_price = match (action.kind, close_before) {
        (ActionKind::Split, Some((close_e6,))) if !action.value.is_zero() => {
            Some(Decimal::new(close_e6, 6) / action.value)
        }
        _ => None,
    };
    let held: Vec<(String, String, String, String, String)> = query(
        "SELECT p.account_id, p.symbol, p.quantity, p.average_cost, a.cash
         FROM positions p JOIN accounts a ON a.account_id = p.account_id
         WHERE p.instrument_id = $1 AND p.quantity != '0' ORDER BY p.account_id",
    )
    .bind(instrument_id)
    .fetch_all(&mut *tx)
    .await?;
    let mut applied = Vec::new();
    for (account_id, symbol, quantity, average_cost, cash) in held {
        let account_id = AccountId::from(account_id);
        let before = holding(&quantity, &average_cost)?;
        let cash: Decimal = parse_column("cash", &cash, |t| t.parse().ok())?;
        let price_after = split_price.unwrap_or_else(|| {
            if action.value.is_zero() {
                before.average_cost
            } else {
                before.average_cost / action.value
            }
        });
        let Some(effect) = apply(before, action, price_after) else {
            continue;
        };
        let inserted: Option<(i64,)> = query(
            "INSERT INTO corporate_action_entries (account_id, instrument_id, symbol, ex_day, kind, value,
                 quantity_before, quantity_after, cash, time)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (account_id, instrument_id, ex_day, kind) DO NOTHING
             RETURNING entry_id",
        )
        .bind(&account_id)
        .bind(instrument_id)
        .bind(&symbol)
        .bind(action.day)
        .bind(action.kind.as_str())
        .bind(action.value.normalize().to_string())
        .bind(before.quantity.normalize().to_string())
        .bind(effect.holding.quantity.normalize().to_string())
        .bind(effect.cash.normalize().to_string())
        .bind(time.0)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((entry_id,)) = inserted else {
            continue;
        };
        query("UPDATE positions SET quantity = $1, average_cost = $2 WHERE account_id = $3 AND instrument_id = $4")
            .bind(effect.holding.quantity.normalize().to_string())
            .bind(effect.holding.average_cost.normalize().to_string())
            .bind(&account_id)
            .bind(instrument_id)
            .execute(&mut *tx)
            .await?;
        // A split's new position is a position event of the account, in the feed every node
        // reads (a dividend moves cash only, which no trade event carries).
        if action.kind == ActionKind::Split {
            let payload = split_position_payload(&account_id, &symbol, instrument_id, effect.holding);
            record_position_event(tx, &account_id, time.0, action.kind.as_str(), payload).await?;
        }
        // Written even when the cash is the same (a split).
        save_cash(tx, &account_id, cash + effect.cash).await?;
        applied.push(Applied {
            entry_id,
            account_id,
            instrument_id,
            symbol,
            ex_day: action.day,
            kind: action.kind,
            value: action.value,
            quantity_before: before.quantity,
            quantity_after: effect.holding.quantity,
            cash: effect.cash,
            time_ms: time.0,
        });
    }
    Ok(applied)
}

#[derive(sqlx::FromRow)]
struct EntryRow {
    entry_id: i64,
    account_id: String,
    instrument_id: i64,
    symbol: String,
    ex_day: i32,
    kind: String,
    value: String,
    quantity_before: String,
    quantity_after: String,
    cash: String,
    time: i64,
}

impl EntryRow {
    fn decode(self) -> Result<Applied, StoreError> {
        let number = |name: &str, text: &str| parse_column(name, text, |t| t.parse::<Decimal>().ok());
        Ok(Applied {
            entry_id: self.entry_id,
            kind: parse_column("action kind", &self.kind, ActionKind::parse)?,
            value: number("action value", &self.value)?,
            quantity_before: number("quantity before", &self.quantity_before)?,
            quantity_after: number("quantity after", &self.quantity_after)?,
            cash: number("cash", &self.cash)?,
            account_id: self.account_id.into(),
            instrument_id: self.instrument_id,
            symbol: self.symbol,
            ex_day: self.ex_day,
            time_ms: self.time,
        })
    }
}
