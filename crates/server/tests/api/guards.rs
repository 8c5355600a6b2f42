//! What a caller who holds nothing but an app key cannot make the HTTP address hold on to:
//! refused requests cost bounded memory (a limit on the request target, a budget for the
//! console's request ring), and HTTP/2 and gRPC keep the guards of HTTP/1 (idle connections
//! closed, pings with a timeout while streams are open, the per-address limit, request ids, a
//! capped subscribe message and account list, and a timeout on a body that stops arriving).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::Frame;
use hyper_util::rt::{TokioExecutor, TokioIo};
use reqwest::Method;
use reqwest::header::COOKIE;
use secrecy::ExposeSecret;
use signet_client::{Client, SubscribeCodec};
use signet_model::ErrorCode;
use signet_server::console::requests::{BUDGET, EXPLAINED, KEPT, STR3_BYTES};
use signet_server::events::proto::SUBSCRIBE_PATH;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tonic::Code;

use crate::common::{LATE, TestServer, http, send, sign_exactly, until_closed};
use crate::events::{EVERY_TYPE, assert_refused, next, nonce, signed_request, subscribe_with};

/// What an HTTP/2 client sends first.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

#[tokio::test]
async fn a_request_target_over_the_limit_is_refused_with_414() {
    let server = TestServer::start().await;
    let client = server.client();
    // "/trading/accounts/list?q=" and the value: the default limit, 8 KiB, exactly, then one more.
    let at_limit = "a".repeat(8 * 1024 - 25);
    let request = |value: &str| {
        client
            .prepare(Method::GET, "/trading/accounts/list", &[("q", value)], None)
            .unwrap()
    };
    assert_eq!(send(request(&at_limit)).await.status, 200);
    let over = send(request(&format!("{at_limit}a"))).await;
    let body = over.assert_error(414, "URI_TOO_LONG");
    assert!(body.message.contains("8193"), "{}", body.message);

    // Configurable, and before authentication: an unsigned request is refused the same way.
    let server = TestServer::start_with(|c| c.max_uri_bytes = 100).await;
    let answer = http()
        .get(server.url(&format!("/health?{}", "a".repeat(100))))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 414);
    let answer = http().get(server.url("/health")).send().await.unwrap();
    assert_eq!(answer.status(), 200);
}

#[tokio::test]
async fn a_flood_of_refused_signatures_keeps_the_request_ring_within_its_budget() {
    let server = TestServer::start().await;
    let session = crate::console::sign_in(&server).await;
    let wrong = Client::new(&server.endpoint, &server.app.app_key, "not-the-secret").unwrap();
    // Just under the target's limit: each is refused with an explanation whose strings to sign
    // hold the whole query.
    let query = "a".repeat(8_000);
    let mut flood = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (wrong, query) = (wrong.clone(), query.clone());
        flood.spawn(async move {
            for _ in 0..(KEPT + 100) / 8 {
                let refused = wrong
                    .get::<serde_json::Value>("/trading/accounts/list", &[("q", &query)])
                    .await
                    .unwrap_err();
                let shown: String = refused.to_string().chars().take(200).collect();
                assert_eq!(refused.code(), Some(ErrorCode::IncorrectSign), "{shown}");
            }
        });
    }
    while let Some(done) = flood.join_next().await {
        done.unwrap();
    }

    let page = |path: String| {
        let session = session.clone();
        let url = server.url(&path);
        async move {
            let answer = http().get(url).header(COOKIE, session).send().await.unwrap();
            assert_eq!(answer.status(), 200);
            answer.text().await.unwrap()
        }
    };
    let list = page("/console/requests".into()).await;
    let held = list
        .split_once(&format!("(now {KEPT}, in "))
        .and_then(|(_, rest)| rest.split_once(" KiB)"))
        .map(|(kib, _)| kib.parse::<usize>().unwrap())
        .unwrap_or_else(|| panic!("the page says what the ring holds: {list}"));
    assert!(held * 1024 <= BUDGET, "{held} KiB");
    // Of the 500 listed, the newest keep their explanation.
    assert_eq!(list.matches("INCORRECT_SIGN (explain)").count(), EXPLAINED);

    let at = list.find("/console/requests/").unwrap();
    let href: String = list[at..].chars().take_while(|c| *c != '"').collect();
    let explained = page(href).await;
    assert!(
        explained.contains(&format!("Its first {STR3_BYTES} bytes of ")),
        "{explained}"
    );
    assert!(explained.contains("x-signature-nonce"), "the headers received");
}

