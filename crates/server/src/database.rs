//! Opening the database together with the key that seals its secrets.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use secrecy::SecretString;
use signet_store::sql::KEY_FINGERPRINT;
use signet_store::{Durability, SqlStore};
use signet_store::{Store, StoreError};

use crate::secrets::{KeyError, MasterKey};

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("cannot open the database: {0}")]
    Store(#[from] StoreError),
    #[error(
        "the master key (fingerprint {given}) is not the one that sealed this database's secrets (fingerprint {stored}): set SIGNET_MASTER_KEY or restore the key file {key_file}"
    )]
    KeyMismatch {
        given: String,
        stored: String,
        key_file: String,
    },
    #[error(
        "a PostgreSQL database needs its master key from SIGNET_MASTER_KEY or --master-key-file, the same on every node"
    )]
    NoKey,
    #[error("cannot lock {path} for the database's creation: {source}")]
    Lock { path: String, source: std::io::Error },
    #[error(
        "another signet serve is serving {0}: one server per SQLite file (several nodes share a PostgreSQL database, --database-url)"
    )]
    Served(String),
}

/// Which database, and how to open it.
#[derive(Debug, Clone)]
pub enum Location {
    /// The embedded default: one file, its key file beside it unless another is named.
    Sqlite {
        path: PathBuf,
        durability: Durability,
        /// The checkpoint files' directory; `DB.checkpoints` beside `DB.db` when `None`.
        checkpoints: Option<PathBuf>,
    },
    /// `postgres://...`, shared by every node.
    Postgres { url: String },
}

impl std::fmt::Display for Location {
    /// The path, or the URL with its passwords masked ([`mask_url`]): fit for logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Sqlite { path, .. } => write!(f, "{}", path.display()),
            Location::Postgres { url } => f.write_str(&mask_url(url)),
        }
    }
}

