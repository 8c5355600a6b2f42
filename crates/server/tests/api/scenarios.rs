//! Scenario rules over signed HTTP: each outcome on a real server, the rules' controls, and runs
//! that repeat.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use signet_client::Client;
use signet_model::scenarios::ScenarioView;

use crate::common::{Answer, TestServer, market_buy, metric, scrape_metrics, send};

/// docs/scenarios.md's example: issue 28's, as written.
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
        account: server.app.account_ids[1].to_string(),
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

impl Bench {
    /// The status and filled quantity of the order with this client order id, and its
    /// executions' (quantity, price), oldest first.
    async fn fills(&self, client_order_id: &str) -> (String, String, Vec<(String, String)>) {
        let detail = self.detail(client_order_id).await;
        let order = &detail.body["orders"][0];
        let text = |v: &Value| v.as_str().unwrap_or_else(|| panic!("{}", detail.body)).to_owned();
        let filter = signet_client::ExecutionFilter {
            client_order_id: Some(client_order_id),
            page_size: Some(100),
            ..Default::default()
        };
        let page = self.client.orders().executions(&self.account, &filter).await.unwrap();
        let mut executions: Vec<(String, String)> = page
            .data
            .iter()
            .map(|e| (e.filled_quantity.clone(), e.filled_price.clone()))
            .collect();
        executions.reverse();
        (text(&order["status"]), text(&order["filled_quantity"]), executions)
    }

    /// AAPL's quote held at 400.00 (399.99 bid, 400.01 ask), `size` shares a level.
    async fn pin_aapl(&self, size: u64) {
        self.ops
            .market()
            .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(size))
            .await
            .unwrap();
    }

    async fn step(&self, seconds: u64) {
        self.ops.market().step(seconds).await.unwrap();
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
    // The example file's rule, its delay longer than a busy machine takes to answer a call, so
    // that a call it does not name is seen to pass the delayed one.
    let rules = RULES.replace("delay_ms = 300", "delay_ms = 3000");
    assert_ne!(rules, RULES);
    let b = bench(&rules).await;
    let started = Instant::now();
    let slow = async {
        let answer = b
            .call(
                Method::GET,
                "/market-data/stocks/snapshots/list",
                &[("symbols", "AAPL")],
                None,
            )
            .await;
        (answer, started.elapsed())
    };
    let fast = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let answer = b.call(Method::GET, "/trading/accounts/list", &[], None).await;
        (answer, started.elapsed())
    };
    let ((slow, slow_took), (fast, fast_took)) = tokio::join!(slow, fast);
    assert_eq!(slow.status, 200);
    assert!(slow_took >= Duration::from_secs(3), "{slow_took:?}");
    assert_eq!(rule_header(&slow), Some("slow market data"));
    assert_eq!(fast.status, 200);
    assert!(
        fast_took < slow_took,
        "sent after the slow call, answered before it: {fast_took:?}, {slow_took:?}"
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
            "AAPL in three slices",
            "half then cancelled",
            "flaky gateway",
            "lost answer",
            "slow market data"
        ]
    );
    assert_eq!(listed.seed, 7);
    assert_eq!(listed.rules[1].outcome, "fill in 3 slices, 1 s apart");
    assert_eq!(listed.rules[3].outcome, "status 503, retry after 1 s");
    assert_eq!(listed.rules[5].stage, "REQUEST");

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

fn strings(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|&(a, b)| (a.to_owned(), b.to_owned())).collect()
}

#[tokio::test]
async fn slices_fill_one_a_second_and_a_partial_cancels_the_rest() {
    let b = bench(RULES).await;
    b.pin_aapl(1000).await;
    let placed = b.place(order(&b.account, "slices-1", "AAPL", "30")).await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    assert_eq!(rule_header(&placed), Some("AAPL in three slices"));
    let mut seen = Vec::new();
    for _ in 0..3 {
        b.step(1).await;
        let (status, filled, _) = b.fills("slices-1").await;
        seen.push((status, filled));
    }
    assert_eq!(
        seen,
        strings(&[("PARTIAL_FILLED", "10"), ("PARTIAL_FILLED", "20"), ("FILLED", "30")]),
        "one slice a second of the simulator's clock"
    );
    let (_, _, executions) = b.fills("slices-1").await;
    assert_eq!(
        executions,
        strings(&[("10", "400.01"), ("10", "400.01"), ("10", "400.01")])
    );

    // Half of 11 is 5 whole shares; the rest is cancelled at once, and says why.
    assert_eq!(b.place(order(&b.account, "half-1", "AAPL", "11")).await.status, 200);
    b.step(1).await;
    let (status, filled, executions) = b.fills("half-1").await;
    assert_eq!((status.as_str(), filled.as_str()), ("CANCELLED", "5"));
    assert_eq!(executions, strings(&[("5", "400.01")]));
    let detail = b.detail("half-1").await;
    let order_id = detail.body["orders"][0]["order_id"].as_str().unwrap().to_owned();
    assert_eq!(
        b.server.order_events(&order_id).await,
        ["PLACE", "PARTIAL_FILL", "CANCEL"]
    );
}

