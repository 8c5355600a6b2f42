//! PostgreSQL, the system of record when several nodes serve the same apps.
//!
//! One pool serves reads and writes; PostgreSQL's own concurrency replaces SQLite's single
//! writer. Where the embedded store relies on that writer to serialize a check and a change, this
//! one takes row locks instead: a fill, cancel, replace or expiry (and with it any change to the
//! positions and cash) locks the account's row first, so two nodes never fill one order twice or
//! overspend an account, and locks are always taken in the same order; placements take no lock
//! and meet at the unique indexes. A watchlist change locks its app's or watchlist's row.
//! Migrations run under PostgreSQL's advisory lock, so nodes may start together.

mod apps;
mod fundamentals;
mod marketdata;
mod meta;
mod nonces;
mod placements;
mod screeners;
mod tokens;
mod trading;
mod watchlists;

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use super::StoreError;
use super::batch::Batcher;

#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
    nonce_writer: Batcher<nonces::NewNonce, bool>,
}

const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
const CONNECTIONS: u32 = 16;

impl PgStore {
    /// Connects to `url` and brings the schema up to date.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let options: PgConnectOptions = url
            .parse()
            .map_err(|e| StoreError::Other(format!("invalid PostgreSQL URL: {e}")))?;
        let pool = PgPoolOptions::new()
            .max_connections(CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await
            .map_err(map_err)?;
        sqlx::migrate!("./migrations/postgres")
            .run(&pool)
            .await
            .map_err(|e| StoreError::Other(format!("migrating the PostgreSQL database: {e}")))?;
        Ok(PgStore {
            nonce_writer: nonces::spawn_writer(pool.clone()),
            pool,
        })
    }
}

/// Sorts sqlx errors into the kinds the rest of the server acts on.
fn map_err(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) => {
            StoreError::Unavailable(e.to_string())
        }
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.message().to_owned()),
        // Class 08 (connection exception), 53 (too many connections, out of memory or disk),
        // 57P01-57P03 (shutting down, cannot connect now), 55000 (a database that does not accept
        // connections, as during maintenance), 40001/40P01 (serialization failure, deadlock):
        // all worth trying again shortly.
        sqlx::Error::Database(db)
            if db.code().is_some_and(|c| {
                c.starts_with("08")
                    || c.starts_with("53")
                    || c.starts_with("57P")
                    || matches!(&*c, "55000" | "40001" | "40P01")
            }) =>
        {
            StoreError::Unavailable(db.message().to_owned())
        }
        _ => StoreError::Other(e.to_string()),
    }
}
