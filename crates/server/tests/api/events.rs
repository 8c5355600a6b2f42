//! The trade-events subscription over gRPC (catalog §12), spoken to with tonic on the HTTP
//! address and signed as the official client signs it: SubscribeSuccess, pings, the events of
//! a fill and a cancel, the position events of fills for the subscriptions that ask for them,
//! and the refusals (AuthError, then UNAUTHENTICATED or PERMISSION_DENIED).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use rust_decimal::Decimal;
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use signet_client::SubscribeCodec;
use signet_server::events::proto::{SUBSCRIBE_PATH, SubscribeRequest, SubscribeResponse};
use signet_signing::{GrpcSigningMetadata, format_timestamp, grpc_sign};
use tonic::{Code, Status, Streaming};

use crate::common::TestServer;

pub fn nonce() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{nanos:x}-{}", N.fetch_add(1, Ordering::Relaxed))
}

/// What `TradeEventsClient` asks for: order, position and option events.
pub const EVERY_TYPE: u32 = 7;

/// Subscribes as `TradeEventsClient.do_subscribe(accounts)` does, with `nonce`, to the server at
/// `addr` (`HOST:PORT`).
pub async fn subscribe_with(
    addr: &str,
    app_key: &str,
    secret: &str,
    accounts: &[&str],
    nonce: &str,
) -> Result<Streaming<SubscribeResponse>, Status> {
    let endpoint = tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap();
    open(endpoint, signed_request(app_key, secret, accounts, nonce, EVERY_TYPE)).await
}

/// The subscription `TradeEventsClient.do_subscribe(accounts)` sends, signed, asking for
/// `subscribe_type` (a bit set: 1 orders, 2 positions).
pub fn signed_request(
    app_key: &str,
    secret: &str,
    accounts: &[&str],
    nonce: &str,
    subscribe_type: u32,
) -> tonic::Request<Bytes> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let request = SubscribeRequest {
        subscribe_type,
        timestamp: i64::try_from(now.as_millis()).unwrap(),
        accounts: accounts.iter().map(ToString::to_string).collect(),
        ..SubscribeRequest::default()
    };
    let bytes = Bytes::from(prost::Message::encode_to_vec(&request));
    let timestamp = format_timestamp(now.as_secs() as i64);
    let signed = GrpcSigningMetadata {
        app_key,
        algorithm: "HMAC-SHA256",
        signature_version: "1.0",
        nonce,
        timestamp: &timestamp,
    };
    let signature = grpc_sign(&signed, &bytes, secret);
    let mut request = tonic::Request::new(bytes);
    for (name, value) in [
        ("x-app-key", app_key),
        ("x-signature-algorithm", "HMAC-SHA256"),
        ("x-signature-version", "1.0"),
        ("x-signature-nonce", nonce),
        ("x-timestamp", &timestamp),
        ("x-signature", &signature),
    ] {
        request.metadata_mut().insert(name, value.parse().unwrap());
    }
    request
}

async fn open(
    endpoint: tonic::transport::Endpoint,
    request: tonic::Request<Bytes>,
) -> Result<Streaming<SubscribeResponse>, Status> {
    let channel = endpoint.connect().await.expect("an HTTP/2 connection");
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.unwrap();
    grpc.server_streaming(request, SUBSCRIBE_PATH.parse().unwrap(), SubscribeCodec)
        .await
        .map(tonic::Response::into_inner)
}

pub async fn subscribe(server: &TestServer, accounts: &[&str]) -> Streaming<SubscribeResponse> {
    subscribe_to(server, accounts, EVERY_TYPE).await
}

async fn subscribe_to(server: &TestServer, accounts: &[&str], subscribe_type: u32) -> Streaming<SubscribeResponse> {
    let secret = server.app.app_secret.expose_secret().to_owned();
    let endpoint = tonic::transport::Endpoint::from_shared(server.endpoint.clone()).unwrap();
    let request = signed_request(&server.app.app_key, &secret, accounts, &nonce(), subscribe_type);
    open(endpoint, request).await.expect("a stream")
}

