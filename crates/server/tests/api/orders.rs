//! Orders against a real server with a manual market clock: placement and refusals, fills
//! against pinned quotes, partial fills, IOC and DAY expiry, cancel and replace, listings,
//! ownership, and the account's cash and positions.

use rust_decimal::Decimal;
use serde_json::{Value, json};
use signet_client::{Client, Error};
use signet_model::ErrorCode;
use signet_model::ids::AccountId;
use signet_model::orders::{OrderPage, OrderRecord, OrderStatus};
use signet_model::quotes::{Tick, Ticks};
use signet_model::wire::WireEnum;

use crate::common::TestServer;

struct Desk {
    server: TestServer,
    /// The app's own client (trading).
    client: Client,
    /// An admin app's client (market controls).
    ops: Client,
    cash_account: AccountId,
    margin_account: AccountId,
}

/// A manual-clock server at the core open of Monday 2013-02-25 on the real price history.
async fn desk() -> Desk {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let (cash_account, margin_account) = (server.app.account_ids[0].clone(), server.app.account_ids[1].clone());
    Desk {
        server,
        client,
        ops,
        cash_account,
        margin_account,
    }
}

fn order(id: &str, side: &str, order_type: &str, quantity: &str, limit: Option<&str>) -> Value {
    let mut o = json!({
        "client_order_id": id, "combo_type": "NORMAL", "symbol": "AAPL", "side": side, "order_type": order_type,
        "time_in_force": "DAY", "entrust_type": "QTY", "quantity": quantity, "instrument_type": "EQUITY",
        "market": "US", "support_trading_session": "CORE"
    });
    if let Some(limit) = limit {
        o["limit_price"] = json!(limit);
    }
    o
}

impl Desk {
    async fn place(&self, account: &str, order: Value) -> Result<Value, Error> {
        self.client
            .post(
                "/trading/orders/place",
                &json!({"account_id": account, "new_orders": [order]}),
            )
            .await
    }

    async fn detail(&self, account: &str, id: &str) -> OrderRecord {
        self.client
            .get(
                "/trading/orders/get",
                &[("account_id", account), ("client_order_id", id)],
            )
            .await
            .unwrap()
    }

    async fn status(&self, account: &str, id: &str) -> (OrderStatus, String) {
        let record = self.detail(account, id).await;
        (record.orders[0].status, record.orders[0].filled_quantity.clone())
    }

    async fn pin(&self, price: &str, bid: &str, ask: &str, size: u64) {
        self.ops
            .market()
            .set("AAPL", price, Some(bid), Some(ask), Some(size))
            .await
            .unwrap();
    }

    async fn step(&self, seconds: u64) {
        self.ops.market().step(seconds).await.unwrap();
    }

    async fn cash(&self, account: &str) -> Decimal {
        let accounts = self.server.admin().accounts(None).await.unwrap();
        accounts.into_iter().find(|a| a.account_id == account).unwrap().cash
    }

    async fn position(&self, account: &str) -> Decimal {
        let positions = self.server.database.store.positions(&account.into()).await.unwrap();
        positions
            .into_iter()
            .find(|p| p.symbol == "AAPL")
            .map_or(Decimal::ZERO, |p| p.holding.quantity)
    }
}

fn code(e: Error) -> ErrorCode {
    e.code().unwrap_or_else(|| panic!("an error code, got {e}"))
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

#[tokio::test]
async fn a_marketable_limit_buy_fills_at_the_ask_and_moves_cash_and_position() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let ack = desk
        .place(&desk.cash_account, order("buy1", "BUY", "LIMIT", "10", Some("401")))
        .await
        .unwrap();
    assert_eq!(
        (ack["client_order_id"].as_str(), ack["status"].as_str()),
        (Some("buy1"), Some("SUBMITTED"))
    );
    assert!(ack["order_id"].is_string());

    desk.step(1).await;
    let record = desk.detail(&desk.cash_account, "buy1").await;
    let o = &record.orders[0];
    assert_eq!(
        (o.status, o.filled_quantity.as_str(), o.filled_price.as_deref()),
        (OrderStatus::Filled, "10", Some("400.01"))
    );
    assert!(o.fill_time.is_some() && o.place_time.ends_with('Z') && o.place_time.len() == 24);
    let raw: Value = desk
        .client
        .get(
            "/trading/orders/get",
            &[("account_id", desk.cash_account.as_str()), ("client_order_id", "buy1")],
        )
        .await
        .unwrap();
    let text = raw.to_string();
    assert!(text.contains("\"place_time\"") && text.contains("\"fill_time\""));
    assert!(
        !text.contains("place_time_at") && !text.contains("filled_time_at"),
        "the retired names: {text}"
    );
    assert_eq!(desk.cash(&desk.cash_account).await, d("100000") - d("4000.1"));
    assert_eq!(desk.position(&desk.cash_account).await, d("10"));

    // Selling fills at the bid and brings the cash back, less the spread.
    desk.place(&desk.cash_account, order("sell1", "SELL", "MARKET", "10", None))
        .await
        .unwrap();
    desk.step(1).await;
    assert_eq!(desk.status(&desk.cash_account, "sell1").await.0, OrderStatus::Filled);
    assert_eq!(desk.cash(&desk.cash_account).await, d("100000") - d("0.2"));
    assert_eq!(desk.position(&desk.cash_account).await, d("0"));
}

#[tokio::test]
async fn a_limit_waits_until_the_quote_crosses_it() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    desk.place(&desk.cash_account, order("wait", "BUY", "LIMIT", "5", Some("390")))
        .await
        .unwrap();
    desk.step(5).await;
    assert_eq!(desk.status(&desk.cash_account, "wait").await.0, OrderStatus::Submitted);
    desk.pin("389.50", "389.49", "389.51", 10_000).await;
    desk.step(1).await;
    let record = desk.detail(&desk.cash_account, "wait").await;
    assert_eq!(
        record.orders[0].filled_price.as_deref(),
        Some("389.51"),
        "the better of the limit and the ask"
    );
}

#[tokio::test]
async fn a_stop_loss_sells_once_the_last_price_reaches_its_stop() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    desk.place(&desk.cash_account, order("own", "BUY", "MARKET", "10", None))
        .await
        .unwrap();
    desk.step(1).await;
    let mut stop = order("stop", "SELL", "STOP_LOSS", "10", None);
    stop["stop_price"] = json!("390");
    stop["time_in_force"] = json!("GTC");
    desk.place(&desk.cash_account, stop).await.unwrap();
    desk.pin("391.00", "390.99", "391.01", 10_000).await;
    desk.step(5).await;
    assert_eq!(desk.status(&desk.cash_account, "stop").await.0, OrderStatus::Submitted);
    // The last price reaches the stop; the order sells at the bid, which is below it.
    desk.pin("389.90", "389.80", "389.95", 10_000).await;
    desk.step(1).await;
    let o = &desk.detail(&desk.cash_account, "stop").await.orders[0];
    assert_eq!(
        (o.status, o.filled_price.as_deref(), o.stop_price.as_deref()),
        (OrderStatus::Filled, Some("389.8"), Some("390"))
    );
    assert_eq!(desk.position(&desk.cash_account).await, d("0"));
}

