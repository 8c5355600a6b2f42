//! A real server on a random loopback port with a fresh database, for the integration tests.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use rust_decimal::Decimal;
use signet_client::{Client, SignedRequest};
use signet_core::simulator::MarketConfig;
use signet_domain::simulator::clock::ClockMode;
use signet_import::{Progress, import_file};
use signet_model::ErrorBody;
use signet_server::database::Location;
use signet_server::{Credentials, Database, Durability, Operator, Server, ServerConfig};
use signet_store::refresh_snapshots;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// With `SIGNET_TEST_LOG_DIR` (set by `scripts/test.sh`), every log line of this test process
/// goes to a file there, at debug level, and every app secret the tests create is listed beside
/// it, so that `scripts/check-logs.sh` can look for them (and for anything shaped like a
/// signature or a string to sign) in the whole suite's logs.
pub fn capture_logs() {
    static CAPTURE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    CAPTURE.get_or_init(|| {
        let Some(file) = log_file("log") else { return };
        let _ = tracing_subscriber::fmt()
            .with_env_filter("debug,sqlx=info,hyper=info,hyper_util=info,h2=info,reqwest=info")
            .with_ansi(false)
            .with_writer(std::sync::Mutex::new(file))
            .try_init();
    });
}

/// Lists `secret` for `scripts/check-logs.sh`.
pub fn record_secret(secret: &str) {
    use std::io::Write;
    if let Some(mut file) = log_file("secrets") {
        let _ = writeln!(file, "{secret}");
    }
}

/// `$SIGNET_TEST_LOG_DIR/<test binary>-<pid>.<extension>`, opened to append.
fn log_file(extension: &str) -> Option<std::fs::File> {
    let dir = std::env::var_os("SIGNET_TEST_LOG_DIR").filter(|d| !d.is_empty())?;
    let binary = std::env::current_exe()
        .ok()?
        .file_stem()?
        .to_string_lossy()
        .into_owned();
    let path = Path::new(&dir).join(format!("{binary}-{}.{extension}", std::process::id()));
    std::fs::OpenOptions::new().create(true).append(true).open(path).ok()
}

/// Where the tests keep their data: a SQLite file in a temporary directory, or, with
/// `SIGNET_TEST_BACKEND=postgres`, a new database for each test on the server at
/// `SIGNET_TEST_POSTGRES_URL` (see `scripts/services.sh`).
pub async fn fresh_location(dir: &Path) -> Location {
    if std::env::var("SIGNET_TEST_BACKEND").as_deref() != Ok("postgres") {
        return Location::Sqlite {
            path: dir.join("signet.db"),
            durability: Durability::Normal,
            checkpoints: None,
        };
    }
    fresh_postgres()
        .await
        .expect("SIGNET_TEST_BACKEND=postgres needs SIGNET_TEST_POSTGRES_URL (eval \"$(scripts/services.sh start)\")")
}

/// A new database on the server at `SIGNET_TEST_POSTGRES_URL`; `None` without one, unless
/// `SIGNET_REQUIRE_SERVICES=1` (CI), where that is a failure.
pub async fn fresh_postgres() -> Option<Location> {
    let Ok(admin_url) = std::env::var("SIGNET_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var("SIGNET_REQUIRE_SERVICES").as_deref() != Ok("1"),
            "SIGNET_REQUIRE_SERVICES=1 but SIGNET_TEST_POSTGRES_URL is not set"
        );
        eprintln!("skipped: no SIGNET_TEST_POSTGRES_URL (eval \"$(scripts/services.sh start)\")");
        return None;
    };
    let name = format!("signet_test_{}", signet_server::secrets::random_hex::<8>().unwrap());
    let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(&admin_url)
        .await
        .expect("the test PostgreSQL server");
    sqlx::Executor::execute(&mut admin, sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .await
        .expect("a test database");
    let (server, _) = admin_url.rsplit_once('/').expect("a URL ending in /DATABASE");
    Some(Location::Postgres {
        url: format!("{server}/{name}"),
    })
}

/// Imports the real daily prices of `data/demo` and ranks them, as `signet serve --demo` does.
pub async fn import_prices(database: &Database) {
    let prices = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/demo/daily_ohlcv_2000_2013.csv.gz");
    let store = database.store.clone();
    import_file(
        store.clone(),
        &prices,
        &Default::default(),
        Arc::new(Progress::default()),
    )
    .await
    .expect("prices");
    refresh_snapshots(store.as_ref(), None).await.expect("snapshots");
}

