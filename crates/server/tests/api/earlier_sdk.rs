//! Interoperability: the earlier SDK generation (`webull-python-sdk-core`, `-trade` and `-mdata`
//! 0.1.18, unmodified; x-version v1, HMAC-SHA1 over an MD5 body digest) against a real server
//! started with `--compat legacy`, as a trading platform built on it runs: the account list, a
//! symbol looked up per category (US_STOCK, then US_ETF), a market order placed by that
//! `instrument_id` and filled, the account and the market data, each value checked against the
//! current calls' answers. `scripts/test.sh` prepares its virtualenv (its dependencies pin old
//! versions, so a virtualenv of its own) and sets `SIGNET_PYTHON_SDK01`; without it these tests
//! say so and pass, unless `SIGNET_REQUIRE_INTEROP=1`. A strict server refuses all of it.

use signet_model::ids::AccountId;
use std::collections::BTreeSet;
use std::str::FromStr;

use reqwest::Method;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use signet_client::Client;
use signet_core::simulator::MarketConfig;
use signet_domain::marketdata::units::parse_day;
use signet_domain::simulator::clock::ClockMode;
use signet_server::generations::compat::Compat;
use signet_signing::{Algorithm, Encoding};

use crate::common::{Scheme, TestServer};
use crate::legacy::call;

/// What the earlier generation sends.
const V1: Scheme = Scheme {
    algorithm: Algorithm::LegacyHmacSha1,
    encoding: Encoding::Standard,
    version: "v1",
};

/// The earlier generation's market-data paths (those that kept their path, the end-of-day calls,
/// are current calls).
const EARLIER: [(&str, &str); 6] = [
    ("GET", "/instrument/list"),
    ("GET", "/market-data/snapshot"),
    ("GET", "/market-data/quotes"),
    ("GET", "/market-data/tick"),
    ("GET", "/market-data/bars"),
    ("POST", "/market-data/batch-bars"),
];

/// Runs a scenario of `tests/python/earlier_sdk.py` to its end and reads its answer.
async fn run(python: &str, server: &TestServer, scenario: &str, env: &[(&str, &str)]) -> Value {
    let mut command = crate::common::python_script(python, "earlier_sdk.py", server, scenario);
    command
        .env("SIGNET_ACCOUNT_ID", &server.app.account_ids[0])
        .envs(env.iter().copied());
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "the earlier SDK failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object on stdout")
}

/// The body of a call the script made, once it answered 200.
fn ok<'a>(out: &'a Value, name: &str) -> &'a Value {
    assert_eq!(out[name]["status"], 200, "{name}: {}", out[name]);
    &out[name]["body"]
}

async fn current(client: &Client, method: Method, path: &str, query: &[(&str, &str)], body: Option<Value>) -> Value {
    let body = body.map(|b| serde_json::to_vec(&b).unwrap());
    let answer = crate::common::send(client.prepare(method, path, query, body).unwrap()).await;
    assert_eq!(answer.status.as_u16(), 200, "{path}: {}", answer.body);
    answer.body
}

fn decimal(value: &Value) -> Decimal {
    Decimal::from_str(value.as_str().unwrap_or_else(|| panic!("a decimal string: {value}"))).unwrap()
}

