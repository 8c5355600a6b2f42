//! The embedded default: one SQLite file in WAL mode, migrations compiled into the binary.
//!
//! Writes go through a pool of exactly one connection, so writers queue in the process instead
//! of spinning on SQLite's lock; reads use a separate pool of read-only connections. Other
//! processes (the admin commands) may write to the same file at the same time: SQLite's busy
//! timeout serializes them.

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

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

use super::StoreError;
use super::batch::Batcher;

/// How hard SQLite works to make a commit durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// `synchronous=NORMAL` (WAL): a commit survives a crash of the process, not a power cut.
    #[default]
    Normal,
    /// `synchronous=FULL`: a commit also survives a power cut, at the price of an fsync each.
    Full,
}

impl FromStr for Durability {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "full" => Ok(Durability::Full),
            "normal" => Ok(Durability::Normal),
            other => Err(format!("unknown durability {other:?}: expected full or normal")),
        }
    }
}

#[derive(Debug, Clone)]
pub struct SqliteStore {
    path: PathBuf,
    writer: SqlitePool,
    reader: SqlitePool,
    nonce_writer: Batcher<nonces::NewNonce, bool>,
    placement_writer: Batcher<Vec<crate::engine::order::Order>, placements::Placed>,
    checkpointer: SqlitePool,
}

const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
const READERS: u32 = 4;

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub async fn open(path: &Path, durability: Durability) -> Result<Self, StoreError> {
        let synchronous = match durability {
            Durability::Full => SqliteSynchronous::Full,
            Durability::Normal => SqliteSynchronous::Normal,
        };
        let options = SqliteConnectOptions::new()
            .filename(path)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(synchronous)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true)
            // 64 MiB of page cache per connection (the default is 2 MiB): bulk imports and the
            // screeners' window queries work on tens of megabytes.
            .pragma("cache_size", "-65536");
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(BUSY_TIMEOUT)
            // Checkpoints (and their fsyncs) run on their own connection, off the writer's path.
            .connect_with(
                options
                    .clone()
                    .create_if_missing(true)
                    .pragma("wal_autocheckpoint", "0"),
            )
            .await
            .map_err(map_err)?;
        let checkpointer = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await
            .map_err(map_err)?;
        tokio::spawn(checkpoints(checkpointer.clone()));
        sqlx::migrate!("./migrations/sqlite")
            .run(&writer)
            .await
            .map_err(|e| StoreError::Other(format!("migrating {}: {e}", path.display())))?;
        let reader = SqlitePoolOptions::new()
            .max_connections(READERS)
            .acquire_timeout(BUSY_TIMEOUT)
            .connect_with(options.read_only(true))
            .await
            .map_err(map_err)?;
        Ok(SqliteStore {
            path: path.to_owned(),
            nonce_writer: nonces::spawn_writer(writer.clone()),
            placement_writer: placements::spawn_writer(writer.clone()),
            writer,
            reader,
            checkpointer,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Sorts sqlx errors into the three kinds the rest of the server acts on.
fn map_err(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
            StoreError::Unavailable(e.to_string())
        }
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.message().to_owned()),
        // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
        sqlx::Error::Database(db)
            if db
                .code()
                .and_then(|c| c.parse::<i32>().ok())
                .is_some_and(|c| matches!(c & 0xff, 5 | 6)) =>
        {
            StoreError::Unavailable(db.message().to_owned())
        }
        _ => StoreError::Other(e.to_string()),
    }
}

/// Copies the write-ahead log into the database file four times a second (what SQLite's
/// automatic checkpoint would do inside a commit); stops when the store closes.
async fn checkpoints(pool: SqlitePool) {
    let mut every = tokio::time::interval(Duration::from_millis(250));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if pool.is_closed() {
            return;
        }
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)").execute(&pool).await {
            tracing::debug!(error = %e, "checkpoint");
        }
    }
}
