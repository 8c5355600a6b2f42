//! Scenario rules over signed HTTP: each outcome on a real server, the rules' controls, and runs
//! that repeat.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use signet_client::Client;
use signet_model::scenarios::ScenarioView;

use crate::common::{Answer, TestServer, market_buy, metric, scrape_metrics, send};

/// README's example (issue 28's, less the fills the engine does not take yet).
const RULES: &str = include_str!("../../../../testdata/scenarios/unhappy-paths.toml");

struct Bench {
    server: TestServer,
    client: Client,
    ops: Client,
    account: String,
}

async fn bench(rules: &str) -> Bench {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    ops.scenarios().load(rules).await.expect("the rules load");
    Bench {
        client: server.client(),
        account: server.app.account_ids[1].clone(),
        server,
        ops,
    }
}

impl Bench {
    async fn call(&self, method: Method, path: &str, query: &[(&str, &str)], body: Option<Value>) -> Answer {
        let body = body.map(|b| serde_json::to_vec(&b).unwrap());
        send(self.client.prepare(method, path, query, body).unwrap()).await
    }

    async fn place(&self, body: Value) -> Answer {
        self.call(Method::POST, "/trading/orders/place", &[], Some(body)).await
    }

    /// The order of the account with this client order id, as the detail call shows it.
    async fn detail(&self, client_order_id: &str) -> Answer {
        self.call(
            Method::GET,
            "/trading/orders/get",
            &[("account_id", &self.account), ("client_order_id", client_order_id)],
            None,
        )
        .await
    }
}

fn order(account: &str, id: &str, symbol: &str, quantity: &str) -> Value {
    let mut body = market_buy(account, id, symbol);
    body["new_orders"][0]["quantity"] = json!(quantity);
    body
}

fn rule_header(answer: &Answer) -> Option<&str> {
    answer.headers.get("x-signet-scenario").map(|v| v.to_str().unwrap())
}

#[tokio::test]
async fn a_rejection_rule_refuses_the_order_and_stores_nothing() {
    let b = bench(RULES).await;
    let refused = b.place(order(&b.account, "big", "MSFT", "100")).await;
    let body = refused.assert_error(400, "ORDER_REJECTED_BY_SCENARIO");
    assert_eq!(body.message, "exchange rejected the order");
    assert_eq!(body.scenario.as_deref(), Some("reject big MSFT buys"));
    assert_eq!(rule_header(&refused), Some("reject big MSFT buys"));
    b.detail("big").await.assert_error(404, "ORDER_NOT_FOUND");
    // Below the rule's quantity, or a sell: the normal path, untouched.
    let placed = b.place(order(&b.account, "small", "MSFT", "99")).await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    assert_eq!(rule_header(&placed), None);
}

#[tokio::test]
async fn a_rule_on_cancellations_keeps_the_order_open() {
    let rules = "[[rule]]\nname = \"sticky\"\nwhen = { operation = \"cancel\", client_order_id_prefix = \"keep-\" }\nthen = { reject = \"CANCEL_REFUSED\", message = \"too late to cancel\", status = 409 }\n";
    let b = bench(rules).await;
    let mut resting = order(&b.account, "keep-1", "AAPL", "1");
    resting["new_orders"][0]["order_type"] = json!("LIMIT");
    resting["new_orders"][0]["limit_price"] = json!("1.00");
    assert_eq!(b.place(resting).await.status, 200);
    let cancel = json!({"account_id": b.account, "client_order_id": "keep-1"});
    let refused = b.call(Method::POST, "/trading/orders/cancel", &[], Some(cancel)).await;
    refused.assert_error(409, "CANCEL_REFUSED");
    let detail = b.detail("keep-1").await;
    assert_eq!(detail.body["orders"][0]["status"], "SUBMITTED", "{}", detail.body);
}

