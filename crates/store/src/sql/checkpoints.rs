//! Checkpoints ([`CheckpointStore`]): the tables of the sandbox's state copied apart, and put
//! back in one transaction.
//!
//! - **SQLite**: a file per checkpoint (`NAME.checkpoint` in the checkpoint directory), itself
//!   a signet database at this build's schema holding the state's tables (and the instruments,
//!   which their foreign keys name). It is written under a temporary name in one transaction of
//!   the writing connection, so the copy is consistent while the server runs (its writes wait
//!   for it), then synced and renamed over any older one. A file of an older build is migrated
//!   as a database is, when it is restored.
//! - **PostgreSQL**: a schema per checkpoint (`checkpoint_NAME`), made with `CREATE TABLE … AS`
//!   in one repeatable-read transaction: no dump tool, and every node sees it. Tables of an
//!   older build are restored by the columns they share with today's; new columns take their
//!   defaults.
//!
//! A restore deletes the state's rows and inserts the checkpoint's in one transaction (on
//! PostgreSQL with the state's tables locked against every node), so a crash leaves the state
//! as it was before or after, never between. The market data stays, but for the bars of
//! simulated days after the checkpoint's last bar, which are dropped so that the simulator
//! draws those days again. A checkpoint whose tables do not hold the rows it recorded, that
//! fails SQLite's check, that a newer build made or that was sealed with another master key is
//! refused before anything changes.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use signet_domain::checkpoint::{CheckpointName, MarketState};
use sqlx::Connection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};

use super::SqlStore;
use super::migrate;
use super::query::{Conn, Dialect, Tx, map_err, query};

/// What is done with a checkpoint in one transaction.
enum Work<'a> {
    Save {
        name: &'a CheckpointName,
        market: &'a str,
        saved_at: i64,
        key: &'a CheckpointKey,
    },
    /// A restore of a checkpoint already checked whole: its seal before its file was migrated.
    Restore { name: &'a CheckpointName },
}

enum Done {
    Saved(InfoRow),
    /// The checkpoint's record, the new epoch, the bars dropped.
    Restored(InfoRow, i64, u64),
}
use crate::{CheckpointInfo, CheckpointKey, CheckpointStore, Restored, Restores, StoreError};

/// The state's tables, parents before children.
const STATE: [&str; 13] = [
    "apps",
    "accounts",
    "access_tokens",
    "orders",
    "order_events",
    "fills",
    "positions",
    "watchlists",
    "watchlist_instruments",
    "corporate_action_entries",
    "option_settlements",
    "scenarios",
    "scenario_rules",
];

/// PostgreSQL's identity columns among them, whose sequences a restore winds back, so that the
/// ids after a restore are those after the save.
const IDENTITIES: [(&str, &str); 5] = [
    ("orders", "seq"),
    ("order_events", "id"),
    ("fills", "fill_id"),
    ("corporate_action_entries", "entry_id"),
    ("option_settlements", "settlement_id"),
];

/// The `meta` key of the master key's fingerprint (the server records it at its first start).
pub const KEY_FINGERPRINT: &str = "master_key_fingerprint";
/// The `meta` keys of the restore epoch, and of the market state restored with it.
const EPOCH: &str = "restore_epoch";
const RESTORED_MARKET: &str = "restored_market";
/// The `meta` key of a restore announced to the other nodes ([`CheckpointStore::announce_restore`]).
const ANNOUNCED: &str = "restore_announced";
const FILE_EXTENSION: &str = "checkpoint";
const SCHEMA_PREFIX: &str = "checkpoint_";
/// The name a checkpoint file is attached under.
const ATTACHED: &str = "checkpoint";

/// `DB.checkpoints` beside `DB.db`.
pub(super) fn default_dir(db: &Path) -> PathBuf {
    let stem = db
        .file_stem()
        .map_or_else(|| "signet".into(), |s| s.to_string_lossy().into_owned());
    db.with_file_name(format!("{stem}.checkpoints"))
}

/// The columns of a checkpoint's record of itself, in [`InfoRow`]'s order.
const INFO_COLUMNS: &str = "name, saved_at, market, schema_version, last_bar_day, key_fingerprint, counts";

/// A checkpoint's own record of itself.
#[derive(Debug, sqlx::FromRow)]
struct InfoRow {
    name: String,
    saved_at: i64,
    market: String,
    schema_version: i64,
    last_bar_day: Option<i32>,
    key_fingerprint: Option<String>,
    /// `table=rows` pairs, comma-separated.
    counts: String,
}

