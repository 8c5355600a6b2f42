use std::collections::HashMap;

use async_trait::async_trait;
use rust_decimal::Decimal;
use signet_domain::options::settlement::Settled;
use signet_domain::times::{SimTime, WallTime};
use signet_domain::trading::accounting::{Execution, Exposure, Holding, NotFilled, fill_order, filled_after};
use signet_domain::trading::combo::{Consequence, consequence};
use signet_domain::trading::corporate::Applied;
use signet_domain::trading::events;
use signet_domain::trading::multi_leg::MultiLeg;
use signet_domain::trading::order::{Event, Order, transition};
use signet_domain::trading::replace::Replacement;
use signet_model::AccountType;
use signet_model::ids::{AccountId, ClientOrderId, OrderId};
use signet_model::orders::Side;
use signet_model::wire::WireEnum;

use super::SqlStore;
use super::query::{Dialect, Pool, Tx, map_err, query};
use super::trading_rows::{
    FillRow, OPEN, holding, insert_fill, order_by_id, record_event, save_cash, save_order_fill, save_position,
};
use crate::rows::{Decoded, ORDER_COLUMNS, parse_column};
use crate::{
    AccountTurn, ChangeCursor, Crossed, EventBatch, ExecutionQuery, ExecutionRecord, FillOutcome, FillRequest,
    OrderChanges, OrderQuery, Placed, PositionRecord, SettledOptions, StoreError, StoredEvent, TradingStore, UsedIds,
};

/// Order events one read returns at most (SQLite).
const EVENTS_PER_READ: usize = 10_000;

/// Begins the transaction of a change to `order_id` and its account. On PostgreSQL it locks the
/// account's row first: every fill, cancel, replace or expiry takes this lock, so they (and the
/// positions and cash they change) happen one after the other for one account, from any node.
/// SQLite's single writer serializes them already. `None` when there is no such order.
async fn begin_account_change(store: &SqlStore, order_id: &OrderId) -> Result<Option<Tx>, StoreError> {
    let mut tx = store.writer.begin().await?;
    if tx.dialect() == Dialect::Postgres {
        let locked: Option<(String,)> = query(
            "SELECT account_id FROM accounts
             WHERE account_id = (SELECT account_id FROM orders WHERE order_id = $1) FOR UPDATE",
        )
        .bind(order_id)
        .fetch_optional(&mut tx)
        .await?;
        if locked.is_none() {
            return Ok(None);
        }
    }
    Ok(Some(tx))
}

/// Ends `orders` (open when read) as the broker does when their prices no longer hold (a split)
/// or their contract expired: each still open is cancelled for `reason`, with its event and what
/// that does to its combination. The orders ended, as they are now.
pub(super) async fn expire_orders(
    tx: &mut Tx,
    orders: impl IntoIterator<Item = Order>,
    reason: &str,
    time: WallTime,
) -> Result<Vec<Order>, StoreError> {
    let mut ended = Vec::new();
    for order in orders {
        // A combination's other order may have been cancelled with an earlier one.
        let still_open = query(format!(
            "UPDATE orders SET status = $1, reason = $2, update_time = $3 WHERE order_id = $4 AND {OPEN}"
        ))
        .bind(
            transition(order.status, Event::Expire)
                .expect("an open order can be cancelled")
                .as_str(),
        )
        .bind(reason)
        .bind(time.0)
        .bind(&order.order_id)
        .execute(&mut *tx)
        .await?;
        if still_open == 0 {
            continue;
        }
        let after = order_by_id(tx, &order.order_id).await?.expect("the order just updated");
        record_event(tx, &after, time.0, order.status, Event::Expire, Some(reason), None).await?;
        follow_combination(tx, &after, time.0).await?;
        ended.push(after);
    }
    Ok(ended)
}