#[tokio::test]
async fn a_stop_limit_buy_triggers_then_waits_for_its_limit() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let mut o = order("sl", "BUY", "STOP_LOSS_LIMIT", "5", Some("406"));
    o["stop_price"] = json!("405");
    desk.place(&desk.cash_account, o).await.unwrap();
    // Triggered at 405, but the ask is above the limit: it rests as a limit order...
    desk.pin("407.00", "406.99", "407.01", 10_000).await;
    desk.step(1).await;
    assert_eq!(desk.status(&desk.cash_account, "sl").await.0, OrderStatus::Submitted);
    // ...and fills when the ask comes back under the limit, although the last is below the stop.
    desk.pin("404.00", "403.99", "404.01", 10_000).await;
    desk.step(1).await;
    let o = &desk.detail(&desk.cash_account, "sl").await.orders[0];
    assert_eq!(
        (o.status, o.filled_price.as_deref()),
        (OrderStatus::Filled, Some("404.01"))
    );
}

#[tokio::test]
async fn a_trailing_stop_follows_the_price_up_and_sells_on_the_way_down() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    desk.place(&desk.margin_account, order("own", "BUY", "MARKET", "4", None))
        .await
        .unwrap();
    desk.step(1).await;
    let mut trail = order("trail", "SELL", "TRAILING_STOP_LOSS", "4", None);
    trail["trailing_type"] = json!("AMOUNT");
    trail["trailing_stop_step"] = json!("10");
    desk.place(&desk.margin_account, trail).await.unwrap();
    let stop = |record: OrderRecord| record.orders[0].stop_price.clone().unwrap();
    assert_eq!(stop(desk.detail(&desk.margin_account, "trail").await), "390");
    let detail = desk.detail(&desk.margin_account, "trail").await;
    assert_eq!(
        (
            detail.orders[0].trailing_stop_step.as_deref(),
            detail.orders[0].trailing_type.map(WireEnum::as_str)
        ),
        (Some("10"), Some("AMOUNT"))
    );
    desk.pin("420.00", "419.99", "420.01", 10_000).await;
    desk.step(1).await;
    assert_eq!(stop(desk.detail(&desk.margin_account, "trail").await), "410");
    desk.pin("415.00", "414.99", "415.01", 10_000).await;
    desk.step(1).await;
    assert_eq!(
        desk.status(&desk.margin_account, "trail").await.0,
        OrderStatus::Submitted,
        "a fall above the stop keeps it where it was"
    );
    assert_eq!(stop(desk.detail(&desk.margin_account, "trail").await), "410");
    desk.pin("409.00", "408.99", "409.01", 10_000).await;
    desk.step(1).await;
    let o = &desk.detail(&desk.margin_account, "trail").await.orders[0];
    assert_eq!(
        (o.status, o.filled_price.as_deref()),
        (OrderStatus::Filled, Some("408.99"))
    );
}

#[tokio::test]
async fn a_gtd_order_lasts_until_the_close_of_its_date_and_a_stop_can_be_replaced() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let mut gtd = order("gtd", "BUY", "LIMIT", "1", Some("300"));
    gtd["time_in_force"] = json!("GTD");
    gtd["expire_date"] = json!("2013-02-26");
    desk.place(&desk.cash_account, gtd).await.unwrap();
    let detail = desk.detail(&desk.cash_account, "gtd").await;
    assert_eq!(
        (
            detail.orders[0].time_in_force.as_str(),
            detail.orders[0].expire_date.as_deref()
        ),
        ("GTD", Some("2013-02-26"))
    );
    let mut past = order("past", "BUY", "LIMIT", "1", Some("300"));
    past["time_in_force"] = json!("GTD");
    past["expire_date"] = json!("2013-02-22");
    assert_eq!(
        code(desk.place(&desk.cash_account, past).await.unwrap_err()),
        ErrorCode::IllegalParameter
    );
    // Past Monday's close it is still open; past Tuesday's, cancelled.
    desk.step(7 * 3600).await;
    assert_eq!(desk.status(&desk.cash_account, "gtd").await.0, OrderStatus::Submitted);
    desk.step(24 * 3600).await;
    let ended = desk.detail(&desk.cash_account, "gtd").await;
    assert_eq!(ended.orders[0].status, OrderStatus::Cancelled);
    assert!(ended.orders[0].reason.as_deref().unwrap().contains("expire_date"));

    // A waiting stop takes a new stop_price; a LIMIT order does not.
    let mut stop = order("stop2", "BUY", "STOP_LOSS", "1", None);
    stop["stop_price"] = json!("500");
    stop["time_in_force"] = json!("GTC");
    desk.place(&desk.cash_account, stop).await.unwrap();
    let replace = |id: &str, field: &str, value: &str| json!({"account_id": desk.cash_account, "modify_orders": [{"client_order_id": id, field: value}]});
    let _: Value = desk
        .client
        .post("/trading/orders/replace", &replace("stop2", "stop_price", "510"))
        .await
        .unwrap();
    let replaced = desk.detail(&desk.cash_account, "stop2").await;
    assert_eq!(replaced.orders[0].stop_price.as_deref(), Some("510"));
    let mut limit = order("lim", "BUY", "LIMIT", "1", Some("300"));
    limit["time_in_force"] = json!("GTC");
    desk.place(&desk.cash_account, limit).await.unwrap();
    let refused = desk
        .client
        .post::<_, Value>("/trading/orders/replace", &replace("lim", "stop_price", "310"))
        .await
        .unwrap_err();
    assert_eq!(code(refused), ErrorCode::IllegalParameter);
}

#[tokio::test]
async fn an_amount_order_buys_the_fractional_shares_its_cash_pays_for() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let mut o = order("cash", "BUY", "MARKET", "1", None);
    o["entrust_type"] = json!("AMOUNT");
    o["quantity"] = Value::Null;
    o["total_cash_amount"] = json!("1000");
    desk.place(&desk.cash_account, o).await.unwrap();
    desk.step(1).await;
    let detail = desk.detail(&desk.cash_account, "cash").await;
    let o = &detail.orders[0];
    assert_eq!(
        (
            o.status,
            o.entrust_type.as_str(),
            o.total_cash_amount.as_deref(),
            o.total_quantity.as_str()
        ),
        (OrderStatus::Filled, "AMOUNT", Some("1000"), "2.499937"),
        "1000 / 400.01, rounded down to the millionth"
    );
    assert_eq!(desk.position(&desk.cash_account).await, d("2.499937"));
    assert_eq!(
        desk.cash(&desk.cash_account).await,
        d("100000") - d("2.499937") * d("400.01")
    );
}

#[tokio::test]
async fn a_margin_account_sells_short_and_covers() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    desk.place(&desk.margin_account, order("short", "SHORT", "MARKET", "10", None))
        .await
        .unwrap();
    desk.step(1).await;
    assert_eq!(desk.status(&desk.margin_account, "short").await.0, OrderStatus::Filled);
    assert_eq!(desk.position(&desk.margin_account).await, d("-10"));
    assert_eq!(desk.cash(&desk.margin_account).await, d("100000") + d("3999.9"));
    // Short while short is fine; a SELL is not (nothing is held).
    assert_eq!(
        code(
            desk.place(&desk.margin_account, order("sell", "SELL", "MARKET", "1", None))
                .await
                .unwrap_err()
        ),
        ErrorCode::InsufficientPosition
    );
    desk.pin("390.00", "389.99", "390.01", 10_000).await;
    desk.place(&desk.margin_account, order("cover", "BUY", "MARKET", "10", None))
        .await
        .unwrap();
    desk.step(1).await;
    assert_eq!(desk.position(&desk.margin_account).await, d("0"));
    assert_eq!(
        desk.cash(&desk.margin_account).await,
        d("100000") + d("3999.9") - d("3900.1"),
        "sold at 399.99, bought back at 390.01"
    );

    // A CASH account does not sell short, and neither does an account holding the shares long.
    assert_eq!(
        code(
            desk.place(&desk.cash_account, order("cs", "SHORT", "MARKET", "1", None))
                .await
                .unwrap_err()
        ),
        ErrorCode::UnsupportedSide
    );
    desk.place(&desk.margin_account, order("long", "BUY", "MARKET", "1", None))
        .await
        .unwrap();
    desk.step(1).await;
    assert_eq!(
        code(
            desk.place(&desk.margin_account, order("ls", "SHORT", "MARKET", "1", None))
                .await
                .unwrap_err()
        ),
        ErrorCode::InsufficientPosition
    );
}

