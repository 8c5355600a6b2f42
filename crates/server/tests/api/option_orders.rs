//! Single-leg option orders over signed HTTP, on the real 2013 history: a call bought at its ask
//! and sold at its bid moves 100 times its premium a contract through the cash, is held as
//! contracts valued at their mid, and counts in the buying power as options are counted (paid in
//! full, twice their cost of a margin account's power); the client's option order paths place,
//! replace by leg and cancel; and what the broker refuses is refused, with a code that says why.

use rust_decimal::Decimal;
use serde_json::{Value, json};
use signet_model::options::OptionSnapshot;

use signet_client::ActivityFilter;

use crate::common::{Answer, TestServer, order_detail, place_together, post};

/// AAPL's March call at 450 (AAPL closed at 450.81 the Friday before 2013-02-25).
const CALL: &str = "AAPL130315C00450000";

fn d(text: &str) -> Decimal {
    text.parse().unwrap_or_else(|_| panic!("a decimal: {text:?}"))
}

async fn snapshot(server: &TestServer, symbol: &str) -> OptionSnapshot {
    let mut snaps: Vec<OptionSnapshot> = server
        .client()
        .get(
            "/market-data/options/snapshots/list",
            &[("symbols", symbol), ("category", "US_OPTION")],
        )
        .await
        .unwrap();
    snaps.remove(0)
}

/// One option order of the published examples: `quantity` contracts of AAPL's `right` at
/// `strike` expiring 2013-03-15.
fn option_order(id: &str, side: &str, quantity: &str, limit: Option<&str>, strike: &str, right: &str) -> Value {
    let mut order = json!({
        "client_order_id": id, "combo_type": "NORMAL", "order_type": "MARKET", "quantity": quantity,
        "option_strategy": "SINGLE", "side": side, "time_in_force": "DAY", "entrust_type": "QTY",
        "instrument_type": "OPTION", "market": "US", "symbol": "AAPL",
        "legs": [{"side": side, "quantity": quantity, "symbol": "AAPL", "strike_price": strike,
                  "option_expire_date": "2013-03-15", "instrument_type": "OPTION", "option_type": right,
                  "market": "US"}]
    });
    if let Some(limit) = limit {
        order["order_type"] = json!("LIMIT");
        order["limit_price"] = json!(limit);
    }
    order
}

async fn place_at(server: &TestServer, path: &str, account: &str, order: Value) -> Answer {
    post(
        &server.client(),
        path,
        &json!({"account_id": account, "new_orders": [order]}),
    )
    .await
}

async fn balance(server: &TestServer, account: &str) -> (Decimal, Decimal, Decimal) {
    let b = server.client().accounts().balance(account).await.unwrap();
    (
        d(&b.total_cash_balance),
        d(&b.total_market_value),
        d(&b.account_currency_assets[0].buying_power),
    )
}

