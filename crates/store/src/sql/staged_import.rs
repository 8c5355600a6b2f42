//! Large imports beside a running server (SQLite).
//!
//! SQLite has one write lock. An import applied in one transaction holds it from its first row
//! to its commit, seconds for a large price file, and every write of a server on the same file
//! (orders, nonces) waits, then fails after the busy timeout. A large import of bars therefore
//! builds the next `daily_bars` and `corporate_actions` beside the live ones, in short
//! transactions that each hold the lock for a few milliseconds, and makes them live in one short
//! transaction at the end:
//!
//! 1. `daily_bars_next` and `corporate_actions_next` are made with the live tables' own
//!    definitions, and filled with the live rows (copied in key order, a few thousand per
//!    transaction); the file's bars and reported actions are then upserted into them as they
//!    arrive, a few thousand per transaction, and the actions derived from the bars of the
//!    instruments whose bars changed are replaced at the end, a few instruments per
//!    transaction. While another connection writes, the import pauses between transactions as
//!    long as it held the lock (see [`Pacer`]), so that a server's writes, which wait on
//!    SQLite's busy handler, find the lock free.
//! 2. Instruments the file names for the first time get their ids now (the next free ones) but
//!    are inserted only at the end. So that no table ever refers to a missing instrument (a
//!    crash may leave the next tables behind, and `PRAGMA foreign_key_check` looks at every
//!    table), the next tables refer to `import_instrument_ids`, the ids of the instruments as
//!    they will be, instead of `instruments`.
//! 3. The rest of the file (instrument updates, facts, records, reported figures, minutes:
//!    nothing in a daily price file) and the new instruments are written in one last
//!    transaction, which also swaps the tables: `daily_bars` becomes `daily_bars_old`,
//!    `daily_bars_next` becomes `daily_bars`, and the same for `corporate_actions`; their
//!    references are pointed at `instruments` (see [`Staging::swap`]). The old tables are
//!    dropped afterwards.
//!
//! A crash or a bad file before that transaction leaves only the unused tables, which the next
//! import drops: none of the file is visible. Imports are serialized by a lock on the file
//! `<database>.import-lock` ([`ImportLock`], released by the system when its process dies),
//! since a table swap would lose any write made to the live tables meanwhile. Only imports write
//! `daily_bars` and `corporate_actions` (the server writes them through an import too: the
//! simulated days it stores, the demo dataset), and only imports insert instruments.
//!
//! Imports of fewer than [`STAGED_FROM_ROWS`] rows, and files without bars (facts,
//! fundamentals, listings), keep the one transaction: copying the live bars would cost more
//! than the lock is held. So do files of minutes, whose daily bars (rolled up from the minutes)
//! come after all of them: `minute_bars` is not staged, and a large file of minutes holds the
//! write lock for its whole import. (When its bars come early enough to stage, its minutes
//! wait for the last transaction with the rest.)

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

use signet_domain::marketdata::import::{Chunk, ImportCounts, ImportMessage};
use signet_domain::marketdata::{CorporateAction, SymbolBar};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use tokio::sync::mpsc;

use super::BUSY_TIMEOUT;
use super::import_rows::{
    DerivedAction, Import, ROWS_PER_STATEMENT, derived_actions, replace_derived_actions, stored_derived_actions,
    upsert_action,
};
use super::query::{FromRow, Pool, Query, Tx, map_err, query};
use crate::StoreError;

/// Rows from which an import of bars is staged (below, the one transaction is short).
pub(super) const STAGED_FROM_ROWS: usize = 16_384;

const NEXT: &str = "daily_bars_next";
const OLD: &str = "daily_bars_old";
const ACTIONS_NEXT: &str = "corporate_actions_next";
const ACTIONS_OLD: &str = "corporate_actions_old";
const IDS: &str = "import_instrument_ids";
/// What an import may leave behind, in the order they can be dropped.
const STAGING_TABLES: [&str; 5] = [NEXT, OLD, ACTIONS_NEXT, ACTIONS_OLD, IDS];
const PARKED: &str = "import_parked_instruments";

