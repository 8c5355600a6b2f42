//! `signet serve`.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;
use rust_decimal::Decimal;
use secrecy::ExposeSecret;
use signet_core::ratelimit::{self, RateLimits};
use signet_core::simulator::MarketConfig;
use signet_domain::marketdata::units::parse_day;
use signet_domain::simulator::clock::{ClockMode, MAX_SPEED};
use signet_server::config::ConnectionLimits;
use signet_server::generations::compat::Compat;
use signet_server::{Operator, Server, ServerConfig};
use tracing_subscriber::EnvFilter;

use crate::DbArgs;

#[derive(Args)]
pub struct ServeArgs {
    /// TOML file of settings, keyed by these flags' long names (listen = "0.0.0.0:8080"); a flag,
    /// then its environment variable, wins over the file. `signet config check` shows the outcome
    #[arg(long, env = "SIGNET_CONFIG")]
    config: Option<std::path::PathBuf>,
    /// Address to listen on
    #[arg(long, env = "SIGNET_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Serve GET /metrics (Prometheus) on this address only, instead of on --listen
    #[arg(long, env = "SIGNET_METRICS_LISTEN")]
    metrics_listen: Option<SocketAddr>,
    /// GET /metrics (Prometheus, unsigned) on --listen: auto serves it when --listen is a loopback
    /// address only; --metrics-listen serves it on its own address whatever this says
    #[arg(long, env = "SIGNET_METRICS", default_value = "auto", value_parser = ["auto", "on", "off"])]
    metrics: String,
    /// Also serve the order events (gRPC, TradeEventsClient) on this address; they are always
    /// served on --listen too
    #[arg(long, env = "SIGNET_EVENTS_LISTEN")]
    events_listen: Option<SocketAddr>,
    /// Seconds between the pings of an open order-events stream
    #[arg(long, env = "SIGNET_EVENTS_PING", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..))]
    events_ping: u64,
    /// Open order-events streams per app, on every node sharing --redis-url (else on this node);
    /// one more is refused (NumOfConnExceed)
    #[arg(long, env = "SIGNET_EVENTS_MAX_STREAMS", default_value_t = 10)]
    events_max_streams: usize,
    /// Order events a stream may fall behind before it is cut off (UNAVAILABLE; the client
    /// subscribes again)
    #[arg(long, env = "SIGNET_EVENTS_BUFFER", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    events_buffer: u64,
    /// Serve the quotes feed of the official client's DataStreamingClient (MQTT 3.1.1, plain TCP)
    /// on this address; off unless given
    #[arg(long, env = "SIGNET_MQTT_LISTEN")]
    mqtt_listen: Option<SocketAddr>,
    /// Serve the same quotes feed as MQTT over WebSocket (path /mqtt, subprotocol mqtt: paho's
    /// transport="websockets"), with TLS (wss) when TLS is on, on this address; off unless given
    #[arg(long, env = "SIGNET_MQTT_WS_LISTEN")]
    mqtt_ws_listen: Option<SocketAddr>,
    /// Browser origins (scheme://host[:port], comma-separated) whose pages may open the
    /// WebSocket feed; an upgrade with an Origin of another host than the feed's own is refused
    /// 403. None by default: clients outside a browser send no Origin, or (paho) the feed's own
    /// host, and are not concerned
    #[arg(long, env = "SIGNET_MQTT_WS_ORIGINS", value_delimiter = ',')]
    mqtt_ws_origins: Vec<String>,
    /// Symbols one MQTT session may receive; a subscribe beyond them is refused (400
    /// TOO_MANY_SYMBOLS)
    #[arg(long, env = "SIGNET_MQTT_MAX_SYMBOLS", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    mqtt_max_symbols: u64,
    /// MQTT sessions one app may hold on this node, bound by a signed subscribe; a CONNECT when it
    /// holds them all is refused with code 105 (connection limit exceeded), which the official
    /// client does not retry
    #[arg(long, env = "SIGNET_MQTT_MAX_SESSIONS", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    mqtt_max_sessions: u64,
    /// Seconds an MQTT connection has, from connecting, until a signed subscribe names its session
    /// (binds it); it is closed otherwise
    #[arg(long, env = "SIGNET_MQTT_BIND_TIMEOUT", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    mqtt_bind_timeout: u64,
    /// MQTT connections not bound yet from one client address; one more is closed at once
    #[arg(long, env = "SIGNET_MQTT_MAX_UNBOUND_PER_ADDRESS", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..))]
    mqtt_max_unbound_per_address: u64,
    /// MQTT connections not bound yet on this node, from every address; one more is closed at once
    #[arg(long, env = "SIGNET_MQTT_MAX_UNBOUND", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..))]
    mqtt_max_unbound: u64,
    /// The web console under /console/ (sign in with `signet admin console-link`): auto serves it
    /// when --listen is a loopback address only
    #[arg(long, env = "SIGNET_CONSOLE", default_value = "auto", value_parser = ["auto", "on", "off"])]
    console: String,
    /// Put a file of scenario rules (TOML) in force at start, replacing those in the database
    /// (`signet scenarios` loads, lists and clears them at run time)
    #[arg(long, env = "SIGNET_SCENARIOS", value_name = "FILE")]
    scenarios: Option<std::path::PathBuf>,
    #[command(flatten)]
    db: DbArgs,
    /// Load the demo market data unless the database has it, and when it has no app yet, create one
    /// with two paper accounts and print its key and secret
    #[arg(long)]
    demo: bool,
    /// Require an approved x-access-token on every call but the start-up calls (the token mechanism)
    #[arg(long, env = "SIGNET_REQUIRE_TOKEN")]
    require_token: bool,
    /// Life of a token, in days
    #[arg(long, default_value_t = 15)]
    token_ttl_days: u64,
    /// Largest accepted difference, in seconds, between x-timestamp and the server's clock
    #[arg(long, env = "SIGNET_TIMESTAMP_WINDOW", default_value_t = 300)]
    timestamp_window: u64,
    /// Largest accepted request body, in bytes
    #[arg(long, env = "SIGNET_MAX_BODY_BYTES", default_value_t = 256 * 1024)]
    max_body_bytes: usize,
    /// Largest accepted total of a request's header names and values, in bytes
    #[arg(long, env = "SIGNET_MAX_HEADER_BYTES", default_value_t = 16 * 1024)]
    max_header_bytes: usize,
    /// Largest accepted request target (path and query), in bytes; a longer one is answered 414
    /// URI_TOO_LONG
    #[arg(long, env = "SIGNET_MAX_URI_BYTES", default_value_t = 8 * 1024, value_parser = clap::value_parser!(u64).range(1..))]
    max_uri_bytes: u64,
    /// Seconds a client has to send a request's head (from connecting, or from the previous
    /// answer); idle and trickling connections are closed after it
    #[arg(long, env = "SIGNET_HEADER_TIMEOUT", default_value_t = 10)]
    header_timeout: u64,
    /// TLS on --listen (and --events-listen) and on --mqtt-listen and --mqtt-ws-listen with this
    /// certificate chain (PEM, the server's certificate first); with --tls-key. SIGHUP reads both
    /// files again
    #[arg(
        long,
        env = "SIGNET_TLS_CERT",
        value_name = "FILE",
        requires = "tls_key",
        conflicts_with = "tls"
    )]
    tls_cert: Option<std::path::PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1)
    #[arg(long, env = "SIGNET_TLS_KEY", value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,
    /// `self-signed`: TLS with a certificate signed by a local certificate authority, made on
    /// first start beside the database (<db>.tls/) for localhost, 127.0.0.1, ::1, the --listen
    /// address and --public-host, and reused; the CA file to trust is printed at start
    #[arg(long, env = "SIGNET_TLS", value_name = "MODE", value_parser = ["self-signed"])]
    tls: Option<String>,
    /// Check signatures against this host value only (the public name of a server behind a proxy)
    #[arg(long, env = "SIGNET_PUBLIC_HOST")]
    public_host: Option<String>,
    /// `legacy` also accepts what shipped clients still send although the interface retired it:
    /// x-version v2 on open orders, order history and the legacy screener and fund-dividend
    /// paths; HMAC-SHA1 signatures over an MD5 body digest; strings to sign encoded as Java's
    /// URLEncoder does. Each acceptance is counted in /metrics (signet_legacy_acceptances_total)
    #[arg(long, env = "SIGNET_COMPAT", default_value = "strict", value_parser = ["strict", "legacy"])]
    compat: String,
    /// Put the server's str3 and encoded string into INCORRECT_SIGN answers (for implementers; loopback only)
    #[arg(long)]
    debug_signatures: bool,
    /// Allow --debug-signatures on an address other than loopback
    #[arg(long, requires = "debug_signatures")]
    force_debug_signatures: bool,
    /// How log lines are written on standard error: human, or json (one object per line, with
    /// the request's id, method, path and app key)
    #[arg(long, env = "SIGNET_LOG_FORMAT", default_value = "human", value_parser = ["human", "json"])]
    log_format: String,
    /// The market simulator's clock: `sim` runs from the open of a session (see --market-start),
    /// `real` follows the real calendar, `manual` stands still until `signet market step`
    #[arg(long, env = "SIGNET_MARKET_CLOCK", default_value = "sim", value_parser = ["sim", "real", "manual"])]
    market_clock: String,
    /// Simulated seconds per real second (sim clock), above 0 and at most 1000000
    #[arg(long, env = "SIGNET_MARKET_SPEED", default_value_t = 1.0)]
    market_speed: f64,
    /// Day whose core open the simulated clock starts at, YYYY-MM-DD (a day within the price
    /// history replays it); by default the first weekday after the history
    #[arg(long, env = "SIGNET_MARKET_START")]
    market_start: Option<String>,
    /// Seed of every simulated price
    #[arg(long, env = "SIGNET_SEED", default_value_t = 2013)]
    seed: u64,
    /// Benchmark builds only: no signature, timestamp or nonce checks (the caller is x-app-key)
    #[cfg(feature = "benchmark-no-auth")]
    #[arg(long)]
    benchmark_no_auth: bool,
    /// Benchmark builds only: no metrics layers, to measure what they cost
    #[cfg(feature = "benchmark-no-auth")]
    #[arg(long)]
    benchmark_no_metrics: bool,
    /// Rate limits per app key and endpoint group (the interface's published ones: place 600/60 s,
    /// preview 150/10 s, batch-place 600/60 s, order queries 10/30 s, market data 300/60 s,
    /// tokens 10/30 s, other 600/60 s); `off` for tests and benchmarks
    #[arg(long, env = "SIGNET_RATE_LIMITS", default_value = "on", value_parser = ["on", "off"])]
    rate_limits: String,
    /// Another limit for a group, GROUP=REQUESTS/SECONDS (e.g. order-queries=100/30); repeatable.
    /// Groups: place, preview, batch-place, order-queries, market-data, tokens, other
    #[arg(long, value_parser = ratelimit::parse_override)]
    rate_limit: Vec<(ratelimit::Group, ratelimit::Limit)>,
    /// Requests a second one client address may send, counted before any signature is checked
    #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u32).range(1..))]
    address_limit: u32,
    /// Keep nonces and the per-app rate limits in this Redis, shared by every node that uses it
    /// (redis://[:PASSWORD@]HOST[:PORT][/DB]); otherwise in the database and in process
    #[arg(long, env = "SIGNET_REDIS_URL", hide_env_values = true)]
    redis_url: Option<String>,
    /// Where used nonces are kept without Redis: `database` (survives restarts), or `memory` (the
    /// fastest, one node only, so refused on PostgreSQL; after a restart, requests signed before
    /// it are refused for one timestamp window)
    #[arg(long, env = "SIGNET_NONCES", default_value = "database", value_parser = ["database", "memory"])]
    nonces: String,
}