#[tokio::test]
async fn a_call_bought_and_sold_moves_a_hundred_times_its_premium_and_is_held_as_contracts() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[0].clone();
    let quote = snapshot(&server, CALL).await;
    let ask = d(&quote.ask);
    assert!(ask > d("5"), "an at-the-money call three weeks out: {ask}");

    // Bought through the client's option path, at a limit of the ask.
    let placed = place_at(
        &server,
        "/openapi/trade/option/order/place",
        &account,
        option_order("buy1", "BUY", "2", Some(&quote.ask), "450", "CALL"),
    )
    .await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    let bought = order_detail(&server.client(), &account, "buy1").await;
    let o = &bought["orders"][0];
    assert_eq!(o["status"], "FILLED", "{bought}");
    assert_eq!(
        (o["instrument_type"].as_str(), o["symbol"].as_str()),
        (Some("OPTION"), Some("AAPL"))
    );
    assert_eq!(o["option_strategy"], "SINGLE");
    let leg = &o["legs"][0];
    assert_eq!(
        (
            leg["option_type"].as_str(),
            leg["strike_price"].as_str(),
            leg["option_expire_date"].as_str(),
            leg["option_contract_multiplier"].as_str(),
            leg["filled_quantity"].as_str(),
            leg["option_symbol"].as_str(),
        ),
        (
            Some("CALL"),
            Some("450"),
            Some("2013-03-15"),
            Some("100"),
            Some("2"),
            Some(CALL)
        )
    );
    let paid = d(o["filled_price"].as_str().unwrap());
    assert!(paid <= ask, "filled at the ask or better: {paid} > {ask}");

    let (cash, market_value, power) = balance(&server, &account).await;
    assert_eq!(
        cash,
        d("100000") - paid * d("200"),
        "2 contracts of 100 shares at {paid}"
    );
    assert_eq!(power, cash, "a CASH account's buying power is its cash");
    let positions = server.client().accounts().positions(&account).await.unwrap();
    assert_eq!(positions.len(), 1);
    let p = &positions[0];
    assert_eq!(
        (p.instrument_type.as_str(), p.symbol.as_str(), p.quantity.as_str()),
        ("OPTION", "AAPL", "2")
    );
    assert_eq!(
        (p.legs[0].symbol.as_str(), p.legs[0].option_type.as_str()),
        (CALL, "CALL")
    );
    assert_eq!(d(&p.cost_price), paid, "cost per share of premium");
    let now = snapshot(&server, CALL).await;
    let mid = (d(&now.bid) + d(&now.ask)) / d("2");
    assert_eq!(d(&p.last_price), mid, "valued at the mid");
    assert_eq!(d(&p.market_value), mid * d("200"));
    assert_eq!(market_value, mid * d("200"));

    // Sold at the market on the current path, with its legs.
    let sold = place_at(
        &server,
        "/trading/orders/place",
        &account,
        option_order("sell1", "SELL", "2", None, "450", "CALL"),
    )
    .await;
    assert_eq!(sold.status, 200, "{}", sold.body);
    let bid = d(&snapshot(&server, CALL).await.bid);
    ops.market().step(1).await.unwrap();
    let o = order_detail(&server.client(), &account, "sell1").await["orders"][0].clone();
    assert_eq!(o["status"], "FILLED", "{o}");
    let received = d(o["filled_price"].as_str().unwrap());
    assert!(
        (received - bid).abs() <= d("0.10"),
        "at the bid of the moment: {received} vs {bid}"
    );
    let (cash_after, market_value, _) = balance(&server, &account).await;
    assert_eq!(cash_after, cash + received * d("200"));
    assert_eq!(market_value, Decimal::ZERO);
    // Sold again: none are held, and a call written needs the shares to cover it.
    let again = place_at(
        &server,
        "/trading/orders/place",
        &account,
        option_order("sell2", "SELL", "1", None, "450", "CALL"),
    )
    .await;
    again.assert_error(400, "INSUFFICIENT_POSITION");
}

#[tokio::test]
async fn an_open_option_order_claims_its_premium_is_replaced_by_its_leg_and_cancelled() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let account = server.app.account_ids[0].clone();
    // A bid of 1.00 for a call worth about 15: it rests.
    let placed = place_at(
        &server,
        "/openapi/trade/option/order/place",
        &account,
        option_order("rest1", "BUY", "2", Some("1.00"), "450", "CALL"),
    )
    .await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    let (_, _, power) = balance(&server, &account).await;
    assert_eq!(power, d("100000") - d("200"), "2 contracts at 1.00 held back");

    let leg_id = order_detail(&server.client(), &account, "rest1").await["orders"][0]["legs"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let replaced = post(
        &server.client(),
        "/openapi/trade/option/order/replace",
        &json!({"account_id": account, "modify_orders": [
            {"client_order_id": "rest1", "limit_price": "1.05", "legs": [{"id": leg_id, "quantity": "3"}]}
        ]}),
    )
    .await;
    assert_eq!(replaced.status, 200, "{}", replaced.body);
    let o = order_detail(&server.client(), &account, "rest1").await["orders"][0].clone();
    assert_eq!(
        (o["total_quantity"].as_str(), o["limit_price"].as_str()),
        (Some("3"), Some("1.05"))
    );
    let (_, _, power) = balance(&server, &account).await;
    assert_eq!(power, d("100000") - d("315"));

    // Above $3 a premium trades in nickels, below in cents (AAPL is in the penny program).
    let off_tick = post(
        &server.client(),
        "/openapi/trade/option/order/replace",
        &json!({"account_id": account, "modify_orders": [{"client_order_id": "rest1", "limit_price": "3.52"}]}),
    )
    .await;
    off_tick.assert_error(400, "ILLEGAL_PARAMETER");
    let wrong_leg = post(
        &server.client(),
        "/openapi/trade/option/order/replace",
        &json!({"account_id": account, "modify_orders": [
            {"client_order_id": "rest1", "legs": [{"id": "NOT-THE-LEG", "quantity": "4"}]}
        ]}),
    )
    .await;
    wrong_leg.assert_error(400, "ILLEGAL_PARAMETER");

    let cancelled = post(
        &server.client(),
        "/openapi/trade/option/order/cancel",
        &json!({"account_id": account, "client_order_id": "rest1"}),
    )
    .await;
    assert_eq!(cancelled.status, 200, "{}", cancelled.body);
    assert_eq!(
        order_detail(&server.client(), &account, "rest1").await["orders"][0]["status"],
        "CANCELLED"
    );
    assert_eq!(balance(&server, &account).await.2, d("100000"));
}