impl InfoRow {
    fn count(&self, table: &str) -> Option<u64> {
        self.counts.split(',').find_map(|pair| {
            let (t, n) = pair.split_once('=')?;
            (t == table).then(|| n.parse().ok()).flatten()
        })
    }

    fn info(&self, bytes: u64) -> CheckpointInfo {
        CheckpointInfo {
            name: self.name.clone(),
            saved_at: self.saved_at,
            market: self.market.clone(),
            schema_version: self.schema_version,
            accounts: self.count("accounts").unwrap_or(0),
            orders: self.count("orders").unwrap_or(0),
            bytes,
        }
    }
}

fn latest_version() -> i64 {
    migrate::versions().last().copied().unwrap_or(0)
}

fn unusable(name: &CheckpointName, why: impl std::fmt::Display) -> StoreError {
    StoreError::Unusable(format!(
        "checkpoint {name} cannot be restored: {why}; nothing was changed"
    ))
}

/// Where the checkpoint's tables are, as a prefix of their names (`checkpoint.` or
/// `"checkpoint_NAME".`), and the live ones (`main.` or none).
struct Places {
    saved: String,
    live: &'static str,
    dialect: Dialect,
}

impl Places {
    fn of(dialect: Dialect, name: &CheckpointName) -> Self {
        match dialect {
            Dialect::Sqlite => Places {
                saved: format!("{ATTACHED}."),
                live: "main.",
                dialect,
            },
            Dialect::Postgres => Places {
                saved: format!("{}.", schema(name)),
                live: "",
                dialect,
            },
        }
    }

    /// The tables of a checkpoint file opened on its own.
    fn own_file() -> Self {
        Places {
            saved: String::new(),
            live: "",
            dialect: Dialect::Sqlite,
        }
    }

    /// The schema the checkpoint's tables are in, as the catalog names it.
    fn saved_schema(&self) -> String {
        match self.dialect {
            Dialect::Sqlite if self.saved.is_empty() => "main".to_owned(),
            Dialect::Sqlite => ATTACHED.to_owned(),
            Dialect::Postgres => self.saved.trim_end_matches('.').trim_matches('"').to_owned(),
        }
    }

    async fn run(&self, tx: &mut Tx, work: Work<'_>) -> Result<Done, StoreError> {
        Ok(match work {
            Work::Save {
                name,
                market,
                saved_at,
                key,
            } => Done::Saved(self.save(tx, name, market, saved_at, key).await?),
            Work::Restore { name } => {
                let (info, epoch, dropped) = self.restore(tx, name, None).await?;
                Done::Restored(info, epoch, dropped)
            }
        })
    }

