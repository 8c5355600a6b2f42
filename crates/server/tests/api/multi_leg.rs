//! Multi-leg option orders over signed HTTP, on the real 2013 history: a vertical fills both its
//! legs at once at its net price and shows them in its detail, executions and positions; legs
//! that do not form their strategy, and spreads an account cannot carry, are refused with a code
//! that says why; a credit spread holds back its width and keeps its covering leg from being sold
//! alone; spreads placed at once never claim beyond the buying power; and a vertical held to
//! expiry settles both legs.

use rust_decimal::Decimal;
use serde_json::{Value, json};
use signet_model::options::OptionSnapshot;

use crate::common::{Answer, TestServer, order_detail, post};

fn d(text: &str) -> Decimal {
    text.parse().unwrap_or_else(|_| panic!("a decimal: {text:?}"))
}

async fn quote(server: &TestServer, symbol: &str) -> (Decimal, Decimal) {
    let snaps: Vec<OptionSnapshot> = server
        .client()
        .get(
            "/market-data/options/snapshots/list",
            &[("symbols", symbol), ("category", "US_OPTION")],
        )
        .await
        .unwrap();
    (d(&snaps[0].bid), d(&snaps[0].ask))
}

/// A multi-leg order of AAPL contracts expiring on `expiry`: `legs` are (side, contracts, right,
/// strike); `limit` `None` is a market order.
fn multi(
    id: &str,
    strategy: &str,
    side: &str,
    units: u32,
    limit: Option<&str>,
    expiry: &str,
    legs: &[(&str, u32, &str, &str)],
) -> Value {
    let legs: Vec<Value> = legs
        .iter()
        .map(|&(side, contracts, right, strike)| {
            json!({"side": side, "quantity": contracts.to_string(), "symbol": "AAPL", "strike_price": strike,
                   "option_expire_date": expiry, "instrument_type": "OPTION", "option_type": right,
                   "market": "US"})
        })
        .collect();
    let mut order = json!({
        "client_order_id": id, "combo_type": "NORMAL", "option_strategy": strategy, "side": side,
        "order_type": "MARKET", "quantity": units.to_string(), "time_in_force": "DAY", "entrust_type": "QTY",
        "instrument_type": "OPTION", "market": "US", "symbol": "AAPL", "legs": legs,
    });
    if let Some(limit) = limit {
        order["order_type"] = json!("LIMIT");
        order["limit_price"] = json!(limit);
    }
    order
}

const MARCH: &str = "2013-03-15";

/// A debit call vertical: 2 units bought of the March 450 call, sold of the 460.
fn call_vertical(id: &str, limit: Option<&str>) -> Value {
    multi(
        id,
        "VERTICAL",
        "BUY",
        2,
        limit,
        MARCH,
        &[("BUY", 2, "CALL", "450"), ("SELL", 2, "CALL", "460")],
    )
}

async fn place(server: &TestServer, account: &str, order: Value) -> Answer {
    crate::common::place(&server.client(), json!({"account_id": account, "new_orders": [order]})).await
}

async fn balance(server: &TestServer, account: &str) -> (Decimal, Decimal) {
    let b = server.client().accounts().balance(account).await.unwrap();
    (d(&b.total_cash_balance), d(&b.account_currency_assets[0].buying_power))
}

/// The account's positions: (symbol of the contract or share, quantity).
async fn positions(server: &TestServer, account: &str) -> Vec<(String, Decimal)> {
    let mut held: Vec<(String, Decimal)> = server
        .client()
        .accounts()
        .positions(account)
        .await
        .unwrap()
        .into_iter()
        .map(|p| {
            let symbol = p.legs.first().map_or(p.symbol.clone(), |l| l.symbol.clone());
            (symbol, d(&p.quantity))
        })
        .collect();
    held.sort();
    held
}

fn code(answer: &Answer) -> &str {
    answer.body["error_code"].as_str().unwrap_or("")
}

