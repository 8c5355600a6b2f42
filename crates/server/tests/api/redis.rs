//! Nonces and rate limits shared through Redis by several servers, over signed HTTP: a copy of
//! one request sent to every node at once passes once, a Redis that lost its keys does not reopen
//! a replay window, a limit holds across three nodes, and a Redis that does not answer means 503.
//!
//! Needs `SIGNET_TEST_REDIS_URL` (see `scripts/services.sh`); without it each test says so and
//! passes, unless `SIGNET_REQUIRE_SERVICES=1`. Each test uses keys of its own random prefix. The
//! tests of several nodes run in the PostgreSQL pass: nodes share a PostgreSQL database.

use std::time::{Duration, Instant};

use reqwest::Method;
use secrecy::ExposeSecret;
use signet_client::{Client, SignedRequest};
use signet_core::ratelimit::{Group, Limit, RateLimits};
use signet_server::ServerConfig;

use crate::common::{Answer, TestServer, send, send_together};

/// The host every node checks signatures against, so that one signed request is valid on each.
const PUBLIC_HOST: &str = "signet.test";

fn redis_url() -> Option<String> {
    match std::env::var("SIGNET_TEST_REDIS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("SIGNET_REQUIRE_SERVICES").as_deref() == Ok("1") => {
            panic!("SIGNET_REQUIRE_SERVICES=1 but SIGNET_TEST_REDIS_URL is not set (see scripts/services.sh)")
        }
        _ => {
            eprintln!("SIGNET_TEST_REDIS_URL is not set: Redis test skipped");
            None
        }
    }
}

/// Redis for several nodes, which share a PostgreSQL database (one server serves a SQLite
/// file): the PostgreSQL pass.
fn redis_url_for_nodes() -> Option<String> {
    if std::env::var("SIGNET_TEST_BACKEND").as_deref() != Ok("postgres") {
        eprintln!("several nodes share PostgreSQL: test skipped on SQLite, run in the PostgreSQL pass");
        return None;
    }
    redis_url()
}

fn random_prefix() -> String {
    format!("signet-test:{}:", signet_server::secrets::random_hex::<8>().unwrap())
}

/// A node using `url` with `prefix`, checking signatures against [`PUBLIC_HOST`].
fn node(url: &str, prefix: &str, limits: Option<RateLimits>) -> impl FnOnce(&mut ServerConfig) {
    let (url, prefix) = (url.to_owned(), prefix.to_owned());
    move |config| {
        config.redis_url = Some(url.into());
        config.redis_key_prefix = prefix;
        config.public_host = Some(PUBLIC_HOST.into());
        config.rate_limits = limits;
    }
}

/// `count` nodes on one database and one Redis.
async fn nodes(url: &str, prefix: &str, limits: Option<RateLimits>, count: usize) -> Vec<TestServer> {
    started_long_ago(url, prefix).await;
    let first = TestServer::start_with(node(url, prefix, limits.clone())).await;
    let mut nodes = vec![];
    for _ in 1..count {
        nodes.push(first.beside(node(url, prefix, limits.clone())).await);
    }
    nodes.insert(0, first);
    nodes
}

/// Signs for [`PUBLIC_HOST`]; [`to`] sends it to one node.
fn signer(server: &TestServer) -> Client {
    let endpoint = format!("http://{PUBLIC_HOST}");
    Client::new(&endpoint, &server.app.app_key, server.app.app_secret.expose_secret()).unwrap()
}

fn accounts_request(signer: &Client) -> SignedRequest {
    signer
        .prepare(Method::GET, "/trading/accounts/list", &[], None)
        .unwrap()
}

/// The same signed request, addressed to `server`.
fn to(server: &TestServer, request: &SignedRequest) -> SignedRequest {
    let mut request = request.clone();
    request.url.set_host(Some("127.0.0.1")).unwrap();
    request.url.set_port(Some(server.addr.port())).unwrap();
    request
}

fn code(answer: &Answer) -> String {
    answer.error().error_code
}

/// As if the nonce store had been running for long: a store that starts refuses, for one
/// window, requests signed before it started, and timestamps are whole seconds.
async fn started_long_ago(url: &str, prefix: &str) {
    let client = redis::Client::open(url).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let _: () = redis::cmd("SET")
        .arg(format!("{prefix}nonces-started"))
        .arg(0)
        .query_async(&mut connection)
        .await
        .unwrap();
}

