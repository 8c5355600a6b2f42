//! The trading companions against a real server with a manual market clock: balance and
//! positions after fills at pinned quotes (with a commission), the buying power placement
//! enforces, executions newest first in both paginations, another app's accounts refused, and
//! the instrument lookup (and its retired list under `--compat legacy`).

use rust_decimal::Decimal;
use serde_json::{Value, json};
use signet_client::{Client, Error, ExecutionFilter};
use signet_domain::trading::accounting::Commission;
use signet_model::ErrorCode;
use signet_model::assets::{AccountBalance, Position};
use signet_model::wire::WireEnum;
use signet_server::generations::compat::Compat;

use crate::common::TestServer;
use crate::legacy::{V2, call};

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn code(e: Error) -> ErrorCode {
    e.code().unwrap_or_else(|| panic!("an error code, got {e}"))
}

/// A manual-clock market at the core open of 2013-02-25, charging 0.005 a share and 1 an order;
/// with `--compat legacy` when `legacy`.
async fn market(legacy: bool) -> (TestServer, Client) {
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| {
        c.commission = Commission {
            per_share: d("0.005"),
            per_order: d("1"),
        };
        if legacy {
            c.compat = Compat::Legacy;
        }
    })
    .await;
    let ops = server.ops().await;
    (server, ops)
}

async fn pin(ops: &Client, symbol: &str, price: &str, bid: &str, ask: &str) {
    ops.market()
        .set(symbol, price, Some(bid), Some(ask), Some(10_000))
        .await
        .unwrap();
}

pub(crate) fn order(id: &str, symbol: &str, side: &str, quantity: &str, limit: Option<&str>) -> Value {
    let mut o = json!({
        "client_order_id": id, "combo_type": "NORMAL", "symbol": symbol, "side": side,
        "order_type": if limit.is_some() { "LIMIT" } else { "MARKET" },
        "time_in_force": "DAY", "entrust_type": "QTY", "quantity": quantity, "instrument_type": "EQUITY",
        "market": "US", "support_trading_session": "CORE"
    });
    if let Some(limit) = limit {
        o["limit_price"] = json!(limit);
    }
    o
}

pub(crate) async fn place(client: &Client, account: &str, order: Value) -> Result<Value, Error> {
    client
        .post(
            "/trading/orders/place",
            &json!({"account_id": account, "new_orders": [order]}),
        )
        .await
}

fn only<'a>(positions: &'a [Position], symbol: &str) -> &'a Position {
    positions.iter().find(|p| p.symbol == symbol).expect("a position")
}

#[tokio::test]
async fn balance_and_positions_value_a_fill_at_the_quote_and_show_the_enforced_buying_power() {
    let (server, ops) = market(false).await;
    let client = server.client();
    let cash_account = server.app.account_ids[0].clone();
    let empty = client.accounts().balance(&cash_account).await.unwrap();
    assert_eq!(
        (
            empty.total_cash_balance.as_str(),
            empty.total_market_value.as_str(),
            empty.total_net_liquidation_value.as_str(),
            empty.account_currency_assets[0].buying_power.as_str(),
        ),
        ("100000", "0", "100000", "100000")
    );
    assert!(client.accounts().positions(&cash_account).await.unwrap().is_empty());

    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;
    place(&client, &cash_account, order("b1", "AAPL", "BUY", "10", Some("401")))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    // Bought 10 at the ask, 400.01, for 4000.10 and a commission of 10 × 0.005 + 1.
    let cash = d("100000") - d("4000.10") - d("1.05");
    let positions = client.accounts().positions(&cash_account).await.unwrap();
    let p = only(&positions, "AAPL");
    assert_eq!(
        (
            p.quantity.as_str(),
            d(&p.cost_price),
            d(&p.last_price),
            d(&p.market_value),
            d(&p.unrealized_profit_loss),
        ),
        ("10", d("400.01"), d("400"), d("4000"), d("-0.1"))
    );
    assert_eq!(
        (
            p.instrument_type.as_str(),
            p.option_strategy.as_str(),
            p.currency.as_str()
        ),
        ("EQUITY", "SINGLE", "USD")
    );
    assert!(p.legs.is_empty() && !p.position_id.is_empty() && !p.instrument_id.is_empty());
    assert_eq!(d(&p.unrealized_profit_loss_rate), (d("-0.1") / d("4000.1")).round_dp(6));

    let b = client.accounts().balance(&cash_account).await.unwrap();
    let usd = &b.account_currency_assets[0];
    assert_eq!(
        (
            b.total_asset_currency.as_str(),
            d(&b.total_cash_balance),
            d(&b.total_market_value),
            d(&b.total_unrealized_profit_loss),
            d(&b.total_net_liquidation_value),
        ),
        ("USD", cash, d("4000"), d("-0.1"), cash + d("4000"))
    );
    assert_eq!(
        (
            usd.currency.as_str(),
            d(&usd.cash_balance),
            d(&usd.market_value),
            d(&usd.net_liquidation_value)
        ),
        ("USD", cash, d("4000"), cash + d("4000"))
    );
    // A CASH account buys with its cash: the balance shows what placement enforces, to the cent.
    let power = d(&usd.buying_power);
    assert_eq!(power, cash);
    let over = place(
        &client,
        &cash_account,
        order("over", "AAPL", "BUY", "1", Some(&(power + d("0.01")).to_string())),
    )
    .await
    .unwrap_err();
    assert_eq!(code(over), ErrorCode::InsufficientBuyingPower);
    place(
        &client,
        &cash_account,
        order("all", "AAPL", "BUY", "1", Some(&power.to_string())),
    )
    .await
    .unwrap();
    let after = client.accounts().balance(&cash_account).await.unwrap();
    assert_eq!(d(&after.account_currency_assets[0].buying_power), Decimal::ZERO);
    assert_eq!(
        d(&after.total_cash_balance),
        cash,
        "an open order holds cash back, it spends none"
    );
}

