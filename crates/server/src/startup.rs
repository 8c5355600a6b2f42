//! Binding, serving, background upkeep and graceful shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use secrecy::ExposeSecret;
use signet_store::memory::MemoryNonces;
use signet_store::redis::{Redis, RedisArrivals, RedisNonces, RedisStreams};
use signet_store::{NonceStore, StoreError};
use tokio::net::TcpListener;

use crate::auth::NONCE_MARGIN_SECS;
use crate::auth::apps::AppDirectory;
use crate::config::{ConfigError, ServerConfig};
use crate::database::Database;
use crate::metrics::Metrics;
use crate::router::router;
use crate::state::AppState;
use crate::streaming::mqtt::Carrier;
use crate::tls::Certificates;
use signet_core::checkpoints::{Checkpoints, Gate};
use signet_core::claims::ClaimsCache;
use signet_core::engine::book::Book;
use signet_core::engine::{Engine, run_ticker};
use signet_core::ratelimit::Limiter;
use signet_core::simulator::Simulator;

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
    #[error(transparent)]
    Database(#[from] crate::database::OpenError),
    #[error("the scenario rules (--scenarios): {0}")]
    Scenarios(#[from] signet_core::scenarios::LoadError),
    #[error(transparent)]
    Tls(#[from] crate::tls::TlsError),
}

/// A server bound to its address, ready to run.
pub struct Server {
    listener: TcpListener,
    /// `--metrics-listen`: the metrics alone, apart from the interface.
    metrics_listener: Option<TcpListener>,
    /// `--events-listen`: the trade-events subscription, also apart from the interface.
    events_listener: Option<TcpListener>,
    /// `--mqtt-listen`: the quotes feed.
    mqtt_listener: Option<TcpListener>,
    /// `--mqtt-ws-listen`: the same feed over WebSocket.
    mqtt_ws_listener: Option<TcpListener>,
    state: AppState,
    /// The certificate and key of `--tls-cert`/`--tls-key` (or `--tls self-signed`), on the
    /// HTTP, events and MQTT listeners (bare and WebSocket).
    tls: Option<Arc<Certificates>>,
    /// Held while the server runs on a SQLite file ([`Database::claim_for_serving`]).
    _serving: Option<std::fs::File>,
}

impl Server {
    pub async fn bind(config: ServerConfig, database: &Database) -> Result<Self, StartupError> {
        config.validate()?;
        config.validate_for_database(database.store.shared())?;
        let serving = database.claim_for_serving()?;
        let tls = config.tls.clone().map(Certificates::load).transpose()?;
        let listener = TcpListener::bind(config.listen)
            .await
            .map_err(|source| StartupError::Bind {
                addr: config.listen,
                source,
            })?;
        let metrics_listener = bind_extra(config.metrics_listen).await?;
        let events_listener = bind_extra(config.events.listen).await?;
        let mqtt_listener = bind_extra(config.mqtt_listen).await?;
        let mqtt_ws_listener = bind_extra(config.mqtt_ws_listen).await?;
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
        let simulator = Simulator::start(store.clone(), config.market).await?;
        let claims = Arc::new(match shared {
            true => ClaimsCache::shared(),
            false => ClaimsCache::default(),
        });
        let book = Arc::new(match shared {
            true => Book::shared(),
            false => Book::default(),
        });
        let metrics: Arc<Metrics> = Arc::default();
        let events = Arc::new(signet_core::hub::EventHub::new(config.events.buffer));
        let event_slots = Arc::new(crate::events::slots::StreamSlots::new(
            redis.clone().map(|r| RedisStreams::new(r, "streams")),
        ));
        let gateway_slots = Arc::new(crate::events::slots::StreamSlots::new(
            redis.clone().map(|r| RedisStreams::new(r, "gateway-streams")),
        ));
        let engine = {
            let metrics = metrics.clone();
            Engine::new(
                events.clone(),
                store.clone(),
                simulator.clone(),
                book.clone(),
                claims.clone(),
                config.commission,
                move || metrics.fill(),
            )
        };
        let scenarios = signet_core::scenarios::Scenarios::start(store.clone(), simulator.clone()).await?;
        if let Some(text) = &config.scenarios {
            let loaded = scenarios.load(text).await?;
            tracing::info!(rules = loaded.rules.len(), "scenario rules loaded (--scenarios)");
        }
        let streams = Arc::new(crate::streaming::Streams::new(
            config.streaming,
            metrics.mqtt_dropped.clone(),
        ));
        let engine = Arc::new(engine);
        let apps = Arc::new(AppDirectory::new(
            store.clone(),
            database.key.clone(),
            config.app_cache_ttl,
        ));
        let gate = Gate::default();
        let checkpoints = Checkpoints::start(
            store.clone(),
            simulator.clone(),
            engine.clone(),
            claims.clone(),
            events.clone(),
            scenarios.clone(),
            gate.clone(),
            vec![
                Box::new({
                    let apps = apps.clone();
                    move || apps.forget_all()
                }),
                // Its clients connect again and subscribe to the restored market.
                Box::new({
                    let streams = streams.clone();
                    move || streams.close_all()
                }),
            ],
        )
        .await?;
        let options = signet_core::options::Options::start(simulator.clone(), store.clone());
        let orders = signet_core::orders::Orders {
            store: store.clone(),
            simulator: simulator.clone(),
            options: options.clone(),
            claims,
            turns: Arc::default(),
            book,
            hub: events.clone(),
            scenarios: scenarios.clone(),
            commission: config.commission,
        };
        let state = AppState {
            options,
            orders,
            rendered_chains: Arc::default(),
            apps,
            gate,
            checkpoints,
            nonces,
            store,
            simulator,
            engine,
            limiter,
            metrics,
            events,
            event_slots,
            gateway_slots,
            streams,
            key: database.key.clone(),
            scenarios,
            console: config
                .console
                .then(|| Arc::new(crate::console::memory::Console::default())),
            config: Arc::new(config),
        };
        Ok(Server {
            listener,
            metrics_listener,
            events_listener,
            mqtt_listener,
            mqtt_ws_listener,
            state,
            tls,
            _serving: serving,
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

    /// Where `--events-listen` serves, when it is set.
    pub fn events_addr(&self) -> Option<SocketAddr> {
        self.events_listener
            .as_ref()
            .map(|l| l.local_addr().expect("a bound listener has an address"))
    }

    /// Where `--mqtt-listen` serves the quotes feed, when it is set.
    pub fn mqtt_addr(&self) -> Option<SocketAddr> {
        self.mqtt_listener
            .as_ref()
            .map(|l| l.local_addr().expect("a bound listener has an address"))
    }

    /// Where `--mqtt-ws-listen` serves the quotes feed over WebSocket, when it is set.
    pub fn mqtt_ws_addr(&self) -> Option<SocketAddr> {
        self.mqtt_ws_listener
            .as_ref()
            .map(|l| l.local_addr().expect("a bound listener has an address"))
    }

    /// The certificate and key in force when TLS is on: [`Certificates::reload`] (SIGHUP) reads
    /// their files again.
    pub fn certificates(&self) -> Option<Arc<Certificates>> {
        self.tls.clone()
    }

    /// Serves until `shutdown` completes, then finishes the requests in flight.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
        let purge = tokio::spawn(purge_nonces(self.state.clone()));
        let scenarios = tokio::spawn(self.state.scenarios.clone().follow());
        let restores = tokio::spawn(self.state.checkpoints.clone().follow());
        // A revocation made on any node ends this node's streams and sessions of the app.
        let revocations = tokio::spawn(self.state.apps.clone().end_revoked());
        // Shutdown first ends the event streams (`UNAVAILABLE`: their clients move to another
        // node), which the graceful shutdown of their connections then waits for.
        let (closing, closed) = tokio::sync::watch::channel(false);
        let shutdown = async move {
            shutdown.await;
            let _ = closing.send(true);
        };
        let until_closing = move || {
            let mut closed = closed.clone();
            async move {
                let _ = closed.wait_for(|closing| *closing).await;
            }
        };
        let events = tokio::spawn(
            self.state
                .events
                .clone()
                .follow(self.state.store.clone(), until_closing()),
        );
        let limits = self.state.config.connections;
        let http_tls = self.tls.as_ref().map(Certificates::http_config);
        let mqtt_tls = self.tls.as_ref().map(Certificates::mqtt_config);
        let events_only = self.events_listener.map(|listener| {
            let app = crate::router::events_router(self.state.clone());
            tokio::spawn(crate::serve::serve(
                listener,
                app,
                limits,
                http_tls.clone(),
                until_closing(),
            ))
        });
        let metrics = self.metrics_listener.map(|listener| {
            let app = crate::router::metrics_router(self.state.clone());
            tokio::spawn(async move { axum::serve(listener, app).await })
        });
        // One feed for both MQTT listeners: they share the sessions.
        let feed = (self.mqtt_listener.is_some() || self.mqtt_ws_listener.is_some()).then(|| {
            let state = &self.state;
            tokio::spawn(crate::streaming::feed::run(
                state.simulator.clone(),
                state.streams.clone(),
                state.engine.ticks(),
            ))
        });
        let mqtt_accepts: Vec<_> = [
            (self.mqtt_listener, Carrier::Tcp),
            (self.mqtt_ws_listener, Carrier::WebSocket),
        ]
        .into_iter()
        .filter_map(|(listener, carrier)| {
            let listener = listener?;
            let serving = crate::streaming::mqtt::serve(listener, self.state.clone(), mqtt_tls.clone(), carrier);
            Some(tokio::spawn(serving))
        })
        .collect();
        let (stop_ticks, ticks_stopped) = tokio::sync::oneshot::channel();
        // Also with a manual clock, whose ticks it skips: a restore may set a running one.
        let ticker = {
            let (engine, metrics) = (self.state.engine.clone(), self.state.metrics.clone());
            Some(tokio::spawn(run_ticker(
                engine,
                move || metrics.tick_panicked(),
                ticks_stopped,
            )))
        };
        let streams = self.state.streams.clone();
        let result = crate::serve::serve(self.listener, router(self.state), limits, http_tls, shutdown).await;
        if let Some(events_only) = events_only {
            // It stops with this one (unless serving failed without a shutdown).
            let _ = tokio::time::timeout(limits.shutdown_grace, events_only).await;
        }
        purge.abort();
        scenarios.abort();
        restores.abort();
        revocations.abort();
        // Done by now, unless serving failed without a shutdown.
        events.abort();
        if let Some(metrics) = metrics {
            metrics.abort();
        }
        for accept in mqtt_accepts {
            accept.abort();
        }
        if let Some(feed) = feed {
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

/// Binds an optional listener of its own (metrics, events).
async fn bind_extra(addr: Option<SocketAddr>) -> Result<Option<TcpListener>, StartupError> {
    match addr {
        Some(addr) => Ok(Some(
            TcpListener::bind(addr)
                .await
                .map_err(|source| StartupError::Bind { addr, source })?,
        )),
        None => Ok(None),
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