#[tokio::test]
async fn option_orders_the_broker_would_refuse_are_refused_with_their_reason() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let (cash_account, margin_account) = (server.app.account_ids[0].clone(), server.app.account_ids[1].clone());
    let place = |account: &str, order: Value| {
        let account = account.to_owned();
        let server = &server;
        async move { place_at(server, "/trading/orders/place", &account, order).await }
    };
    let refused = |order: Value, code: &'static str| {
        let place = &place;
        let account = cash_account.clone();
        async move {
            place(&account, order).await.assert_error(400, code);
        }
    };
    // A strategy of one leg, one without its leg of shares, trailing stops, extended hours,
    // amounts.
    let mut vertical = option_order("v", "BUY", "1", Some("5.00"), "450", "CALL");
    vertical["option_strategy"] = json!("VERTICAL");
    refused(vertical, "ILLEGAL_PARAMETER").await;
    let mut covered = option_order("cs", "SELL", "1", Some("5.00"), "450", "CALL");
    covered["option_strategy"] = json!("COVERED_STOCK");
    refused(covered, "ILLEGAL_PARAMETER").await;
    let mut trailing = option_order("t", "SELL", "1", None, "450", "CALL");
    trailing["order_type"] = json!("TRAILING_STOP_LOSS");
    refused(trailing, "UNSUPPORTED_ORDER_TYPE").await;
    let mut ioc = option_order("i", "BUY", "1", Some("5.00"), "450", "CALL");
    ioc["time_in_force"] = json!("IOC");
    refused(ioc, "UNSUPPORTED_TIME_IN_FORCE").await;
    let mut extended = option_order("x", "BUY", "1", Some("5.00"), "450", "CALL");
    extended["support_trading_session"] = json!("ALL");
    refused(extended, "ILLEGAL_PARAMETER").await;
    // Legs that disagree with the order, part contracts, a price off the tick.
    let mut other_side = option_order("s", "BUY", "1", Some("5.00"), "450", "CALL");
    other_side["legs"][0]["side"] = json!("SELL");
    refused(other_side, "ILLEGAL_PARAMETER").await;
    refused(
        option_order("q", "BUY", "1.5", Some("5.00"), "450", "CALL"),
        "ILLEGAL_PARAMETER",
    )
    .await;
    refused(
        option_order("k", "BUY", "1", Some("5.03"), "450", "CALL"),
        "ILLEGAL_PARAMETER",
    )
    .await;
    let mut two_legs = option_order("l", "BUY", "1", Some("5.00"), "450", "CALL");
    two_legs["legs"] = json!([two_legs["legs"][0], two_legs["legs"][0]]);
    refused(two_legs, "ILLEGAL_PARAMETER").await;
    // A strike not listed (they go by $10 around 450) and a day that is no expiry.
    place(
        &cash_account,
        option_order("n", "BUY", "1", Some("5.00"), "455", "CALL"),
    )
    .await
    .assert_error(404, "INSTRUMENT_NOT_FOUND");
    let mut not_friday = option_order("f", "BUY", "1", Some("5.00"), "450", "CALL");
    not_friday["legs"][0]["option_expire_date"] = json!("2013-03-14");
    place(&cash_account, not_friday)
        .await
        .assert_error(404, "INSTRUMENT_NOT_FOUND");
    // Options in a combination or a batch.
    let mut oto = option_order("c", "BUY", "1", Some("5.00"), "450", "CALL");
    oto["combo_type"] = json!("OTO");
    refused(oto, "UNSUPPORTED_COMBO_TYPE").await;
    post(&server.client(),
        "/trading/orders/batch-place",
        &json!({"account_id": cash_account, "batch_orders": [option_order("b", "BUY", "1", Some("5.00"), "450", "CALL")]}),
    )
    .await
    .assert_error(400, "UNSUPPORTED_INSTRUMENT_TYPE");

    // Options are paid in full: 60 contracts of a deep call cost more than 100,000 of cash, and
    // of a margin account's 200,000 of buying power they take twice their cost.
    let deep = snapshot(&server, "AAPL130315C00300000").await;
    let ask = d(&deep.ask);
    let contracts = (d("110000") / (ask * d("100"))).ceil();
    let cost = contracts * ask * d("100");
    assert!(cost > d("100000") && cost < d("200000"), "{cost}");
    let big = |id: &str| option_order(id, "BUY", &contracts.to_string(), Some(&deep.ask), "300", "CALL");
    place(&cash_account, big("big1"))
        .await
        .assert_error(400, "INSUFFICIENT_BUYING_POWER");
    place(&margin_account, big("big2"))
        .await
        .assert_error(400, "INSUFFICIENT_BUYING_POWER");
    // The same money in shares fits the margin account (Reg T: half of it).
    let shares = json!({
        "client_order_id": "shares1", "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
        "order_type": "LIMIT", "limit_price": "455", "time_in_force": "DAY", "entrust_type": "QTY",
        "quantity": (cost / d("455")).floor().to_string(), "instrument_type": "EQUITY", "market": "US",
        "support_trading_session": "CORE"
    });
    let fits = place(&margin_account, shares).await;
    assert_eq!(fits.status, 200, "{}", fits.body);
    // Half the contracts fit the margin account.
    let half = option_order(
        "half",
        "BUY",
        &(contracts / d("4")).floor().to_string(),
        Some(&deep.ask),
        "300",
        "CALL",
    );
    let (_, _, power) = balance(&server, &margin_account).await;
    let placed = place(&margin_account, half).await;
    assert_eq!(placed.status, 200, "{} (buying power {power})", placed.body);
}

