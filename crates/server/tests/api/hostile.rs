//! Hostile and broken input, each case with the exact answer it gets: a clear 4xx with the
//! interface's error body, or, where HTTP allows no answer, a 4xx from the HTTP layer or a
//! closed connection. After every case the server still answers, and nothing was stored.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{LATE, TestServer, raw_http, send};

/// A request signed over exactly this target (path and raw query) and body, written as raw
/// HTTP/1.1 with `extra` header lines, closing the connection after the answer.
fn signed_raw(server: &TestServer, method: &str, target: &str, body: &[u8], extra: &[u8]) -> Vec<u8> {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let host = server.addr.to_string();
    let mut raw = format!("{method} {target} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n");
    for (name, value) in crate::common::sign_exactly(server, &host, path, query, body) {
        raw.push_str(&format!("{name}: {value}\r\n"));
    }
    let mut raw = raw.into_bytes();
    if !body.is_empty() {
        raw.extend_from_slice(
            format!("content-type: application/json\r\ncontent-length: {}\r\n", body.len()).as_bytes(),
        );
    }
    raw.extend_from_slice(extra);
    raw.extend_from_slice(b"\r\n");
    raw.extend_from_slice(body);
    raw
}

/// The status and the error code of a raw answer (`None` when its body is not an error object).
fn status_and_code(answer: &str) -> (u16, Option<String>) {
    let status = answer
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"));
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    let code = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v["error_code"].as_str().map(str::to_owned));
    (status, code)
}

#[track_caller]
fn assert_answer(answer: &str, status: u16, code: &str) {
    assert_eq!(status_and_code(answer), (status, Some(code.to_owned())), "{answer}");
}

/// What a placement body looks like, with `order` fields replaced.
fn placement(server: &TestServer, order: Value) -> Vec<u8> {
    let mut new_order = json!({
        "client_order_id": "h1", "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
        "time_in_force": "DAY", "entrust_type": "QTY", "quantity": "1", "instrument_type": "EQUITY",
        "market": "US", "support_trading_session": "CORE", "order_type": "LIMIT", "limit_price": "10",
    });
    for (key, value) in order.as_object().unwrap() {
        new_order[key] = value.clone();
    }
    serde_json::to_vec(&json!({"account_id": server.app.account_ids[0], "new_orders": [new_order]})).unwrap()
}

/// The server still answers a signed call, and holds no order and no watchlist.
async fn assert_unharmed(server: &TestServer) {
    let accounts = server
        .client()
        .accounts()
        .list()
        .await
        .expect("the server still answers");
    assert_eq!(accounts.len(), 2);
    for account in &server.app.account_ids {
        let orders = server
            .client()
            .orders()
            .history(account, None, None, None)
            .await
            .unwrap();
        assert!(orders.data.is_empty(), "nothing is stored: {:?}", orders.data);
    }
    let watchlists = server.client().watchlists().list().await.unwrap();
    assert!(watchlists.is_empty(), "nothing is stored: {watchlists:?}");
}

#[tokio::test]
async fn broken_header_lines_are_refused_by_the_http_layer() {
    let server = TestServer::start().await;
    for header in [
        // (A bare LF ends a header line, as RFC 9112 allows: that is two headers, not one.)
        &b"x-note: a\rb\r\n"[..],
        b"x-note: a\r\n folded\r\n",
        b"x-n\0te: a\r\n",
        b"x-note: a\0b\r\n",
    ] {
        let request = signed_raw(&server, "GET", "/trading/accounts/list", b"", header);
        let answer = raw_http(server.addr, &request).await;
        // HTTP allows no error body here: a bare 400, or the connection closed.
        assert!(
            answer.is_empty() || answer.starts_with("HTTP/1.1 400"),
            "{header:?}: {answer}"
        );
    }
    assert_unharmed(&server).await;
}

