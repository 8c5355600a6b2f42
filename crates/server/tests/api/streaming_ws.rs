//! The quotes feed as MQTT over WebSocket (`mqtt_ws_listen`): the upgrade on `/mqtt` with the
//! `mqtt` subprotocol, MQTT's bytes cut across binary messages or several packets in one, a
//! session bound by a signed subscribe and pushed its quotes, over `ws` and over `wss`; another
//! path answered 404, a connection that never upgrades held as unbound until the header timeout,
//! the unbound places and the app's sessions shared with the TCP listener, an oversized message
//! refused; and the official Python client with `transport="websockets"`.
//!
//! The client is tokio-tungstenite's, speaking raw MQTT with rumqttc's codec.

use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use rumqttc::mqttbytes::v4::{Connect, Packet};
use secrecy::ExposeSecret;
use signet_client::Client;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use crate::common::{LATE, TestServer, until_closed};
use crate::streaming::{market, raw_connect, socket, socket_from, subscribe, unbound_closures};
use crate::tls::{authority, https, tls_market, trusting};

fn ws_listen(c: &mut signet_server::ServerConfig) {
    c.mqtt_ws_listen = Some("127.0.0.1:0".parse().unwrap());
}

/// The WebSocket handshake on `stream` for `path`, offering the `mqtt` subprotocol as paho
/// does: the socket, and the subprotocol the server chose.
async fn upgrade<S: AsyncRead + AsyncWrite + Unpin>(
    stream: S,
    path: &str,
) -> Result<(WebSocketStream<S>, Option<String>), WsError> {
    let mut request = format!("ws://127.0.0.1{path}").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Sec-WebSocket-Protocol", HeaderValue::from_static("mqtt"));
    let (ws, response) = tokio_tungstenite::client_async(request, stream).await?;
    let chosen = response
        .headers()
        .get("Sec-WebSocket-Protocol")
        .map(|v| v.to_str().unwrap().to_owned());
    Ok((ws, chosen))
}

/// A `ws://` connection to the server's `mqtt_ws_listen`, upgraded on `/mqtt`.
async fn ws_connect(server: &TestServer) -> WebSocketStream<TcpStream> {
    let stream = TcpStream::connect(server.mqtt_ws_addr.unwrap()).await.unwrap();
    // CONNECT is sent in two messages below: without it the second waits for the first's
    // delayed ACK (40 ms).
    stream.set_nodelay(true).unwrap();
    let (ws, chosen) = upgrade(stream, "/mqtt").await.expect("upgraded");
    assert_eq!(chosen.as_deref(), Some("mqtt"));
    ws
}

/// The password of the connections made here but where a test says otherwise.
const PASSWORD: &str = "0123456789abcdef0123456789abcdef";

fn connect_packet(session: &str, app_key: &str, password: &str) -> Vec<u8> {
    let mut connect = Connect::new(session);
    connect.keep_alive = 60;
    connect.set_login(app_key, password);
    let mut bytes = BytesMut::new();
    connect.write(&mut bytes).unwrap();
    bytes.to_vec()
}

async fn send<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut WebSocketStream<S>, bytes: &[u8]) {
    ws.send(Message::Binary(Bytes::copy_from_slice(bytes))).await.unwrap();
}

/// The next MQTT packet the server sends within `wait`, whatever the cut of its messages; `None`
/// when the connection ends or nothing comes.
async fn next_packet<S: AsyncRead + AsyncWrite + Unpin>(
    ws: &mut WebSocketStream<S>,
    buffer: &mut BytesMut,
    wait: Duration,
) -> Option<Packet> {
    tokio::time::timeout(wait, async {
        loop {
            if let Ok(packet) = Packet::read(buffer, 1 << 20) {
                return Some(packet);
            }
            match ws.next().await {
                Some(Ok(Message::Binary(bytes))) => buffer.extend_from_slice(&bytes),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                _ => return None,
            }
        }
    })
    .await
    .ok()
    .flatten()
}

/// Whether the server ends the WebSocket within `wait` (a Close, the end, or an error).
async fn ws_closed<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut WebSocketStream<S>, wait: Duration) -> bool {
    tokio::time::timeout(wait, async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                Some(Ok(_)) => {}
            }
        }
    })
    .await
    .is_ok()
}