#[tokio::test]
async fn the_earlier_sdk_looks_up_places_by_instrument_id_and_reads_the_account_and_market_data() {
    let Some(python) = crate::common::interpreter("SIGNET_PYTHON_SDK01") else {
        return;
    };
    let server = TestServer::start_with(|c| {
        c.compat = Compat::Legacy;
        c.market = MarketConfig {
            seed: 2013,
            clock: ClockMode::Manual,
            start_day: parse_day("2013-03-01"),
            ..MarketConfig::default()
        };
    })
    .await;
    // The demo: stocks and ETFs (SPY among them); the simulator quotes what it found at start.
    signet_import::demo::ensure_loaded(server.database.store.clone())
        .await
        .unwrap()
        .expect("loaded");
    let server = server.restart().await;
    let ops = server
        .admin()
        .create_app_with_role("ops", Decimal::ZERO, true)
        .await
        .unwrap();
    let ops = server.client_for(&ops);
    ops.market()
        .set("SPY", "150.00", Some("149.99"), Some("150.01"), Some(10_000))
        .await
        .unwrap();

    let out = run(&python, &server, "trade", &[]).await;
    let account = &server.app.account_ids[0];
    // The account list is the app's accounts (in no order the test relies on).
    let listed: BTreeSet<&str> = ok(&out, "subscriptions")
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["account_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, server.app.account_ids.iter().map(AccountId::as_str).collect());
    // AAPL is found as a US_STOCK; SPY, an ETF, is not, and is found as a US_ETF.
    let aapl = &ok(&out, "lookup_AAPL_US_STOCK")[0];
    assert_eq!((&aapl["symbol"], &aapl["currency"]), (&json!("AAPL"), &json!("USD")));
    assert_eq!(out["aapl"], json!(["US_STOCK", aapl["instrument_id"]]));
    assert_eq!(ok(&out, "lookup_SPY_US_STOCK"), &json!([]));
    let spy = &ok(&out, "lookup_SPY_US_ETF")[0];
    assert_eq!((&spy["symbol"], &spy["category"]), (&json!("SPY"), &json!("US_ETF")));
    assert!(!spy["name"].as_str().unwrap().is_empty() && !spy["exchange_code"].as_str().unwrap().is_empty());
    assert_eq!(out["spy"], json!(["US_ETF", spy["instrument_id"]]));
    let spy_id = spy["instrument_id"].as_str().unwrap();
    let client_order_id = out["client_order_id"].as_str().unwrap();
    assert_eq!(ok(&out, "place")["client_order_id"], json!(client_order_id));
    let placed = &ok(&out, "detail")["items"][0];
    assert_eq!(
        (
            &placed["symbol"],
            &placed["instrument_id"],
            &placed["qty"],
            &placed["side"]
        ),
        (&json!("SPY"), &json!(spy_id), &json!("10"), &json!("BUY"))
    );
    // The order is the one the current calls show.
    let v3 = current(
        &server.client(),
        Method::GET,
        "/trading/orders/get",
        &[("account_id", account), ("client_order_id", client_order_id)],
        None,
    )
    .await;
    assert_eq!(v3["orders"][0]["symbol"], json!("SPY"), "{v3}");

    // A second of the market: the buy fills at the ask.
    ops.market().step(1).await.unwrap();
    let aapl_id = aapl["instrument_id"].as_str().unwrap();
    let out = run(
        &python,
        &server,
        "read",
        &[("SIGNET_CLIENT_ORDER_ID", client_order_id), ("SIGNET_AAPL_ID", aapl_id)],
    )
    .await;
    assert_eq!(ok(&out, "profile")["account_type"], json!("CASH"));
    let filled = &ok(&out, "detail")["items"][0];
    assert_eq!(
        (
            &filled["order_status"],
            &filled["filled_qty"],
            decimal(&filled["filled_price"])
        ),
        (&json!("FILLED"), &json!("10"), Decimal::from_str("150.01").unwrap()),
        "{filled}"
    );
    let today = &ok(&out, "today")["orders"];
    assert!(
        today
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["client_order_id"] == json!(client_order_id)),
        "{today}"
    );
    let holdings = &ok(&out, "positions")["holdings"];
    let held = holdings
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["instrument_id"] == json!(spy_id))
        .unwrap_or_else(|| panic!("SPY among {holdings}"));
    assert_eq!((&held["symbol"], &held["qty"]), (&json!("SPY"), &json!("10")));
    assert_eq!(decimal(&held["unit_cost"]), Decimal::from_str("150.01").unwrap());
    let balance = ok(&out, "balance");
    assert_eq!(
        decimal(&balance["total_cash_balance"]),
        Decimal::from(100_000) - Decimal::from_str("1500.10").unwrap(),
        "{balance}"
    );

    // The market data: what the current calls answer for the same symbols at the same second.
    let client = server.client();
    let aapl_q = [("symbol", "AAPL"), ("category", "US_STOCK")];
    let snapshots = current(
        &client,
        Method::GET,
        "/market-data/stocks/snapshots/list",
        &[("symbols", "AAPL,MSFT"), ("category", "US_STOCK")],
        None,
    )
    .await;
    assert_eq!(ok(&out, "snapshot"), &snapshots);
    assert_eq!(ok(&out, "snapshot")[0]["symbol"], json!("AAPL"));
    let depth = current(&client, Method::GET, "/market-data/stocks/depths/list", &aapl_q, None).await;
    assert_eq!(ok(&out, "quotes"), &depth);
    assert!(!depth["asks"].as_array().unwrap().is_empty());
    let ticks = current(
        &client,
        Method::GET,
        "/market-data/stocks/ticks/list",
        &[("symbol", "AAPL"), ("category", "US_STOCK"), ("count", "5")],
        None,
    )
    .await;
    assert_eq!(ok(&out, "tick"), &ticks);
    let bars = |symbols: Value, timespan: &str, count: &str| json!({"symbols": symbols, "category": "US_STOCK", "timespan": timespan, "count": count});
    let daily = current(
        &client,
        Method::POST,
        "/market-data/stocks/bars/list",
        &[],
        Some(bars(json!(["AAPL"]), "D", "5")),
    )
    .await;
    assert_eq!(ok(&out, "bars"), &daily["result"][0]["result"]);
    assert_eq!(ok(&out, "bars").as_array().unwrap().len(), 5);
    let minutes = current(
        &client,
        Method::POST,
        "/market-data/stocks/bars/list",
        &[],
        Some(bars(json!(["AAPL"]), "M1", "3")),
    )
    .await;
    assert_eq!(ok(&out, "minute_bars"), &minutes["result"][0]["result"]);
    let batch = current(
        &client,
        Method::POST,
        "/market-data/stocks/bars/list",
        &[],
        Some(bars(json!(["AAPL", "MSFT"]), "D", "5")),
    )
    .await;
    assert_eq!(ok(&out, "batch_bars"), &batch);
    let eod = current(
        &client,
        Method::GET,
        "/market-data/eod-bars",
        &[("instrument_ids", aapl_id), ("count", "3")],
        None,
    )
    .await;
    assert_eq!(ok(&out, "eod_bars"), &eod);
    ok(&out, "corp_action");

    // The generation's account_v2 and order_v2 calls: the current calls under their paths, the
    // account of an order call in the query.
    let account = &server.app.account_ids[0];
    let spy = spy_id;
    let out = run(
        &python,
        &server,
        "v2",
        &[("SIGNET_CLIENT_ORDER_ID", "sdk01v2"), ("SIGNET_SPY_ID", spy)],
    )
    .await;
    let listed: BTreeSet<&str> = ok(&out, "accounts")
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["account_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, server.app.account_ids.iter().map(AccountId::as_str).collect());
    assert_eq!(
        ok(&out, "balance"),
        &current(
            &client,
            Method::GET,
            "/trading/assets/balances/get",
            &[("account_id", account)],
            None
        )
        .await
    );
    assert_eq!(ok(&out, "positions")[0]["symbol"], json!("SPY"));
    assert_eq!(ok(&out, "position_details")[0]["quantity"], json!("10"));
    assert_eq!(ok(&out, "v1_position_details"), ok(&out, "position_details"));
    assert_eq!(decimal(&ok(&out, "preview")["estimated_cost"]), Decimal::from(600));
    assert_eq!(ok(&out, "place")["client_order_id"], json!("sdk01v2"));
    let replaced = &ok(&out, "detail")["orders"][0];
    assert_eq!(
        (
            &replaced["total_quantity"],
            &replaced["limit_price"],
            &replaced["status"]
        ),
        (&json!("3"), &json!("301"), &json!("SUBMITTED")),
        "{replaced}"
    );
    let history = ok(&out, "history")
        .as_array()
        .expect("the earlier protocol: a bare array");
    assert!(
        history.iter().any(|o| o["client_order_id"] == json!("sdk01v2")),
        "{history:?}"
    );
    assert_eq!(ok(&out, "cancel")["client_order_id"], json!("sdk01v2"));
    assert_eq!(ok(&out, "after")["orders"][0]["status"], json!("CANCELLED"));
    assert_eq!(ok(&out, "v1_place")["client_order_id"], json!("sdk01v2v1"));
    ok(&out, "v1_replace");
    ok(&out, "v1_replace_v2");
    let item = &ok(&out, "v1_detail")["items"][0];
    assert_eq!(
        (&item["qty"], &item["limit_price"], &item["order_status"]),
        (&json!("3"), &json!("102"), &json!("SUBMITTED")),
        "{item}"
    );
    ok(&out, "v1_cancel");
    let cancelled = current(
        &client,
        Method::GET,
        "/trading/orders/get",
        &[("account_id", account), ("client_order_id", "sdk01v2v1")],
        None,
    )
    .await;
    assert_eq!(cancelled["orders"][0]["status"], json!("CANCELLED"));
    assert_eq!(ok(&out, "trade_instrument")["symbol"], json!("SPY"));
    assert_eq!(ok(&out, "trade_security")["instrument_id"], json!(spy));
    assert_eq!(ok(&out, "tradable").as_array().map(Vec::len), Some(2));
    let days: Vec<&str> = ok(&out, "calendar")
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["trade_day"].as_str().unwrap())
        .collect();
    assert_eq!(days.len(), 9, "{days:?}");
    assert!(!days.contains(&"2013-03-29"), "Good Friday");
}