/// Across the expiry of the 2013-03-01 weekly (AAPL closed at 430.47 that Friday): the call at 300
/// held becomes 100 shares bought at 300, the call at 600 expires worthless and its resting sell
/// is cancelled; the ledger tells both.
#[tokio::test]
async fn at_expiry_a_call_in_the_money_becomes_shares_and_one_out_of_it_disappears() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[0].clone();
    let weekly = |id: &str, side: &str, limit: Option<&str>, strike: &str| {
        let mut order = option_order(id, side, "1", limit, strike, "CALL");
        order["legs"][0]["option_expire_date"] = json!("2013-03-01");
        order
    };
    for (id, strike) in [("deep", "300"), ("far", "600")] {
        let placed = place_at(
            &server,
            "/trading/orders/place",
            &account,
            weekly(id, "BUY", None, strike),
        )
        .await;
        assert_eq!(placed.status, 200, "{}", placed.body);
    }
    ops.market().step(1).await.unwrap();
    let mut paid = Vec::new();
    for id in ["deep", "far"] {
        let o = order_detail(&server.client(), &account, id).await["orders"][0].clone();
        assert_eq!(o["status"], "FILLED", "{o}");
        paid.push(d(o["filled_price"].as_str().unwrap()));
    }
    let resting = place_at(&server, "/trading/orders/place", &account, {
        let mut o = weekly("far-sell", "SELL", Some("50.00"), "600");
        o["time_in_force"] = json!("GTC");
        o
    })
    .await;
    assert_eq!(resting.status, 200, "{}", resting.body);
    let (cash_before, _, _) = balance(&server, &account).await;
    assert_eq!(cash_before, d("100000") - (paid[0] + paid[1]) * d("100"));

    // Past Friday's close, into Saturday.
    ops.market().step(5 * 86_400).await.unwrap();
    let positions = server.client().accounts().positions(&account).await.unwrap();
    assert_eq!(positions.len(), 1, "{positions:?}");
    let shares = &positions[0];
    assert_eq!(
        (
            shares.instrument_type.as_str(),
            shares.symbol.as_str(),
            shares.quantity.as_str()
        ),
        ("EQUITY", "AAPL", "100")
    );
    assert_eq!(d(&shares.cost_price), d("300"), "bought at the strike");
    let (cash, _, _) = balance(&server, &account).await;
    assert_eq!(cash, cash_before - d("30000"));
    let sell = order_detail(&server.client(), &account, "far-sell").await["orders"][0].clone();
    assert_eq!(
        (sell["status"].as_str(), sell["reason"].as_str()),
        (Some("CANCELLED"), Some("cancelled: the contract expired"))
    );

    let filter = ActivityFilter {
        activity_types: Some("OPTION_EXERCISE,OPTION_EXPIRE"),
        ..ActivityFilter::default()
    };
    let ledger = server
        .client()
        .accounts()
        .cash_activities(&account, &filter)
        .await
        .unwrap();
    let mut seen: Vec<(String, Decimal, Option<String>)> = ledger
        .data
        .iter()
        .map(|a| (a.activity_type.clone(), d(&a.amount), a.symbol.clone()))
        .collect();
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        seen,
        vec![
            (
                "OPTION_EXERCISE".to_owned(),
                d("-30000"),
                Some("AAPL130301C00300000".to_owned())
            ),
            (
                "OPTION_EXPIRE".to_owned(),
                Decimal::ZERO,
                Some("AAPL130301C00600000".to_owned())
            ),
        ]
    );
    // Settled once: stepping on changes nothing.
    ops.market().step(86_400).await.unwrap();
    assert_eq!(balance(&server, &account).await.0, cash);
}