#[tokio::test]
async fn http2_connections_that_send_their_preface_then_nothing_are_closed_after_the_header_timeout() {
    let server = TestServer::start_with(|c| c.connections.header_timeout = Duration::from_secs(1)).await;
    let started = Instant::now();
    let mut idle = Vec::new();
    for _ in 0..50 {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream.write_all(PREFACE).await.unwrap();
        idle.push(stream);
    }
    let mut waits = Vec::new();
    for stream in &mut idle {
        let (closed, _) = until_closed(stream, started, Duration::from_secs(1) + LATE).await;
        waits.push(closed);
    }
    assert!(waits.iter().all(|w| *w >= Duration::from_millis(900)), "{waits:?}");
    assert_eq!(http().get(server.url("/health")).send().await.unwrap().status(), 200);
}

/// A request body that sends `data` and then either ends, or never sends anything again.
struct Partial {
    data: Option<Bytes>,
    stall: bool,
}

impl Partial {
    fn whole(data: &[u8]) -> Self {
        Partial {
            data: Some(Bytes::copy_from_slice(data)),
            stall: false,
        }
    }

    fn stalled(data: &[u8]) -> Self {
        Partial {
            data: Some(Bytes::copy_from_slice(data)),
            stall: true,
        }
    }
}

impl hyper::body::Body for Partial {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.data.take() {
            Some(data) => Poll::Ready(Some(Ok(Frame::data(data)))),
            None if self.stall => Poll::Pending,
            None => Poll::Ready(None),
        }
    }
}

/// An HTTP/2 connection to `server` with hyper's client, which answers pings and settings; the
/// task driving it ends when the connection closes, with whether it closed cleanly (GOAWAY).
async fn h2(
    server: &TestServer,
) -> (
    hyper::client::conn::http2::SendRequest<Partial>,
    tokio::task::JoinHandle<hyper::Result<()>>,
) {
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let (sender, connection) = hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
        .await
        .unwrap();
    (sender, tokio::spawn(connection))
}

/// A gRPC request for the subscription with this body, unsigned (nothing reads the signature
/// before the message).
fn grpc_request(server: &TestServer, body: Partial) -> hyper::Request<Partial> {
    hyper::Request::post(format!("http://{}{SUBSCRIBE_PATH}", server.addr))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(body)
        .unwrap()
}

#[tokio::test]
async fn an_idle_http2_connection_is_closed_and_one_with_a_stream_open_is_not() {
    let server = TestServer::start_with(|c| {
        c.connections.header_timeout = Duration::from_secs(1);
        c.events.ping_interval = Duration::from_millis(200);
    })
    .await;
    // A well-behaved client, idle after its request: told to go away, and gone, the header
    // timeout after its request ended (after `started`).
    let started = Instant::now();
    let (mut sender, connection) = h2(&server).await;
    let request = hyper::Request::get(server.url("/health"))
        .body(Partial::whole(b""))
        .unwrap();
    assert_eq!(sender.send_request(request).await.unwrap().status(), 200);
    tokio::time::timeout_at((started + Duration::from_secs(1) + LATE).into(), connection)
        .await
        .expect("the idle connection is closed")
        .unwrap()
        .expect("with a GOAWAY");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );

    // A subscription's stream stays open well past the header timeout, with its pings.
    let secret = server.app.app_secret.expose_secret().to_owned();
    let account = server.app.account_ids[0].clone();
    let mut stream = subscribe_with(
        &server.addr.to_string(),
        &server.app.app_key,
        &secret,
        &[&account],
        &nonce(),
    )
    .await
    .unwrap();
    assert_eq!(next(&mut stream).await.unwrap().unwrap().event_type, 0);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(3) {
        assert_eq!(next(&mut stream).await.unwrap().unwrap().event_type, 1);
    }
}

