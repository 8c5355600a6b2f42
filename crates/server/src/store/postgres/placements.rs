//! Placements: each in its own transaction, all or nothing. PostgreSQL commits concurrent
//! transactions together by itself, so there is no batching here; two nodes placing the same
//! client order id meet at the unique index, where the second waits for the first to commit.
//! A single order (the usual placement) is one statement, the order and its event together,
//! which saves the round trips of BEGIN and COMMIT.

use std::collections::HashMap;

use signet_model::wire::WireEnum;
use sqlx::{PgPool, Postgres, QueryBuilder};

use super::map_err;
use crate::engine::order::Order;
use crate::store::StoreError;
use crate::store::rows::order_insert;

/// Inserts the orders of one placement; each order's seq, or [`StoreError::Conflict`] naming
/// the constraint met (then nothing is inserted).
pub(super) async fn place(pool: &PgPool, orders: &[Order]) -> Result<Vec<i64>, StoreError> {
    let Some(first) = orders.first() else {
        return Ok(Vec::new());
    };
    if let [order] = orders
        && order.combo.is_none()
    {
        return place_one(pool, order).await;
    }
    let mut tx = pool.begin().await.map_err(map_err)?;
    let all: Vec<&Order> = orders.iter().collect();
    let mut query = order_insert::<Postgres>("", &all);
    query.push(" ON CONFLICT DO NOTHING RETURNING order_id, seq");
    let seqs: HashMap<String, i64> = query
        .build_query_as::<(String, i64)>()
        .fetch_all(&mut *tx)
        .await
        .map_err(map_err)?
        .into_iter()
        .collect();
    if seqs.len() < orders.len() {
        // Dropping `tx` rolls the others back.
        let combo_taken = match first.client_combo_order_id.as_ref().filter(|_| first.combo.is_some()) {
            Some(combo_id) => sqlx::query_scalar::<_, i32>(
                "SELECT 1 FROM orders WHERE account_id = $1 AND client_combo_order_id = $2
                 AND combo_order_id = order_id AND order_id != $3",
            )
            .bind(&first.account_id)
            .bind(combo_id)
            .bind(&first.order_id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(map_err)?
            .is_some(),
            None => false,
        };
        let constraint = if combo_taken {
            "client_combo_order_id"
        } else {
            "client_order_id"
        };
        return Err(StoreError::Conflict(constraint.into()));
    }
    let mut events =
        QueryBuilder::<Postgres>::new("INSERT INTO order_events (order_id, n, time, from_status, to_status, event) ");
    events.push_values(orders, |mut row, o| {
        row.push_bind(&o.order_id)
            .push_bind(1)
            .push_bind(o.place_time)
            .push_bind(None::<String>)
            .push_bind(o.status.as_str())
            .push_bind("PLACE");
    });
    events.build().execute(&mut *tx).await.map_err(map_err)?;
    tx.commit().await.map_err(map_err)?;
    Ok(orders.iter().map(|o| seqs[&o.order_id]).collect())
}

/// One order, not part of a combination, and its PLACE event in one statement: both are
/// stored, or neither (its client order id is taken).
async fn place_one(pool: &PgPool, order: &Order) -> Result<Vec<i64>, StoreError> {
    let mut query = order_insert::<Postgres>("WITH placed AS (", &[order]);
    query.push(
        " ON CONFLICT DO NOTHING RETURNING order_id, seq, place_time, status),
          event AS (INSERT INTO order_events (order_id, n, time, from_status, to_status, event)
                    SELECT order_id, 1, place_time, NULL, status, 'PLACE' FROM placed)
          SELECT seq FROM placed",
    );
    let seq: Option<i64> = query.build_query_scalar().fetch_optional(pool).await.map_err(map_err)?;
    seq.map(|seq| vec![seq])
        .ok_or_else(|| StoreError::Conflict("client_order_id".into()))
}
