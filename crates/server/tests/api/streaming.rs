//! The quotes feed over MQTT (`mqtt_listen`): connections refused with final CONNACK codes,
//! subscriptions made over signed HTTP, the messages pushed, the limits, unsubscribing, and a
//! disconnect that forgets; connections that only an app key made (unbound until a signed
//! subscribe) and what they may not hold. The client is rumqttc's (the crate whose codec the
//! server uses); the official Python client's test is in `official_client.rs`.

use std::time::{Duration, Instant};

use prost::Message as _;
use reqwest::Method;
use rumqttc::{AsyncClient, ConnectReturnCode, ConnectionError, Event, EventLoop, MqttOptions, Packet, Publish};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use signet_client::Client;
use signet_server::streaming::proto;

use crate::common::{Answer, LATE, TestServer, metric, scrape_metrics, send, until_closed};

/// A server on the demo prices, its manual clock ten minutes into 2013-02-25's session.
pub async fn market(adjust: impl FnOnce(&mut signet_server::ServerConfig)) -> TestServer {
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| {
        c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap());
        adjust(c);
    })
    .await;
    server.ops().await.market().step(600).await.unwrap();
    server
}

/// Connects `session` under `app_key`: the event loop once connected, or the refusal.
async fn connect(
    server: &TestServer,
    session: &str,
    app_key: &str,
) -> Result<(AsyncClient, EventLoop), ConnectionError> {
    connect_with(server, session, app_key, "0123456789abcdef0123456789abcdef").await
}

async fn connect_with(
    server: &TestServer,
    session: &str,
    app_key: &str,
    password: &str,
) -> Result<(AsyncClient, EventLoop), ConnectionError> {
    let addr = server.mqtt_addr.expect("mqtt_listen");
    let mut options = MqttOptions::new(session, addr.ip().to_string(), addr.port());
    options.set_credentials(app_key, password);
    options.set_keep_alive(Duration::from_secs(60));
    let (client, mut events) = AsyncClient::new(options, 16);
    loop {
        match tokio::time::timeout(Duration::from_secs(5), events.poll())
            .await
            .expect("an answer to CONNECT")?
        {
            Event::Incoming(Packet::ConnAck(_)) => return Ok((client, events)),
            _ => continue,
        }
    }
}

/// A bare TCP connection that sends CONNECT for `session` under `app_key` with `keep_alive`
/// seconds (0: none), and the 4 bytes of the CONNACK it reads.
pub async fn raw_connect(
    server: &TestServer,
    socket: tokio::net::TcpSocket,
    session: &str,
    app_key: &str,
    keep_alive: u16,
) -> (tokio::net::TcpStream, [u8; 4]) {
    use rumqttc::mqttbytes::v4::Connect;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = socket.connect(server.mqtt_addr.unwrap()).await.unwrap();
    let mut connect = Connect::new(session);
    connect.keep_alive = keep_alive;
    connect.set_login(app_key, "x");
    let mut bytes = bytes::BytesMut::new();
    connect.write(&mut bytes).unwrap();
    stream.write_all(&bytes).await.unwrap();
    let mut connack = [0u8; 4];
    stream.read_exact(&mut connack).await.unwrap();
    (stream, connack)
}

pub fn socket() -> tokio::net::TcpSocket {
    tokio::net::TcpSocket::new_v4().unwrap()
}

/// A socket that connects from `ip` (another loopback address: another client address).
pub fn socket_from(ip: &str) -> tokio::net::TcpSocket {
    let socket = socket();
    socket.bind(format!("{ip}:0").parse().unwrap()).unwrap();
    socket
}

/// `signet_mqtt_unbound_closures_total{reason}`.
pub async fn unbound_closures(server: &TestServer, reason: &str) -> Option<f64> {
    let text = scrape_metrics(&server.endpoint).await;
    metric(&text, "signet_mqtt_unbound_closures_total", &[("reason", reason)])
}

/// Whether `stream` is still open: nothing to read and no end within `wait`.
async fn still_open(stream: &mut tokio::net::TcpStream, wait: Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let mut byte = [0u8; 1];
    tokio::time::timeout(wait, stream.read(&mut byte)).await.is_err()
}

/// The next message pushed, within `wait`.
async fn next(events: &mut EventLoop, wait: Duration) -> Option<Publish> {
    tokio::time::timeout(wait, async {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::Publish(p))) => return Some(p),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    })
    .await
    .ok()
    .flatten()
}

/// The messages pushed until `enough` says those so far are (within 10 s, or the test fails).
async fn until(events: &mut EventLoop, enough: impl Fn(&[Publish]) -> bool) -> Vec<Publish> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut all = Vec::new();
    while !enough(&all) {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match next(events, left).await {
            Some(p) => all.push(p),
            None => panic!(
                "not enough pushed within 10 s: {:?}",
                all.iter().map(|p| p.topic.clone()).collect::<Vec<_>>()
            ),
        }
    }
    all
}