#[tokio::test]
async fn a_short_position_is_negative_and_gains_as_the_price_falls() {
    let (server, ops) = market(false).await;
    let client = server.client();
    let margin_account = server.app.account_ids[1].clone();
    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;
    place(&client, &margin_account, order("s1", "AAPL", "SHORT", "10", None))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    pin(&ops, "AAPL", "390.00", "389.99", "390.01").await;
    let positions = client.accounts().positions(&margin_account).await.unwrap();
    let p = only(&positions, "AAPL");
    assert_eq!(
        (
            p.quantity.as_str(),
            d(&p.cost_price),
            d(&p.market_value),
            d(&p.unrealized_profit_loss)
        ),
        ("-10", d("399.99"), d("-3900"), d("99.9"))
    );
    let b = client.accounts().balance(&margin_account).await.unwrap();
    // Sold short for 3999.90, less 1.05 of commission.
    let cash = d("100000") + d("3999.90") - d("1.05");
    assert_eq!(
        (
            d(&b.total_cash_balance),
            d(&b.total_market_value),
            d(&b.total_net_liquidation_value)
        ),
        (cash, d("-3900"), cash - d("3900"))
    );
    // Reg T, as placement reckons it: twice the equity less the positions' value.
    let equity = cash - d("3900");
    assert_eq!(
        d(&b.account_currency_assets[0].buying_power),
        equity * d("2") - d("3900")
    );
    // Preview answers the same buying power.
    let preview: Value = client
        .post(
            "/trading/orders/preview",
            &json!({"account_id": margin_account, "new_orders": [order("p", "AAPL", "BUY", "1", Some("1"))]}),
        )
        .await
        .unwrap();
    assert_eq!(
        d(preview["buying_power"].as_str().unwrap()),
        d(&b.account_currency_assets[0].buying_power)
    );
}

