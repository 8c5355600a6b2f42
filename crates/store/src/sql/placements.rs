//! Placements, all or nothing: when one of a placement's orders meets a unique constraint (a
//! client order id or client combo order id used before, also earlier in the same batch), the
//! others it inserted are deleted again before the commit and it alone is refused.
//!
//! Each account's placements take turns ([`AccountTurn`]): the server checks them against the
//! account's buying power and stores those that pass before the next turn begins. On SQLite the
//! server's own memory orders the turns (one server serves a file), and the orders of concurrent
//! placements, of any accounts, are inserted in one transaction (group commit: a commit costs
//! far more than a row), each placement waiting for its own answer. On PostgreSQL a turn is a
//! transaction holding the account's advisory lock, which every node respects; the placements
//! are written in it and its commit ends the turn. Its connection comes from a small pool of its
//! own, so that turns waiting for their lock never hold the connections the reads they wait for
//! need.
//!
//! A turn's commit does not wait for the disk (`synchronous_commit` off for that transaction
//! alone): the lock goes to the next turn, on any node, while this one's commit record is being
//! written, so that one account's turns overlap their disk writes instead of queueing behind
//! each one. Before anything of the turn is answered, [`Written::on_disk`] waits for the disk
//! with a transaction of its own whose commit follows the turn's in the write-ahead log: an
//! answer is given only once what the turn wrote, and what it saw of the turns before it, is on
//! disk. A crash before that loses only placements nobody was told about.

use std::collections::HashMap;

use signet_domain::trading::events;
use signet_domain::trading::order::Order;
use signet_model::ids::{AccountId, OrderId};
use signet_model::wire::WireEnum;

use super::SqlStore;
use super::query::{Pool, Tx, query};
use crate::batch::Batcher;
use crate::rows::order_insert;
use crate::{AccountTurn, Placed, StoreError};

/// Placements written in one transaction at most.
const BATCH: usize = 64;
/// Rows in one INSERT statement at most (SQLite allows 32,766 bound values).
const ROWS_PER_STATEMENT: usize = 500;
/// The two-key advisory locks of the turns: this first key, and a hash of the account id (two
/// accounts that share a hash share their turns, which costs waiting, never correctness).
const TURN_LOCK_CLASS: i32 = 0x7369_676e; // "sign"

/// Group commit of placements (SQLite); started with the store.
pub(super) fn spawn_writer(pool: Pool) -> Batcher<Vec<Order>, Placed> {
    Batcher::spawn("order", BATCH, move |batch| {
        let pool = pool.clone();
        async move {
            let mut tx = pool.begin().await?;
            let answers = write(&mut tx, &batch).await?;
            tx.commit().await?;
            Ok(answers)
        }
    })
}

impl SqlStore {
    pub(super) async fn begin_turn(&self, account_id: &AccountId) -> Result<AccountTurn, StoreError> {
        let Some(turns) = &self.turns else {
            return Ok(AccountTurn { locked: None });
        };
        let mut tx = turns.begin().await?;
        query("SELECT set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock($1, hashtext($2))")
            .bind(TURN_LOCK_CLASS)
            .bind(account_id)
            .execute(&mut tx)
            .await?;
        Ok(AccountTurn {
            locked: Some((tx, turns.clone())),
        })
    }

    pub(super) async fn insert_placements(
        &self,
        turn: &mut AccountTurn,
        placements: &[Vec<Order>],
    ) -> Result<Vec<Placed>, StoreError> {
        match (&mut turn.locked, &self.placement_writer) {
            (Some((tx, _)), _) => write(tx, placements).await,
            (None, Some(batcher)) => Ok(batcher
                .submit_all(placements.iter().cloned())
                .await?
                .into_iter()
                .map(|answer| answer.and_then(|placed| placed))
                .collect()),
            (None, None) => Err(StoreError::Other("a placement outside its account's turn".into())),
        }
    }
}

impl AccountTurn {
    /// Commits what was written in the turn and gives the turn up: the next turn sees it at
    /// once, and it is on disk once [`Written::on_disk`] returns.
    pub async fn end(self) -> Result<Written, StoreError> {
        let Some((tx, pool)) = self.locked else {
            return Ok(Written { pool: None });
        };
        tx.commit().await?;
        Ok(Written { pool: Some(pool) })
    }
}

/// What an ended turn wrote, perhaps not on disk yet.
#[must_use = "answer nothing of a turn before what it wrote is on disk"]
pub struct Written {
    /// PostgreSQL: where to wait for the disk from.
    pool: Option<Pool>,
}

impl Written {
    /// Returns once what the turn wrote, and what it saw of the turns before it, is on disk.
    pub async fn on_disk(self) -> Result<(), StoreError> {
        if let Some(pool) = self.pool {
            // A transaction given an id commits with a record of its own, after the turn's in
            // the log, and (with the database's own synchronous_commit) waits until it is on disk.
            query("SELECT pg_current_xact_id()").execute(&pool).await?;
        }
        Ok(())
    }
}

/// Inserts placements in `tx`; the answer of each.
async fn write(tx: &mut Tx, batch: &[Vec<Order>]) -> Result<Vec<Placed>, StoreError> {
    let all: Vec<&Order> = batch.iter().flatten().collect();
    let mut seqs: HashMap<OrderId, i64> = HashMap::with_capacity(all.len());
    for chunk in all.chunks(ROWS_PER_STATEMENT) {
        let mut insert = order_insert("", chunk);
        // Rows meeting a unique constraint, also of an earlier row of this statement, are skipped.
        insert.push(" ON CONFLICT DO NOTHING RETURNING order_id, seq");
        seqs.extend(
            insert
                .fetch_all::<(String, i64)>(&mut *tx)
                .await?
                .into_iter()
                .map(|(id, seq)| (OrderId::from(id), seq)),
        );
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
        delete.execute(&mut *tx).await?;
    }
    // Name the constraint each refused placement met.
    for (p, answer) in batch.iter().zip(answers.iter_mut()) {
        if answer.is_err() {
            *answer = Err(StoreError::Conflict(conflict(tx, p).await?));
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
        events.execute(&mut *tx).await?;
    }
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