/// The next message within 5 s (`None` when the stream ended OK).
pub async fn next(stream: &mut Streaming<SubscribeResponse>) -> Result<Option<SubscribeResponse>, Status> {
    tokio::time::timeout(Duration::from_secs(5), stream.message())
        .await
        .expect("a message within 5 s")
}

/// The next order event, skipping pings and position events.
pub async fn next_order_event(stream: &mut Streaming<SubscribeResponse>) -> (SubscribeResponse, Value) {
    loop {
        let (m, payload) = next_event(stream).await;
        if m.event_type == 1024 {
            return (m, payload);
        }
    }
}

/// The next order or position event, skipping pings.
pub async fn next_event(stream: &mut Streaming<SubscribeResponse>) -> (SubscribeResponse, Value) {
    loop {
        let m = next(stream).await.unwrap().expect("an open stream");
        if m.event_type == 1 {
            continue;
        }
        assert!(
            [(1024, 1), (1028, 2)].contains(&(m.event_type, m.subscribe_type)),
            "{m:?}"
        );
        assert_eq!(m.content_type, "application/json");
        assert!(!m.request_id.is_empty());
        let payload: Value = serde_json::from_str(&m.payload).unwrap();
        assert!(
            payload.as_object().unwrap().values().all(Value::is_string),
            "flat, string values: {payload}"
        );
        return (m, payload);
    }
}

/// The refusal: one AuthError message with the HTTP error body, then `code`.
pub async fn assert_refused(result: Result<Streaming<SubscribeResponse>, Status>, error_code: &str, code: Code) {
    let mut stream = result.expect("the refusal is streamed");
    let m = next(&mut stream).await.unwrap().expect("an AuthError message");
    assert_eq!(m.event_type, 2, "{m:?}");
    let body: Value = serde_json::from_str(&m.payload).unwrap();
    assert_eq!(body["error_code"], error_code, "{body}");
    assert!(body["message"].as_str().is_some_and(|s| !s.is_empty()));
    let status = next(&mut stream).await.expect_err("the stream ends with an error");
    assert_eq!(status.code(), code, "{status:?}");
}

fn order(id: &str, order_type: &str, limit: Option<&str>) -> Value {
    let mut o = json!({
        "client_order_id": id, "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY", "order_type": order_type,
        "time_in_force": "DAY", "entrust_type": "QTY", "quantity": "10", "instrument_type": "EQUITY",
        "market": "US", "support_trading_session": "CORE"
    });
    if let Some(limit) = limit {
        o["limit_price"] = json!(limit);
    }
    o
}