#[tokio::test]
async fn executions_list_each_fill_newest_first_in_pages_of_either_version() {
    let (server, ops) = market(true).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    // Three orders filled in turn, the second in two executions: the 4 shares shown at the ask,
    // then the next level of the book.
    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;
    place(&client, &account, order("e1", "AAPL", "BUY", "5", Some("401")))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(4))
        .await
        .unwrap();
    place(&client, &account, order("e2", "AAPL", "BUY", "6", Some("401")))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    ops.market().step(1).await.unwrap();
    pin(&ops, "AAPL", "410.00", "409.99", "410.01").await;
    place(&client, &account, order("e3", "AAPL", "SELL", "3", None))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();

    let all = client
        .orders()
        .executions(&account, &ExecutionFilter::default())
        .await
        .unwrap();
    assert!(all.pagination_key.is_none());
    let rows: Vec<(&str, &str, &str, &str, &str)> = all
        .data
        .iter()
        .map(|e| {
            (
                e.client_order_id.as_str(),
                e.filled_quantity.as_str(),
                e.total_filled_qty.as_str(),
                e.leaves_qty.as_str(),
                e.execution_type.as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("e3", "3", "3", "0", "FILL"),
            ("e2", "2", "6", "0", "FILL"),
            ("e2", "4", "4", "2", "PARTIAL_FILL"),
            ("e1", "5", "5", "0", "FILL"),
        ]
    );
    let e3 = &all.data[0];
    assert_eq!(
        (
            e3.symbol.as_str(),
            e3.side.as_str(),
            e3.order_type.as_str(),
            e3.filled_price.as_str(),
            e3.commission.as_str(),
            e3.total_quantity.as_str(),
        ),
        ("AAPL", "SELL", "MARKET", "409.99", "1.02", "3")
    );
    assert_eq!(all.data[3].limit_price.as_deref(), Some("401"));
    assert!(e3.execution_time.ends_with('Z') && !e3.order_id.is_empty());
    let ids: Vec<i64> = all.data.iter().map(|e| e.execution_id.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first: {ids:?}");

    // v3: pages of one, each with the next page's key, none on the last.
    let mut key: Option<String> = None;
    let mut paged = Vec::new();
    loop {
        let filter = ExecutionFilter {
            pagination_key: key.as_deref(),
            page_size: Some(1),
            ..Default::default()
        };
        let page = client.orders().executions(&account, &filter).await.unwrap();
        assert_eq!(page.data.len(), 1);
        paged.push(page.data[0].execution_id.clone());
        match page.pagination_key {
            Some(next) => key = Some(next),
            None => break,
        }
    }
    assert_eq!(
        paged,
        all.data.iter().map(|e| e.execution_id.clone()).collect::<Vec<_>>()
    );

    // Filters: one order; UTC days (the fills are today's by the wall clock).
    let only_e2 = ExecutionFilter {
        client_order_id: Some("e2"),
        ..Default::default()
    };
    assert_eq!(
        client.orders().executions(&account, &only_e2).await.unwrap().data.len(),
        2
    );
    let today = signet_domain::marketdata::units::format_day(
        i32::try_from(signet_domain::simulator::clock::wall_clock_ms() / 86_400_000).unwrap(),
    );
    let days = |from: &'static str| ExecutionFilter {
        start_date: Some(from),
        ..Default::default()
    };
    assert_eq!(
        client
            .orders()
            .executions(&account, &days("2020-01-01"))
            .await
            .unwrap()
            .data
            .len(),
        4
    );
    let old = ExecutionFilter {
        start_date: Some("2020-01-01"),
        end_date: Some("2020-01-31"),
        ..Default::default()
    };
    assert!(
        client
            .orders()
            .executions(&account, &old)
            .await
            .unwrap()
            .data
            .is_empty()
    );
    let inverted = ExecutionFilter {
        start_date: Some(&today),
        end_date: Some("2020-01-31"),
        ..Default::default()
    };
    assert_eq!(
        code(client.orders().executions(&account, &inverted).await.unwrap_err()),
        ErrorCode::IllegalParameter
    );

    // v2: a bare array, the next page after the last execution_id.
    let path = "/trading/orders/executions/list";
    let query = |last: &str| format!("account_id={account}&page_size=3{last}");
    let first = call(&server, V2, path, &query(""), None).await;
    let first = first.body.as_array().expect("a bare array").clone();
    assert_eq!(first.len(), 3);
    let last = first[2]["execution_id"].as_str().unwrap();
    let rest = call(&server, V2, path, &query(&format!("&last_execution_id={last}")), None).await;
    let rest = rest.body.as_array().expect("a bare array").clone();
    let v2: Vec<&str> = first
        .iter()
        .chain(&rest)
        .map(|e| e["execution_id"].as_str().unwrap())
        .collect();
    assert_eq!(v2, paged.iter().map(String::as_str).collect::<Vec<_>>());
}