#[tokio::test]
async fn never_rests_a_marketable_order_and_slippage_costs_what_it_says() {
    let rules = "[[rule]]\nname = \"stuck\"\nwhen = { client_order_id_prefix = \"stuck-\" }\nthen = { fill = \"never\" }\n\
        [[rule]]\nname = \"slip\"\nwhen = { client_order_id_prefix = \"slip-\" }\nthen = { slippage_bps = 25 }\n\
        [[rule]]\nname = \"half rests\"\nwhen = { client_order_id_prefix = \"rest-\" }\nthen = { fill = \"partial\", ratio = 0.5, then = \"rest\" }\n";
    let b = bench(rules).await;
    b.pin_aapl(1000).await;
    for id in ["stuck-1", "slip-1", "rest-1"] {
        assert_eq!(b.place(order(&b.account, id, "AAPL", "10")).await.status, 200);
    }
    b.step(3).await;
    let (status, filled, _) = b.fills("stuck-1").await;
    assert_eq!(
        (status.as_str(), filled.as_str()),
        ("SUBMITTED", "0"),
        "a market order that never fills"
    );
    let cancel = json!({"account_id": b.account, "client_order_id": "stuck-1"});
    assert_eq!(
        b.call(Method::POST, "/trading/orders/cancel", &[], Some(cancel))
            .await
            .status,
        200
    );
    b.step(1).await;
    assert_eq!(b.fills("stuck-1").await.0, "CANCELLED");

    // 400.01 × 1.0025 = 401.010025, paid to the next cent up.
    let (status, _, executions) = b.fills("slip-1").await;
    assert_eq!(status, "FILLED");
    assert_eq!(executions, strings(&[("10", "401.02")]));
    // A sell gets 399.99 × 0.9975 = 398.990025, to the cent down.
    let mut sell = order(&b.account, "slip-2", "AAPL", "10");
    sell["new_orders"][0]["side"] = json!("SELL");
    assert_eq!(b.place(sell).await.status, 200);
    b.step(1).await;
    assert_eq!(b.fills("slip-2").await.2, strings(&[("10", "398.99")]));

    let (status, filled, _) = b.fills("rest-1").await;
    assert_eq!(
        (status.as_str(), filled.as_str()),
        ("PARTIAL_FILLED", "5"),
        "the rest stays open"
    );
}