impl ServeArgs {
    /// Whether several nodes may share the database (PostgreSQL), which some settings do not suit.
    pub fn shared_database(&self) -> bool {
        matches!(self.db.location(), signet_server::database::Location::Postgres { .. })
    }
}

/// Without `RUST_LOG`: information, but not sqlx's warnings about statements over a second, which
/// the demo's one-off bulk queries set off (`RUST_LOG=info,sqlx::query=warn` shows them).
const DEFAULT_LOG_FILTER: &str = "info,sqlx::query=error,sqlx::postgres::notice=warn";

pub async fn run(args: ServeArgs) -> anyhow::Result<()> {
    let logs = tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_LOG_FILTER)))
        .with_writer(|| LogWriter);
    match args.log_format.as_str() {
        "json" => logs.json().with_current_span(true).with_span_list(false).init(),
        _ => logs.with_ansi(std::io::stderr().is_terminal()).init(),
    }

    let database = args.db.open().await?;
    if args.demo {
        tracing::info!("checking the demo dataset");
        if let Some(summary) = signet_import::demo::ensure_loaded(database.store.clone()).await? {
            tracing::info!(
                instruments = summary.instruments,
                generated_series = summary.generated_series,
                generated_bars = summary.generated_bars,
                ranked = summary.snapshots,
                seconds = format!("{:.1}", summary.seconds),
                "demo dataset loaded"
            );
        }
        let admin = Operator::new(database.store.clone(), database.key.clone());
        if admin.apps().await?.is_empty() {
            let app = admin.create_app_with_role("demo", Decimal::from(100_000), true).await?;
            println!("Demo app created in {} (shown once; keep it):", args.db.location());
            println!("  SIGNET_APP_KEY={}", app.app_key);
            println!("  SIGNET_APP_SECRET={}", app.app_secret.expose_secret());
            println!(
                "  accounts: {} (CASH), {} (MARGIN), 100000 USD each",
                app.account_ids[0], app.account_ids[1]
            );
            println!("Try: SIGNET_APP_KEY=... SIGNET_APP_SECRET=... signet accounts list");
        }
    }

    let config = server_config(&args)?;
    if args.tls.is_some() {
        make_self_signed(&args)?;
    }
    let legacy = config.compat == Compat::Legacy;
    let console = config.console;
    let server = Server::bind(config, &database).await?;
    if args.demo && console {
        let admin = Operator::new(database.store.clone(), database.key.clone());
        let scheme = if server.certificates().is_some() {
            "https"
        } else {
            "http"
        };
        let base = format!("{scheme}://{}", server.local_addr());
        let link = admin.console_link(&base, signet_server::console::LINK_TTL).await?;
        println!("Console (this link works once, for 10 minutes): {link}");
    }
    let shutdown = shutdown_signal()?;
    if let Some(certificates) = server.certificates() {
        reload_on_hangup(certificates)?;
    }
    if legacy {
        tracing::warn!("--compat legacy: retired calls and signing schemes are accepted (counted in /metrics)");
    }
    if let Some(address) = server.metrics_addr() {
        tracing::info!(metrics = %address, "metrics served at /metrics");
    }
    tracing::info!(
        address = %server.local_addr(),
        database = %args.db.location(),
        tls = server.certificates().is_some(),
        "signet listening"
    );
    if let Some(address) = server.mqtt_addr() {
        tracing::info!(mqtt = %address, "quotes feed served over MQTT");
    }
    if let Some(address) = server.mqtt_ws_addr() {
        tracing::info!(mqtt_ws = %address, path = "/mqtt", "quotes feed served as MQTT over WebSocket");
    }
    server.run(shutdown).await?;
    database.store.close().await;
    tracing::info!("signet stopped");
    Ok(())
}