/// Live rows copied into a next table per transaction.
const COPY_ROWS: i64 = 4096;
/// Instruments whose corporate actions are derived again per transaction (each has a few
/// thousand bars at most, and its actions are a few dozen).
const DERIVED_PER_TRANSACTION: usize = 16;

/// Serializes the imports of one SQLite file across processes: an exclusive lock on
/// `<database>.import-lock` (beside `<database>.lock`, which opening takes), released when
/// dropped or when the process dies. The file stays, empty.
pub(super) struct ImportLock(#[expect(dead_code, reason = "held for its lock")] File);

impl ImportLock {
    pub(super) async fn acquire(db: &Path) -> Result<Self, StoreError> {
        let path = db.with_added_extension("import-lock");
        let locked = tokio::task::spawn_blocking({
            let path = path.clone();
            move || {
                let mut options = OpenOptions::new();
                options.create(true).truncate(false).write(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
                let file = options.open(&path)?;
                match file.try_lock() {
                    Ok(()) => {}
                    Err(TryLockError::WouldBlock) => {
                        tracing::info!(lock = %path.display(), "another import of this database runs: waiting for it");
                        file.lock()?;
                    }
                    Err(TryLockError::Error(e)) => return Err(e),
                }
                Ok(file)
            }
        })
        .await
        .map_err(|e| StoreError::Other(e.to_string()))?;
        locked
            .map(ImportLock)
            .map_err(|e| StoreError::Other(format!("locking {}: {e}", path.display())))
    }
}

/// Makes the import give way to other writers: after a transaction, if another connection
/// committed since the last one (`PRAGMA data_version`), the import pauses for as long as it
/// held the lock, and keeps doing so for [`POLITE_FOR`]; its transactions are then one parsed
/// chunk each. Alone on the file it writes [`QUIET_ROWS`] a transaction and pauses only for a
/// probe of [`PROBE`] every [`PROBE_EVERY`]: a writer that has not got in yet waits on SQLite's
/// busy handler, which sleeps between tries, and would rarely find the lock free between two
/// transactions without a pause. (How long `BEGIN IMMEDIATE` waited is no sign of another
/// writer: on a loaded machine it measures the scheduler too.)
struct Pacer {
    data_version: Option<i64>,
    polite_until: Option<Instant>,
    probed: Option<Instant>,
}

const POLITE_FOR: Duration = Duration::from_secs(2);
const MIN_PAUSE: Duration = Duration::from_millis(5);
const MAX_PAUSE: Duration = Duration::from_millis(50);
const PROBE: Duration = Duration::from_millis(25);
const PROBE_EVERY: Duration = Duration::from_millis(500);
/// Bars a transaction writes when no other connection writes (three parsed chunks).
const QUIET_ROWS: usize = 12_288;

impl Pacer {
    fn polite(&self) -> bool {
        self.polite_until.is_some_and(|until| Instant::now() < until)
    }

    async fn pace(&mut self, conn: &Pool, held: Duration) -> Result<(), StoreError> {
        let (version,): (i64,) = query("PRAGMA data_version").fetch_one(conn).await?;
        if self.data_version.is_some_and(|v| v != version) {
            self.polite_until = Some(Instant::now() + POLITE_FOR);
        }
        self.data_version = Some(version);
        if self.polite() {
            tokio::time::sleep(held.clamp(MIN_PAUSE, MAX_PAUSE)).await;
        } else if self.probed.is_none_or(|at| at.elapsed() >= PROBE_EVERY) {
            tokio::time::sleep(PROBE).await;
            self.probed = Some(Instant::now());
        }
        Ok(())
    }
}

/// A staged import in progress: see the module's documentation.
pub(super) struct Staging {
    /// A connection of its own, with foreign keys off (the next table refers to the id table
    /// until the swap, and the swap renames `instruments`).
    conn: Pool,
    /// Every symbol met so far, with its id (existing or reserved).
    ids: HashMap<String, i64>,
    /// Instruments to insert at the swap: (id, symbol).
    new_instruments: Vec<(i64, String)>,
    next_id: i64,
    import: Import,
    /// Rows the import changed in the next table of corporate actions.
    actions_changed: u64,
    /// Chunks other than bars and actions, applied at the swap.
    deferred: Vec<Chunk>,
    /// Bars parsed and not written yet (imported, or generated).
    pending: (Vec<SymbolBar>, bool),
    pacer: Pacer,
}

impl Staging {
    /// Makes the next tables and copies the live bars and actions into them; `None` when a live
    /// table is not one this code knows how to rebuild (an index or trigger of its own, another
    /// foreign key), and the caller imports in one transaction.
    pub(super) async fn prepare(options: SqliteConnectOptions) -> Result<Option<Staging>, StoreError> {
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(BUSY_TIMEOUT)
            .connect_with(options.foreign_keys(false).pragma("wal_autocheckpoint", "0"))
            .await
            .map_err(map_err)?;
        let conn = Pool::Sqlite(pool);
        let mut staging = Staging {
            conn,
            ids: HashMap::new(),
            new_instruments: Vec::new(),
            next_id: 0,
            import: Import::default(),
            actions_changed: 0,
            deferred: Vec::new(),
            pending: (Vec::new(), false),
            pacer: Pacer {
                data_version: None,
                polite_until: None,
                probed: None,
            },
        };
        // What a crashed import left behind.
        staging.drop_tables(&STAGING_TABLES).await?;
        let (Some(bars), Some(actions)) = (
            staging.next_definition("daily_bars", NEXT).await?,
            staging.next_definition("corporate_actions", ACTIONS_NEXT).await?,
        ) else {
            staging.conn.close().await;
            return Ok(None);
        };
        let (started, mut tx) = staging.begin().await?;
        query(format!("CREATE TABLE {IDS} (instrument_id INTEGER PRIMARY KEY)"))
            .execute(&mut tx)
            .await?;
        query(format!("INSERT INTO {IDS} SELECT instrument_id FROM instruments"))
            .execute(&mut tx)
            .await?;
        query(bars).execute(&mut tx).await?;
        query(actions).execute(&mut tx).await?;
        tx.commit().await?;
        staging.pace(started).await?;
        let (last,): (Option<i64>,) = query(format!("SELECT MAX(instrument_id) FROM {IDS}"))
            .fetch_one(&staging.conn)
            .await?;
        staging.next_id = last.unwrap_or(0) + 1;
        let bind = |q: Query<'static>, (id, day)| q.bind(id).bind(day);
        let start = (i64::MIN, i32::MIN);
        staging
            .copy_live(("daily_bars", NEXT), "instrument_id, day", start, bind)
            .await?;
        let bind = |q: Query<'static>, (id, day, kind)| q.bind(id).bind(day).bind(kind);
        let start = (i64::MIN, i32::MIN, String::new());
        staging
            .copy_live(
                ("corporate_actions", ACTIONS_NEXT),
                "instrument_id, day, kind",
                start,
                bind,
            )
            .await?;
        Ok(Some(staging))
    }

    /// `CREATE TABLE {next}` as the `live` table is defined, referring to the id table instead
    /// of `instruments`.
    async fn next_definition(&self, live: &str, next: &str) -> Result<Option<String>, StoreError> {
        let (others,): (i64,) =
            query("SELECT COUNT(*) FROM sqlite_schema WHERE tbl_name = $1 AND type != 'table' AND sql IS NOT NULL")
                .bind(live)
                .fetch_one(&self.conn)
                .await?;
        let (definition,): (String,) = query("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = $1")
            .bind(live)
            .fetch_one(&self.conn)
            .await?;
        let live = definition;
        let Some(open) = live.find('(') else {
            return Ok(None);
        };
        let body = &live[open..];
        let references = ["REFERENCES instruments ", "REFERENCES \"instruments\" "];
        let found: Vec<&str> = references.iter().copied().filter(|r| body.contains(r)).collect();
        if others != 0 || body.matches("REFERENCES").count() != 1 || found.len() != 1 {
            tracing::debug!(
                definition = live,
                "not the table expected: importing in one transaction"
            );
            return Ok(None);
        }
        let body = body.replacen(found[0], &format!("REFERENCES {IDS} "), 1);
        Ok(Some(format!("CREATE TABLE {next} {body}")))
    }

    /// Begins a transaction that writes at once (waiting for the lock, not failing on it):
    /// (when it got the lock, transaction).
    async fn begin(&self) -> Result<(Instant, Tx), StoreError> {
        let tx = self.conn.begin_write().await?;
        Ok((Instant::now(), tx))
    }

    async fn pace(&mut self, started: Instant) -> Result<(), StoreError> {
        self.pacer.pace(&self.conn, started.elapsed()).await
    }

    async fn drop_tables(&mut self, tables: &[&str]) -> Result<(), StoreError> {
        for table in tables {
            let (exists,): (i64,) = query("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = $1")
                .bind(*table)
                .fetch_one(&self.conn)
                .await?;
            if exists > 0 {
                let (started, mut tx) = self.begin().await?;
                query(format!("DROP TABLE {table}")).execute(&mut tx).await?;
                tx.commit().await?;
                self.pace(started).await?;
            }
        }
        Ok(())
    }

    /// Copies the live `table` into its `next` one in the order of its `key` (columns),
    /// [`COPY_ROWS`] a transaction, starting after `after` (which `bind` binds). Only imports
    /// write the live tables, and this one holds the import lock: they do not change meanwhile.
    async fn copy_live<K: FromRow + Clone>(
        &mut self,
        (table, next): (&str, &str),
        key: &str,
        mut after: K,
        bind: impl Fn(Query<'static>, K) -> Query<'static>,
    ) -> Result<(), StoreError> {
        let columns: Vec<&str> = key.split(", ").collect();
        let placeholders: Vec<String> = (1..=columns.len()).map(|n| format!("${n}")).collect();
        let copy = format!(
            "INSERT INTO {next} SELECT * FROM {table} WHERE ({key}) > ({}) ORDER BY {key} LIMIT {COPY_ROWS}",
            placeholders.join(", ")
        );
        let descending: Vec<String> = columns.iter().map(|c| format!("{c} DESC")).collect();
        let last = format!("SELECT {key} FROM {next} ORDER BY {} LIMIT 1", descending.join(", "));
        loop {
            let (started, mut tx) = self.begin().await?;
            let copied = bind(query(copy.clone()), after.clone()).execute(&mut tx).await?;
            if copied > 0 {
                after = query(last.clone()).fetch_one(&mut tx).await?;
            }
            tx.commit().await?;
            self.pace(started).await?;
            if copied < COPY_ROWS as u64 {
                return Ok(());
            }
        }
    }

    /// Applies `first` and the rest of the stream, then swaps; on any failure (or a stream
    /// that ends without its commit), drops what it built and changes nothing.
    pub(super) async fn run(
        mut self,
        first: Vec<Chunk>,
        messages: mpsc::Receiver<ImportMessage>,
    ) -> Result<ImportCounts, StoreError> {
        let result = match self.stage(first, messages).await {
            Ok(()) => self.finish().await,
            Err(e) => Err(e),
        };
        // After the swap, the old tables; after a failure, the next ones. The import's
        // result stands whether or not this succeeds (the next import drops them).
        if let Err(e) = self.drop_tables(&STAGING_TABLES).await {
            tracing::warn!(error = %e, "dropping an import's staging tables");
        }
        self.conn.close().await;
        result
    }

    async fn stage(
        &mut self,
        first: Vec<Chunk>,
        mut messages: mpsc::Receiver<ImportMessage>,
    ) -> Result<(), StoreError> {
        for chunk in first {
            self.chunk(chunk).await?;
        }
        loop {
            match messages.recv().await {
                None => return Err(StoreError::Aborted),
                Some(ImportMessage::Commit) => return self.write_pending().await,
                Some(ImportMessage::Chunk(chunk)) => self.chunk(chunk).await?,
            }
        }
    }

    async fn chunk(&mut self, chunk: Chunk) -> Result<(), StoreError> {
        match chunk {
            Chunk::Bars { mut bars, generated } => {
                if generated != self.pending.1 {
                    self.write_pending().await?;
                    self.pending.1 = generated;
                }
                self.pending.0.append(&mut bars);
                if self.pacer.polite() || self.pending.0.len() >= QUIET_ROWS {
                    self.write_pending().await?;
                }
                Ok(())
            }
            Chunk::Actions(actions) => self.actions(&actions).await,
            // Minutes among them: `minute_bars` is written in the last transaction.
            other => {
                self.deferred.push(other);
                Ok(())
            }
        }
    }

    /// Upserts reported or generated corporate actions into their next table, in one
    /// transaction.
    async fn actions(&mut self, actions: &[(String, CorporateAction)]) -> Result<(), StoreError> {
        let reserved = self.resolve(actions.iter().map(|(symbol, _)| symbol.as_str())).await?;
        let (started, mut tx) = self.begin().await?;
        Self::reserve(&mut tx, &reserved).await?;
        for (symbol, action) in actions {
            let changed = upsert_action(&mut tx, ACTIONS_NEXT, self.ids[symbol], action).await?;
            self.import.counts.actions += changed;
            self.actions_changed += changed;
        }
        tx.commit().await?;
        self.pace(started).await
    }

    /// Adds ids reserved for new instruments to the id table.
    async fn reserve(tx: &mut Tx, reserved: &[i64]) -> Result<(), StoreError> {
        for part in reserved.chunks(ROWS_PER_STATEMENT) {
            let mut insert = query(format!("INSERT INTO {IDS} (instrument_id) "));
            insert.push_values(part, |row, id| {
                row.bind(*id);
            });
            insert.execute(&mut *tx).await?;
        }
        Ok(())
    }

    async fn write_pending(&mut self) -> Result<(), StoreError> {
        if self.pending.0.is_empty() {
            return Ok(());
        }
        let bars = std::mem::take(&mut self.pending.0);
        self.bars(&bars, self.pending.1).await
    }

    /// Upserts bars into the next table, in one transaction.
    async fn bars(&mut self, bars: &[SymbolBar], generated: bool) -> Result<(), StoreError> {
        let reserved = self.resolve(bars.iter().map(|b| b.symbol.as_str())).await?;
        let (started, mut tx) = self.begin().await?;
        Self::reserve(&mut tx, &reserved).await?;
        for part in bars.chunks(ROWS_PER_STATEMENT) {
            let rows: Vec<(i64, _)> = part.iter().map(|b| (self.ids[&b.symbol], b.bar)).collect();
            self.import.write_bars(&mut tx, NEXT, &rows, generated).await?;
        }
        tx.commit().await?;
        self.pace(started).await
    }

    /// Gives every one of `symbols` its id: the stored instrument's, or the next free one for
    /// an instrument the swap will insert; returns the ids reserved now.
    async fn resolve<'a>(&mut self, symbols: impl Iterator<Item = &'a str>) -> Result<Vec<i64>, StoreError> {
        let mut unknown: Vec<&str> = Vec::new();
        let mut seen = HashSet::new();
        for symbol in symbols {
            if !self.ids.contains_key(symbol) && seen.insert(symbol) {
                unknown.push(symbol);
            }
        }
        for part in unknown.chunks(ROWS_PER_STATEMENT) {
            let mut select = query("SELECT symbol, instrument_id FROM instruments WHERE ");
            select.push_in("symbol", part.iter().copied());
            let found: Vec<(String, i64)> = select.fetch_all(&self.conn).await?;
            self.ids.extend(found);
        }
        let mut reserved = Vec::new();
        // In the order of first appearance, as the one-transaction import numbers them.
        for symbol in unknown {
            if !self.ids.contains_key(symbol) {
                let id = self.next_id;
                self.next_id += 1;
                self.ids.insert(symbol.to_owned(), id);
                self.new_instruments.push((id, symbol.to_owned()));
                self.import.counts.instruments += 1;
                reserved.push(id);
            }
        }
        Ok(reserved)
    }

    /// Derives the corporate actions of the instruments whose bars changed into the next table
    /// (reading the bars outside any transaction, writing in short ones), then makes everything
    /// live in one transaction.
    async fn finish(&mut self) -> Result<ImportCounts, StoreError> {
        let mut changed: Vec<i64> = self.import.bars_changed_for.iter().copied().collect();
        changed.sort_unstable();
        for part in changed.chunks(DERIVED_PER_TRANSACTION) {
            let mut wanted: Vec<(i64, HashSet<DerivedAction>)> = Vec::with_capacity(part.len());
            for &id in part {
                let derived = derived_actions(&self.conn, NEXT, id).await?;
                // Only this import writes the next table: what it holds can be read outside a
                // transaction, and an instrument whose actions stay as they are needs none.
                if stored_derived_actions(&self.conn, ACTIONS_NEXT, id).await? != derived {
                    wanted.push((id, derived));
                }
            }
            if wanted.is_empty() {
                continue;
            }
            let (started, mut tx) = self.begin().await?;
            for (id, wanted) in &wanted {
                let changed = replace_derived_actions(&mut tx, ACTIONS_NEXT, *id, wanted).await?;
                self.import.counts.actions += changed;
                self.actions_changed += changed;
            }
            tx.commit().await?;
            self.pace(started).await?;
        }
        let (bars, actions) = (self.import.counts.bars > 0, self.actions_changed > 0);
        let (started, mut tx) = self.begin().await?;
        for part in self.new_instruments.chunks(ROWS_PER_STATEMENT) {
            let mut insert = query("INSERT INTO instruments (instrument_id, symbol, name) ");
            insert.push_values(part, |row, (id, symbol)| {
                row.bind(*id).bind(symbol.as_str()).bind(symbol.as_str());
            });
            insert.execute(&mut tx).await?;
        }
        let mut import = std::mem::take(&mut self.import);
        import.ids = std::mem::take(&mut self.ids);
        for chunk in std::mem::take(&mut self.deferred) {
            import.apply(&mut tx, chunk).await?;
        }
        if bars || actions {
            Self::swap(&mut tx, bars, actions).await?;
        }
        tx.commit().await?;
        let held = started.elapsed();
        tracing::debug!(held_ms = held.as_secs_f64() * 1e3, "import: the last transaction");
        Ok(import.counts)
    }

    /// Makes the next tables live (`bars`: `daily_bars`, `actions`: `corporate_actions`),
    /// referring to `instruments`, inside `tx`.
    ///
    /// Renaming a table rewrites the references other tables make to it, unless
    /// `legacy_alter_table` is on (with foreign keys off, as on this connection). So: the
    /// instruments step aside without their referrers noticing; the id table takes their name,
    /// which rewrites the next tables' references to `instruments`; the id table is dropped and
    /// the instruments come back, again unnoticed. Then the live and next tables trade places
    /// (no table refers to them).
    async fn swap(tx: &mut Tx, bars: bool, actions: bool) -> Result<(), StoreError> {
        let mut statements = vec![
            "PRAGMA legacy_alter_table = ON".to_owned(),
            format!("ALTER TABLE instruments RENAME TO {PARKED}"),
            "PRAGMA legacy_alter_table = OFF".to_owned(),
            format!("ALTER TABLE {IDS} RENAME TO instruments"),
            "PRAGMA legacy_alter_table = ON".to_owned(),
            "DROP TABLE instruments".to_owned(),
            format!("ALTER TABLE {PARKED} RENAME TO instruments"),
            "PRAGMA legacy_alter_table = OFF".to_owned(),
        ];
        if bars {
            statements.push(format!("ALTER TABLE daily_bars RENAME TO {OLD}"));
            statements.push(format!("ALTER TABLE {NEXT} RENAME TO daily_bars"));
        }
        if actions {
            statements.push(format!("ALTER TABLE corporate_actions RENAME TO {ACTIONS_OLD}"));
            statements.push(format!("ALTER TABLE {ACTIONS_NEXT} RENAME TO corporate_actions"));
        }
        for statement in statements {
            query(statement).execute(&mut *tx).await?;
        }
        Ok(())
    }
}