/// Opens `location` with its master key in `dir`. Once more after a pool timeout: on this
/// 2-core machine a test binary of many servers, beside schemathesis, can keep a fresh database's
/// first connection waiting past the pool's 5 s.
pub async fn open(location: &Location, dir: &Path) -> Database {
    let key = dir.join("master.key");
    match Database::open(location, None, Some(&key)).await {
        Err(e) if e.to_string().contains("pool timed out") => {
            eprintln!("opening the test database timed out ({e}); once more");
            Database::open(location, None, Some(&key)).await.expect("database")
        }
        opened => opened.expect("database"),
    }
}

pub struct TestServer {
    pub addr: SocketAddr,
    /// Where `metrics_listen` serves, when it is set.
    pub metrics_addr: Option<SocketAddr>,
    /// `ServerConfig::events.listen`, when set.
    pub events_addr: Option<SocketAddr>,
    /// Where `mqtt_listen` serves, when it is set.
    pub mqtt_addr: Option<SocketAddr>,
    /// Where `mqtt_ws_listen` serves, when it is set.
    pub mqtt_ws_addr: Option<SocketAddr>,
    pub endpoint: String,
    pub app: Credentials,
    pub database: Database,
    pub location: Location,
    /// The certificate and key in force when the server runs with TLS.
    pub certificates: Option<Arc<signet_server::tls::Certificates>>,
    config: ServerConfig,
    dir: tempfile::TempDir,
    shutdown: oneshot::Sender<()>,
    handle: JoinHandle<std::io::Result<()>>,
}

impl TestServer {
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// Starts a server whose configuration `adjust` may change, with one app already created.
    pub async fn start_with(adjust: impl FnOnce(&mut ServerConfig)) -> Self {
        capture_logs();
        let dir = tempfile::tempdir().expect("temporary directory");
        let location = fresh_location(dir.path()).await;
        let database = open(&location, dir.path()).await;
        let app = admin(&database)
            .create_app("test app", Decimal::from(100_000))
            .await
            .expect("app");
        record_secret(secrecy::ExposeSecret::expose_secret(&app.app_secret));
        let mut config = ServerConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            ..ServerConfig::default()
        };
        adjust(&mut config);
        Self::launch(config, database, location, dir, app).await
    }

    /// Another node beside `self`: a server of its own (own port, own connections) on the same
    /// database, so that the same app is known to both, as behind a load balancer.
    pub async fn beside(&self, adjust: impl FnOnce(&mut ServerConfig)) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        std::fs::copy(self.dir.path().join("master.key"), dir.path().join("master.key")).expect("the master key");
        let database = open(&self.location, dir.path()).await;
        let mut config = ServerConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            ..ServerConfig::default()
        };
        adjust(&mut config);
        let app = Credentials {
            app_key: self.app.app_key.clone(),
            app_secret: self.app.app_secret.clone(),
            account_ids: self.app.account_ids.clone(),
        };
        Self::launch(config, database, self.location.clone(), dir, app).await
    }

    async fn launch(
        config: ServerConfig,
        database: Database,
        location: Location,
        dir: tempfile::TempDir,
        app: Credentials,
    ) -> Self {
        let server = Server::bind(config.clone(), &database).await.expect("bind");
        let addr = server.local_addr();
        let metrics_addr = server.metrics_addr();
        let events_addr = server.events_addr();
        let mqtt_addr = server.mqtt_addr();
        let mqtt_ws_addr = server.mqtt_ws_addr();
        let certificates = server.certificates();
        let (shutdown, stopped) = oneshot::channel();
        let handle = tokio::spawn(server.run(async move {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            metrics_addr,
            events_addr,
            mqtt_addr,
            mqtt_ws_addr,
            endpoint: format!("http://{addr}"),
            app,
            database,
            location,
            certificates,
            config,
            dir,
            shutdown,
            handle,
        }
    }

    /// Stops the server as SIGTERM does, and waits until it has.
    pub async fn stop(self) {
        let _ = self.shutdown.send(());
        self.handle.await.expect("server task").expect("server ran");
    }

    /// Stops the server, closes the database, and starts a new server on the same file and port.
    pub async fn restart(self) -> Self {
        let TestServer {
            mut config,
            dir,
            location,
            app,
            database,
            shutdown,
            handle,
            addr,
            ..
        } = self;
        config.listen = addr;
        let _ = shutdown.send(());
        handle.await.expect("server task").expect("server ran");
        database.store.close().await;
        drop(database);
        let database = open(&location, dir.path()).await;
        Self::launch(config, database, location, dir, app).await
    }

    /// A server whose market clock stands at the core open of New York day `start`
    /// (`YYYY-MM-DD`), on the real price history in `data/demo`.
    pub async fn start_market(start: &str, seed: u64) -> Self {
        Self::start_market_with(start, seed, |_| {}).await
    }

    /// [`TestServer::start_market`] with a configuration `adjust` may change.
    pub async fn start_market_with(start: &str, seed: u64, adjust: impl FnOnce(&mut ServerConfig)) -> Self {
        let start_day = signet_domain::marketdata::units::parse_day(start).expect("a date");
        let server = Self::start_with(|c| {
            c.market = MarketConfig {
                seed,
                clock: ClockMode::Manual,
                start_day: Some(start_day),
                ..MarketConfig::default()
            };
            adjust(c);
        })
        .await;
        import_prices(&server.database).await;
        // The simulator read an empty market when the server started: start it again on the prices.
        server.restart().await
    }

    /// A second handle on the server's database, as `signet admin` in another process has.
    pub async fn open_again(&self) -> Database {
        open(&self.location, self.dir.path()).await
    }

    /// The events recorded for an order, in order.
    pub async fn order_events(&self, order_id: &str) -> Vec<String> {
        match &self.location {
            Location::Postgres { url } => {
                let mut db = <sqlx::PgConnection as sqlx::Connection>::connect(url).await.unwrap();
                sqlx::query_scalar("SELECT event FROM order_events WHERE order_id = $1 ORDER BY n")
                    .bind(order_id)
                    .fetch_all(&mut db)
                    .await
                    .unwrap()
            }
            Location::Sqlite { path, .. } => {
                let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path).read_only(true);
                let mut db = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
                    .await
                    .unwrap();
                sqlx::query_scalar("SELECT event FROM order_events WHERE order_id = ? ORDER BY n")
                    .bind(order_id)
                    .fetch_all(&mut db)
                    .await
                    .unwrap()
            }
        }
    }

    /// A client of a new app created with `--admin`, which may drive the market.
    pub async fn ops(&self) -> Client {
        let app = self
            .admin()
            .create_app_with_role("ops", Decimal::ZERO, true)
            .await
            .expect("an admin app");
        record_secret(secrecy::ExposeSecret::expose_secret(&app.app_secret));
        self.client_for(&app)
    }

    pub fn admin(&self) -> Operator {
        admin(&self.database)
    }

    pub fn client(&self) -> Client {
        self.client_for(&self.app)
    }

    pub fn client_for(&self, app: &Credentials) -> Client {
        use secrecy::ExposeSecret;
        Client::new(&self.endpoint, &app.app_key, app.app_secret.expose_secret()).expect("client")
    }

    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.endpoint)
    }
}