async fn delete_prefix(url: &str, prefix: &str) -> usize {
    let client = redis::Client::open(url).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut connection)
        .await
        .unwrap();
    if !keys.is_empty() {
        let _: () = redis::cmd("DEL").arg(&keys).query_async(&mut connection).await.unwrap();
    }
    keys.len()
}

#[tokio::test]
async fn of_copies_sent_to_three_nodes_at_once_exactly_one_passes() {
    let Some(url) = redis_url_for_nodes() else { return };
    let prefix = random_prefix();
    let nodes = nodes(&url, &prefix, None, 3).await;
    let signer = signer(&nodes[0]);
    let started = Instant::now();
    const ROUNDS: usize = 200;
    for round in 0..ROUNDS {
        let request = accounts_request(&signer);
        let answers = send_together(nodes.iter().map(|n| to(n, &request)).collect()).await;
        let passed: Vec<usize> = (0..answers.len()).filter(|&i| answers[i].status == 200).collect();
        assert_eq!(passed.len(), 1, "round {round}: {answers:?}");
        for (i, answer) in answers.iter().enumerate() {
            if i != passed[0] {
                assert_eq!(answer.status, 401, "round {round}: {}", answer.body);
                assert_eq!(code(answer), "DUPPLICATED_REQUEST");
            }
        }
    }
    eprintln!(
        "{ROUNDS} rounds of 3 copies in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    // A replay later, to any node, is refused too.
    let request = accounts_request(&signer);
    assert_eq!(send(to(&nodes[1], &request)).await.status, 200);
    for node in &nodes {
        send(to(node, &request)).await.assert_error(401, "DUPPLICATED_REQUEST");
    }
    // What the metrics report: this deployment's nonces, not its marker nor another's keys.
    // A prefix that, read as a pattern, would match every test's nonces.
    for (prefix, expected) in [(prefix.as_str(), ROUNDS as u64 + 1), ("signet-test*", 0)] {
        let redis = signet_store::redis::Redis::open(&url, prefix).unwrap();
        let store = signet_store::redis::RedisNonces::new(redis, Duration::from_secs(305));
        assert_eq!(signet_store::NonceStore::count(&store).await.unwrap(), expected);
    }
    // The nodes share a database too: the nonces must have gone to Redis, not there.
    let keys = delete_prefix(&url, &prefix).await;
    assert_eq!(keys, ROUNDS + 2, "a key per nonce, and the start marker");
}

#[tokio::test]
async fn a_redis_that_lost_its_keys_refuses_requests_signed_before() {
    let Some(url) = redis_url_for_nodes() else { return };
    let prefix = random_prefix();
    let nodes = nodes(&url, &prefix, None, 2).await;
    let signer = signer(&nodes[0]);
    let sent = accounts_request(&signer);
    assert_eq!(send(to(&nodes[0], &sent)).await.status, 200);
    let unsent = accounts_request(&signer);

    // Redis restarted empty (its nonces and its start marker gone) while the nodes run.
    assert!(
        delete_prefix(&url, &prefix).await >= 2,
        "a nonce and the marker were stored"
    );
    // The replay, and a request signed before, cannot be known not to have been used.
    send(to(&nodes[1], &sent))
        .await
        .assert_error(401, "DUPPLICATED_REQUEST");
    send(to(&nodes[0], &unsent))
        .await
        .assert_error(401, "DUPPLICATED_REQUEST");

    // A request signed after the store started passes (timestamps are whole seconds: the next one).
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let fresh = accounts_request(&signer);
    let answer = send(to(&nodes[1], &fresh)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    send(to(&nodes[0], &fresh))
        .await
        .assert_error(401, "DUPPLICATED_REQUEST");
    delete_prefix(&url, &prefix).await;
}

#[tokio::test]
async fn a_servingmarks_an_empty_store_as_started_when_it_starts() {
    let Some(url) = redis_url() else { return };
    let prefix = random_prefix();
    let before_ms = now_ms();
    let serving = TestServer::start_with(node(&url, &prefix, None)).await;
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let started: i64 = redis::cmd("GET")
        .arg(format!("{prefix}nonces-started"))
        .query_async(&mut connection)
        .await
        .unwrap();
    // Redis's clock and ours are the same machine's here.
    assert!((before_ms..before_ms + 5_000).contains(&started), "{started}");
    // The next whole second, which the node waited for: what is signed once it serves passes.
    assert_eq!(started % 1000, 0);
    assert!(now_ms() >= started);
    let answer = send(to(&serving, &accounts_request(&signer(&serving)))).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    delete_prefix(&url, &prefix).await;
}

fn now_ms() -> i64 {
    signet_domain::simulator::clock::wall_clock_ms()
}

#[tokio::test]
async fn a_rate_limit_holds_across_three_nodes() {
    let Some(url) = redis_url_for_nodes() else { return };
    let prefix = random_prefix();
    let limits = RateLimits::published().with(
        Group::Other,
        Limit {
            requests: 5,
            window: Duration::from_secs(60),
        },
    );
    let nodes = nodes(&url, &prefix, Some(limits), 3).await;
    let signer = signer(&nodes[0]);
    let mut served = [0, 0, 0];
    for (n, remaining) in ["4", "3", "2", "1", "0"].into_iter().enumerate() {
        let answer = send(to(&nodes[n % 3], &accounts_request(&signer))).await;
        assert_eq!(answer.status, 200, "request {n}: {}", answer.body);
        assert_eq!(answer.headers["x-ratelimit-limit"], "5");
        assert_eq!(answer.headers["x-ratelimit-remaining"], remaining);
        served[n % 3] += 1;
    }
    assert_eq!(served, [2, 2, 1]);
    for node in &nodes {
        let refused = send(to(node, &accounts_request(&signer))).await;
        refused.assert_error(429, "TOO_MANY_REQUESTS");
        assert_eq!(refused.headers["retry-after"], "12", "one request each 60 / 5 s");
        assert_eq!(refused.headers["x-ratelimit-remaining"], "0");
        assert_eq!(refused.headers["x-ratelimit-reset"], "60");
    }
    // Another group has its own allowance.
    let screener = signer
        .prepare(
            Method::GET,
            "/market-data/screeners/top-actives/list",
            &[("category", "US_STOCK")],
            None,
        )
        .unwrap();
    let other_group = send(to(&nodes[1], &screener)).await;
    assert_ne!(other_group.status, 429, "{}", other_group.body);
    assert_eq!(other_group.headers["x-ratelimit-limit"], "300");
    delete_prefix(&url, &prefix).await;
}

/// Signed requests to a node whose Redis is `url` are 503 quickly; the unsigned probe answers.
async fn refused_quickly(url: &str) {
    let server = TestServer::start_with(|config| {
        config.redis_url = Some(url.into());
        config.rate_limits = Some(RateLimits::published());
    })
    .await;
    for _ in 0..3 {
        let started = Instant::now();
        let answer = send(
            server
                .client()
                .prepare(Method::GET, "/trading/accounts/list", &[], None)
                .unwrap(),
        )
        .await;
        answer.assert_error(503, "SERVICE_NOT_AVAILABLE");
        // At most the 2 s a call to Redis may take.
        assert!(
            started.elapsed() < Duration::from_secs(2) + crate::common::LATE,
            "answered in {:?}",
            started.elapsed()
        );
    }
    let health = crate::common::http().get(server.url("/health")).send().await.unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test]
async fn a_redis_that_refuses_connections_means_503() {
    if redis_url().is_none() {
        return;
    }
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    refused_quickly(&format!("redis://127.0.0.1:{port}")).await;
}

#[tokio::test]
async fn a_redis_that_never_answers_means_503_not_a_hang() {
    if redis_url().is_none() {
        return;
    }
    // Accepts connections and never says a word.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = tokio::spawn(async move {
        let mut connections = vec![];
        while let Ok((connection, _)) = silent.accept().await {
            connections.push(connection);
        }
    });
    refused_quickly(&format!("redis://127.0.0.1:{port}")).await;
    held.abort();
}