/// Sends CONNECT cut in two messages, and reads the CONNACK's code.
async fn mqtt_connect<S: AsyncRead + AsyncWrite + Unpin>(
    ws: &mut WebSocketStream<S>,
    buffer: &mut BytesMut,
    session: &str,
    app_key: &str,
) -> u8 {
    mqtt_connect_with(ws, buffer, session, app_key, PASSWORD).await
}

async fn mqtt_connect_with<S: AsyncRead + AsyncWrite + Unpin>(
    ws: &mut WebSocketStream<S>,
    buffer: &mut BytesMut,
    session: &str,
    app_key: &str,
    password: &str,
) -> u8 {
    let connect = connect_packet(session, app_key, password);
    let (head, tail) = connect.split_at(7);
    send(ws, head).await;
    send(ws, tail).await;
    match next_packet(ws, buffer, Duration::from_secs(5)).await {
        Some(Packet::ConnAck(ack)) => ack.code as u8,
        other => panic!("expected CONNACK, got {other:?}"),
    }
}

fn symbol_in(packet: &Packet) -> String {
    use prost::Message as _;
    let Packet::Publish(p) = packet else {
        panic!("expected PUBLISH, got {packet:?}")
    };
    assert_eq!(p.topic, "snapshot");
    signet_server::streaming::proto::Snapshot::decode(p.payload.clone())
        .unwrap()
        .basic
        .unwrap()
        .symbol
}

