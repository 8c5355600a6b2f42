//! A small closed-loop load generator: N workers send signed GETs (a fresh nonce each) for a
//! fixed time and report requests per second, p50 and p99. `--unsigned` sends plain GETs,
//! for a baseline measured in the same run (with `--app-key-only`, only the `x-app-key` header, for
//! a server built with `benchmark-no-auth`); `--place ACCOUNT` places LIMIT orders instead (a
//! buy of one share far below the market, GTC, so that none fills and each is a new order).
//! `--query NAME=VALUE` (repeatable) adds a parameter to the signed GET; `--post JSON` sends a
//! signed POST of that body instead. Answers are read whole, not parsed.
//! `--while-file PATH` stops the load early when PATH disappears (a script removes it when what
//! it measures the load beside is over). `--ca FILE` trusts that CA besides the system's roots
//! (an `https` endpoint of a server with `--tls self-signed`).
//!
//! cargo run --release -p signet-client --example load -- \
//!     --endpoint http://127.0.0.1:8080 --path /trading/accounts/list --seconds 10 --workers 32
//! (credentials from SIGNET_APP_KEY and SIGNET_APP_SECRET)

use std::time::{Duration, Instant};

use reqwest::Method;
use signet_client::Client;

struct Args {
    endpoint: String,
    path: String,
    seconds: u64,
    workers: usize,
    unsigned: bool,
    app_key_only: bool,
    place: Option<String>,
    query: Vec<(String, String)>,
    post: Option<serde_json::Value>,
    while_file: Option<std::path::PathBuf>,
    ca: Option<std::path::PathBuf>,
}

fn args() -> Args {
    let mut args = Args {
        endpoint: "http://127.0.0.1:8080".into(),
        path: "/trading/accounts/list".into(),
        seconds: 10,
        workers: 32,
        unsigned: false,
        app_key_only: false,
        place: None,
        query: Vec::new(),
        post: None,
        while_file: None,
        ca: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--endpoint" => args.endpoint = value(),
            "--path" => args.path = value(),
            "--seconds" => args.seconds = value().parse().expect("seconds"),
            "--workers" => args.workers = value().parse().expect("workers"),
            "--unsigned" => args.unsigned = true,
            "--app-key-only" => {
                args.unsigned = true;
                args.app_key_only = true;
            }
            "--place" => args.place = Some(value()),
            "--query" => {
                let pair = value();
                let (name, v) = pair.split_once('=').expect("--query NAME=VALUE");
                args.query.push((name.to_owned(), v.to_owned()));
            }
            "--post" => args.post = Some(serde_json::from_str(&value()).expect("--post takes JSON")),
            "--while-file" => args.while_file = Some(value().into()),
            "--ca" => args.ca = Some(value().into()),
            other => panic!("unknown flag {other}"),
        }
    }
    args
}

#[tokio::main]
async fn main() {
    let args = args();
    let key = std::env::var("SIGNET_APP_KEY").unwrap_or_default();
    let secret = std::env::var("SIGNET_APP_SECRET").unwrap_or_default();
    let trust = match &args.ca {
        Some(ca) => signet_client::Trust::system().add_pem_file(ca).expect("--ca"),
        None => signet_client::Trust::system(),
    };
    let client = Client::with_trust(&args.endpoint, key.clone(), secret, trust.clone()).expect("client");
    let plain = trust
        .apply(reqwest::Client::builder())
        .and_then(|b| Ok(b.build()?))
        .expect("HTTP client");
    let url = format!("{}{}", args.endpoint, args.path);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.seconds);

    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..args.workers {
        let app_key = args.app_key_only.then(|| key.clone());
        let while_file = args.while_file.clone();
        let (client, plain, url, path, unsigned, place) = (
            client.clone(),
            plain.clone(),
            url.clone(),
            args.path.clone(),
            args.unsigned,
            args.place.clone(),
        );
        let (query, post) = (args.query.clone(), args.post.clone());
        workers.spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0u64;
            while Instant::now() < deadline && while_file.as_ref().is_none_or(|f| f.exists()) {
                let started = Instant::now();
                let ok = if let Some(account) = &place {
                    let order = signet_model::orders::NewOrder {
                        client_order_id: Some(uuid::Uuid::new_v4().simple().to_string()),
                        symbol: Some("AAPL".into()),
                        side: Some("BUY".into()),
                        order_type: Some("LIMIT".into()),
                        time_in_force: Some("GTC".into()),
                        quantity: Some("1".into()),
                        limit_price: Some("1".into()),
                        ..Default::default()
                    };
                    client.orders().place(account, order).await.is_ok()
                } else if unsigned {
                    let request = match &app_key {
                        Some(key) => plain.get(&url).header("x-app-key", key),
                        None => plain.get(&url),
                    };
                    match request.send().await {
                        Ok(r) => r.status().is_success() && r.bytes().await.is_ok(),
                        Err(_) => false,
                    }
                } else {
                    // Signed as the SDK signs, and the answer read whole but not parsed: the
                    // load generator shares the server's cores, and parsing a large answer
                    // would take them from the server (as a plain HTTP load tool would not).
                    let query: Vec<(&str, &str)> = query.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
                    let (method, body) = match &post {
                        Some(body) => (Method::POST, Some(serde_json::to_vec(body).expect("JSON"))),
                        None => (Method::GET, None),
                    };
                    let signed = client.prepare(method, &path, &query, body).expect("a request to sign");
                    let sent = plain
                        .request(signed.method, signed.url)
                        .headers(signed.headers)
                        .body(signed.body)
                        .send()
                        .await;
                    match sent {
                        Ok(r) => r.status().is_success() && r.bytes().await.is_ok(),
                        Err(_) => false,
                    }
                };
                latencies.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
                errors += u64::from(!ok);
            }
            (latencies, errors)
        });
    }
    let mut latencies = Vec::new();
    let mut errors = 0;
    while let Some(done) = workers.join_next().await {
        let (l, e) = done.expect("worker");
        latencies.extend(l);
        errors += e;
    }
    let seconds = started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    #[expect(clippy::cast_possible_truncation, reason = "a fraction of the number of latencies")]
    let pct = |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)] as f64 / 1000.0;
    println!(
        "{{\"requests\": {}, \"errors\": {errors}, \"rps\": {:.0}, \"p50_ms\": {:.2}, \"p99_ms\": {:.2}, \"max_ms\": {:.2}}}",
        latencies.len(),
        latencies.len() as f64 / seconds,
        pct(0.50),
        pct(0.99),
        pct(1.0)
    );
}
