//! One migration history, followed step by step by both backends: `migrations/sqlite` and
//! `migrations/postgres` hold the same numbered steps, each making the same tables and columns
//! in its dialect (`tests/migrations.rs` compares them). The only columns one has and the other
//! lacks are PostgreSQL's change feeds, which several nodes follow: `orders.changed`,
//! `order_events.changed` and `accounts.changed`.
//!
//! PostgreSQL databases made before the histories were aligned recorded two steps, `schema`
//! and `order changes`, whose result is the whole of steps 1 to 8; they are adopted into the
//! new history as they are, under an advisory lock, without touching a table.

use sqlx::migrate::{MigrateError, Migrator};
use sqlx::postgres::PgPool;

use super::query::Pool;

static SQLITE: Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES: Migrator = sqlx::migrate!("./migrations/postgres");

/// The versions of every step, in order (the same for both backends).
pub fn versions() -> Vec<i64> {
    SQLITE.iter().map(|m| m.version).collect()
}

/// Brings the schema up to date.
pub async fn run(pool: &Pool) -> Result<(), MigrateError> {
    run_to(pool, i64::MAX).await
}

/// Brings a SQLite file other than the store's (a checkpoint) up to date: a task of its own,
/// whose future a caller may hold across its awaits in any task.
pub async fn run_sqlite_file(pool: sqlx::SqlitePool) -> Result<(), MigrateError> {
    tokio::spawn(async move { SQLITE.run(&pool).await })
        .await
        .map_err(|e| MigrateError::Execute(sqlx::Error::Protocol(e.to_string())))?
}

/// Brings the schema up to step `version` (tests compare the backends step by step).
pub async fn run_to(pool: &Pool, version: i64) -> Result<(), MigrateError> {
    match pool {
        Pool::Sqlite(p) => SQLITE.run_to(version, p).await,
        Pool::Postgres(p) => {
            adopt_first_history(p).await?;
            POSTGRES.run_to(version, p).await
        }
    }
}

/// An arbitrary key of the advisory lock the adoption holds (sqlx's migrator takes its own).
const ADOPTION_LOCK: i64 = 0x5167_6e65_7401;

/// The change feed of the first history's second step, for a database that stopped after its
/// first (the feed is part of step 4 now).
const FIRST_HISTORY_CHANGE_FEED: &str =
    include_str!("../../tests/fixtures/postgres-first-history/0002_order_changes.sql");

/// Replaces the first history's two records by the records of steps 1 to 8, whose tables,
/// columns and indexes the first history made all at once; in one transaction.
async fn adopt_first_history(pool: &PgPool) -> Result<(), MigrateError> {
    let mut conn = pool.acquire().await?;
    let (exists,): (bool,) = sqlx::query_as("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
        .fetch_one(&mut *conn)
        .await?;
    if !exists {
        return Ok(());
    }
    let first: Option<(String,)> = sqlx::query_as("SELECT description FROM _sqlx_migrations WHERE version = 1")
        .fetch_optional(&mut *conn)
        .await?;
    if first.is_none_or(|(description,)| description != "schema") {
        return Ok(());
    }
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(ADOPTION_LOCK)
        .execute(&mut *tx)
        .await?;
    // Another node may have adopted it while this one waited for the lock.
    let versions: Vec<(i64, String)> =
        sqlx::query_as("SELECT version, description FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&mut *tx)
            .await?;
    if versions.first().is_none_or(|(_, description)| description != "schema") {
        return Ok(());
    }
    if !versions.iter().any(|(version, _)| *version == 2) {
        sqlx::raw_sql(FIRST_HISTORY_CHANGE_FEED).execute(&mut *tx).await?;
    }
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version IN (1, 2)")
        .execute(&mut *tx)
        .await?;
    POSTGRES.skip(&mut *tx, Some(8)).await?;
    tx.commit().await?;
    tracing::info!("adopted the first migration history of this PostgreSQL database as steps 1 to 8");
    Ok(())
}
