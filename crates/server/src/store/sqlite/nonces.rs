use std::collections::HashSet;

use async_trait::async_trait;
use sqlx::{QueryBuilder, Sqlite, SqlitePool};
use tokio::sync::{mpsc, oneshot};

use super::{SqliteStore, map_err};
use crate::store::{NonceStore, StoreError};

/// Expired nonces are deleted in batches this large, so that a purge never holds the write
/// lock for long.
const PURGE_BATCH: i64 = 5_000;
/// Nonces written in one transaction at most.
const WRITE_BATCH: usize = 256;

/// A nonce waiting to be written, and where its answer goes.
pub(super) struct Pending {
    app_key: String,
    nonce: String,
    expires_at_ms: i64,
    reply: oneshot::Sender<Result<bool, StoreError>>,
}

/// Group commit: the nonces of concurrent requests are written in one transaction (a commit
/// costs far more than a row), each request waiting for its own answer. Started with the store;
/// stops when the store is dropped.
pub(super) fn spawn_writer(pool: SqlitePool) -> mpsc::Sender<Pending> {
    let (tx, mut rx) = mpsc::channel::<Pending>(4 * WRITE_BATCH);
    tokio::spawn(async move {
        let mut batch = Vec::with_capacity(WRITE_BATCH);
        while rx.recv_many(&mut batch, WRITE_BATCH).await > 0 {
            match insert(&pool, &batch).await {
                Ok(new) => {
                    for (pending, new) in batch.drain(..).zip(new) {
                        let _ = pending.reply.send(Ok(new));
                    }
                }
                Err(e) => {
                    for pending in batch.drain(..) {
                        let _ = pending.reply.send(Err(e.clone()));
                    }
                }
            }
        }
    });
    tx
}

/// Inserts a batch; for each nonce, whether it was new. The primary key decides between
/// copies in different batches, the order of the batch between copies in the same one.
async fn insert(pool: &SqlitePool, batch: &[Pending]) -> Result<Vec<bool>, StoreError> {
    let mut seen = HashSet::with_capacity(batch.len());
    let first: Vec<bool> = batch
        .iter()
        .map(|p| seen.insert((p.app_key.as_str(), p.nonce.as_str())))
        .collect();
    let mut query = QueryBuilder::<Sqlite>::new("INSERT INTO nonces (app_key, nonce, expires_at) ");
    query.push_values(
        batch.iter().zip(&first).filter(|(_, first)| **first),
        |mut row, (p, _)| {
            row.push_bind(&p.app_key).push_bind(&p.nonce).push_bind(p.expires_at_ms);
        },
    );
    query.push(" ON CONFLICT DO NOTHING RETURNING app_key, nonce");
    let inserted: HashSet<(String, String)> = query
        .build_query_as::<(String, String)>()
        .fetch_all(pool)
        .await
        .map_err(map_err)?
        .into_iter()
        .collect();
    Ok(batch
        .iter()
        .zip(first)
        .map(|(p, first)| first && inserted.contains(&(p.app_key.clone(), p.nonce.clone())))
        .collect())
}

#[async_trait]
impl NonceStore for SqliteStore {
    async fn remember(&self, app_key: &str, nonce: &str, expires_at_ms: i64) -> Result<bool, StoreError> {
        let (reply, answer) = oneshot::channel();
        let stopped = || StoreError::Unavailable("the nonce writer stopped".into());
        self.nonce_writer
            .send(Pending {
                app_key: app_key.to_owned(),
                nonce: nonce.to_owned(),
                expires_at_ms,
                reply,
            })
            .await
            .map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    async fn purge_expired(&self, now_ms: i64) -> Result<u64, StoreError> {
        let mut total = 0;
        loop {
            let done = sqlx::query(
                "DELETE FROM nonces WHERE (app_key, nonce) IN
                   (SELECT app_key, nonce FROM nonces WHERE expires_at < ? LIMIT ?)",
            )
            .bind(now_ms)
            .bind(PURGE_BATCH)
            .execute(&self.writer)
            .await
            .map_err(map_err)?;
            total += done.rows_affected();
            if done.rows_affected() < PURGE_BATCH as u64 {
                return Ok(total);
            }
        }
    }
}