/// The server's settings from the parsed flags (and what the environment and the configuration
/// file gave them).
pub fn server_config(args: &ServeArgs) -> anyhow::Result<ServerConfig> {
    let clock = match args.market_clock.as_str() {
        "real" => ClockMode::Real,
        "manual" => ClockMode::Manual,
        _ => ClockMode::running(args.market_speed)
            .ok_or_else(|| anyhow::anyhow!("--market-speed must be a number above 0 and at most {MAX_SPEED}"))?,
    };
    let start_day = match args.market_start.as_deref() {
        Some(text) => {
            Some(parse_day(text).ok_or_else(|| anyhow::anyhow!("--market-start {text:?} is not a date YYYY-MM-DD"))?)
        }
        None => None,
    };
    Ok(ServerConfig {
        listen: args.listen,
        metrics_listen: args.metrics_listen,
        metrics: auto_on_loopback(&args.metrics, args.listen),
        mqtt_listen: args.mqtt_listen,
        mqtt_ws_listen: args.mqtt_ws_listen,
        mqtt_ws_origins: args
            .mqtt_ws_origins
            .iter()
            .map(|o| o.trim().trim_end_matches('/').to_owned())
            .collect(),
        timestamp_window: Duration::from_secs(args.timestamp_window),
        max_body_bytes: args.max_body_bytes,
        max_header_bytes: args.max_header_bytes,
        max_uri_bytes: usize::try_from(args.max_uri_bytes).unwrap_or(usize::MAX),
        connections: ConnectionLimits {
            header_timeout: Duration::from_secs(args.header_timeout.max(1)),
            ..ConnectionLimits::default()
        },
        require_token: args.require_token,
        token_ttl: Duration::from_secs(args.token_ttl_days * 24 * 3600),
        public_host: args.public_host.clone(),
        compat: match args.compat.as_str() {
            "legacy" => Compat::Legacy,
            _ => Compat::Strict,
        },
        debug_signatures: args.debug_signatures,
        force_debug_signatures: args.force_debug_signatures,
        market: MarketConfig {
            seed: args.seed,
            clock,
            start_day,
            ..MarketConfig::default()
        },
        rate_limits: (args.rate_limits == "on").then(|| {
            let mut limits = args
                .rate_limit
                .iter()
                .fold(RateLimits::published(), |limits, &(group, limit)| {
                    limits.with(group, limit)
                });
            limits.per_address = ratelimit::Limit {
                requests: args.address_limit,
                window: Duration::from_secs(1),
            };
            limits
        }),
        #[cfg(feature = "benchmark-no-auth")]
        benchmark_no_auth: args.benchmark_no_auth,
        #[cfg(feature = "benchmark-no-auth")]
        benchmark_no_metrics: args.benchmark_no_metrics,
        // An empty SIGNET_REDIS_URL means none, as an unset one does.
        redis_url: args.redis_url.clone().filter(|url| !url.is_empty()).map(Into::into),
        memory_nonces: args.nonces == "memory",
        events: signet_server::events::EventsConfig {
            listen: args.events_listen,
            ping_interval: Duration::from_secs(args.events_ping),
            buffer: usize::try_from(args.events_buffer).unwrap_or(usize::MAX),
            max_streams_per_app: args.events_max_streams,
        },
        console: auto_on_loopback(&args.console, args.listen),
        tls: tls_files(args)?,
        scenarios: args
            .scenarios
            .as_ref()
            .map(|file| {
                std::fs::read_to_string(file).map_err(|e| anyhow::anyhow!("--scenarios {}: {e}", file.display()))
            })
            .transpose()?,
        streaming: signet_server::streaming::StreamingConfig {
            max_symbols_per_session: usize::try_from(args.mqtt_max_symbols).unwrap_or(usize::MAX),
            max_sessions_per_app: usize::try_from(args.mqtt_max_sessions).unwrap_or(usize::MAX),
            bind_timeout: Duration::from_secs(args.mqtt_bind_timeout),
            max_unbound_per_address: usize::try_from(args.mqtt_max_unbound_per_address).unwrap_or(usize::MAX),
            max_unbound: usize::try_from(args.mqtt_max_unbound).unwrap_or(usize::MAX),
            ..signet_server::streaming::StreamingConfig::default()
        },
        ..ServerConfig::default()
    })
}