#[tokio::test]
async fn a_faulted_placement_does_nothing_and_the_retry_goes_through() {
    let b = bench(RULES).await;
    let faulted = b.place(order(&b.account, "flaky-1", "AAPL", "1")).await;
    let body = faulted.assert_error(503, "SERVICE_NOT_AVAILABLE");
    assert_eq!(body.scenario.as_deref(), Some("flaky gateway"));
    assert!(body.message.contains("flaky gateway"), "{}", body.message);
    assert_eq!(faulted.headers["retry-after"], "1");
    b.detail("flaky-1").await.assert_error(404, "ORDER_NOT_FOUND");
    // `times = 1`: the retry, signed anew, is placed.
    let retried = b.place(order(&b.account, "flaky-1", "AAPL", "1")).await;
    assert_eq!(retried.status, 200, "{}", retried.body);
    assert_eq!(rule_header(&retried), None);
    assert_eq!(b.detail("flaky-1").await.status, 200);
}

#[tokio::test]
async fn a_lost_answer_leaves_the_order_stored_for_the_client_order_id_to_find() {
    let b = bench(RULES).await;
    let request = b
        .client
        .prepare(
            Method::POST,
            "/trading/orders/place",
            &[],
            Some(serde_json::to_vec(&order(&b.account, "lost-1", "AAPL", "1")).unwrap()),
        )
        .unwrap();
    let lost = crate::common::http()
        .request(request.method, request.url)
        .headers(request.headers)
        .body(request.body)
        .send()
        .await;
    let error = lost.expect_err("no answer");
    assert!(
        !error.is_status() && !error.is_timeout(),
        "the connection closed: {error:?}"
    );
    // The order was stored: the detail finds it, and placing it again is a duplicate.
    let found = b.detail("lost-1").await;
    assert_eq!(found.status, 200, "{}", found.body);
    assert_eq!(found.body["orders"].as_array().map(Vec::len), Some(1), "{}", found.body);
    b.place(order(&b.account, "lost-1", "AAPL", "1"))
        .await
        .assert_error(409, "DUPLICATE_CLIENT_ORDER_ID");
}

#[tokio::test]
async fn a_delay_slows_the_paths_it_names_only() {
    let b = bench(RULES).await;
    let started = Instant::now();
    let slow = b
        .call(
            Method::GET,
            "/market-data/stocks/snapshots/list",
            &[("symbols", "AAPL")],
            None,
        )
        .await;
    assert_eq!(slow.status, 200);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(rule_header(&slow), Some("slow market data"));
    let started = Instant::now();
    let fast = b.call(Method::GET, "/trading/accounts/list", &[], None).await;
    assert_eq!(fast.status, 200);
    assert!(
        started.elapsed() < Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(rule_header(&fast), None);
    // Counted in the metrics, by rule.
    let metrics = scrape_metrics(&b.server.endpoint).await;
    assert_eq!(
        metric(&metrics, "signet_scenario_hits_total", &[("rule", "slow market data")]),
        Some(1.0)
    );
}

#[tokio::test]
async fn the_controls_are_for_admin_apps_and_a_bad_file_changes_nothing() {
    let b = bench(RULES).await;
    let denied = b.client.scenarios().list().await.expect_err("not an admin app");
    assert_eq!(denied.code(), Some(signet_model::ErrorCode::PermissionDenied));
    let bad = "[[rule]]\nname = \"x\"\nwhen = { operation = \"place\" }\nthen = { status = 404 }\n";
    let refused = b.ops.scenarios().load(bad).await.expect_err("a bad file");
    assert!(refused.to_string().contains("line 1"), "{refused}");
    let listed: ScenarioView = b.ops.scenarios().list().await.unwrap();
    let names: Vec<&str> = listed.rules.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "reject big MSFT buys",
            "flaky gateway",
            "lost answer",
            "slow market data"
        ]
    );
    assert_eq!(listed.seed, 7);
    assert_eq!(listed.rules[1].outcome, "status 503, retry after 1 s");
    assert_eq!(listed.rules[3].stage, "REQUEST");

    // Switched off, a rule lets the normal path through; on again, it applies.
    b.ops.scenarios().switch("reject big MSFT buys", false).await.unwrap();
    assert_eq!(b.place(order(&b.account, "big-1", "MSFT", "100")).await.status, 200);
    b.ops.scenarios().switch("reject big MSFT buys", true).await.unwrap();
    b.place(order(&b.account, "big-2", "MSFT", "100"))
        .await
        .assert_error(400, "ORDER_REJECTED_BY_SCENARIO");
    let listed = b.ops.scenarios().list().await.unwrap();
    assert_eq!(listed.rules[0].hits, 1, "a match while off is not counted");
    let unknown = b.ops.scenarios().switch("nope", true).await.expect_err("no such rule");
    assert_eq!(unknown.code(), Some(signet_model::ErrorCode::NotFound));

    // The admin API is never touched, and clearing ends every rule.
    let all = "[[rule]]\nname = \"everything\"\nwhen = { path_prefix = \"/\" }\nthen = { status = 500 }\n";
    b.ops.scenarios().load(all).await.unwrap();
    assert_eq!(
        b.call(Method::GET, "/trading/accounts/list", &[], None).await.status,
        500
    );
    assert!(b.ops.scenarios().list().await.is_ok());
    let cleared = b.ops.scenarios().clear().await.unwrap();
    assert!(cleared.rules.is_empty());
    assert_eq!(
        b.call(Method::GET, "/trading/accounts/list", &[], None).await.status,
        200
    );
}