/// Twenty option buys at once in each account, each claiming 10,000 USD of premium: the CASH
/// account's 100,000 takes exactly ten, and the MARGIN account's 200,000 of buying power takes
/// ten too, options taking twice their cost of it; the buying power left is what the open
/// orders leave.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn option_buys_at_once_never_claim_beyond_the_buying_power() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    for account in server.app.account_ids.clone() {
        // A bid of 10.00 for a call asked about 15 rests: 10 contracts claim 10,000.
        let orders = (0..20)
            .map(|n| option_order(&format!("many-{n}"), "BUY", "10", Some("10.00"), "450", "CALL"))
            .collect();
        let answers = place_together(&server.client(), &account, orders).await;
        let accepted = answers.iter().filter(|a| a.status == 200).count();
        for refused in answers.iter().filter(|a| a.status != 200) {
            refused.assert_error(400, "INSUFFICIENT_BUYING_POWER");
        }
        assert_eq!(accepted, 10, "{account}");
        assert_eq!(balance(&server, &account).await.2, Decimal::ZERO, "{account}");
    }
}

fn shares_order(id: &str, side: &str) -> Value {
    json!({
        "client_order_id": id, "combo_type": "NORMAL", "symbol": "AAPL", "side": side,
        "order_type": "MARKET", "time_in_force": "DAY", "entrust_type": "QTY", "quantity": "100",
        "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE"
    })
}

/// Writing: a put secured by the cash its shares would cost, a call covered by shares held;
/// what secures them stays held back while they are written, and is free again once they are
/// bought back.
#[tokio::test]
async fn a_put_is_written_against_cash_and_a_call_against_shares() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[0].clone();
    let place = |order: Value| place_at(&server, "/trading/orders/place", &account, order);
    let put_bid = d(&snapshot(&server, "AAPL130315P00450000").await.bid);
    let placed = place_at(
        &server,
        "/openapi/trade/option/order/place",
        &account,
        option_order("put1", "SELL", "1", None, "450", "PUT"),
    )
    .await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    let o = order_detail(&server.client(), &account, "put1").await["orders"][0].clone();
    assert_eq!(
        (o["status"].as_str(), o["position_intent"].as_str()),
        (Some("FILLED"), Some("SELL_TO_OPEN"))
    );
    let received = d(o["filled_price"].as_str().unwrap());
    assert!((received - put_bid).abs() <= d("0.10"), "{received} vs {put_bid}");
    let (cash, market_value, power) = balance(&server, &account).await;
    assert_eq!(cash, d("100000") + received * d("100"));
    assert!(
        market_value < Decimal::ZERO,
        "a written put is a liability: {market_value}"
    );
    assert_eq!(power, cash - d("45000"), "450 × 100 held back");
    let positions = server.client().accounts().positions(&account).await.unwrap();
    assert_eq!(positions[0].quantity, "-1");
    // A second put fits what is left; a third does not.
    let second = place(option_order("put2", "SELL", "1", Some("30.00"), "450", "PUT")).await;
    assert_eq!(second.status, 200, "{}", second.body);
    place(option_order("put3", "SELL", "1", Some("30.00"), "450", "PUT"))
        .await
        .assert_error(400, "INSUFFICIENT_BUYING_POWER");
    // A call written needs shares: 100 bought cover one contract, and are then not sold again.
    place(option_order("call0", "SELL", "1", None, "450", "CALL"))
        .await
        .assert_error(400, "INSUFFICIENT_POSITION");
    // The resting put's 45,000 would leave too little for the shares.
    let cancelled = post(
        &server.client(),
        "/trading/orders/cancel",
        &json!({"account_id": account, "client_order_id": "put2"}),
    )
    .await;
    assert_eq!(cancelled.status, 200, "{}", cancelled.body);
    assert_eq!(place(shares_order("aapl", "BUY")).await.status, 200);
    ops.market().step(1).await.unwrap();
    let call = place(option_order("call1", "SELL", "1", None, "450", "CALL")).await;
    assert_eq!(call.status, 200, "{}", call.body);
    ops.market().step(1).await.unwrap();
    assert_eq!(
        order_detail(&server.client(), &account, "call1").await["orders"][0]["status"],
        "FILLED"
    );
    place(option_order("call2", "SELL", "1", None, "450", "CALL"))
        .await
        .assert_error(400, "INSUFFICIENT_POSITION");
    place(shares_order("aapl-out", "SELL"))
        .await
        .assert_error(400, "INSUFFICIENT_POSITION");
    // Bought back, the put frees its cash.
    let (_, _, before) = balance(&server, &account).await;
    let back = place(option_order("back", "BUY", "1", None, "450", "PUT")).await;
    assert_eq!(back.status, 200, "{}", back.body);
    ops.market().step(1).await.unwrap();
    let o = order_detail(&server.client(), &account, "back").await["orders"][0].clone();
    assert_eq!(
        (o["status"].as_str(), o["position_intent"].as_str()),
        (Some("FILLED"), Some("BUY_TO_CLOSE"))
    );
    let paid = d(o["filled_price"].as_str().unwrap());
    let (_, _, after) = balance(&server, &account).await;
    assert_eq!(after, before + d("45000") - paid * d("100"));
    // An intent that does not fit is refused.
    let mut wrong = option_order("wrong", "SELL", "1", None, "450", "PUT");
    wrong["position_intent"] = json!("SELL_TO_CLOSE");
    place(wrong).await.assert_error(400, "ILLEGAL_PARAMETER");
}

