//! What a server is told at start-up.

use std::net::SocketAddr;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use signet_domain::trading::accounting::Commission;

use signet_core::simulator::MarketConfig;

/// Settings of one server. [`ServerConfig::default`] gives the documented defaults.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// Where `GET /metrics` is served instead of on `listen`, so that it can stay private.
    pub metrics_listen: Option<SocketAddr>,
    /// Serve `GET /metrics` on `listen` (without `metrics_listen`). `signet serve --metrics auto`
    /// does so on a loopback address only: the metrics show the server's traffic and orders to
    /// anyone who can reach it, unsigned.
    pub metrics: bool,
    /// Largest accepted difference between `x-timestamp` and the server's clock.
    pub timestamp_window: Duration,
    /// Largest accepted request body.
    pub max_body_bytes: usize,
    /// Largest accepted total of the header names and values (431 `HEADERS_TOO_LARGE`).
    pub max_header_bytes: usize,
    /// Largest accepted request target, its path and query (414 `URI_TOO_LONG`).
    pub max_uri_bytes: usize,
    /// What one connection may cost: its header timeout, head buffer and shutdown grace.
    pub connections: ConnectionLimits,
    /// Every call other than the start-up calls must carry an approved `x-access-token`.
    pub require_token: bool,
    /// Life of a token from its creation.
    pub token_ttl: Duration,
    /// When set, the only host value signatures are checked against (the public name of a
    /// server behind a proxy); otherwise the received `Host`, then the same without its port.
    pub public_host: Option<String>,
    /// Whether the retired calls and signing schemes shipped clients still use are accepted.
    pub compat: crate::generations::compat::Compat,
    /// Adds the server's str3 and encoded string to `INCORRECT_SIGN` answers.
    pub debug_signatures: bool,
    /// Allows `debug_signatures` on an address other than loopback.
    pub force_debug_signatures: bool,
    /// How long a looked-up app (its secret and status) is reused before it is read again, which
    /// bounds how long a revocation made by another process takes to apply.
    pub app_cache_ttl: Duration,
    /// How often expired nonces are deleted.
    pub nonce_purge_interval: Duration,
    /// The market simulator's clock, seed and tick.
    pub market: MarketConfig,
    /// Charged on fills: zero by default.
    pub commission: Commission,
    pub watchlists: WatchlistLimits,
    /// Limits per app key and endpoint group; none by default here (the tests), the published
    /// ones by default in `signet serve`.
    pub rate_limits: Option<signet_core::ratelimit::RateLimits>,
    /// No signature, timestamp or nonce checks (benchmark builds only).
    #[cfg(feature = "benchmark-no-auth")]
    pub benchmark_no_auth: bool,
    /// No metrics layers (benchmark builds only): the baseline of what they cost.
    #[cfg(feature = "benchmark-no-auth")]
    pub benchmark_no_metrics: bool,
    /// Nonces and the per-app rate limits in this Redis, shared with every node using it, instead
    /// of in the database and in process. Secret: the URL may hold a password.
    pub redis_url: Option<SecretString>,
    /// What every Redis key of this server starts with, so that deployments can share a Redis.
    pub redis_key_prefix: String,
    /// Nonces in this process's memory instead of the database (without Redis): fastest, for a
    /// single node; after a restart, requests signed before it are refused for one window.
    pub memory_nonces: bool,
    /// The trade-events subscription over gRPC: ping interval, subscriber buffer.
    pub events: crate::events::config::EventsConfig,
    /// Where the quotes feed's MQTT endpoint listens; off when `None`.
    pub mqtt_listen: Option<SocketAddr>,
    /// Where the same feed is served as MQTT over WebSocket (path `/mqtt`); off when `None`.
    pub mqtt_ws_listen: Option<SocketAddr>,
    /// The browser origins (`https://host:port`) whose pages may open the WebSocket feed; an
    /// upgrade with another `Origin` is refused. None by default.
    pub mqtt_ws_origins: std::sync::Arc<[String]>,
    /// The quotes feed's limits, on both.
    pub streaming: crate::streaming::StreamingConfig,
    /// Serve the operator console under `/console/`.
    pub console: bool,
    /// TLS on the HTTP listener (and `events.listen`) and on the MQTT listeners: the PEM files of
    /// the certificate chain and key (`--tls-cert`/`--tls-key`, or those `--tls self-signed`
    /// made). Plain TCP when `None`; `metrics_listen` stays plain.
    pub tls: Option<crate::tls::TlsFiles>,
    /// Scenario rules (a file's TOML) put in force at start (`--scenarios FILE`), replacing
    /// those in the database.
    pub scenarios: Option<String>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            metrics_listen: None,
            metrics: true,
            timestamp_window: Duration::from_secs(300),
            max_body_bytes: 256 * 1024,
            max_header_bytes: 16 * 1024,
            max_uri_bytes: 8 * 1024,
            connections: ConnectionLimits::default(),
            require_token: false,
            token_ttl: Duration::from_secs(15 * 24 * 3600),
            public_host: None,
            compat: crate::generations::compat::Compat::Strict,
            debug_signatures: false,
            force_debug_signatures: false,
            app_cache_ttl: Duration::from_secs(1),
            nonce_purge_interval: Duration::from_secs(60),
            market: MarketConfig::default(),
            commission: Commission::default(),
            watchlists: WatchlistLimits::default(),
            rate_limits: None,
            #[cfg(feature = "benchmark-no-auth")]
            benchmark_no_auth: false,
            #[cfg(feature = "benchmark-no-auth")]
            benchmark_no_metrics: false,
            redis_url: None,
            redis_key_prefix: "signet:".into(),
            memory_nonces: false,
            events: crate::events::config::EventsConfig::default(),
            mqtt_listen: None,
            mqtt_ws_listen: None,
            mqtt_ws_origins: std::sync::Arc::new([]),
            streaming: crate::streaming::StreamingConfig::default(),
            console: true,
            tls: None,
            scenarios: None,
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error(
        "--debug-signatures puts strings to sign into answers; it is refused on {0}, which is not a loopback address (add --force-debug-signatures to insist)"
    )]
    DebugSignaturesNotOnLoopback(SocketAddr),
    #[error("the timestamp window must be between 1 second and 1 day")]
    TimestampWindow,
    /// The parser's reason only: the URL may hold a password.
    #[error("--redis-url is not a usable Redis URL (redis://[:PASSWORD@]HOST[:PORT][/DB] or unix://PATH): {0}")]
    RedisUrl(String),
    #[error(
        "--nonces memory is refused on a database that several nodes share (PostgreSQL): a used nonce kept in one node's memory is not seen by another node, so a request replayed to another node would be accepted there; keep nonces in the database (--nonces database) or in Redis (--redis-url)"
    )]
    MemoryNoncesOnSharedDatabase,
}