#[tokio::test]
async fn a_subscriber_receives_its_placements_fill_replace_and_cancel() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    let other_account = server.app.account_ids[1].clone();
    let mut stream = subscribe(&server, &[&account]).await;
    let first = next(&mut stream).await.unwrap().unwrap();
    assert_eq!(first.event_type, 0, "SubscribeSuccess first: {first:?}");

    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(10_000))
        .await
        .unwrap();
    // An order of the app's other account, not subscribed to, fills first: its event is not sent.
    for (account, id) in [(&other_account, "elsewhere"), (&account, "evt-buy")] {
        let place = json!({"account_id": account, "new_orders": [order(id, "MARKET", None)]});
        let _: Value = client.post("/trading/orders/place", &place).await.unwrap();
    }
    let (_, placed) = next_order_event(&mut stream).await;
    assert_eq!(
        (
            &placed["client_order_id"],
            &placed["scene_type"],
            &placed["filled_time"]
        ),
        (&json!("evt-buy"), &json!("PLACE_SUCCESS"), &json!("")),
        "{placed}"
    );
    ops.market().step(1).await.unwrap();
    let (m, payload) = next_order_event(&mut stream).await;
    assert_eq!(payload["client_order_id"], "evt-buy", "{payload}");
    assert_eq!(payload["account_id"], account.as_str());
    assert_eq!(payload["scene_type"], "FINAL_FILLED");
    assert_eq!(payload["order_status"], "FILLED");
    assert_eq!(payload["symbol"], "AAPL");
    assert_eq!(payload["side"], "BUY");
    assert_eq!(payload["order_type"], "MARKET");
    assert_eq!(payload["request_id"], m.request_id.as_str());
    assert_eq!(
        payload["qty"].as_str().unwrap().parse::<Decimal>().unwrap(),
        Decimal::from(10)
    );
    assert_eq!(
        payload["filled_qty"].as_str().unwrap().parse::<Decimal>().unwrap(),
        Decimal::from(10)
    );
    assert_eq!(payload["filled_price"], "400.01");
    assert!(payload["filled_time"].as_str().unwrap().ends_with('Z'));

    let place = json!({"account_id": account, "new_orders": [order("evt-rest", "LIMIT", Some("300"))]});
    let _: Value = client.post("/trading/orders/place", &place).await.unwrap();
    assert_eq!(next_order_event(&mut stream).await.1["scene_type"], "PLACE_SUCCESS");
    ops.market().step(1).await.unwrap();
    let replace = json!({"account_id": account, "modify_orders": [
        {"client_order_id": "evt-rest", "quantity": "12", "limit_price": "301"}
    ]});
    let _: Value = client.post("/trading/orders/replace", &replace).await.unwrap();
    let (_, payload) = next_order_event(&mut stream).await;
    assert_eq!(
        (&payload["scene_type"], &payload["qty"]),
        (&json!("MODIFY_SUCCESS"), &json!("12")),
        "{payload}"
    );
    let cancel = json!({"account_id": account, "client_order_id": "evt-rest"});
    let _: Value = client.post("/trading/orders/cancel", &cancel).await.unwrap();
    let (_, payload) = next_order_event(&mut stream).await;
    assert_eq!(
        (
            &payload["client_order_id"],
            &payload["scene_type"],
            &payload["order_status"]
        ),
        (&json!("evt-rest"), &json!("CANCEL_SUCCESS"), &json!("CANCELLED")),
        "{payload}"
    );
}

#[tokio::test]
async fn pings_keep_the_stream_alive() {
    let server = TestServer::start_with(|c| c.events.ping_interval = Duration::from_millis(100)).await;
    let account = server.app.account_ids[0].clone();
    let mut stream = subscribe(&server, &[&account]).await;
    assert_eq!(next(&mut stream).await.unwrap().unwrap().event_type, 0);
    for _ in 0..2 {
        assert_eq!(next(&mut stream).await.unwrap().unwrap().event_type, 1);
    }
}

#[tokio::test]
async fn refusals_send_an_auth_error_then_end_the_stream() {
    let server = TestServer::start().await;
    let key = server.app.app_key.clone();
    let secret = server.app.app_secret.expose_secret().to_owned();
    let account = server.app.account_ids[0].clone();
    let addr = server.addr.to_string();

    let wrong = subscribe_with(&addr, &key, "not-the-secret", &[&account], &nonce()).await;
    assert_refused(wrong, "INCORRECT_SIGN", Code::Unauthenticated).await;

    let unknown = subscribe_with(&addr, "0000", &secret, &[&account], &nonce()).await;
    assert_refused(unknown, "UNAUTHORIZED", Code::Unauthenticated).await;

    // A replayed subscription: the nonce is spent in the store HTTP uses.
    let once = nonce();
    let mut first = subscribe_with(&addr, &key, &secret, &[&account], &once).await.unwrap();
    assert_eq!(next(&mut first).await.unwrap().unwrap().event_type, 0);
    let again = subscribe_with(&addr, &key, &secret, &[&account], &once).await;
    assert_refused(again, "DUPPLICATED_REQUEST", Code::Unauthenticated).await;

    let other = server
        .admin()
        .create_app("other app", Decimal::from(1000))
        .await
        .unwrap();
    let theirs = subscribe_with(&addr, &key, &secret, &[&account, &other.account_ids[0]], &nonce()).await;
    assert_refused(theirs, "ACCOUNT_NOT_FOUND_OR_DENIED", Code::PermissionDenied).await;
}