/// A put written on the 2013-03-01 weekly at 600 (AAPL closed at 430.47) is assigned: the cash
/// it held back buys 100 shares at 600.
#[tokio::test]
async fn a_put_written_in_the_money_is_assigned_at_expiry() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[0].clone();
    let mut put = option_order("put", "SELL", "1", None, "600", "PUT");
    put["legs"][0]["option_expire_date"] = json!("2013-03-01");
    let placed = place_at(&server, "/trading/orders/place", &account, put).await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    let (cash, _, power) = balance(&server, &account).await;
    assert_eq!(power, cash - d("60000"));
    ops.market().step(5 * 86_400).await.unwrap();
    let positions = server.client().accounts().positions(&account).await.unwrap();
    assert_eq!(positions.len(), 1, "{positions:?}");
    assert_eq!(
        (
            positions[0].symbol.as_str(),
            positions[0].quantity.as_str(),
            d(&positions[0].cost_price)
        ),
        ("AAPL", "100", d("600"))
    );
    let (after, _, power) = balance(&server, &account).await;
    assert_eq!(after, cash - d("60000"));
    assert_eq!(power, after, "nothing is held back any more");
    let filter = ActivityFilter {
        activity_types: Some("OPTION_ASSIGNMENT"),
        ..ActivityFilter::default()
    };
    let ledger = server
        .client()
        .accounts()
        .cash_activities(&account, &filter)
        .await
        .unwrap();
    assert_eq!(ledger.data.len(), 1);
    assert_eq!(d(&ledger.data[0].amount), d("-60000"));
}

/// Ten puts written at once, each secured by 45,000 USD: the CASH account's 100,000 secures two,
/// and ten calls written at once against 200 shares: two are covered.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn contracts_written_at_once_never_promise_the_same_cash_or_shares_twice() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[0].clone();
    // Resting far above the bid: they stay open, holding back what secures them.
    let puts = (0..10)
        .map(|n| option_order(&format!("put-{n}"), "SELL", "1", Some("90.00"), "450", "PUT"))
        .collect();
    let answers = place_together(&server.client(), &account, puts).await;
    assert_eq!(answers.iter().filter(|a| a.status == 200).count(), 2);
    for refused in answers.iter().filter(|a| a.status != 200) {
        refused.assert_error(400, "INSUFFICIENT_BUYING_POWER");
    }
    for n in 0..10 {
        let _ = post(
            &server.client(),
            "/trading/orders/cancel",
            &json!({"account_id": account, "client_order_id": format!("put-{n}")}),
        )
        .await;
    }
    let mut shares = shares_order("aapl", "BUY");
    shares["quantity"] = json!("200");
    assert_eq!(
        place_at(&server, "/trading/orders/place", &account, shares)
            .await
            .status,
        200
    );
    ops.market().step(1).await.unwrap();
    let calls = (0..10)
        .map(|n| option_order(&format!("call-{n}"), "SELL", "1", Some("90.00"), "450", "CALL"))
        .collect();
    let answers = place_together(&server.client(), &account, calls).await;
    assert_eq!(answers.iter().filter(|a| a.status == 200).count(), 2);
    for refused in answers.iter().filter(|a| a.status != 200) {
        refused.assert_error(400, "INSUFFICIENT_POSITION");
    }
}

