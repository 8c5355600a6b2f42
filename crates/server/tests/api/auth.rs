//! The authentication layer against a real server: every refusal with its exact status and
//! code, replays, concurrent copies, a restart, and tampering with each signed part.

use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, HOST, HeaderValue};
use rust_decimal::Decimal;
use secrecy::ExposeSecret;
use signet_client::SignedRequest;
use signet_model::headers as h;
use signet_signing::format_timestamp;

use crate::common::{TestServer, answer, http, send};

fn accounts_request(server: &TestServer) -> SignedRequest {
    server
        .client()
        .prepare(Method::GET, "/trading/accounts/list", &[], None)
        .unwrap()
}

fn set(request: &mut SignedRequest, name: &'static str, value: &str) {
    request.headers.insert(name, HeaderValue::from_str(value).unwrap());
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test]
async fn a_signed_request_lists_the_callers_accounts() {
    let server = TestServer::start().await;
    let answer = send(accounts_request(&server)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.headers.contains_key("x-request-id"));
    assert!(answer.headers.contains_key("date"));
    let accounts = answer.body.as_array().expect("a JSON array");
    assert_eq!(accounts.len(), 2);
    for account in accounts {
        for field in [
            "account_id",
            "account_type",
            "account_class",
            "account_label",
            "user_id",
        ] {
            assert!(account[field].is_string(), "{field} in {account}");
        }
    }
}

#[tokio::test]
async fn each_missing_header_is_refused_with_its_own_code() {
    let server = TestServer::start().await;
    for (header, code) in [
        (h::APP_KEY, "MISSING_APP_KEY"),
        (h::TIMESTAMP, "MISSING_TIMESTAMP"),
        (h::SIGNATURE, "MISSING_SIGNATURE"),
        (h::SIGNATURE_ALGORITHM, "MISSING_ALGORITHM"),
        (h::SIGNATURE_VERSION, "MISSING_SIGNATURE_VERSION"),
        (h::SIGNATURE_NONCE, "MISSING_NONCE"),
        (h::VERSION, "MISSING_VERSION"),
    ] {
        let mut request = accounts_request(&server);
        request.headers.remove(header);
        let body = send(request).await.assert_error(401, code);
        assert!(
            body.message.contains(header),
            "the message names {header}: {}",
            body.message
        );
    }
}

#[tokio::test]
async fn a_header_sent_twice_is_an_illegal_parameter_naming_it() {
    let server = TestServer::start().await;
    let mut request = accounts_request(&server);
    let app_key = request.headers[h::APP_KEY].clone();
    request.headers.append(h::APP_KEY, app_key);
    let body = send(request).await.assert_error(400, "ILLEGAL_PARAMETER");
    assert!(body.message.contains(h::APP_KEY));
}

#[tokio::test]
async fn versions_algorithm_timestamp_and_nonce_are_checked_before_the_signature() {
    let server = TestServer::start().await;
    let cases: [(&str, &str, u16, &str); 8] = [
        (h::VERSION, "v2", 400, "UNSUPPORTED_API_VERSION"),
        (
            h::SIGNATURE_ALGORITHM,
            "HMAC-SHA1",
            401,
            "SIGNATURE_ALGORITHM_NOT_SUPPORTED",
        ),
        (h::SIGNATURE_VERSION, "2.0", 401, "VERSION_NOT_SUPPORTED"),
        (h::TIMESTAMP, "2026-02-30T00:00:00Z", 401, "ILLEAGAL_TIMESTAMP"),
        (h::TIMESTAMP, "2026-11-21T10:00:00.000Z", 401, "ILLEAGAL_TIMESTAMP"),
        (h::SIGNATURE_NONCE, "has space", 401, "INVALID_NONCE"),
        (h::SIGNATURE_NONCE, &"n".repeat(65), 401, "INVALID_NONCE"),
        (h::APP_KEY, "0123456789abcdef0123456789abcdef", 401, "UNAUTHORIZED"),
    ];
    for (header, value, status, code) in cases {
        let mut request = accounts_request(&server);
        set(&mut request, header, value);
        let body = send(request).await.assert_error(status, code);
        if code == "UNSUPPORTED_API_VERSION" {
            assert!(body.message.contains("v3"), "{}", body.message);
        }
    }
}

#[tokio::test]
async fn a_timestamp_outside_the_window_names_the_servers_time() {
    let server = TestServer::start().await;
    for skew in [-301, 301] {
        let mut request = accounts_request(&server);
        set(&mut request, h::TIMESTAMP, &format_timestamp(now_secs() + skew));
        let answer = send(request).await;
        let body = answer.assert_error(401, "CLOCK_SKEW_EXCEEDED");
        let year = format_timestamp(now_secs())[..4].to_owned();
        assert!(
            body.message.contains("server's time") && body.message.contains(&year),
            "{}",
            body.message
        );
    }
}