/// The certificate and key files TLS uses: `--tls-cert`/`--tls-key`, or those `--tls
/// self-signed` keeps (made by [`make_self_signed`] before the server starts).
fn tls_files(args: &ServeArgs) -> anyhow::Result<Option<signet_server::tls::TlsFiles>> {
    if args.tls.is_some() {
        let dir = self_signed_dir(args)?;
        return Ok(Some(signet_server::tls::TlsFiles {
            cert: dir.join("server.pem"),
            key: dir.join("server.key"),
        }));
    }
    Ok(match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(signet_server::tls::TlsFiles {
            cert: cert.clone(),
            key: key.clone(),
        }),
        _ => None,
    })
}

/// Where `--tls self-signed` keeps its files: `<db>.tls` beside the SQLite file, or beside the
/// master key file on PostgreSQL.
fn self_signed_dir(args: &ServeArgs) -> anyhow::Result<std::path::PathBuf> {
    let beside = match (&args.db.database_url, &args.db.master_key_file) {
        (None, _) => &args.db.db,
        (Some(_), Some(key_file)) => key_file,
        (Some(_), None) => anyhow::bail!(
            "--tls self-signed keeps its files beside the database, and PostgreSQL has no file here: give \
             --master-key-file (the files go beside it, in <key file>.tls/), or --tls-cert and --tls-key"
        ),
    };
    Ok(signet_server::tls::self_signed_dir(beside))
}