#[tokio::test]
async fn headers_over_16_kib_are_refused() {
    let server = TestServer::start().await;
    let padding = format!("x-padding: {}\r\n", "p".repeat(16 * 1024));
    let request = signed_raw(&server, "GET", "/trading/accounts/list", b"", padding.as_bytes());
    assert_answer(&raw_http(server.addr, &request).await, 431, "HEADERS_TOO_LARGE");
    // Far larger: refused by the HTTP layer before it is buffered whole.
    let padding = format!("x-padding: {}\r\n", "p".repeat(1024 * 1024));
    let request = signed_raw(&server, "GET", "/trading/accounts/list", b"", padding.as_bytes());
    let answer = raw_http(server.addr, &request).await;
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 431"), "{answer}");
    // Many small headers add up too.
    let many: String = (0..2_000).map(|n| format!("x-h{n}: v\r\n")).collect();
    let request = signed_raw(&server, "GET", "/trading/accounts/list", b"", many.as_bytes());
    let answer = raw_http(server.addr, &request).await;
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 431"), "{answer}");
    assert_unharmed(&server).await;
}

#[tokio::test]
async fn a_signing_header_sent_twice_is_refused() {
    let server = TestServer::start().await;
    for name in [
        "x-app-key",
        "x-signature",
        "x-signature-nonce",
        "x-timestamp",
        "x-version",
    ] {
        let request = signed_raw(
            &server,
            "GET",
            "/trading/accounts/list",
            b"",
            format!("{name}: again\r\n").as_bytes(),
        );
        assert_answer(&raw_http(server.addr, &request).await, 400, "ILLEGAL_PARAMETER");
    }
    let request = signed_raw(&server, "GET", "/trading/accounts/list", b"", b"host: elsewhere\r\n");
    let answer = raw_http(server.addr, &request).await;
    assert!(answer.starts_with("HTTP/1.1 4"), "two Host headers: {answer}");
    assert_unharmed(&server).await;
}

#[tokio::test]
async fn paths_are_taken_literally_and_never_normalized() {
    let server = TestServer::start().await;
    for path in [
        "/trading/../trading/accounts/list",
        "/trading/./accounts/list",
        "/trading/accounts/list/..",
        "/trading%2Faccounts%2Flist",
        "/trading%252Faccounts%252Flist",
        "/trading/accounts/%6Cist",
        "/trading/accounts/list%00",
        "/trading/accounts/list%FF",
        "//trading/accounts/list",
    ] {
        // Signed over that very path: the signature holds, and no operation has the path.
        let request = signed_raw(&server, "GET", path, b"", b"");
        assert_answer(&raw_http(server.addr, &request).await, 404, "NOT_FOUND");
    }
    // Not signed over the path it is sent to: the signature fails first.
    let mut request = signed_raw(&server, "GET", "/trading/accounts/list", b"", b"");
    let swapped =
        String::from_utf8(request.clone())
            .unwrap()
            .replacen("/trading/accounts/list", "/trading/./accounts/list", 1);
    request = swapped.into_bytes();
    assert_answer(&raw_http(server.addr, &request).await, 401, "INCORRECT_SIGN");
    assert_unharmed(&server).await;
}

