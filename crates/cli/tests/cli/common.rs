//! What the binary's tests share: running `signet`, and a server on a free port.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::Value;

/// How late a busy machine may be, as a test sees it, to act on a deadline or to do what it does
/// at once: every upper bound these tests put on a wall-clock time is a deadline plus this (the
/// server's suite has the same, `LATE` in `crates/server/tests/api/common.rs`, which says why).
pub const LATE: Duration = Duration::from_secs(5);

pub fn signet() -> Command {
    isolated(Command::new(env!("CARGO_BIN_EXE_signet")))
}

/// `command` without the variables that would point `signet` at another database or server.
pub fn isolated(mut command: Command) -> Command {
    for var in [
        "SIGNET_DB",
        "SIGNET_APP_KEY",
        "SIGNET_APP_SECRET",
        "SIGNET_ENDPOINT",
        "SIGNET_MASTER_KEY",
        "SIGNET_MQTT",
    ] {
        command.env_remove(var);
    }
    command
}

pub fn run_json(command: &mut Command) -> Value {
    let output = command.output().expect("signet runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))
}

pub struct Serving {
    pub child: Child,
    pub endpoint: String,
    pub stdout: Receiver<String>,
    pub stderr: Receiver<String>,
}

/// The lines of `reader`, read on a thread until end of file.
pub fn lines(reader: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    rx
}

/// The first line that satisfies `wanted`, within two minutes (`--demo` loads its dataset first).
pub fn wait_for(lines: &Receiver<String>, wanted: impl Fn(&str) -> bool) -> String {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(120))
            .expect("the server printed what was expected");
        if wanted(&line) {
            return line;
        }
    }
}

/// A SQLite file in `dir` with the demo's price history, an app with 10,000,000 in cash, a
/// server on the file, and a made-up price file of `symbols` symbols beside it, not yet
/// imported: what the tests of imports beside a running server start from.
pub struct BigFileBeside {
    pub db: String,
    pub big: std::path::PathBuf,
    /// The made-up file's rows.
    pub rows: usize,
    pub key: String,
    pub secret: String,
    /// The app's MARGIN account.
    pub account: String,
    pub serving: Serving,
    pub client: signet_client::Client,
}

pub fn big_file_beside(dir: &std::path::Path, symbols: usize) -> BigFileBeside {
    let db = dir.join("beside.db").to_str().unwrap().to_owned();
    let prices = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/demo/daily_ohlcv_2000_2013.csv.gz"
    );
    run_json(signet().args(["data", "import", "--db", &db, "--json", prices]));
    let big = dir.join("made-up.csv");
    let rows = made_up_prices(&big, symbols);
    let created = run_json(signet().args([
        "admin", "apps", "create", "--db", &db, "--name", "beside", "--cash", "10000000", "--json",
    ]));
    let (key, secret) = (
        created["app_key"].as_str().unwrap(),
        created["app_secret"].as_str().unwrap(),
    );
    let account = created["account_ids"][1].as_str().unwrap().to_owned();
    let serving = serve(&db, &["--rate-limits", "off"]);
    let client = signet_client::Client::new(&serving.endpoint, key, secret).unwrap();
    BigFileBeside {
        db,
        big,
        rows,
        key: key.to_owned(),
        secret: secret.to_owned(),
        account,
        serving,
        client,
    }
}

/// Starts `signet serve` on a free port and waits for it to log where it listens.
pub fn serve(db: &str, extra: &[&str]) -> Serving {
    serve_with(&[&["--db", db], extra].concat(), &[])
}

/// Starts `signet serve` with these options and environment on a free port (of loopback, unless
/// the options give another `--listen`).
pub fn serve_with(options: &[&str], env: &[(&str, &str)]) -> Serving {
    let listen: &[&str] = if options.contains(&"--listen") {
        &[]
    } else {
        &["--listen", "127.0.0.1:0"]
    };
    let mut child = signet()
        .arg("serve")
        .args(listen)
        .args(options)
        .env("RUST_LOG", server_log_filter())
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    let stderr = log_lines(child.stderr.take().unwrap());
    // Human log lines write address=HOST:PORT, JSON ones "address":"HOST:PORT".
    let line = wait_for(&stderr, |l| {
        l.contains("signet listening") && (l.contains("address=") || l.contains(r#""address":""#))
    });
    let address = line
        .split_once("address=")
        .or_else(|| line.split_once(r#""address":""#))
        .unwrap()
        .1
        .split(|c: char| c.is_whitespace() || c == '"')
        .next()
        .unwrap()
        .to_owned();
    // A server on every address is reached on loopback.
    let address = address.replace("0.0.0.0:", "127.0.0.1:");
    Serving {
        child,
        endpoint: format!("http://{address}"),
        stdout,
        stderr,
    }
}

/// The status line of an unsigned `GET path` to the server at `endpoint` (`http://HOST:PORT`).
pub fn status_line(endpoint: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let address = endpoint.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.lines().next().unwrap_or_default().to_owned()
}

/// Stops the server with SIGTERM and returns what it printed on stdout.
pub fn stop(mut serving: Serving) -> Vec<String> {
    let pid = serving.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let status = serving.child.wait().unwrap();
    assert!(status.success(), "SIGTERM stops the server cleanly: {status}");
    serving.stdout.iter().collect()
}

pub fn credential(stdout: &Receiver<String>, name: &str) -> String {
    let prefix = format!("{name}=");
    let value = wait_for(stdout, |l| l.trim().starts_with(&prefix)).trim()[prefix.len()..].to_owned();
    if name.contains("SECRET") {
        append_to_log_dir("secrets", &value);
    }
    value
}

/// With `SIGNET_TEST_LOG_DIR` (`scripts/test.sh`), adds a line to `cli-<pid>.<extension>` there,
/// for `scripts/check-logs.sh`: the servers' log lines, and the secrets they printed.
pub fn append_to_log_dir(extension: &str, line: &str) {
    use std::io::Write;
    let Some(dir) = std::env::var_os("SIGNET_TEST_LOG_DIR").filter(|d| !d.is_empty()) else {
        return;
    };
    let path = std::path::Path::new(&dir).join(format!("cli-{}.{extension}", std::process::id()));
    if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(file, "{line}");
    }
}

/// Debug lines when they are kept for `scripts/check-logs.sh`, so that it sees the most.
fn server_log_filter() -> &'static str {
    match std::env::var_os("SIGNET_TEST_LOG_DIR") {
        Some(dir) if !dir.is_empty() => "debug,sqlx=info,hyper=info,hyper_util=info,h2=info",
        _ => "info",
    }
}

/// The lines of a server's standard error, also kept for `scripts/check-logs.sh`.
pub fn log_lines(reader: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines().map_while(Result::ok) {
            append_to_log_dir("log", &line);
            let _ = tx.send(line);
        }
    });
    rx
}

