use async_trait::async_trait;

use super::SqlStore;
use super::query::{Dialect, query};
use crate::{MetaStore, StoreError};

#[async_trait]
impl MetaStore for SqlStore {
    async fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        let row: Option<(String,)> = query("SELECT value FROM meta WHERE key = $1")
            .bind(key)
            .fetch_optional(&self.reader)
            .await?;
        Ok(row.map(|(value,)| value))
    }

    async fn init_meta(&self, key: &str, value: &str) -> Result<String, StoreError> {
        query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .bind(key)
            .bind(value)
            .execute(&self.writer)
            .await?;
        let (stored,): (String,) = query("SELECT value FROM meta WHERE key = $1")
            .bind(key)
            .fetch_one(&self.writer)
            .await?;
        Ok(stored)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        query("SELECT 1").execute(&self.reader).await?;
        Ok(())
    }

    /// SQLite's other processes only administer it (`signet admin`), which the caches allow
    /// for; PostgreSQL's are other nodes.
    fn shared(&self) -> bool {
        self.dialect() == Dialect::Postgres
    }

    async fn close(&self) {
        if let Some((_, checkpointer)) = &self.sqlite {
            checkpointer.close().await;
        }
        self.writer.close().await;
        self.reader.close().await;
    }
}