/// A strict server refuses the earlier generation: its x-version v1 anywhere, and its market-data
/// paths with a 404 that names the current call (as every legacy path); under `--compat legacy`,
/// v1 stays kept to that generation's calls.
#[tokio::test]
async fn a_strict_server_refuses_the_earlier_generations_paths_and_version() {
    let strict = TestServer::start().await;
    let client = strict.client();
    for (method, path) in EARLIER {
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let body = (method == Method::POST).then(|| br#"{"symbols":["AAPL"],"timespan":"D"}"#.to_vec());
        let request = client
            .prepare(method, path, &[("symbols", "AAPL"), ("category", "US_STOCK")], body)
            .unwrap();
        let e = crate::common::send(request).await.assert_error(404, "NOT_FOUND");
        let retired = signet_server::generations::compat::replacement(path).expect("a legacy path");
        assert!(
            e.message.contains("--compat legacy")
                && e.message
                    .contains(&format!("{} {}", retired.current_method, retired.current)),
            "{path}: {}",
            e.message
        );
        let body = (path == "/market-data/batch-bars").then_some(r#"{"symbols":["AAPL"],"timespan":"D"}"#);
        call(&strict, V1, path, "category=US_STOCK&symbols=AAPL", body)
            .await
            .assert_error(400, "UNSUPPORTED_API_VERSION");
    }
    // Its account_v2 and order_v2 calls too.
    for retired in signet_server::generations::compat::PATHS
        .iter()
        .filter(|r| r.path.starts_with("/openapi/account/") || r.path == "/account/position/details")
    {
        let method = Method::from_bytes(retired.method.as_bytes()).unwrap();
        let body = (method == Method::POST).then(|| b"{}".to_vec());
        let request = client
            .prepare(method, retired.path, &[("account_id", "x")], body)
            .unwrap();
        let e = crate::common::send(request).await.assert_error(404, "NOT_FOUND");
        assert!(e.message.contains(retired.current), "{}: {}", retired.path, e.message);
    }
    call(&strict, V1, "/market-data/eod-bars", "count=1&instrument_ids=1", None)
        .await
        .assert_error(400, "UNSUPPORTED_API_VERSION");

    let legacy = TestServer::start_with(|c| c.compat = Compat::Legacy).await;
    // v1 on the earlier generation's lookup; not on the current calls.
    let found = call(&legacy, V1, "/instrument/list", "category=US_STOCK&symbols=AAPL", None).await;
    assert_eq!(found.status.as_u16(), 200, "{}", found.body);
    call(&legacy, V1, "/market-data/stocks/snapshots/list", "symbols=AAPL", None)
        .await
        .assert_error(400, "UNSUPPORTED_API_VERSION");
    call(&legacy, V1, "/instrument/list", "symbols=AAPL", None)
        .await
        .assert_error(400, "ILLEGAL_PARAMETER");
}
