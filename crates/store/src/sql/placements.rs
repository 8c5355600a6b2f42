//! Placements, all or nothing: when one of a placement's orders meets a unique constraint (a
//! client order id or client combo order id used before, also earlier in the same batch), the
//! others it inserted are deleted again before the commit and it alone is refused.
//!
//! On SQLite the orders of concurrent placements are inserted in one transaction (group commit:
//! a commit costs far more than a row), each placement waiting for its own answer. PostgreSQL
//! commits concurrent transactions together by itself, so each placement is its own transaction
//! there; two nodes placing the same client order id meet at the unique index, where the second
//! waits for the first to commit. A single order there (the usual placement) is one statement,
//! the order and its event together, which saves the round trips of BEGIN and COMMIT.

use std::collections::HashMap;

use signet_domain::trading::events;
use signet_domain::trading::order::Order;
use signet_model::wire::WireEnum;

use super::SqlStore;
use super::query::{Pool, Tx, query};
use crate::StoreError;
use crate::batch::Batcher;
use crate::rows::order_insert;

/// Placements written in one transaction at most.
const BATCH: usize = 64;
/// Rows in one INSERT statement at most (SQLite allows 32,766 bound values).
const ROWS_PER_STATEMENT: usize = 500;

/// The answer to one placement: each order's seq, or the constraint it met.
pub(super) type Placed = Result<Vec<i64>, StoreError>;

/// Group commit of placements (SQLite); started with the store.
pub(super) fn spawn_writer(pool: Pool) -> Batcher<Vec<Order>, Placed> {
    Batcher::spawn("order", BATCH, move |batch| {
        let pool = pool.clone();
        async move { write(&pool, &batch).await }
    })
}

impl SqlStore {
    /// Inserts the orders of one placement; each order's seq, or [`StoreError::Conflict`]
    /// naming the constraint met (then nothing is inserted).
    pub(super) async fn place(&self, orders: &[Order]) -> Result<Vec<i64>, StoreError> {
        if let Some(batcher) = &self.placement_writer {
            return batcher.submit(orders.to_vec()).await?;
        }
        if let [order] = orders
            && order.combo.is_none()
        {
            return place_one(&self.writer, order).await;
        }
        let mut answers = write(&self.writer, &[orders.to_vec()]).await?;
        answers.pop().unwrap_or_else(|| Ok(Vec::new()))
    }
}

/// Inserts placements in one transaction; the answer of each.
async fn write(pool: &Pool, batch: &[Vec<Order>]) -> Result<Vec<Placed>, StoreError> {
    let mut tx = pool.begin().await?;
    let all: Vec<&Order> = batch.iter().flatten().collect();
    let mut seqs: HashMap<String, i64> = HashMap::with_capacity(all.len());
    for chunk in all.chunks(ROWS_PER_STATEMENT) {
        let mut insert = order_insert("", chunk);
        // Rows meeting a unique constraint, also of an earlier row of this statement, are skipped.
        insert.push(" ON CONFLICT DO NOTHING RETURNING order_id, seq");
        seqs.extend(insert.fetch_all::<(String, i64)>(&mut tx).await?);
    }
    let mut answers = Vec::with_capacity(batch.len());
    let mut undo: Vec<&str> = Vec::new();
    for p in batch {
        if p.iter().all(|o| seqs.contains_key(&o.order_id)) {
            answers.push(Ok(p.iter().map(|o| seqs[&o.order_id]).collect()));
        } else {
            undo.extend(
                p.iter()
                    .filter(|o| seqs.remove(&o.order_id).is_some())
                    .map(|o| o.order_id.as_str()),
            );
            answers.push(Err(StoreError::Conflict(String::new())));
        }
    }
    if !undo.is_empty() {
        let mut delete = query("DELETE FROM orders WHERE ");
        delete.push_in("order_id", undo);
        delete.execute(&mut tx).await?;
    }
    // Name the constraint each refused placement met.
    for (p, answer) in batch.iter().zip(answers.iter_mut()) {
        if answer.is_err() {
            *answer = Err(StoreError::Conflict(conflict(&mut tx, p).await?));
        }
    }
    let placed: Vec<&Order> = all.into_iter().filter(|o| seqs.contains_key(&o.order_id)).collect();
    for chunk in placed.chunks(ROWS_PER_STATEMENT) {
        let mut events = query("INSERT INTO order_events (order_id, n, time, from_status, to_status, event, payload) ");
        events.push_values(chunk, |row, o| {
            row.bind(&o.order_id)
                .literal("1")
                .bind(o.place_time)
                .literal("NULL")
                .bind(o.status.as_str())
                .literal("'PLACE'")
                .bind(events::payload(o, None));
        });
        events.execute(&mut tx).await?;
    }
    tx.commit().await?;
    Ok(answers)
}

/// Which unique constraint a refused placement met: its client combo order id when another
/// combination of the account has it, otherwise a client order id.
async fn conflict(tx: &mut Tx, orders: &[Order]) -> Result<String, StoreError> {
    let first = &orders[0];
    if let Some(combo_id) = first.client_combo_order_id.as_ref().filter(|_| first.combo.is_some()) {
        let taken: Option<(i32,)> = query(
            "SELECT 1 FROM orders WHERE account_id = $1 AND client_combo_order_id = $2
             AND combo_order_id = order_id AND order_id != $3",
        )
        .bind(&first.account_id)
        .bind(combo_id)
        .bind(&first.order_id)
        .fetch_optional(tx)
        .await?;
        if taken.is_some() {
            return Ok("client_combo_order_id".into());
        }
    }
    Ok("client_order_id".into())
}

/// One order, not part of a combination, and its PLACE event in one statement (PostgreSQL): both
/// are stored, or neither (its client order id is taken).
async fn place_one(pool: &Pool, order: &Order) -> Result<Vec<i64>, StoreError> {
    let mut insert = order_insert("WITH placed AS (", &[order]);
    insert.push(
        " ON CONFLICT DO NOTHING RETURNING order_id, seq, place_time, status),
          event AS (INSERT INTO order_events (order_id, n, time, from_status, to_status, event, payload)
                    SELECT order_id, 1, place_time, NULL, status, 'PLACE', ",
    );
    insert.push_bind(events::payload(order, None));
    insert.push(" FROM placed) SELECT seq FROM placed");
    let seq: Option<(i64,)> = insert.fetch_optional(pool).await?;
    seq.map(|(seq,)| vec![seq])
        .ok_or_else(|| StoreError::Conflict("client_order_id".into()))
}
