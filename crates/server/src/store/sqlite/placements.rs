//! Group commit of placements: the orders of concurrent placements are inserted in one
//! transaction (a commit costs far more than a row), each placement waiting for its own answer.
//! A placement is all or nothing: when one of its orders meets a unique constraint (a client
//! order id or client combo order id used before, also earlier in the same batch), the others
//! it inserted are deleted again before the commit and it alone is refused.

use std::collections::HashMap;

use signet_model::wire::WireEnum;
use sqlx::{QueryBuilder, Sqlite, SqliteConnection, SqlitePool};

use super::map_err;
use crate::engine::order::Order;
use crate::store::StoreError;
use crate::store::batch::Batcher;
use crate::store::rows::order_insert;

/// Placements written in one transaction at most.
const BATCH: usize = 64;
/// Rows in one INSERT statement at most (SQLite allows 32,766 bound values).
const ROWS_PER_STATEMENT: usize = 500;

/// The answer to one placement: each order's seq, or the constraint it met.
pub(super) type Placed = Result<Vec<i64>, StoreError>;

/// Group commit of placements; started with the store.
pub(super) fn spawn_writer(pool: SqlitePool) -> Batcher<Vec<Order>, Placed> {
    Batcher::spawn("order", BATCH, move |batch| {
        let pool = pool.clone();
        async move { write(&pool, &batch).await }
    })
}

/// Inserts a batch in one transaction; the answer of each placement.
async fn write(pool: &SqlitePool, batch: &[Vec<Order>]) -> Result<Vec<Placed>, StoreError> {
    let mut tx = pool.begin().await.map_err(map_err)?;
    let all: Vec<&Order> = batch.iter().flatten().collect();
    let mut seqs: HashMap<String, i64> = HashMap::with_capacity(all.len());
    for chunk in all.chunks(ROWS_PER_STATEMENT) {
        seqs.extend(insert_orders(&mut tx, chunk).await?);
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
        let mut delete = QueryBuilder::<Sqlite>::new("DELETE FROM orders WHERE order_id IN (");
        let mut ids = delete.separated(", ");
        for id in &undo {
            ids.push_bind(*id);
        }
        delete.push(")");
        delete.build().execute(&mut *tx).await.map_err(map_err)?;
    }
    // Name the constraint each refused placement met.
    for (p, answer) in batch.iter().zip(answers.iter_mut()) {
        if answer.is_err() {
            *answer = Err(StoreError::Conflict(conflict(&mut tx, p).await?));
        }
    }
    let placed: Vec<&Order> = all.into_iter().filter(|o| seqs.contains_key(&o.order_id)).collect();
    for chunk in placed.chunks(ROWS_PER_STATEMENT) {
        let mut events = QueryBuilder::<Sqlite>::new(
            "INSERT INTO order_events (order_id, n, time, from_status, to_status, event, reason) ",
        );
        events.push_values(chunk, |mut row, o| {
            row.push_bind(&o.order_id)
                .push_bind(1)
                .push_bind(o.place_time)
                .push_bind(None::<String>)
                .push_bind(o.status.as_str())
                .push_bind("PLACE")
                .push_bind(None::<String>);
        });
        events.build().execute(&mut *tx).await.map_err(map_err)?;
    }
    tx.commit().await.map_err(map_err)?;
    Ok(answers)
}

/// Inserts orders, skipping those that meet a unique constraint; the order id and seq of each
/// inserted.
async fn insert_orders(tx: &mut SqliteConnection, orders: &[&Order]) -> Result<Vec<(String, i64)>, StoreError> {
    let mut query = order_insert::<Sqlite>("", orders);
    // Rows meeting a unique constraint, also of an earlier row of this statement, are skipped.
    query.push(" ON CONFLICT DO NOTHING RETURNING order_id, seq");
    query
        .build_query_as::<(String, i64)>()
        .fetch_all(&mut *tx)
        .await
        .map_err(map_err)
}

/// Which unique constraint a refused placement met: its client combo order id when another
/// combination of the account has it, otherwise a client order id.
async fn conflict(tx: &mut SqliteConnection, orders: &[Order]) -> Result<String, StoreError> {
    let first = &orders[0];
    if let Some(combo_id) = first.client_combo_order_id.as_ref().filter(|_| first.combo.is_some()) {
        let taken: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM orders WHERE account_id = ? AND client_combo_order_id = ? AND combo_order_id = order_id",
        )
        .bind(&first.account_id)
        .bind(combo_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(map_err)?;
        if taken.is_some() {
            return Ok("client_combo_order_id".into());
        }
    }
    Ok("client_order_id".into())
}
