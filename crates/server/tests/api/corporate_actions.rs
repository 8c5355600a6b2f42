//! Splits and dividends applied to the positions held when the market crosses their ex-dates:
//! AAPL's real dividend of 2012-08-09 in a replayed day, a made-up 3-for-2 split, once per
//! account however many crossings run at once, and never twice.

use std::path::Path;
use std::sync::Arc;

use rust_decimal::Decimal;
use serde_json::{Value, json};
use signet_client::{ActivityFilter, Client};
use signet_domain::marketdata::units::parse_day;
use signet_domain::times::WallTime;
use signet_import::{Progress, import_file};
use signet_model::ErrorCode;
use signet_model::assets::{CashActivity, Position};
use signet_model::orders::OrderStatus;
use signet_store::refresh_snapshots;

use crate::assets::{order, place};
use crate::common::TestServer;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// To the cent, half away from zero, as dividends are paid.
fn cents(amount: Decimal) -> Decimal {
    amount.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
}

/// SPLT, a made-up stock at 60 that splits 3 for 2 on Thursday 2012-08-09 (40 from then on): its
/// adjusted close is continuous, as a data vendor's is.
const SPLIT_HISTORY: &str = "Ticker,Date,Open,High,Low,Close,Volume,Adj Close
SPLT,2012-08-06,60,61,59,60,100000,40
SPLT,2012-08-07,60,61,59,60,100000,40
SPLT,2012-08-08,60,61,59,60,100000,40
SPLT,2012-08-09,40,41,39,40,150000,40
SPLT,2012-08-10,40,41,39,40,150000,40
";

/// A manual-clock market at the core open of Wednesday 2012-08-08, on the demo's history and
/// SPLT's, with the ex-dates crossed up to that day.
async fn market() -> (TestServer, Client) {
    let server = TestServer::start_market("2012-08-08", 2012).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("splt.csv");
    std::fs::write(&file, SPLIT_HISTORY).unwrap();
    let store = server.database.store.clone();
    import_file(
        store.clone(),
        Path::new(&file),
        &Default::default(),
        Arc::new(Progress::default()),
    )
    .await
    .expect("SPLT's history");
    refresh_snapshots(store.as_ref(), None).await.unwrap();
    let server = server.restart().await;
    let ops = server.ops().await;
    // The first tick on a database only marks the day: nothing before it is applied.
    ops.market().step(1).await.unwrap();
    (server, ops)
}