/// `--tls self-signed`: makes the local authority and the server certificate unless they are
/// there (or issues the certificate again for new names), then prints what a client trusts.
fn make_self_signed(args: &ServeArgs) -> anyhow::Result<()> {
    let dir = self_signed_dir(args)?;
    let names = signet_server::tls::self_signed_names(args.listen.ip(), args.public_host.as_deref());
    let made = signet_server::tls::self_signed(&dir, &names)?;
    let ca = std::fs::canonicalize(&made.ca).unwrap_or(made.ca.clone());
    let ca = ca.display();
    match (made.created_ca, made.issued) {
        (true, _) => println!(
            "TLS: made a local certificate authority and a server certificate for {}",
            names.join(", ")
        ),
        (false, true) => println!("TLS: issued the server certificate again, for {}", names.join(", ")),
        (false, false) => println!("TLS: the local certificate authority and server certificate of an earlier start"),
    }
    println!("  CA certificate (trust this one): {ca}");
    println!("  the official Python client trusts it with these variables:");
    // Found by trying (tests/api/tls.rs): the client hands `verify=WEBULL_API_CA_BUNDLE` to
    // requests' Session.send, which does not read REQUESTS_CA_BUNDLE.
    println!("    WEBULL_API_CA_BUNDLE={ca}              # its HTTP calls (not REQUESTS_CA_BUNDLE)");
    println!("    GRPC_DEFAULT_SSL_ROOTS_FILE_PATH={ca}  # the trade events (gRPC)");
    println!("    SSL_CERT_FILE={ca}                     # the quotes feed (paho-mqtt), over TCP or wss");
    println!("  signet's client and CLI: SIGNET_CA={ca} (or --ca)");
    Ok(())
}