#[tokio::test]
async fn the_same_rules_and_requests_meet_the_same_outcomes() {
    let rules = "seed = 11\n[[rule]]\nname = \"coin\"\nwhen = { path = \"/trading/accounts/list\", probability = 0.5 }\nthen = { status = 502 }\n";
    let b = bench(rules).await;
    let run = async || {
        // Loading the rules again starts their counts again.
        b.ops.scenarios().load(rules).await.unwrap();
        let mut statuses = Vec::new();
        for _ in 0..24 {
            statuses.push(
                b.call(Method::GET, "/trading/accounts/list", &[], None)
                    .await
                    .status
                    .as_u16(),
            );
        }
        statuses
    };
    let first = run().await;
    assert_eq!(first, run().await);
    assert!(first.contains(&502) && first.contains(&200), "{first:?}");
    let listed = b.ops.scenarios().list().await.unwrap();
    assert_eq!(listed.rules[0].hits, 24);
}

/// The official client, unmodified: a faulted placement is an exception (`ServerException`,
/// 503, `SERVICE_NOT_AVAILABLE`) and a lost answer another (`ClientException`, `SDK.HttpError`),
/// with `auto_retry=True` too, which retries GETs only (each attempt signed anew, so a GET's
/// fault is not seen); the order whose answer was lost is found by its client order id.
#[tokio::test]
async fn the_official_client_meets_each_outcome() {
    let Some(python) = crate::common::interpreter("SIGNET_PYTHON") else {
        return;
    };
    let rules = "[[rule]]\nname = \"flaky\"\nwhen = { operation = \"place\", client_order_id_prefix = \"flaky-\" }\nthen = { status = 503, retry_after_seconds = 1 }\n\
        [[rule]]\nname = \"lost\"\nwhen = { client_order_id_prefix = \"lost-\" }\nthen = { drop_answer = \"after_commit\" }\n\
        [[rule]]\nname = \"flaky reads\"\nwhen = { path = \"/trading/accounts/list\", times = 1 }\nthen = { status = 503 }\n";
    let b = bench(rules).await;
    let mut command = crate::common::python_script(&python, "official_client.py", &b.server, "unhappy");
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let out: Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("one JSON object on stdout ({e}): {stdout}"));
    let fault = json!({"status": 503, "code": "SERVICE_NOT_AVAILABLE"});
    assert_eq!(out["flaky"], fault, "{out}");
    assert_eq!(out["flaky_retrying"], fault, "{out}");
    for lost in ["lost", "lost_retrying"] {
        assert_eq!(out[lost]["client_error"], "SDK.HttpError", "{out}");
        let found = &out[format!("{lost}_found")]["orders"];
        assert_eq!(found.as_array().map(Vec::len), Some(1), "{out}");
    }
    let hits: Vec<i64> = b
        .ops
        .scenarios()
        .list()
        .await
        .unwrap()
        .rules
        .iter()
        .map(|r| r.hits)
        .collect();
    assert_eq!(hits, [2, 2, 2], "two placements each; the GET's fault and its retry");
}

#[tokio::test]
async fn rules_given_at_start_are_in_force() {
    let server = TestServer::start_with(|c| c.scenarios = Some(RULES.to_owned())).await;
    let listed = server.ops().await.scenarios().list().await.unwrap();
    assert_eq!(listed.rules.len(), 4);
}