#[tokio::test]
async fn a_vertical_fills_both_legs_at_once_at_its_net_price() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[1].clone();
    let ((_, long_ask), (short_bid, _)) = (
        quote(&server, "AAPL130315C00450000").await,
        quote(&server, "AAPL130315C00460000").await,
    );
    let net = long_ask - short_bid;
    assert!(
        net > d("1") && net < d("10"),
        "a 10-wide call spread near the money: {net}"
    );
    let (_, power) = balance(&server, &account).await;

    // Below the net it rests, claiming its debit at the limit: twice it, in a margin account.
    let low = (net - d("0.80")).round_dp(2);
    let placed = place(&server, &account, call_vertical("low", Some(&low.to_string()))).await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    let resting = order_detail(&server.client(), &account, "low").await;
    let o = &resting["orders"][0];
    assert_eq!(
        (o["status"].as_str(), o["option_strategy"].as_str()),
        (Some("SUBMITTED"), Some("VERTICAL")),
        "{resting}"
    );
    let legs: Vec<(String, String, String)> = o["legs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["side"].as_str().unwrap().into(),
                l["strike_price"].as_str().unwrap().into(),
                l["quantity"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        legs,
        vec![
            ("BUY".into(), "450".into(), "2".into()),
            ("SELL".into(), "460".into(), "2".into())
        ]
    );
    assert_eq!(balance(&server, &account).await.1, power - low * d("200") * d("2"));
    // Replaced: three units through its legs' quantities (the ids its detail shows), a lower
    // net limit; its claim follows.
    let lower = (low - d("0.25")).round_dp(2);
    let leg_id = o["legs"][1]["id"].as_str().unwrap().to_owned();
    let replace = post(
        &server.client(),
        "/trading/orders/replace",
        &json!({"account_id": account, "modify_orders": [{"client_order_id": "low",
            "limit_price": lower.to_string(), "legs": [{"id": leg_id, "quantity": "3"}]}]}),
    )
    .await;
    assert_eq!(replace.status, 200, "{}", replace.body);
    let replaced = &order_detail(&server.client(), &account, "low").await["orders"][0];
    assert_eq!(
        (
            replaced["total_quantity"].as_str(),
            replaced["legs"][0]["quantity"].as_str()
        ),
        (Some("3"), Some("3")),
        "{replaced}"
    );
    assert_eq!(d(replaced["limit_price"].as_str().unwrap()), lower);
    assert_eq!(balance(&server, &account).await.1, power - lower * d("300") * d("2"));
    // Legs out of their ratio, or a net off the cent, are refused.
    for modify in [
        json!({"client_order_id": "low", "legs": [{"id": leg_id, "quantity": "3"}, {"id": o["legs"][0]["id"], "quantity": "4"}]}),
        json!({"client_order_id": "low", "limit_price": "1.005"}),
    ] {
        let refused = post(
            &server.client(),
            "/trading/orders/replace",
            &json!({"account_id": account, "modify_orders": [modify]}),
        )
        .await;
        assert_eq!(code(&refused), "ILLEGAL_PARAMETER", "{}", refused.body);
    }
    let cancel = post(
        &server.client(),
        "/trading/orders/cancel",
        &json!({"account_id": account, "client_order_id": "low"}),
    )
    .await;
    assert_eq!(cancel.status, 200, "{}", cancel.body);
    assert_eq!(balance(&server, &account).await.1, power);

    let mut events = crate::events::subscribe(&server, &[&account]).await;
    let subscribed = crate::events::next(&mut events).await.unwrap().unwrap();
    assert_eq!(subscribed.event_type, 0, "the subscription's first message");
    let high = (net + d("1")).round_dp(2);
    let placed = place(&server, &account, call_vertical("high", Some(&high.to_string()))).await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    // Its events: placed and filled as an order, then a position event a leg.
    let mut seen = Vec::new();
    while seen.len() < 4 {
        let (m, payload) = crate::events::next_event(&mut events).await;
        if payload["client_order_id"] != "high" {
            continue;
        }
        seen.push(if m.event_type == 1028 {
            format!(
                "{} {}",
                payload["symbol"].as_str().unwrap(),
                payload["quantity"].as_str().unwrap()
            )
        } else {
            payload["scene_type"].as_str().unwrap().to_owned()
        });
    }
    assert_eq!(
        seen,
        [
            "PLACE_SUCCESS",
            "FINAL_FILLED",
            "AAPL130315C00450000 2",
            "AAPL130315C00460000 -2"
        ]
    );
    let filled = order_detail(&server.client(), &account, "high").await;
    let o = &filled["orders"][0];
    assert_eq!(o["status"], "FILLED", "{filled}");
    let long = d(o["legs"][0]["filled_price"].as_str().unwrap());
    let short = d(o["legs"][1]["filled_price"].as_str().unwrap());
    assert_eq!(
        d(o["filled_price"].as_str().unwrap()),
        long - short,
        "the net of one unit"
    );
    assert!(long - short <= high, "within the limit: {long} - {short}");
    assert_eq!(o["filled_quantity"], "2");
    assert_eq!(o["legs"][1]["filled_quantity"], "2");
    assert_eq!(
        positions(&server, &account).await,
        vec![
            ("AAPL130315C00450000".into(), d("2")),
            ("AAPL130315C00460000".into(), d("-2"))
        ]
    );
    // One execution a leg, each of its contract and side.
    let executions: Value = server
        .client()
        .get(
            "/trading/orders/executions/list",
            &[("account_id", account.as_str()), ("client_order_id", "high")],
        )
        .await
        .unwrap();
    let rows = executions["data"]
        .as_array()
        .or(executions.as_array())
        .cloned()
        .unwrap_or_default();
    let mut seen: Vec<(String, String, String)> = rows
        .iter()
        .map(|e| {
            (
                e["symbol"].as_str().unwrap().into(),
                e["side"].as_str().unwrap().into(),
                e["filled_quantity"].as_str().unwrap().into(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            ("AAPL130315C00450000".into(), "BUY".into(), "2".into()),
            ("AAPL130315C00460000".into(), "SELL".into(), "2".into())
        ],
        "{executions}"
    );
    let commission: Decimal = rows.iter().map(|e| d(e["commission"].as_str().unwrap_or("0"))).sum();
    let (cash, _) = balance(&server, &account).await;
    assert_eq!(cash, d("100000") - (long - short) * d("200") - commission);
}

#[tokio::test]
async fn legs_that_do_not_form_their_strategy_and_spreads_an_account_cannot_carry_are_refused() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let (cash_account, margin_account) = (server.app.account_ids[0].clone(), server.app.account_ids[1].clone());
    let both_bought = multi(
        "bad",
        "VERTICAL",
        "BUY",
        1,
        None,
        MARCH,
        &[("BUY", 1, "CALL", "450"), ("BUY", 1, "CALL", "460")],
    );
    let answer = place(&server, &margin_account, both_bought).await;
    assert_eq!(
        (answer.status.as_u16(), code(&answer)),
        (400, "OPTION_STRATEGY_MISMATCH"),
        "{}",
        answer.body
    );
    assert!(
        answer.body["message"].as_str().unwrap().contains("VERTICAL"),
        "{}",
        answer.body
    );
    let straddle = multi(
        "bad2",
        "STRADDLE",
        "BUY",
        1,
        None,
        MARCH,
        &[("BUY", 1, "CALL", "450"), ("BUY", 1, "PUT", "440")],
    );
    assert_eq!(
        code(&place(&server, &margin_account, straddle).await),
        "OPTION_STRATEGY_MISMATCH"
    );
    let mut stop = call_vertical("stop", None);
    stop["order_type"] = json!("STOP_LOSS");
    stop["stop_price"] = json!("5");
    assert_eq!(
        code(&place(&server, &margin_account, stop).await),
        "UNSUPPORTED_ORDER_TYPE"
    );
    let unlisted = multi(
        "far",
        "VERTICAL",
        "BUY",
        1,
        None,
        MARCH,
        &[("BUY", 1, "CALL", "450"), ("SELL", 1, "CALL", "451.5")],
    );
    assert_eq!(
        code(&place(&server, &margin_account, unlisted).await),
        "INSTRUMENT_NOT_FOUND"
    );

    // A CASH account secures each written contract alone: a call needs its shares, a put the
    // cash of its strike.
    let calls = place(&server, &cash_account, call_vertical("calls", None)).await;
    assert_eq!(
        (calls.status.as_u16(), code(&calls)),
        (400, "INSUFFICIENT_POSITION"),
        "{}",
        calls.body
    );
    let puts = multi(
        "puts",
        "VERTICAL",
        "SELL",
        3,
        Some("1.00"),
        MARCH,
        &[("SELL", 3, "PUT", "450"), ("BUY", 3, "PUT", "440")],
    );
    let answer = place(&server, &cash_account, puts.clone()).await;
    assert_eq!(
        code(&answer),
        "INSUFFICIENT_BUYING_POWER",
        "3 × 45,000 of strike: {}",
        answer.body
    );
    // A MARGIN account carries both: the calls bought cover those written.
    for order in [call_vertical("calls", Some("1.00")), puts] {
        let answer = place(&server, &margin_account, order).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
}

#[tokio::test]
async fn a_credit_spread_holds_back_its_width_and_its_covering_leg_is_not_sold_alone() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[1].clone();
    let (_, power) = balance(&server, &account).await;
    let spread = multi(
        "credit",
        "VERTICAL",
        "SELL",
        1,
        None,
        MARCH,
        &[("SELL", 1, "PUT", "450"), ("BUY", 1, "PUT", "440")],
    );
    let placed = place(&server, &account, spread).await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    let o = order_detail(&server.client(), &account, "credit").await["orders"][0].clone();
    assert_eq!(o["status"], "FILLED", "{o}");
    let credit = -d(o["filled_price"].as_str().unwrap());
    assert!(
        credit > Decimal::ZERO && credit < d("10"),
        "a credit below the width: {credit}"
    );
    // The most it can lose, the 1,000 of width less what the fill brought, is held in full:
    // twice it of a margin account's power.
    let (cash, after) = balance(&server, &account).await;
    let brought = cash - d("100000");
    assert!(brought > Decimal::ZERO && brought <= credit * d("100"), "{brought}");
    assert_eq!(power - after, d("2") * (d("1000") - brought));
    // The put bought covers the one written: it is not sold alone.
    let single = |id: &str, side: &str, strike: &str| {
        json!({"client_order_id": id, "combo_type": "NORMAL", "option_strategy": "SINGLE", "side": side,
               "order_type": "MARKET", "quantity": "1", "time_in_force": "DAY", "instrument_type": "OPTION",
               "legs": [{"side": side, "quantity": "1", "symbol": "AAPL", "strike_price": strike,
                         "option_expire_date": MARCH, "instrument_type": "OPTION", "option_type": "PUT"}]})
    };
    let alone = place(&server, &account, single("sell-long", "SELL", "440")).await;
    assert_eq!(
        (alone.status.as_u16(), code(&alone)),
        (400, "INSUFFICIENT_POSITION"),
        "{}",
        alone.body
    );
    // Buying the written put back is always allowed; then the other is free to sell.
    assert_eq!(
        place(&server, &account, single("buy-back", "BUY", "450")).await.status,
        200
    );
    ops.market().step(1).await.unwrap();
    let sold = place(&server, &account, single("sell-long2", "SELL", "440")).await;
    assert_eq!(sold.status, 200, "{}", sold.body);
    ops.market().step(1).await.unwrap();
    assert_eq!(positions(&server, &account).await, Vec::new());
}

/// Twenty credit spreads of 10 units at once: each needs about 2,000 of a margin account's
/// 200,000 of buying power (its 10,000 of width less the 9,000 of credit at its limit, in full)
/// but claims its width while it rests, not counting on a credit it may never get (20,000):
/// exactly ten are taken, and no buying power is left.
#[tokio::test]
async fn spreads_placed_at_once_never_claim_beyond_the_buying_power() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let account = server.app.account_ids[1].clone();
    let orders = (0..20)
        .map(|n| {
            // A credit of 9 on a spread 10 wide: it rests.
            multi(
                &format!("s{n}"),
                "VERTICAL",
                "SELL",
                10,
                Some("9.00"),
                MARCH,
                &[("SELL", 10, "PUT", "450"), ("BUY", 10, "PUT", "440")],
            )
        })
        .collect();
    let answers = crate::common::place_together(&server.client(), &account, orders).await;
    let taken = answers.iter().filter(|a| a.status == 200).count();
    for refused in answers.iter().filter(|a| a.status != 200) {
        assert_eq!(code(refused), "INSUFFICIENT_BUYING_POWER", "{}", refused.body);
    }
    assert_eq!(taken, 10, "{answers:?}");
    assert_eq!(balance(&server, &account).await.1, Decimal::ZERO);
}

