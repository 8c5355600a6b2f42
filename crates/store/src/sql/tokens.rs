use async_trait::async_trait;
use signet_model::TokenStatus;
use signet_model::ids::AppKey;

use super::SqlStore;
use super::query::query;
use crate::rows::{TokenRow, token_from_row};
use crate::{StoreError, TokenRecord, TokenSelector, TokenStore};

const TOKEN_COLUMNS: &str = "token_hash, token_hint, app_key, status, created_at, expires_at";

#[async_trait]
impl TokenStore for SqlStore {
    async fn create_token(&self, t: &TokenRecord) -> Result<(), StoreError> {
        query(format!(
            "INSERT INTO access_tokens ({TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)"
        ))
        .bind(&t.token_hash)
        .bind(&t.token_hint)
        .bind(&t.app_key)
        .bind(t.status.as_str())
        .bind(t.created_at)
        .bind(t.expires_at)
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    async fn token(&self, token_hash: &str) -> Result<Option<TokenRecord>, StoreError> {
        let row: Option<TokenRow> = query(format!(
            "SELECT {TOKEN_COLUMNS} FROM access_tokens WHERE token_hash = $1"
        ))
        .bind(token_hash)
        .fetch_optional(&self.reader)
        .await?;
        row.map(token_from_row).transpose()
    }

    async fn tokens(&self, app_key: Option<&AppKey>) -> Result<Vec<TokenRecord>, StoreError> {
        let rows: Vec<TokenRow> = query(format!(
            "SELECT {TOKEN_COLUMNS} FROM access_tokens
             WHERE $1 IS NULL OR app_key = $1 ORDER BY created_at, token_hash"
        ))
        .bind(app_key)
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter().map(token_from_row).collect()
    }

    async fn set_token_status(
        &self,
        selector: TokenSelector<'_>,
        from: TokenStatus,
        to: TokenStatus,
    ) -> Result<u64, StoreError> {
        let (column, value) = match selector {
            TokenSelector::Hash(hash) => ("token_hash", hash),
            TokenSelector::App(app_key) => ("app_key", app_key),
        };
        query(format!(
            "UPDATE access_tokens SET status = $1 WHERE {column} = $2 AND status = $3"
        ))
        .bind(to.as_str())
        .bind(value)
        .bind(from.as_str())
        .execute(&self.writer)
        .await
    }
}