    /// Copies the state's tables into the checkpoint and records it, in the caller's transaction.
    async fn save(
        &self,
        tx: &mut Tx,
        name: &CheckpointName,
        market: &str,
        saved_at: i64,
        key: &CheckpointKey,
    ) -> Result<InfoRow, StoreError> {
        let Places { saved, live, dialect } = self;
        if *dialect == Dialect::Sqlite {
            // What the state's foreign keys name, for the checkpoint's own to hold.
            query(self.copy_out("instruments")).execute(&mut *tx).await?;
        }
        let mut counts = Vec::with_capacity(STATE.len());
        for table in STATE {
            let rows = query(self.copy_out(table)).execute(&mut *tx).await?;
            counts.push(format!("{table}={rows}"));
        }
        let (last_bar_day,): (Option<i32>,) = query(format!("SELECT MAX(day) FROM {live}daily_bars"))
            .fetch_one(&mut *tx)
            .await?;
        let key_fingerprint: Option<(String,)> = query(format!("SELECT value FROM {live}meta WHERE key = $1"))
            .bind(KEY_FINGERPRINT)
            .fetch_optional(&mut *tx)
            .await?;
        let info = InfoRow {
            name: name.to_string(),
            saved_at,
            market: market.to_owned(),
            schema_version: latest_version(),
            last_bar_day,
            key_fingerprint: key_fingerprint.map(|(f,)| f),
            counts: counts.join(","),
        };
        let seal = key.seal(&self.digest(Conn::from(&mut *tx), &info).await?);
        query(format!(
            "CREATE TABLE {saved}checkpoint_info (name TEXT NOT NULL, saved_at BIGINT NOT NULL, market TEXT NOT NULL,
                schema_version BIGINT NOT NULL, last_bar_day INTEGER, key_fingerprint TEXT, counts TEXT NOT NULL,
                seal TEXT)"
        ))
        .execute(&mut *tx)
        .await?;
        query(format!(
            "INSERT INTO {saved}checkpoint_info ({INFO_COLUMNS}, seal) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        ))
        .bind(info.name.as_str())
        .bind(info.saved_at)
        .bind(info.market.as_str())
        .bind(info.schema_version)
        .bind(info.last_bar_day.map(i64::from))
        .bind(info.key_fingerprint.as_deref())
        .bind(info.counts.as_str())
        .bind(seal)
        .execute(&mut *tx)
        .await?;
        Ok(info)
    }

    /// A SHA-256 of everything the checkpoint holds that a restore trusts: its record, a SQLite
    /// file's schema, and the columns and rows of each table it recorded (rows in the order of
    /// their text, which is the same for the same rows on every read).
    async fn digest(&self, mut conn: Conn<'_>, info: &InfoRow) -> Result<[u8; 32], StoreError> {
        use sha2::{Digest as _, Sha256};
        let mut hash = Sha256::new();
        // Every part with its length, so that no two checkpoints' parts run together alike.
        let part = |hash: &mut Sha256, bytes: &[u8]| {
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(bytes);
        };
        part(&mut hash, b"signet checkpoint seal 1");
        for field in [
            info.name.clone(),
            info.saved_at.to_string(),
            info.market.clone(),
            info.schema_version.to_string(),
            info.last_bar_day.map_or_else(String::new, |d| d.to_string()),
            info.key_fingerprint.clone().unwrap_or_default(),
            info.counts.clone(),
        ] {
            part(&mut hash, field.as_bytes());
        }
        let saved = &self.saved;
        if self.dialect == Dialect::Sqlite {
            // A file's schema too: a trigger added to it would run when a migration changes it.
            // Its record (altered by adopt) and the statistics SQLite may keep are left out.
            query(format!(
                "SELECT type || ' ' || name || ' ' || tbl_name || ' ' || COALESCE(sql, '') AS r
                 FROM {saved}sqlite_master
                 WHERE name <> 'checkpoint_info' AND name NOT LIKE 'sqlite_stat%' ORDER BY r"
            ))
            .for_each(conn.reborrow(), |(row,): (String,)| part(&mut hash, row.as_bytes()))
            .await?;
        }
        for table in STATE {
            if info.count(table).is_none() {
                continue;
            }
            let columns = self.columns(conn.reborrow(), true, table).await?;
            part(&mut hash, table.as_bytes());
            part(&mut hash, columns.join(",").as_bytes());
            let rows = match self.dialect {
                Dialect::Sqlite => {
                    let quoted: Vec<String> = columns
                        .iter()
                        .map(|c| format!("quote(\"{}\")", c.replace('"', "\"\"")))
                        .collect();
                    format!(
                        "SELECT {} AS r FROM {saved}{table} ORDER BY r",
                        quoted.join(" || ',' || ")
                    )
                }
                Dialect::Postgres => format!("SELECT t::text FROM {saved}{table} t ORDER BY t::text COLLATE \"C\""),
            };
            query(rows)
                .for_each(conn.reborrow(), |(row,): (String,)| part(&mut hash, row.as_bytes()))
                .await?;
        }
        Ok(hash.finalize().into())
    }

    /// The seal the checkpoint records; `None` when it has none (made before checkpoints were
    /// sealed, or its record edited).
    async fn recorded_seal(&self, conn: Conn<'_>) -> Option<String> {
        query(format!("SELECT seal FROM {}checkpoint_info", self.saved))
            .fetch_optional::<(Option<String>,)>(conn)
            .await
            .ok()
            .flatten()
            .and_then(|(seal,)| seal)
    }

    /// Seals the checkpoint as it now is (after a migration of its file, or when an operator
    /// adopts it).
    async fn seal_again(&self, mut conn: Conn<'_>, info: &InfoRow, key: &CheckpointKey) -> Result<(), StoreError> {
        let saved = &self.saved;
        let columns = self.columns(conn.reborrow(), true, "checkpoint_info").await?;
        if !columns.iter().any(|c| c == "seal") {
            // A record from a build before checkpoints were sealed.
            query(format!("ALTER TABLE {saved}checkpoint_info ADD COLUMN seal TEXT"))
                .execute(conn.reborrow())
                .await?;
        }
        let seal = key.seal(&self.digest(conn.reborrow(), info).await?);
        query(format!("UPDATE {saved}checkpoint_info SET seal = $1"))
            .bind(seal)
            .execute(conn)
            .await?;
        Ok(())
    }

    /// Everything a restore must know of a checkpoint before it changes anything: its record
    /// reads, its market state would be taken, this build can read it, it was saved under the
    /// master key of `live_key`, its tables hold the rows it recorded, and (with `key`) its
    /// seal verifies.
    async fn check(
        &self,
        mut conn: Conn<'_>,
        name: &CheckpointName,
        live_key: Option<&str>,
        key: Option<&CheckpointKey>,
    ) -> Result<InfoRow, StoreError> {
        let saved = &self.saved;
        let info = self
            .info(conn.reborrow())
            .await
            .ok()
            .flatten()
            .ok_or_else(|| unusable(name, "it has no record of itself"))?;
        MarketState::decode(&info.market)
            .map_err(|e| unusable(name, format!("its market state cannot be put back: {e}")))?;
        if info.schema_version > latest_version() {
            return Err(unusable(
                name,
                format!(
                    "a newer build made it (schema step {}, this build's is {})",
                    info.schema_version,
                    latest_version()
                ),
            ));
        }
        match (&info.key_fingerprint, live_key) {
            (None, _) => return Err(unusable(name, "it records no master key")),
            (Some(saved_key), Some(live_key)) if saved_key == live_key => {}
            _ => return Err(unusable(name, "its secrets are sealed with another master key")),
        }
        for table in STATE {
            // A table the build that saved it did not have yet is emptied.
            let Some(recorded) = info.count(table) else { continue };
            let (rows,): (i64,) = query(format!("SELECT COUNT(*) FROM {saved}{table}"))
                .fetch_one(conn.reborrow())
                .await
                .map_err(|e| unusable(name, format!("its table {table} does not read ({e})")))?;
            if rows.unsigned_abs() != recorded {
                return Err(unusable(
                    name,
                    format!("its table {table} holds {rows} rows where {recorded} were saved"),
                ));
            }
        }
        if let Some(key) = key {
            let Some(seal) = self.recorded_seal(conn.reborrow()).await else {
                return Err(unusable(
                    name,
                    "it is not sealed (a build before checkpoints were sealed made it: `signet checkpoint adopt` seals it)",
                ));
            };
            let digest = self.digest(conn, &info).await?;
            if !key.verifies(&digest, &seal) {
                return Err(unusable(
                    name,
                    "its seal does not verify: it was changed after it was saved",
                ));
            }
        }
        Ok(info)
    }

    /// The statement that copies `table` into the checkpoint.
    fn copy_out(&self, table: &str) -> String {
        let Places { saved, live, dialect } = self;
        match dialect {
            Dialect::Sqlite => format!("INSERT INTO {saved}{table} SELECT * FROM {live}{table}"),
            Dialect::Postgres => format!("CREATE TABLE {saved}{table} AS SELECT * FROM {live}{table}"),
        }
    }

    async fn info(&self, conn: Conn<'_>) -> Result<Option<InfoRow>, StoreError> {
        query(format!("SELECT {INFO_COLUMNS} FROM {}checkpoint_info", self.saved))
            .fetch_optional(conn)
            .await
    }

    /// Checks the checkpoint (its seal too, with `key`), then replaces the state's rows by its
    /// own, in the caller's transaction; the new epoch and the bars dropped.
    async fn restore(
        &self,
        tx: &mut Tx,
        name: &CheckpointName,
        key: Option<&CheckpointKey>,
    ) -> Result<(InfoRow, i64, u64), StoreError> {
        let Places { saved, live, dialect } = self;
        let live_key: Option<(String,)> = query(format!("SELECT value FROM {live}meta WHERE key = $1"))
            .bind(KEY_FINGERPRINT)
            .fetch_optional(&mut *tx)
            .await?;
        let live_key = live_key.map(|(k,)| k);
        let info = self.check(Conn::from(&mut *tx), name, live_key.as_deref(), key).await?;
        let present: Vec<bool> = STATE.iter().map(|table| info.count(table).is_some()).collect();
        // An app's revocation and its secret are security facts, as a used nonce is: they
        // survive a restore (a restore that brought a revoked key back let it in again).
        let kept: Vec<(String, Vec<u8>, String)> =
            query(format!("SELECT app_key, sealed_secret, status FROM {live}apps"))
                .fetch_all(&mut *tx)
                .await?;
        for table in STATE.into_iter().rev() {
            query(format!("DELETE FROM {live}{table}")).execute(&mut *tx).await?;
        }
        let overriding = match dialect {
            Dialect::Sqlite => "",
            Dialect::Postgres => " OVERRIDING SYSTEM VALUE",
        };
        for (table, present) in STATE.into_iter().zip(present) {
            if !present {
                continue;
            }
            let saved_columns = self.columns(Conn::from(&mut *tx), true, table).await?;
            let shared: Vec<String> = self
                .columns(Conn::from(&mut *tx), false, table)
                .await?
                .into_iter()
                .filter(|c| saved_columns.contains(c))
                .collect();
            let list = shared.join(", ");
            query(format!(
                "INSERT INTO {live}{table} ({list}){overriding} SELECT {list} FROM {saved}{table}"
            ))
            .execute(&mut *tx)
            .await?;
        }
        for (app_key, sealed_secret, status) in &kept {
            query(format!(
                "UPDATE {live}apps SET sealed_secret = $1,
                        status = CASE WHEN $2 = 'REVOKED' THEN 'REVOKED' ELSE status END
                 WHERE app_key = $3"
            ))
            .bind(sealed_secret)
            .bind(status.as_str())
            .bind(app_key.as_str())
            .execute(&mut *tx)
            .await?;
        }
        if *dialect == Dialect::Postgres {
            for (table, column) in IDENTITIES {
                query(format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', '{column}'),
                                   COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)"
                ))
                .execute(&mut *tx)
                .await?;
            }
        }
        let dropped = query(format!(
            "DELETE FROM {live}daily_bars WHERE generated = $1 AND day > $2"
        ))
        .bind(true)
        .bind(info.last_bar_day.map_or(i64::MIN, i64::from))
        .execute(&mut *tx)
        .await?;
        let epoch: Option<(String,)> = query(format!("SELECT value FROM {live}meta WHERE key = $1"))
            .bind(EPOCH)
            .fetch_optional(&mut *tx)
            .await?;
        query(format!("DELETE FROM {live}meta WHERE key = $1"))
            .bind(ANNOUNCED)
            .execute(&mut *tx)
            .await?;
        let epoch = epoch.and_then(|(e,)| e.parse::<i64>().ok()).unwrap_or(0) + 1;
        for (key, value) in [(EPOCH, epoch.to_string()), (RESTORED_MARKET, info.market.clone())] {
            query(format!(
                "INSERT INTO {live}meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ))
            .bind(key)
            .bind(value)
            .execute(&mut *tx)
            .await?;
        }
        Ok((info, epoch, dropped))
    }

    /// The columns of `table`, in the checkpoint (`saved`) or live.
    async fn columns(&self, mut conn: Conn<'_>, saved: bool, table: &str) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> = match self.dialect {
            Dialect::Sqlite => {
                query("SELECT name FROM pragma_table_info($1, $2) ORDER BY cid")
                    .bind(table)
                    .bind(if saved { self.saved_schema() } else { "main".to_owned() })
                    .fetch_all(conn)
                    .await?
            }
            Dialect::Postgres => {
                let schema = if saved {
                    self.saved_schema()
                } else {
                    let (schema,): (String,) = query("SELECT current_schema()::text")
                        .fetch_one(conn.reborrow())
                        .await?;
                    schema
                };
                query(
                    "SELECT column_name::text FROM information_schema.columns
                     WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
                )
                .bind(schema)
                .bind(table)
                .fetch_all(conn)
                .await?
            }
        };
        Ok(rows.into_iter().map(|(c,)| c).collect())
    }
}