/// A bid inside the spread rests, and fills at its limit once the contract's own trades reach
/// it: it is filled after an hour exactly when a trade of that hour printed below the bid, or
/// at it (behind those shown there when it was placed); it is still open otherwise.
#[tokio::test]
async fn a_resting_bid_fills_from_the_contracts_own_trades() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[0].clone();
    let mut outcomes = Vec::new();
    for (n, strike) in ["440", "450", "460", "470"].into_iter().enumerate() {
        let symbol = format!("AAPL130315C00{strike}000");
        let quote = snapshot(&server, &symbol).await;
        let (bid, ask) = (d(&quote.bid), d(&quote.ask));
        // A nickel above the bid, inside the spread: nobody is ahead of it.
        let limit = bid + d("0.05");
        assert!(limit < ask, "{symbol}: {bid} {ask}");
        let id = format!("bid-{n}");
        let placed = place_at(
            &server,
            "/trading/orders/place",
            &account,
            option_order(&id, "BUY", "1", Some(&limit.to_string()), strike, "CALL"),
        )
        .await;
        assert_eq!(placed.status, 200, "{}", placed.body);
        assert!(quote.last_trade_time.is_none(), "placed at the open, before any trade");
        outcomes.push((id, symbol, limit));
    }
    ops.market().step(3600).await.unwrap();
    let mut filled = 0;
    for (id, symbol, limit) in outcomes {
        let ticks: signet_model::options::OptionTicks = server
            .client()
            .get(
                "/market-data/options/ticks/list",
                &[
                    ("symbol", symbol.as_str()),
                    ("category", "US_OPTION"),
                    ("count", "1200"),
                ],
            )
            .await
            .unwrap();
        // Every trade of the day so far is one of the hour since the order was placed.
        let reached = ticks.result.iter().any(|t| d(&t.price) <= limit);
        let o = order_detail(&server.client(), &account, &id).await["orders"][0].clone();
        if reached {
            assert_eq!(o["status"], "FILLED", "{symbol} traded at or below {limit}: {o}");
            assert_eq!(d(o["filled_price"].as_str().unwrap()), limit, "at its limit");
            filled += 1;
        } else {
            assert_eq!(o["status"], "SUBMITTED", "{symbol} never traded at {limit}: {o}");
        }
    }
    assert!(
        filled > 0,
        "an hour of trades reaches some bid a nickel above the market's"
    );
}

/// A market buy placed in the evening waits for the open, claiming its contracts at their mark
/// (their mid); a restarted server, which has read no underlying yet, still claims them so.
#[tokio::test]
async fn a_waiting_market_buy_claims_its_mark_across_a_restart() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let account = server.app.account_ids[0].clone();
    // 18:00, after the close.
    ops.market().step(8 * 3600 + 30 * 60).await.unwrap();
    let placed = place_at(
        &server,
        "/trading/orders/place",
        &account,
        option_order("evening", "BUY", "5", None, "450", "CALL"),
    )
    .await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    let (_, _, before) = balance(&server, &account).await;
    assert!(before < d("100000") - d("1000"), "five contracts claimed: {before}");
    // The first call after the restart: nothing has read AAPL's figures of the day yet.
    let server = server.restart().await;
    let (_, _, after) = balance(&server, &account).await;
    let quote = snapshot(&server, CALL).await;
    let mid = (d(&quote.bid) + d(&quote.ask)) / d("2");
    assert_eq!(
        after,
        d("100000") - mid * d("500"),
        "five contracts claimed at their mark"
    );
    assert_eq!(
        order_detail(&server.client(), &account, "evening").await["orders"][0]["status"],
        "SUBMITTED"
    );
}

/// A stock's last price now.
async fn last_price(server: &TestServer, symbol: &str) -> Decimal {
    let snapshots = server
        .client()
        .stocks()
        .snapshots(&[symbol], false, false)
        .await
        .unwrap();
    d(&snapshots[0].price)
}

/// The standard requirement of one contract written naked, per share, less its premium (which
/// it cancels): 20 % of the underlying less what the contract is out of the money, at least
/// 10 % of the underlying (a call) or of the strike (a put).
fn naked_per_share(right: &str, strike: Decimal, spot: Decimal) -> Decimal {
    let (out, floor) = if right == "CALL" {
        ((strike - spot).max(Decimal::ZERO), spot / d("10"))
    } else {
        ((spot - strike).max(Decimal::ZERO), strike / d("10"))
    };
    (spot / d("5") - out).max(floor)
}