#[tokio::test]
async fn an_app_has_at_most_its_cap_of_open_streams() {
    let server = TestServer::start_with(|c| c.events.max_streams_per_app = 1).await;
    let account = server.app.account_ids[0].clone();
    let mut first = subscribe(&server, &[&account]).await;
    assert_eq!(next(&mut first).await.unwrap().unwrap().event_type, 0);
    let mut second = subscribe(&server, &[&account]).await;
    let m = next(&mut second).await.unwrap().expect("a NumOfConnExceed message");
    assert_eq!(m.event_type, 3, "{m:?}");
    let status = next(&mut second).await.expect_err("the stream ends with an error");
    assert_eq!(status.code(), Code::ResourceExhausted);
    // Once the first stream is closed, its slot is free again.
    drop(first);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let mut again = subscribe(&server, &[&account]).await;
        if next(&mut again).await.unwrap().unwrap().event_type == 0 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the slot is never freed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn shutdown_ends_every_stream_with_unavailable_at_once() {
    let server = TestServer::start().await;
    let account = server.app.account_ids[0].clone();
    let mut stream = subscribe(&server, &[&account]).await;
    assert_eq!(next(&mut stream).await.unwrap().unwrap().event_type, 0);
    let started = std::time::Instant::now();
    let stopping = tokio::spawn(server.stop());
    let status = next(&mut stream).await.expect_err("the stream ends with an error");
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    stopping.await.unwrap();
    // Not cut off at the end of the shutdown's grace period (8 s): the stream ended first.
    assert!(started.elapsed() < crate::common::LATE, "{:?}", started.elapsed());
}

#[tokio::test]
async fn the_subscription_is_also_served_on_its_own_address() {
    let server = TestServer::start_with(|c| c.events.listen = Some("127.0.0.1:0".parse().unwrap())).await;
    let events_addr = server.events_addr.expect("an events address").to_string();
    let account = server.app.account_ids[0].clone();
    let secret = server.app.app_secret.expose_secret().to_owned();
    let mut stream = subscribe_with(&events_addr, &server.app.app_key, &secret, &[&account], &nonce())
        .await
        .unwrap();
    assert_eq!(next(&mut stream).await.unwrap().unwrap().event_type, 0);
    // Nothing else is served there.
    let answer = reqwest::get(format!("http://{events_addr}/trading/accounts/list"))
        .await
        .unwrap();
    assert_eq!(answer.status(), 404);
    let body: Value = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
    assert_eq!(body["error_code"], "NOT_FOUND", "{body}");
}

#[tokio::test]
async fn a_subscriber_that_never_reads_is_cut_off_and_another_receives_every_event() {
    // A subscriber may fall 64 events behind (1024 by default) before it is cut off.
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| c.events.buffer = 64).await;
    let account = server.app.account_ids[0].clone();
    let client = server.client();
    // HTTP/2's smallest windows (hyper's client opens 2 MiB): what the sleeper's connection holds.
    let endpoint = tonic::transport::Endpoint::from_shared(server.endpoint.clone())
        .unwrap()
        .initial_stream_window_size(65_535)
        .initial_connection_window_size(65_535);
    let secret = server.app.app_secret.expose_secret().to_owned();
    let request = signed_request(&server.app.app_key, &secret, &[&account], &nonce(), EVERY_TYPE);
    let mut sleeper = open(endpoint, request).await.unwrap();
    let mut reader = subscribe(&server, &[&account]).await;
    assert_eq!(next(&mut sleeper).await.unwrap().unwrap().event_type, 0);
    assert_eq!(next(&mut reader).await.unwrap().unwrap().event_type, 0);
    let metrics = crate::common::scrape_metrics(&server.endpoint).await;
    assert!(metrics.contains("signet_event_streams 2\n"), "{metrics}");

    // More than the sleeper's connection and buffers hold (64 KiB, 16 responses, 64 events).
    const ORDERS: usize = 300;
    let mut received = 0;
    for i in 0..ORDERS {
        let place = json!({"account_id": account, "new_orders": [order(&format!("r{i}"), "LIMIT", Some("1"))]});
        let _: Value = client.post("/trading/orders/place", &place).await.unwrap();
        while received <= i {
            let (_, payload) = next_order_event(&mut reader).await;
            assert_eq!(
                payload["client_order_id"],
                format!("r{received}"),
                "in order, once each"
            );
            received += 1;
        }
    }
    let status = loop {
        match next(&mut sleeper).await {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the stream ended without an error"),
            Err(status) => break status,
        }
    };
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    let metrics = crate::common::scrape_metrics(&server.endpoint).await;
    assert!(metrics.contains("signet_event_streams_cut_off_total 1\n"), "{metrics}");
}