/// Carries out, in the same transaction, what `changed` (just filled or ended) does to the other
/// open orders of its combination.
pub(super) async fn follow_combination(tx: &mut Tx, changed: &Order, time_ms: i64) -> Result<(), StoreError> {
    let Some(combo) = &changed.combo else {
        return Ok(());
    };
    let others: Vec<Decoded<Order>> = query(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE combo_order_id = $1 AND order_id != $2 AND {OPEN}"
    ))
    .bind(&combo.combo_order_id)
    .bind(&changed.order_id)
    .fetch_all(&mut *tx)
    .await?;
    for other in Decoded::all(others) {
        let (event, reason, release) = match consequence(changed, &other) {
            None => continue,
            Some(Consequence::Release) => (Event::Release, None, true),
            Some(Consequence::Cancel(reason)) => (Event::Cancel, Some(reason), false),
        };
        let Some(status) = transition(other.status, event) else {
            continue;
        };
        let waits_for = if release { "waits_for = NULL, " } else { "" };
        query(format!(
            "UPDATE orders SET {waits_for}status = $1, reason = COALESCE($2, reason), update_time = $3
             WHERE order_id = $4"
        ))
        .bind(status.as_str())
        .bind(reason)
        .bind(time_ms)
        .bind(&other.order_id)
        .execute(&mut *tx)
        .await?;
        let after = Order {
            status,
            ..other.clone()
        };
        record_event(tx, &after, time_ms, other.status, event, reason, None).await?;
    }
    Ok(())
}

#[async_trait]
impl TradingStore for SqlStore {
    async fn cross_ex_dates(&self, today: i32, time: WallTime) -> Result<Crossed, StoreError> {
        SqlStore::cross_ex_dates(self, today, time).await
    }

    async fn applied_actions(&self, account_id: &AccountId) -> Result<Vec<Applied>, StoreError> {
        SqlStore::applied_actions(self, account_id).await
    }

    async fn settle_expired_options(&self, today: i32, time: WallTime) -> Result<SettledOptions, StoreError> {
        SqlStore::settle_expired_options(self, today, time).await
    }

    async fn option_settlements(&self, account_id: &AccountId) -> Result<Vec<Settled>, StoreError> {
        SqlStore::option_settlements(self, account_id).await
    }

    async fn reset_account(&self, account_id: &AccountId, cash: Decimal) -> Result<bool, StoreError> {
        // The turn first, as a placement takes it, then the account's row, as a fill does.
        let turn = self.begin_turn(account_id).await?;
        let mut tx = self.writer.begin().await?;
        let lock = match tx.dialect() {
            Dialect::Postgres => " FOR UPDATE",
            Dialect::Sqlite => "",
        };
        let found: Option<(String,)> = query(format!("SELECT account_id FROM accounts WHERE account_id = $1{lock}"))
            .bind(account_id)
            .fetch_optional(&mut tx)
            .await?;
        if found.is_none() {
            return Ok(false);
        }
        let of_its_orders = "order_id IN (SELECT order_id FROM orders WHERE account_id = $1)";
        for statement in [
            format!("DELETE FROM order_events WHERE {of_its_orders} OR account_id = $1"),
            format!("DELETE FROM fills WHERE {of_its_orders}"),
            "DELETE FROM orders WHERE account_id = $1".to_owned(),
            "DELETE FROM positions WHERE account_id = $1".to_owned(),
            "DELETE FROM corporate_action_entries WHERE account_id = $1".to_owned(),
            "DELETE FROM option_settlements WHERE account_id = $1".to_owned(),
        ] {
            query(statement).bind(account_id).execute(&mut tx).await?;
        }
        save_cash(&mut tx, account_id, cash).await?;
        tx.commit().await?;
        turn.end().await?.on_disk().await?;
        Ok(true)
    }

    async fn begin_turn(&self, account_id: &AccountId) -> Result<AccountTurn, StoreError> {
        SqlStore::begin_turn(self, account_id).await
    }

    async fn insert_placements(
        &self,
        turn: &mut AccountTurn,
        placements: &[Vec<Order>],
    ) -> Result<Vec<Placed>, StoreError> {
        SqlStore::insert_placements(self, turn, placements).await
    }