/// AAPL's dividend of 2012-08-09, as `/instrument/corp-action` lists it.
async fn aapl_dividend(client: &Client) -> Decimal {
    let aapl: Value = client
        .get("/trading/instruments/stocks/profiles/list", &[("symbols", "AAPL")])
        .await
        .unwrap();
    let id = aapl["data"][0]["instrument_id"].as_str().unwrap().to_owned();
    let actions: Vec<signet_model::quotes::CorpAction> = client
        .get(
            "/instrument/corp-action",
            &[
                ("instrument_ids", id.as_str()),
                ("event_types", "DIVIDEND"),
                ("start_date", "2012-08-09"),
                ("end_date", "2012-08-09"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(actions.len(), 1, "AAPL went ex-dividend on 2012-08-09: {actions:?}");
    d(actions[0].amount.as_deref().unwrap())
}

async fn cash(client: &Client, account: &str) -> Decimal {
    d(&client.accounts().balance(account).await.unwrap().total_cash_balance)
}

fn position<'a>(positions: &'a [Position], symbol: &str) -> &'a Position {
    positions.iter().find(|p| p.symbol == symbol).expect("a position")
}

async fn activities(client: &Client, account: &str, types: &str) -> Vec<CashActivity> {
    let filter = ActivityFilter {
        activity_types: Some(types),
        ..ActivityFilter::default()
    };
    client.accounts().cash_activities(account, &filter).await.unwrap().data
}

#[tokio::test]
async fn a_dividend_pays_holders_and_a_split_multiplies_shares_at_the_ex_date() {
    let (server, ops) = market().await;
    let client = server.client();
    let (cash_account, margin_account) = (server.app.account_ids[0].clone(), server.app.account_ids[1].clone());
    let dividend = aapl_dividend(&client).await;
    assert!((d("2.60")..=d("2.70")).contains(&dividend), "about 2.65: {dividend}");

    place(&client, &cash_account, order("aapl", "AAPL", "BUY", "10", None))
        .await
        .unwrap();
    place(&client, &margin_account, order("splt", "SPLT", "BUY", "5", None))
        .await
        .unwrap();
    place(&client, &margin_account, order("short", "AAPL", "SHORT", "3", None))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    // Open GTC orders: a split cancels its instrument's, a dividend leaves them.
    let mut sell = order("splt-sell", "SPLT", "SELL", "5", Some("100"));
    sell["time_in_force"] = "GTC".into();
    place(&client, &margin_account, sell).await.unwrap();
    let mut bid = order("aapl-bid", "AAPL", "BUY", "1", Some("1"));
    bid["time_in_force"] = "GTC".into();
    place(&client, &cash_account, bid).await.unwrap();
    let splt_cost = d(&position(&client.accounts().positions(&margin_account).await.unwrap(), "SPLT").cost_price);
    let (cash_before, margin_before) = (cash(&client, &cash_account).await, cash(&client, &margin_account).await);

    let mut events = crate::events::subscribe(&server, &[&margin_account]).await;
    assert_eq!(crate::events::next(&mut events).await.unwrap().unwrap().event_type, 0);

    // Into Thursday 2012-08-09, the ex-date of both.
    ops.market().step(15 * 3600).await.unwrap();

    // The split is a position event of the account (no order made it), after the cancellation
    // of the order it made meaningless; the dividend is none (no trade event carries cash).
    let (cancelled, _) = crate::events::next_order_event(&mut events).await;
    assert!(cancelled.payload.contains("splt-sell") && cancelled.payload.contains("CANCELLED"));
    let (event, payload) = crate::events::next_event(&mut events).await;
    assert_eq!((event.event_type, event.subscribe_type), (1028, 2), "{event:?}");
    assert_eq!(
        (&payload["symbol"], &payload["quantity"], &payload["corporate_action"]),
        (&json!("SPLT"), &json!("7"), &json!("SPLIT"))
    );
    assert!(payload.get("order_id").is_none(), "{payload}");

    let paid = cents(d("10") * dividend);
    let lieu = d("20"); // half a share at 60 / 1.5
    assert_eq!(cash(&client, &cash_account).await, cash_before + paid);
    assert_eq!(
        cash(&client, &margin_account).await,
        margin_before - cents(d("3") * dividend) + lieu,
        "a short seller pays the dividend"
    );
    let positions = client.accounts().positions(&margin_account).await.unwrap();
    let splt = position(&positions, "SPLT");
    assert_eq!(splt.quantity, "7", "5 × 1.5 = 7.5: 7 kept, the half paid in cash");
    assert_eq!(d(&splt.cost_price), splt_cost / d("1.5"));
    assert_eq!(position(&positions, "AAPL").quantity, "-3");
    let positions = client.accounts().positions(&cash_account).await.unwrap();
    assert_eq!(position(&positions, "AAPL").quantity, "10");

    let orders = client.orders();
    let cancelled = orders.get(&margin_account, "splt-sell").await.unwrap();
    assert_eq!(cancelled.orders[0].status, OrderStatus::Cancelled);
    let still = orders.get(&cash_account, "aapl-bid").await.unwrap();
    assert_eq!(still.orders[0].status, OrderStatus::Submitted);

    let dividends = activities(&client, &cash_account, "DIVIDEND").await;
    assert_eq!(dividends.len(), 1, "{dividends:?}");
    assert_eq!(
        (d(&dividends[0].amount), dividends[0].symbol.as_deref()),
        (paid, Some("AAPL"))
    );
    let splits = activities(&client, &margin_account, "SPLIT").await;
    assert_eq!(splits.len(), 1, "{splits:?}");
    assert_eq!(d(&splits[0].amount), lieu);
    assert_eq!(
        splits[0].description,
        "1.5 for 1 split of SPLT: 5 shares became 7, the fraction paid in cash"
    );
    // Placement sees the cash the crossing paid (on PostgreSQL through the account's change
    // feed, where the claims are followed, though no order of the account changed): all of it,
    // and not a cent more, buys. The open bid claims 1.
    let buying_power = cash_before + paid - d("1");
    let all_in = |id: &str, price: Decimal| order(id, "AAPL", "BUY", "1", Some(&price.to_string()));
    let refused = place(&client, &cash_account, all_in("too-much", buying_power + d("0.01")))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Some(ErrorCode::InsufficientBuyingPower));
    place(&client, &cash_account, all_in("all-in", buying_power))
        .await
        .expect("the dividend and the cash in lieu are buying power at once");
    orders.cancel(&cash_account, "all-in").await.unwrap();

    for account in [&cash_account, &margin_account] {
        let all = activities(&client, account, "").await;
        assert_eq!(
            all.iter().map(|a| d(&a.amount)).sum::<Decimal>(),
            cash(&client, account).await,
            "the ledger adds up to the cash: {all:?}"
        );
    }

    // On the ex-date the previous close is quoted as the split made it (60 / 1.5), and the
    // thin tape before the open trades around it.
    let splt_quote = ops.market().quote("SPLT").await.unwrap();
    assert_eq!(splt_quote.pre_close, "40.00");
    assert!(
        (d(&splt_quote.last) - d("40.00")).abs() < d("0.40"),
        "{}",
        splt_quote.last
    );

    // The console shows them on the account's page, and today's P&L before any trade is the
    // dividends alone: the split moved no value (7 shares and 20 in cash at 40 are the 5 at 60
    // the account closed with), and the prices, which the thin overnight tape moves, are held
    // at the previous closes.
    for symbol in ["AAPL", "SPLT"] {
        let pre_close = ops.market().quote(symbol).await.unwrap().pre_close;
        ops.market().set(symbol, &pre_close, None, None, None).await.unwrap();
    }
    let cookie = crate::console::sign_in(&server).await;
    let (status, html) = crate::console::page(&server, &cookie, &format!("/console/accounts/{margin_account}")).await;
    assert_eq!(status.as_u16(), 200);
    assert!(html.contains("Splits and dividends") && html.contains("SPLT") && html.contains("DIVIDEND"));
    let today = |amount: Decimal| format!("<dd>{:.2}</dd>", amount.round_dp(2));
    assert!(
        html.contains(&today(-cents(d("3") * dividend))),
        "the short paid its dividend"
    );
    let (_, html) = crate::console::page(&server, &cookie, &format!("/console/accounts/{cash_account}")).await;
    assert!(html.contains(&today(paid)), "the long was paid its dividend");

    // A day later, and after a restart, nothing is applied again.
    ops.market().step(24 * 3600).await.unwrap();
    let server = server.restart().await;
    let client = server.client();
    server.ops().await.market().step(1).await.unwrap();
    assert_eq!(activities(&client, &cash_account, "DIVIDEND,SPLIT").await.len(), 1);
    assert_eq!(activities(&client, &margin_account, "DIVIDEND,SPLIT").await.len(), 2);
    assert_eq!(cash(&client, &cash_account).await, cash_before + paid);
}