#[tokio::test]
async fn a_vertical_held_to_expiry_settles_both_legs() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[1].clone();
    // The weekly expiring 2013-03-01, both calls deep in the money.
    let spread = multi(
        "deep",
        "VERTICAL",
        "BUY",
        1,
        None,
        "2013-03-01",
        &[("BUY", 1, "CALL", "300"), ("SELL", 1, "CALL", "310")],
    );
    let placed = place(&server, &account, spread).await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    assert_eq!(
        order_detail(&server.client(), &account, "deep").await["orders"][0]["status"],
        "FILLED"
    );
    let (cash, _) = balance(&server, &account).await;
    ops.market().step(5 * 86_400).await.unwrap();
    // Bought 100 at 300, delivered 100 at 310: the spread's width in cash, no position left.
    assert_eq!(positions(&server, &account).await, Vec::new());
    assert_eq!(balance(&server, &account).await.0, cash + d("1000"));
}

/// A COVERED_STOCK of `units` units (`side` BUY: 100 AAPL shares a unit bought and the March
/// call at `strike` sold; SELL: the reverse) at a net `limit` per share.
fn covered_stock(id: &str, side: &str, units: u32, limit: Option<&str>, strike: &str) -> Value {
    let call_side = if side == "BUY" { "SELL" } else { "BUY" };
    let mut order = multi(
        id,
        "COVERED_STOCK",
        side,
        units,
        limit,
        MARCH,
        &[(call_side, units, "CALL", strike)],
    );
    let shares = json!({"side": side, "quantity": (100 * units).to_string(), "symbol": "AAPL",
                        "instrument_type": "EQUITY", "market": "US"});
    order["legs"].as_array_mut().unwrap().insert(0, shares);
    order
}

