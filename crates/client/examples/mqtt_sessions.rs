//! Sessions of the quotes feed, for its bench: opens `--sessions N` MQTT sessions to `--mqtt`
//! (`--connecting C` at a time), subscribes each over signed HTTP on `--endpoint` to
//! `--symbols` (comma-separated) for `--sub-types`, and reads what is pushed. When every session
//! is subscribed it creates `--ready-file PATH` (if given); it runs `--seconds S` (until killed
//! when 0, or until every session's connection has ended), prints the messages received a second
//! every 10 s on stderr, and at the end one JSON line: sessions, messages, messages a second, and
//! errors.
//!
//! cargo run --release -p signet-client --example mqtt_sessions -- \
//!     --endpoint http://127.0.0.1:8080 --mqtt 127.0.0.1:1883 --sessions 1000
//! (credentials from SIGNET_APP_KEY and SIGNET_APP_SECRET; the server needs --mqtt-max-sessions
//! of at least N, and --rate-limits off for N subscribe calls)

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use signet_client::{Client, SubType};

struct Args {
    endpoint: String,
    mqtt: String,
    sessions: usize,
    connecting: usize,
    symbols: Vec<String>,
    sub_types: Vec<SubType>,
    seconds: u64,
    ready_file: Option<std::path::PathBuf>,
}

fn args() -> Args {
    let mut args = Args {
        endpoint: "http://127.0.0.1:8080".into(),
        mqtt: "127.0.0.1:1883".into(),
        sessions: 1000,
        connecting: 50,
        symbols: ["AAPL", "MSFT", "IBM", "GOOG", "FB"].map(String::from).to_vec(),
        sub_types: SubType::ALL.to_vec(),
        seconds: 0,
        ready_file: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--endpoint" => args.endpoint = value(),
            "--mqtt" => args.mqtt = value(),
            "--sessions" => args.sessions = value().parse().expect("sessions"),
            "--connecting" => args.connecting = value().parse::<usize>().expect("connecting").max(1),
            "--symbols" => args.symbols = value().split(',').map(str::to_owned).collect(),
            "--sub-types" => {
                args.sub_types = value()
                    .split(',')
                    .map(|name| {
                        SubType::ALL
                            .into_iter()
                            .find(|t| t.name().eq_ignore_ascii_case(name))
                            .unwrap_or_else(|| panic!("--sub-types takes SNAPSHOT, QUOTE, TICK, not {name}"))
                    })
                    .collect();
            }
            "--seconds" => args.seconds = value().parse().expect("seconds"),
            "--ready-file" => args.ready_file = Some(value().into()),
            other => panic!("unknown flag {other}"),
        }
    }
    args
}

#[tokio::main]
async fn main() {
    let args = Arc::new(args());
    let key = std::env::var("SIGNET_APP_KEY").unwrap_or_default();
    let secret = std::env::var("SIGNET_APP_SECRET").unwrap_or_default();
    let client = Client::new(&args.endpoint, key, secret).expect("client");
    let received = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    // Sessions whose connection is still open.
    let live = Arc::new(AtomicUsize::new(0));

    // Connect and subscribe, C at a time; each session then reads on its own task.
    let started = Instant::now();
    let permits = Arc::new(tokio::sync::Semaphore::new(args.connecting));
    let mut opening = tokio::task::JoinSet::new();
    for _ in 0..args.sessions {
        let (client, args, permits) = (client.clone(), args.clone(), permits.clone());
        let (received, errors, live) = (received.clone(), errors.clone(), live.clone());
        opening.spawn(async move {
            let permit = permits.acquire_owned().await.expect("semaphore");
            let symbols: Vec<&str> = args.symbols.iter().map(String::as_str).collect();
            let mut stream = client.quotes().stream(&args.mqtt, &symbols, &args.sub_types).await?;
            drop(permit);
            live.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(async move {
                while let Some(pushed) = stream.next().await {
                    match pushed {
                        Ok(_) => received.fetch_add(1, Ordering::Relaxed),
                        Err(_) => errors.fetch_add(1, Ordering::Relaxed),
                    };
                }
                live.fetch_sub(1, Ordering::Relaxed);
            });
            Ok::<(), signet_client::Error>(())
        });
    }
    let mut open = 0;
    while let Some(opened) = opening.join_next().await {
        match opened.expect("a session's task") {
            Ok(()) => open += 1,
            Err(e) => {
                errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("a session failed: {e}");
            }
        }
    }
    eprintln!("{open} sessions subscribed in {:.1} s", started.elapsed().as_secs_f64());
    if let Some(path) = &args.ready_file {
        std::fs::write(path, open.to_string()).expect("the ready file");
    }

    let from = (Instant::now(), received.load(Ordering::Relaxed));
    let mut last = from;
    loop {
        tokio::time::sleep(Duration::from_secs(10)).await;
        let now = (Instant::now(), received.load(Ordering::Relaxed));
        let rate = (now.1 - last.1) as f64 / now.0.duration_since(last.0).as_secs_f64();
        eprintln!("{rate:.0} messages/s");
        last = now;
        let over = args.seconds > 0 && now.0.duration_since(from.0) >= Duration::from_secs(args.seconds);
        if over || live.load(Ordering::Relaxed) == 0 {
            break;
        }
    }
    let seconds = last.0.duration_since(from.0).as_secs_f64();
    let messages = last.1 - from.1;
    println!(
        "{}",
        serde_json::json!({
            "sessions": open,
            "messages": messages,
            "messages_per_second": (messages as f64 / seconds).round(),
            "errors": errors.load(Ordering::Relaxed),
        })
    );
}
