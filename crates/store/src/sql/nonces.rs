use std::collections::HashSet;

use async_trait::async_trait;
use signet_model::ids::AppKey;

use super::SqlStore;
use super::query::{Pool, query};
use crate::batch::Batcher;
use crate::{NonceStore, StoreError};

/// Expired nonces are deleted in batches this large, so that a purge never holds the write
/// lock for long.
const PURGE_BATCH: i64 = 5_000;
/// Nonces written in one transaction at most.
const WRITE_BATCH: usize = 256;

/// A nonce to write: app key, nonce, expiry.
pub(super) type NewNonce = (String, String, i64);

/// Group commit of nonces; started with the store.
pub(super) fn spawn_writer(pool: Pool) -> Batcher<NewNonce, bool> {
    Batcher::spawn("nonce", WRITE_BATCH, move |batch| {
        let pool = pool.clone();
        async move { insert(&pool, &batch).await }
    })
}

/// Inserts a batch; for each nonce, whether it was new. The primary key decides between
/// copies in different batches, the order of the batch between copies in the same one.
async fn insert(pool: &Pool, batch: &[NewNonce]) -> Result<Vec<bool>, StoreError> {
    let mut seen = HashSet::with_capacity(batch.len());
    let first: Vec<bool> = batch
        .iter()
        .map(|(app_key, nonce, _)| seen.insert((app_key.as_str(), nonce.as_str())))
        .collect();
    let mut rows: Vec<&NewNonce> = batch.iter().zip(&first).filter(|(_, f)| **f).map(|(n, _)| n).collect();
    // Other nodes' batches insert in the same order, so that two batches sharing nonces wait
    // for each other instead of deadlocking (PostgreSQL).
    rows.sort_unstable();
    let mut insert = query("INSERT INTO nonces (app_key, nonce, expires_at) ");
    insert.push_values(rows, |row, (app_key, nonce, expires_at_ms)| {
        row.bind(app_key).bind(nonce).bind(*expires_at_ms);
    });
    insert.push(" ON CONFLICT DO NOTHING RETURNING app_key, nonce");
    let inserted: HashSet<(String, String)> = insert.fetch_all::<(String, String)>(pool).await?.into_iter().collect();
    Ok(batch
        .iter()
        .zip(first)
        .map(|((app_key, nonce, _), first)| first && inserted.contains(&(app_key.clone(), nonce.clone())))
        .collect())
}

#[async_trait]
impl NonceStore for SqlStore {
    async fn remember(&self, app_key: &AppKey, nonce: &str, expires_at_ms: i64) -> Result<bool, StoreError> {
        self.nonce_writer
            .submit((app_key.to_string(), nonce.to_owned(), expires_at_ms))
            .await
    }

    async fn purge_expired(&self, now_ms: i64) -> Result<u64, StoreError> {
        let mut total = 0;
        loop {
            let deleted = query(
                "DELETE FROM nonces WHERE (app_key, nonce) IN
                   (SELECT app_key, nonce FROM nonces WHERE expires_at < $1 LIMIT $2)",
            )
            .bind(now_ms)
            .bind(PURGE_BATCH)
            .execute(&self.writer)
            .await?;
            total += deleted;
            if deleted < PURGE_BATCH as u64 {
                return Ok(total);
            }
        }
    }

    async fn count(&self) -> Result<u64, StoreError> {
        let (count,): (i64,) = query("SELECT count(*) FROM nonces").fetch_one(&self.reader).await?;
        Ok(count as u64)
    }
}