#[tokio::test]
async fn bytes_no_parameter_may_hold_are_refused() {
    let server = TestServer::start().await;
    let account = server.app.account_ids[0].clone();
    for query in [
        format!("account_id={account}%00"),
        format!("account_id={account}%FF"),
        format!("account_id=%C0%AF{account}"),
    ] {
        let target = format!("/trading/orders/open-orders/list?{query}");
        let request = signed_raw(&server, "GET", &target, b"", b"");
        assert_answer(&raw_http(server.addr, &request).await, 400, "ILLEGAL_PARAMETER");
    }
    // A parameter given twice where one is read: the JSON error, not the framework's text.
    let target = format!("/trading/orders/open-orders/list?account_id={account}&account_id={account}");
    let answer = raw_http(server.addr, &signed_raw(&server, "GET", &target, b"", b"")).await;
    assert_answer(&answer, 400, "ILLEGAL_PARAMETER");
    assert!(answer.contains("duplicate field"), "{answer}");
    // Raw bytes outside ASCII in the request line: not a URI.
    let mut request = signed_raw(&server, "GET", "/trading/accounts/list", b"", b"");
    request.splice(4..4, [0xFF, 0xFE]);
    let answer = raw_http(server.addr, &request).await;
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 400"), "{answer}");

    let body = placement(&server, json!({"client_order_id": "h\u{0}1"}));
    let request = signed_raw(&server, "POST", "/trading/orders/place", &body, b"");
    assert_answer(&raw_http(server.addr, &request).await, 400, "ILLEGAL_PARAMETER");
    let body = br#"{"name":"w\u0000"}"#;
    let request = signed_raw(&server, "POST", "/market-data/watchlists/create", body, b"");
    let answer = raw_http(server.addr, &request).await;
    assert_answer(&answer, 400, "ILLEGAL_PARAMETER");
    // A raw NUL byte, or bytes that are not UTF-8, are not JSON.
    for body in [&b"{\"name\":\"w\0\"}"[..], b"{\"name\":\"w\xFF\"}"] {
        let request = signed_raw(&server, "POST", "/market-data/watchlists/create", body, b"");
        assert_answer(&raw_http(server.addr, &request).await, 400, "ILLEGAL_PARAMETER");
    }
    assert_unharmed(&server).await;
}