/// A halt refuses new orders and changes of the symbol, fills nothing and freezes its quotes; a
/// cancel goes through; when the window ends, trading resumes. A freeze holds another symbol's
/// snapshot and ticks still while its orders still trade.
#[tokio::test]
async fn a_halt_stops_a_symbol_and_a_freeze_holds_its_quotes() {
    let rules = "[[rule]]\nname = \"AAPL halted\"\nwhen = { symbol = \"AAPL\", from = \"2013-02-25 09:31\", until = \"2013-02-25 09:41\" }\nthen = { halt = true, message = \"LULD pause\" }\n\
        [[rule]]\nname = \"MSFT frozen\"\nwhen = { symbol = \"MSFT\", from = \"09:31\", until = \"09:41\" }\nthen = { freeze_quotes = true }\n";
    let b = bench(rules).await;
    b.pin_aapl(1000).await;
    let mut resting = order(&b.account, "before", "AAPL", "10");
    resting["new_orders"][0]["order_type"] = json!("LIMIT");
    resting["new_orders"][0]["limit_price"] = json!("390.00");
    resting["new_orders"][0]["time_in_force"] = json!("GTC");
    assert_eq!(b.place(resting.clone()).await.status, 200);
    let mut keep = resting.clone();
    keep["new_orders"][0]["client_order_id"] = json!("to-cancel");
    assert_eq!(b.place(keep).await.status, 200);
    let snapshot = async || {
        let answer = b
            .call(
                Method::GET,
                "/market-data/stocks/snapshots/list",
                &[("symbols", "MSFT")],
                None,
            )
            .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        answer.body[0].clone()
    };
    let newest_tick = async || {
        let answer = b
            .call(
                Method::GET,
                "/market-data/stocks/ticks/list",
                &[("symbol", "MSFT"), ("count", "1")],
                None,
            )
            .await;
        answer.body["result"][0]["time"]
            .as_str()
            .unwrap()
            .parse::<i64>()
            .unwrap()
    };
    let halted_at = 1_361_802_660_000; // 09:31 New York
    b.step(61).await;
    let frozen = snapshot().await;

    // Halted: a new order is refused, saying so and naming the rule; nothing fills, even at a price
    // the order takes.
    let refused = b.place(order(&b.account, "during", "AAPL", "1")).await;
    let body = refused.assert_error(400, "TRADING_HALTED");
    assert_eq!(body.message, "LULD pause");
    assert_eq!(rule_header(&refused), Some("AAPL halted"));
    b.ops
        .market()
        .set("AAPL", "380.00", Some("379.99"), Some("380.01"), Some(1000))
        .await
        .unwrap();
    b.step(60).await;
    assert_eq!(b.fills("before").await.1, "0", "no fill while halted");
    let cancel = json!({"account_id": b.account, "client_order_id": "to-cancel"});
    assert_eq!(
        b.call(Method::POST, "/trading/orders/cancel", &[], Some(cancel))
            .await
            .status,
        200
    );

    // Frozen: the snapshot and the ticks stand at 09:31.
    assert_eq!(snapshot().await, frozen);
    assert!(newest_tick().await <= halted_at);

    // The window over, the halted order fills and the quotes move again.
    b.step(9 * 60).await;
    let (status, _, executions) = b.fills("before").await;
    assert_eq!(status, "FILLED");
    assert_eq!(executions, strings(&[("10", "380.01")]));
    assert_ne!(snapshot().await, frozen);
    assert!(newest_tick().await >= halted_at + 600_000);
    assert_eq!(b.fills("to-cancel").await.0, "CANCELLED");
    let listed = b.ops.scenarios().list().await.unwrap();
    assert_eq!((listed.rules[0].stage.as_str(), listed.rules[0].hits), ("MARKET", 1));
}

/// A gap moves the next day the simulator plans: it opens that far from the day without the
/// rule, after the same previous close, and trades there.
#[tokio::test]
async fn a_gap_opens_the_next_day_away_from_its_course() {
    let rules = "[[rule]]\nname = \"gap down\"\nwhen = { symbol = \"AAPL\" }\nthen = { gap_percent = -8 }\n";
    let gapped = bench(rules).await;
    let plain = TestServer::start_market("2013-02-25", 2013).await;
    let plain_ops = plain.ops().await;
    // To Tuesday's open, and a minute into it.
    let mut snapshots = Vec::new();
    for (ops, client) in [(&gapped.ops, gapped.server.client()), (&plain_ops, plain.client())] {
        ops.market().step(86_400 + 60).await.unwrap();
        let snapshot = &client.stocks().snapshots(&["AAPL"], false, false).await.unwrap()[0];
        let number = |text: &str| text.parse::<f64>().unwrap();
        snapshots.push((
            number(snapshot.open.as_deref().unwrap()),
            number(&snapshot.pre_close),
            number(&snapshot.price),
        ));
    }
    let ((open, pre_close, price), (plain_open, plain_pre_close, plain_price)) = (snapshots[0], snapshots[1]);
    assert_eq!(pre_close, plain_pre_close, "after the same close");
    assert!((open / plain_open - 0.92).abs() < 0.0005, "{open} against {plain_open}");
    assert!(
        price < plain_price * 0.95,
        "trades there: {price} against {plain_price}"
    );
}