#[tokio::test]
async fn a_large_market_order_walks_the_book_and_pays_what_the_depth_shows() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 120).await;
    // The book before the order: what it will walk.
    let depth = desk.client.stocks().depth("AAPL", Some(10)).await.unwrap();
    let levels: Vec<(Decimal, Decimal)> = depth
        .asks
        .iter()
        .map(|l| (l.price.parse().unwrap(), l.size.parse().unwrap()))
        .collect();
    assert_eq!(
        levels[0],
        (Decimal::new(40_001, 2), Decimal::from(120)),
        "the top is the quote"
    );
    desk.place(&desk.margin_account, order("big", "BUY", "MARKET", "400", None))
        .await
        .unwrap();
    desk.ops.market().step(1).await.unwrap();
    let (status, filled) = desk.status(&desk.margin_account, "big").await;
    assert_eq!((status, filled.as_str()), (OrderStatus::Filled, "400"));
    // One execution a level, at once: 120 at the ask, then as much as each next level shows.
    let mut left = Decimal::from(400);
    let mut expected = Vec::new();
    for (price, size) in levels {
        if left.is_zero() {
            break;
        }
        let take = left.min(size);
        expected.push((take, price));
        left -= take;
    }
    let executions = desk
        .client
        .orders()
        .executions(&desk.margin_account, &signet_client::ExecutionFilter::default())
        .await
        .unwrap();
    let mut got: Vec<(Decimal, Decimal)> = executions
        .data
        .iter()
        .filter(|e| e.client_order_id == "big")
        .map(|e| (e.filled_quantity.parse().unwrap(), e.filled_price.parse().unwrap()))
        .collect();
    got.reverse();
    assert_eq!(got, expected);
    assert!(got.len() >= 2, "larger than the top of the book: {got:?}");
    let average: Decimal = got.iter().map(|(q, p)| q * p).sum::<Decimal>() / Decimal::from(400);
    let record = desk.detail(&desk.margin_account, "big").await;
    let shown: Decimal = record.orders[0].filled_price.as_deref().unwrap().parse().unwrap();
    assert_eq!(shown, average.round_dp(shown.scale()), "the order's average price");
    assert!(average > Decimal::new(40_001, 2), "worse than the ask: {average}");
}

/// The events recorded for an order, in order.
async fn events(desk: &Desk, account: &str, client_order_id: &str) -> Vec<String> {
    let order = desk
        .server
        .database
        .store
        .order(&account.into(), &client_order_id.into())
        .await
        .unwrap()
        .unwrap();
    desk.server.order_events(&order.order_id).await
}

#[tokio::test]
async fn ioc_fills_what_it_can_at_once_and_cancels_the_rest() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 100).await;
    // Its limit is the ask: the next level of the book is beyond it.
    let mut ioc = order("ioc", "BUY", "LIMIT", "300", Some("400.01"));
    ioc["time_in_force"] = json!("IOC");
    desk.place(&desk.margin_account, ioc).await.unwrap();
    desk.step(2).await;
    let record = desk.detail(&desk.margin_account, "ioc").await;
    let o = &record.orders[0];
    assert_eq!((o.status, o.filled_quantity.as_str()), (OrderStatus::Cancelled, "100"));
    assert!(o.reason.as_deref().unwrap().contains("IOC"));

    // Outside its sessions an IOC order cannot have its chance: it fails, saying why.
    desk.step(7 * 3600).await; // 16:30
    let mut late = order("late-ioc", "BUY", "LIMIT", "1", Some("401"));
    late["time_in_force"] = json!("IOC");
    desk.place(&desk.margin_account, late).await.unwrap();
    desk.step(1).await;
    let record = desk.detail(&desk.margin_account, "late-ioc").await;
    let o = &record.orders[0];
    assert_eq!((o.status, o.filled_quantity.as_str()), (OrderStatus::Failed, "0"));
    assert!(o.reason.as_deref().unwrap().contains("closed"), "{:?}", o.reason);
}

#[tokio::test]
async fn a_margin_fill_beyond_reg_t_fails_the_order_and_says_why() {
    let desk = desk().await;
    let margin = desk.margin_account.clone();
    // 100,000 USD of equity buys 190,000 USD of AAPL at 100: 10,000 of buying power is left.
    desk.pin("100.00", "99.99", "100.00", 10_000).await;
    desk.place(&margin, order("most", "BUY", "LIMIT", "1900", Some("100")))
        .await
        .unwrap();
    desk.step(1).await;
    assert_eq!(desk.status(&margin, "most").await, (OrderStatus::Filled, "1900".into()));
    // A resting buy within what is left is accepted.
    desk.pin("101.00", "100.99", "101.00", 10_000).await;
    desk.place(&margin, order("more", "BUY", "LIMIT", "90", Some("100")))
        .await
        .unwrap();
    desk.step(1).await;
    assert_eq!(desk.status(&margin, "more").await.0, OrderStatus::Submitted);
    // AAPL falls to 60: 24,000 of equity against 114,000 of stock, beyond Reg T's 50 %. The
    // buy becomes marketable; filling it would go further beyond, so it fails instead.
    desk.pin("60.00", "59.99", "60.00", 10_000).await;
    desk.step(1).await;
    let record = desk.detail(&margin, "more").await;
    let o = &record.orders[0];
    assert_eq!((o.status, o.filled_quantity.as_str()), (OrderStatus::Failed, "0"));
    assert!(o.reason.as_deref().unwrap().contains("Reg T"), "{:?}", o.reason);
    assert_eq!(desk.position(&margin).await, d("1900"));
    assert_eq!(desk.cash(&margin).await, d("-90000"));
    // Selling shrinks the position: always allowed, whatever the margin.
    desk.place(&margin, order("less", "SELL", "MARKET", "100", None))
        .await
        .unwrap();
    desk.step(1).await;
    assert_eq!(desk.status(&margin, "less").await.0, OrderStatus::Filled);
}

#[tokio::test]
async fn a_day_order_is_cancelled_at_the_close_and_a_gtc_order_stays() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    desk.place(&desk.cash_account, order("day", "BUY", "LIMIT", "1", Some("300")))
        .await
        .unwrap();
    let mut gtc = order("gtc", "BUY", "LIMIT", "1", Some("300"));
    gtc["time_in_force"] = json!("GTC");
    desk.place(&desk.cash_account, gtc).await.unwrap();
    desk.step(7 * 3600).await;
    let day = desk.detail(&desk.cash_account, "day").await;
    assert_eq!(day.orders[0].status, OrderStatus::Cancelled);
    assert!(day.orders[0].reason.as_deref().unwrap().contains("close"));
    assert_eq!(desk.status(&desk.cash_account, "gtc").await.0, OrderStatus::Submitted);
}

