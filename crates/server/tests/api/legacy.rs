//! `signet serve --compat legacy` against a real server: x-version v2 on the legacy calls only,
//! their older pagination, HMAC-SHA1 over an MD5 body digest, Java's URLEncoder variant, each
//! counted in the metrics; and the strict default refusing all of it.

use serde_json::{Value, json};
use signet_domain::marketdata::units::format_day;
use signet_server::generations::compat::Compat;
use signet_signing::{Algorithm, Encoding};

use crate::common::{Answer, Scheme, TestServer, answer, metric, scrape_metrics, sign_as};

const SHA1: Scheme = Scheme {
    algorithm: Algorithm::LegacyHmacSha1,
    encoding: Encoding::Standard,
    version: "v3",
};
pub(crate) const V2: Scheme = Scheme {
    algorithm: Algorithm::HmacSha256,
    encoding: Encoding::Standard,
    version: "v2",
};
const JAVA: Scheme = Scheme {
    algorithm: Algorithm::HmacSha256,
    encoding: Encoding::JavaUrlEncoder,
    version: "v3",
};

/// A request signed with `scheme`: a POST when there is a body.
pub(crate) async fn call(server: &TestServer, scheme: Scheme, path: &str, query: &str, body: Option<&str>) -> Answer {
    let host = server.addr.to_string();
    let headers = sign_as(server, scheme, &host, path, query, body.unwrap_or("").as_bytes());
    let url = match query {
        "" => server.url(path),
        _ => server.url(&format!("{path}?{query}")),
    };
    let mut request = match body {
        Some(body) => crate::common::http()
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_owned()),
        None => crate::common::http().get(url),
    };
    for (name, value) in headers {
        request = request.header(name, value);
    }
    answer(request.send().await.expect("sent")).await
}

async fn legacy_server() -> TestServer {
    TestServer::start_with(|c| c.compat = Compat::Legacy).await
}

async fn legacy_counts(server: &TestServer) -> [Option<f64>; 4] {
    let text = scrape_metrics(&server.endpoint).await;
    ["x_version_v2", "hmac_sha1", "java_url_encoding", "legacy_path"]
        .map(|kind| metric(&text, "signet_legacy_acceptances_total", &[("kind", kind)]))
}

fn open_orders_query(server: &TestServer, extra: &str) -> String {
    format!("account_id={}{extra}", server.app.account_ids[0])
}

