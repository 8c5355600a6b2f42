//! A real server on a random loopback port with a fresh database, for the integration tests.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use rust_decimal::Decimal;
use signet_client::{Client, SignedRequest};
use signet_model::ErrorBody;
use signet_server::market::MarketConfig;
use signet_server::market::clock::ClockMode;
use signet_server::marketdata::import::{Progress, import_file};
use signet_server::marketdata::snapshot;
use signet_server::{Admin, Credentials, Database, Durability, Server, ServerConfig};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub struct TestServer {
    pub addr: SocketAddr,
    pub endpoint: String,
    pub app: Credentials,
    pub database: Database,
    pub db_path: PathBuf,
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
        let dir = tempfile::tempdir().expect("temporary directory");
        let db_path = dir.path().join("signet.db");
        let database = Database::open_sqlite(&db_path, Durability::Normal, None)
            .await
            .expect("database");
        let app = admin(&database)
            .create_app("test app", Decimal::from(100_000))
            .await
            .expect("app");
        let mut config = ServerConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            ..ServerConfig::default()
        };
        adjust(&mut config);
        Self::launch(config, database, db_path, dir, app).await
    }

    /// Another node beside `self`: a server of its own (own port, own connections) on the same
    /// database file, so that the same app is known to both, as behind a load balancer.
    pub async fn beside(&self, adjust: impl FnOnce(&mut ServerConfig)) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let database = Database::open_sqlite(&self.db_path, Durability::Normal, None)
            .await
            .expect("database");
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
        Self::launch(config, database, self.db_path.clone(), dir, app).await
    }

    async fn launch(
        config: ServerConfig,
        database: Database,
        db_path: PathBuf,
        dir: tempfile::TempDir,
        app: Credentials,
    ) -> Self {
        let server = Server::bind(config.clone(), &database).await.expect("bind");
        let addr = server.local_addr();
        let (shutdown, stopped) = oneshot::channel();
        let handle = tokio::spawn(server.run(async move {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            endpoint: format!("http://{addr}"),
            app,
            database,
            db_path,
            config,
            dir,
            shutdown,
            handle,
        }
    }

    /// Stops the server, closes the database, and starts a new server on the same file and port.
    pub async fn restart(self) -> Self {
        let TestServer {
            mut config,
            dir,
            db_path,
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
        let database = Database::open_sqlite(&db_path, Durability::Normal, None)
            .await
            .expect("database reopened");
        Self::launch(config, database, db_path, dir, app).await
    }

    /// A server whose market clock stands at the core open of New York day `start`
    /// (`YYYY-MM-DD`), on the real price history in `data/demo`.
    pub async fn start_market(start: &str, seed: u64) -> Self {
        let start_day = signet_server::marketdata::units::parse_day(start).expect("a date");
        let server = Self::start_with(|c| {
            c.market = MarketConfig {
                seed,
                clock: ClockMode::Manual,
                start_day: Some(start_day),
                ..MarketConfig::default()
            };
        })
        .await;
        let prices =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/demo/daily_ohlcv_2000_2013.csv.gz");
        let store = server.database.store.clone();
        import_file(
            store.clone(),
            &prices,
            &Default::default(),
            Arc::new(Progress::default()),
        )
        .await
        .expect("prices");
        snapshot::refresh(store.as_ref(), None).await.expect("snapshots");
        // The simulator read an empty market when the server started: start it again on the prices.
        server.restart().await
    }

    /// A client of a new app created with `--admin`, which may drive the market.
    pub async fn ops(&self) -> Client {
        let app = self
            .admin()
            .create_app_with_role("ops", Decimal::ZERO, true)
            .await
            .expect("an admin app");
        self.client_for(&app)
    }

    pub fn admin(&self) -> Admin {
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

pub fn admin(database: &Database) -> Admin {
    Admin::new(database.store.clone(), database.key.clone())
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