#[tokio::test]
async fn market_orders_wait_for_the_core_session() {
    let desk = desk().await;
    desk.step(7 * 3600).await; // 16:30 New York: after the close
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let mut gtc = order("overnight", "BUY", "MARKET", "1", None);
    gtc["time_in_force"] = json!("GTC");
    desk.place(&desk.cash_account, gtc).await.unwrap();
    desk.step(3600).await;
    assert_eq!(
        desk.status(&desk.cash_account, "overnight").await.0,
        OrderStatus::Submitted
    );
    desk.step(16 * 3600).await; // the next core session
    assert_eq!(
        desk.status(&desk.cash_account, "overnight").await.0,
        OrderStatus::Filled
    );
}

#[tokio::test]
async fn night_orders_trade_overnight_and_all_day_orders_around_the_clock() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let in_session = |id: &str, session: &str, tif: &str, limit: &str| {
        let mut o = order(id, "BUY", "LIMIT", "1", Some(limit));
        o["support_trading_session"] = json!(session);
        o["time_in_force"] = json!(tif);
        o
    };
    let account = desk.cash_account.clone();
    desk.place(&account, in_session("night", "NIGHT", "DAY", "401"))
        .await
        .unwrap();
    desk.place(&account, in_session("allday", "ALL_DAY", "GTC", "401"))
        .await
        .unwrap();
    desk.step(1).await; // 09:30 Monday
    assert_eq!(desk.status(&account, "night").await.0, OrderStatus::Submitted);
    assert_eq!(desk.status(&account, "allday").await.0, OrderStatus::Filled);

    desk.step(11 * 3600).await; // 20:30: Tuesday's overnight session
    let night = desk.detail(&account, "night").await;
    assert_eq!(night.orders[0].status, OrderStatus::Filled);
    assert_eq!(night.orders[0].filled_price.as_deref(), Some("400.01"));
    desk.place(&account, in_session("core", "CORE", "GTC", "401"))
        .await
        .unwrap();
    desk.place(&account, in_session("late", "ALL_DAY", "GTC", "401"))
        .await
        .unwrap();
    desk.place(&account, in_session("waits", "NIGHT", "DAY", "300"))
        .await
        .unwrap();
    desk.step(3600).await;
    assert_eq!(desk.status(&account, "core").await.0, OrderStatus::Submitted);
    assert_eq!(desk.status(&account, "late").await.0, OrderStatus::Filled);
    desk.step(7 * 3600).await; // 04:30 Tuesday: the night is over, and the DAY order with it
    let waits = desk.detail(&account, "waits").await;
    assert_eq!(waits.orders[0].status, OrderStatus::Cancelled);
    assert!(waits.orders[0].reason.as_deref().unwrap().contains("close"));
    assert_eq!(desk.status(&account, "core").await.0, OrderStatus::Submitted);
    let mut market = order("night-market", "BUY", "MARKET", "1", None);
    market["support_trading_session"] = json!("NIGHT");
    assert_eq!(
        code(desk.place(&account, market).await.unwrap_err()),
        ErrorCode::IllegalParameter
    );
}

/// An order of a combination: `order` with its part.
fn part(combo_type: &str, id: &str, side: &str, order_type: &str, quantity: &str, price: Option<&str>) -> Value {
    let mut o = order(id, side, order_type, quantity, None);
    o["combo_type"] = json!(combo_type);
    o["time_in_force"] = json!("GTC");
    match order_type {
        "STOP_LOSS" => o["stop_price"] = json!(price.unwrap()),
        _ => o["limit_price"] = json!(price),
    }
    o
}

impl Desk {
    async fn place_combination(
        &self,
        account: &str,
        combo_id: Option<&str>,
        orders: Vec<Value>,
    ) -> Result<Value, Error> {
        let mut body = json!({"account_id": account, "new_orders": orders});
        if let Some(id) = combo_id {
            body["client_combo_order_id"] = json!(id);
        }
        self.client.post("/trading/orders/place", &body).await
    }

    async fn cancel(&self, account: &str, id: &str) -> Result<Value, Error> {
        let body = json!({"account_id": account, "client_order_id": id});
        self.client.post("/trading/orders/cancel", &body).await
    }
}

/// A single order's `client_combo_order_id` was stored as sent, of any length and content, and
/// echoed by every later detail and page of the account's orders (200 KB on each order made each
/// page of ten 2 MB). It is checked as a combination's is; empty or absent, there is none.
#[tokio::test]
async fn a_single_orders_client_combo_order_id_is_checked_as_a_combinations_is() {
    let desk = desk().await;
    let account = desk.cash_account.clone();
    let single = |id: &str| vec![order(id, "BUY", "LIMIT", "1", Some("300"))];
    for bad in [
        "x".repeat(200_000),
        "a".repeat(33),
        "tab\there".into(),
        "caf\u{e9}".into(),
    ] {
        let shown = &bad[..bad.len().min(40)];
        match desk.place_combination(&account, Some(&bad), single("odd")).await {
            Ok(_) => panic!("{shown:?} ({} bytes) was accepted", bad.len()),
            Err(refused) => assert_eq!(code(refused), ErrorCode::IllegalParameter, "{shown:?}"),
        }
    }
    assert!(
        desk.server
            .database
            .store
            .order(&account, &"odd".into())
            .await
            .unwrap()
            .is_none()
    );

    let named = desk
        .place_combination(&account, Some("mine-1"), single("named"))
        .await
        .unwrap();
    assert_eq!(named["client_combo_order_id"], "mine-1");
    for (id, blank) in [("blank", Some("")), ("spaces", Some("  ")), ("absent", None)] {
        let ack = desk.place_combination(&account, blank, single(id)).await.unwrap();
        assert_eq!(ack["client_combo_order_id"], Value::Null, "{id}");
    }
    let page: OrderPage = desk
        .client
        .get("/trading/orders/open-orders/list", &[("account_id", account.as_str())])
        .await
        .unwrap();
    let combo_ids: Vec<Option<&str>> = page.data.iter().map(|o| o.client_combo_order_id.as_deref()).collect();
    assert_eq!(combo_ids, [None, None, None, Some("mine-1")], "newest first");
}