fn ticks_in(messages: &[Publish]) -> usize {
    messages.iter().filter(|p| p.topic == "tick").count()
}

/// Every message pushed until none comes for `quiet`.
async fn drain(events: &mut EventLoop, quiet: Duration) -> Vec<Publish> {
    let mut all = Vec::new();
    while let Some(p) = next(events, quiet).await {
        all.push(p);
    }
    all
}

async fn post(client: &Client, path: &str, body: Value) -> Answer {
    send(
        client
            .prepare(Method::POST, path, &[], Some(serde_json::to_vec(&body).unwrap()))
            .unwrap(),
    )
    .await
}

pub async fn subscribe(client: &Client, session: &str, symbols: &[&str], types: &[&str]) -> Answer {
    post(
        client,
        "/market-data/streaming/subscribe",
        json!({"session_id": session, "symbols": symbols, "category": "US_STOCK", "sub_types": types}),
    )
    .await
}

fn symbol_of(p: &Publish) -> String {
    let basic = match p.topic.as_str() {
        "snapshot" => proto::Snapshot::decode(p.payload.clone()).unwrap().basic,
        "quote" => proto::Quote::decode(p.payload.clone()).unwrap().basic,
        "tick" => proto::Tick::decode(p.payload.clone()).unwrap().basic,
        other => panic!("topic {other}"),
    };
    basic.unwrap().symbol
}

fn app_key(server: &TestServer) -> String {
    server.app.app_key.to_string()
}

#[tokio::test]
async fn an_app_key_that_is_not_active_is_refused_with_a_code_the_client_does_not_retry() {
    let server = TestServer::start_with(|c| c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap())).await;
    match connect(&server, "s1", "no-such-key").await {
        Err(ConnectionError::ConnectionRefused(code)) => assert_eq!(code, ConnectReturnCode::BadUserNamePassword),
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
    let text = scrape_metrics(&server.endpoint).await;
    assert_eq!(metric(&text, "signet_mqtt_refusals_total", &[("code", "4")]), Some(1.0));
    // Off unless asked for.
    let plain = TestServer::start().await;
    assert!(plain.mqtt_addr.is_none());
}

#[tokio::test]
async fn a_subscription_pushes_what_the_http_calls_answer_for_the_same_second() {
    let server = market(|_| {}).await;
    let client = server.client();
    let (_mqtt, mut events) = connect(&server, "sess-1", &app_key(&server)).await.unwrap();
    let answer = subscribe(&client, "sess-1", &["AAPL"], &["SNAPSHOT", "QUOTE", "TICK"]).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["subscriptions"][0]["symbol"], "AAPL");
    assert_eq!(answer.body["subscriptions"][0]["depth"], 10);

    // At once: the snapshot, the book and the last trade, as the HTTP calls give them now.
    let first = until(&mut events, |m| m.len() >= 3).await;
    let topics: Vec<&str> = first.iter().map(|p| p.topic.as_str()).collect();
    assert_eq!(topics, ["snapshot", "quote", "tick"]);
    let http = &client.stocks().snapshots(&["AAPL"], true, true).await.unwrap()[0];
    let snapshot = proto::Snapshot::decode(first[0].payload.clone()).unwrap();
    let basic = snapshot.basic.clone().unwrap();
    assert_eq!(basic.symbol, "AAPL");
    assert_eq!(basic.timestamp, http.last_trade_time.to_string());
    assert_eq!(
        (
            &snapshot.price,
            &snapshot.pre_close,
            Some(&snapshot.open),
            Some(&snapshot.high),
            Some(&snapshot.low)
        ),
        (
            &http.price,
            &http.pre_close,
            http.open.as_ref(),
            http.high.as_ref(),
            http.low.as_ref()
        )
    );
    assert_eq!(Some(&snapshot.volume), http.volume.as_ref());
    assert_eq!(Some(&snapshot.change), http.change.as_ref());
    let depth = client.stocks().depth("AAPL", None).await.unwrap();
    let book = proto::Quote::decode(first[1].payload.clone()).unwrap();
    assert_eq!(book.bids.len(), 10);
    assert_eq!(
        (&book.bids[0].price, &book.asks[0].price),
        (&depth.bids[0].price, &depth.asks[0].price)
    );
    assert_eq!(
        book.bids[0].price, http.bid,
        "the best level is the quote an order meets"
    );
    let ticks = client.stocks().ticks("AAPL", Some(1)).await.unwrap();
    let tick = proto::Tick::decode(first[2].payload.clone()).unwrap();
    assert_eq!(
        (&tick.time, &tick.price, &tick.volume),
        (&ticks.result[0].time, &ticks.result[0].price, &ticks.result[0].volume)
    );

    // A step of the clock: the ticks of each second since, and the snapshot of the last one.
    server.ops().await.market().step(5).await.unwrap();
    let pushed = until(&mut events, |m| ticks_in(m) >= 5).await;
    let ticks: Vec<proto::Tick> = pushed
        .iter()
        .filter(|p| p.topic == "tick")
        .map(|p| proto::Tick::decode(p.payload.clone()).unwrap())
        .collect();
    assert_eq!(ticks.len(), 5, "one a second");
    let http_ticks = client.stocks().ticks("AAPL", Some(5)).await.unwrap();
    let newest_first: Vec<&str> = ticks.iter().rev().map(|t| t.price.as_str()).collect();
    let http_prices: Vec<&str> = http_ticks.result.iter().map(|t| t.price.as_str()).collect();
    assert_eq!(newest_first, http_prices);
    let last = pushed
        .iter()
        .rev()
        .find(|p| p.topic == "snapshot")
        .expect("a snapshot after the step");
    let snapshot = proto::Snapshot::decode(last.payload.clone()).unwrap();
    let http = &client.stocks().snapshots(&["AAPL"], false, false).await.unwrap()[0];
    assert_eq!(snapshot.price, http.price);
    assert_eq!(snapshot.basic.unwrap().timestamp, http.last_trade_time.to_string());

    // A pinned price is pushed at once, without a tick.
    server
        .ops()
        .await
        .market()
        .set("AAPL", "123.45", None, None, None)
        .await
        .unwrap();
    let pinned =
        |p: &Publish| p.topic == "snapshot" && proto::Snapshot::decode(p.payload.clone()).unwrap().price == "123.45";
    until(&mut events, |m| m.iter().any(pinned)).await;
    let text = scrape_metrics(&server.endpoint).await;
    assert_eq!(metric(&text, "signet_mqtt_sessions", &[]), Some(1.0));
    assert!(metric(&text, "signet_mqtt_messages_total", &[]).unwrap() >= 10.0);
}