impl ServerConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.debug_signatures && !self.force_debug_signatures && !self.listen.ip().is_loopback() {
            return Err(ConfigError::DebugSignaturesNotOnLoopback(self.listen));
        }
        if self.timestamp_window.is_zero() || self.timestamp_window > Duration::from_secs(86_400) {
            return Err(ConfigError::TimestampWindow);
        }
        if let Some(url) = &self.redis_url {
            ::redis::IntoConnectionInfo::into_connection_info(url.expose_secret())
                .map_err(|e| ConfigError::RedisUrl(e.to_string()))?;
        }
        Ok(())
    }

    /// What [`ServerConfig::validate`] cannot tell alone: whether the settings suit a database
    /// that several nodes may share (`shared`: PostgreSQL).
    pub fn validate_for_database(&self, shared: bool) -> Result<(), ConfigError> {
        if shared && self.memory_nonces && self.redis_url.is_none() {
            return Err(ConfigError::MemoryNoncesOnSharedDatabase);
        }
        Ok(())
    }
}

/// Limits on the watchlists an app keeps; configurable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchlistLimits {
    pub watchlists_per_app: u32,
    pub instruments_per_watchlist: u32,
}

impl Default for WatchlistLimits {
    fn default() -> Self {
        WatchlistLimits {
            watchlists_per_app: 1_000,
            instruments_per_watchlist: 1_000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_signatures_are_refused_off_loopback_unless_forced() {
        let mut config = ServerConfig {
            debug_signatures: true,
            ..ServerConfig::default()
        };
        assert_eq!(config.validate(), Ok(()));
        config.listen = "0.0.0.0:8080".parse().unwrap();
        assert!(matches!(
            config.validate(),
            Err(ConfigError::DebugSignaturesNotOnLoopback(_))
        ));
        config.force_debug_signatures = true;
        assert_eq!(config.validate(), Ok(()));
    }

    #[test]
    fn nonces_in_memory_are_refused_on_a_shared_database_without_redis() {
        let memory = ServerConfig {
            memory_nonces: true,
            ..ServerConfig::default()
        };
        assert_eq!(memory.validate_for_database(false), Ok(()));
        assert_eq!(
            memory.validate_for_database(true),
            Err(ConfigError::MemoryNoncesOnSharedDatabase)
        );
        let with_redis = ServerConfig {
            redis_url: Some("redis://127.0.0.1:6379".into()),
            ..memory
        };
        assert_eq!(
            with_redis.validate_for_database(true),
            Ok(()),
            "Redis keeps them, shared"
        );
        assert_eq!(ServerConfig::default().validate_for_database(true), Ok(()));
    }

    #[test]
    fn a_redis_url_must_parse_and_is_never_shown() {
        let with = |url: &str| ServerConfig {
            redis_url: Some(url.into()),
            ..ServerConfig::default()
        };
        assert_eq!(with("redis://:hunter2@127.0.0.1:6379/2").validate(), Ok(()));
        for bad in [
            "http://:hunter2@127.0.0.1:6379",
            "redis://:hunter2@127.0.0.1:6379/x",
            "hunter2",
        ] {
            let error = with(bad).validate().unwrap_err();
            assert!(matches!(error, ConfigError::RedisUrl(_)), "{bad}");
            assert!(!error.to_string().contains("hunter2"), "{error}");
        }
        assert!(!format!("{:?}", with("redis://:hunter2@host")).contains("hunter2"));
    }
}

/// What one connection may cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// A request's head (request line and headers) must arrive within this time, counted from
    /// the connection's start or the previous answer: idle and trickling connections are closed.
    /// A connection (HTTP/2 too) with no request under way for this long is closed.
    pub header_timeout: Duration,
    /// The most bytes hyper buffers for a request's head; a larger head is answered 431 without
    /// being read further. The finer limit with a JSON answer is
    /// `ServerConfig::max_header_bytes`.
    pub max_head_buffer: usize,
    /// A request's body must have arrived this long after the server starts reading it (408
    /// `REQUEST_TIMEOUT`), however slowly it trickles.
    pub body_timeout: Duration,
    /// Requests (streams) one HTTP/2 connection may have under way at once.
    pub max_streams: u32,
    /// How often an HTTP/2 connection is pinged, and how long its answer may take before the
    /// connection is closed: a peer that went away does not hold its streams open.
    pub keep_alive_interval: Duration,
    pub keep_alive_timeout: Duration,
    /// How long shutdown waits for requests under way before closing their connections.
    pub shutdown_grace: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_timeout: Duration::from_secs(10),
            max_head_buffer: 64 * 1024,
            body_timeout: Duration::from_secs(30),
            max_streams: 100,
            keep_alive_interval: Duration::from_secs(20),
            keep_alive_timeout: Duration::from_secs(20),
            shutdown_grace: Duration::from_secs(8),
        }
    }
}
