use async_trait::async_trait;
use rust_decimal::Decimal;
use signet_model::AccountType;
use signet_model::orders::OrderStatus;
use signet_model::wire::WireEnum;
use sqlx::SqliteConnection;

use super::{SqliteStore, map_err};
use crate::engine::accounting::{Holding, apply_fill};
use crate::engine::combo::{Consequence, consequence};
use crate::engine::order::{Event, Order, is_open, transition};
use crate::store::rows::{ORDER_COLUMNS, order_from_row, parse_column};
use crate::store::{FillOutcome, FillRequest, OrderQuery, PositionRecord, Replacement, StoreError, TradingStore};

async fn order_by_id(tx: &mut SqliteConnection, order_id: &str) -> Result<Option<Order>, StoreError> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE order_id = ?"
    )))
    .bind(order_id)
    .fetch_optional(&mut *tx)
    .await
    .map_err(map_err)?;
    row.as_ref().map(order_from_row).transpose()
}

/// Records a transition in the order's history.
async fn record_event(
    tx: &mut SqliteConnection,
    order_id: &str,
    time_ms: i64,
    from: Option<OrderStatus>,
    to: OrderStatus,
    event: &str,
    reason: Option<&str>,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO order_events (order_id, n, time, from_status, to_status, event, reason)
         VALUES (?1, (SELECT COALESCE(MAX(n), 0) + 1 FROM order_events WHERE order_id = ?1), ?2, ?3, ?4, ?5, ?6)",
    )
    .bind(order_id)
    .bind(time_ms)
    .bind(from.map(|s| s.as_str()))
    .bind(to.as_str())
    .bind(event)
    .bind(reason)
    .execute(&mut *tx)
    .await
    .map_err(map_err)?;
    Ok(())
}

/// Carries out, in the same transaction, what `changed` (just filled or ended) does to the other
/// open orders of its combination.
async fn follow_combination(tx: &mut SqliteConnection, changed: &Order, time_ms: i64) -> Result<(), StoreError> {
    let Some(combo) = &changed.combo else {
        return Ok(());
    };
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT {ORDER_COLUMNS} FROM orders
         WHERE combo_order_id = ? AND order_id != ? AND status IN ('SUBMITTED', 'PARTIAL_FILLED')"
    )))
    .bind(&combo.combo_order_id)
    .bind(&changed.order_id)
    .fetch_all(&mut *tx)
    .await
    .map_err(map_err)?;
    for row in &rows {
        let other = order_from_row(row)?;
        let (event, reason, query) = match consequence(changed, &other) {
            None => continue,
            Some(Consequence::Release) => (
                Event::Release,
                None,
                "UPDATE orders SET waits_for = NULL, status = ?, reason = COALESCE(?, reason), update_time = ?
                 WHERE order_id = ?",
            ),
            Some(Consequence::Cancel(reason)) => (
                Event::Cancel,
                Some(reason),
                "UPDATE orders SET status = ?, reason = COALESCE(?, reason), update_time = ? WHERE order_id = ?",
            ),
        };
        let Some(status) = transition(other.status, event) else {
            continue;
        };
        sqlx::query(query)
            .bind(status.as_str())
            .bind(reason)
            .bind(time_ms)
            .bind(&other.order_id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        record_event(
            tx,
            &other.order_id,
            time_ms,
            Some(other.status),
            status,
            event.as_str(),
            reason,
        )
        .await?;
    }
    Ok(())
}

#[async_trait]
impl TradingStore for SqliteStore {
    async fn insert_orders(&self, orders: &[Order]) -> Result<Vec<i64>, StoreError> {
        self.placement_writer.submit(orders.to_vec()).await?
    }

