//! App keys to secrets, read through a short-lived cache.
//!
//! Every signed request needs its app's secret, which lives sealed in the database. The cache
//! keeps opened secrets of active apps for [`crate::ServerConfig::app_cache_ttl`], so the hot
//! path neither reads the database nor decrypts; a revocation made by another process (the admin
//! command) applies within that time. Unknown keys are never cached, so the map holds at most
//! one entry per real app.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use secrecy::SecretString;
use signet_store::{AppStatus, Store};

use crate::error::ApiError;
use crate::secrets::MasterKey;

/// An app allowed to call: what verification and handlers need.
pub struct ActiveApp {
    pub app_key: Arc<str>,
    pub user_id: Arc<str>,
    pub admin: bool,
    pub secret: SecretString,
}

pub struct AppDirectory {
    store: Arc<dyn Store>,
    key: Arc<MasterKey>,
    ttl: Duration,
    cache: RwLock<HashMap<String, (Instant, Arc<ActiveApp>)>>,
}

/// Longer keys are refused without a database read.
const MAX_APP_KEY_LEN: usize = 128;

impl AppDirectory {
    pub fn new(store: Arc<dyn Store>, key: Arc<MasterKey>, ttl: Duration) -> Self {
        AppDirectory {
            store,
            key,
            ttl,
            cache: RwLock::new(HashMap::new()),
        }
    }

    /// The active app with this key, or `None` when it is unknown or revoked.
    pub async fn active(&self, app_key: &str) -> Result<Option<Arc<ActiveApp>>, ApiError> {
        if app_key.len() > MAX_APP_KEY_LEN {
            return Ok(None);
        }
        if let Some((fetched, app)) = self.cache.read().expect("app cache lock").get(app_key)
            && fetched.elapsed() < self.ttl
        {
            return Ok(Some(app.clone()));
        }
        let record = self.store.app(app_key).await?;
        let mut cache = self.cache.write().expect("app cache lock");
        match record {
            Some(r) if r.status == AppStatus::Active => {
                let secret = self.key.open(&r.app_key, &r.sealed_secret)?;
                let app = Arc::new(ActiveApp {
                    app_key: r.app_key.into(),
                    user_id: r.user_id.into(),
                    admin: r.admin,
                    secret,
                });
                cache.insert(app_key.to_owned(), (Instant::now(), app.clone()));
                Ok(Some(app))
            }
            _ => {
                cache.remove(app_key);
                Ok(None)
            }
        }
    }
}
