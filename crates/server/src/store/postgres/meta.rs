use async_trait::async_trait;

use super::{PgStore, map_err};
use crate::store::{MetaStore, StoreError};

#[async_trait]
impl MetaStore for PgStore {
    async fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT value FROM meta WHERE key = $1")
            .bind(key)
            .fetch_optional(&self.pool)
            .await
            .map_err(map_err)
    }

    async fn init_meta(&self, key: &str, value: &str) -> Result<String, StoreError> {
        sqlx::query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .bind(key)
            .bind(value)
            .execute(&self.pool)
            .await
            .map_err(map_err)?;
        sqlx::query_scalar("SELECT value FROM meta WHERE key = $1")
            .bind(key)
            .fetch_one(&self.pool)
            .await
            .map_err(map_err)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await.map_err(map_err)?;
        Ok(())
    }

    fn shared(&self) -> bool {
        true
    }

    async fn close(&self) {
        self.pool.close().await;
    }
}