/// PostgreSQL's schema of a checkpoint, quoted (a name may hold `-`).
fn schema(name: &CheckpointName) -> String {
    format!("\"{SCHEMA_PREFIX}{name}\"")
}

/// Whether PostgreSQL holds the checkpoint `name`'s schema.
async fn schema_exists(conn: Conn<'_>, name: &CheckpointName) -> Result<bool, StoreError> {
    let exists: Option<(i32,)> = query("SELECT 1 FROM pg_namespace WHERE nspname = $1")
        .bind(format!("{SCHEMA_PREFIX}{name}"))
        .fetch_optional(conn)
        .await?;
    Ok(exists.is_some())
}

impl SqlStore {
    fn checkpoint_file(&self, name: &CheckpointName) -> Option<PathBuf> {
        let dir = self.checkpoint_dir.as_ref()?;
        Some(dir.join(format!("{name}.{FILE_EXTENSION}")))
    }

    /// Runs `work` in a write transaction with the checkpoint file at `path` attached
    /// ([`ATTACHED`]), and detaches it whatever happened. SQLite's writing pool has exactly one
    /// connection: the transaction begins on the connection the file was attached to.
    async fn attached(&self, path: &Path, places: &Places, work: Work<'_>) -> Result<Done, StoreError> {
        let detach = format!("DETACH DATABASE {ATTACHED}");
        // Left attached by an earlier call that was interrupted, if any.
        let _ = query(detach.clone()).execute(&self.writer).await;
        query(format!("ATTACH DATABASE $1 AS {ATTACHED}"))
            .bind(path.to_string_lossy().into_owned())
            .execute(&self.writer)
            .await?;
        let done = self.in_write(places, work).await;
        let detached = query(detach).execute(&self.writer).await;
        let done = done?;
        detached?;
        Ok(done)
    }