#[tokio::test]
async fn another_apps_account_is_refused_on_balance_positions_and_executions() {
    let (server, _ops) = market(false).await;
    let other = server.admin().create_app("other", Decimal::from(1_000)).await.unwrap();
    let other = server.client_for(&other);
    let mine = server.app.account_ids[0].clone();
    for account in [mine.as_str(), "NO-SUCH-ACCOUNT"] {
        let balance = other.accounts().balance(account).await.unwrap_err();
        let positions = other.accounts().positions(account).await.unwrap_err();
        let executions = other
            .orders()
            .executions(account, &ExecutionFilter::default())
            .await
            .unwrap_err();
        for e in [balance, positions, executions] {
            assert!(matches!(e, Error::Api { status: 403, .. }), "{e}");
            assert_eq!(code(e), ErrorCode::AccountNotFoundOrDenied);
        }
    }
    let missing = server
        .client()
        .get::<AccountBalance>("/trading/assets/balances/get", &[])
        .await
        .unwrap_err();
    assert_eq!(code(missing), ErrorCode::IllegalParameter);
}

#[tokio::test]
async fn instruments_are_looked_up_by_symbol_and_paged_by_id() {
    let (server, _ops) = market(false).await;
    let client = server.client();
    let found = client
        .instruments()
        .list(&["MSFT", "AAPL", "NOPE"], None)
        .await
        .unwrap();
    let symbols: Vec<&str> = found.data.iter().map(|i| i.symbol.as_str()).collect();
    let mut sorted = symbols.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["AAPL", "MSFT"], "unknown symbols are left out");
    assert!(found.pagination_key.is_none());
    let aapl = found.data.iter().find(|i| i.symbol == "AAPL").unwrap();
    assert_eq!(
        (
            aapl.category.as_str(),
            aapl.sub_category.as_deref(),
            aapl.status.as_str(),
            aapl.currency.as_str()
        ),
        ("US_STOCK", Some("COMMON_STOCK"), "OC", "USD")
    );
    assert!(aapl.shortable && aapl.fractionable && aapl.marginable);
    // The id every other call uses: the positions' and the orders'.
    let raw: Value = client
        .get(
            "/trading/instruments/stocks/profiles/list",
            &[("symbols", "AAPL"), ("category", "US_STOCK")],
        )
        .await
        .unwrap();
    assert_eq!(raw["data"][0]["shortable"], json!(true), "flags are JSON booleans");
    assert!(raw.get("pagination_key").is_none());

    // Pages of two by id, the key absent on the last.
    let mut key: Option<String> = None;
    let mut ids = Vec::new();
    loop {
        let mut query = vec![("category", "US_STOCK"), ("page_size", "2")];
        query.extend(key.as_deref().map(|k| ("pagination_key", k)));
        let page: signet_model::assets::InstrumentPage = client
            .get("/trading/instruments/stocks/profiles/list", &query)
            .await
            .unwrap();
        ids.extend(page.data.iter().map(|i| i.instrument_id.parse::<i64>().unwrap()));
        match page.pagination_key {
            Some(next) => key = Some(next),
            None => break,
        }
    }
    assert_eq!(ids.len(), 5, "the five instruments of the demo prices");
    assert!(ids.windows(2).all(|w| w[0] < w[1]));

    let refusals = [
        vec![(
            "symbols",
            (0..101).map(|i| format!("S{i}")).collect::<Vec<_>>().join(","),
        )],
        vec![("category", "HK_STOCK".to_owned())],
        vec![("status", "XX".to_owned())],
        vec![("sub_category", "BONDS".to_owned())],
        vec![("pagination_key", "garbage!".to_owned())],
    ];
    for query in refusals {
        let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let e = client
            .get::<Value>("/trading/instruments/stocks/profiles/list", &query)
            .await
            .unwrap_err();
        assert_eq!(code(e), ErrorCode::IllegalParameter, "{query:?}");
    }
    let etfs: signet_model::assets::InstrumentPage = client
        .get(
            "/trading/instruments/stocks/profiles/list",
            &[("category", "US_STOCK"), ("sub_category", "ETF")],
        )
        .await
        .unwrap();
    assert!(etfs.data.is_empty(), "the demo prices hold no fund");
    let untradable: signet_model::assets::InstrumentPage = client
        .get(
            "/trading/instruments/stocks/profiles/list",
            &[("category", "US_STOCK"), ("status", "NT")],
        )
        .await
        .unwrap();
    assert!(untradable.data.is_empty(), "the simulator quotes every instrument");

    // The retired list: strict refuses it naming the current call.
    let legacy = "/openapi/instrument/stock/list";
    let strict = client
        .get::<Value>(legacy, &[("symbols", "AAPL"), ("category", "US_STOCK")])
        .await
        .unwrap_err();
    assert!(
        strict.to_string().contains("/trading/instruments/stocks/profiles/list"),
        "{strict}"
    );
    assert_eq!(code(strict), ErrorCode::NotFound);
}