    async fn used_client_ids(
        &self,
        account_id: &AccountId,
        client_order_ids: &[&ClientOrderId],
        client_combo_order_ids: &[&str],
    ) -> Result<UsedIds, StoreError> {
        let mut orders = query("SELECT client_order_id FROM orders WHERE account_id = $1 AND ").bind(account_id);
        orders.push_in("client_order_id", client_order_ids.iter().copied());
        let used: Vec<(String,)> = orders.fetch_all(&self.reader).await?;
        let mut used_combos: Vec<(String,)> = Vec::new();
        if !client_combo_order_ids.is_empty() {
            let mut combos = query(
                "SELECT client_combo_order_id FROM orders WHERE account_id = $1 AND combo_order_id = order_id AND ",
            )
            .bind(account_id);
            combos.push_in("client_combo_order_id", client_combo_order_ids.iter().copied());
            used_combos = combos.fetch_all(&self.reader).await?;
        }
        Ok(UsedIds {
            client_order_ids: used.into_iter().map(|(id,)| ClientOrderId::from(id)).collect(),
            client_combo_order_ids: used_combos.into_iter().map(|(id,)| id).collect(),
        })
    }

    async fn order(
        &self,
        account_id: &AccountId,
        client_order_id: &ClientOrderId,
    ) -> Result<Option<Order>, StoreError> {
        let row: Option<Decoded<Order>> = query(format!(
            "SELECT {ORDER_COLUMNS} FROM orders WHERE account_id = $1 AND client_order_id = $2"
        ))
        .bind(account_id)
        .bind(client_order_id)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|Decoded(order)| order))
    }

    async fn orders(&self, q: &OrderQuery) -> Result<Vec<Order>, StoreError> {
        let rows = query(format!(
            "SELECT {ORDER_COLUMNS} FROM orders
             WHERE account_id = $1 AND (NOT $2 OR {OPEN})
               AND ($3 IS NULL OR place_time >= $3) AND ($4 IS NULL OR place_time <= $4)
               AND ($5 IS NULL OR seq < $5)
               AND ($7 IS NULL OR status = $7) AND ($8 IS NULL OR symbol = $8)
             ORDER BY seq DESC LIMIT $6"
        ))
        .bind(&q.account_id)
        .bind(q.open_only)
        .bind(q.from_ms)
        .bind(q.to_ms)
        .bind(q.before_seq)
        .bind(i64::from(q.limit))
        .bind(q.status.as_deref())
        .bind(q.symbol.as_deref())
        .fetch_all(&self.reader)
        .await?;
        Ok(Decoded::all(rows))
    }

    async fn open_orders(&self) -> Result<Vec<Order>, StoreError> {
        let rows = query(format!("SELECT {ORDER_COLUMNS} FROM orders WHERE {OPEN} ORDER BY seq"))
            .fetch_all(&self.reader)
            .await?;
        Ok(Decoded::all(rows))
    }

    async fn order_counts(&self) -> Result<Vec<(String, i64)>, StoreError> {
        query("SELECT status, count(*) FROM orders GROUP BY status")
            .fetch_all(&self.reader)
            .await
    }

    async fn order_changes(
        &self,
        account_id: Option<&AccountId>,
        since: Option<ChangeCursor>,
    ) -> Result<OrderChanges, StoreError> {
        if self.dialect() != Dialect::Postgres {
            return Err(StoreError::Other(
                "this store is not shared by several nodes and keeps no change feed".into(),
            ));
        }
        if let (Some(account_id), Some(since)) = (account_id, since) {
            return account_changes(self, account_id, since).await;
        }
        let account = match account_id {
            Some(_) => "account_id = $1",
            None => "$1::text IS NULL",
        };
        let which = match since {
            Some(_) => "changed >= $2::text::xid8",
            None => &format!("$2::text IS NULL AND {OPEN}"),
        };
        // The xmin of the statement's own snapshot: every transaction below it had ended when
        // the rows were read, so what it wrote is in them; the next read starts there.
        let rows: Vec<Decoded<(String, Order)>> = query(format!(
            "SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS cursor, {ORDER_COLUMNS}
             FROM orders WHERE {account} AND {which} ORDER BY seq"
        ))
        .bind(account_id)
        .bind(since.map(|c| c.0.to_string()))
        .fetch_all(&self.reader)
        .await?;
        // No row, no snapshot: reading again from `since` is as right, and as cheap.
        let cursor = match rows.first() {
            Some(Decoded((text, _))) => Some(cursor_of(text)?),
            None => since,
        };
        Ok(OrderChanges {
            orders: Decoded::all(rows).into_iter().map(|(_, order)| order).collect(),
            cursor,
            account_changed: false,
        })
    }

    async fn order_events(&self, since: Option<ChangeCursor>) -> Result<EventBatch, StoreError> {
        // SQLite has one writer: ids grow in commit order, and an event is read once. On
        // PostgreSQL an event is read while its transaction is not below the snapshot's xmin.
        let (now, feed) = match self.dialect() {
            Dialect::Sqlite => (
                "SELECT COALESCE(MAX(id), 0) + 1 FROM order_events",
                format!(
                    "SELECT e.id, COALESCE(e.account_id, o.account_id), e.time, e.payload, e.position_payload, e.id, e.id + 1
                     FROM order_events e LEFT JOIN orders o ON o.order_id = e.order_id
                     WHERE e.id >= $1 ORDER BY e.id LIMIT {EVENTS_PER_READ}"
                ),
            ),
            Dialect::Postgres => (
                "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint",
                "SELECT e.id, COALESCE(e.account_id, o.account_id), e.time, e.payload, e.position_payload,
                        e.changed::text::bigint, pg_snapshot_xmin(pg_current_snapshot())::text::bigint
                 FROM order_events e LEFT JOIN orders o ON o.order_id = e.order_id
                 WHERE e.changed >= $1::bigint::text::xid8 ORDER BY e.id"
                    .to_owned(),
            ),
        };
        let Some(since) = since else {
            let (cursor,): (i64,) = query(now).fetch_one(&self.reader).await?;
            return Ok(EventBatch {
                events: Vec::new(),
                cursor: ChangeCursor(cursor.unsigned_abs()),
                more: false,
            });
        };
        // SQLite reads at most EVENTS_PER_READ past its cursor; PostgreSQL's read from the
        // snapshot's xmin returns every event at or above it (it takes no limit).
        let rows: Vec<(i64, String, i64, Option<String>, Option<String>, i64, i64)> = query(feed)
            .bind(i64::try_from(since.0).unwrap_or(i64::MAX))
            .fetch_all(&self.reader)
            .await?;
        let more = self.dialect() == Dialect::Sqlite && rows.len() >= EVENTS_PER_READ;
        // SQLite: past the last row read; PostgreSQL: the read's xmin (the same in every row).
        let cursor = rows.last().map_or(since, |row| ChangeCursor(row.6.unsigned_abs()));
        let events = rows
            .into_iter()
            .map(
                |(id, account_id, time_ms, payload, position_payload, changed, _)| StoredEvent {
                    id,
                    account_id: account_id.into(),
                    time_ms,
                    payload,
                    position_payload,
                    changed: changed.unsigned_abs(),
                },
            )
            .collect();
        Ok(EventBatch { events, cursor, more })
    }

    async fn notify_order_events(&self, wake: &tokio::sync::Notify) -> Result<(), StoreError> {
        let Pool::Postgres(pool) = &self.reader else {
            return Ok(());
        };
        let mut listener = sqlx::postgres::PgListener::connect_with(pool).await.map_err(map_err)?;
        // The channel of the trigger of migration 0009.
        listener.listen("signet_order_events").await.map_err(map_err)?;
        loop {
            listener.recv().await.map_err(map_err)?;
            wake.notify_one();
        }
    }

    async fn positions(&self, account_id: &AccountId) -> Result<Vec<PositionRecord>, StoreError> {
        let rows: Vec<(String, i64, String, String, String)> = query(
            "SELECT account_id, instrument_id, symbol, quantity, average_cost FROM positions
             WHERE account_id = $1 AND quantity != '0' ORDER BY symbol",
        )
        .bind(account_id)
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter()
            .map(|(account_id, instrument_id, symbol, quantity, average_cost)| {
                Ok(PositionRecord {
                    account_id: account_id.into(),
                    instrument_id,
                    symbol,
                    holding: holding(&quantity, &average_cost)?,
                })
            })
            .collect()
    }

    async fn executions(&self, q: &ExecutionQuery) -> Result<Vec<ExecutionRecord>, StoreError> {
        type Row = (i64, String, i64, String, String, String, Option<i64>, Option<String>);
        let fills: Vec<Row> = query(
            "SELECT f.fill_id, f.order_id, f.time, f.quantity, f.price, f.commission, f.instrument_id, f.side
             FROM fills f JOIN orders o ON o.order_id = f.order_id
             WHERE o.account_id = $1 AND ($2 IS NULL OR o.client_order_id = $2)
               AND ($3 IS NULL OR f.time >= $3) AND ($4 IS NULL OR f.time <= $4)
               AND ($5 IS NULL OR f.fill_id < $5)
             ORDER BY f.fill_id DESC LIMIT $6",
        )
        .bind(&q.account_id)
        .bind(q.client_order_id.as_deref())
        .bind(q.from_ms)
        .bind(q.to_ms)
        .bind(q.before_fill_id)
        .bind(i64::from(q.limit))
        .fetch_all(&self.reader)
        .await?;
        if fills.is_empty() {
            return Ok(Vec::new());
        }
        let mut ids: Vec<&str> = fills.iter().map(|f| f.1.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut select = query(format!("SELECT {ORDER_COLUMNS} FROM orders WHERE "));
        select.push_in("order_id", ids.iter().copied());
        let orders: HashMap<OrderId, Order> = Decoded::all(select.fetch_all(&self.reader).await?)
            .into_iter()
            .map(|o: Order| (o.order_id.clone(), o))
            .collect();
        // The leg of a multi-leg order a fill row traded, and the units of the order it filled.
        let leg_of = |order_id: &str, instrument_id: Option<i64>| {
            let multi = orders.get(order_id)?.multi_leg.as_ref()?;
            multi.legs.iter().find(|l| Some(l.instrument_id) == instrument_id)
        };
        // What each order had filled after each of its fills, oldest first: of a multi-leg
        // order, the units, counted along each leg's own fills.
        let mut select = query("SELECT order_id, fill_id, quantity, instrument_id FROM fills WHERE ");
        select.push_in("order_id", ids.iter().copied());
        select.push(" ORDER BY fill_id");
        let all: Vec<(String, i64, String, Option<i64>)> = select.fetch_all(&self.reader).await?;
        let decimal = |name: &str, text: &str| parse_column(name, text, |t| t.parse::<Decimal>().ok());
        let keyed: Vec<(String, i64, Decimal)> = all
            .iter()
            .map(|(order_id, fill_id, quantity, instrument_id)| {
                let quantity = decimal("quantity", quantity)?;
                Ok(match leg_of(order_id, *instrument_id) {
                    Some(leg) => (
                        format!("{order_id}#{}", leg.instrument_id),
                        *fill_id,
                        quantity / Decimal::from(leg.ratio.max(1)),
                    ),
                    None => (order_id.clone(), *fill_id, quantity),
                })
            })
            .collect::<Result<_, StoreError>>()?;
        let filled_after = filled_after(
            keyed
                .iter()
                .map(|(key, fill_id, units)| (key.as_str(), *fill_id, *units)),
        );
        fills
            .into_iter()
            .map(
                |(fill_id, order_id, time_ms, quantity, price, commission, instrument_id, side)| {
                    let order = orders
                        .get(order_id.as_str())
                        .cloned()
                        .ok_or_else(|| StoreError::Other(format!("fill {fill_id} has no order {order_id}")))?;
                    let (instrument_id, symbol, side) = match leg_of(&order_id, instrument_id) {
                        Some(leg) => (leg.instrument_id, leg.symbol.clone(), leg.side),
                        None => (
                            order.instrument_id,
                            order.symbol.clone(),
                            match side {
                                Some(side) => parse_column("side", &side, Side::parse)?,
                                None => order.side,
                            },
                        ),
                    };
                    Ok(ExecutionRecord {
                        fill_id,
                        time_ms,
                        quantity: decimal("quantity", &quantity)?,
                        price: decimal("price", &price)?,
                        commission: decimal("commission", &commission)?,
                        filled_after: filled_after.get(&fill_id).copied().unwrap_or_default(),
                        instrument_id,
                        symbol,
                        side,
                        order,
                    })
                },
            )
            .collect()
    }

    async fn apply_fill(
        &self,
        fill: &FillRequest,
        marks: &(dyn Fn(i64) -> Option<Decimal> + Sync),
    ) -> Result<FillOutcome, StoreError> {
        let Some(mut tx) = begin_account_change(self, &fill.order_id).await? else {
            return Ok(FillOutcome::Stale);
        };
        let Some(order) = order_by_id(&mut tx, &fill.order_id).await? else {
            return Ok(FillOutcome::Stale);
        };
        if fill.filled_before.is_some_and(|before| before != order.filled_quantity) {
            return Ok(FillOutcome::Stale);
        }
        if let Some(multi) = &order.multi_leg {
            return super::multi_leg::apply_legs_fill(tx, fill, &order, multi, marks).await;
        }
        let (account_type, cash): (String, String) =
            query("SELECT account_type, cash FROM accounts WHERE account_id = $1")
                .bind(&order.account_id)
                .fetch_one(&mut tx)
                .await?;
        // Every position of the account: the order's instrument's is the one the fill changes,
        // the others count in the margin check.
        let held: Vec<(i64, String, String)> = query(
            "SELECT instrument_id, quantity, average_cost FROM positions WHERE account_id = $1 AND quantity != '0'",
        )
        .bind(&order.account_id)
        .fetch_all(&mut tx)
        .await?;
        let (mut filled, mut others) = (Holding::default(), Exposure::default());
        for (instrument_id, quantity, average_cost) in held {
            let position = holding(&quantity, &average_cost)?;
            if instrument_id == order.instrument_id {
                filled = position;
            } else {
                let mark = marks(instrument_id).unwrap_or(position.average_cost);
                others = others.plus(Exposure::of(instrument_id, position.quantity, mark));
            }
        }
        let execution = Execution {
            quantity: fill.quantity,
            price: fill.price,
            commission: fill.commission,
        };
        let effect = match fill_order(
            &order,
            parse_column("account type", &account_type, AccountType::parse)?,
            parse_column("cash", &cash, |t| t.parse().ok())?,
            filled,
            others,
            execution,
        ) {
            Ok(effect) => effect,
            Err(NotFilled::Stale) => return Ok(FillOutcome::Stale),
            Err(NotFilled::Refused(refusal)) => return Ok(FillOutcome::Refused(refusal)),
        };
        let row = FillRow {
            quantity: fill.quantity,
            price: fill.price,
            commission: effect.commission,
            leg: None,
        };
        insert_fill(&mut tx, fill, &row).await?;
        let progress = (effect.status, effect.filled_quantity, effect.filled_amount);
        save_order_fill(&mut tx, fill, progress, None).await?;
        save_position(
            &mut tx,
            &order.account_id,
            order.instrument_id,
            &order.symbol,
            effect.account.holding,
        )
        .await?;
        save_cash(&mut tx, &order.account_id, effect.account.cash).await?;
        let updated = order_by_id(&mut tx, &order.order_id)
            .await?
            .expect("the order just updated");
        let position = events::position_payload(&updated, effect.account.holding);
        record_event(
            &mut tx,
            &updated,
            fill.time.0,
            order.status,
            effect.event,
            None,
            position,
        )
        .await?;
        follow_combination(&mut tx, &updated, fill.time.0).await?;
        tx.commit().await?;
        Ok(FillOutcome::Applied(Box::new(updated)))
    }

    async fn move_stop(
        &self,
        order_id: &OrderId,
        stop_price: Decimal,
        triggered_at: Option<SimTime>,
        time: WallTime,
    ) -> Result<bool, StoreError> {
        let moved = query(format!(
            "UPDATE orders SET stop_price = $1, triggered_at = COALESCE(triggered_at, $2), update_time = $3
             WHERE order_id = $4 AND {OPEN} AND triggered_at IS NULL"
        ))
        .bind(stop_price.to_string())
        .bind(triggered_at.map(|at| at.0))
        .bind(time.0)
        .bind(order_id)
        .execute(&self.writer)
        .await?;
        Ok(moved == 1)
    }

    async fn update_open_order(
        &self,
        order_id: &OrderId,
        event: Event,
        reason: Option<&str>,
        replacement: Option<Replacement>,
        time: WallTime,
    ) -> Result<Option<Order>, StoreError> {
        let time_ms = time.0;
        let Some(mut tx) = begin_account_change(self, order_id).await? else {
            return Ok(None);
        };
        let Some(order) = order_by_id(&mut tx, order_id).await? else {
            return Ok(None);
        };
        let Some(status) = transition(order.status, event) else {
            return Ok(None);
        };
        let (quantity, limit_price, stop_price) = match replacement {
            Some(r) => (r.quantity, r.limit_price, r.stop_price),
            None => (order.quantity, order.limit_price, order.stop_price),
        };
        // A multi-leg order replaced keeps its legs with what a unit claims at its new limit.
        let legs = replacement
            .and_then(|r| r.legs_claim)
            .zip(order.multi_leg.as_ref())
            .map(|(claim, multi)| MultiLeg { claim, ..multi.clone() }.encode());
        query(
            "UPDATE orders SET status = $1, reason = COALESCE($2, reason), quantity = $3, limit_price = $4,
                 stop_price = $5, update_time = $6, legs = COALESCE($8, legs)
             WHERE order_id = $7",
        )
        .bind(status.as_str())
        .bind(reason)
        .bind(quantity.to_string())
        .bind(limit_price.map(|p| p.to_string()))
        .bind(stop_price.map(|p| p.to_string()))
        .bind(time_ms)
        .bind(order_id)
        .bind(legs)
        .execute(&mut tx)
        .await?;
        let updated = order_by_id(&mut tx, order_id).await?;
        if let Some(updated) = &updated {
            record_event(&mut tx, updated, time_ms, order.status, event, reason, None).await?;
            follow_combination(&mut tx, updated, time_ms).await?;
        }
        tx.commit().await?;
        Ok(updated)
    }
}

