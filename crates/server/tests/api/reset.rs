//! Accounts started over (`POST /admin/accounts/reset`, `signet accounts reset`).

use serde_json::{Value, json};
use signet_client::Client;

use crate::common::{TestServer, market_buy, rows};

/// What the account shows: balance, positions, open orders, history, executions, activities.
async fn state_of(client: &Client, account: &str) -> Value {
    let mut state = serde_json::Map::new();
    for path in [
        "/trading/assets/balances/get",
        "/trading/assets/positions/list",
        "/trading/orders/open-orders/list",
        "/trading/orders/historical-orders/list",
        "/trading/orders/executions/list",
        "/trading/activities/cash-activities/list",
    ] {
        let mut query = vec![("account_id", account)];
        if path.contains("/orders/") || path.contains("/activities/") {
            query.push(("page_size", "100"));
        }
        let answer: Value = client.get(path, &query).await.unwrap();
        state.insert(path.to_owned(), answer);
    }
    Value::Object(state)
}

/// Places `body` (a `/trading/orders/place` body) and expects it placed.
async fn place(client: &Client, body: Value) {
    let answer = crate::common::place(client, &body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
}

fn resting(account: &str, id: &str) -> Value {
    let mut body = market_buy(account, id, "AAPL");
    body["new_orders"][0]["order_type"] = json!("LIMIT");
    body["new_orders"][0]["limit_price"] = json!("300");
    body["new_orders"][0]["time_in_force"] = json!("GTC");
    body
}

#[tokio::test]
async fn a_reset_starts_one_account_over_and_leaves_the_others_as_they_were() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let (reset, other) = (&server.app.account_ids[0], &server.app.account_ids[1]);
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(10_000))
        .await
        .unwrap();
    for account in [reset, other] {
        place(&client, market_buy(account, "buy-1", "AAPL")).await;
        place(&client, resting(account, "rest-1")).await;
    }
    ops.market().step(1).await.unwrap();
    let other_before = state_of(&client, other).await;
    let traded = state_of(&client, reset).await;
    assert_eq!(
        traded["/trading/assets/positions/list"][0]["quantity"], "10",
        "{traded}"
    );

    let started_over = ops.accounts().reset(reset, None).await.unwrap();
    assert_eq!(
        (started_over.account_id.as_str(), started_over.cash.as_str()),
        (reset.as_str(), "100000"),
        "its opening cash"
    );
    let now = state_of(&client, reset).await;
    assert_eq!(
        now["/trading/assets/balances/get"]["total_cash_balance"], "100000",
        "{now}"
    );
    for empty in [
        "/trading/assets/positions/list",
        "/trading/orders/executions/list",
        "/trading/orders/open-orders/list",
        "/trading/orders/historical-orders/list",
    ] {
        assert!(rows(&now[empty]).is_empty(), "{empty}: {}", now[empty]);
    }
    let activities = rows(&now["/trading/activities/cash-activities/list"]);
    let kinds: Vec<(&str, &str)> = activities
        .iter()
        .map(|a| (a["activity_type"].as_str().unwrap(), a["amount"].as_str().unwrap()))
        .collect();
    assert_eq!(kinds, [("DEPOSIT", "100000")]);
    assert_eq!(
        state_of(&client, other).await,
        other_before,
        "the other account is untouched"
    );

    // Its client order ids are free again, and a cash given is the cash it starts with.
    place(&client, market_buy(reset, "buy-1", "AAPL")).await;
    let with_cash = ops.accounts().reset(reset, Some("5000.50")).await.unwrap();
    assert_eq!(with_cash.cash, "5000.5");
    let balance = client.accounts().balance(reset).await.unwrap();
    assert_eq!(balance.total_cash_balance, "5000.5");

    // Refusals.
    let bad = ops.accounts().reset(reset, Some("-1")).await.unwrap_err();
    assert_eq!(bad.code(), Some(signet_model::ErrorCode::IllegalParameter), "{bad}");
    let unknown = ops.accounts().reset("NO-SUCH", None).await.unwrap_err();
    assert_eq!(unknown.code(), Some(signet_model::ErrorCode::NotFound), "{unknown}");
    let not_admin = client.accounts().reset(reset, None).await.unwrap_err();
    assert_eq!(
        not_admin.code(),
        Some(signet_model::ErrorCode::PermissionDenied),
        "{not_admin}"
    );
}

/// Placements sent at the moment of a reset: each lands wholly before it (and is removed) or
/// wholly after (and stays, with its fill); the ledger's opening deposit is the cash the reset
/// set, so no fill of a removed order moved the cash after it.
#[tokio::test]
async fn placements_racing_a_reset_land_wholly_before_or_after_it() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = &server.app.account_ids[1];
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(100_000))
        .await
        .unwrap();
    // Four placers, 15 placements each; the reset once 20 are placed, while the rest go on.
    let placed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let placers: Vec<_> = (0..4)
        .map(|placer| {
            let (client, account, placed) = (client.clone(), account.clone(), placed.clone());
            tokio::spawn(async move {
                for i in 0..15 {
                    let mut body = market_buy(&account, &format!("race-{placer}-{i}"), "AAPL");
                    body["new_orders"][0]["quantity"] = json!("1");
                    place(&client, body).await;
                    placed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            })
        })
        .collect();
    while placed.load(std::sync::atomic::Ordering::SeqCst) < 20 {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    // Answered before the reset began: stored before it, so removed by it. (Read after the
    // reset, the count would also hold placements answered while it ran, which may land after.)
    let at_reset = placed.load(std::sync::atomic::Ordering::SeqCst);
    ops.accounts().reset(account, Some("50000")).await.unwrap();
    for placer in placers {
        placer.await.unwrap();
    }
    ops.market().step(2).await.unwrap();
    let state = state_of(&client, account).await;
    let orders = rows(&state["/trading/orders/historical-orders/list"]).len();
    let held: i64 = rows(&state["/trading/assets/positions/list"])
        .iter()
        .map(|p| p["quantity"].as_str().unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(
        held, orders as i64,
        "each order that stayed filled its one share: {state}"
    );
    let deposit: Vec<&Value> = rows(&state["/trading/activities/cash-activities/list"])
        .iter()
        .filter(|a| a["activity_type"] == "DEPOSIT")
        .collect();
    assert_eq!(deposit.len(), 1);
    assert_eq!(deposit[0]["amount"], "50000", "{state}");
    assert!(
        orders <= 60 - at_reset,
        "{orders} kept, {at_reset} answered before the reset began"
    );
    eprintln!("{orders} of 60 placements landed after the reset ({at_reset} answered before it began)");
}