#[tokio::test]
async fn a_session_belongs_to_the_app_that_connected_it() {
    let server = market(|_| {}).await;
    let (_mqtt, mut events) = connect(&server, "mine", &app_key(&server)).await.unwrap();
    let other = server
        .admin()
        .create_app("other", rust_decimal::Decimal::ZERO)
        .await
        .unwrap();
    crate::common::record_secret(other.app_secret.expose_secret());
    let other_client = server.client_for(&other);
    subscribe(&other_client, "mine", &["AAPL"], &["SNAPSHOT"])
        .await
        .assert_error(403, "PERMISSION_DENIED");
    assert!(
        next(&mut events, Duration::from_millis(300)).await.is_none(),
        "nothing is pushed to it"
    );
    // The same session id under another app key: refused, with a code the client does not retry.
    match connect(&server, "mine", &other.app_key).await {
        Err(ConnectionError::ConnectionRefused(code)) => assert_eq!(code, ConnectReturnCode::BadClientId),
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
    subscribe(&other_client, "nobody", &["AAPL"], &["SNAPSHOT"])
        .await
        .assert_error(400, "SESSION_NOT_CONNECTED");
    // The same app with another password (another client): refused too; the same password (the
    // same client reconnecting) takes the session over.
    match connect_with(&server, "mine", &app_key(&server), "another password").await {
        Err(ConnectionError::ConnectionRefused(code)) => assert_eq!(code, ConnectReturnCode::BadClientId),
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
    let (_again, _events) = connect(&server, "mine", &app_key(&server)).await.unwrap();
}

#[tokio::test]
async fn a_connection_taken_over_is_told_so_in_a_notice_then_closed() {
    use rumqttc::mqttbytes::v4::Packet as Wire;
    use tokio::io::AsyncReadExt;
    let server = market(|_| {}).await;
    let key = app_key(&server);
    let (mut old, connack) = raw_connect(&server, socket(), "t", &key, 0).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    let (_new, connack) = raw_connect(&server, socket(), "t", &key, 0).await;
    assert_eq!(
        connack,
        [0x20, 2, 0, 0],
        "the same client (same password) takes it over"
    );
    let mut received = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), old.read_to_end(&mut received))
        .await
        .expect("the old connection is closed")
        .unwrap();
    let mut bytes = bytes::BytesMut::from(&received[..]);
    let Ok(Wire::Publish(notice)) = Wire::read(&mut bytes, 1 << 16) else {
        panic!("a PUBLISH: {received:?}");
    };
    assert!(bytes.is_empty(), "then nothing");
    assert_eq!(notice.topic, "notice");
    // JSON, as the official client decodes this topic; type 1002 is "permission pre-emption".
    let notice: Value = serde_json::from_slice(&notice.payload).unwrap();
    assert_eq!(notice["type"], "1002", "{notice}");
    assert!(notice["content"].as_str().unwrap().contains("took the session over"));
}

