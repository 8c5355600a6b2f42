use async_trait::async_trait;
use signet_model::ids::{AccountId, AppKey};

use super::SqlStore;
use super::query::{Conn, query};
use crate::rows::{AccountRow, AppRow, account_from_row, app_from_row};
use crate::{AccountRecord, AppRecord, AppStatus, AppStore, StoreError};

const APP_COLUMNS: &str = "app_key, name, sealed_secret, status, user_id, created_at, admin";
const ACCOUNT_COLUMNS: &str = "account_id, app_key, account_type, account_label, currency, cash, created_at";

async fn insert_account(conn: impl Into<Conn<'_>>, a: &AccountRecord) -> Result<(), StoreError> {
    query(format!(
        "INSERT INTO accounts ({ACCOUNT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)"
    ))
    .bind(&a.account_id)
    .bind(&a.app_key)
    .bind(a.account_type.as_str())
    .bind(&a.account_label)
    .bind(&a.currency)
    .bind(a.cash.to_string())
    .bind(a.created_at)
    .execute(conn)
    .await?;
    Ok(())
}

#[async_trait]
impl AppStore for SqlStore {
    async fn create_app(&self, app: &AppRecord, accounts: &[AccountRecord]) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        query(format!(
            "INSERT INTO apps ({APP_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)"
        ))
        .bind(&app.app_key)
        .bind(&app.name)
        .bind(&app.sealed_secret)
        .bind(app.status.as_str())
        .bind(&app.user_id)
        .bind(app.created_at)
        .bind(app.admin)
        .execute(&mut tx)
        .await?;
        for account in accounts {
            insert_account(&mut tx, account).await?;
        }
        tx.commit().await
    }

    async fn app(&self, app_key: &AppKey) -> Result<Option<AppRecord>, StoreError> {
        let row: Option<AppRow> = query(format!("SELECT {APP_COLUMNS} FROM apps WHERE app_key = $1"))
            .bind(app_key)
            .fetch_optional(&self.reader)
            .await?;
        row.map(app_from_row).transpose()
    }

    async fn apps(&self) -> Result<Vec<AppRecord>, StoreError> {
        let rows: Vec<AppRow> = query(format!("SELECT {APP_COLUMNS} FROM apps ORDER BY created_at, app_key"))
            .fetch_all(&self.reader)
            .await?;
        rows.into_iter().map(app_from_row).collect()
    }

    async fn set_app_status(&self, app_key: &AppKey, status: AppStatus) -> Result<bool, StoreError> {
        let changed = query("UPDATE apps SET status = $1 WHERE app_key = $2")
            .bind(status.as_str())
            .bind(app_key)
            .execute(&self.writer)
            .await?;
        Ok(changed == 1)
    }

    async fn create_account(&self, account: &AccountRecord) -> Result<(), StoreError> {
        insert_account(&self.writer, account).await
    }

    async fn account(&self, account_id: &AccountId) -> Result<Option<AccountRecord>, StoreError> {
        let row: Option<AccountRow> = query(format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE account_id = $1"))
            .bind(account_id)
            .fetch_optional(&self.reader)
            .await?;
        row.map(account_from_row).transpose()
    }

    async fn accounts(&self, app_key: Option<&AppKey>) -> Result<Vec<AccountRecord>, StoreError> {
        let rows: Vec<AccountRow> = query(format!(
            "SELECT {ACCOUNT_COLUMNS} FROM accounts
             WHERE $1 IS NULL OR app_key = $1 ORDER BY created_at, account_type, account_id"
        ))
        .bind(app_key)
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter().map(account_from_row).collect()
    }
}