/// On SIGHUP, reads the certificate and key files again: new connections get the new pair,
/// open ones keep theirs. A pair that cannot be read is logged and the one in force stays.
fn reload_on_hangup(certificates: std::sync::Arc<signet_server::tls::Certificates>) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut hangups = signal(SignalKind::hangup())?;
        tokio::spawn(async move {
            while hangups.recv().await.is_some() {
                match certificates.reload() {
                    Ok(()) => tracing::info!(
                        cert = %certificates.files().cert.display(),
                        "SIGHUP: TLS certificate and key read again"
                    ),
                    Err(e) => tracing::error!(error = %e, "SIGHUP: the TLS certificate and key stay as they were"),
                }
            }
        });
    }
    #[cfg(not(unix))]
    let _ = certificates;
    Ok(())
}

/// An `auto|on|off` setting of what is served on `--listen` (the console, the metrics): `auto`
/// is on when `listen` is a loopback address only.
fn auto_on_loopback(setting: &str, listen: SocketAddr) -> bool {
    match setting {
        "on" => true,
        "off" => false,
        _ => listen.ip().is_loopback(),
    }
}

/// Resolves on Ctrl-C or SIGTERM. The handlers are installed here, before the server says it
/// listens, so that a signal sent as soon as it does cannot kill it uncleanly.
fn shutdown_signal() -> anyhow::Result<impl Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

/// Log lines go to stderr; when stderr is closed they are lost instead of stopping the server
/// (the default writer's complaint about a failed write would itself panic).
struct LogWriter;

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = std::io::stderr().write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
