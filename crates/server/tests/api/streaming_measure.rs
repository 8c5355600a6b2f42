//! One measurement of the quotes feed, run by hand (ignored otherwise):
//! `N=1000 cargo test -p signet-server --test api -- --ignored measure_feed --nocapture`.
//! N sessions (raw TCP clients that read and count what they receive) each subscribe 5 symbols
//! to SNAPSHOT, QUOTE and TICK on a running clock at speed 1; the process's CPU time over 10 s
//! is read before subscribing (the engine's ticks alone) and after. The readers run in the same
//! process, so the figure is the feed's cost and theirs together (docs/performance.md). With
//! `CARRIER=ws`, the sessions connect over WebSocket (`mqtt_ws_listen`, tokio-tungstenite
//! clients counting the bytes of the binary messages) instead.

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
    let over_ws = std::env::var("CARRIER").is_ok_and(|c| c == "ws");
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| {
        if over_ws {
            c.mqtt_ws_listen = Some("127.0.0.1:0".parse().unwrap());
        } else {
            c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap());
        }
        c.streaming.max_sessions_per_app = 100_000;
        // Every session connects from this address, unbound until it subscribes 12 s later.
        c.streaming.max_unbound_per_address = 100_000;
        c.streaming.max_unbound = 100_000;
        c.market.clock = ClockMode::Running { speed: 1.0 };
    })
    .await;
    let addr = server.mqtt_addr.or(server.mqtt_ws_addr).unwrap();
    let bytes = Arc::new(AtomicU64::new(0));
    for i in 0..sessions {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut packet = Connect::new(format!("s{i}"));
        packet.keep_alive = 0;
        packet.set_login(server.app.app_key.clone(), "x");
        let mut out = bytes::BytesMut::new();
        packet.write(&mut out).unwrap();
        if over_ws {
            ws_session(stream, &out, bytes.clone()).await;
            continue;
        }
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
        "MEASURE carrier={} sessions={sessions} idle_cpu={:.2} cores, with feed={:.2} cores, bytes/s={}, rss before={}MB after={}MB, messages={:?} dropped={:?}",
        if over_ws { "ws" } else { "tcp" },
        idle as f64 / 1000.0,
        busy as f64 / 1000.0,
        got / 10,
        r0 / 1024,
        rss_kb() / 1024,
        crate::common::metric(&text, "signet_mqtt_messages_total", &[]),
        crate::common::metric(&text, "signet_mqtt_dropped_messages_total", &[]),
    );
}

/// A session over WebSocket: upgraded on `/mqtt`, CONNECT sent, CONNACK read, then a task that
/// counts the bytes its binary messages carry.
async fn ws_session(stream: tokio::net::TcpStream, connect: &[u8], counter: Arc<AtomicU64>) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    stream.set_nodelay(true).unwrap();
    // tungstenite's default read buffer (128 KiB a connection) would outweigh the server's.
    let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4096);
    let (mut ws, _) = tokio_tungstenite::client_async_with_config("ws://127.0.0.1/mqtt", stream, Some(config))
        .await
        .unwrap();
    ws.send(Message::Binary(bytes::Bytes::copy_from_slice(connect)))
        .await
        .unwrap();
    match ws.next().await {
        Some(Ok(Message::Binary(connack))) => assert_eq!(&connack[..], [0x20, 2, 0, 0]),
        other => panic!("expected CONNACK, got {other:?}"),
    }
    tokio::spawn(async move {
        while let Some(Ok(message)) = ws.next().await {
            if let Message::Binary(payload) = message {
                counter.fetch_add(payload.len() as u64, Ordering::Relaxed);
            }
        }
    });
}