#[tokio::test]
async fn json_nested_10000_deep_is_refused() {
    let server = TestServer::start().await;
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let body = format!(r#"{{"account_id":"x","new_orders":{deep}}}"#);
    let request = signed_raw(&server, "POST", "/trading/orders/place", body.as_bytes(), b"");
    assert_answer(&raw_http(server.addr, &request).await, 400, "ILLEGAL_PARAMETER");
    let deep = format!("{}1{}", r#"{"a":"#.repeat(10_000), "}".repeat(10_000));
    let request = signed_raw(&server, "POST", "/trading/orders/place", deep.as_bytes(), b"");
    assert_answer(&raw_http(server.addr, &request).await, 400, "ILLEGAL_PARAMETER");
    assert_unharmed(&server).await;
}

#[tokio::test]
async fn quantities_and_prices_that_are_not_positive_amounts_are_refused() {
    let server = TestServer::start().await;
    let huge = format!("1{}", "0".repeat(399));
    let cases = [
        json!({"quantity": huge}),
        json!({"limit_price": huge}),
        json!({"quantity": "-1"}),
        json!({"quantity": "0"}),
        json!({"quantity": "one"}),
        json!({"quantity": ""}),
        json!({"quantity": "NaN"}),
        json!({"quantity": [1]}),
        json!({"limit_price": "-10"}),
        json!({"limit_price": "0"}),
        json!({"limit_price": "ten"}),
        json!({"limit_price": "0.0000000000000000000000000001"}),
    ];
    for case in cases {
        let body = placement(&server, case.clone());
        let request = signed_raw(&server, "POST", "/trading/orders/place", &body, b"");
        let answer = raw_http(server.addr, &request).await;
        assert_eq!(status_and_code(&answer).0, 400, "{case}: {answer}");
        let code = status_and_code(&answer).1.unwrap();
        assert!(code == "ILLEGAL_PARAMETER", "{case}: {answer}");
    }
    // A number of 400 digits as a JSON number, not a string.
    let body = String::from_utf8(placement(&server, json!({"quantity": "Q"})))
        .unwrap()
        .replace(r#""Q""#, &huge);
    let request = signed_raw(&server, "POST", "/trading/orders/place", body.as_bytes(), b"");
    assert_answer(&raw_http(server.addr, &request).await, 400, "ILLEGAL_PARAMETER");
    assert_unharmed(&server).await;
}

#[tokio::test]
async fn a_10_mb_body_is_refused_without_being_read() {
    let server = TestServer::start().await;
    let body = vec![b' '; 10 * 1024 * 1024];
    let request = signed_raw(&server, "POST", "/trading/orders/place", &body, b"");
    let head_end = request.len() - body.len();
    // The head and the first megabyte; the answer comes before the rest is sent.
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(&request[..head_end + 1024 * 1024]).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("answered without the whole body")
        .ok();
    assert_answer(&String::from_utf8_lossy(&answer), 413, "PAYLOAD_TOO_LARGE");
    assert_unharmed(&server).await;
}

/// Sends `bytes` one at a time, `every` apart, until the server closes the connection; how
/// long that took, or `None` if all were sent.
async fn trickle(addr: SocketAddr, bytes: &[u8], every: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    for byte in bytes {
        if stream.write_all(&[*byte]).await.is_err() {
            return Some(started.elapsed());
        }
        let mut buffer = [0u8; 256];
        // Closed (end of file or reset); a timeout means the server is still waiting.
        if let Ok(Ok(0) | Err(_)) = tokio::time::timeout(every, stream.read(&mut buffer)).await {
            return Some(started.elapsed());
        }
    }
    None
}

#[tokio::test]
async fn a_head_sent_a_byte_at_a_time_is_cut_off_at_the_header_timeout() {
    let server = TestServer::start_with(|c| c.connections.header_timeout = Duration::from_secs(1)).await;
    let request = signed_raw(&server, "GET", "/trading/accounts/list", b"", b"");
    let closed = trickle(server.addr, &request, Duration::from_millis(100)).await;
    let closed = closed.expect("the connection is closed before the head is whole");
    assert!(
        closed >= Duration::from_millis(900) && closed < Duration::from_secs(1) + LATE,
        "{closed:?}"
    );
    assert_unharmed(&server).await;
}

#[tokio::test]
async fn two_thousand_idle_connections_neither_stop_the_server_nor_stay_open() {
    // The header timeout as long as a busy machine may take to answer: the call below must be
    // answered before any idle connection is closed (no place freed for it).
    let server = TestServer::start_with(|c| c.connections.header_timeout = LATE).await;
    let before = resident_kib();
    let connected = Instant::now();
    let mut idle = Vec::new();
    for _ in 0..2_000 {
        idle.push(tokio::net::TcpStream::connect(server.addr).await.unwrap());
    }
    // The server and the test share this process: both ends of 2,000 connections.
    let grown = resident_kib() - before;
    assert!(grown < 64 * 1024, "memory grew by {grown} KiB");
    // Served while they wait.
    let started = Instant::now();
    let answer = send(
        server
            .client()
            .prepare(Method::GET, "/trading/accounts/list", &[], None)
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, 200);
    assert!(connected.elapsed() < LATE, "answered in {:?}", started.elapsed());
    // Each is closed by the server once the header timeout has passed.
    tokio::time::sleep_until((connected + LATE).into()).await;
    let mut still_open = 0;
    for stream in &mut idle {
        let mut buffer = [0u8; 64];
        match tokio::time::timeout_at((connected + LATE + LATE).into(), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => {}
            _ => still_open += 1,
        }
    }
    assert_eq!(still_open, 0, "of 2,000 idle connections");
    assert_unharmed(&server).await;
}

#[tokio::test]
async fn a_body_that_never_ends_holds_shutdown_up_for_the_grace_period_only() {
    let server = TestServer::start_with(|c| c.connections.shutdown_grace = Duration::from_secs(1)).await;
    let addr = server.addr;
    let body = placement(&server, json!({}));
    let request = signed_raw(&server, "POST", "/trading/orders/place", &body, b"");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(&request[..request.len() - 10]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    let started = Instant::now();
    server.stop().await;
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(1) + LATE,
        "{took:?}"
    );
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "no longer accepting"
    );
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    assert!(
        !String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 2"),
        "not placed"
    );
}

/// This process's resident memory.
fn resident_kib() -> i64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}