/// A market buy of one AAPL share, a day order of the core session.
pub fn market_buy(id: String) -> signet_model::orders::NewOrder {
    signet_model::orders::NewOrder {
        client_order_id: Some(id),
        combo_type: Some("NORMAL".into()),
        instrument_type: Some("EQUITY".into()),
        market: Some("US".into()),
        symbol: Some("AAPL".into()),
        side: Some("BUY".into()),
        order_type: Some("MARKET".into()),
        time_in_force: Some("DAY".into()),
        entrust_type: Some("QTY".into()),
        quantity: Some(serde_json::json!("1")),
        support_trading_session: Some("CORE".into()),
        ..signet_model::orders::NewOrder::default()
    }
}

/// After market buys of one share each of which `acknowledged` were answered (and at most
/// `in_flight` more cut off): each acknowledged one is stored once, every stored one filled,
/// and the account's cash and shares equal the fills.
pub async fn assert_bought_once(
    database: &signet_server::Database,
    account: &str,
    acknowledged: &[String],
    in_flight: usize,
    start_cash: rust_decimal::Decimal,
) {
    use rust_decimal::Decimal;
    let store = &database.store;
    let account = &signet_model::ids::AccountId::from(account);
    let orders = store
        .orders(&signet_store::OrderQuery {
            account_id: account.clone(),
            open_only: false,
            from_ms: None,
            to_ms: None,
            before_seq: None,
            status: None,
            symbol: None,
            limit: u32::MAX,
        })
        .await
        .unwrap();
    let positions = store.positions(account).await.unwrap();
    let cash = store.account(account).await.unwrap().unwrap().cash;
    let held: Decimal = positions.iter().map(|p| p.holding.quantity).sum();
    eprintln!(
        "{} acknowledged, {} stored, {held} shares",
        acknowledged.len(),
        orders.len()
    );

    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for o in &orders {
        *seen.entry(o.client_order_id.as_str()).or_default() += 1;
    }
    for id in acknowledged {
        assert_eq!(
            seen.get(id.as_str()),
            Some(&1),
            "acknowledged order {id} exists exactly once"
        );
    }
    // Orders whose answer was cut off may exist too, but whole: the same checks hold.
    assert!(orders.len() <= acknowledged.len() + in_flight);
    for o in &orders {
        assert_eq!(
            o.status,
            signet_model::orders::OrderStatus::Filled,
            "{}",
            o.client_order_id
        );
        assert_eq!(o.filled_quantity, Decimal::ONE);
    }
    let spent: Decimal = orders.iter().map(|o| o.filled_amount).sum();
    assert_eq!(cash, start_cash - spent, "cash is the start less every fill");
    assert_eq!(held, Decimal::from(orders.len() as u64), "one share per filled order");
}

/// Waits (at most a minute) until `account` has no open order on the server behind `client`:
/// how long the engine takes to fill the rest depends on how loaded the machine is.
pub async fn wait_until_none_open(client: &signet_client::Client, account: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let open = client.orders().open(account, None).await.unwrap().data.len();
        if open == 0 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{open} orders still open after a minute"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Daily prices of `symbols` made-up symbols (`Z0000`...) over 500 weekdays, in the Quandl WIKI
/// layout: a file large enough that importing it takes seconds.
pub fn made_up_prices(path: &std::path::Path, symbols: usize) -> usize {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "Ticker,Date,Open,High,Low,Close,Volume,Adj Close").unwrap();
    let days: Vec<String> = (0..700)
        .map(|n| time::Date::from_calendar_date(2010, time::Month::January, 4).unwrap() + time::Duration::days(n))
        .filter(|d| d.weekday().number_days_from_monday() < 5)
        .take(500)
        .map(|d| d.to_string())
        .collect();
    for s in 0..symbols {
        for (n, day) in days.iter().enumerate() {
            let price = 20.0 + (s % 97) as f64 + (n % 13) as f64 * 0.25;
            writeln!(
                out,
                "Z{s:04},{day},{price:.2},{:.2},{:.2},{price:.2},{},{price:.2}",
                price + 0.5,
                price - 0.5,
                1000 + n
            )
            .unwrap();
        }
    }
    symbols * days.len()
}