#[tokio::test]
async fn the_leg_a_fill_cancels_in_a_combination_sends_its_own_event() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(10_000))
        .await
        .unwrap();
    let hold = json!({"account_id": account, "new_orders": [order("hold", "MARKET", None)]});
    let _: Value = client.post("/trading/orders/place", &hold).await.unwrap();
    ops.market().step(1).await.unwrap();

    let mut stream = subscribe(&server, &[&account]).await;
    assert_eq!(next(&mut stream).await.unwrap().unwrap().event_type, 0);
    let leg = |id: &str, order_type: &str, price: &str| {
        let mut o = order(id, order_type, None);
        o["combo_type"] = json!("OCO");
        o["side"] = json!("SELL");
        o["time_in_force"] = json!("GTC");
        o[if order_type == "LIMIT" {
            "limit_price"
        } else {
            "stop_price"
        }] = json!(price);
        o
    };
    let pair = json!({"account_id": account, "client_combo_order_id": "pair",
        "new_orders": [leg("take", "LIMIT", "450"), leg("stop", "STOP_LOSS", "350")]});
    let _: Value = client.post("/trading/orders/place", &pair).await.unwrap();
    ops.market()
        .set("AAPL", "451.00", Some("450.99"), Some("451.01"), Some(10_000))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    // A stream may also get the events committed the moment before it opened: `hold`'s.
    let mut seen = Vec::new();
    while seen.len() < 4 {
        let (_, payload) = next_order_event(&mut stream).await;
        if payload["client_order_id"] == "hold" {
            continue;
        }
        seen.push(format!(
            "{} {}",
            payload["client_order_id"].as_str().unwrap(),
            payload["scene_type"].as_str().unwrap()
        ));
    }
    assert_eq!(
        seen,
        [
            "take PLACE_SUCCESS",
            "stop PLACE_SUCCESS",
            "take FINAL_FILLED",
            "stop CANCEL_SUCCESS"
        ]
    );
}

#[tokio::test]
async fn subscriptions_spend_the_apps_rate_limit() {
    use signet_domain::ratelimit::{Group, Limit, RateLimits};
    let server = TestServer::start_with(|c| {
        let one = Limit {
            requests: 1,
            window: Duration::from_secs(60),
        };
        c.rate_limits = Some(RateLimits::published().with(Group::Other, one));
    })
    .await;
    let account = server.app.account_ids[0].clone();
    let mut first = subscribe(&server, &[&account]).await;
    assert_eq!(next(&mut first).await.unwrap().unwrap().event_type, 0);
    let secret = server.app.app_secret.expose_secret().to_owned();
    let addr = server.addr.to_string();
    let second = subscribe_with(&addr, &server.app.app_key, &secret, &[&account], &nonce()).await;
    assert_refused(second, "TOO_MANY_REQUESTS", Code::ResourceExhausted).await;
}