#[tokio::test]
async fn the_shared_limiter_decides_as_the_one_in_process() {
    let Some(url) = redis_url() else { return };
    use signet_store::redis::{Redis, RedisArrivals};
    let prefix = random_prefix();
    let arrivals = RedisArrivals::new(Redis::open(&url, &prefix).unwrap());
    let limit = Group::OrderQueries.published();
    // Order queries: 10 per 30 s, so a burst of 10 and then one each 3 s.
    for n in 0..10 {
        let d = arrivals.check(&"A".into(), Group::OrderQueries, limit).await.unwrap();
        assert!(d.allowed, "request {n}");
        assert_eq!((d.limit, d.remaining), (10, 9 - n));
    }
    let refused = arrivals.check(&"A".into(), Group::OrderQueries, limit).await.unwrap();
    assert!(!refused.allowed);
    assert_eq!(
        (refused.remaining, refused.retry_after_secs, refused.reset_secs),
        (0, 3, 30)
    );
    // Other keys and groups have their own allowance; a key may hold ':'.
    assert!(
        arrivals
            .check(&"B".into(), Group::OrderQueries, limit)
            .await
            .unwrap()
            .allowed
    );
    assert!(
        arrivals
            .check(&"A:x".into(), Group::OrderQueries, limit)
            .await
            .unwrap()
            .allowed
    );
    assert!(
        arrivals
            .check(&"A".into(), Group::Place, Group::Place.published())
            .await
            .unwrap()
            .allowed
    );
    delete_prefix(&url, &prefix).await;
}