/// A buy-write in a CASH account: the shares and the call sold fill at once at the net of the
/// stock's ask less the call's bid, the call is covered by the shares it bought (which are then
/// not sold alone), and the reverse order unwinds both; without the cash it is refused, and a
/// collar (shares, a put bought below, a call sold above) fills its three legs.
#[tokio::test]
async fn a_covered_stock_buys_the_shares_and_writes_the_call_at_once() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let (cash_account, margin_account) = (server.app.account_ids[0].clone(), server.app.account_ids[1].clone());
    let stock = &server
        .client()
        .stocks()
        .snapshots(&["AAPL"], false, false)
        .await
        .unwrap()[0];
    let (call_bid, _) = quote(&server, "AAPL130315C00460000").await;
    let net = d(&stock.ask) - call_bid;

    // Two units need about twice 44,000: more than the CASH account's 100,000 allows for three.
    let three = place(&server, &cash_account, covered_stock("cs3", "BUY", 3, None, "460")).await;
    assert_eq!(code(&three), "INSUFFICIENT_BUYING_POWER", "{}", three.body);
    let placed = place(
        &server,
        &cash_account,
        covered_stock("cs", "BUY", 2, Some(&(net + d("1")).round_dp(2).to_string()), "460"),
    )
    .await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    let filled = order_detail(&server.client(), &cash_account, "cs").await;
    let o = &filled["orders"][0];
    assert_eq!(
        (o["status"].as_str(), o["option_strategy"].as_str()),
        (Some("FILLED"), Some("COVERED_STOCK")),
        "{filled}"
    );
    assert_eq!(
        (
            o["legs"][0]["instrument_type"].as_str(),
            o["legs"][0]["quantity"].as_str(),
            o["legs"][1]["option_symbol"].as_str()
        ),
        (Some("EQUITY"), Some("200"), Some("AAPL130315C00460000")),
        "{o}"
    );
    let shares_price = d(o["legs"][0]["filled_price"].as_str().unwrap());
    let call_price = d(o["legs"][1]["filled_price"].as_str().unwrap());
    assert_eq!(d(o["filled_price"].as_str().unwrap()), shares_price - call_price);
    assert_eq!(
        positions(&server, &cash_account).await,
        vec![("AAPL".into(), d("200")), ("AAPL130315C00460000".into(), d("-2"))]
    );
    let (cash, _) = balance(&server, &cash_account).await;
    assert_eq!(cash, d("100000") - (shares_price - call_price) * d("200"));
    // The shares cover the calls: not sold alone.
    let mut sell = json!({
        "client_order_id": "sell-shares", "combo_type": "NORMAL", "symbol": "AAPL", "side": "SELL",
        "order_type": "MARKET", "time_in_force": "DAY", "entrust_type": "QTY", "quantity": "1",
        "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE"
    });
    assert_eq!(
        code(&place(&server, &cash_account, sell.clone()).await),
        "INSUFFICIENT_POSITION"
    );

    // Unwound together: the shares sold, the calls bought back.
    let unwind = place(&server, &cash_account, covered_stock("cs-out", "SELL", 2, None, "460")).await;
    assert_eq!(unwind.status, 200, "{}", unwind.body);
    ops.market().step(1).await.unwrap();
    assert_eq!(
        order_detail(&server.client(), &cash_account, "cs-out").await["orders"][0]["status"],
        "FILLED"
    );
    assert_eq!(positions(&server, &cash_account).await, vec![]);
    sell["client_order_id"] = json!("sell-more");
    assert_eq!(
        code(&place(&server, &cash_account, sell).await),
        "INSUFFICIENT_POSITION"
    );
    // Unwinding shares it does not hold is refused.
    let none = place(&server, &cash_account, covered_stock("cs-none", "SELL", 1, None, "460")).await;
    assert_eq!(code(&none), "INSUFFICIENT_POSITION", "{}", none.body);

    // A collar: 100 shares, the 430 put bought, the 470 call sold.
    let mut collar = multi(
        "collar",
        "COLLAR_WITH_STOCK",
        "BUY",
        1,
        None,
        MARCH,
        &[("BUY", 1, "PUT", "430"), ("SELL", 1, "CALL", "470")],
    );
    collar["legs"].as_array_mut().unwrap().insert(
        0,
        json!({"side": "BUY", "quantity": "100", "symbol": "AAPL", "instrument_type": "EQUITY", "market": "US"}),
    );
    let placed = place(&server, &margin_account, collar).await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    assert_eq!(
        positions(&server, &margin_account).await,
        vec![
            ("AAPL".into(), d("100")),
            ("AAPL130315C00470000".into(), d("-1")),
            ("AAPL130315P00430000".into(), d("1"))
        ]
    );
}