#[tokio::test]
async fn a_websocket_session_is_bound_by_a_signed_subscribe_and_pushed_its_quotes() {
    let server = market(|c| {
        ws_listen(c);
        c.streaming.max_sessions_per_app = 1;
    })
    .await;
    let key = server.app.app_key.clone();

    // Connecting over TCP and over WebSocket, each to its CONNACK, a few times.
    let (mut tcp_times, mut ws_times) = (Vec::new(), Vec::new());
    for i in 0..5 {
        let started = Instant::now();
        let (_stream, connack) = raw_connect(&server, socket(), &format!("t{i}"), &key, 60).await;
        tcp_times.push(started.elapsed());
        assert_eq!(connack, [0x20, 2, 0, 0]);
        let started = Instant::now();
        let mut ws = ws_connect(&server).await;
        let code = mqtt_connect(&mut ws, &mut BytesMut::new(), &format!("w{i}"), &key).await;
        ws_times.push(started.elapsed());
        assert_eq!(code, 0);
    }
    tcp_times.sort();
    ws_times.sort();
    eprintln!(
        "to CONNACK, median of 5: TCP {:?}, WebSocket {:?}",
        tcp_times[2], ws_times[2]
    );

    let mut ws = ws_connect(&server).await;
    let mut buffer = BytesMut::new();
    assert_eq!(mqtt_connect(&mut ws, &mut buffer, "ws-1", &key).await, 0);
    let answer = subscribe(&server.client(), "ws-1", &["AAPL"], &["SNAPSHOT"]).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let first = next_packet(&mut ws, &mut buffer, Duration::from_secs(5))
        .await
        .expect("a snapshot");
    assert_eq!(symbol_in(&first), "AAPL");

    // Two packets in one message: each is answered.
    send(&mut ws, &[0xc0, 0, 0xa2, 4, 0, 7, 0, 0]).await; // PINGREQ, UNSUBSCRIBE 7 of no filter
    let mut answers = Vec::new();
    while answers.len() < 2 {
        match next_packet(&mut ws, &mut buffer, Duration::from_secs(5)).await {
            Some(Packet::Publish(_)) => {}
            Some(other) => answers.push(other),
            None => panic!("closed after {answers:?}"),
        }
    }
    assert!(matches!(answers[0], Packet::PingResp), "{answers:?}");
    assert!(matches!(&answers[1], Packet::UnsubAck(u) if u.pkid == 7), "{answers:?}");

    // The same sessions as over TCP: the app holds its one bound session, so a CONNECT over TCP
    // is refused with 105.
    let (_refused, connack) = raw_connect(&server, socket(), "over-tcp", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 105]);
    // And a step of the clock reaches the WebSocket session.
    server.ops().await.market().step(5).await.unwrap();
    let pushed = next_packet(&mut ws, &mut buffer, Duration::from_secs(5)).await;
    assert!(matches!(pushed, Some(Packet::Publish(_))), "{pushed:?}");

    // A DISCONNECT ends it, and the app may connect again.
    send(&mut ws, &[0xe0, 0]).await;
    assert!(ws_closed(&mut ws, LATE).await);
    let closed = Instant::now();
    loop {
        let (_again, connack) = raw_connect(&server, socket(), "over-tcp", &key, 60).await;
        if connack == [0x20, 2, 0, 0] {
            break;
        }
        assert!(closed.elapsed() < LATE, "still refused: {connack:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A session connected over TCP is taken over by the same client over WebSocket (the old
/// connection told so in a `notice`), and refused to another (code 2).
#[tokio::test]
async fn a_session_moves_from_tcp_to_websocket_for_the_same_client_only() {
    use tokio::io::AsyncReadExt;
    let server = market(ws_listen).await;
    let key = server.app.app_key.clone();
    // raw_connect's password is "x".
    let (mut over_tcp, connack) = raw_connect(&server, socket(), "moving", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    let mut other = ws_connect(&server).await;
    assert_eq!(
        mqtt_connect_with(&mut other, &mut BytesMut::new(), "moving", &key, "another").await,
        2
    );
    let mut ws = ws_connect(&server).await;
    let mut buffer = BytesMut::new();
    assert_eq!(mqtt_connect_with(&mut ws, &mut buffer, "moving", &key, "x").await, 0);
    let mut received = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), over_tcp.read_to_end(&mut received))
        .await
        .expect("the TCP connection is closed")
        .unwrap();
    let mut bytes = BytesMut::from(&received[..]);
    match Packet::read(&mut bytes, 1 << 16) {
        Ok(Packet::Publish(notice)) => assert_eq!(notice.topic, "notice"),
        other => panic!("a notice: {other:?}"),
    }
    // The WebSocket connection holds the session: a signed subscribe binds it.
    let answer = subscribe(&server.client(), "moving", &["AAPL"], &["SNAPSHOT"]).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let first = next_packet(&mut ws, &mut buffer, Duration::from_secs(5))
        .await
        .expect("a snapshot");
    assert_eq!(symbol_in(&first), "AAPL");
}

/// A browser page may open the feed only from an origin `mqtt_ws_origins` names; a client
/// outside a browser sends no `Origin` and is not concerned.
#[tokio::test]
async fn a_browser_page_of_an_origin_not_allowed_is_refused() {
    let server = market(|c| {
        ws_listen(c);
        c.mqtt_ws_origins = std::sync::Arc::new(["https://bots.example".to_owned()]);
    })
    .await;
    let from = |origin: &'static str| async move {
        let stream = TcpStream::connect(server.mqtt_ws_addr.unwrap()).await.unwrap();
        let mut request = "ws://127.0.0.1/mqtt".into_client_request().unwrap();
        request.headers_mut().insert("Origin", HeaderValue::from_static(origin));
        tokio_tungstenite::client_async(request, stream).await.map(|_| ())
    };
    match from("https://evil.example").await {
        Err(WsError::Http(response)) => assert_eq!(response.status(), 403),
        other => panic!("expected 403, got {other:?}"),
    }
    from("https://bots.example")
        .await
        .expect("an allowed origin is upgraded");
    ws_connect(&server).await;
}

#[tokio::test]
async fn another_path_is_answered_404_and_a_plain_request_is_not_upgraded() {
    let server = TestServer::start_with(ws_listen).await;
    let addr = server.mqtt_ws_addr.unwrap();
    for path in ["/", "/mqtt/", "/ws"] {
        let stream = TcpStream::connect(addr).await.unwrap();
        match upgrade(stream, path).await {
            Err(WsError::Http(response)) => assert_eq!(response.status(), 404, "{path}"),
            other => panic!("{path}: expected 404, got {:?}", other.map(|(_, p)| p)),
        }
    }
    // A request without the upgrade's headers: closed without an upgrade, at once (where the
    // header timeout takes 10 s).
    let started = Instant::now();
    let mut plain = TcpStream::connect(addr).await.unwrap();
    plain
        .write_all(b"GET /mqtt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let (_, received) = until_closed(&mut plain, started, LATE).await;
    assert!(
        !received.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&received)
    );
    // Bare MQTT to the WebSocket port is not HTTP: closed too.
    let started = Instant::now();
    let mut bare = TcpStream::connect(addr).await.unwrap();
    bare.write_all(&connect_packet("bare", &server.app.app_key, PASSWORD))
        .await
        .unwrap();
    let (waited, received) = until_closed(&mut bare, started, LATE).await;
    assert!(received.first() != Some(&0x20), "no CONNACK: {received:?}");
    eprintln!("bare MQTT to the WebSocket port: closed after {waited:?}");
    // A text message is not MQTT.
    let mut ws = ws_connect(&server).await;
    ws.send(Message::text("hello")).await.unwrap();
    assert!(ws_closed(&mut ws, LATE).await);
}

