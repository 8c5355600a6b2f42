//! Binding, serving, background upkeep and graceful shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use secrecy::ExposeSecret;
use signet_domain::simulator::clock::ClockMode;
use signet_store::memory::MemoryNonces;
use signet_store::redis::{Redis, RedisArrivals, RedisNonces};
use signet_store::{NonceStore, StoreError};
use tokio::net::TcpListener;

use crate::app::{AppState, router};
use crate::auth::NONCE_MARGIN_SECS;
use crate::auth::apps::AppDirectory;
use crate::config::{ConfigError, ServerConfig};
use crate::database::Database;
use crate::engine::book::Book;
use crate::engine::{Engine, run_ticker};
use crate::metrics::Metrics;
use crate::ratelimit::Limiter;
use crate::reservations::Reservations;
use crate::simulator::Simulator;

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("cannot start the market simulator: {0}")]
    Market(#[from] StoreError),
    #[error("cannot use Redis: {0}")]
    Redis(String),
}

/// A server bound to its address, ready to run.
pub struct Server {
    listener: TcpListener,
    /// `--metrics-listen`: the metrics alone, apart from the interface.
    metrics_listener: Option<TcpListener>,
    /// `--mqtt-listen`: the quotes feed.
    mqtt_listener: Option<TcpListener>,
    state: AppState,
}

impl Server {
    pub async fn bind(config: ServerConfig, database: &Database) -> Result<Self, StartupError> {
        config.validate()?;
        let listener = TcpListener::bind(config.listen)
            .await
            .map_err(|source| StartupError::Bind {
                addr: config.listen,
                source,
            })?;
        let metrics_listener = match config.metrics_listen {
            Some(addr) => Some(
                TcpListener::bind(addr)
                    .await
                    .map_err(|source| StartupError::Bind { addr, source })?,
            ),
            None => None,
        };
        let mqtt_listener = match config.mqtt_listen {
            Some(addr) => Some(
                TcpListener::bind(addr)
                    .await
                    .map_err(|source| StartupError::Bind { addr, source })?,
            ),
            None => None,
        };
        let store = database.store.clone();
        let shared = store.shared();
        let redis = match &config.redis_url {
            Some(url) => Some(
                Redis::open(url.expose_secret(), &config.redis_key_prefix)
                    .map_err(|e| StartupError::Redis(e.to_string()))?,
            ),
            None => None,
        };
        let retention = config.timestamp_window + Duration::from_secs(NONCE_MARGIN_SECS as u64);
        let nonces: Arc<dyn NonceStore> = match (&redis, &config.redis_url) {
            (Some(redis), Some(url)) => {
                let nonces = RedisNonces::new(redis.clone(), retention);
                mark_start(&nonces, url.expose_secret()).await;
                Arc::new(nonces)
            }
            _ if config.memory_nonces => Arc::new(MemoryNonces::start(retention).await),
            _ => store.clone(),
        };
        let limiter = config.rate_limits.clone().map(|limits| {
            Arc::new(match &redis {
                Some(redis) => Limiter::shared(limits, RedisArrivals::new(redis.clone())),
                None => Limiter::new(limits),
            })
        });
        let market = Simulator::start(store.clone(), config.market).await?;
        let reservations = Arc::new(match shared {
            true => Reservations::shared(),
            false => Reservations::default(),
        });
        let book = Arc::new(match shared {
            true => Book::shared(),
            false => Book::default(),
        });
        let metrics: Arc<Metrics> = Arc::default();
        let events = Arc::new(crate::events::hub::EventHub::new(config.events.buffer));
        let engine = {
            let metrics = metrics.clone();
            Engine::new(
                events.clone(),
                store.clone(),
                market.clone(),
                book.clone(),
                reservations.clone(),
                config.commission,
                move || metrics.fill(),
            )
        };
        let streams = Arc::new(crate::streaming::Streams::new(
            config.streaming,
            metrics.mqtt_dropped.clone(),
        ));
        let state = AppState {
            apps: Arc::new(AppDirectory::new(
                store.clone(),
                database.key.clone(),
                config.app_cache_ttl,
            )),
            nonces,
            store,
            market,
            engine: Arc::new(engine),
            reservations,
            book,
            limiter,
            metrics,
            events,
            streams,
            config: Arc::new(config),
        };
        Ok(Server {
            listener,
            metrics_listener,
            mqtt_listener,
            state,
        })
    }