/// One HTTP/2 frame.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let length = u32::try_from(payload.len()).unwrap().to_be_bytes();
    let mut frame = vec![length[1], length[2], length[3], kind, flags];
    frame.extend_from_slice(&stream.to_be_bytes());
    frame.extend_from_slice(payload);
    frame
}

/// The kinds of the whole frames in `bytes`.
fn frame_kinds(bytes: &[u8]) -> Vec<u8> {
    let mut kinds = Vec::new();
    let mut at = 0;
    while at + 9 <= bytes.len() {
        let length = usize::from(bytes[at]) << 16 | usize::from(bytes[at + 1]) << 8 | usize::from(bytes[at + 2]);
        kinds.push(bytes[at + 3]);
        at += 9 + length;
    }
    kinds
}

#[tokio::test]
async fn a_connection_with_a_stream_open_whose_peer_stops_answering_pings_is_closed() {
    let server = TestServer::start_with(|c| {
        c.connections.keep_alive_interval = Duration::from_millis(300);
        c.connections.keep_alive_timeout = Duration::from_millis(500);
    })
    .await;
    // By hand, so that nothing answers the server's pings: the preface, empty settings, and a
    // subscription's head (HPACK literals) whose body never comes.
    let mut head = Vec::new();
    for (name, value) in [
        (":method", "POST"),
        (":scheme", "http"),
        (":path", SUBSCRIBE_PATH),
        (":authority", "127.0.0.1"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    ] {
        head.push(0);
        head.push(u8::try_from(name.len()).unwrap());
        head.extend_from_slice(name.as_bytes());
        head.push(u8::try_from(value.len()).unwrap());
        head.extend_from_slice(value.as_bytes());
    }
    let started = Instant::now();
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(PREFACE).await.unwrap();
    stream.write_all(&frame(0x4, 0, 0, &[])).await.unwrap();
    stream.write_all(&frame(0x1, 0x4, 1, &head)).await.unwrap();
    // Closed for its unanswered pings (300 ms, then 500 ms), long before the body's timeout (30 s).
    let (closed, received) = until_closed(&mut stream, started, Duration::from_millis(800) + LATE).await;
    assert!(frame_kinds(&received).contains(&0x6), "pinged: {received:?}");
    assert!(closed >= Duration::from_millis(700), "{closed:?}");
}

#[tokio::test]
async fn grpc_requests_pass_the_per_address_limit_and_carry_a_request_id() {
    use signet_domain::ratelimit::{Limit, RateLimits};
    let server = TestServer::start_with(|c| {
        let mut limits = RateLimits::published();
        limits.per_address = Limit {
            requests: 1,
            window: Duration::from_secs(60),
        };
        c.rate_limits = Some(limits);
    })
    .await;
    let secret = server.app.app_secret.expose_secret().to_owned();
    let account = server.app.account_ids[0].clone();
    let channel = tonic::transport::Endpoint::from_shared(server.endpoint.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut grpc = tonic::client::Grpc::new(channel);
    let subscribe = |nonce: &str| signed_request(&server.app.app_key, &secret, &[&account], nonce, EVERY_TYPE);

    grpc.ready().await.unwrap();
    let first = grpc
        .server_streaming(subscribe(&nonce()), SUBSCRIBE_PATH.parse().unwrap(), SubscribeCodec)
        .await
        .expect("the address's one request");
    assert!(first.metadata().get("x-request-id").is_some(), "{:?}", first.metadata());
    let mut stream = first.into_inner();
    assert_eq!(next(&mut stream).await.unwrap().unwrap().event_type, 0);

    grpc.ready().await.unwrap();
    let refused = grpc
        .server_streaming(subscribe(&nonce()), SUBSCRIBE_PATH.parse().unwrap(), SubscribeCodec)
        .await
        .expect_err("over the address's limit");
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert!(refused.metadata().get("x-request-id").is_some(), "{refused:?}");
    assert!(refused.metadata().get("retry-after").is_some(), "{refused:?}");
}

/// The gRPC status of an answer sent as headers only.
fn grpc_status<B>(answer: &hyper::Response<B>) -> Option<&str> {
    answer.headers().get("grpc-status").and_then(|v| v.to_str().ok())
}

#[tokio::test]
async fn an_oversized_subscribe_message_is_refused_from_its_declared_length() {
    let server = TestServer::start().await;
    let (mut sender, _connection) = h2(&server).await;
    // A message declared as 1 MiB, its first 16 KiB, and then nothing: the answer cannot wait
    // for the rest.
    let mut start = vec![0u8];
    start.extend_from_slice(&(1024u32 * 1024).to_be_bytes());
    start.resize(5 + 16 * 1024, 0);
    let answer = tokio::time::timeout(
        Duration::from_secs(3),
        sender.send_request(grpc_request(&server, Partial::stalled(&start))),
    )
    .await
    .expect("refused at once")
    .unwrap();
    assert_eq!(grpc_status(&answer), Some("11"), "OUT_OF_RANGE: {answer:?}");
    assert!(answer.headers().contains_key("x-request-id"));
}

#[tokio::test]
async fn a_subscription_names_at_most_100_accounts_each_once() {
    let server = TestServer::start().await;
    let (key, secret) = (
        server.app.app_key.clone(),
        server.app.app_secret.expose_secret().to_owned(),
    );
    let addr = server.addr.to_string();
    let many: Vec<String> = (0..101).map(|n| format!("made-up-{n}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let refused = subscribe_with(&addr, &key, &secret, &many, &nonce()).await;
    assert_refused(refused, "ILLEGAL_PARAMETER", Code::InvalidArgument).await;

    let account = server.app.account_ids[0].as_str();
    let repeated = vec![account; 150];
    let mut stream = subscribe_with(&addr, &key, &secret, &repeated, &nonce()).await.unwrap();
    assert_eq!(next(&mut stream).await.unwrap().unwrap().event_type, 0);
}

#[tokio::test]
async fn a_request_body_that_stalls_is_cut_off() {
    let server = TestServer::start_with(|c| c.connections.body_timeout = Duration::from_secs(1)).await;
    // HTTP/1: a placement whose body stops 10 bytes short.
    let body = br#"{"account_id":"x","new_orders":[]}"#;
    let host = server.addr.to_string();
    let mut head = format!(
        "POST /trading/orders/place HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in sign_exactly(&server, &host, "/trading/orders/place", "", body) {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let started = Instant::now();
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body[..body.len() - 10]).await.unwrap();
    let (took, answer) = until_closed(&mut stream, started, Duration::from_secs(1) + LATE).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""error_code":"REQUEST_TIMEOUT""#), "{answer}");
    assert!(took >= Duration::from_millis(900), "{took:?}");

    // gRPC: the subscription's message stops after 3 of its bytes.
    let (mut sender, _connection) = h2(&server).await;
    let started = Instant::now();
    let answer = tokio::time::timeout_at(
        (started + Duration::from_secs(1) + LATE).into(),
        sender.send_request(grpc_request(&server, Partial::stalled(&[0, 0, 0]))),
    )
    .await
    .expect("cut off")
    .unwrap();
    assert!(grpc_status(&answer).is_some_and(|s| s != "0"), "{answer:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
}