#[tokio::test]
async fn a_connection_that_never_upgrades_holds_an_unbound_place_until_the_header_timeout() {
    let server = TestServer::start_with(|c| {
        ws_listen(c);
        c.connections.header_timeout = Duration::from_secs(1);
        c.streaming.max_unbound_per_address = 1;
    })
    .await;
    let addr = server.mqtt_ws_addr.unwrap();
    let started = Instant::now();
    let mut silent = TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Its address has no other place: closed at once, so before the silent one (which its
    // header timeout closes, 1 s after it connected and 100 ms before this one did).
    let mut another = TcpStream::connect(addr).await.unwrap();
    let (another_closed, _) = until_closed(&mut another, started, LATE).await;
    // Half an upgrade request is no better.
    let mut trickling = socket_from("127.0.0.2").connect(addr).await.unwrap();
    trickling.write_all(b"GET /mqtt HTTP/1.1\r\nHost: ").await.unwrap();
    for stream in [&mut silent, &mut trickling] {
        let (closed_after, received) = until_closed(stream, started, Duration::from_secs(1) + LATE).await;
        assert!(received.is_empty(), "{received:?}");
        eprintln!("a connection that never upgraded: closed after {closed_after:?}");
        assert!(closed_after >= Duration::from_millis(900), "{closed_after:?}");
        assert!(another_closed < closed_after, "{another_closed:?}, {closed_after:?}");
    }
    assert_eq!(unbound_closures(&server, "address_limit").await, Some(1.0));
    // Its place is free again.
    let mut ws = ws_connect(&server).await;
    assert_eq!(
        mqtt_connect(&mut ws, &mut BytesMut::new(), "after", &server.app.app_key).await,
        0
    );
}

#[tokio::test]
async fn websocket_connections_count_among_the_unbound_of_their_address() {
    let server = market(|c| {
        ws_listen(c);
        c.streaming.max_unbound_per_address = 2;
    })
    .await;
    let key = server.app.app_key.clone();
    let (ws_addr, tcp_addr) = (server.mqtt_ws_addr.unwrap(), server.mqtt_addr.unwrap());
    // One over TCP, one over WebSocket, both unbound: the address has no place left.
    let (_tcp, connack) = raw_connect(&server, socket(), "tcp", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    let mut ws = ws_connect(&server).await;
    let mut buffer = BytesMut::new();
    assert_eq!(mqtt_connect(&mut ws, &mut buffer, "ws", &key).await, 0);
    // Closed at once, where the bind and header timeouts take 30 s and 10 s.
    for addr in [ws_addr, tcp_addr] {
        let started = Instant::now();
        let mut third = socket().connect(addr).await.unwrap();
        let (_, received) = until_closed(&mut third, started, LATE).await;
        assert!(received.is_empty(), "{addr}: {received:?}");
    }
    assert_eq!(unbound_closures(&server, "address_limit").await, Some(2.0));
    // Bound, the WebSocket session frees its place: one more may connect.
    assert_eq!(
        subscribe(&server.client(), "ws", &["AAPL"], &["SNAPSHOT"]).await.status,
        200
    );
    let mut more = ws_connect(&server).await;
    assert_eq!(mqtt_connect(&mut more, &mut BytesMut::new(), "more", &key).await, 0);
}

/// An unbound WebSocket session is closed at the bind timeout; a bound one that stays silent
/// for 1.5 × its keep-alive is closed too (WebSocket pings are not MQTT's PINGREQ).
#[tokio::test]
async fn the_bind_timeout_and_the_keep_alive_hold_over_websocket() {
    let server = market(|c| {
        ws_listen(c);
        c.streaming.bind_timeout = Duration::from_secs(1);
    })
    .await;
    let key = server.app.app_key.clone();
    let started = Instant::now();
    let mut unbound = ws_connect(&server).await;
    assert_eq!(
        mqtt_connect(&mut unbound, &mut BytesMut::new(), "unbound", &key).await,
        0
    );
    assert!(ws_closed(&mut unbound, Duration::from_secs(1) + LATE).await);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    assert_eq!(unbound_closures(&server, "bind_timeout").await, Some(1.0));

    // Keep-alive 1 s, bound, then only WebSocket pings.
    let mut silent = ws_connect(&server).await;
    let mut connect = Connect::new("silent");
    connect.keep_alive = 1;
    connect.set_login(key.as_str(), PASSWORD);
    let mut bytes = BytesMut::new();
    connect.write(&mut bytes).unwrap();
    // The keep-alive counts from the last packet the server read: this CONNECT.
    let started = Instant::now();
    send(&mut silent, &bytes).await;
    let mut buffer = BytesMut::new();
    assert!(matches!(
        next_packet(&mut silent, &mut buffer, LATE).await,
        Some(Packet::ConnAck(_))
    ));
    assert_eq!(
        subscribe(&server.client(), "silent", &["AAPL"], &["SNAPSHOT"])
            .await
            .status,
        200
    );
    let closed = tokio::time::timeout_at((started + Duration::from_millis(1500) + LATE).into(), async {
        loop {
            tokio::time::sleep(Duration::from_millis(300)).await;
            if silent.send(Message::Ping(Bytes::new())).await.is_err() {
                return;
            }
            // Whatever came (snapshots, pongs) is read; the end ends the wait.
            while let Ok(Some(next)) = tokio::time::timeout(Duration::from_millis(10), silent.next()).await {
                if !matches!(next, Ok(Message::Binary(_) | Message::Pong(_))) {
                    return;
                }
            }
        }
    })
    .await;
    let waited = started.elapsed();
    assert!(closed.is_ok(), "still open after {waited:?}");
    assert!(
        waited >= Duration::from_millis(1400),
        "1.5 x the keep-alive: {waited:?}"
    );
}

#[tokio::test]
async fn a_message_larger_than_the_largest_packet_closes_the_connection() {
    let server = TestServer::start_with(|c| {
        ws_listen(c);
        c.streaming.max_packet_bytes = 1024;
    })
    .await;
    let mut ws = ws_connect(&server).await;
    let mut buffer = BytesMut::new();
    assert_eq!(mqtt_connect(&mut ws, &mut buffer, "big", &server.app.app_key).await, 0);
    // A PUBLISH at the limit is read (and ignored, QoS 0); one over it ends the connection.
    // Its remaining length in two bytes (under 16 KiB), topic "t", then zeros.
    let publish = |remaining: u16| {
        let [low, high] = ((remaining % 128) | ((remaining / 128) << 8)).to_le_bytes();
        let mut bytes = vec![0x30, 0x80 | low, high, 0, 1, b't'];
        bytes.resize(usize::from(remaining) + 3, 0);
        bytes
    };
    send(&mut ws, &publish(1024)).await;
    send(&mut ws, &[0xc0, 0]).await;
    assert!(matches!(
        next_packet(&mut ws, &mut buffer, LATE).await,
        Some(Packet::PingResp)
    ));
    // 2,000 bytes in one message, over the WebSocket layer's limit.
    let _ = ws.send(Message::Binary(Bytes::from(publish(2000)))).await;
    assert!(ws_closed(&mut ws, LATE).await);
}

#[tokio::test]
async fn the_quotes_feed_over_wss_with_the_self_signed_authority() {
    let dir = tempfile::tempdir().unwrap();
    let made = authority(&dir.path().join("server"));
    let other = authority(&dir.path().join("other"));
    let server = tls_market(&made, ws_listen).await;
    let addr = server.mqtt_ws_addr.unwrap();

    // A client that does not trust the authority does not get as far as the upgrade.
    assert!(crate::tls::tls_connect(addr, "localhost", &other.ca).await.is_err());
    // Plain WebSocket to the wss port: closed at once (where the header timeout takes 10 s).
    let mut plain = TcpStream::connect(addr).await.unwrap();
    let started = Instant::now();
    let upgraded = tokio::time::timeout(LATE, upgrade(&mut plain, "/mqtt")).await;
    assert!(matches!(upgraded, Ok(Err(_))), "refused at once");
    eprintln!("plain ws to the wss port: refused after {:?}", started.elapsed());

    let started = Instant::now();
    let tls = crate::tls::tls_connect(addr, "localhost", &made.ca).await.unwrap();
    let (mut ws, chosen) = upgrade(tls, "/mqtt").await.expect("upgraded over TLS");
    assert_eq!(chosen.as_deref(), Some("mqtt"));
    let mut buffer = BytesMut::new();
    assert_eq!(
        mqtt_connect(&mut ws, &mut buffer, "wss-1", &server.app.app_key).await,
        0
    );
    eprintln!("wss: TLS, upgrade and CONNACK in {:?}", started.elapsed());

    // The signed subscribe over HTTPS binds it.
    let http = trusting(&made.ca)
        .apply(reqwest::Client::builder())
        .unwrap()
        .build()
        .unwrap();
    let client = Client::with_http_client(
        http.clone(),
        &https(server.addr),
        &server.app.app_key,
        server.app.app_secret.expose_secret(),
    )
    .unwrap();
    let body = serde_json::json!({"session_id": "wss-1", "symbols": ["AAPL"], "category": "US_STOCK", "sub_types": ["SNAPSHOT"]});
    let request = client
        .prepare(
            reqwest::Method::POST,
            "/market-data/streaming/subscribe",
            &[],
            Some(serde_json::to_vec(&body).unwrap()),
        )
        .unwrap();
    let answer = http
        .request(request.method, request.url)
        .headers(request.headers)
        .body(request.body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let first = next_packet(&mut ws, &mut buffer, Duration::from_secs(5))
        .await
        .expect("a snapshot over wss");
    assert_eq!(symbol_in(&first), "AAPL");
    server.stop().await;
}

/// The official Python client, unmodified: `DataStreamingClient(..., transport="websockets")`
/// (paho's WebSocket transport, whose path is `/mqtt` and which offers the `mqtt` subprotocol),
/// over `wss` with its defaults otherwise (HTTPS, `tls_enable=True`) and trusting the authority
/// by `SSL_CERT_FILE`; then over plain `ws` against a server without TLS (`tls_enable=False`).
#[tokio::test]
async fn the_official_client_streams_quotes_over_websockets() {
    let Some(python) = crate::common::interpreter("SIGNET_PYTHON") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let made = authority(dir.path());
    let server = tls_market(&made, ws_listen).await;
    let plain = market(ws_listen).await;
    let ca = made.ca.to_str().unwrap().to_owned();
    let run = |server: &TestServer, tls: bool, variables: &[&str]| {
        let mut command = crate::common::python_script(&python, "tls_client.py", server, "streaming");
        command.env("SIGNET_TLS_WAIT", if tls && variables.len() < 2 { "3" } else { "10" });
        command.env("SIGNET_MQTT_TRANSPORT", "websockets");
        command.env("SIGNET_TLS_ENABLE", if tls { "1" } else { "0" });
        for variable in [
            "WEBULL_API_CA_BUNDLE",
            "REQUESTS_CA_BUNDLE",
            "CURL_CA_BUNDLE",
            "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH",
            "SSL_CERT_FILE",
            "SSL_CERT_DIR",
        ] {
            command.env_remove(variable);
        }
        for variable in variables {
            command.env(variable, &ca);
        }
        command.env("SIGNET_MQTT_PORT", server.mqtt_ws_addr.unwrap().port().to_string());
        let label = format!("tls {tls} {variables:?}");
        async move {
            let output = tokio::task::spawn_blocking(move || command.output().unwrap())
                .await
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            assert!(
                output.status.success(),
                "{label}: {}",
                stderr.lines().rev().take(30).collect::<Vec<_>>().join("\n")
            );
            let answer: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
            eprintln!("{label}: {answer}");
            answer
        }
    };
    let wss = run(&server, true, &["WEBULL_API_CA_BUNDLE", "SSL_CERT_FILE"]).await;
    assert_eq!(wss["received"], true, "{wss}");
    assert_eq!(wss["topic"], "snapshot", "{wss}");
    assert_eq!(wss["symbol"], "AAPL", "{wss}");
    let untrusted = run(&server, true, &["WEBULL_API_CA_BUNDLE"]).await;
    assert_eq!(untrusted["received"], false, "without SSL_CERT_FILE: {untrusted}");
    let ws = run(&plain, false, &[]).await;
    assert_eq!(ws["received"], true, "{ws}");
    assert_eq!(ws["symbol"], "AAPL", "{ws}");
    server.stop().await;
}