#[tokio::test]
async fn an_otoco_bracket_works_once_its_master_fills_and_its_legs_cancel_each_other() {
    let desk = desk().await;
    let account = desk.cash_account.clone();
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let ack = desk
        .place_combination(
            &account,
            Some("bracket-1"),
            vec![
                part("MASTER", "entry", "BUY", "LIMIT", "10", Some("390")),
                part("STOP_PROFIT", "profit", "SELL", "LIMIT", "10", Some("420")),
                part("STOP_LOSS", "loss", "SELL", "STOP_LOSS", "10", Some("380")),
            ],
        )
        .await
        .unwrap();
    let ids: Vec<&str> = ack["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["client_order_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["entry", "profit", "loss"]);
    assert_eq!(ack["client_combo_order_id"], "bracket-1");
    assert_eq!(ack["combo_order_id"], ack["order_id"], "named by its master");

    // The profit leg would trade at 425, but waits for the master.
    desk.pin("425.00", "424.99", "425.01", 10_000).await;
    desk.step(2).await;
    let profit = desk.detail(&account, "profit").await;
    assert_eq!(profit.combo_type, "OTOCO");
    assert_eq!(
        profit.combo_order_id.as_ref(),
        ack["combo_order_id"].as_str().map(str::to_owned).as_ref()
    );
    assert_eq!(profit.orders[0].combo_type.as_str(), "STOP_PROFIT");
    assert_eq!(
        (profit.orders[0].status, profit.orders[0].filled_quantity.as_str()),
        (OrderStatus::Submitted, "0")
    );

    desk.pin("389.00", "388.99", "389.01", 10_000).await;
    desk.step(1).await;
    assert_eq!(desk.status(&account, "entry").await.0, OrderStatus::Filled);
    assert_eq!(desk.position(&account).await, d("10"));
    assert_eq!(desk.status(&account, "loss").await.0, OrderStatus::Submitted);

    desk.pin("421.00", "420.99", "421.01", 10_000).await;
    desk.step(1).await;
    let profit = desk.detail(&account, "profit").await;
    assert_eq!(profit.orders[0].status, OrderStatus::Filled);
    assert_eq!(profit.orders[0].filled_price.as_deref(), Some("420.99"));
    let loss = desk.detail(&account, "loss").await;
    assert_eq!(loss.orders[0].status, OrderStatus::Cancelled);
    assert!(
        loss.orders[0].reason.as_deref().unwrap().contains("OCO"),
        "{:?}",
        loss.orders[0].reason
    );
    assert_eq!(desk.position(&account).await, d("0"));
    assert_eq!(events(&desk, &account, "loss").await, ["PLACE", "RELEASE", "CANCEL"]);
    assert_eq!(
        desk.cash(&account).await - d("100000"),
        d("10") * (d("420.99") - d("389.01")),
        "cash moved by the two fills exactly"
    );
}

#[tokio::test]
async fn an_oto_follower_ends_with_its_master_and_an_oco_pair_claims_the_shares_once() {
    let desk = desk().await;
    let account = desk.cash_account.clone();
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let oto = vec![
        part("MASTER", "oto-buy", "BUY", "LIMIT", "5", Some("300")),
        part("OTO", "oto-sell", "SELL", "LIMIT", "5", Some("500")),
    ];
    desk.place_combination(&account, Some("oto-1"), oto).await.unwrap();
    desk.cancel(&account, "oto-buy").await.unwrap();
    let follower = desk.detail(&account, "oto-sell").await;
    assert_eq!(follower.orders[0].status, OrderStatus::Cancelled);
    assert!(follower.orders[0].reason.as_deref().unwrap().contains("master"));

    // A client combo order id names one combination, for ever.
    let again = vec![
        part("MASTER", "oto-buy-2", "BUY", "LIMIT", "5", Some("300")),
        part("OTO", "oto-sell-2", "SELL", "LIMIT", "5", Some("500")),
    ];
    assert_eq!(
        code(
            desk.place_combination(&account, Some("oto-1"), again.clone())
                .await
                .unwrap_err()
        ),
        ErrorCode::DuplicateClientComboOrderId
    );
    assert_eq!(
        code(desk.place_combination(&account, None, again.clone()).await.unwrap_err()),
        ErrorCode::IllegalParameter,
        "a combination needs its client_combo_order_id"
    );
    assert!(
        desk.server
            .database
            .store
            .order(&account, &"oto-buy-2".into())
            .await
            .unwrap()
            .is_none()
    );
    let shapes = [
        vec![
            part("MASTER", "m1", "BUY", "LIMIT", "1", Some("300")),
            part("MASTER", "m2", "BUY", "LIMIT", "1", Some("300")),
        ],
        vec![part("OTO", "f1", "BUY", "LIMIT", "1", Some("300"))],
        vec![
            order("n1", "BUY", "LIMIT", "1", Some("300")),
            order("n2", "BUY", "LIMIT", "1", Some("300")),
        ],
    ];
    for orders in shapes {
        assert_eq!(
            code(
                desk.place_combination(&account, Some("shape"), orders)
                    .await
                    .unwrap_err()
            ),
            ErrorCode::UnsupportedComboType
        );
    }
    let batch =
        json!({"account_id": account, "batch_orders": [part("MASTER", "b1", "BUY", "LIMIT", "1", Some("300"))]});
    assert_eq!(
        code(
            desk.client
                .post::<_, Value>("/trading/orders/batch-place", &batch)
                .await
                .unwrap_err()
        ),
        ErrorCode::UnsupportedComboType
    );

    // A bracket's legs sell what its master buys, not more.
    let too_many = vec![
        part("MASTER", "x-buy", "BUY", "LIMIT", "5", Some("300")),
        part("OCO", "x-profit", "SELL", "LIMIT", "6", Some("500")),
        part("OCO", "x-loss", "SELL", "STOP_LOSS", "5", Some("250")),
    ];
    assert_eq!(
        code(desk.place_combination(&account, Some("x"), too_many).await.unwrap_err()),
        ErrorCode::InsufficientPosition
    );

    // Held shares: an OCO pair sells them once, and a cancelled leg takes the other with it.
    desk.place(&account, order("hold", "BUY", "MARKET", "10", None))
        .await
        .unwrap();
    desk.step(1).await;
    assert_eq!(desk.position(&account).await, d("10"));
    let pair = vec![
        part("OCO", "take", "SELL", "LIMIT", "10", Some("450")),
        part("OCO", "stop", "SELL", "STOP_LOSS", "10", Some("350")),
    ];
    desk.place_combination(&account, Some("pair"), pair).await.unwrap();
    assert_eq!(
        code(
            desk.place(&account, order("one-more", "SELL", "LIMIT", "1", Some("450")))
                .await
                .unwrap_err()
        ),
        ErrorCode::InsufficientPosition
    );
    desk.cancel(&account, "take").await.unwrap();
    assert_eq!(desk.status(&account, "stop").await.0, OrderStatus::Cancelled);
    desk.place(&account, order("one-more", "SELL", "LIMIT", "1", Some("450")))
        .await
        .unwrap();
}

#[tokio::test]
async fn cancel_and_replace_apply_to_open_orders_only() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    desk.place(&desk.cash_account, order("c1", "BUY", "LIMIT", "2", Some("300")))
        .await
        .unwrap();
    let replaced: Value = desk
        .client
        .post(
            "/trading/orders/replace",
            &json!({"account_id": desk.cash_account, "modify_orders": [{"client_order_id": "c1", "quantity": "3", "limit_price": "305"}]}),
        )
        .await
        .unwrap();
    assert_eq!(replaced["status"], "SUBMITTED");
    // A quantity past what an order may carry: refused, not a 500 from the arithmetic.
    for quantity in ["10000001", "79228162514264337593543950335"] {
        let huge = desk
            .client
            .post::<_, Value>(
                "/trading/orders/replace",
                &json!({"account_id": desk.cash_account, "modify_orders": [{"client_order_id": "c1", "quantity": quantity}]}),
            )
            .await
            .unwrap_err();
        assert_eq!(code(huge), ErrorCode::IllegalParameter, "{quantity}");
    }
    let record = desk.detail(&desk.cash_account, "c1").await;
    assert_eq!(
        (
            record.orders[0].total_quantity.as_str(),
            record.orders[0].limit_price.as_deref()
        ),
        ("3", Some("305"))
    );

    let cancel = json!({"account_id": desk.cash_account, "client_order_id": "c1"});
    let cancelled: Value = desk.client.post("/trading/orders/cancel", &cancel).await.unwrap();
    assert_eq!(cancelled["status"], "CANCELLED");
    let again = desk
        .client
        .post::<_, Value>("/trading/orders/cancel", &cancel)
        .await
        .unwrap_err();
    assert_eq!(code(again), ErrorCode::OrderNotOpen);
    let replace_cancelled = desk
        .client
        .post::<_, Value>(
            "/trading/orders/replace",
            &json!({"account_id": desk.cash_account, "modify_orders": [{"client_order_id": "c1", "quantity": "4"}]}),
        )
        .await
        .unwrap_err();
    assert_eq!(code(replace_cancelled), ErrorCode::OrderNotOpen);
    let unknown = desk
        .client
        .post::<_, Value>(
            "/trading/orders/cancel",
            &json!({"account_id": desk.cash_account, "client_order_id": "nope"}),
        )
        .await
        .unwrap_err();
    assert_eq!(code(unknown), ErrorCode::OrderNotFound);
}

