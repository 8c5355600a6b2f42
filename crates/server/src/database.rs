//! Opening the database together with the key that seals its secrets.

use std::path::Path;
use std::sync::Arc;

use secrecy::SecretString;

use crate::secrets::{KeyError, MasterKey};
use crate::store::sqlite::{Durability, SqliteStore};
use crate::store::{MetaStore, StoreError};

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
}

/// An open database and its master key.
#[derive(Debug, Clone)]
pub struct Database {
    pub store: Arc<SqliteStore>,
    pub key: Arc<MasterKey>,
}

const KEY_FINGERPRINT: &str = "master_key_fingerprint";

impl Database {
    /// Opens (creating if needed) the SQLite database at `path`. The master key is `master_key`
    /// when given (`SIGNET_MASTER_KEY`), else the key file beside the database.
    pub async fn open_sqlite(
        path: &Path,
        durability: Durability,
        master_key: Option<&SecretString>,
    ) -> Result<Self, OpenError> {
        let key_file = MasterKey::default_file(path);
        let key = MasterKey::load(master_key, &key_file)?;
        let store = SqliteStore::open(path, durability).await?;
        let stored = store.init_meta(KEY_FINGERPRINT, key.fingerprint()).await?;
        if stored != key.fingerprint() {
            return Err(OpenError::KeyMismatch {
                given: key.fingerprint().to_owned(),
                stored,
                key_file: key_file.display().to_string(),
            });
        }
        Ok(Database {
            store: Arc::new(store),
            key: Arc::new(key),
        })
    }
}
