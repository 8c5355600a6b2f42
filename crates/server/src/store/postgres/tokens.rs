use async_trait::async_trait;
use signet_model::TokenStatus;

use super::{PgStore, map_err};
use crate::store::rows::{TokenRow, token_from_row};
use crate::store::{StoreError, TokenRecord, TokenSelector, TokenStore};

#[async_trait]
impl TokenStore for PgStore {
    async fn create_token(&self, t: &TokenRecord) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO access_tokens (token_hash, token_hint, app_key, status, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&t.token_hash)
        .bind(&t.token_hint)
        .bind(&t.app_key)
        .bind(t.status.as_str())
        .bind(t.created_at)
        .bind(t.expires_at)
        .execute(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(())
    }

    async fn token(&self, token_hash: &str) -> Result<Option<TokenRecord>, StoreError> {
        let row: Option<TokenRow> = sqlx::query_as(
            "SELECT token_hash, token_hint, app_key, status, created_at, expires_at FROM access_tokens
             WHERE token_hash = $1",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        row.map(token_from_row).transpose()
    }

    async fn tokens(&self, app_key: Option<&str>) -> Result<Vec<TokenRecord>, StoreError> {
        let rows: Vec<TokenRow> = sqlx::query_as(
            "SELECT token_hash, token_hint, app_key, status, created_at, expires_at FROM access_tokens
             WHERE $1 IS NULL OR app_key = $1 ORDER BY created_at, token_hash",
        )
        .bind(app_key)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        rows.into_iter().map(token_from_row).collect()
    }

    async fn set_token_status(
        &self,
        selector: TokenSelector<'_>,
        from: TokenStatus,
        to: TokenStatus,
    ) -> Result<u64, StoreError> {
        let query = match selector {
            TokenSelector::Hash(hash) => {
                sqlx::query("UPDATE access_tokens SET status = $1 WHERE token_hash = $2 AND status = $3")
                    .bind(to.as_str())
                    .bind(hash)
            }
            TokenSelector::App(app_key) => {
                sqlx::query("UPDATE access_tokens SET status = $1 WHERE app_key = $2 AND status = $3")
                    .bind(to.as_str())
                    .bind(app_key)
            }
        };
        let done = query.bind(from.as_str()).execute(&self.pool).await.map_err(map_err)?;
        Ok(done.rows_affected())
    }
}
