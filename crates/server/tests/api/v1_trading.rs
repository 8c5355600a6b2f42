//! The v1 trading calls (`/account/*`, `/trade/order*`) against a real server with a manual
//! market clock: the same orders and balances as the v3 calls, in the v1 shapes; the refusals of
//! the v3 calls; buying power held across both doors at the same moment; and the retired
//! account list served only under `--compat legacy`.

use rust_decimal::Decimal;
use serde_json::{Value, json};
use signet_client::{Client, Error};
use signet_model::ErrorCode;
use signet_model::v1::{AccountProfile, Balance, HoldingsPage, OrderAck, OrderPage};
use signet_server::generations::compat::Compat;

use crate::common::TestServer;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn code(e: Error) -> ErrorCode {
    e.code().unwrap_or_else(|| panic!("an error code, got {e}"))
}

async fn market(compat: Compat) -> (TestServer, Client) {
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| c.compat = compat).await;
    let ops = server.ops().await;
    (server, ops)
}

async fn pin(ops: &Client, symbol: &str, price: &str, bid: &str, ask: &str) {
    ops.market()
        .set(symbol, price, Some(bid), Some(ask), Some(10_000))
        .await
        .unwrap();
}

async fn instrument_id(client: &Client, symbol: &str) -> String {
    let raw: Value = client
        .get("/trading/instruments/stocks/profiles/list", &[("symbols", symbol)])
        .await
        .unwrap();
    raw["data"][0]["instrument_id"].as_str().unwrap().to_owned()
}

/// A v1 `stock_order`, as the official client's `place_order` sends it.
fn stock_order(id: &str, instrument_id: &str, side: &str, qty: &str, limit: Option<&str>) -> Value {
    let mut o = json!({
        "client_order_id": id, "instrument_id": instrument_id, "qty": qty, "side": side,
        "tif": "DAY", "extended_hours_trading": false,
        "order_type": if limit.is_some() { "LIMIT" } else { "MARKET" },
    });
    if let Some(limit) = limit {
        o["limit_price"] = json!(limit);
    }
    o
}

async fn place_v1(client: &Client, account: &str, order: Value) -> Result<OrderAck, Error> {
    client
        .post(
            "/trade/order/place",
            &json!({"account_id": account, "stock_order": order}),
        )
        .await
}