    /// The address actually bound (the port is chosen by the system when asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// Where `--metrics-listen` serves, when it is set.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_listener
            .as_ref()
            .map(|l| l.local_addr().expect("a bound listener has an address"))
    }

    /// Where `--mqtt-listen` serves the quotes feed, when it is set.
    pub fn mqtt_addr(&self) -> Option<SocketAddr> {
        self.mqtt_listener
            .as_ref()
            .map(|l| l.local_addr().expect("a bound listener has an address"))
    }

    /// Serves until `shutdown` completes, then finishes the requests in flight.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
        let purge = tokio::spawn(purge_nonces(self.state.clone()));
        let metrics = self.metrics_listener.map(|listener| {
            let app = crate::app::metrics_router(self.state.clone());
            tokio::spawn(async move { axum::serve(listener, app).await })
        });
        let feed = self.mqtt_listener.map(|listener| {
            let state = &self.state;
            let feed = crate::streaming::feed::run(state.market.clone(), state.streams.clone(), state.engine.ticks());
            (
                tokio::spawn(crate::streaming::mqtt::serve(listener, state.clone())),
                tokio::spawn(feed),
            )
        });
        let (stop_ticks, ticks_stopped) = tokio::sync::oneshot::channel();
        let ticker = (self.state.market.clock_mode() != ClockMode::Manual)
            .then(|| tokio::spawn(run_ticker(self.state.engine.clone(), ticks_stopped)));
        let limits = self.state.config.connections;
        let streams = self.state.streams.clone();
        let result = crate::serve::serve(self.listener, router(self.state), limits, shutdown).await;
        purge.abort();
        if let Some(metrics) = metrics {
            metrics.abort();
        }
        if let Some((accept, feed)) = feed {
            accept.abort();
            feed.abort();
        }
        // Every MQTT connection is closed (its session forgotten).
        streams.close_all();
        // The tick under way finishes: its fills are not cut off halfway through the book.
        let _ = stop_ticks.send(());
        if let Some(ticker) = ticker {
            let _ = ticker.await;
        }
        result
    }
}

/// Marks an empty nonce store as started, and says where Redis is (never with its password). A
/// Redis that cannot be used yet is no reason not to start: signed requests get 503 until it can.
async fn mark_start(nonces: &RedisNonces, url: &str) {
    let address = signet_store::redis::describe(url);
    match nonces.mark_start().await {
        Ok(wait) => {
            tokio::time::sleep(wait).await;
            tracing::info!(redis = %address, "nonces and rate limits in Redis");
        }
        Err(e) => tracing::warn!(
            redis = %address,
            error = %e,
            "Redis cannot be used yet: signed requests are refused (503) until it can"
        ),
    }
}

/// Deletes expired nonces now and then, and counts those left for the metrics; a failure is
/// logged and tried again next time.
async fn purge_nonces(state: AppState) {
    let nonces = &state.nonces;
    let mut ticker = tokio::time::interval(state.config.nonce_purge_interval);
    loop {
        ticker.tick().await;
        let now_ms = signet_domain::simulator::clock::wall_clock_ms();
        match nonces.purge_expired(now_ms).await {
            Ok(0) => {}
            Ok(n) => tracing::debug!(purged = n, "expired nonces deleted"),
            Err(e) => tracing::warn!(error = %e, "purging expired nonces failed"),
        }
        match nonces.count().await {
            Ok(n) => state.metrics.set_nonces_stored(n),
            Err(e) => tracing::warn!(error = %e, "counting the nonces failed"),
        }
    }
}