fn cursor_of(text: &str) -> Result<ChangeCursor, StoreError> {
    Ok(ChangeCursor(parse_column("snapshot xmin", text, |t| t.parse().ok())?))
}

/// [`TradingStore::order_changes`] of one account since a cursor: its orders changed since, and
/// whether its row changed, in one statement (one round trip on a placement's path), which
/// always answers one row at least (with no order when none changed) and so a cursor.
async fn account_changes(
    store: &SqlStore,
    account_id: &AccountId,
    since: ChangeCursor,
) -> Result<OrderChanges, StoreError> {
    let rows: Vec<Decoded<(String, bool, Option<Order>)>> = query(format!(
        "SELECT s.cursor, s.account_moved, {ORDER_COLUMNS}
         FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS cursor,
                      COALESCE((SELECT changed >= $2::text::xid8 FROM accounts WHERE account_id = $1), TRUE)
                          AS account_moved) s
         LEFT JOIN orders ON account_id = $1 AND changed >= $2::text::xid8
         ORDER BY seq"
    ))
    .bind(account_id)
    .bind(since.0.to_string())
    .fetch_all(&store.reader)
    .await?;
    let (cursor, account_changed) = match rows.first() {
        Some(Decoded((text, moved, _))) => (Some(cursor_of(text)?), *moved),
        None => (Some(since), true),
    };
    Ok(OrderChanges {
        orders: Decoded::all(rows)
            .into_iter()
            .filter_map(|(_, _, order)| order)
            .collect(),
        cursor,
        account_changed,
    })
}