    async fn in_write(&self, places: &Places, work: Work<'_>) -> Result<Done, StoreError> {
        let mut tx = self.writer.begin_write().await?;
        let done = places.run(&mut tx, work).await?;
        tx.commit().await?;
        Ok(done)
    }

    /// The key that seals checkpoints, which a store opened by the server always has.
    fn checkpoint_key(&self) -> Result<&CheckpointKey, StoreError> {
        self.checkpoint_key.as_deref().ok_or_else(|| {
            StoreError::Other("checkpoints need the master key, and this store was opened without it".into())
        })
    }

    /// The fingerprint of the master key this database's secrets are sealed with.
    async fn live_key(&self) -> Result<Option<String>, StoreError> {
        let key: Option<(String,)> = query("SELECT value FROM meta WHERE key = $1")
            .bind(KEY_FINGERPRINT)
            .fetch_optional(&self.reader)
            .await?;
        Ok(key.map(|(k,)| k))
    }

    /// A checkpoint file on a connection of its own, checked by SQLite.
    async fn connect_checkpoint_file(path: &Path, name: &CheckpointName) -> Result<SqliteConnection, StoreError> {
        let options = SqliteConnectOptions::new().filename(path).create_if_missing(false);
        let mut conn = SqliteConnection::connect_with(&options)
            .await
            .map_err(|e| unusable(name, format!("it does not open ({e})")))?;
        let check: Result<(String,), _> = query("PRAGMA quick_check").fetch_one(Conn::Sqlite(&mut conn)).await;
        match check {
            Ok((verdict,)) if verdict == "ok" => Ok(conn),
            Ok((verdict,)) => Err(unusable(name, format!("SQLite finds it damaged ({verdict})"))),
            Err(e) => Err(unusable(name, format!("SQLite finds it damaged ({e})"))),
        }
    }