#[tokio::test]
async fn symbols_per_session_are_limited_and_unknown_symbols_named() {
    let server = market(|c| c.streaming.max_symbols_per_session = 2).await;
    let client = server.client();
    let key = app_key(&server);
    let (_a, _events_a) = connect(&server, "a", &key).await.unwrap();
    let unknown = subscribe(&client, "a", &["AAPL", "NOPE1", "NOPE2"], &["SNAPSHOT"]).await;
    let message = unknown.assert_error(400, "INSTRUMENT_NOT_FOUND").message;
    assert!(message.contains("NOPE1") && message.contains("NOPE2"), "{message}");
    subscribe(&client, "a", &["AAPL", "MSFT", "IBM"], &["SNAPSHOT"])
        .await
        .assert_error(400, "TOO_MANY_SYMBOLS");
    subscribe(&client, "a", &["AAPL", "MSFT"], &["BOOK"])
        .await
        .assert_error(400, "ILLEGAL_PARAMETER");
    assert_eq!(
        subscribe(&client, "a", &["AAPL", "MSFT"], &["SNAPSHOT"]).await.status,
        200
    );
    subscribe(&client, "a", &["IBM"], &["SNAPSHOT"])
        .await
        .assert_error(400, "TOO_MANY_SYMBOLS");
}

#[tokio::test]
async fn an_app_holding_its_most_sessions_is_refused_one_more_with_a_code_the_client_does_not_retry() {
    use tokio::io::AsyncReadExt;
    let server = market(|c| c.streaming.max_sessions_per_app = 2).await;
    let client = server.client();
    let key = app_key(&server);
    // Sessions count once a signed subscribe bound them.
    let (_a, _events_a) = connect(&server, "a", &key).await.unwrap();
    let (b, events_b) = connect(&server, "b", &key).await.unwrap();
    for session in ["a", "b"] {
        assert_eq!(subscribe(&client, session, &["AAPL"], &["SNAPSHOT"]).await.status, 200);
    }
    // Webull's 105, connection limit exceeded (catalog §13.5), then the connection is closed.
    let (mut third, connack) = raw_connect(&server, socket(), "c", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 105]);
    let mut rest = Vec::new();
    third.read_to_end(&mut rest).await.unwrap();
    assert!(rest.is_empty());
    // The same client reconnecting takes its session over: it is not counted twice.
    let (_a_again, _events) = connect(&server, "a", &key).await.unwrap();
    // Another app's sessions are counted apart.
    let other = server
        .admin()
        .create_app("other", rust_decimal::Decimal::ZERO)
        .await
        .unwrap();
    crate::common::record_secret(other.app_secret.expose_secret());
    let (_other, _other_events) = connect(&server, "c", &other.app_key).await.unwrap();
    let text = scrape_metrics(&server.endpoint).await;
    assert_eq!(
        metric(&text, "signet_mqtt_refusals_total", &[("code", "105")]),
        Some(1.0)
    );
    // A session that closes makes room for another.
    drop((b, events_b));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (_d, connack) = raw_connect(&server, socket(), "d", &key, 60).await;
        if connack == [0x20, 2, 0, 0] {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "still refused: {connack:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn unsubscribing_and_disconnecting() {
    let server = market(|_| {}).await;
    let client = server.client();
    let ops = server.ops().await;
    let key = app_key(&server);
    let (mqtt, mut events) = connect(&server, "s", &key).await.unwrap();
    let answer = subscribe(&client, "s", &["AAPL", "MSFT"], &["SNAPSHOT", "TICK"]).await;
    assert_eq!(answer.status, 200);
    until(&mut events, |m| m.len() >= 4).await;

    let answer = post(
        &client,
        "/market-data/streaming/unsubscribe",
        json!({"session_id": "s", "symbols": ["MSFT"], "category": "US_STOCK", "unsubscribe_all": false}),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.body["subscriptions"],
        json!([{"symbol": "AAPL", "sub_types": ["SNAPSHOT", "TICK"], "depth": 10}])
    );
    ops.market().step(3).await.unwrap();
    let mut pushed = until(&mut events, |m| ticks_in(m) >= 3).await;
    pushed.extend(drain(&mut events, Duration::from_millis(300)).await);
    assert!(pushed.iter().all(|p| symbol_of(p) == "AAPL"), "no more MSFT");

    let answer = post(
        &client,
        "/market-data/streaming/unsubscribe",
        json!({"session_id": "s", "sub_types": ["TICK"], "unsubscribe_all": false}),
    )
    .await;
    assert_eq!(answer.body["subscriptions"][0]["sub_types"], json!(["SNAPSHOT"]));
    ops.market().step(3).await.unwrap();
    let mut pushed = until(&mut events, |m| m.iter().any(|p| p.topic == "snapshot")).await;
    pushed.extend(drain(&mut events, Duration::from_millis(300)).await);
    assert!(pushed.iter().all(|p| p.topic == "snapshot"), "no more ticks");

    let answer = post(
        &client,
        "/market-data/streaming/unsubscribe",
        json!({"session_id": "s", "unsubscribe_all": true}),
    )
    .await;
    assert_eq!(answer.body["subscriptions"], json!([]));
    ops.market().step(3).await.unwrap();
    assert!(next(&mut events, Duration::from_millis(500)).await.is_none());

    // A disconnect forgets the session: a new connection with its id starts with nothing.
    subscribe(&client, "s", &["AAPL"], &["SNAPSHOT"]).await;
    mqtt.disconnect().await.unwrap();
    let _ = drain(&mut events, Duration::from_millis(300)).await;
    let disconnected = Instant::now();
    loop {
        let answer = subscribe(&client, "s", &["AAPL"], &["SNAPSHOT"]).await;
        if answer.status == 400 {
            answer.assert_error(400, "SESSION_NOT_CONNECTED");
            break;
        }
        assert!(disconnected.elapsed() < LATE, "still connected: {}", answer.body);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (_again, _events) = connect(&server, "s", &key).await.unwrap();
    let answer = subscribe(&client, "s", &["MSFT"], &["QUOTE"]).await;
    assert_eq!(
        answer.body["subscriptions"],
        json!([{"symbol": "MSFT", "sub_types": ["QUOTE"], "depth": 10}])
    );
}

/// A connection that sends nothing for 1.5 x its keep-alive is closed. Keep-alive 0 turned the
/// check off, so that a silent connection stayed for ever: it now counts as the longest
/// keep-alive accepted, as a longer one does.
#[tokio::test]
async fn keep_alive_is_enforced_and_capped() {
    let server = TestServer::start_with(|c| {
        c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap());
        c.streaming.max_keep_alive = Duration::from_secs(1);
    })
    .await;
    let started = Instant::now();
    let mut silent = Vec::new();
    for (session, keep_alive) in [("one-second", 1), ("zero", 0), ("an-hour", 3600)] {
        let (stream, connack) = raw_connect(&server, socket(), session, &app_key(&server), keep_alive).await;
        assert_eq!(connack, [0x20, 2, 0, 0]);
        silent.push(stream);
    }
    // 1.5 x the keep-alive, at most 1 s: not before, and well before a keep-alive of 3600 s.
    for mut stream in silent {
        let (waited, received) = until_closed(&mut stream, started, Duration::from_millis(1500) + LATE).await;
        assert!(received.is_empty(), "CONNACK 0, then nothing: {received:?}");
        assert!(waited >= Duration::from_millis(1400), "{waited:?}");
    }
}