async fn v1_detail(client: &Client, account: &str, id: &str) -> Value {
    client
        .get(
            "/trade/order/detail",
            &[("account_id", account), ("client_order_id", id)],
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn an_order_placed_through_v1_is_the_v3_order_and_the_v1_balance_is_the_v3_balance() {
    let (server, ops) = market(Compat::Strict).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    let aapl = instrument_id(&client, "AAPL").await;
    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;

    let ack = place_v1(&client, &account, stock_order("v1buy", &aapl, "BUY", "10", None))
        .await
        .unwrap();
    assert_eq!(ack.client_order_id, "v1buy");
    let v3 = client.orders().get(&account, "v1buy").await.unwrap();
    assert_eq!(v3.orders[0].order_id, ack.order_id);
    assert_eq!(
        (v3.orders[0].symbol.as_str(), v3.orders[0].total_quantity.as_str()),
        ("AAPL", "10")
    );
    // A resting limit order, and the fill of the market order at the next tick.
    place_v1(&client, &account, stock_order("v1rest", &aapl, "BUY", "5", Some("390")))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();

    let detail = v1_detail(&client, &account, "v1buy").await;
    assert_eq!(detail["order_id"], json!(ack.order_id));
    assert_eq!(detail["tif"], json!("DAY"));
    assert_eq!(detail["extended_hours_trading"], json!(false));
    assert_eq!(detail["combo_ticker_type"], json!("STOCK"));
    let item = &detail["items"][0];
    assert_eq!(
        (
            &item["order_status"],
            &item["filled_qty"],
            &item["symbol"],
            &item["instrument_id"]
        ),
        (&json!("FILLED"), &json!("10"), &json!("AAPL"), &json!(aapl))
    );
    assert_eq!(d(item["filled_price"].as_str().unwrap()), d("400.01"));
    assert!(item["last_filled_time"].as_str().unwrap().ends_with('Z'));

    let today: OrderPage = client
        .get("/trade/orders/list-today", &[("account_id", &account)])
        .await
        .unwrap();
    let ids: Vec<&str> = today.orders.iter().map(|o| o.client_order_id.as_str()).collect();
    assert_eq!(ids, ["v1rest", "v1buy"], "newest first");
    let open: OrderPage = client
        .get("/trade/orders/list-open", &[("account_id", &account)])
        .await
        .unwrap();
    assert_eq!(open.orders.len(), 1);
    assert_eq!(open.orders[0].client_order_id, "v1rest");
    // Pages of one, the next after the last client order id seen.
    let first: OrderPage = client
        .get(
            "/trade/orders/list-today",
            &[("account_id", &account), ("page_size", "1")],
        )
        .await
        .unwrap();
    assert!(first.has_next);
    let second: OrderPage = client
        .get(
            "/trade/orders/list-today",
            &[
                ("account_id", &account),
                ("page_size", "1"),
                ("last_client_order_id", &first.orders[0].client_order_id),
            ],
        )
        .await
        .unwrap();
    assert_eq!(
        (second.orders[0].client_order_id.as_str(), second.has_next),
        ("v1buy", false)
    );

    // The balance: the v3 figures, in the v1 shape.
    let v3 = client.accounts().balance(&account).await.unwrap();
    let v1: Balance = client
        .get(
            "/account/balance",
            &[("account_id", &account), ("total_asset_currency", "USD")],
        )
        .await
        .unwrap();
    let usd = &v1.account_currency_assets[0];
    assert_eq!(v1.total_cash_balance, v3.total_cash_balance);
    assert_eq!(v1.total_market_value, v3.total_market_value);
    assert_eq!(v1.total_asset, v3.total_net_liquidation_value);
    assert_eq!(usd.margin_power, v3.account_currency_assets[0].buying_power);
    // The resting buy holds back 5 × 390 plus its commission estimate; nothing is withdrawable
    // that it holds.
    let frozen = d(&usd.cash_frozen);
    assert!(frozen >= d("1950"), "{frozen}");
    assert_eq!(d(&usd.available_withdrawal), d(&v1.total_cash_balance) - frozen);

    let holdings: HoldingsPage = client
        .get("/account/positions", &[("account_id", &account)])
        .await
        .unwrap();
    assert!(!holdings.has_next);
    let h = &holdings.holdings[0];
    assert_eq!(
        (
            h.symbol.as_str(),
            h.qty.as_str(),
            h.instrument_type.as_str(),
            h.holding_proportion.as_str()
        ),
        ("AAPL", "10", "STOCK", "1")
    );
    assert_eq!(d(&h.total_cost), d("4000.1"));
    let profile: AccountProfile = client
        .get("/account/profile", &[("account_id", &account)])
        .await
        .unwrap();
    assert_eq!(profile.account_status, "NORMAL");
}

#[tokio::test]
async fn v1_replace_changes_quantity_and_price_only_and_cancel_ends_the_order() {
    let (server, ops) = market(Compat::Strict).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    let aapl = instrument_id(&client, "AAPL").await;
    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;
    place_v1(&client, &account, stock_order("r1", &aapl, "BUY", "5", Some("390")))
        .await
        .unwrap();

    let replace = |order: Value| {
        let client = client.clone();
        let body = json!({"account_id": account, "stock_order": order});
        async move { client.post::<_, OrderAck>("/trade/order/replace", &body).await }
    };
    // The client's replace_order repeats the order's own fields with the new quantity and price.
    replace(stock_order("r1", &aapl, "BUY", "7", Some("391")))
        .await
        .unwrap();
    let v3 = client.orders().get(&account, "r1").await.unwrap();
    assert_eq!(
        (
            v3.orders[0].total_quantity.as_str(),
            v3.orders[0].limit_price.as_deref()
        ),
        ("7", Some("391"))
    );
    let changed_side = replace(stock_order("r1", &aapl, "SELL", "7", Some("391")))
        .await
        .unwrap_err();
    assert_eq!(code(changed_side), ErrorCode::IllegalParameter);
    let unknown = replace(stock_order("nope", &aapl, "BUY", "7", Some("391")))
        .await
        .unwrap_err();
    assert_eq!(code(unknown), ErrorCode::OrderNotFound);

    let cancelled: OrderAck = client
        .post(
            "/trade/order/cancel",
            &json!({"account_id": account, "client_order_id": "r1"}),
        )
        .await
        .unwrap();
    assert_eq!(cancelled.client_order_id, "r1");
    assert_eq!(
        v1_detail(&client, &account, "r1").await["items"][0]["order_status"],
        json!("CANCELLED")
    );
    let again = client
        .post::<_, OrderAck>(
            "/trade/order/cancel",
            &json!({"account_id": account, "client_order_id": "r1"}),
        )
        .await
        .unwrap_err();
    assert_eq!(code(again), ErrorCode::OrderNotOpen);
}

#[tokio::test]
async fn v1_calls_refuse_what_the_v3_calls_refuse() {
    let (server, ops) = market(Compat::Strict).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    let aapl = instrument_id(&client, "AAPL").await;
    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;

    let unknown = place_v1(&client, &account, stock_order("u1", "999999", "BUY", "1", None))
        .await
        .unwrap_err();
    assert_eq!(code(unknown), ErrorCode::InstrumentNotFound);
    let missing = place_v1(
        &client,
        &account,
        json!({"client_order_id": "u2", "qty": "1", "side": "BUY", "order_type": "MARKET", "tif": "DAY"}),
    )
    .await
    .unwrap_err();
    assert_eq!(code(missing), ErrorCode::IllegalParameter);
    place_v1(&client, &account, stock_order("dup", &aapl, "BUY", "1", Some("390")))
        .await
        .unwrap();
    let dup = place_v1(&client, &account, stock_order("dup", &aapl, "BUY", "1", Some("390")))
        .await
        .unwrap_err();
    assert_eq!(code(dup), ErrorCode::DuplicateClientOrderId);
    let too_much = place_v1(&client, &account, stock_order("big", &aapl, "BUY", "1000", Some("400")))
        .await
        .unwrap_err();
    assert_eq!(code(too_much), ErrorCode::InsufficientBuyingPower);
    // Extended hours take limit orders only, as the v3 sessions do.
    let mut market_all_day = stock_order("ext", &aapl, "BUY", "1", None);
    market_all_day["extended_hours_trading"] = json!(true);
    assert!(place_v1(&client, &account, market_all_day).await.is_err());

    let other = server.admin().create_app("other", Decimal::from(1_000)).await.unwrap();
    let foreign = server.client_for(&other);
    for (path, query) in [
        ("/account/balance", vec![("account_id", account.as_str())]),
        ("/account/positions", vec![("account_id", account.as_str())]),
        ("/account/profile", vec![("account_id", account.as_str())]),
        ("/trade/orders/list-open", vec![("account_id", account.as_str())]),
        (
            "/trade/order/detail",
            vec![("account_id", account.as_str()), ("client_order_id", "dup")],
        ),
    ] {
        let e = foreign.get::<Value>(path, &query).await.unwrap_err();
        assert_eq!(code(e), ErrorCode::AccountNotFoundOrDenied, "{path}");
    }
    let e = client
        .get::<Value>("/account/positions", &[("account_id", &account), ("page_size", "101")])
        .await
        .unwrap_err();
    assert_eq!(code(e), ErrorCode::IllegalParameter);
}

/// Placements through both doors at the same moment are checked one after another against the
/// same account: exactly as many are accepted as fit.
#[tokio::test]
async fn buying_power_holds_across_the_v1_and_v3_doors_at_the_same_moment() {
    let (server, ops) = market(Compat::Strict).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    let aapl = instrument_id(&client, "AAPL").await;
    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;
    // 100,000 of cash; each order holds 50 × 401 = 20,050 (and a commission): four fit.
    let mut attempts = tokio::task::JoinSet::new();
    for i in 0..10 {
        let (client, account, aapl) = (client.clone(), account.clone(), aapl.clone());
        attempts.spawn(async move {
            let id = format!("c{i}");
            if i % 2 == 0 {
                place_v1(&client, &account, stock_order(&id, &aapl, "BUY", "50", Some("401")))
                    .await
                    .map(|_| ())
            } else {
                let order = json!({
                    "client_order_id": id, "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
                    "order_type": "LIMIT", "limit_price": "401", "time_in_force": "DAY",
                    "entrust_type": "QTY", "quantity": "50", "instrument_type": "EQUITY",
                    "market": "US", "support_trading_session": "CORE"
                });
                client
                    .post::<_, Value>(
                        "/trading/orders/place",
                        &json!({"account_id": account, "new_orders": [order]}),
                    )
                    .await
                    .map(|_| ())
            }
        });
    }
    let results = attempts.join_all().await;
    let accepted = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(accepted, 4, "{results:?}");
    for refused in results.into_iter().filter_map(Result::err) {
        assert_eq!(code(refused), ErrorCode::InsufficientBuyingPower);
    }
}

#[tokio::test]
async fn the_retired_account_list_is_served_only_under_compat_legacy() {
    let (strict, _) = market(Compat::Strict).await;
    let e = strict
        .client()
        .get::<Value>("/app/subscriptions/list", &[])
        .await
        .unwrap_err();
    assert!(e.to_string().contains("/trading/accounts/list"), "{e}");
    assert_eq!(code(e), ErrorCode::NotFound);

    let (legacy, _) = market(Compat::Legacy).await;
    let client = legacy.client();
    let list: Vec<Value> = client.get("/app/subscriptions/list", &[]).await.unwrap();
    let mut accounts = legacy.app.account_ids.clone();
    accounts.sort();
    let ids: Vec<&str> = list.iter().map(|s| s["account_id"].as_str().unwrap()).collect();
    assert_eq!(ids, accounts);
    let after_first: Vec<Value> = client
        .get("/app/subscriptions/list", &[("subscription_id", &accounts[0])])
        .await
        .unwrap();
    assert_eq!(after_first.len(), accounts.len() - 1);
}

/// `TradeClient.order_v2`'s earlier paths: the current calls, under `--compat legacy` only.
#[tokio::test]
async fn the_earlier_order_paths_are_the_current_calls_under_compat_legacy() {
    let (server, ops) = market(Compat::Legacy).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;
    let order = json!({
        "client_order_id": "e1", "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
        "order_type": "LIMIT", "limit_price": "390", "time_in_force": "DAY", "entrust_type": "QTY",
        "quantity": "5", "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE"
    });
    let placed: Value = client
        .post(
            "/openapi/trade/stock/order/place",
            &json!({"account_id": account, "new_orders": [order]}),
        )
        .await
        .unwrap();
    let v3 = client.orders().get(&account, "e1").await.unwrap();
    assert_eq!(json!(v3.orders[0].order_id), placed["order_id"]);
    let open: Vec<Value> = client
        .get("/openapi/trade/order/open", &[("account_id", &account)])
        .await
        .unwrap();
    assert_eq!(open.len(), 1, "a bare array whatever x-version says");
    let alone = client
        .get::<Value>(
            "/openapi/trade/order/open",
            &[("account_id", &account), ("last_order_id", &v3.orders[0].order_id)],
        )
        .await
        .unwrap_err();
    assert_eq!(code(alone), ErrorCode::IllegalParameter);
    let cancelled: Value = client
        .post(
            "/openapi/trade/stock/order/cancel",
            &json!({"account_id": account, "client_order_id": "e1"}),
        )
        .await
        .unwrap();
    assert_eq!(cancelled["status"], "CANCELLED");

    let (strict, _) = market(Compat::Strict).await;
    let e = strict
        .client()
        .post::<_, Value>(
            "/openapi/trade/stock/order/place",
            &json!({"account_id": account, "new_orders": []}),
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("POST /trading/orders/place"), "{e}");
    assert_eq!(code(e), ErrorCode::NotFound);
}

/// `TradeClient.trade_instrument`: one instrument by id or symbol, and the tradable ones by id.
#[tokio::test]
async fn the_v1_instrument_calls_describe_the_instruments_the_v3_lookup_lists() {
    let (server, _ops) = market(Compat::Strict).await;
    let client = server.client();
    let aapl = instrument_id(&client, "AAPL").await;
    let by_id: Value = client
        .get("/trade/instrument", &[("instrument_id", &aapl)])
        .await
        .unwrap();
    assert_eq!(
        (
            &by_id["symbol"],
            &by_id["instrument_type"],
            &by_id["trade_policy"],
            &by_id["can_margin"]
        ),
        (&json!("AAPL"), &json!("STOCK"), &json!("ALL"), &json!("YES"))
    );
    let by_symbol: Value = client
        .get(
            "/trade/security",
            &[
                ("symbol", "aapl"),
                ("market", "US"),
                ("instrument_super_type", "EQUITY"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(by_symbol, by_id);

    let mut ids = Vec::new();
    let mut last: Option<String> = None;
    for _ in 0..10 {
        let mut query = vec![("page_size", "2")];
        if let Some(last) = &last {
            query.push(("last_security_id", last.as_str()));
        }
        let page: Vec<Value> = client.get("/trade/instrument/tradable/list", &query).await.unwrap();
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 2);
        ids.extend(
            page.iter()
                .map(|i| i["instrument_id"].as_str().unwrap().parse::<i64>().unwrap()),
        );
        last = page.last().map(|i| i["instrument_id"].as_str().unwrap().to_owned());
    }
    assert_eq!(ids.len(), 5, "the five instruments of the test prices: {ids:?}");
    assert!(ids.windows(2).all(|w| w[0] < w[1]));

    for (path, query, expected) in [
        (
            "/trade/instrument",
            vec![("instrument_id", "999999")],
            ErrorCode::InstrumentNotFound,
        ),
        (
            "/trade/instrument",
            vec![("instrument_id", "AAPL")],
            ErrorCode::IllegalParameter,
        ),
        (
            "/trade/security",
            vec![("symbol", "NOPE")],
            ErrorCode::InstrumentNotFound,
        ),
        (
            "/trade/security",
            vec![("symbol", "AAPL"), ("instrument_super_type", "OPTION")],
            ErrorCode::UnsupportedInstrumentType,
        ),
        (
            "/trade/security",
            vec![("symbol", "AAPL"), ("market", "HK")],
            ErrorCode::UnsupportedMarket,
        ),
        (
            "/trade/instrument/tradable/list",
            vec![("page_size", "101")],
            ErrorCode::IllegalParameter,
        ),
    ] {
        let e = client.get::<Value>(path, &query).await.unwrap_err();
        assert_eq!(code(e), expected, "{path} {query:?}");
    }
}

/// signet moves no money between institutions: no transfers, every id unknown, and another
/// app's account refused as everywhere.
#[tokio::test]
async fn transfer_activities_are_none_and_say_so() {
    let (server, _ops) = market(Compat::Strict).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    let page: Value = client
        .get(
            "/trading/activities/transfer-activities/list",
            &[("account_id", account.as_str()), ("direction", "IN")],
        )
        .await
        .unwrap();
    assert_eq!(page, json!({"data": []}));
    let e = client
        .get::<Value>(
            "/trading/activities/transfer-activities/get",
            &[("account_id", account.as_str()), ("transfer_id", "T1")],
        )
        .await
        .unwrap_err();
    assert_eq!(code(e), ErrorCode::TransferNotFound);
    let other = server.admin().create_app("other", Decimal::from(1_000)).await.unwrap();
    let e = server
        .client_for(&other)
        .get::<Value>(
            "/trading/activities/transfer-activities/list",
            &[("account_id", account.as_str())],
        )
        .await
        .unwrap_err();
    assert_eq!(code(e), ErrorCode::AccountNotFoundOrDenied);
}