/// A rule on trade-events streams ends the one it matched with UNAVAILABLE after its events,
/// naming itself; `times = 1` leaves the next subscription alone.
#[tokio::test]
async fn a_stream_rule_ends_a_trade_events_subscription_after_its_events() {
    use crate::events::{next, next_order_event, subscribe};
    let rules =
        "[[rule]]\nname = \"events drop\"\nwhen = { stream = \"events\", times = 1 }\nthen = { end_after = 2 }\n";
    let b = bench(rules).await;
    let resting = |id: &str| {
        let mut body = order(&b.account, id, "AAPL", "1");
        body["new_orders"][0]["order_type"] = json!("LIMIT");
        body["new_orders"][0]["limit_price"] = json!("1.00");
        body
    };
    let mut ended = subscribe(&b.server, &[&b.account]).await;
    assert_eq!(
        next(&mut ended).await.unwrap().unwrap().event_type,
        0,
        "SubscribeSuccess"
    );
    let mut kept = subscribe(&b.server, &[&b.account]).await;
    assert_eq!(next(&mut kept).await.unwrap().unwrap().event_type, 0);
    for id in ["e-1", "e-2", "e-3"] {
        assert_eq!(b.place(resting(id)).await.status, 200);
    }
    for id in ["e-1", "e-2"] {
        assert_eq!(next_order_event(&mut ended).await.1["client_order_id"], id);
    }
    let status = loop {
        match next(&mut ended).await {
            Ok(Some(m)) if m.event_type == 1 => continue,
            other => break other.expect_err("ended after two events"),
        }
    };
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
    assert!(status.message().contains("events drop"), "{}", status.message());
    assert_eq!(
        status.metadata().get("x-signet-scenario").map(|v| v.to_str().unwrap()),
        Some("events drop")
    );
    for id in ["e-1", "e-2", "e-3"] {
        assert_eq!(next_order_event(&mut kept).await.1["client_order_id"], id);
    }
    let metrics = scrape_metrics(&b.server.endpoint).await;
    assert_eq!(
        metric(&metrics, "signet_scenario_hits_total", &[("rule", "events drop")]),
        Some(1.0)
    );
}

/// The official client's trade-events client, unmodified, on a subscription a rule ends after
/// one event: its retry policy takes UNAVAILABLE for a reason to subscribe again (5 s later),
/// and the next event arrives on the new subscription.
#[tokio::test]
async fn the_official_events_client_subscribes_again_after_a_rule_ends_its_stream() {
    let Some(python) = crate::common::interpreter("SIGNET_PYTHON") else {
        return;
    };
    let rules =
        "[[rule]]\nname = \"events drop\"\nwhen = { stream = \"events\", times = 1 }\nthen = { end_after = 1 }\n";
    let b = bench(rules).await;
    let mut command = crate::common::python_script(&python, "official_client.py", &b.server, "events-ended");
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let out: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(out["orders"], json!(["pyEnd1", "pyEnd2"]), "{out}");
    assert_eq!(out["connects"], 2, "{out}");
    let after = out["resubscribed_after"].as_f64().unwrap();
    assert!((4.5..10.0).contains(&after), "the client's fixed 5 s: {out}");
}

/// `value` without what differs from run to run by design: the order ids (drawn at random) and
/// the wall-clock times.
fn comparable(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(key, _)| !key.ends_with("order_id") && !key.contains("time"))
                .map(|(key, v)| (key.clone(), comparable(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(comparable).collect()),
        other => other.clone(),
    }
}

/// One run of a sequence of placements, cancels and clock steps against a fresh server: every
/// answer (status, the rule that touched it, its body), then each order's detail, executions
/// and events.
async fn run_the_sequence(rules: &str) -> Vec<Value> {
    let b = bench(rules).await;
    let mut seen = Vec::new();
    let mut ids = Vec::new();
    let record = |answer: &Answer, seen: &mut Vec<Value>| {
        seen.push(json!([
            answer.status.as_u16(),
            rule_header(answer),
            comparable(&answer.body)
        ]));
    };
    let mut place = async |id: &str, symbol: &str, quantity: &str, seen: &mut Vec<Value>| {
        ids.push(id.to_owned());
        let answer = b.place(order(&b.account, id, symbol, quantity)).await;
        record(&answer, seen);
    };
    for i in 0..8 {
        place(&format!("coin-{i}"), "AAPL", "5", &mut seen).await;
    }
    place("slices-1", "AAPL", "30", &mut seen).await;
    place("half-1", "MSFT", "11", &mut seen).await;
    place("flaky-1", "AAPL", "1", &mut seen).await;
    place("flaky-1", "AAPL", "1", &mut seen).await;
    place("big-1", "MSFT", "100", &mut seen).await;
    for seconds in [1, 1, 1, 5] {
        b.step(seconds).await;
        let answer = b
            .call(
                Method::GET,
                "/trading/accounts/balance",
                &[("account_id", &b.account)],
                None,
            )
            .await;
        record(&answer, &mut seen);
    }
    ids.dedup();
    for id in &ids {
        let detail = b.detail(id).await;
        let (executions, events) = match detail.body["orders"][0]["order_id"].as_str() {
            Some(order_id) => (b.fills(id).await.2, b.server.order_events(order_id).await),
            None => (Vec::new(), Vec::new()),
        };
        seen.push(json!([
            id,
            detail.status.as_u16(),
            comparable(&detail.body),
            executions,
            events
        ]));
    }
    seen
}

