//! App keys to secrets, read through a short-lived cache.
//!
//! Every signed request needs its app's secret, which lives sealed in the database. The cache
//! keeps opened secrets of active apps for [`crate::ServerConfig::app_cache_ttl`], so the hot
//! path neither reads the database nor decrypts; a revocation made by another process (the admin
//! command) applies within that time. Unknown keys are never cached, so the map holds at most
//! one entry per real app.
//!
//! What outlives a request (a trade-events stream, an MQTT session) holds its app
//! ([`AppDirectory::hold`]); [`AppDirectory::end_revoked`] looks up the held apps every
//! [`REVOCATION_CHECK`] and tells the holders of a revoked one, so that a revocation made on any
//! node (the database is the source of truth) ends them on every node within a few seconds.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard, RwLock};
use secrecy::SecretString;
use signet_model::ids::AppKey;
use signet_store::{AppStatus, Store};
use tokio::sync::watch;

use crate::error::ApiError;
use crate::secrets::MasterKey;

/// An app allowed to call: what verification and handlers need.
pub struct ActiveApp {
    pub app_key: AppKey,
    pub user_id: Arc<str>,
    pub admin: bool,
    pub secret: SecretString,
}

pub struct AppDirectory {
    store: Arc<dyn Store>,
    key: Arc<MasterKey>,
    ttl: Duration,
    cache: RwLock<HashMap<String, (Instant, Arc<ActiveApp>)>>,
    /// The apps with streams or sessions open on this node.
    held: Mutex<HashMap<AppKey, Held>>,
}

/// What this node holds of one app.
struct Held {
    /// Its streams and sessions open.
    holders: usize,
    /// Turns `true` when the app is found revoked.
    revoked: watch::Sender<bool>,
}

/// How often the apps holding streams or sessions are looked up again: with the cache's second,
/// a revocation ends them within about two seconds.
pub const REVOCATION_CHECK: Duration = Duration::from_secs(1);

/// A stream or session of an app, held until dropped: [`AppHold::revoked`] completes when the
/// app is revoked.
pub struct AppHold {
    directory: Arc<AppDirectory>,
    app_key: AppKey,
    revoked: watch::Receiver<bool>,
}

impl AppHold {
    /// Completes once the app is found revoked (never, if it is not).
    pub async fn revoked(&mut self) {
        if self.revoked.wait_for(|revoked| *revoked).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for AppHold {
    fn drop(&mut self) {
        let mut held = self.directory.held();
        if let Some(app) = held.get_mut(&self.app_key) {
            app.holders -= 1;
            if app.holders == 0 {
                held.remove(&self.app_key);
            }
        }
    }
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
            held: Mutex::default(),
        }
    }

    fn held(&self) -> MutexGuard<'_, HashMap<AppKey, Held>> {
        self.held.lock()
    }

    /// Holds `app_key` for a stream or session that lasts: told when the app is revoked.
    pub fn hold(self: &Arc<Self>, app_key: &AppKey) -> AppHold {
        let mut held = self.held();
        let app = held.entry(app_key.clone()).or_insert_with(|| Held {
            holders: 0,
            revoked: watch::Sender::new(false),
        });
        app.holders += 1;
        AppHold {
            directory: self.clone(),
            app_key: app_key.clone(),
            revoked: app.revoked.subscribe(),
        }
    }

    /// Looks up every held app each [`REVOCATION_CHECK`] (through the cache, so at most once
    /// per app and cache period), and tells the holders of those revoked. A lookup that fails
    /// (the database does not answer) ends nothing. Runs until dropped.
    pub async fn end_revoked(self: Arc<Self>) {
        let mut every = tokio::time::interval(REVOCATION_CHECK);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            let apps: Vec<AppKey> = self.held().keys().cloned().collect();
            for app_key in apps {
                match self.active(&app_key).await {
                    Ok(Some(_)) => {}
                    Ok(None) => {
                        let told = self.held().get(&app_key).is_some_and(|app| {
                            app.revoked
                                .send_if_modified(|revoked| !std::mem::replace(revoked, true))
                        });
                        if told {
                            tracing::info!(app_key = %app_key, "app revoked: its streams and sessions on this node end");
                        }
                    }
                    Err(e) => {
                        tracing::warn!(app_key = %app_key, error = %e, "could not check whether an app holding streams was revoked");
                    }
                }
            }
        }
    }

    /// Forgets every app read (after a checkpoint's restore put other apps in place).
    pub fn forget_all(&self) {
        self.cache.write().clear();
    }

    /// The active app with this key, or `None` when it is unknown or revoked.
    pub async fn active(&self, app_key: &str) -> Result<Option<Arc<ActiveApp>>, ApiError> {
        if app_key.len() > MAX_APP_KEY_LEN {
            return Ok(None);
        }
        if let Some((fetched, app)) = self.cache.read().get(app_key)
            && fetched.elapsed() < self.ttl
        {
            return Ok(Some(app.clone()));
        }
        let record = self.store.app(&AppKey::from(app_key)).await?;
        let mut cache = self.cache.write();
        match record {
            Some(r) if r.status == AppStatus::Active => {
                let secret = self.key.open(&r.app_key, &r.sealed_secret)?;
                let app = Arc::new(ActiveApp {
                    app_key: r.app_key,
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
