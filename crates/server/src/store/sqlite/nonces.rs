use async_trait::async_trait;

use super::{SqliteStore, map_err};
use crate::store::{NonceStore, StoreError};

/// Expired nonces are deleted in batches this large, so that a purge never holds the write
/// lock for long.
const PURGE_BATCH: i64 = 5_000;

#[async_trait]
impl NonceStore for SqliteStore {
    async fn remember(&self, app_key: &str, nonce: &str, expires_at_ms: i64) -> Result<bool, StoreError> {
        // The primary key decides: of concurrent copies exactly one insert changes a row.
        let done =
            sqlx::query("INSERT INTO nonces (app_key, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
                .bind(app_key)
                .bind(nonce)
                .bind(expires_at_ms)
                .execute(&self.writer)
                .await
                .map_err(map_err)?;
        Ok(done.rows_affected() == 1)
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
