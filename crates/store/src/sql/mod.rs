//! The storage traits over SQL, written once for both backends ([`query`] binds each statement
//! to the one it runs on); a [`Dialect`] branch stands only where the SQL really differs.
//!
//! **SQLite**, the embedded default: one file in WAL mode. Writes go through a pool of exactly
//! one connection, so writers queue in the process instead of spinning on SQLite's lock, and
//! nonces and placements are written by group commit; reads use a separate pool of read-only
//! connections. Other processes (the admin commands) may write to the same file at the same
//! time: SQLite's busy timeout serializes them.
//!
//! **PostgreSQL**, the system of record when several nodes serve the same apps: one pool serves
//! reads and writes. Where SQLite relies on its single writer to serialize a check and a change,
//! PostgreSQL takes locks instead: a fill, cancel, replace or expiry (and with it any change
//! to the positions and cash) locks the account's row first, so two nodes never fill one order
//! twice or overspend an account; placements and replacements, which raise what an account's
//! orders claim, take the account's turn (an advisory lock, `placements.rs`) from their check
//! to their commit; a watchlist change locks its app's or watchlist's row. Migrations run under PostgreSQL's
//! advisory lock, so nodes may start together.

mod apps;
mod checkpoints;
mod console;
mod corporate;
mod fundamentals;
mod import_rows;
mod marketdata;
mod meta;
pub mod migrate;
mod multi_leg;
mod nonces;
pub mod placements;
pub mod query;
mod scenarios;
mod screeners;
mod settlements;
mod staged_import;
mod tokens;
mod trading;
mod trading_rows;
mod watchlists;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use signet_domain::trading::order::Order;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

pub use self::checkpoints::KEY_FINGERPRINT;
use self::query::{Dialect, Pool, map_err};
use crate::StoreError;
use crate::batch::Batcher;

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

/// Every storage trait, on SQLite or PostgreSQL.
#[derive(Debug, Clone)]
pub struct SqlStore {
    /// SQLite's read-only connections, or PostgreSQL's pool.
    reader: Pool,
    /// SQLite's one writing connection, or PostgreSQL's pool.
    writer: Pool,
    nonce_writer: Batcher<nonces::NewNonce, bool>,
    /// Group commit of placements (SQLite); PostgreSQL commits concurrent placements together
    /// by itself.
    placement_writer: Option<Batcher<Vec<Order>, crate::Placed>>,
    /// PostgreSQL: the connections of the accounts' turns ([`crate::AccountTurn`]), apart from
    /// `writer`, so that a turn waiting for its lock never holds a connection its reads need.
    turns: Option<Pool>,
    /// The SQLite file, and the connection that checkpoints its write-ahead log.
    sqlite: Option<(PathBuf, SqlitePool)>,
    /// How the SQLite connections open (a large import opens one of its own).
    sqlite_options: Option<SqliteConnectOptions>,
    /// SQLite: the directory of the checkpoint files ([`SqlStore::with_checkpoints`]).
    checkpoint_dir: Option<PathBuf>,
    /// What seals checkpoints ([`SqlStore::with_checkpoint_key`]); without it there are none.
    checkpoint_key: Option<std::sync::Arc<crate::CheckpointKey>>,
}

const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
const SQLITE_READERS: u32 = 4;
const PG_CONNECTIONS: u32 = 16;
/// Accounts whose placements a node stores at the same moment, at most.
const PG_TURN_CONNECTIONS: u32 = 8;

impl SqlStore {
    /// Opens (creating if needed) the SQLite database at `path` and brings its schema up to date.
    pub async fn sqlite(path: &Path, durability: Durability) -> Result<Self, StoreError> {
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
        migrate::run(&Pool::Sqlite(writer.clone()))
            .await
            .map_err(|e| StoreError::Other(format!("migrating {}: {e}", path.display())))?;
        let reader = SqlitePoolOptions::new()
            .max_connections(SQLITE_READERS)
            .acquire_timeout(BUSY_TIMEOUT)
            .connect_with(options.clone().read_only(true))
            .await
            .map_err(map_err)?;
        let writer = Pool::Sqlite(writer);
        Ok(SqlStore {
            nonce_writer: nonces::spawn_writer(writer.clone()),
            placement_writer: Some(placements::spawn_writer(writer.clone())),
            turns: None,
            reader: Pool::Sqlite(reader),
            writer,
            sqlite: Some((path.to_owned(), checkpointer)),
            sqlite_options: Some(options),
            checkpoint_dir: Some(checkpoints::default_dir(path)),
            checkpoint_key: None,
        })
    }

    /// Connects to the PostgreSQL database at `url` and brings its schema up to date.
    pub async fn postgres(url: &str) -> Result<Self, StoreError> {
        let options: PgConnectOptions = url
            .parse()
            .map_err(|e| StoreError::Other(format!("invalid PostgreSQL URL: {e}")))?;
        let pool = PgPoolOptions::new()
            .max_connections(PG_CONNECTIONS)
            .acquire_timeout(BUSY_TIMEOUT)
            .connect_with(options.clone())
            .await
            .map_err(map_err)?;
        // A turn waits for its account's lock at most as long as for a connection.
        let turns = PgPoolOptions::new()
            .max_connections(PG_TURN_CONNECTIONS)
            .min_connections(0)
            .acquire_timeout(BUSY_TIMEOUT)
            .connect_lazy_with(options.options([("lock_timeout", "5s")]));
        let pool = Pool::Postgres(pool);
        migrate::run(&pool)
            .await
            .map_err(|e| StoreError::Other(format!("migrating the PostgreSQL database: {e}")))?;
        Ok(SqlStore {
            nonce_writer: nonces::spawn_writer(pool.clone()),
            placement_writer: None,
            turns: Some(Pool::Postgres(turns)),
            reader: pool.clone(),
            writer: pool,
            sqlite: None,
            sqlite_options: None,
            checkpoint_dir: None,
            checkpoint_key: None,
        })
    }

    /// Keeps SQLite's checkpoint files in `dir` instead of beside the database (`DB.checkpoints`
    /// for `DB.db`); PostgreSQL keeps them in schemas of its own.
    pub fn with_checkpoints(mut self, dir: PathBuf) -> Self {
        if self.sqlite.is_some() {
            self.checkpoint_dir = Some(dir);
        }
        self
    }

    /// Seals checkpoints with `key` (derived from the server's master key) and restores only
    /// those it sealed.
    pub fn with_checkpoint_key(mut self, key: crate::CheckpointKey) -> Self {
        self.checkpoint_key = Some(std::sync::Arc::new(key));
        self
    }

    /// The SQLite file; `None` on PostgreSQL.
    pub fn path(&self) -> Option<&Path> {
        self.sqlite.as_ref().map(|(path, _)| path.as_path())
    }

    fn dialect(&self) -> Dialect {
        self.writer.dialect()
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