#[tokio::test]
async fn the_retired_instrument_list_answers_a_bare_array_under_compat_legacy() {
    let (server, _ops) = market(true).await;
    let path = "/openapi/instrument/stock/list";
    let answer = call(&server, V2, path, "symbols=AAPL&category=US_STOCK&page_size=1000", None).await;
    let rows = answer.body.as_array().expect("a bare array");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["symbol"], "AAPL");
    assert!(rows[0].get("sub_category").is_none() && rows[0].get("maintenance_margin_long").is_none());
    // Paged with the last instrument id, under v3 as the Python client sends it.
    let first = call(
        &server,
        crate::common::Scheme::default(),
        path,
        "category=US_STOCK&page_size=3",
        None,
    )
    .await;
    let first = first.body.as_array().expect("a bare array").clone();
    assert_eq!(first.len(), 3);
    let last = first[2]["instrument_id"].as_str().unwrap();
    let rest = call(
        &server,
        crate::common::Scheme::default(),
        path,
        &format!("category=US_STOCK&last_instrument_id={last}&page_size=3"),
        None,
    )
    .await;
    assert_eq!(rest.body.as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn a_positions_detail_is_the_position_in_either_version_and_path() {
    let (server, ops) = market(true).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;
    place(&client, &account, order("d1", "AAPL", "BUY", "10", Some("401")))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    let positions = client.accounts().positions(&account).await.unwrap();
    let p = only(&positions, "AAPL");
    let query = format!("account_id={account}&instrument_id={}", p.instrument_id);
    let path = "/trading/assets/positions/get";
    let page = call(&server, crate::common::Scheme::default(), path, &query, None).await;
    assert_eq!(page.status.as_u16(), 200, "{:?}", page.body);
    let rows = page.body["data"].as_array().expect("a page");
    assert_eq!(rows.len(), 1);
    assert!(page.body.get("pagination_key").is_none(), "one page");
    let row = &rows[0];
    assert_eq!(
        (&row["id"], &row["symbol"], &row["quantity"], &row["instrument_id"]),
        (
            &json!(p.position_id),
            &json!("AAPL"),
            &json!("10"),
            &json!(p.instrument_id)
        )
    );
    assert_eq!(
        (
            d(row["average_price"].as_str().unwrap()),
            d(row["market_value"].as_str().unwrap())
        ),
        (d(&p.cost_price), d(&p.market_value))
    );
    assert_eq!(d(row["unrealized_pl"].as_str().unwrap()), d(&p.unrealized_profit_loss));
    assert_eq!((&row["currency"], &row["fx_rate"]), (&json!("USD"), &json!("1")));
    assert_eq!(row["symbol_name"].as_str().map(str::is_empty), Some(false));
    // The legacy protocol: x-version v2 on the same path, and the retired path, a bare array.
    for (scheme, path) in [(V2, path), (V2, "/openapi/assets/position/details")] {
        let legacy = call(&server, scheme, path, &format!("{query}&page_size=10"), None).await;
        assert_eq!(
            legacy.body.as_array().map(|rows| rows[0]["id"].clone()),
            Some(json!(p.position_id)),
            "{path}"
        );
    }
    // An instrument not held: no rows; no instrument_id: refused.
    let none = call(
        &server,
        crate::common::Scheme::default(),
        path,
        &format!("account_id={account}&instrument_id=999999"),
        None,
    )
    .await;
    assert_eq!(none.body["data"], json!([]));
    let missing = call(
        &server,
        crate::common::Scheme::default(),
        path,
        &format!("account_id={account}"),
        None,
    )
    .await;
    assert_eq!(
        (missing.status.as_u16(), &missing.body["error_code"]),
        (400, &json!("ILLEGAL_PARAMETER"))
    );
    // Another app's account.
    let other = server.admin().create_app("other", Decimal::from(1_000)).await.unwrap();
    let e = server
        .client_for(&other)
        .get::<Value>(
            path,
            &[
                ("account_id", account.as_str()),
                ("instrument_id", p.instrument_id.as_str()),
            ],
        )
        .await
        .unwrap_err();
    assert_eq!(code(e), ErrorCode::AccountNotFoundOrDenied);
}

/// The cash activities: the opening deposit, each fill's trade amount and commission, adding up
/// to the cash; by type, in pages, and in the earlier protocol under `--compat legacy`.
#[tokio::test]
async fn cash_activities_are_the_deposit_and_each_fill_and_add_up_to_the_cash() {
    let (server, ops) = market(true).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    pin(&ops, "AAPL", "400.00", "399.99", "400.01").await;
    place(&client, &account, order("b1", "AAPL", "BUY", "10", Some("401")))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    place(&client, &account, order("s1", "AAPL", "SELL", "4", None))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();

    let page: Value = client
        .get(
            "/trading/activities/cash-activities/list",
            &[("account_id", account.as_str())],
        )
        .await
        .unwrap();
    let rows: Vec<(String, String, Decimal)> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["activity_id"].as_str().unwrap().to_owned(),
                a["activity_type"].as_str().unwrap().to_owned(),
                d(a["amount"].as_str().unwrap()),
            )
        })
        .collect();
    let kinds: Vec<&str> = rows.iter().map(|(_, k, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        ["FEES", "TRADE", "FEES", "TRADE", "DEPOSIT"],
        "newest first: {page}"
    );
    // Bought 10 at the ask (400.01) and sold 4 at the bid (399.99), 0.005 a share and 1 an order.
    let amounts: Vec<Decimal> = rows.iter().map(|(_, _, a)| *a).collect();
    assert_eq!(
        amounts,
        [d("-1.02"), d("1599.96"), d("-1.05"), d("-4000.1"), d("100000")]
    );
    let balance = client.accounts().balance(&account).await.unwrap();
    assert_eq!(
        amounts.iter().sum::<Decimal>(),
        d(&balance.total_cash_balance),
        "they add up to the cash"
    );
    assert_eq!(page["data"][1]["client_order_id"], json!("s1"));
    assert_eq!(page["data"][1]["symbol"], json!("AAPL"));

    let fees: Value = client
        .get(
            "/trading/activities/cash-activities/list",
            &[
                ("account_id", account.as_str()),
                ("activity_types", "FEES"),
                ("page_size", "1"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(fees["data"].as_array().map(Vec::len), Some(1));
    let key = fees["pagination_key"].as_str().expect("a second page").to_owned();
    let next: Value = client
        .get(
            "/trading/activities/cash-activities/list",
            &[
                ("account_id", account.as_str()),
                ("activity_types", "FEES"),
                ("page_size", "1"),
                ("pagination_key", key.as_str()),
            ],
        )
        .await
        .unwrap();
    assert_eq!(next["data"][0]["amount"], json!("-1.05"));
    assert!(next.get("pagination_key").is_none(), "the last page");
    let none: Value = client
        .get(
            "/trading/activities/cash-activities/list",
            &[("account_id", account.as_str()), ("activity_types", "WITHDRAW")],
        )
        .await
        .unwrap();
    assert_eq!(none["data"], json!([]));

    // The earlier protocol: a bare array after `last_activity_id`.
    let query = format!("account_id={account}&last_activity_id={}&page_size=2", rows[1].0);
    let earlier = call(&server, V2, "/openapi/trade/activities/cash", &query, None).await;
    assert_eq!(earlier.status.as_u16(), 200, "{}", earlier.body);
    let ids: Vec<&str> = earlier
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["activity_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [rows[2].0.as_str(), rows[3].0.as_str()]);

    for query in [
        vec![("account_id", account.as_str()), ("activity_types", "BOGUS")],
        vec![("account_id", account.as_str()), ("start_time", "yesterday")],
        vec![
            ("account_id", account.as_str()),
            ("start_time", "2030-01-02"),
            ("end_time", "2030-01-01"),
        ],
    ] {
        let e = client
            .get::<Value>("/trading/activities/cash-activities/list", &query)
            .await
            .unwrap_err();
        assert_eq!(code(e), ErrorCode::IllegalParameter, "{query:?}");
    }
}