#[tokio::test]
async fn the_strict_default_refuses_every_legacy_form() {
    let server = TestServer::start().await;
    let open = "/trading/orders/open-orders/list";
    let query = open_orders_query(&server, "");
    call(&server, V2, open, &query, None)
        .await
        .assert_error(400, "UNSUPPORTED_API_VERSION");
    call(&server, SHA1, "/trading/accounts/list", "", None)
        .await
        .assert_error(401, "SIGNATURE_ALGORITHM_NOT_SUPPORTED");
    call(&server, JAVA, "/trading/accounts/list", "tag=a*b~c", None)
        .await
        .assert_error(401, "INCORRECT_SIGN");
    let retired = call(
        &server,
        Scheme::default(),
        "/openapi/fundamentals/fund/dividends",
        "symbol=SPY",
        None,
    )
    .await;
    let message = retired.assert_error(404, "NOT_FOUND").message;
    assert!(message.contains("--compat legacy"), "{message}");
    assert!(
        message.contains("/market-data/fundamentals/fund-dividends/get"),
        "{message}"
    );
    // Where a Java-encoded string is the standard one, it was never a legacy signature.
    assert_eq!(
        call(&server, JAVA, "/trading/accounts/list", "tag=a-b", None)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn hmac_sha1_over_an_md5_body_digest_is_accepted_and_counted() {
    let server = legacy_server().await;
    let accounts = call(&server, SHA1, "/trading/accounts/list", "", None).await;
    assert_eq!(accounts.status, 200, "{}", accounts.body);
    // With a body, str2 is the MD5 digest: a SHA-256 str2 under HMAC-SHA1 would not verify.
    let created = call(
        &server,
        SHA1,
        "/market-data/watchlists/create",
        "",
        Some(r#"{"name":"from an old client"}"#),
    )
    .await;
    assert_eq!(created.status, 200, "{}", created.body);
    assert_eq!(created.body["name"], "from an old client");
    let [v2, sha1, java, path] = legacy_counts(&server).await;
    assert_eq!((v2, sha1, java, path), (None, Some(2.0), None, None));
}

#[tokio::test]
async fn a_java_url_encoded_signature_is_tried_only_where_it_differs() {
    let server = legacy_server().await;
    let java = call(&server, JAVA, "/trading/accounts/list", "tag=a*b~c", None).await;
    assert_eq!(java.status, 200, "{}", java.body);
    let same = call(&server, JAVA, "/trading/accounts/list", "tag=plain", None).await;
    assert_eq!(same.status, 200, "{}", same.body);
    let standard = call(&server, Scheme::default(), "/trading/accounts/list", "tag=a*b~c", None).await;
    assert_eq!(standard.status, 200, "{}", standard.body);
    let [_, _, java, _] = legacy_counts(&server).await;
    assert_eq!(java, Some(1.0), "only the request that needed it is counted");
}

#[tokio::test]
async fn v2_is_accepted_only_on_the_legacy_calls() {
    let server = legacy_server().await;
    let refused = call(&server, V2, "/trading/accounts/list", "", None).await;
    let message = refused.assert_error(400, "UNSUPPORTED_API_VERSION").message;
    assert!(message.contains("legacy calls"), "{message}");
    let open = call(
        &server,
        V2,
        "/trading/orders/open-orders/list",
        &open_orders_query(&server, ""),
        None,
    )
    .await;
    assert_eq!((open.status.as_u16(), &open.body), (200, &json!([])));
    let [v2, ..] = legacy_counts(&server).await;
    assert_eq!(v2, Some(1.0));
}

fn order(id: &str) -> Value {
    json!({
        "client_order_id": id, "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY", "order_type": "LIMIT",
        "limit_price": "1.00", "time_in_force": "DAY", "entrust_type": "QTY", "quantity": "1",
        "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE"
    })
}

fn ids(answer: &Answer) -> Vec<String> {
    assert_eq!(answer.status, 200, "{}", answer.body);
    let rows = answer.body.as_array().expect("v2 answers a bare list");
    rows.iter()
        .map(|r| r["client_order_id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn v2_open_orders_and_history_page_by_the_last_client_order_id() {
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| c.compat = Compat::Legacy).await;
    let account = server.app.account_ids[0].clone();
    for id in ["o1", "o2", "o3", "o4", "o5"] {
        let _: Value = server
            .client()
            .post(
                "/trading/orders/place",
                &json!({"account_id": account, "new_orders": [order(id)]}),
            )
            .await
            .unwrap();
    }
    let open = "/trading/orders/open-orders/list";
    let page = |last: &str| open_orders_query(&server, &format!("&page_size=2{last}"));
    assert_eq!(ids(&call(&server, V2, open, &page(""), None).await), ["o5", "o4"]);
    assert_eq!(
        ids(&call(&server, V2, open, &page("&last_client_order_id=o4"), None).await),
        ["o3", "o2"]
    );
    assert_eq!(
        ids(&call(&server, V2, open, &page("&last_client_order_id=o2"), None).await),
        ["o1"]
    );
    call(&server, V2, open, &page("&last_client_order_id=nope"), None)
        .await
        .assert_error(400, "ILLEGAL_PARAMETER");
    // v3 on the same path keeps the current protocol.
    let current = call(&server, Scheme::default(), open, &page(""), None).await;
    assert_eq!(current.body["data"].as_array().map(Vec::len), Some(2));
    assert!(current.body["pagination_key"].is_string());

    let history = "/trading/orders/historical-orders/list";
    let today = i32::try_from(signet_domain::simulator::clock::wall_clock_ms() / 86_400_000).unwrap();
    // From yesterday, in case the day changed since the orders were placed.
    let (yesterday, today) = (format_day(today - 1), format_day(today));
    let days = |from: &str, to: &str| open_orders_query(&server, &format!("&start_date={from}&end_date={to}"));
    assert_eq!(
        ids(&call(&server, V2, history, &days(&yesterday, &today), None).await),
        ["o5", "o4", "o3", "o2", "o1"]
    );
    assert!(ids(&call(&server, V2, history, &days("2020-01-01", "2020-01-31"), None).await).is_empty());
    call(&server, V2, history, &days("2020-01-31", "2020-01-01"), None)
        .await
        .assert_error(400, "ILLEGAL_PARAMETER");
    call(&server, V2, history, &days("2020-1-1", "2020-01-31"), None)
        .await
        .assert_error(400, "ILLEGAL_PARAMETER");
}

/// The earlier SDK generation sends `x-version: v1` (and signs with HMAC-SHA1): under
/// `--compat legacy` on the v1 trade calls only, counted; a strict server refuses it.
#[tokio::test]
async fn x_version_v1_is_the_earlier_generations_and_kept_to_the_v1_trade_calls() {
    const V1: Scheme = Scheme {
        algorithm: Algorithm::LegacyHmacSha1,
        encoding: Encoding::Standard,
        version: "v1",
    };
    let server = legacy_server().await;
    let query = format!("account_id={}", server.app.account_ids[0]);
    let profile = call(&server, V1, "/account/profile", &query, None).await;
    assert_eq!(profile.status.as_u16(), 200, "{}", profile.body);
    assert_eq!(profile.body["account_type"], json!("CASH"));
    let calendar = call(
        &server,
        V1,
        "/trade/calendar",
        "end=2013-04-05&market=US&start=2013-03-25",
        None,
    )
    .await;
    assert_eq!(calendar.status.as_u16(), 200, "{}", calendar.body);
    call(&server, V1, "/trading/accounts/list", "", None)
        .await
        .assert_error(400, "UNSUPPORTED_API_VERSION");
    let text = scrape_metrics(&server.endpoint).await;
    assert_eq!(
        metric(&text, "signet_legacy_acceptances_total", &[("kind", "x_version_v1")]),
        Some(2.0)
    );

    let strict = TestServer::start().await;
    let query = format!("account_id={}", strict.app.account_ids[0]);
    call(&strict, V1, "/account/profile", &query, None)
        .await
        .assert_error(400, "UNSUPPORTED_API_VERSION");
}
