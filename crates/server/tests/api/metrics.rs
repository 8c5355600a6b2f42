//! `GET /metrics` against a real server: every answer counted by route, method and status,
//! refusals by error code, rate-limit refusals, fills, orders by status and stored nonces.

use std::time::Duration;

use serde_json::json;
use signet_core::ratelimit::{Group, Limit, RateLimits};

use crate::common::{TestServer, metric as sample, scrape_metrics as scrape};

#[tokio::test]
async fn every_answer_is_counted_by_route_status_and_error_code() {
    let server = TestServer::start_with(|c| {
        let one = Limit {
            requests: 1,
            window: Duration::from_secs(60),
        };
        c.rate_limits = Some(RateLimits::published().with(Group::OrderQueries, one));
    })
    .await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    for _ in 0..2 {
        client.accounts().list().await.unwrap();
    }
    client.orders().open(&account, None).await.unwrap();
    let limited = client.orders().open(&account, None).await.unwrap_err();
    assert_eq!(limited.code(), Some(signet_model::ErrorCode::TooManyRequests));
    let wrong = signet_client::Client::new(&server.endpoint, &server.app.app_key, "not the secret").unwrap();
    wrong.accounts().list().await.unwrap_err();
    let unsigned = crate::common::http()
        .get(server.url("/no/such/path"))
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status(), 401);

    let text = scrape(&server.endpoint).await;
    let requests = |route: &str, status: &str| {
        sample(
            &text,
            "signet_requests_total",
            &[("route", route), ("method", "GET"), ("status", status)],
        )
    };
    assert_eq!(requests("/trading/accounts/list", "200"), Some(2.0), "{text}");
    assert_eq!(requests("/trading/accounts/list", "401"), Some(1.0), "{text}");
    assert_eq!(requests("/trading/orders/open-orders/list", "200"), Some(1.0), "{text}");
    assert_eq!(requests("/trading/orders/open-orders/list", "429"), Some(1.0), "{text}");
    assert_eq!(requests("unmatched", "401"), Some(1.0), "{text}");
    let rejections = |code: &str| sample(&text, "signet_rejections_total", &[("error_code", code)]);
    assert_eq!(rejections("INCORRECT_SIGN"), Some(1.0), "{text}");
    assert_eq!(rejections("TOO_MANY_REQUESTS"), Some(1.0), "{text}");
    assert_eq!(rejections("MISSING_APP_KEY"), Some(1.0), "{text}");
    assert_eq!(
        sample(&text, "signet_rate_limit_refusals_total", &[("scope", "app")]),
        Some(1.0)
    );
    let timed = sample(
        &text,
        "signet_request_duration_seconds_count",
        &[("route", "/trading/accounts/list")],
    );
    assert_eq!(timed, Some(3.0), "{text}");
    // No secret, signature or key in what anyone who reaches /metrics can read.
    use secrecy::ExposeSecret;
    assert!(!text.contains(server.app.app_secret.expose_secret()));
    assert!(!text.contains(server.app.app_key.as_str()));
}

#[tokio::test]
async fn fills_and_orders_by_status_are_counted() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(10_000))
        .await
        .unwrap();
    let account = &server.app.account_ids[0];
    let order = |id: &str, limit: &str| {
        json!({
            "client_order_id": id, "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
            "order_type": "LIMIT", "limit_price": limit, "time_in_force": "DAY", "entrust_type": "QTY",
            "quantity": "5", "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE"
        })
    };
    for (id, limit) in [("fills", "401"), ("waits", "300")] {
        let _: serde_json::Value = server
            .client()
            .post(
                "/trading/orders/place",
                &json!({"account_id": account, "new_orders": [order(id, limit)]}),
            )
            .await
            .unwrap();
    }
    ops.market().step(1).await.unwrap();

    let text = scrape(&server.endpoint).await;
    assert_eq!(sample(&text, "signet_fills_total", &[]), Some(1.0), "{text}");
    assert_eq!(
        sample(&text, "signet_orders", &[("status", "FILLED")]),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "signet_orders", &[("status", "SUBMITTED")]),
        Some(1.0),
        "{text}"
    );
}

#[tokio::test]
async fn stored_nonces_are_counted_at_each_purge() {
    let server = TestServer::start_with(|c| c.nonce_purge_interval = Duration::from_millis(100)).await;
    for _ in 0..3 {
        server.client().accounts().list().await.unwrap();
    }
    let started = std::time::Instant::now();
    loop {
        let text = scrape(&server.endpoint).await;
        // The scrapes are unsigned: they store no nonce.
        match sample(&text, "signet_nonces_stored", &[]) {
            Some(3.0) => break,
            other if started.elapsed() > Duration::from_secs(10) => panic!("nonces_stored {other:?}\n{text}"),
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

#[tokio::test]
async fn metrics_on_their_own_address_are_not_served_on_the_interface() {
    let server = TestServer::start_with(|c| c.metrics_listen = Some("127.0.0.1:0".parse().unwrap())).await;
    let on_interface = crate::common::http().get(server.url("/metrics")).send().await.unwrap();
    assert_eq!(
        on_interface.status(),
        401,
        "the interface treats /metrics as any unknown path"
    );
    server.client().accounts().list().await.unwrap();
    let apart = format!("http://{}", server.metrics_addr.expect("a metrics address"));
    let text = scrape(&apart).await;
    assert_eq!(
        sample(
            &text,
            "signet_requests_total",
            &[
                ("route", "/trading/accounts/list"),
                ("method", "GET"),
                ("status", "200")
            ]
        ),
        Some(1.0),
        "{text}"
    );
}

/// Each scrape counted the orders table; anyone who reaches `/metrics` could make the database
/// scan it as often as they liked. Scrapes in one second now share one count.
#[tokio::test]
async fn scrapes_count_the_orders_at_most_once_a_second() {
    let server = TestServer::start().await;
    let counts = |text: &str| sample(text, "signet_order_counts_total", &[]).expect("the counter");
    let first = counts(&scrape(&server.endpoint).await);
    let started = std::time::Instant::now();
    let mut scrapes = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let endpoint = server.endpoint.clone();
        scrapes.spawn(async move { scrape(&endpoint).await });
    }
    let mut last = first;
    while let Some(text) = scrapes.join_next().await {
        last = last.max(counts(&text.unwrap()));
    }
    // One count serves a second (the first scrape's), and each second after that one more.
    let seconds = started.elapsed().as_secs_f64().ceil();
    assert!(
        last - first <= seconds,
        "50 scrapes in {seconds} s counted {} times",
        last - first
    );

    tokio::time::sleep(Duration::from_millis(1100)).await;
    let text = scrape(&server.endpoint).await;
    assert_eq!(
        counts(&text),
        last + 1.0,
        "a second later the orders are counted again\n{text}"
    );
}

#[tokio::test]
async fn metrics_switched_off_are_not_served_on_the_interface() {
    let server = TestServer::start_with(|c| c.metrics = false).await;
    let refused = crate::common::http().get(server.url("/metrics")).send().await.unwrap();
    assert_eq!(refused.status(), 401, "an unknown path, as any other unsigned one");
}