/// A MARGIN account writes calls and puts naked: while it rests an order holds back its
/// standard requirement (less its premium, in full: twice of a margin account's power), once
/// written the contract holds back the requirement with its mark; shares bought afterwards
/// cover the call, which frees it. Naked puts placed at once never promise the same power
/// twice. A CASH account still refuses both.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_margin_account_writes_naked_at_the_standard_requirement() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let (cash_account, account) = (server.app.account_ids[0].clone(), server.app.account_ids[1].clone());
    let spot = last_price(&server, "AAPL").await;
    let place = |id: &str, side: &str, limit: Option<&str>, strike: &str, right: &str| {
        place_at(
            &server,
            "/trading/orders/place",
            &account,
            option_order(id, side, "1", limit, strike, right),
        )
    };
    place_at(
        &server,
        "/trading/orders/place",
        &cash_account,
        option_order("naked", "SELL", "1", None, "460", "CALL"),
    )
    .await
    .assert_error(400, "INSUFFICIENT_POSITION");

    // Resting far above the bid, a call at 460 holds back its requirement.
    let (_, _, power) = balance(&server, &account).await;
    assert_eq!(power, d("200000"));
    let call = naked_per_share("CALL", d("460"), spot) * d("100");
    let resting = place("rest", "SELL", Some("90.00"), "460", "CALL").await;
    assert_eq!(resting.status, 200, "{}", resting.body);
    let (_, _, resting_power) = balance(&server, &account).await;
    assert_eq!(power - resting_power, call * d("2"), "spot {spot}");
    let cancelled = post(
        &server.client(),
        "/trading/orders/cancel",
        &json!({"account_id": account, "client_order_id": "rest"}),
    )
    .await;
    assert_eq!(cancelled.status, 200, "{}", cancelled.body);

    // Written at the market: the requirement with its mark, the premium in the cash.
    assert_eq!(place("call", "SELL", None, "460", "CALL").await.status, 200);
    ops.market().step(1).await.unwrap();
    let o = order_detail(&server.client(), &account, "call").await["orders"][0].clone();
    assert_eq!(o["status"], "FILLED", "{o}");
    let spot = last_price(&server, "AAPL").await;
    let quote = snapshot(&server, "AAPL130315C00460000").await;
    let mark = ((d(&quote.bid) + d(&quote.ask)) / d("2")).round_dp(4);
    let (cash, _, written_power) = balance(&server, &account).await;
    let held = (naked_per_share("CALL", d("460"), spot) + mark) * d("100");
    assert_eq!(written_power, (cash - held) * d("2"));

    // 100 shares bought cover it: the account's power is its cash and shares' alone (twice
    // the cash, plus the shares' half of their value), nothing held back for the call.
    let placed = place_at(&server, "/trading/orders/place", &account, shares_order("aapl", "BUY")).await;
    assert_eq!(placed.status, 200, "{}", placed.body);
    ops.market().step(1).await.unwrap();
    let spot = last_price(&server, "AAPL").await;
    let (cash, _, covered_power) = balance(&server, &account).await;
    assert_eq!(
        covered_power,
        cash * d("2") + spot * d("100"),
        "before: {written_power}"
    );
    // And the shares covering it are not sold while it is written.
    place_at(
        &server,
        "/trading/orders/place",
        &account,
        shares_order("aapl-out", "SELL"),
    )
    .await
    .assert_error(400, "INSUFFICIENT_POSITION");

    // Puts at 430 placed at once, resting: as many as the power left holds, no more.
    let (_, _, left) = balance(&server, &account).await;
    let spot = last_price(&server, "AAPL").await;
    let per_put = naked_per_share("PUT", d("430"), spot) * d("100") * d("2");
    let expected = (left / per_put).floor();
    let n = expected.to_string().parse::<usize>().unwrap() + 4;
    let puts = (0..n)
        .map(|i| option_order(&format!("put-{i}"), "SELL", "1", Some("90.00"), "430", "PUT"))
        .collect();
    let answers = place_together(&server.client(), &account, puts).await;
    let accepted = answers.iter().filter(|a| a.status == 200).count();
    assert_eq!(Decimal::from(accepted), expected, "{left} / {per_put}");
    for refused in answers.iter().filter(|a| a.status != 200) {
        refused.assert_error(400, "INSUFFICIENT_BUYING_POWER");
    }
    let (_, _, after) = balance(&server, &account).await;
    assert_eq!(after, left - per_put * expected);
}