#[tokio::test]
async fn a_client_order_id_is_used_once_even_when_two_arrive_together() {
    let desk = desk().await;
    desk.place(&desk.cash_account, order("once", "BUY", "LIMIT", "1", Some("300")))
        .await
        .unwrap();
    let again = desk
        .place(&desk.cash_account, order("once", "BUY", "LIMIT", "1", Some("300")))
        .await
        .unwrap_err();
    assert_eq!(code(again), ErrorCode::DuplicateClientOrderId);

    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let client = desk.client.clone();
        let body =
            json!({"account_id": desk.cash_account, "new_orders": [order("race", "BUY", "LIMIT", "1", Some("300"))]});
        tasks.spawn(async move { client.post::<_, Value>("/trading/orders/place", &body).await });
    }
    let (mut ok, mut duplicate) = (0, 0);
    while let Some(result) = tasks.join_next().await {
        match result.unwrap() {
            Ok(_) => ok += 1,
            Err(e) if e.code() == Some(ErrorCode::DuplicateClientOrderId) => duplicate += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((ok, duplicate), (1, 7));

    // Placements written together stay all or nothing: a combination that meets a used id
    // leaves none of its orders, and one client combo order id names one combination.
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..24 {
        let client = desk.client.clone();
        let (combo_id, follower) = if i % 2 == 0 {
            (format!("c{i}"), "once".to_owned())
        } else {
            ("shared".to_owned(), format!("f{i}"))
        };
        let body = json!({
            "account_id": desk.cash_account, "client_combo_order_id": combo_id,
            "new_orders": [
                part("MASTER", &format!("m{i}"), "BUY", "LIMIT", "1", Some("300")),
                part("OTO", &follower, "SELL", "LIMIT", "1", Some("500")),
            ]
        });
        tasks.spawn(async move { (i, client.post::<_, Value>("/trading/orders/place", &body).await) });
    }
    let mut shared = 0;
    while let Some(result) = tasks.join_next().await {
        let (i, result) = result.unwrap();
        let placed = match (i % 2, result) {
            (0, Err(e)) => {
                assert_eq!(code(e), ErrorCode::DuplicateClientOrderId);
                false
            }
            (1, Ok(_)) => {
                shared += 1;
                true
            }
            (1, Err(e)) => {
                assert_eq!(code(e), ErrorCode::DuplicateClientComboOrderId);
                false
            }
            (_, other) => panic!("{i}: {other:?}"),
        };
        let master = desk
            .server
            .database
            .store
            .order(&desk.cash_account, &format!("m{i}").into())
            .await
            .unwrap();
        assert_eq!(master.is_some(), placed, "m{i}");
    }
    assert_eq!(shared, 1, "one combination per client combo order id");
    let open = desk.client.orders().open(&desk.cash_account, None).await.unwrap();
    let masters = open.data.iter().filter(|r| r.client_order_id.starts_with('m')).count();
    assert_eq!(masters, 1);
}

#[tokio::test]
async fn another_apps_account_is_denied_without_a_hint() {
    let desk = desk().await;
    let other = desk
        .server
        .admin()
        .create_app("other", Decimal::from(1_000))
        .await
        .unwrap();
    let other = desk.server.client_for(&other);
    let body = json!({"account_id": desk.cash_account, "new_orders": [order("x", "BUY", "LIMIT", "1", Some("1"))]});
    let theirs = other
        .post::<_, Value>("/trading/orders/place", &body)
        .await
        .unwrap_err();
    let body = json!({"account_id": "NO-SUCH-ACCOUNT", "new_orders": [order("x", "BUY", "LIMIT", "1", Some("1"))]});
    let missing = other
        .post::<_, Value>("/trading/orders/place", &body)
        .await
        .unwrap_err();
    assert_eq!(
        (code(theirs), code(missing)),
        (ErrorCode::AccountNotFoundOrDenied, ErrorCode::AccountNotFoundOrDenied)
    );
    let listing = other
        .get::<Value>(
            "/trading/orders/open-orders/list",
            &[("account_id", desk.cash_account.as_str())],
        )
        .await
        .unwrap_err();
    assert_eq!(code(listing), ErrorCode::AccountNotFoundOrDenied);
}

#[tokio::test]
async fn refusals_name_what_is_supported() {
    let desk = desk().await;
    let cases = [
        (
            json!({"order_type": "MARKET_ON_CLOSE"}),
            ErrorCode::UnsupportedOrderType,
        ),
        (
            json!({"order_type": "TRAILING_STOP_LOSS", "trailing_type": "AMOUNT", "trailing_stop_step": "1", "time_in_force": "IOC"}),
            ErrorCode::UnsupportedTimeInForce,
        ),
        (json!({"market": "HK"}), ErrorCode::UnsupportedMarket),
        (
            json!({"instrument_type": "CRYPTO"}),
            ErrorCode::UnsupportedInstrumentType,
        ),
        (
            json!({"legs": [{"symbol": "AAPL", "option_type": "CALL"}]}),
            ErrorCode::UnsupportedOrderFeature,
        ),
        (json!({"quantity": "-5"}), ErrorCode::IllegalParameter),
        (json!({"symbol": "NOPE"}), ErrorCode::InstrumentNotFound),
    ];
    for (changes, expected) in cases {
        let mut o = order("r", "BUY", "LIMIT", "1", Some("100"));
        for (k, v) in changes.as_object().unwrap() {
            o[k] = v.clone();
        }
        assert_eq!(
            code(desk.place(&desk.cash_account, o).await.unwrap_err()),
            expected,
            "{changes}"
        );
    }
    let none_stored: OrderPage = desk
        .client
        .get(
            "/trading/orders/historical-orders/list",
            &[("account_id", desk.cash_account.as_str())],
        )
        .await
        .unwrap();
    assert!(none_stored.data.is_empty(), "a refused order stores nothing");
}

#[tokio::test]
async fn the_account_bounds_what_it_can_buy_and_sell() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let too_much = desk
        .place(&desk.cash_account, order("big", "BUY", "LIMIT", "300", Some("400.01")))
        .await
        .unwrap_err();
    assert_eq!(code(too_much), ErrorCode::InsufficientBuyingPower);
    // Twice the cash on margin.
    desk.place(
        &desk.margin_account,
        order("margin", "BUY", "LIMIT", "300", Some("400.01")),
    )
    .await
    .unwrap();
    let unheld = desk
        .place(&desk.cash_account, order("short", "SELL", "LIMIT", "1", Some("400")))
        .await
        .unwrap_err();
    assert_eq!(code(unheld), ErrorCode::InsufficientPosition);

    // Open buy orders reserve buying power: 240 × 400 fits, another 20 does not.
    desk.place(&desk.cash_account, order("a", "BUY", "LIMIT", "240", Some("400")))
        .await
        .unwrap();
    let over = desk
        .place(&desk.cash_account, order("b", "BUY", "LIMIT", "20", Some("400")))
        .await
        .unwrap_err();
    assert_eq!(code(over), ErrorCode::InsufficientBuyingPower);
}