/// Issue 28's determinism: the same rules, seed and requests on a manual clock give the same
/// answers, fills and events, run after run, on the simulated market (no pinned price).
#[tokio::test]
async fn the_same_rules_and_requests_meet_the_same_outcomes() {
    let rules = format!(
        "{RULES}\n[[rule]]\nname = \"coin\"\nwhen = {{ operation = \"place\", client_order_id_prefix = \"coin-\", probability = 0.5 }}\nthen = {{ status = 502 }}\n"
    );
    let first = run_the_sequence(&rules).await;
    let second = run_the_sequence(&rules).await;
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a, b);
    }
    assert_eq!(first.len(), second.len());
    let coins: Vec<u64> = first[..8].iter().map(|answer| answer[0].as_u64().unwrap()).collect();
    assert!(coins.contains(&502) && coins.contains(&200), "{coins:?}");
    let sliced = first.iter().find(|v| v[0] == "slices-1").unwrap();
    assert_eq!(sliced[3].as_array().map(Vec::len), Some(3), "{sliced}");
    let half = first.iter().find(|v| v[0] == "half-1").unwrap();
    assert_eq!(half[4], json!(["PLACE", "PARTIAL_FILL", "CANCEL"]), "{half}");
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

/// The bot of README's tour and docs/scenarios.md (`examples/unhappy_bot.py`, on the official
/// client) against their rules on a running market: each order is placed once, whatever the
/// gateway did, and ends as the rules say.
#[tokio::test]
async fn the_readme_bot_survives_every_rule() {
    let Some(python) = crate::common::interpreter("SIGNET_PYTHON") else {
        return;
    };
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| {
        c.market.clock = signet_domain::simulator::clock::ClockMode::Running { speed: 60.0 };
    })
    .await;
    server.ops().await.scenarios().load(RULES).await.unwrap();
    let bot = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/unhappy_bot.py");
    // The client writes its log file where it runs.
    let dir = tempfile::tempdir().unwrap();
    let mut command = std::process::Command::new(python);
    command
        .arg(bot)
        .arg(format!("127.0.0.1:{}", server.addr.port()))
        .arg("t")
        .env("SIGNET_APP_KEY", &server.app.app_key)
        .env(
            "SIGNET_APP_SECRET",
            secrecy::ExposeSecret::expose_secret(&server.app.app_secret),
        )
        .current_dir(dir.path());
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The client may print lines of its own: the bot's are JSON objects.
    let outcomes: Vec<Value> = stdout
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let expected = [
        json!({"client_order_id": "slices-t", "placed": "placed", "status": "FILLED", "filled": "30"}),
        json!({"client_order_id": "half-t", "placed": "placed", "status": "CANCELLED", "filled": "5"}),
        json!({"client_order_id": "flaky-t", "placed": "placed", "status": "FILLED", "filled": "1"}),
        json!({"client_order_id": "lost-t", "placed": "placed", "status": "FILLED", "filled": "1"}),
        json!({"client_order_id": "big-t", "placed": "ORDER_REJECTED_BY_SCENARIO", "status": null, "filled": null}),
    ];
    assert_eq!(outcomes, expected, "{stdout}");
    let hits: Vec<(String, i64)> = server
        .ops()
        .await
        .scenarios()
        .list()
        .await
        .unwrap()
        .rules
        .into_iter()
        .map(|r| (r.name, r.hits))
        .collect();
    let hit = |name: &str| hits.iter().find(|(n, _)| n == name).map(|(_, h)| *h);
    assert_eq!(
        hit("flaky gateway"),
        Some(2),
        "the fault, then its retry let through: {hits:?}"
    );
    assert_eq!(hit("lost answer"), Some(1), "looked up, not placed again: {hits:?}");
}

#[tokio::test]
async fn rules_given_at_start_are_in_force() {
    let server = TestServer::start_with(|c| c.scenarios = Some(RULES.to_owned())).await;
    let listed = server.ops().await.scenarios().list().await.unwrap();
    assert_eq!(listed.rules.len(), 6);
}
