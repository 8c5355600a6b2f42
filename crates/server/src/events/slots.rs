//! The per-app cap on open streams: the trade events' (`--events-max-streams`) and the quotes
//! gateway's. Without Redis each node counts its own streams; with Redis every node counts in one sorted set per app
//! ([`RedisStreams`]), each open stream refreshing its entry every `REFRESH`, so that the
//! streams of a node that died stop counting after `TTL`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use signet_model::ids::AppKey;
use signet_store::StoreError;
use signet_store::redis::RedisStreams;

/// How long a stream stays counted in Redis without a refresh.
const TTL: Duration = Duration::from_secs(15);
/// How often an open stream refreshes its entry: a few times a [`TTL`], so that a slow Redis
/// call or two do not let it expire.
const REFRESH: Duration = Duration::from_secs(5);

/// The open streams of every app: on this node, or on every node through Redis.
pub struct StreamSlots {
    local: Mutex<HashMap<AppKey, usize>>,
    shared: Option<Arc<RedisStreams>>,
}

/// One open stream of an app, counted until dropped.
pub struct StreamSlot {
    app_key: AppKey,
    held: Held,
}

enum Held {
    Local(Arc<StreamSlots>),
    /// Its id in Redis, and the task that refreshes it.
    Shared {
        streams: Arc<RedisStreams>,
        id: String,
        refresher: tokio::task::JoinHandle<()>,
    },
}

impl StreamSlots {
    /// Counted in `shared` when Redis is configured, on this node otherwise.
    pub fn new(shared: Option<RedisStreams>) -> Self {
        StreamSlots {
            local: Mutex::default(),
            shared: shared.map(Arc::new),
        }
    }

    /// A slot for one more stream of `app_key`, or `None` when it has `max` open already (on
    /// every node, with Redis). An error when Redis cannot be used.
    pub async fn open(self: &Arc<Self>, app_key: &AppKey, max: usize) -> Result<Option<StreamSlot>, StoreError> {
        let Some(streams) = &self.shared else {
            let mut local = self.local.lock();
            let open = local.entry(app_key.clone()).or_insert(0);
            if *open >= max {
                return Ok(None);
            }
            *open += 1;
            return Ok(Some(StreamSlot {
                app_key: app_key.clone(),
                held: Held::Local(self.clone()),
            }));
        };
        let id = crate::secrets::random_hex::<12>().map_err(|e| StoreError::Other(e.to_string()))?;
        if !streams.open(app_key, &id, max, TTL).await? {
            return Ok(None);
        }
        let refresher = {
            let (streams, app_key, id) = (streams.clone(), app_key.clone(), id.clone());
            tokio::spawn(async move {
                let mut every = tokio::time::interval_at(tokio::time::Instant::now() + REFRESH, REFRESH);
                loop {
                    every.tick().await;
                    if let Err(e) = streams.refresh(&app_key, &id, TTL).await {
                        tracing::warn!(error = %e, "an open stream could not refresh its count in Redis");
                    }
                }
            })
        };
        Ok(Some(StreamSlot {
            app_key: app_key.clone(),
            held: Held::Shared {
                streams: streams.clone(),
                id,
                refresher,
            },
        }))
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        match &self.held {
            Held::Local(slots) => {
                let mut local = slots.local.lock();
                if let Some(n) = local.get_mut(&self.app_key) {
                    *n -= 1;
                    if *n == 0 {
                        local.remove(&self.app_key);
                    }
                }
            }
            Held::Shared { streams, id, refresher } => {
                refresher.abort();
                // Without a runtime (the server is gone), the entry expires after its TTL.
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    let (streams, app_key, id) = (streams.clone(), self.app_key.clone(), id.clone());
                    runtime.spawn(async move {
                        if let Err(e) = streams.close(&app_key, &id).await {
                            tracing::warn!(error = %e, "a closed stream stays counted in Redis until it expires");
                        }
                    });
                }
            }
        }
    }
}