/// Nodes crossing the same day at once apply it once; a clock set back and moved forward again
/// does not pay twice. Straight at the store, as the engines of several nodes call it.
#[tokio::test]
async fn crossings_at_once_apply_each_action_once() {
    let (server, ops) = market().await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    place(&client, &account, order("aapl", "AAPL", "BUY", "10", None))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    let store = server.database.store.clone();
    let cash_before = store.account(&account).await.unwrap().unwrap().cash;
    let (wednesday, thursday) = (parse_day("2012-08-08").unwrap(), parse_day("2012-08-09").unwrap());

    let crossings: Vec<_> = (0..8)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.cross_ex_dates(thursday, WallTime::now()).await.unwrap() })
        })
        .collect();
    let mut crossed = Vec::new();
    for crossing in crossings {
        crossed.push(crossing.await.unwrap());
    }
    let applied: Vec<usize> = crossed.iter().map(|c| c.applied.len()).filter(|n| *n > 0).collect();
    assert_eq!(applied, [1], "one crossing applied AAPL's dividend to the one holder");

    // Back to Wednesday and forward again: the dividend stays paid once.
    assert!(
        store
            .cross_ex_dates(wednesday, WallTime::now())
            .await
            .unwrap()
            .applied
            .is_empty()
    );
    assert!(
        store
            .cross_ex_dates(thursday, WallTime::now())
            .await
            .unwrap()
            .applied
            .is_empty()
    );
    let entries = store.applied_actions(&account).await.unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        store.account(&account).await.unwrap().unwrap().cash,
        cash_before + entries[0].cash
    );
    assert_eq!(entries[0].cash, cents(d("10") * entries[0].value));
}