/// Scenario rules shape multi-leg fills as they shape single ones: half of a vertical fills and
/// the rest is cancelled; another fills with its legs slipped against it (the call bought
/// dearer, the call sold cheaper); a third never fills.
#[tokio::test]
async fn scenario_rules_shape_a_multi_leg_orders_fills() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let rules = "[[rule]]\nname = \"half\"\nwhen = { client_order_id_prefix = \"half-\" }\nthen = { fill = \"partial\", ratio = 0.5, then = \"cancel\" }\n\
        [[rule]]\nname = \"slip\"\nwhen = { client_order_id_prefix = \"slip-\" }\nthen = { slippage_bps = 100 }\n\
        [[rule]]\nname = \"stuck\"\nwhen = { client_order_id_prefix = \"stuck-\" }\nthen = { fill = \"never\" }\n";
    ops.scenarios().load(rules).await.expect("the rules load");
    let account = server.app.account_ids[1].clone();
    let ((_, long_ask), (short_bid, _)) = (
        quote(&server, "AAPL130315C00450000").await,
        quote(&server, "AAPL130315C00460000").await,
    );
    for (id, units) in [("half-1", 2), ("slip-1", 1), ("stuck-1", 1)] {
        let order = multi(
            id,
            "VERTICAL",
            "BUY",
            units,
            None,
            MARCH,
            &[("BUY", units, "CALL", "450"), ("SELL", units, "CALL", "460")],
        );
        let placed = place(&server, &account, order).await;
        assert_eq!(placed.status, 200, "{id}: {}", placed.body);
    }
    ops.market().step(1).await.unwrap();
    let order = |id: &'static str| {
        let server = &server;
        let account = account.clone();
        async move { order_detail(&server.client(), &account, id).await["orders"][0].clone() }
    };
    let half = order("half-1").await;
    assert_eq!(
        (half["status"].as_str(), half["filled_quantity"].as_str()),
        (Some("CANCELLED"), Some("1")),
        "{half}"
    );
    let slip = order("slip-1").await;
    assert_eq!(slip["status"], "FILLED", "{slip}");
    let (long, short) = (
        d(slip["legs"][0]["filled_price"].as_str().unwrap()),
        d(slip["legs"][1]["filled_price"].as_str().unwrap()),
    );
    // 1 % against each leg: up to the cent above for the call bought, below for the one sold.
    assert_eq!(
        long,
        (long_ask * d("1.01")).round_dp_with_strategy(2, rust_decimal::RoundingStrategy::AwayFromZero)
    );
    assert_eq!(
        short,
        (short_bid * d("0.99")).round_dp_with_strategy(2, rust_decimal::RoundingStrategy::ToZero)
    );
    let stuck = order("stuck-1").await;
    assert_eq!(
        (stuck["status"].as_str(), stuck["filled_quantity"].as_str()),
        (Some("SUBMITTED"), Some("0"))
    );
}