#[tokio::test]
async fn a_cash_account_never_goes_below_zero_under_concurrent_orders() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 100_000).await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..20 {
        let client = desk.client.clone();
        let body = json!({"account_id": desk.cash_account, "new_orders": [order(&format!("c{i}"), "BUY", "MARKET", "20", None)]});
        tasks.spawn(async move { client.post::<_, Value>("/trading/orders/place", &body).await });
    }
    let mut accepted = 0;
    while let Some(result) = tasks.join_next().await {
        match result.unwrap() {
            Ok(_) => accepted += 1,
            Err(e) => assert_eq!(e.code(), Some(ErrorCode::InsufficientBuyingPower), "{e}"),
        }
    }
    // The price rises before the fills: some accepted orders can no longer be paid for.
    desk.pin("600.00", "599.99", "600.01", 100_000).await;
    desk.step(2).await;
    let cash = desk.cash(&desk.cash_account).await;
    assert!(cash >= Decimal::ZERO, "cash {cash}");
    let history: OrderPage = desk
        .client
        .get(
            "/trading/orders/historical-orders/list",
            &[("account_id", desk.cash_account.as_str()), ("page_size", "100")],
        )
        .await
        .unwrap();
    let filled = history
        .data
        .iter()
        .filter(|r| r.orders[0].status == OrderStatus::Filled)
        .count();
    let failed: Vec<_> = history
        .data
        .iter()
        .filter(|r| r.orders[0].status == OrderStatus::Failed)
        .collect();
    assert_eq!(filled + failed.len(), accepted, "every accepted order ended");
    assert!(!failed.is_empty() && failed[0].orders[0].reason.as_deref().unwrap().contains("buying power"));
    assert_eq!(
        desk.position(&desk.cash_account).await,
        Decimal::from(20 * filled as i64)
    );
    assert_eq!(cash, d("100000") - Decimal::from(20 * filled as i64) * d("600.01"));
}

#[tokio::test]
async fn open_orders_and_history_page_newest_first() {
    let desk = desk().await;
    for i in 0..25 {
        let mut o = order(&format!("p{i:02}"), "BUY", "LIMIT", "1", Some("100"));
        o["time_in_force"] = json!("GTC");
        desk.place(&desk.cash_account, o).await.unwrap();
    }
    let mut seen = Vec::new();
    let mut key: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut query = vec![("account_id", desk.cash_account.to_string())];
        if let Some(k) = &key {
            query.push(("pagination_key", k.clone()));
        }
        let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let page: OrderPage = desk
            .client
            .get("/trading/orders/open-orders/list", &query)
            .await
            .unwrap();
        pages += 1;
        seen.extend(page.data.iter().map(|r| r.client_order_id.clone()));
        match page.pagination_key {
            Some(k) => key = Some(k),
            None => break,
        }
    }
    assert_eq!(pages, 3, "10 + 10 + 5");
    let expected: Vec<String> = (0..25).rev().map(|i| format!("p{i:02}")).collect();
    assert_eq!(seen, expected);

    let all: OrderPage = desk
        .client
        .get(
            "/trading/orders/open-orders/list",
            &[("account_id", desk.cash_account.as_str()), ("page_size", "100")],
        )
        .await
        .unwrap();
    assert!(all.data.len() == 25 && all.pagination_key.is_none());

    let window = |start: &str, end: &str| {
        let client = desk.client.clone();
        let account = desk.cash_account.clone();
        let (start, end) = (start.to_owned(), end.to_owned());
        async move {
            client
                .get::<OrderPage>(
                    "/trading/orders/historical-orders/list",
                    &[
                        ("account_id", account.as_str()),
                        ("start_time", start.as_str()),
                        ("end_time", end.as_str()),
                    ],
                )
                .await
        }
    };
    let past = window("2020-01-01T00:00:00.000Z", "2020-01-02T00:00:00.000Z")
        .await
        .unwrap();
    assert!(past.data.is_empty());
    let bad = window("2020-01-01T00:00:00Z", "2020-01-02T00:00:00.000Z")
        .await
        .unwrap_err();
    assert_eq!(code(bad), ErrorCode::IllegalParameter);
    let recent: OrderPage = desk
        .client
        .get(
            "/trading/orders/historical-orders/list",
            &[("account_id", desk.cash_account.as_str())],
        )
        .await
        .unwrap();
    assert_eq!(recent.data.len(), 10, "the last 7 days by default, 10 a page");
}

#[tokio::test]
async fn preview_estimates_and_changes_nothing() {
    let desk = desk().await;
    desk.pin("400.00", "399.99", "400.01", 10_000).await;
    let body = json!({"account_id": desk.cash_account, "new_orders": [order("pv", "BUY", "LIMIT", "10", Some("400"))], "client_combo_order_id": null});
    let preview: Value = desk.client.post("/trading/orders/preview", &body).await.unwrap();
    assert_eq!(preview["estimated_cost"], "4000");
    assert_eq!(
        (preview["buying_power"].as_str(), preview["buying_power_after"].as_str()),
        (Some("100000"), Some("96000"))
    );
    assert!(
        desk.server
            .database
            .store
            .order(&desk.cash_account, &"pv".into())
            .await
            .unwrap()
            .is_none()
    );
    let body =
        json!({"account_id": desk.cash_account, "new_orders": [order("pv", "BUY", "LIMIT", "1000", Some("400"))]});
    let refused = desk
        .client
        .post::<_, Value>("/trading/orders/preview", &body)
        .await
        .unwrap_err();
    assert_eq!(code(refused), ErrorCode::InsufficientBuyingPower);
}

#[tokio::test]
async fn batch_place_takes_up_to_50_independent_orders() {
    let desk = desk().await;
    let orders: Vec<Value> = (0..3)
        .map(|i| order(&format!("b{i}"), "BUY", "LIMIT", "1", Some("100")))
        .collect();
    let done: Value = desk
        .client
        .post(
            "/trading/orders/batch-place",
            &json!({"account_id": desk.cash_account, "batch_orders": orders}),
        )
        .await
        .unwrap();
    assert_eq!(done["data"].as_array().unwrap().len(), 3);
    let many: Vec<Value> = (0..51)
        .map(|i| order(&format!("m{i}"), "BUY", "LIMIT", "1", Some("1")))
        .collect();
    let refused = desk
        .client
        .post::<_, Value>(
            "/trading/orders/batch-place",
            &json!({"account_id": desk.cash_account, "batch_orders": many}),
        )
        .await
        .unwrap_err();
    assert_eq!(code(refused), ErrorCode::IllegalParameter);
}

#[tokio::test]
async fn open_orders_resume_after_a_restart() {
    let desk = desk().await;
    let mut o = order("durable", "BUY", "LIMIT", "1", Some("300"));
    o["time_in_force"] = json!("GTC");
    desk.place(&desk.cash_account, o).await.unwrap();
    let Desk {
        server, cash_account, ..
    } = desk;
    let server = server.restart().await;
    let ops = server
        .admin()
        .create_app_with_role("ops2", Decimal::ZERO, true)
        .await
        .unwrap();
    let ops = server.client_for(&ops);
    ops.market()
        .set("AAPL", "299", Some("298.99"), Some("299.01"), Some(100))
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    let record: OrderRecord = server
        .client()
        .get(
            "/trading/orders/get",
            &[("account_id", cash_account.as_str()), ("client_order_id", "durable")],
        )
        .await
        .unwrap();
    assert_eq!(record.orders[0].status, OrderStatus::Filled);
}