#[tokio::test]
async fn a_session_that_does_not_read_loses_old_messages_instead_of_growing_the_server() {
    let server = market(|c| c.streaming.buffer_per_symbol = 4).await;
    let client = server.client();
    let ops = server.ops().await;
    // A client with a small receive window that reads its CONNACK and nothing more.
    let small = socket();
    small.set_recv_buffer_size(4096).unwrap();
    let (stream, connack) = raw_connect(&server, small, "sleeper", &app_key(&server), 0).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    let answer = subscribe(
        &client,
        "sleeper",
        &["AAPL", "MSFT", "IBM"],
        &["SNAPSHOT", "QUOTE", "TICK"],
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    for _ in 0..6 {
        ops.market().step(600).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let text = scrape_metrics(&server.endpoint).await;
    let dropped = metric(&text, "signet_mqtt_dropped_messages_total", &[]).unwrap();
    let written = metric(&text, "signet_mqtt_messages_total", &[]).unwrap();
    eprintln!("a session that does not read: {written} messages written, {dropped} dropped");
    assert!(dropped > 0.0, "{text}");
    // The server still serves the others.
    let (_mqtt, mut events) = connect(&server, "reader", &app_key(&server)).await.unwrap();
    subscribe(&client, "reader", &["AAPL"], &["SNAPSHOT"]).await;
    assert!(next(&mut events, LATE).await.is_some());
    drop(stream);
}

/// Two nodes share a PostgreSQL database (one server serves a SQLite file): the PostgreSQL pass.
#[tokio::test]
async fn two_nodes_push_the_same_snapshot_for_the_same_second() {
    use signet_core::simulator::MarketConfig;
    use signet_domain::simulator::clock::ClockMode;
    if std::env::var("SIGNET_TEST_BACKEND").as_deref() != Ok("postgres") {
        return;
    }
    let a = market(|_| {}).await;
    let b = a
        .beside(|c| {
            c.market = MarketConfig {
                seed: 2013,
                clock: ClockMode::Manual,
                start_day: signet_domain::marketdata::units::parse_day("2013-02-25"),
                ..MarketConfig::default()
            };
            c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap());
        })
        .await;
    b.ops().await.market().step(600).await.unwrap();
    let mut first = Vec::new();
    let mut connections = Vec::new();
    for (node, session) in [(&a, "on-a"), (&b, "on-b")] {
        let (mqtt, mut events) = connect(node, session, &app_key(node)).await.unwrap();
        let answer = subscribe(&node.client(), session, &["AAPL", "MSFT"], &["SNAPSHOT", "QUOTE"]).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let pushed = until(&mut events, |m| m.len() >= 4).await;
        first.push(pushed.into_iter().map(|p| (p.topic, p.payload)).collect::<Vec<_>>());
        connections.push((mqtt, events));
    }
    assert_eq!(first[0].len(), 4);
    assert_eq!(first[0], first[1], "the same bytes from both nodes");
    // A session lives on the node it connected to (still connected there).
    subscribe(&b.client(), "on-a", &["AAPL"], &["SNAPSHOT"])
        .await
        .assert_error(400, "SESSION_NOT_CONNECTED");
    assert_eq!(
        subscribe(&a.client(), "on-a", &["IBM"], &["SNAPSHOT"]).await.status,
        200
    );
    drop(connections);
}

#[tokio::test]
async fn the_rust_client_streams_decoded_messages_and_is_told_why_it_is_refused() {
    use signet_client::{Error, Pushed, SubType};
    let server = market(|c| c.streaming.max_sessions_per_app = 1).await;
    let client = server.client();
    let mqtt = server.mqtt_addr.unwrap().to_string();
    let mut stream = client
        .quotes()
        .stream(&mqtt, &["AAPL", "MSFT"], &SubType::ALL)
        .await
        .unwrap();
    let symbol = |p: &Pushed| match p {
        Pushed::Snapshot(m) => m.basic.clone().unwrap().symbol,
        Pushed::Quote(m) => m.basic.clone().unwrap().symbol,
        Pushed::Tick(m) => m.basic.clone().unwrap().symbol,
        Pushed::Other { topic, .. } => panic!("topic {topic}"),
    };
    let mut first = Vec::new();
    while first.len() < 6 {
        let pushed = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("the first messages within 10 s")
            .unwrap()
            .unwrap();
        first.push(pushed);
    }
    let http = client
        .stocks()
        .snapshots(&["AAPL", "MSFT"], false, false)
        .await
        .unwrap();
    for s in &http {
        let pushed = first
            .iter()
            .find_map(|p| match p {
                Pushed::Snapshot(m) if symbol(p) == s.symbol => Some(m),
                _ => None,
            })
            .expect("a snapshot of each");
        assert_eq!(pushed.price, s.price);
    }
    assert!(
        first
            .iter()
            .any(|p| matches!(p, Pushed::Quote(q) if q.bids.len() == 10))
    );
    assert!(first.iter().any(|p| matches!(p, Pushed::Tick(_))));

    let left = stream.unsubscribe(&["MSFT"], &[]).await.unwrap();
    assert_eq!(left.subscriptions.len(), 1);
    server.ops().await.market().step(3).await.unwrap();
    let mut later = Vec::new();
    while let Ok(Some(pushed)) = tokio::time::timeout(Duration::from_millis(500), stream.next()).await {
        later.push(pushed.unwrap());
    }
    assert!(later.iter().any(|p| matches!(p, Pushed::Tick(_))), "the step's ticks");
    assert!(later.iter().all(|p| symbol(p) == "AAPL"), "no more MSFT");

    // A second session of an app allowed one, and an app key that is not active.
    match client.quotes().connect(&mqtt).await {
        Err(Error::FeedRefused { code: 105 }) => {}
        other => panic!("expected 105, got {:?}", other.map(|s| s.session_id().to_owned())),
    }
    let stranger = Client::new(&server.endpoint, "no-such-key", "secret").unwrap();
    match stranger.quotes().connect(&mqtt).await {
        Err(e @ Error::FeedRefused { code: 4 }) => assert!(e.to_string().contains("not active"), "{e}"),
        other => panic!("expected 4, got {:?}", other.map(|s| s.session_id().to_owned())),
    }
    // Dropping the stream closes the session.
    let session = stream.session_id().to_owned();
    drop(stream);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while subscribe(&client, &session, &["AAPL"], &["SNAPSHOT"]).await.status == 200 {
        assert!(tokio::time::Instant::now() < deadline, "still connected");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Five connections made with nothing but the app key (any password, keep-alive 0) held all of
/// an app's sessions for ever, and the app's real client was refused with 105. They now hold
/// none: the real client connects beside them and receives its quotes; they are closed when the
/// bind timeout ends, and a silent connection is closed even with keep-alive 0.
#[tokio::test]
async fn connections_made_with_the_app_key_alone_lock_nobody_out() {
    let server = market(|c| c.streaming.bind_timeout = Duration::from_secs(3)).await;
    let key = app_key(&server);
    let mut hostile = Vec::new();
    for n in 0..5 {
        let (stream, connack) = raw_connect(&server, socket(), &format!("hostile-{n}"), &key, 0).await;
        assert_eq!(connack, [0x20, 2, 0, 0], "accepted, unbound");
        hostile.push(stream);
    }
    let started = Instant::now();
    // The default limit of 5 sessions an app: the real client is not refused, and streams.
    let mut stream = server
        .client()
        .quotes()
        .stream(
            &server.mqtt_addr.unwrap().to_string(),
            &["AAPL"],
            &[signet_client::SubType::Snapshot],
        )
        .await
        .expect("the real client is let in");
    let connected = Instant::now();
    let first = tokio::time::timeout(LATE, stream.next())
        .await
        .expect("a snapshot at once")
        .unwrap()
        .unwrap();
    assert!(matches!(first, signet_client::Pushed::Snapshot(_)), "{first:?}");
    // The hostile connections never bound anything: closed once the bind timeout ends (counted
    // from their CONNECT, before `started`).
    for mut connection in hostile {
        let (_, received) = until_closed(&mut connection, started, Duration::from_secs(3) + LATE).await;
        assert!(received.is_empty(), "{received:?}");
    }
    assert_eq!(unbound_closures(&server, "bind_timeout").await, Some(5.0));
    // The real client, bound, outlives its own bind timeout (counted from its CONNECT, after
    // `connected`).
    tokio::time::sleep_until((connected + Duration::from_millis(3500)).into()).await;
    server.ops().await.market().step(5).await.unwrap();
    assert!(
        tokio::time::timeout(LATE, stream.next())
            .await
            .is_ok_and(|p| p.is_some_and(|p| p.is_ok())),
        "the bound session still receives"
    );
}

#[tokio::test]
async fn an_unbound_connection_is_closed_after_the_bind_timeout_and_a_bound_one_stays() {
    let server = market(|c| c.streaming.bind_timeout = Duration::from_secs(1)).await;
    let key = app_key(&server);
    let started = Instant::now();
    let (mut unbound, connack) = raw_connect(&server, socket(), "unbound", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    // One that sends no CONNECT is closed then too, before the header timeout's 10 s.
    let mut silent = tokio::net::TcpStream::connect(server.mqtt_addr.unwrap()).await.unwrap();
    let (_mqtt, mut events) = connect(&server, "bound", &key).await.unwrap();
    let bound_at = Instant::now();
    let answer = subscribe(&server.client(), "bound", &["AAPL"], &["SNAPSHOT"]).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    for connection in [&mut unbound, &mut silent] {
        let (waited, received) = until_closed(connection, started, Duration::from_secs(1) + LATE).await;
        assert!(received.is_empty(), "CONNACK 0, then nothing: {received:?}");
        assert!(waited >= Duration::from_millis(900), "{waited:?}");
    }
    // The bound one still receives what a step of the clock changes, past its own bind timeout
    // (counted from its CONNECT, before `bound_at`).
    assert!(next(&mut events, LATE).await.is_some(), "the first snapshot");
    tokio::time::sleep_until((bound_at + Duration::from_millis(1500)).into()).await;
    server.ops().await.market().step(5).await.unwrap();
    assert!(next(&mut events, LATE).await.is_some(), "the bound session is open");
    assert_eq!(unbound_closures(&server, "bind_timeout").await, Some(2.0));
}

#[tokio::test]
async fn unbound_connections_are_limited_per_address_and_shared_fairly_on_the_node() {
    let server = market(|c| {
        c.streaming.max_unbound_per_address = 2;
        c.streaming.max_unbound = 3;
    })
    .await;
    let key = app_key(&server);
    let addr = server.mqtt_addr.unwrap();
    // Two from this address, unbound (one has not even sent CONNECT): a third is closed at once.
    let (mut first, connack) = raw_connect(&server, socket(), "first", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    let mut second = socket().connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // At once: within LATE, where the bind and header timeouts take 30 s and 10 s.
    let started = Instant::now();
    let mut third = socket().connect(addr).await.unwrap();
    let (_, received) = until_closed(&mut third, started, LATE).await;
    assert!(received.is_empty(), "{received:?}");
    // Another address has its own two places, but the node has three in all: a newcomer from a
    // third address takes the oldest place of this one, which holds the most.
    let (_elsewhere, connack) = raw_connect(&server, socket_from("127.0.0.2"), "elsewhere", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    let started = Instant::now();
    let (_newcomer, connack) = raw_connect(&server, socket_from("127.0.0.3"), "newcomer", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    until_closed(&mut first, started, LATE).await;
    // Every address holds one place now: a fourth finds none holding more, and is closed.
    let started = Instant::now();
    let mut beyond = socket_from("127.0.0.4").connect(addr).await.unwrap();
    until_closed(&mut beyond, started, LATE).await;
    // A bound connection is no longer counted: a place is free again.
    assert_eq!(
        subscribe(&server.client(), "elsewhere", &["AAPL"], &["SNAPSHOT"])
            .await
            .status,
        200
    );
    let (_fourth, connack) = raw_connect(&server, socket(), "fourth", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    assert!(still_open(&mut second, Duration::from_millis(100)).await);
    for reason in ["address_limit", "node_limit", "evicted"] {
        assert_eq!(unbound_closures(&server, reason).await, Some(1.0), "{reason}");
    }
}

/// 304 connections that never send anything, 16 from each of 19 addresses (more than the
/// node's 256 unbound places), lock no signed client out: its connection takes the oldest
/// place of an address holding many, and it binds and streams. Before, it was closed unanswered.
#[tokio::test]
async fn three_hundred_strangers_keep_no_signed_client_out() {
    let server = market(|_| {}).await;
    let addr = server.mqtt_addr.unwrap();
    let mut strangers = Vec::new();
    for address in 2..=20 {
        for _ in 0..16 {
            strangers.push(socket_from(&format!("127.0.0.{address}")).connect(addr).await.unwrap());
        }
    }
    // Every one of them was placed or turned away.
    let waiting = Instant::now();
    loop {
        let turned = unbound_closures(&server, "evicted").await.unwrap_or(0.0)
            + unbound_closures(&server, "node_limit").await.unwrap_or(0.0);
        if turned >= 304.0 - 256.0 {
            break;
        }
        assert!(waiting.elapsed() < LATE, "{turned} turned away");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let started = Instant::now();
    let mut stream = server
        .client()
        .quotes()
        .stream(&addr.to_string(), &["AAPL"], &[signet_client::SubType::Snapshot])
        .await
        .expect("the signed client is let in");
    let connected = started.elapsed();
    let first = tokio::time::timeout(LATE, stream.next())
        .await
        .expect("a snapshot at once")
        .unwrap()
        .unwrap();
    eprintln!(
        "beside 304 strangers: connected and bound in {connected:?}, first snapshot after {:?}",
        started.elapsed()
    );
    assert!(matches!(first, signet_client::Pushed::Snapshot(_)), "{first:?}");
    drop(strangers);
}

/// Two unbound connections of an app holding all its sessions but one: the first subscribe
/// binds the last place; the second is answered LIMIT_EXCEEDED and its connection closed, and
/// its reconnection is refused with 105 (where the official client stops), as a CONNECT is when
/// the app holds its most sessions.
#[tokio::test]
async fn two_connections_racing_for_an_apps_last_session() {
    let server = market(|c| c.streaming.max_sessions_per_app = 1).await;
    let client = server.client();
    let key = app_key(&server);
    let (_winner, connack) = raw_connect(&server, socket(), "winner", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    let (mut loser, connack) = raw_connect(&server, socket(), "loser", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    assert_eq!(subscribe(&client, "winner", &["AAPL"], &["SNAPSHOT"]).await.status, 200);
    let started = Instant::now();
    let refused = subscribe(&client, "loser", &["AAPL"], &["SNAPSHOT"]).await;
    let message = refused.assert_error(400, "LIMIT_EXCEEDED").message;
    assert!(message.contains("1 MQTT sessions"), "{message}");
    // At once, where the bind timeout takes 30 s.
    let (_, received) = until_closed(&mut loser, started, LATE).await;
    assert!(received.is_empty(), "{received:?}");
    let (_again, connack) = raw_connect(&server, socket(), "loser", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 105]);
}

/// A scenario rule on the quotes feed closes the session it matched after its messages; with
/// `times = 1`, the next session is left alone.
#[tokio::test]
async fn a_stream_rule_closes_a_quotes_session_after_its_messages() {
    let server = market(|_| {}).await;
    let client = server.client();
    let ops = server.ops().await;
    let rules =
        "[[rule]]\nname = \"quotes drop\"\nwhen = { stream = \"quotes\", times = 1 }\nthen = { end_after = 5 }\n";
    ops.scenarios().load(rules).await.unwrap();
    let key = app_key(&server);
    let (mut closed, connack) = raw_connect(&server, socket(), "q1", &key, 0).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    let answer = subscribe(&client, "q1", &["AAPL"], &["SNAPSHOT", "QUOTE", "TICK"]).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let stepped = Instant::now();
    ops.market().step(5).await.unwrap();
    let (_, received) = until_closed(&mut closed, stepped, LATE).await;
    let mut bytes = bytes::BytesMut::from(&received[..]);
    let mut published = 0;
    while !bytes.is_empty() {
        match Packet::read(&mut bytes, 1 << 16) {
            Ok(Packet::Publish(_)) => published += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(published, 5, "five messages, then the connection closed");

    let (_kept, mut kept_events) = connect(&server, "q2", &key).await.unwrap();
    let answer = subscribe(&client, "q2", &["AAPL"], &["SNAPSHOT", "QUOTE", "TICK"]).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    ops.market().step(5).await.unwrap();
    until(&mut kept_events, |m| m.len() >= 8).await;
}