    /// A checkpoint file checked whole (its seal as it was saved) and then migrated to this
    /// build's schema, and sealed again if the migration changed it.
    async fn open_checkpoint_file(&self, path: &Path, name: &CheckpointName) -> Result<(), StoreError> {
        let key = self.checkpoint_key()?;
        let live_key = self.live_key().await?;
        let mut conn = Self::connect_checkpoint_file(path, name).await?;
        let own = Places::own_file();
        let info = own
            .check(Conn::Sqlite(&mut conn), name, live_key.as_deref(), Some(key))
            .await?;
        let before = migrated_to(&mut conn).await;
        conn.close().await.map_err(map_err)?;
        let options = SqliteConnectOptions::new().filename(path).create_if_missing(false);
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .map_err(map_err)?;
        let migrated = migrate::run_sqlite_file(pool.clone()).await;
        pool.close().await;
        migrated.map_err(|e| unusable(name, format!("it does not migrate to this build's schema ({e})")))?;
        let mut conn = Self::connect_checkpoint_file(path, name).await?;
        if migrated_to(&mut conn).await != before {
            own.seal_again(Conn::Sqlite(&mut conn), &info, key).await?;
        }
        conn.close().await.map_err(map_err)
    }

    async fn file_info(path: &Path) -> Option<CheckpointInfo> {
        let options = SqliteConnectOptions::new().filename(path).read_only(true);
        let mut conn = SqliteConnection::connect_with(&options).await.ok()?;
        // The file's own tables, unattached.
        let row = Places::own_file().info(Conn::Sqlite(&mut conn)).await.ok()?;
        let _ = conn.close().await;
        let bytes = tokio::fs::metadata(path).await.ok()?.len();
        Some(row?.info(bytes))
    }

    async fn schema_bytes(&self, name: &CheckpointName) -> Result<u64, StoreError> {
        let (bytes,): (i64,) = query(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
             JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
        )
        .bind(format!("{SCHEMA_PREFIX}{name}"))
        .fetch_one(&self.reader)
        .await?;
        Ok(bytes.unsigned_abs())
    }
}