pub fn admin(database: &Database) -> Operator {
    Operator::new(database.store.clone(), database.key.clone())
}

/// What came back, with the error body decoded when there is one.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: serde_json::Value,
}

impl Answer {
    pub fn error(&self) -> ErrorBody {
        serde_json::from_value(self.body.clone())
            .unwrap_or_else(|e| panic!("expected an error object, got {} ({e})", self.body))
    }

    /// Asserts the status and `error_code`, and the rules every error answer follows.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) -> ErrorBody {
        assert_eq!(self.status.as_u16(), status, "status of {}", self.body);
        let body = self.error();
        assert_eq!(body.error_code, code, "{}", self.body);
        assert!(!body.message.is_empty());
        assert!(
            self.headers.contains_key("x-request-id"),
            "every answer has X-Request-Id"
        );
        assert!(self.headers.contains_key("date"), "every answer has Date");
        body
    }
}

pub async fn send(request: SignedRequest) -> Answer {
    let response = http()
        .request(request.method, request.url)
        .headers(request.headers)
        .body(request.body)
        .send()
        .await
        .expect("request sent");
    answer(response).await
}

/// Places `body` (a `/trading/orders/place` body) through `client`, signed; the answer as it is.
pub async fn place(client: &Client, body: impl std::borrow::Borrow<serde_json::Value>) -> Answer {
    post(client, "/trading/orders/place", body.borrow()).await
}

/// Posts `body` to `path` through `client`, signed; the answer as it is.
pub async fn post(client: &Client, path: &str, body: &serde_json::Value) -> Answer {
    let body = serde_json::to_vec(body).expect("a JSON body");
    send(
        client
            .prepare(reqwest::Method::POST, path, &[], Some(body))
            .expect("a signed request"),
    )
    .await
}