/// A database or Redis URL with `***` for its password: the one of its user info
/// (`postgres://user:PASSWORD@host/db`) and the value of every query parameter whose name holds
/// `pass` (PostgreSQL's `?password=`, Redis's `unix://PATH?pass=`). A value that is not a URL may
/// be a secret itself: it is all `***`.
pub fn mask_url(text: &str) -> String {
    let Ok(mut url) = url::Url::parse(text) else {
        return "***".into();
    };
    if url.password().is_some() {
        // Fails only for URLs that cannot have a password, which this one has.
        let _ = url.set_password(Some("***"));
    }
    let secret = |name: &str| name.to_ascii_lowercase().contains("pass");
    if url.query_pairs().any(|(name, _)| secret(&name)) {
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(name, value)| {
                let value = if secret(&name) {
                    "***".into()
                } else {
                    value.into_owned()
                };
                (name.into_owned(), value)
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
    url.to_string()
}

/// An open database and its master key.
#[derive(Debug, Clone)]
pub struct Database {
    pub store: Arc<dyn Store>,
    pub key: Arc<MasterKey>,
    /// The SQLite file; `None` on PostgreSQL.
    sqlite_file: Option<PathBuf>,
}

impl Database {
    /// Opens (creating if needed) the database at `location`. The master key is `master_key`
    /// when given (`SIGNET_MASTER_KEY`), else the one in `key_file` (created if missing), which
    /// for SQLite defaults to the file beside the database.
    pub async fn open(
        location: &Location,
        master_key: Option<&SecretString>,
        key_file: Option<&Path>,
    ) -> Result<Self, OpenError> {
        let key_file = match (location, key_file) {
            (_, Some(file)) => file.to_owned(),
            (Location::Sqlite { path, .. }, None) => MasterKey::default_file(path),
            (Location::Postgres { .. }, None) if master_key.is_none() => return Err(OpenError::NoKey),
            (Location::Postgres { .. }, None) => PathBuf::new(),
        };
        let _creating = match location {
            Location::Sqlite { path, .. } => Some(lock_creation(path).await?),
            Location::Postgres { .. } => None,
        };
        let key = MasterKey::load(master_key, &key_file)?;
        let store: Arc<dyn Store> = match location {
            Location::Sqlite {
                path,
                durability,
                checkpoints,
            } => {
                let store = SqlStore::sqlite(path, *durability)
                    .await?
                    .with_checkpoint_key(key.checkpoint_key());
                Arc::new(match checkpoints {
                    Some(dir) => store.with_checkpoints(dir.clone()),
                    None => store,
                })
            }
            Location::Postgres { url } => {
                Arc::new(SqlStore::postgres(url).await?.with_checkpoint_key(key.checkpoint_key()))
            }
        };
        let stored = store.init_meta(KEY_FINGERPRINT, key.fingerprint()).await?;
        if stored != key.fingerprint() {
            return Err(OpenError::KeyMismatch {
                given: key.fingerprint().to_owned(),
                stored,
                key_file: key_file.display().to_string(),
            });
        }
        Ok(Database {
            store,
            key: Arc::new(key),
            sqlite_file: match location {
                Location::Sqlite { path, .. } => Some(path.clone()),
                Location::Postgres { .. } => None,
            },
        })
    }

    /// Claims a SQLite file for one server, until the answer is dropped: a server keeps what
    /// the file's open orders claim in its memory and takes each account's turns there
    /// (`signet_core::turns`), so a second server on the same file would accept what the first has
    /// already promised. Several nodes share PostgreSQL instead. The admin commands open the
    /// file beside the server and are not concerned.
    pub fn claim_for_serving(&self) -> Result<Option<std::fs::File>, OpenError> {
        let Some(db) = &self.sqlite_file else {
            return Ok(None);
        };
        let path = db.with_added_extension("serving");
        let mut options = std::fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&path).map_err(|source| OpenError::Lock {
            path: path.display().to_string(),
            source,
        })?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) => Err(OpenError::Served(db.display().to_string())),
            Err(std::fs::TryLockError::Error(source)) => Err(OpenError::Lock {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    /// Opens the SQLite database at `path`, its key beside it unless `master_key` is given.
    pub async fn open_sqlite(
        path: &Path,
        durability: Durability,
        master_key: Option<&SecretString>,
    ) -> Result<Self, OpenError> {
        let location = Location::Sqlite {
            path: path.to_owned(),
            durability,
            checkpoints: None,
        };
        Self::open(&location, master_key, None).await
    }
}

/// Takes the lock on `<db>.lock` that processes opening one SQLite file hold in turn while they
/// create or read its key file, create and migrate it and check the key's fingerprint: SQLite's
/// migrations take no lock of their own, and two processes starting at once each ran them ("table
/// already exists"). PostgreSQL migrates under its own advisory lock. It is released when the
/// file is dropped, once the database is open, so that other processes can open it while this
/// one runs. The lock file stays, empty: removing it could let two processes lock two files.
async fn lock_creation(db: &Path) -> Result<std::fs::File, OpenError> {
    let path = db.with_added_extension("lock");
    let error = |source| OpenError::Lock {
        path: path.display().to_string(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&path).map_err(error)?;
    // flock(2) blocks until the process holding it is done.
    tokio::task::spawn_blocking(move || file.lock().map(|()| file))
        .await
        .expect("locking does not panic")
        .map_err(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_shows_no_password() {
        let shown = |url: &str| Location::Postgres { url: url.into() }.to_string();
        assert_eq!(
            shown("postgres://signet:hunter2@db:5432/signet"),
            "postgres://signet:***@db:5432/signet"
        );
        assert_eq!(shown("postgres://signet@db/signet"), "postgres://signet@db/signet");
        assert_eq!(shown("postgres://db/signet"), "postgres://db/signet");
        assert_eq!(
            shown("postgres://signet@db/signet?sslmode=require&password=hunter2"),
            "postgres://signet@db/signet?sslmode=require&password=***"
        );
    }

    #[test]
    fn every_password_of_a_url_is_masked() {
        for (url, masked) in [
            ("postgres://u:p@ss@host/db", "postgres://u:***@host/db"),
            (
                "postgres://u@host/db?PassWord=hunter2",
                "postgres://u@host/db?PassWord=***",
            ),
            (
                "postgres://u:hunter2@host/db?password=hunter3&application_name=a",
                "postgres://u:***@host/db?password=***&application_name=a",
            ),
            ("redis://:hunter2@cache:6379/2", "redis://:***@cache:6379/2"),
            ("redis://cache:6379", "redis://cache:6379"),
            (
                "unix:///run/redis.sock?db=2&pass=hunter2",
                "unix:///run/redis.sock?db=2&pass=***",
            ),
            ("hunter2", "***"),
        ] {
            assert_eq!(mask_url(url), masked, "{url}");
        }
    }
}