#[async_trait]
impl CheckpointStore for SqlStore {
    async fn save_checkpoint(
        &self,
        name: &CheckpointName,
        market: &str,
        saved_at: i64,
    ) -> Result<CheckpointInfo, StoreError> {
        let key = self.checkpoint_key()?;
        let places = Places::of(self.dialect(), name);
        let Some(path) = self.checkpoint_file(name) else {
            let mut tx = self.writer.begin().await?;
            // One snapshot for every table.
            query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                .execute(&mut tx)
                .await?;
            query(format!("DROP SCHEMA IF EXISTS {} CASCADE", schema(name)))
                .execute(&mut tx)
                .await?;
            query(format!("CREATE SCHEMA {}", schema(name)))
                .execute(&mut tx)
                .await?;
            let info = places.save(&mut tx, name, market, saved_at, key).await?;
            tx.commit().await?;
            return Ok(info.info(self.schema_bytes(name).await?));
        };
        let dir = path.parent().expect("a checkpoint file is in a directory");
        private_dir(dir).map_err(|e| StoreError::Other(format!("creating {}: {e}", dir.display())))?;
        let partial = dir.join(format!(".{name}.partial"));
        let _ = tokio::fs::remove_file(&partial).await;
        // Readable by the server's user only, from the start (SQLite gives its journals the
        // same mode).
        private_file(&partial).map_err(|e| StoreError::Other(format!("creating {}: {e}", partial.display())))?;
        // An empty database at this build's schema, then the state copied in.
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(SqliteConnectOptions::new().filename(&partial).create_if_missing(true))
            .await
            .map_err(map_err)?;
        let made = migrate::run_sqlite_file(pool.clone()).await;
        pool.close().await;
        made.map_err(|e| StoreError::Other(format!("making a checkpoint's schema: {e}")))?;
        let saved = self
            .attached(
                &partial,
                &places,
                Work::Save {
                    name,
                    market,
                    saved_at,
                    key,
                },
            )
            .await;
        let info = match saved {
            Ok(Done::Saved(info)) => info,
            Ok(Done::Restored(..)) => unreachable!("a save saves"),
            Err(e) => {
                let _ = tokio::fs::remove_file(&partial).await;
                return Err(e);
            }
        };
        // Durable under its own name before it replaces an older one; then the directory.
        let synced = tokio::task::spawn_blocking({
            let (partial, path, dir) = (partial.clone(), path.clone(), dir.to_owned());
            move || -> std::io::Result<u64> {
                let file = std::fs::File::open(&partial)?;
                file.sync_all()?;
                let bytes = file.metadata()?.len();
                std::fs::rename(&partial, &path)?;
                std::fs::File::open(&dir)?.sync_all()?;
                Ok(bytes)
            }
        })
        .await
        .map_err(|e| StoreError::Other(e.to_string()))?
        .map_err(|e| StoreError::Other(format!("writing checkpoint {name}: {e}")))?;
        Ok(info.info(synced))
    }

    async fn restore_checkpoint(&self, name: &CheckpointName) -> Result<Option<Restored>, StoreError> {
        let places = Places::of(self.dialect(), name);
        let (info, epoch, dropped_bars) = match self.checkpoint_file(name) {
            Some(path) => {
                if !tokio::fs::try_exists(&path).await.unwrap_or(false) {
                    return Ok(None);
                }
                self.open_checkpoint_file(&path, name).await?;
                match self.attached(&path, &places, Work::Restore { name }).await? {
                    Done::Restored(info, epoch, dropped) => (info, epoch, dropped),
                    Done::Saved(_) => unreachable!("a restore restores"),
                }
            }
            None => {
                let mut tx = self.writer.begin().await?;
                if !schema_exists(Conn::from(&mut tx), name).await? {
                    return Ok(None);
                }
                // Every node's reads and writes of the state wait for the restore's commit.
                query(format!("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE", STATE.join(", ")))
                    .execute(&mut tx)
                    .await?;
                let restored = places.restore(&mut tx, name, Some(self.checkpoint_key()?)).await?;
                tx.commit().await?;
                restored
            }
        };
        let bytes = match self.checkpoint_file(name) {
            Some(path) => tokio::fs::metadata(&path).await.map_or(0, |m| m.len()),
            None => self.schema_bytes(name).await?,
        };
        Ok(Some(Restored {
            info: info.info(bytes),
            epoch,
            dropped_bars,
        }))
    }

