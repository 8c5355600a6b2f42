//! How fast order events reach their subscribers: opens `--subscribers N` subscriptions to
//! `--account` on `--endpoint`, places `--orders M` market buys of one AAPL share (about
//! $430 each, on the demo prices) on
//! `--place-endpoint` (the same node by default, another for the several-node figure), one every
//! `--every-ms`, and reports, over every subscriber's copy of every fill's event, the time from
//! the fill (taken just before its transaction commits) to its arrival: p50, p99, max. With
//! `--hold SECONDS` it only keeps the subscriptions open that long, idle (for the placement
//! throughput beside them), and places nothing.
//!
//! cargo run --release -p signet-client --example events -- \
//!     --endpoint http://127.0.0.1:8080 --account ID --subscribers 1000 --orders 200
//! (credentials from SIGNET_APP_KEY and SIGNET_APP_SECRET; the server needs
//! --events-max-streams of at least N)

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use signet_client::Client;

struct Args {
    endpoint: String,
    place_endpoint: Option<String>,
    account: String,
    subscribers: usize,
    orders: usize,
    every_ms: u64,
    hold: Option<u64>,
}

fn args() -> Args {
    let mut args = Args {
        endpoint: "http://127.0.0.1:8080".into(),
        place_endpoint: None,
        account: String::new(),
        subscribers: 1000,
        orders: 200,
        every_ms: 20,
        hold: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--endpoint" => args.endpoint = value(),
            "--place-endpoint" => args.place_endpoint = Some(value()),
            "--account" => args.account = value(),
            "--subscribers" => args.subscribers = value().parse().expect("subscribers"),
            "--orders" => args.orders = value().parse().expect("orders"),
            "--every-ms" => args.every_ms = value().parse().expect("every-ms"),
            "--hold" => args.hold = Some(value().parse().expect("seconds")),
            other => panic!("unknown flag {other}"),
        }
    }
    assert!(!args.account.is_empty(), "--account is required");
    args
}

fn client(endpoint: &str) -> Client {
    let key = std::env::var("SIGNET_APP_KEY").expect("SIGNET_APP_KEY");
    let secret = std::env::var("SIGNET_APP_SECRET").expect("SIGNET_APP_SECRET");
    Client::new(endpoint, key, secret).expect("a client")
}

fn now_ms() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(now.as_millis()).unwrap()
}

#[tokio::main]
async fn main() {
    let args = args();
    let subscriber = client(&args.endpoint);
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let mut readers = Vec::new();
    for _ in 0..args.subscribers {
        let mut events = subscriber
            .events()
            .subscribe(&[&args.account])
            .await
            .expect("a subscription");
        let latencies = latencies.clone();
        readers.push(tokio::spawn(async move {
            while let Some(event) = events.next().await {
                let signet_client::Event::Order(event) = event.expect("an event") else {
                    continue;
                };
                if event.payload.scene_type == "FINAL_FILLED" {
                    let took = now_ms() - event.time_ms;
                    latencies.lock().push(took);
                }
            }
        }));
    }
    if let Some(seconds) = args.hold {
        tokio::time::sleep(Duration::from_secs(seconds)).await;
        println!("{{\"subscribers\": {}, \"held_s\": {seconds}}}", args.subscribers);
        std::process::exit(0);
    }
    let placer = client(args.place_endpoint.as_deref().unwrap_or(&args.endpoint));
    let run = now_ms();
    for i in 0..args.orders {
        let order = serde_json::json!({
            "client_order_id": format!("ev{run}-{i}"), "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
            "order_type": "MARKET", "time_in_force": "DAY", "entrust_type": "QTY", "quantity": "1",
            "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE",
        });
        let body = serde_json::json!({"account_id": args.account, "new_orders": [order]});
        let _: serde_json::Value = placer.post("/trading/orders/place", &body).await.expect("placed");
        tokio::time::sleep(Duration::from_millis(args.every_ms)).await;
    }
    // Every subscriber's copy of every fill, or what arrived within 10 s of the last order.
    let expected = args.orders * args.subscribers;
    let deadline = now_ms() + 10_000;
    while now_ms() < deadline && latencies.lock().len() < expected {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for r in &readers {
        r.abort();
    }
    let mut all = latencies.lock().clone();
    all.sort_unstable();
    // The value at `percent` of the sorted latencies (nearest rank).
    let at = |percent: usize| {
        all.get(all.len().saturating_sub(1) * percent / 100)
            .copied()
            .unwrap_or(-1)
    };
    println!(
        "{{\"subscribers\": {}, \"orders\": {}, \"received\": {}, \"expected\": {expected}, \"p50_ms\": {}, \"p99_ms\": {}, \"max_ms\": {}}}",
        args.subscribers,
        args.orders,
        all.len(),
        at(50),
        at(99),
        all.last().copied().unwrap_or(-1)
    );
}