/// The per-app cap on open trade-events streams counts the streams of every node sharing Redis:
/// with a cap of 2, two streams on node A leave none for node B until one of them closes.
#[tokio::test]
async fn the_cap_on_open_event_streams_counts_every_nodes_streams() {
    use crate::events::{next, nonce, subscribe_with};
    let Some(url) = redis_url_for_nodes() else { return };
    let prefix = random_prefix();
    started_long_ago(&url, &prefix).await;
    let capped = |config: &mut ServerConfig| {
        node(&url, &prefix, None)(config);
        config.events.max_streams_per_app = 2;
    };
    let a = TestServer::start_with(capped).await;
    let b = a.beside(capped).await;
    let secret = a.app.app_secret.expose_secret().to_owned();
    let account = a.app.account_ids[0].clone();
    let open = |server: &TestServer| {
        let (addr, key, secret, account) = (
            server.addr.to_string(),
            server.app.app_key.clone(),
            secret.clone(),
            account.clone(),
        );
        async move {
            subscribe_with(&addr, &key, &secret, &[&account], &nonce())
                .await
                .unwrap()
        }
    };
    let mut on_a = Vec::new();
    for _ in 0..2 {
        let mut stream = open(&a).await;
        assert_eq!(
            next(&mut stream).await.unwrap().unwrap().event_type,
            0,
            "SubscribeSuccess"
        );
        on_a.push(stream);
    }
    let mut refused = open(&b).await;
    let m = next(&mut refused).await.unwrap().expect("a NumOfConnExceed message");
    assert_eq!(m.event_type, 3, "{m:?}");
    let body: serde_json::Value = serde_json::from_str(&m.payload).unwrap();
    assert_eq!(body["error_code"], "TOO_MANY_REQUESTS", "{body}");
    let status = next(&mut refused).await.expect_err("the stream ends with an error");
    assert_eq!(status.code(), tonic::Code::ResourceExhausted);

    // Once one of A's streams is closed, its count in Redis is gone and B's subscription passes.
    drop(on_a.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut again = open(&b).await;
        if next(&mut again).await.unwrap().unwrap().event_type == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "the closed stream still counts");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    delete_prefix(&url, &prefix).await;
}

/// The streams of a node that died (never closed, never refreshed) stop counting after their
/// time to live; a refreshed one keeps counting.
#[tokio::test]
async fn an_event_stream_never_refreshed_stops_counting_after_its_time_to_live() {
    use signet_store::redis::{Redis, RedisStreams};
    let Some(url) = redis_url() else { return };
    let prefix = random_prefix();
    let streams = RedisStreams::new(Redis::open(&url, &prefix).unwrap(), "streams");
    // The time to live longer than a busy machine may be late to refresh; Redis's clock (TIME)
    // is this machine's.
    let ttl = Duration::from_secs(2);
    assert!(streams.open(&"A".into(), "dead", 2, ttl).await.unwrap());
    let dead_opened = Instant::now();
    assert!(streams.open(&"A".into(), "alive", 2, ttl).await.unwrap());
    assert!(!streams.open(&"A".into(), "third", 2, ttl).await.unwrap(), "the cap");
    assert!(
        streams.open(&"B".into(), "other app", 2, ttl).await.unwrap(),
        "a cap per app"
    );
    // `alive` refreshed every 200 ms until `dead` has surely expired.
    while dead_opened.elapsed() < ttl + Duration::from_millis(100) {
        streams.refresh(&"A".into(), "alive", ttl).await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    streams.refresh(&"A".into(), "alive", ttl).await.unwrap();
    // `dead` expired; `alive` still counts, so one more fits, and no second.
    assert!(streams.open(&"A".into(), "third", 2, ttl).await.unwrap());
    assert!(!streams.open(&"A".into(), "fourth", 2, ttl).await.unwrap());
    streams.close(&"A".into(), "alive").await.unwrap();
    assert!(streams.open(&"A".into(), "fourth", 2, ttl).await.unwrap());
    delete_prefix(&url, &prefix).await;
}
