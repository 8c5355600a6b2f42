use async_trait::async_trait;

use super::{SqliteStore, map_err};
use crate::store::{MetaStore, StoreError};

#[async_trait]
impl MetaStore for SqliteStore {
    async fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT value FROM meta WHERE key = ?")
            .bind(key)
            .fetch_optional(&self.reader)
            .await
            .map_err(map_err)
    }

    async fn init_meta(&self, key: &str, value: &str) -> Result<String, StoreError> {
        sqlx::query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING")
            .bind(key)
            .bind(value)
            .execute(&self.writer)
            .await
            .map_err(map_err)?;
        sqlx::query_scalar("SELECT value FROM meta WHERE key = ?")
            .bind(key)
            .fetch_one(&self.writer)
            .await
            .map_err(map_err)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.reader).await.map_err(map_err)?;
        Ok(())
    }

    /// Other processes only administer it (`signet admin`), which the caches allow for.
    fn shared(&self) -> bool {
        false
    }

    async fn close(&self) {
        self.checkpointer.close().await;
        self.writer.close().await;
        self.reader.close().await;
    }
}