/// The detail of `account`'s order `client_order_id` (`/trading/orders/get`).
pub async fn order_detail(client: &Client, account: &str, client_order_id: &str) -> serde_json::Value {
    client
        .get(
            "/trading/orders/get",
            &[("account_id", account), ("client_order_id", client_order_id)],
        )
        .await
        .expect("the order's detail")
}

/// The rows of a list answer: a bare array, or its `data`.
pub fn rows(answer: &serde_json::Value) -> &Vec<serde_json::Value> {
    answer
        .as_array()
        .or_else(|| answer["data"].as_array())
        .unwrap_or_else(|| panic!("a list: {answer}"))
}

/// Places each of `orders` (order objects) alone in `account` through `client`, all at the
/// same moment: the answers, in order.
pub async fn place_together(client: &Client, account: &str, orders: Vec<serde_json::Value>) -> Vec<Answer> {
    let requests = orders
        .into_iter()
        .map(|order| {
            let body = serde_json::json!({"account_id": account, "new_orders": [order]});
            client
                .prepare(
                    reqwest::Method::POST,
                    "/trading/orders/place",
                    &[],
                    Some(serde_json::to_vec(&body).expect("a JSON body")),
                )
                .expect("a signed request")
        })
        .collect();
    send_together(requests).await
}

/// Sends every request at once and waits for all the answers, in order.
pub async fn send_together(requests: Vec<SignedRequest>) -> Vec<Answer> {
    let handles: Vec<_> = requests.into_iter().map(|r| tokio::spawn(send(r))).collect();
    let mut answers = Vec::with_capacity(handles.len());
    for handle in handles {
        answers.push(handle.await.expect("a request task"));
    }
    answers
}

pub async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.expect("body");
    let body = if bytes.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| panic!("answer is not JSON: {}", String::from_utf8_lossy(&bytes)))
    };
    Answer { status, headers, body }
}

pub fn http() -> reqwest::Client {
    reqwest::Client::new()
}

/// Writes `request` on a new connection and reads until the server closes it.
pub async fn raw_http(addr: SocketAddr, request: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("write");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    String::from_utf8_lossy(&response).into_owned()
}

/// The seven headers of a request signed for `server`'s app over exactly this host, path, raw
/// query and body, for requests a client library would not build (another host, an unusual path).
pub fn sign_exactly(
    server: &TestServer,
    host: &str,
    path: &str,
    raw_query: &str,
    body: &[u8],
) -> Vec<(&'static str, String)> {
    sign_as(server, Scheme::default(), host, path, raw_query, body)
}

/// How a request is signed: the specification's scheme by default, or an older client's.
#[derive(Debug, Clone, Copy)]
pub struct Scheme {
    pub algorithm: signet_signing::Algorithm,
    pub encoding: signet_signing::Encoding,
    pub version: &'static str,
}

impl Default for Scheme {
    fn default() -> Self {
        Scheme {
            algorithm: signet_signing::Algorithm::HmacSha256,
            encoding: signet_signing::Encoding::Standard,
            version: "v3",
        }
    }
}

/// [`sign_exactly`] with `scheme`.
pub fn sign_as(
    server: &TestServer,
    scheme: Scheme,
    host: &str,
    path: &str,
    raw_query: &str,
    body: &[u8],
) -> Vec<(&'static str, String)> {
    use secrecy::ExposeSecret;
    use signet_model::headers as h;
    use signet_signing::SigningHeaders;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let timestamp = signet_signing::format_timestamp(now);
    let nonce = signet_server::secrets::random_hex::<16>().unwrap();
    let headers = SigningHeaders {
        app_key: &server.app.app_key,
        algorithm: scheme.algorithm,
        signature_version: "1.0",
        nonce: &nonce,
        timestamp: &timestamp,
        host,
    };
    let mut request = signet_signing::Request::new(path, headers).with_body(body);
    if !raw_query.is_empty() {
        request = request.with_raw_query(raw_query);
    }
    let signature = signet_signing::sign_with(&request, server.app.app_secret.expose_secret(), scheme.encoding);
    vec![
        (h::APP_KEY, server.app.app_key.to_string()),
        (h::TIMESTAMP, timestamp),
        (h::SIGNATURE, signature),
        (h::SIGNATURE_ALGORITHM, scheme.algorithm.name().into()),
        (h::SIGNATURE_VERSION, "1.0".into()),
        (h::SIGNATURE_NONCE, nonce),
        (h::VERSION, scheme.version.into()),
    ]
}

