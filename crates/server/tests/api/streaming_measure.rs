//! One measurement of the quotes feed, run by hand (ignored otherwise):
//! `N=1000 cargo test -p signet-server --test api -- --ignored measure_feed --nocapture`.
//! N sessions (raw TCP clients that read and count what they receive) each subscribe 5 symbols
//! to SNAPSHOT, QUOTE and TICK on a running clock at speed 1; the process's CPU time over 10 s
//! is read before subscribing (the engine's ticks alone) and after. The readers run in the same
//! process, so the figure is the feed's cost and theirs together (docs/performance.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reqwest::Method;
use rumqttc::mqttbytes::v4::Connect;
use serde_json::json;
use signet_domain::simulator::clock::ClockMode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{TestServer, send};

fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let after = stat.rsplit_once(')').unwrap().1;
    let f: Vec<&str> = after.split_whitespace().collect();
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

fn rss_kb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines()
        .find(|l| l.starts_with("VmRSS"))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, run by hand"]
async fn measure_feed() {
    let sessions: usize = std::env::var("N").ok().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| {
        c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap());
        c.streaming.max_sessions_per_app = 100_000;
        // Every session connects from this address, unbound until it subscribes 12 s later.
        c.streaming.max_unbound_per_address = 100_000;
        c.streaming.max_unbound = 100_000;
        c.market.clock = ClockMode::Running { speed: 1.0 };
    })
    .await;
    let addr = server.mqtt_addr.unwrap();
    let bytes = Arc::new(AtomicU64::new(0));
    for i in 0..sessions {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut packet = Connect::new(format!("s{i}"));
        packet.keep_alive = 0;
        packet.set_login(server.app.app_key.clone(), "x");
        let mut out = bytes::BytesMut::new();
        packet.write(&mut out).unwrap();
        stream.write_all(&out).await.unwrap();
        let mut connack = [0u8; 4];
        stream.read_exact(&mut connack).await.unwrap();
        let counter = bytes.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 16384];
            while let Ok(n) = stream.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                counter.fetch_add(n as u64, Ordering::Relaxed);
            }
        });
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (t0, r0) = (cpu_ticks(), rss_kb());
    tokio::time::sleep(Duration::from_secs(10)).await;
    let idle = cpu_ticks() - t0;
    let client = server.client();
    let symbols = ["AAPL", "MSFT", "IBM", "GOOG", "FB"];
    for i in 0..sessions {
        let body = json!({"session_id": format!("s{i}"), "symbols": symbols, "category": "US_STOCK", "sub_types": ["SNAPSHOT", "QUOTE", "TICK"]});
        let answer = send(
            client
                .prepare(
                    Method::POST,
                    "/market-data/streaming/subscribe",
                    &[],
                    Some(serde_json::to_vec(&body).unwrap()),
                )
                .unwrap(),
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (t1, b1) = (cpu_ticks(), bytes.load(Ordering::Relaxed));
    tokio::time::sleep(Duration::from_secs(10)).await;
    let busy = cpu_ticks() - t1;
    let got = bytes.load(Ordering::Relaxed) - b1;
    let text = crate::common::scrape_metrics(&server.endpoint).await;
    eprintln!(
        "MEASURE sessions={sessions} idle_cpu={:.2} cores, with feed={:.2} cores, bytes/s={}, rss before={}MB after={}MB, messages={:?} dropped={:?}",
        idle as f64 / 1000.0,
        busy as f64 / 1000.0,
        got / 10,
        r0 / 1024,
        rss_kb() / 1024,
        crate::common::metric(&text, "signet_mqtt_messages_total", &[]),
        crate::common::metric(&text, "signet_mqtt_dropped_messages_total", &[]),
    );
}