    async fn order(&self, account_id: &str, client_order_id: &str) -> Result<Option<Order>, StoreError> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {ORDER_COLUMNS} FROM orders WHERE account_id = ? AND client_order_id = ?"
        )))
        .bind(account_id)
        .bind(client_order_id)
        .fetch_optional(&self.reader)
        .await
        .map_err(map_err)?;
        row.as_ref().map(order_from_row).transpose()
    }

    async fn orders(&self, q: &OrderQuery) -> Result<Vec<Order>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {ORDER_COLUMNS} FROM orders
             WHERE account_id = ?1
               AND (?2 = 0 OR status IN ('SUBMITTED', 'PARTIAL_FILLED'))
               AND (?3 IS NULL OR place_time >= ?3) AND (?4 IS NULL OR place_time <= ?4)
               AND (?5 IS NULL OR seq < ?5)
             ORDER BY seq DESC LIMIT ?6"
        )))
        .bind(&q.account_id)
        .bind(q.open_only)
        .bind(q.from_ms)
        .bind(q.to_ms)
        .bind(q.before_seq)
        .bind(q.limit)
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        rows.iter().map(order_from_row).collect()
    }

    async fn open_orders(&self) -> Result<Vec<Order>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {ORDER_COLUMNS} FROM orders WHERE status IN ('SUBMITTED', 'PARTIAL_FILLED') ORDER BY seq"
        )))
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        rows.iter().map(order_from_row).collect()
    }

    async fn order_counts(&self) -> Result<Vec<(String, i64)>, StoreError> {
        sqlx::query_as("SELECT status, count(*) FROM orders GROUP BY status")
            .fetch_all(&self.reader)
            .await
            .map_err(map_err)
    }

    async fn positions(&self, account_id: &str) -> Result<Vec<PositionRecord>, StoreError> {
        let rows: Vec<(String, i64, String, String, String)> = sqlx::query_as(
            "SELECT account_id, instrument_id, symbol, quantity, average_cost FROM positions
             WHERE account_id = ? AND quantity != '0' ORDER BY symbol",
        )
        .bind(account_id)
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        rows.into_iter()
            .map(|(account_id, instrument_id, symbol, quantity, average_cost)| {
                Ok(PositionRecord {
                    account_id,
                    instrument_id,
                    symbol,
                    holding: Holding {
                        quantity: parse_column("quantity", &quantity, |t| t.parse().ok())?,
                        average_cost: parse_column("average cost", &average_cost, |t| t.parse().ok())?,
                    },
                })
            })
            .collect()
    }

    async fn apply_fill(&self, fill: &FillRequest) -> Result<FillOutcome, StoreError> {
        let mut tx = self.writer.begin().await.map_err(map_err)?;
        let Some(order) = order_by_id(&mut tx, &fill.order_id).await? else {
            return Ok(FillOutcome::Stale);
        };
        if !is_open(order.status) || order.remaining() < fill.quantity || fill.quantity <= Decimal::ZERO {
            return Ok(FillOutcome::Stale);
        }
        let (account_type, cash): (String, String) =
            sqlx::query_as("SELECT account_type, cash FROM accounts WHERE account_id = ?")
                .bind(&order.account_id)
                .fetch_one(&mut *tx)
                .await
                .map_err(map_err)?;
        let account_type = parse_column("account type", &account_type, AccountType::parse)?;
        let cash: Decimal = parse_column("cash", &cash, |t| t.parse().ok())?;
        let held: Option<(String, String)> =
            sqlx::query_as("SELECT quantity, average_cost FROM positions WHERE account_id = ? AND instrument_id = ?")
                .bind(&order.account_id)
                .bind(order.instrument_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(map_err)?;
        let holding = match held {
            Some((q, a)) => Holding {
                quantity: parse_column("quantity", &q, |t| t.parse().ok())?,
                average_cost: parse_column("average cost", &a, |t| t.parse().ok())?,
            },
            None => Holding::default(),
        };
        let commission = fill.commission.of(fill.quantity, order.filled_quantity.is_zero());
        let effect = match apply_fill(
            account_type,
            order.side,
            holding,
            cash,
            fill.quantity,
            fill.price,
            commission,
        ) {
            Ok(effect) => effect,
            Err(refusal) => return Ok(FillOutcome::Refused(refusal)),
        };

        let filled_quantity = order.filled_quantity + fill.quantity;
        let event = if filled_quantity == order.quantity {
            Event::Fill
        } else {
            Event::PartialFill
        };
        let status = transition(order.status, event).expect("an open order can fill");
        sqlx::query("INSERT INTO fills (order_id, time, quantity, price, commission) VALUES (?, ?, ?, ?, ?)")
            .bind(&order.order_id)
            .bind(fill.time_ms)
            .bind(fill.quantity.to_string())
            .bind(fill.price.to_string())
            .bind(commission.to_string())
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        sqlx::query(
            "UPDATE orders SET status = ?, filled_quantity = ?, filled_amount = ?, fill_time = ?, update_time = ?
             WHERE order_id = ?",
        )
        .bind(status.as_str())
        .bind(filled_quantity.to_string())
        .bind((order.filled_amount + fill.quantity * fill.price).to_string())
        .bind(fill.time_ms)
        .bind(fill.time_ms)
        .bind(&order.order_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        record_event(
            &mut tx,
            &order.order_id,
            fill.time_ms,
            Some(order.status),
            status,
            event.as_str(),
            None,
        )
        .await?;
        sqlx::query(
            "INSERT INTO positions (account_id, instrument_id, symbol, quantity, average_cost) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (account_id, instrument_id) DO UPDATE SET
                 quantity = excluded.quantity, average_cost = excluded.average_cost",
        )
        .bind(&order.account_id)
        .bind(order.instrument_id)
        .bind(&order.symbol)
        .bind(effect.holding.quantity.normalize().to_string())
        .bind(effect.holding.average_cost.normalize().to_string())
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        sqlx::query("UPDATE accounts SET cash = ? WHERE account_id = ?")
            .bind(effect.cash.normalize().to_string())
            .bind(&order.account_id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        let updated = order_by_id(&mut tx, &order.order_id)
            .await?
            .expect("the order just updated");
        follow_combination(&mut tx, &updated, fill.time_ms).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(FillOutcome::Applied(Box::new(updated)))
    }

    async fn move_stop(
        &self,
        order_id: &str,
        stop_price: Decimal,
        triggered_at: Option<i64>,
        time_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE orders SET stop_price = ?, triggered_at = COALESCE(triggered_at, ?), update_time = ?
             WHERE order_id = ? AND status IN ('SUBMITTED', 'PARTIAL_FILLED') AND triggered_at IS NULL",
        )
        .bind(stop_price.to_string())
        .bind(triggered_at)
        .bind(time_ms)
        .bind(order_id)
        .execute(&self.writer)
        .await
        .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
    }

    async fn update_open_order(
        &self,
        order_id: &str,
        event: Event,
        reason: Option<&str>,
        replacement: Option<Replacement>,
        time_ms: i64,
    ) -> Result<Option<Order>, StoreError> {
        let mut tx = self.writer.begin().await.map_err(map_err)?;
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
        sqlx::query(
            "UPDATE orders SET status = ?, reason = COALESCE(?, reason), quantity = ?, limit_price = ?, stop_price = ?,
                 update_time = ?
             WHERE order_id = ?",
        )
        .bind(status.as_str())
        .bind(reason)
        .bind(quantity.to_string())
        .bind(limit_price.map(|p| p.to_string()))
        .bind(stop_price.map(|p| p.to_string()))
        .bind(time_ms)
        .bind(order_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        record_event(
            &mut tx,
            order_id,
            time_ms,
            Some(order.status),
            status,
            event.as_str(),
            reason,
        )
        .await?;
        let updated = order_by_id(&mut tx, order_id).await?;
        if let Some(updated) = &updated {
            follow_combination(&mut tx, updated, time_ms).await?;
        }
        tx.commit().await.map_err(map_err)?;
        Ok(updated)
    }
}