    async fn checkpoints(&self) -> Result<Vec<CheckpointInfo>, StoreError> {
        let mut found = Vec::new();
        match &self.checkpoint_dir {
            Some(dir) => {
                let mut entries = match tokio::fs::read_dir(dir).await {
                    Ok(entries) => entries,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(found),
                    Err(e) => return Err(StoreError::Other(format!("reading {}: {e}", dir.display()))),
                };
                while let Some(entry) = entries
                    .next_entry()
                    .await
                    .map_err(|e| StoreError::Other(e.to_string()))?
                {
                    let path = entry.path();
                    if path.extension().is_some_and(|e| e == FILE_EXTENSION)
                        && let Some(info) = Self::file_info(&path).await
                    {
                        found.push(info);
                    }
                }
            }
            None => {
                let schemas: Vec<(String,)> =
                    query("SELECT nspname::text FROM pg_namespace WHERE starts_with(nspname, $1)")
                        .bind(SCHEMA_PREFIX)
                        .fetch_all(&self.reader)
                        .await?;
                for (schema_name,) in schemas {
                    let Ok(name) = CheckpointName::parse(&schema_name[SCHEMA_PREFIX.len()..]) else {
                        continue;
                    };
                    let places = Places::of(Dialect::Postgres, &name);
                    if let Ok(Some(row)) = places.info(Conn::from(&self.reader)).await {
                        found.push(row.info(self.schema_bytes(&name).await?));
                    }
                }
            }
        }
        found.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(found)
    }

    async fn adopt_checkpoint(&self, name: &CheckpointName) -> Result<Option<CheckpointInfo>, StoreError> {
        let key = self.checkpoint_key()?;
        let live_key = self.live_key().await?;
        match self.checkpoint_file(name) {
            Some(path) => {
                if !tokio::fs::try_exists(&path).await.unwrap_or(false) {
                    return Ok(None);
                }
                let mut conn = Self::connect_checkpoint_file(&path, name).await?;
                let own = Places::own_file();
                let info = own
                    .check(Conn::Sqlite(&mut conn), name, live_key.as_deref(), None)
                    .await?;
                own.seal_again(Conn::Sqlite(&mut conn), &info, key).await?;
                conn.close().await.map_err(map_err)?;
                private_file(&path).map_err(|e| StoreError::Other(format!("{}: {e}", path.display())))?;
                let bytes = tokio::fs::metadata(&path).await.map_or(0, |m| m.len());
                Ok(Some(info.info(bytes)))
            }
            None => {
                let mut tx = self.writer.begin().await?;
                if !schema_exists(Conn::from(&mut tx), name).await? {
                    return Ok(None);
                }
                let places = Places::of(Dialect::Postgres, name);
                let info = places
                    .check(Conn::from(&mut tx), name, live_key.as_deref(), None)
                    .await?;
                places.seal_again(Conn::from(&mut tx), &info, key).await?;
                tx.commit().await?;
                Ok(Some(info.info(self.schema_bytes(name).await?)))
            }
        }
    }

    async fn delete_checkpoint(&self, name: &CheckpointName) -> Result<bool, StoreError> {
        match self.checkpoint_file(name) {
            Some(path) => match tokio::fs::remove_file(&path).await {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
                Err(e) => Err(StoreError::Other(format!("deleting {}: {e}", path.display()))),
            },
            None => {
                let exists = schema_exists(Conn::from(&self.writer), name).await?;
                query(format!("DROP SCHEMA IF EXISTS {} CASCADE", schema(name)))
                    .execute(&self.writer)
                    .await?;
                Ok(exists)
            }
        }
    }

    async fn restores(&self) -> Result<Restores, StoreError> {
        let rows: Vec<(String, String)> = query("SELECT key, value FROM meta WHERE key IN ($1, $2, $3)")
            .bind(EPOCH)
            .bind(RESTORED_MARKET)
            .bind(ANNOUNCED)
            .fetch_all(&self.reader)
            .await?;
        let value = |key: &str| rows.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        Ok(Restores {
            epoch: value(EPOCH).and_then(|e| e.parse().ok()).unwrap_or(0),
            market: value(RESTORED_MARKET),
            announced: value(ANNOUNCED).and_then(|at| at.parse().ok()),
        })
    }

    async fn announce_restore(&self, at: Option<i64>) -> Result<(), StoreError> {
        match at {
            Some(at) => query(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            )
            .bind(ANNOUNCED)
            .bind(at.to_string())
            .execute(&self.writer)
            .await?,
            None => {
                query("DELETE FROM meta WHERE key = $1")
                    .bind(ANNOUNCED)
                    .execute(&self.writer)
                    .await?
            }
        };
        Ok(())
    }
}

/// The last migration step a checkpoint file went through.
async fn migrated_to(conn: &mut SqliteConnection) -> i64 {
    query("SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations")
        .fetch_one::<(i64,)>(Conn::Sqlite(conn))
        .await
        .map_or(0, |(v,)| v)
}

/// Makes `dir` (and its parents) if missing, the last readable by the server's user only.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates `path` empty, or narrows an existing file, readable by the server's user only.
fn private_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path)?;
    #[cfg(unix)]
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    drop(file);
    Ok(())
}