/// The value of the sample `name{labels}` (labels in any order, all of them given).
pub fn metric(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    text.lines().find_map(|line| {
        let (series, value) = line.rsplit_once(' ')?;
        let (series_name, rest) = series.split_once('{').unwrap_or((series, "}"));
        let got: Vec<&str> = rest
            .trim_end_matches('}')
            .split(',')
            .filter(|l| !l.is_empty())
            .collect();
        let wanted: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
        (series_name == name && got.len() == wanted.len() && wanted.iter().all(|w| got.contains(&w.as_str())))
            .then(|| value.parse().expect("a number"))
    })
}

pub async fn scrape_metrics(base: &str) -> String {
    let response = http().get(format!("{base}/metrics")).send().await.expect("scrape");
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    let text = response.text().await.unwrap();
    assert!(text.ends_with("# EOF\n"), "{text}");
    text
}

/// The interpreter a variable names (`scripts/test.sh` sets them); without it the caller is
/// skipped, unless `SIGNET_REQUIRE_INTEROP=1` (CI), which makes that a failure.
pub fn interpreter(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(python) if !python.is_empty() => Some(python),
        _ if std::env::var("SIGNET_REQUIRE_INTEROP").is_ok_and(|v| v == "1") => {
            panic!("SIGNET_REQUIRE_INTEROP=1 but {var} is not set: run scripts/test.sh")
        }
        _ => {
            eprintln!("skipped: {var} is not set (scripts/test.sh sets it)");
            None
        }
    }
}

/// `python tests/python/SCRIPT SCENARIO 127.0.0.1 PORT` against `server`, with the app's key and
/// secret in `SIGNET_APP_KEY` and `SIGNET_APP_SECRET`, its output piped.
pub fn python_script(python: &str, script: &str, server: &TestServer, scenario: &str) -> std::process::Command {
    let mut command = std::process::Command::new(python);
    command
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python").join(script))
        .arg(scenario)
        .arg("127.0.0.1")
        .arg(server.addr.port().to_string())
        .env("SIGNET_APP_KEY", &server.app.app_key)
        .env(
            "SIGNET_APP_SECRET",
            secrecy::ExposeSecret::expose_secret(&server.app.app_secret),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    command
}

/// The body of `/trading/orders/place` for a market buy of 10 `symbol`, core session.
pub fn market_buy(account_id: &str, client_order_id: &str, symbol: &str) -> serde_json::Value {
    serde_json::json!({"account_id": account_id, "new_orders": [{
        "client_order_id": client_order_id, "combo_type": "NORMAL", "symbol": symbol, "side": "BUY",
        "order_type": "MARKET", "time_in_force": "DAY", "entrust_type": "QTY", "quantity": "10",
        "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE"
    }]})
}

/// How late a busy machine may be, as a test sees it, to act on a deadline or to do what it does
/// at once (close a connection over a limit, end a stream at shutdown, push an event). Every
/// upper bound the tests put on a wall-clock time is a deadline plus this; what is done "at
/// once" must be done within it. What the tests wait for takes milliseconds to a few hundred
/// on this 2-core machine, and every test passed with this bound with four CPU-bound processes
/// beside the suite (`docs/performance.md`, issue 55). Lower bounds stay tight (the deadline, less the clocks' coarseness):
/// no load makes a server early. Where "at once" must be told from a deadline, the test sets the
/// deadline well beyond this (the header timeout's 10 s, the bind timeout's 30 s), or checks
/// the order of the two.
pub const LATE: std::time::Duration = std::time::Duration::from_secs(5);

/// Reads `stream` until the server closes it (end of file, or a reset: the server closed with
/// bytes of ours unread), at most until `by` after `since` (the test's instant before it did
/// what starts the server's deadline): how long after `since` it closed, and what it sent
/// meanwhile. Panics if it is still open then.
pub async fn until_closed<S>(
    stream: &mut S,
    since: std::time::Instant,
    by: std::time::Duration,
) -> (std::time::Duration, Vec<u8>)
where
    S: tokio::io::AsyncRead + Unpin,
{
    use tokio::io::AsyncReadExt;
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let read = tokio::time::timeout_at((since + by).into(), stream.read(&mut buffer)).await;
        match read {
            Ok(Ok(0) | Err(_)) => return (since.elapsed(), received),
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
            Err(_) => panic!("still open {by:?} after it began"),
        }
    }
}