#[tokio::test]
async fn a_resting_limit_at_the_bid_fills_behind_the_shares_shown_there() {
    let desk = desk().await;
    // At the bid of the replayed 2013-02-25 (MSFT opened at 27.97 and fell): the shares shown there are ahead of the order.
    let depth = desk.client.stocks().depth("MSFT", Some(1)).await.unwrap();
    let (bid, ahead): (Decimal, u64) = (
        depth.bids[0].price.parse().unwrap(),
        depth.bids[0].size.parse().unwrap(),
    );
    let quantity: u64 = 3000;
    let mut buy = order("queued", "BUY", "LIMIT", &quantity.to_string(), Some(&bid.to_string()));
    buy["symbol"] = json!("MSFT");
    desk.place(&desk.margin_account, buy).await.unwrap();
    // Second by second until it first fills, at most ten minutes.
    let mut seconds = 0;
    let filled = loop {
        desk.ops.market().step(1).await.unwrap();
        seconds += 1;
        let (_, filled) = desk.status(&desk.margin_account, "queued").await;
        let filled: u64 = filled.parse().unwrap();
        if filled > 0 || seconds == 600 {
            break filled;
        }
    };
    assert!(filled > 0, "the tape traded at the bid within ten minutes");
    // The tape since the order joined: what traded at its price went to the shares ahead first.
    let ticks = desk.client.stocks().ticks("MSFT", Some(seconds + 1)).await.unwrap();
    let mut after_join: Vec<_> = ticks.result.iter().take(seconds as usize).collect();
    after_join.reverse();
    let price = |t: &&Tick| t.price.parse::<Decimal>().unwrap();
    let at_bid: u64 = after_join
        .iter()
        .filter(|t| price(t) == bid)
        .map(|t| t.volume.parse::<u64>().unwrap())
        .sum();
    let through = after_join.iter().any(|t| price(t) < bid);
    let expected = if through {
        quantity
    } else {
        (at_bid - ahead).min(quantity)
    };
    assert_eq!(
        filled, expected,
        "{ahead} ahead, {at_bid} traded at {bid}, through: {through}"
    );
    assert!(filled < quantity, "a partial fill: {filled} of {quantity}");
    let record = desk.detail(&desk.margin_account, "queued").await;
    assert_eq!(record.orders[0].status, OrderStatus::PartialFilled);
    assert_eq!(
        record.orders[0].filled_price.as_deref(),
        Some(bid.to_string().as_str()),
        "at its limit"
    );
}

#[tokio::test]
async fn a_fill_two_ticks_computed_from_the_same_state_applies_once() {
    use signet_domain::times::{SimTime, WallTime};
    use signet_store::{FillOutcome, FillRequest};

    // Every node ticks; two that find the same fill of a resting order at once must not both
    // apply it. A limit far below the market, which no tick fills.
    let desk = desk().await;
    desk.place(&desk.margin_account, order("twice", "BUY", "LIMIT", "10", Some("300")))
        .await
        .unwrap();
    let store = desk.server.database.store.clone();
    let placed = store
        .order(&desk.margin_account, &"twice".into())
        .await
        .unwrap()
        .unwrap();
    let fill = FillRequest {
        order_id: placed.order_id.clone(),
        quantity: Decimal::from(4),
        price: Decimal::from(300),
        commission: Default::default(),
        time: WallTime::now(),
        market_time: SimTime(0),
        filled_before: Some(Decimal::ZERO),
        leg_prices: Vec::new(),
    };
    let mut tries = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (store, fill) = (store.clone(), fill.clone());
        tries.spawn(async move { store.apply_fill(&fill, &|_: i64| None).await });
    }
    let outcomes = tries.join_all().await;
    let applied = outcomes
        .iter()
        .filter(|o| matches!(o, Ok(FillOutcome::Applied(_))))
        .count();
    assert_eq!(applied, 1, "{outcomes:?}");
    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o, Ok(FillOutcome::Applied(_) | FillOutcome::Stale)))
    );
    let (_, filled) = desk.status(&desk.margin_account, "twice").await;
    assert_eq!(filled, "4");
}

#[tokio::test]
async fn a_resting_limit_in_the_after_hours_fills_from_its_thin_tape() {
    let desk = desk().await;
    // 16:01 on the replayed 2013-02-25: the after hours, whose tape is thin.
    desk.step(6 * 3600 + 31 * 60).await;
    let depth = desk.client.stocks().depth("MSFT", Some(1)).await.unwrap();
    assert_eq!(depth.trading_session, "AFTER_HOURS");
    let (bid, ahead): (Decimal, u64) = (
        depth.bids[0].price.parse().unwrap(),
        depth.bids[0].size.parse().unwrap(),
    );
    let quantity: u64 = 2000;
    let mut buy = order("evening", "BUY", "LIMIT", &quantity.to_string(), Some(&bid.to_string()));
    buy["symbol"] = json!("MSFT");
    buy["support_trading_session"] = json!("ALL");
    desk.place(&desk.margin_account, buy).await.unwrap();
    // The order joins its queue at the engine's first tick: the prints from the next second on count.
    let joined_ms = 1_361_802_600_000 + (6 * 3600 + 31 * 60 + 1) * 1000;
    let prints = || async {
        let ticks: Ticks = desk
            .client
            .get(
                "/market-data/stocks/ticks/list",
                &[("symbol", "MSFT"), ("count", "1000"), ("trading_sessions", "ATH")],
            )
            .await
            .unwrap();
        assert!(ticks.result.iter().all(|t| t.trading_session == "ATH"));
        ticks.result
    };
    // What the tape did for the order's queue since it joined: traded through its price, or
    // traded shares at it.
    let queue = |ticks: &[Tick]| {
        assert!(
            ticks.last().unwrap().time.parse::<i64>().unwrap() < joined_ms,
            "the whole stretch read"
        );
        let since: Vec<&Tick> = ticks
            .iter()
            .filter(|t| t.time.parse::<i64>().unwrap() >= joined_ms)
            .collect();
        let price = |t: &Tick| t.price.parse::<Decimal>().unwrap();
        let through = since.iter().any(|t| price(t) < bid);
        let at: u64 = since
            .iter()
            .filter(|t| price(t) == bid)
            .map(|t| t.volume.parse::<u64>().unwrap())
            .sum();
        (through, at)
    };
    let mut before = queue(&prints().await);
    let mut minutes = 0;
    let filled = loop {
        desk.step(60).await;
        minutes += 1;
        let filled: u64 = desk.status(&desk.margin_account, "evening").await.1.parse().unwrap();
        if filled > 0 || minutes == 120 {
            break filled;
        }
        before = queue(&prints().await);
    };
    assert!(filled > 0, "the thin tape reached the bid within two hours");
    // Unfilled a minute before, filled now: the tape went through the price or past the queue.
    assert!(!before.0 && before.1 <= ahead, "{before:?} with {ahead} ahead");
    let (through, at) = queue(&prints().await);
    assert!(through || at > ahead, "{ahead} ahead, {at} traded at {bid}");
    let record = desk.detail(&desk.margin_account, "evening").await;
    assert_eq!(
        record.orders[0].filled_price.as_deref(),
        Some(bid.to_string().as_str()),
        "at its limit"
    );
}