#[tokio::test]
async fn the_window_is_configurable() {
    let server = TestServer::start_with(|c| c.timestamp_window = std::time::Duration::from_secs(10)).await;
    let mut request = accounts_request(&server);
    set(&mut request, h::TIMESTAMP, &format_timestamp(now_secs() - 60));
    send(request).await.assert_error(401, "CLOCK_SKEW_EXCEEDED");
}

#[tokio::test]
async fn a_revoked_app_is_unauthorized() {
    let server = TestServer::start_with(|c| c.app_cache_ttl = std::time::Duration::ZERO).await;
    assert_eq!(send(accounts_request(&server)).await.status, 200);
    server.admin().revoke_app(&server.app.app_key).await.unwrap();
    send(accounts_request(&server)).await.assert_error(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn a_revocation_from_another_process_applies_within_the_cache_time() {
    let server = TestServer::start().await;
    assert_eq!(send(accounts_request(&server)).await.status, 200);
    // As `signet admin apps revoke` would: a second handle on the same file.
    let other = server.open_again().await;
    crate::common::admin(&other)
        .revoke_app(&server.app.app_key)
        .await
        .unwrap();
    tokio::time::sleep(server_default_cache_ttl() + std::time::Duration::from_millis(100)).await;
    send(accounts_request(&server)).await.assert_error(401, "UNAUTHORIZED");
}

fn server_default_cache_ttl() -> std::time::Duration {
    signet_server::ServerConfig::default().app_cache_ttl
}

#[tokio::test]
async fn bodies_must_be_json_posts_within_the_size_limit() {
    let server = TestServer::start_with(|c| c.max_body_bytes = 1024).await;
    let client = server.client();

    let mut text = client
        .prepare(Method::POST, "/auth/tokens/check", &[], Some(b"{}".to_vec()))
        .unwrap();
    text.headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    send(text).await.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");

    let get_with_body = client
        .prepare(Method::GET, "/trading/accounts/list", &[], Some(b"{}".to_vec()))
        .unwrap();
    send(get_with_body).await.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");

    let mut charset = client
        .prepare(Method::POST, "/auth/tokens/create", &[], Some(b"{}".to_vec()))
        .unwrap();
    charset.headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    assert_eq!(send(charset).await.status, 200);

    let big = format!("{{\"token\":\"{}\"}}", "x".repeat(2000));
    let too_large = client
        .prepare(Method::POST, "/auth/tokens/check", &[], Some(big.into_bytes()))
        .unwrap();
    send(too_large).await.assert_error(413, "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn a_chunked_body_over_the_limit_is_refused_while_reading() {
    let server = TestServer::start_with(|c| c.max_body_bytes = 1024).await;
    let request = server
        .client()
        .prepare(Method::POST, "/auth/tokens/check", &[], Some(vec![b' '; 4096]))
        .unwrap();
    let mut raw = format!(
        "POST /auth/tokens/check HTTP/1.1\r\nhost: {}\r\ntransfer-encoding: chunked\r\n",
        server.addr
    );
    for (name, value) in &request.headers {
        raw.push_str(&format!("{name}: {}\r\n", value.to_str().unwrap()));
    }
    raw.push_str("connection: close\r\n\r\n");
    for chunk in request.body.chunks(512) {
        raw.push_str(&format!("{:x}\r\n{}\r\n", chunk.len(), String::from_utf8_lossy(chunk)));
    }
    raw.push_str("0\r\n\r\n");
    let response = crate::common::raw_http(server.addr, raw.as_bytes()).await;
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    assert!(response.contains(r#""error_code":"PAYLOAD_TOO_LARGE""#), "{response}");
}

#[tokio::test]
async fn invalid_json_is_an_illegal_parameter() {
    let server = TestServer::start().await;
    let request = server
        .client()
        .prepare(Method::POST, "/auth/tokens/check", &[], Some(b"{\"token\":".to_vec()))
        .unwrap();
    send(request).await.assert_error(400, "ILLEGAL_PARAMETER");
    let request = server
        .client()
        .prepare(Method::POST, "/auth/tokens/check", &[], Some(b"[1,2]".to_vec()))
        .unwrap();
    send(request).await.assert_error(400, "ILLEGAL_PARAMETER");
}

#[tokio::test]
async fn a_nonce_is_single_use_and_a_replay_is_refused() {
    let server = TestServer::start().await;
    let request = accounts_request(&server);
    assert_eq!(send(request.clone()).await.status, 200);
    send(request).await.assert_error(401, "DUPPLICATED_REQUEST");
}

#[tokio::test]
async fn a_failed_signature_does_not_spend_the_nonce() {
    let server = TestServer::start().await;
    let request = accounts_request(&server);
    let mut forged = request.clone();
    set(
        &mut forged,
        h::SIGNATURE,
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
    );
    send(forged).await.assert_error(401, "INCORRECT_SIGN");
    assert_eq!(send(request).await.status, 200, "the genuine request still passes");
}

#[tokio::test]
async fn of_32_concurrent_copies_exactly_one_succeeds() {
    let server = TestServer::start().await;
    let request = accounts_request(&server);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..32 {
        let copy = request.clone();
        tasks.spawn(send(copy));
    }
    let mut ok = 0;
    let mut duplicated = 0;
    while let Some(answer) = tasks.join_next().await {
        let answer = answer.unwrap();
        match answer.status.as_u16() {
            200 => ok += 1,
            401 if answer.error().error_code == "DUPPLICATED_REQUEST" => duplicated += 1,
            other => panic!("unexpected {other}: {}", answer.body),
        }
    }
    assert_eq!((ok, duplicated), (1, 31));
}

#[tokio::test]
async fn a_replay_is_refused_after_a_restart() {
    let server = TestServer::start().await;
    let request = accounts_request(&server);
    assert_eq!(send(request.clone()).await.status, 200);
    let server = server.restart().await;
    assert_eq!(
        send(accounts_request(&server)).await.status,
        200,
        "the restarted server answers"
    );
    send(request).await.assert_error(401, "DUPPLICATED_REQUEST");
}

#[tokio::test]
async fn nonces_in_memory_refuse_replays_and_what_was_signed_before_a_restart() {
    // Nonces in one node's memory are refused on a database nodes share: the SQLite pass.
    if std::env::var("SIGNET_TEST_BACKEND").as_deref() == Ok("postgres") {
        return;
    }
    let server = TestServer::start_with(|c| c.memory_nonces = true).await;
    let request = accounts_request(&server);
    assert_eq!(send(request.clone()).await.status, 200);
    send(request).await.assert_error(401, "DUPPLICATED_REQUEST");
    // Signed before the restart and never sent: the emptied memory cannot tell, so it refuses.
    let unsent = accounts_request(&server);
    let server = server.restart().await;
    send(unsent).await.assert_error(401, "DUPPLICATED_REQUEST");
    // Timestamps are whole seconds: one signed a second later is after the start.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let answer = send(accounts_request(&server)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
}

#[tokio::test]
async fn tampering_with_any_signed_part_is_refused() {
    let server = TestServer::start().await;
    let client = server.client();
    let body = br#"{"token":"abc"}"#.to_vec();
    let base = || {
        client
            .prepare(
                Method::POST,
                "/auth/tokens/check",
                &[("q", "a b+c/d")],
                Some(body.clone()),
            )
            .unwrap()
    };
    assert_eq!(send(base()).await.status, 200, "the untouched request passes");

    let mut path = base();
    path.url.set_path("/auth/tokens/%63heck");
    send(path).await.assert_error(401, "INCORRECT_SIGN");

    let mut query = base();
    query.url.set_query(Some("q=a+b%2Bc%2Fe"));
    send(query).await.assert_error(401, "INCORRECT_SIGN");

    let mut extra_param = base();
    extra_param.url.set_query(Some("q=a+b%2Bc%2Fd&r=1"));
    send(extra_param).await.assert_error(401, "INCORRECT_SIGN");

    let mut body_byte = base();
    body_byte.body[10] ^= 0x01;
    send(body_byte).await.assert_error(401, "INCORRECT_SIGN");

    let mut host = base();
    host.headers.insert(HOST, HeaderValue::from_static("api.example.com"));
    send(host).await.assert_error(401, "INCORRECT_SIGN");

    let mut timestamp = base();
    let ts = signet_signing::parse_timestamp(timestamp.headers[h::TIMESTAMP].to_str().unwrap()).unwrap();
    set(&mut timestamp, h::TIMESTAMP, &format_timestamp(ts - 1));
    send(timestamp).await.assert_error(401, "INCORRECT_SIGN");

    let mut nonce = base();
    set(&mut nonce, h::SIGNATURE_NONCE, "0123456789abcdef0123456789abcdef");
    send(nonce).await.assert_error(401, "INCORRECT_SIGN");

    // Another app's key with this app's signature.
    let other = server.admin().create_app("other", Decimal::ZERO).await.unwrap();
    let mut app_key = base();
    set(&mut app_key, h::APP_KEY, &other.app_key);
    send(app_key).await.assert_error(401, "INCORRECT_SIGN");

    // The algorithm and signature version are signed too, but a change is refused earlier.
    let mut algorithm = base();
    set(&mut algorithm, h::SIGNATURE_ALGORITHM, "HMAC-SHA1");
    send(algorithm)
        .await
        .assert_error(401, "SIGNATURE_ALGORITHM_NOT_SUPPORTED");
    let mut version = base();
    set(&mut version, h::SIGNATURE_VERSION, "1.1");
    send(version).await.assert_error(401, "VERSION_NOT_SUPPORTED");
}

/// Signs like the official client configured with a host of its own choosing.
fn signed_for_host(server: &TestServer, signed_host: &str, path: &str) -> reqwest::RequestBuilder {
    crate::common::sign_exactly(server, signed_host, path, "", b"")
        .into_iter()
        .fold(http().get(server.url(path)), |request, (name, value)| {
            request.header(name, value)
        })
}

#[tokio::test]
async fn the_host_may_be_signed_with_or_without_its_port() {
    let server = TestServer::start().await;
    let with_port = format!("127.0.0.1:{}", server.addr.port());
    for host in [with_port.as_str(), "127.0.0.1"] {
        let response = signed_for_host(&server, host, "/trading/accounts/list")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "signed host {host}");
    }
    let response = signed_for_host(&server, "localhost", "/trading/accounts/list")
        .send()
        .await
        .unwrap();
    answer(response).await.assert_error(401, "INCORRECT_SIGN");
}

/// The official streaming client, given `http_host="http://HOST:PORT"` (the form that reaches a
/// plain-HTTP server), signs that string, scheme included (catalog §1.1).
#[tokio::test]
async fn the_host_may_be_signed_with_its_scheme() {
    let server = TestServer::start().await;
    let port = server.addr.port();
    for host in [format!("http://127.0.0.1:{port}"), format!("https://127.0.0.1:{port}")] {
        let response = signed_for_host(&server, &host, "/trading/accounts/list")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "signed host {host}");
    }
    for host in [
        format!("ftp://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}/"),
    ] {
        let response = signed_for_host(&server, &host, "/trading/accounts/list")
            .send()
            .await
            .unwrap();
        answer(response).await.assert_error(401, "INCORRECT_SIGN");
    }
}

#[tokio::test]
async fn a_configured_public_host_replaces_the_received_one() {
    let server = TestServer::start_with(|c| c.public_host = Some("api.example.com".into())).await;
    let response = signed_for_host(&server, "api.example.com", "/trading/accounts/list")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let with_port = format!("127.0.0.1:{}", server.addr.port());
    let response = signed_for_host(&server, &with_port, "/trading/accounts/list")
        .send()
        .await
        .unwrap();
    answer(response).await.assert_error(401, "INCORRECT_SIGN");
}

#[tokio::test]
async fn debug_mode_shows_what_the_server_signed_and_is_off_by_default() {
    let server = TestServer::start().await;
    let mut request = accounts_request(&server);
    set(
        &mut request,
        h::SIGNATURE,
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
    );
    let answer = send(request).await;
    answer.assert_error(401, "INCORRECT_SIGN");
    assert!(answer.body.get("debug").is_none());

    let server = TestServer::start_with(|c| c.debug_signatures = true).await;
    let mut request = accounts_request(&server);
    set(
        &mut request,
        h::SIGNATURE,
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
    );
    let nonce = request.headers[h::SIGNATURE_NONCE].to_str().unwrap().to_owned();
    let answer = send(request).await;
    let body = answer.assert_error(401, "INCORRECT_SIGN");
    let debug = body.debug.expect("debug strings");
    assert_eq!(debug.len(), 4, "with and without the port, with http:// and https://");
    assert!(debug[0].str3.starts_with("/trading/accounts/list&host=127.0.0.1:"));
    assert!(debug[0].str3.contains(&nonce));
    assert!(
        debug[0]
            .encoded
            .starts_with("%2Ftrading%2Faccounts%2Flist%26host%3D127.0.0.1%3A")
    );
    assert!(!answer.body.to_string().contains(server.app.app_secret.expose_secret()));
}

#[tokio::test]
async fn unsigned_requests_are_401_and_signed_unknown_paths_404() {
    let server = TestServer::start().await;
    let unsigned = answer(http().get(server.url("/no/such/path")).send().await.unwrap()).await;
    unsigned.assert_error(401, "MISSING_APP_KEY");

    let client = server.client();
    let request = client.prepare(Method::GET, "/no/such/path", &[], None).unwrap();
    send(request).await.assert_error(404, "NOT_FOUND");

    let request = client.prepare(Method::GET, "/openapi/account/list", &[], None).unwrap();
    let body = send(request).await.assert_error(404, "NOT_FOUND");
    assert!(body.message.contains("/trading/accounts/list"));

    for retired in [
        "/market-data/futures/bars/list",
        "/market-data/crypto/snapshots/list",
        "/openapi/instrument/event/series/list",
    ] {
        let request = client.prepare(Method::GET, retired, &[], None).unwrap();
        let body = send(request).await.assert_error(410, "NO_LONGER_OFFERED");
        assert!(body.message.contains("no longer offered"));
    }

    let request = client
        .prepare(Method::POST, "/trading/accounts/list", &[], Some(b"{}".to_vec()))
        .unwrap();
    send(request).await.assert_error(405, "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn the_health_probe_is_unsigned() {
    let server = TestServer::start().await;
    let response = http().get(server.url("/health")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("x-request-id"));
}

#[tokio::test]
async fn another_apps_accounts_are_not_listed() {
    let server = TestServer::start().await;
    let other = server.admin().create_app("other", Decimal::ONE).await.unwrap();
    let mine: Vec<String> = server
        .client()
        .accounts()
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.account_id)
        .collect();
    let theirs: Vec<String> = server
        .client_for(&other)
        .accounts()
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.account_id)
        .collect();
    assert_eq!(mine, server.app.account_ids);
    assert_eq!(theirs, other.account_ids);
}

#[tokio::test]
async fn rate_limits_count_signed_requests_per_app_and_group() {
    use signet_core::ratelimit::{Group, Limit, RateLimits};

    let limits = RateLimits::published().with(
        Group::Other,
        Limit {
            requests: 3,
            window: std::time::Duration::from_secs(60),
        },
    );
    let server = TestServer::start_with(|config| config.rate_limits = Some(limits)).await;
    for remaining in ["2", "1", "0"] {
        let allowed = send(accounts_request(&server)).await;
        assert_eq!(allowed.status, 200, "{}", allowed.body);
        assert_eq!(allowed.headers["x-ratelimit-limit"], "3");
        assert_eq!(allowed.headers["x-ratelimit-remaining"], remaining);
        assert!(allowed.headers.contains_key("x-ratelimit-reset"));
    }
    let refused = send(accounts_request(&server)).await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.body["error_code"], "TOO_MANY_REQUESTS");
    assert_eq!(refused.headers["retry-after"], "20", "one request each 60 / 3 s");

    // Unsigned or forged requests spend nothing; another group has its own allowance.
    let mut forged = accounts_request(&server);
    set(&mut forged, h::SIGNATURE, "AAAA");
    assert_eq!(send(forged).await.status, 401);
    let screener = server
        .client()
        .prepare(
            Method::GET,
            "/market-data/screeners/top-actives/list",
            &[("category", "US_STOCK")],
            None,
        )
        .unwrap();
    let other_group = send(screener).await;
    assert_ne!(other_group.status, 429, "{}", other_group.body);
    assert_eq!(other_group.headers["x-ratelimit-limit"], "300");
    // Another app has its own allowance too.
    let admin = server.admin();
    let other = admin.create_app_with_role("other", Decimal::ZERO, false).await.unwrap();
    let theirs = server
        .client_for(&other)
        .prepare(Method::GET, "/trading/accounts/list", &[], None)
        .unwrap();
    assert_eq!(send(theirs).await.status, 200);
}

#[tokio::test]
async fn a_flood_from_one_address_is_refused_before_any_signature_work() {
    use signet_core::ratelimit::{Limit, RateLimits};

    let mut limits = RateLimits::published();
    limits.per_address = Limit {
        requests: 5,
        window: std::time::Duration::from_secs(60),
    };
    let server = TestServer::start_with(|config| config.rate_limits = Some(limits)).await;
    let url = server.url("/trading/accounts/list");
    for _ in 0..5 {
        assert_eq!(http().get(&url).send().await.unwrap().status(), 401);
    }
    let refused = answer(http().get(&url).send().await.unwrap()).await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.body["error_code"], "TOO_MANY_REQUESTS");
    assert_eq!(refused.headers["retry-after"], "12");
    assert_eq!(send(accounts_request(&server)).await.status, 429, "signed ones too");
    assert_eq!(http().get(server.url("/health")).send().await.unwrap().status(), 200);
}