/// A decimal field of a payload or a position.
fn decimal(value: &Value) -> Decimal {
    value.as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn position_events_follow_each_fill_only_for_the_subscriptions_that_ask_for_them() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    let mut both = subscribe_to(&server, &[&account], 1 | 2).await;
    let mut orders_only = subscribe_to(&server, &[&account], 1).await;
    for stream in [&mut both, &mut orders_only] {
        assert_eq!(next(stream).await.unwrap().unwrap().event_type, 0);
    }
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(10_000))
        .await
        .unwrap();
    let buy = json!({"account_id": account, "new_orders": [order("pos-buy", "MARKET", None)]});
    let _: Value = client.post("/trading/orders/place", &buy).await.unwrap();
    ops.market().step(1).await.unwrap();
    let mut sell = order("pos-sell", "MARKET", None);
    sell["side"] = json!("SELL");
    sell["quantity"] = json!("4");
    let _: Value = client
        .post(
            "/trading/orders/place",
            &json!({"account_id": account, "new_orders": [sell]}),
        )
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();

    // Each fill's order event, then its position event, in commit order.
    let mut seen = Vec::new();
    let mut positions = Vec::new();
    while seen.len() < 6 {
        let (m, payload) = next_event(&mut both).await;
        let id = payload["client_order_id"].as_str().unwrap().to_owned();
        if m.event_type == 1028 {
            assert_eq!(payload["request_id"], m.request_id.as_str());
            assert_eq!(
                (&payload["account_id"], &payload["symbol"]),
                (&json!(account), &json!("AAPL")),
                "{payload}"
            );
            seen.push(format!("{id} POSITION"));
            positions.push(payload);
        } else {
            seen.push(format!("{id} {}", payload["scene_type"].as_str().unwrap()));
        }
    }
    assert_eq!(
        seen,
        [
            "pos-buy PLACE_SUCCESS",
            "pos-buy FINAL_FILLED",
            "pos-buy POSITION",
            "pos-sell PLACE_SUCCESS",
            "pos-sell FINAL_FILLED",
            "pos-sell POSITION"
        ]
    );
    assert_eq!(decimal(&positions[0]["quantity"]), Decimal::from(10));
    assert_eq!(decimal(&positions[1]["quantity"]), Decimal::from(6));
    // What the positions list says after the last fill, in the same strings.
    let listed = client.accounts().positions(&account).await.unwrap();
    let aapl = listed.iter().find(|p| p.symbol == "AAPL").expect("an AAPL position");
    let last = &positions[1];
    assert_eq!(
        (
            last["quantity"].as_str().unwrap(),
            last["cost_price"].as_str().unwrap(),
            last["instrument_id"].as_str().unwrap()
        ),
        (
            aapl.quantity.as_str(),
            aapl.cost_price.as_str(),
            aapl.instrument_id.as_str()
        )
    );
    assert!(
        decimal(&last["cost_price"]) > Decimal::from(400),
        "the ask and a commission: {last}"
    );

    // The subscription of order events only: the same order events, then the next order's, and
    // no position event between them.
    let limit = json!({"account_id": account, "new_orders": [order("pos-after", "LIMIT", Some("1"))]});
    let _: Value = client.post("/trading/orders/place", &limit).await.unwrap();
    let mut orders_seen = Vec::new();
    while orders_seen.len() < 5 {
        let m = next(&mut orders_only).await.unwrap().expect("an open stream");
        if m.event_type == 1 {
            continue;
        }
        assert_eq!((m.event_type, m.subscribe_type), (1024, 1), "no position event: {m:?}");
        let payload: Value = serde_json::from_str(&m.payload).unwrap();
        orders_seen.push(format!(
            "{} {}",
            payload["client_order_id"].as_str().unwrap(),
            payload["scene_type"].as_str().unwrap()
        ));
    }
    assert_eq!(
        orders_seen,
        [
            "pos-buy PLACE_SUCCESS",
            "pos-buy FINAL_FILLED",
            "pos-sell PLACE_SUCCESS",
            "pos-sell FINAL_FILLED",
            "pos-after PLACE_SUCCESS"
        ]
    );
}
