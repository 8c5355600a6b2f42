//! The market simulator through `/admin/market/...`: replayed real days, drawn days that depend on
//! the seed only, pinned quotes, the manual clock, and who may use the controls.

use rust_decimal::Decimal;
use serde_json::json;
use signet_client::Client;
use signet_domain::simulator::clock::ClockMode;
use signet_model::ErrorCode;

use crate::common::TestServer;

/// A server on the real price history, its manual clock at the core open of `start`, and an
/// admin client.
async fn market(start: &str, seed: u64) -> (TestServer, Client) {
    let server = TestServer::start_market(start, seed).await;
    let ops = server.ops().await;
    (server, ops)
}

/// Seconds from the core open to the last second of the core session.
const CORE_SECONDS: u64 = 6 * 3600 + 1800 - 1;

#[tokio::test]
async fn a_day_in_the_history_is_replayed_from_open_to_close() {
    let (_server, client) = market("2013-02-25", 1).await;
    let open = client.market().quote("AAPL").await.unwrap();
    assert_eq!(
        (open.session.as_str(), open.time.as_str()),
        ("CORE", "2013-02-25T14:30:00.000Z")
    );
    assert_eq!(open.last, "453.85", "the real open");
    assert_eq!(open.pre_close, "450.81", "the real close of Friday 2013-02-22");
    assert_eq!(
        (open.high.as_str(), open.low.as_str()),
        ("453.85", "453.85"),
        "one trade so far: the day's high and low are still to come"
    );
    assert!(open.bid.parse::<f64>().unwrap() < 453.85 && open.ask.parse::<f64>().unwrap() > 453.85);

    let clock = client.market().step(CORE_SECONDS).await.unwrap();
    assert_eq!(clock.time, "2013-02-25T20:59:59.000Z");
    let close = client.market().quote("AAPL").await.unwrap();
    assert_eq!(
        (close.last.as_str(), close.session.as_str()),
        ("442.80", "CORE"),
        "the real close"
    );
    assert_eq!(
        (close.high.as_str(), close.low.as_str()),
        ("455.12", "442.57"),
        "the real range"
    );
    assert!(close.volume > 13_000_000, "the day's volume has traded");

    client.market().step(24 * 3600).await.unwrap();
    let next = client.market().quote("AAPL").await.unwrap();
    assert_eq!(next.pre_close, "442.80");
    assert_eq!(next.open, "443.82", "2013-02-26 replays next");
}

#[tokio::test]
async fn weekends_are_closed_at_the_last_close() {
    let (_server, client) = market("2013-03-01", 1).await;
    client.market().step(CORE_SECONDS + 24 * 3600).await.unwrap();
    let saturday = client.market().quote("MSFT").await.unwrap();
    assert_eq!(saturday.session, "CLOSED");
    assert_eq!(saturday.last, "27.95", "Friday's real close");
}

#[tokio::test]
async fn beyond_the_history_days_are_drawn_from_the_seed() {
    let (_a, first) = market("2013-03-04", 7).await;
    let (_b, same) = market("2013-03-04", 7).await;
    let (_c, other) = market("2013-03-04", 8).await;
    for client in [&first, &same, &other] {
        client.market().step(3600).await.unwrap();
    }
    let q = |c: &Client| {
        let c = c.clone();
        async move { c.market().quote("IBM").await.unwrap() }
    };
    let (a, b, c) = (q(&first).await, q(&same).await, q(&other).await);
    assert_eq!(a.pre_close, "202.91", "IBM's last real close");
    assert_eq!(
        (a.last.as_str(), a.open.as_str()),
        (b.last.as_str(), b.open.as_str()),
        "the same seed, the same prices"
    );
    assert_ne!(a.last, c.last, "another seed, other prices");
    assert_eq!(a.time, "2013-03-04T15:30:00.000Z");
}

#[tokio::test]
async fn a_pinned_quote_holds_until_released() {
    let (_server, client) = market("2013-02-25", 1).await;
    let pinned = client
        .market()
        .set("AAPL", "400.00", Some("399.50"), Some("400.50"), Some(300))
        .await
        .unwrap();
    assert_eq!(
        (pinned.last.as_str(), pinned.bid.as_str(), pinned.ask.as_str()),
        ("400.00", "399.50", "400.50")
    );
    assert!(pinned.pinned && pinned.bid_size == 300);
    client.market().step(600).await.unwrap();
    assert_eq!(client.market().quote("AAPL").await.unwrap().last, "400.00");
    let released = client.market().release("AAPL").await.unwrap();
    assert!(!released.pinned && released.last != "400.00");

    let crossed = client
        .market()
        .set("AAPL", "400", Some("401"), Some("399"), None)
        .await
        .unwrap_err();
    assert_eq!(crossed.code(), Some(ErrorCode::IllegalParameter));
    let unknown = client.market().quote("NOPE").await.unwrap_err();
    assert_eq!(unknown.code(), Some(ErrorCode::InstrumentNotFound));
}

#[tokio::test]
async fn only_admin_apps_drive_the_market() {
    let (server, _admin) = market("2013-02-25", 1).await;
    let refused = server.client().market().quote("AAPL").await.unwrap_err();
    assert_eq!(refused.code(), Some(ErrorCode::PermissionDenied), "{refused}");
    let refused = server.client().market().step(1).await.unwrap_err();
    assert_eq!(refused.code(), Some(ErrorCode::PermissionDenied));
}

#[tokio::test]
async fn a_real_time_clock_cannot_be_stepped() {
    let server = TestServer::start_with(|c| c.market.clock = ClockMode::Real).await;
    let ops = server
        .admin()
        .create_app_with_role("ops", Decimal::ZERO, true)
        .await
        .unwrap();
    let e = server.client_for(&ops).market().step(60).await.unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter), "{e}");
    assert_eq!(server.client_for(&ops).market().clock().await.unwrap().mode, "REAL");
}

#[tokio::test]
async fn intraday_gainers_rank_the_simulated_day() {
    use signet_model::screeners::{Direction, GainersRank, SortBy};

    let (server, ops) = market("2013-02-25", 1).await;
    ops.market().step(600).await.unwrap();
    let screeners = server.client();
    let screeners = screeners.screeners();
    let rank = |r| screeners.gainers_losers(r, SortBy::ChangeRatio, Direction::Desc);

    // At 09:40 the pre-market move is the opening gap: every one of the five opened above its
    // close of 2013-02-22 (MSFT 27.76 to 27.97, AAPL 450.81 to 453.85, GOOG 799.71 to 802.30,
    // IBM 201.09 to 201.67, FB 27.13 to 27.16), ranked by the gap's ratio.
    let pre = rank(GainersRank::PreMarket).await.unwrap();
    let order: Vec<&str> = pre.iter().map(|i| i.symbol.as_str()).collect();
    assert_eq!(order, ["MSFT", "AAPL", "GOOG", "IBM", "FB"]);
    assert_eq!((pre[1].price.as_str(), pre[1].change.as_str()), ("453.85", "3.04"));
    let fallers = screeners
        .gainers_losers(GainersRank::PreMarket, SortBy::ChangeRatio, Direction::Asc)
        .await
        .unwrap();
    assert!(fallers.is_empty(), "nothing gapped down");

    assert!(rank(GainersRank::AfterMarket).await.unwrap().is_empty(), "before 16:00");
    let ratio = |i: &signet_model::screeners::ScreenerItem| i.change_ratio.parse::<f64>().unwrap();
    let five = rank(GainersRank::Min5).await.unwrap();
    assert!(five.iter().all(|i| ratio(i) > 0.0) && five.windows(2).all(|w| ratio(&w[0]) >= ratio(&w[1])));
    for item in &five {
        let (price, change): (f64, f64) = (item.price.parse().unwrap(), item.change.parse().unwrap());
        assert!((change / (price - change) - ratio(item)).abs() < 1e-6, "{item:?}");
    }

    // After the close, the after-hours move from the 16:00 price is ranked; a weekend has none.
    ops.market().step(6 * 3600 + 20 * 60).await.unwrap();
    let mut at_close = std::collections::HashMap::new();
    for symbol in ["AAPL", "IBM", "MSFT", "GOOG", "FB"] {
        let quote = ops.market().quote(symbol).await.unwrap();
        assert_eq!(quote.time.get(11..19), Some("21:00:00"), "16:00 New York");
        at_close.insert(symbol, quote.last.parse::<Decimal>().unwrap());
    }
    // The price wanders around the close, up at some moments: whatever is ranked then rose from
    // the 16:00 price.
    let mut ranked = 0;
    for _ in 0..10 {
        ops.market().step(4 * 60).await.unwrap();
        let after = rank(GainersRank::AfterMarket).await.unwrap();
        assert!(after.windows(2).all(|w| ratio(&w[0]) >= ratio(&w[1])));
        for item in &after {
            let (price, change): (Decimal, Decimal) = (item.price.parse().unwrap(), item.change.parse().unwrap());
            assert!(change > Decimal::ZERO);
            assert_eq!(price - change, at_close[item.symbol.as_str()], "{item:?}");
        }
        ranked += after.len();
    }
    assert!(ranked > 0, "after hours the price wanders around the close");
    ops.market().step(5 * 24 * 3600).await.unwrap();
    assert!(rank(GainersRank::Min3).await.unwrap().is_empty(), "Saturday");
}

#[tokio::test]
async fn a_simulated_day_is_stored_as_bars_once_over_and_the_screeners_follow() {
    use signet_domain::marketdata::units::parse_day;
    use signet_model::screeners::{Direction, GainersRank, SortBy};

    // 2013-03-04 lies past the history: a drawn day.
    let (server, ops) = market("2013-03-04", 7).await;
    let open = ops.market().quote("AAPL").await.unwrap();
    ops.market().step(CORE_SECONDS).await.unwrap();
    let close = ops.market().quote("AAPL").await.unwrap();
    ops.market().step(24 * 3600).await.unwrap();

    let store = server.database.store.clone();
    let day = parse_day("2013-03-04").unwrap();
    let mut waited = 0;
    while store.latest_bar_day().await.unwrap() != Some(day) {
        assert!(waited < 200, "the day was not stored");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        waited += 1;
    }
    let aapl = store.instrument("AAPL").await.unwrap().unwrap();
    let bars = store.daily_bars(aapl.instrument_id, day, day).await.unwrap();
    let price = |micros: i64| Decimal::new(micros, 6).normalize().to_string();
    assert_eq!(
        (price(bars[0].open), price(bars[0].close)),
        (open.last.clone(), close.last.clone()),
        "the bar is the day the quotes walked"
    );

    // The screeners' figures follow (computed just after the bars).
    let mut waited = 0;
    loop {
        let gainers = server
            .client()
            .screeners()
            .gainers_losers(GainersRank::Day1, SortBy::ChangeRatio, Direction::Desc)
            .await
            .unwrap();
        let losers = server
            .client()
            .screeners()
            .gainers_losers(GainersRank::Day1, SortBy::ChangeRatio, Direction::Asc)
            .await
            .unwrap();
        if gainers.iter().chain(&losers).any(|i| i.date == "2013-03-04") {
            break;
        }
        assert!(waited < 200, "the figures were not computed again");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        waited += 1;
    }
    assert_eq!(store.latest_bar_day().await.unwrap(), Some(day));
}

/// An extreme pin (a price of 10^21, or near the largest decimal) once overflowed the quote's
/// spread in the engine's tick, which ended the ticker: no order filled again until a restart.
/// Pins are now bounded as an order's prices are, and the market goes on ticking.
#[tokio::test]
async fn extreme_pins_are_refused_and_the_market_keeps_ticking() {
    let server =
        TestServer::start_market_with("2013-02-25", 1, |c| c.market.clock = ClockMode::Running { speed: 1.0 }).await;
    let ops = server.ops().await;
    let account = &server.app.account_ids[0];
    let resting = serde_json::json!({
        "client_order_id": "rests", "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
        "order_type": "LIMIT", "limit_price": "1", "time_in_force": "GTC", "entrust_type": "QTY",
        "quantity": "1", "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE"
    });
    let _: serde_json::Value = server
        .client()
        .post(
            "/trading/orders/place",
            &serde_json::json!({"account_id": account, "new_orders": [resting]}),
        )
        .await
        .unwrap();

    for (price, bid, ask, size) in [
        ("1000000000000000000000", None, None, None),
        (
            "79228162514264337593543950000",
            Some("1"),
            Some("79228162514264337593543950000"),
            None,
        ),
        ("79228162514264337593543950335", None, None, None),
        ("10000000.01", None, None, None),
        ("0.00001", None, None, None),
        ("400", None, None, Some(u64::MAX)),
    ] {
        let refused = ops.market().set("AAPL", price, bid, ask, size).await.unwrap_err();
        assert_eq!(refused.code(), Some(ErrorCode::IllegalParameter), "{price}: {refused}");
        assert!(
            refused.to_string().contains("10000000"),
            "the message gives the bounds: {refused}"
        );
    }
    assert!(!ops.market().quote("AAPL").await.unwrap().pinned);

    // The ticker still runs: a pin under the resting buy's limit fills it within a few ticks.
    ops.market()
        .set("AAPL", "0.50", Some("0.49"), Some("0.51"), None)
        .await
        .unwrap();
    let started = std::time::Instant::now();
    loop {
        let order = server.client().orders().get(account, "rests").await.unwrap();
        if order.orders[0].status == signet_model::orders::OrderStatus::Filled {
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "the market stopped ticking: {order:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let text = crate::common::scrape_metrics(&server.endpoint).await;
    assert_eq!(
        crate::common::metric(&text, "signet_tick_panics_total", &[]),
        Some(0.0),
        "{text}"
    );
}

/// Beyond the history the simulated market keeps the exchange's holidays: Good Friday 2013 is
/// closed, a DAY order placed the evening before lasts to Monday's close, and the trade calendar
/// answers the same.
#[tokio::test]
async fn good_friday_is_closed_in_the_market_and_missing_from_the_trade_calendar() {
    let (server, client) = market("2013-03-28", 7).await;
    let thursday = client.market().quote("AAPL").await.unwrap();
    assert_eq!(
        (thursday.session.as_str(), thursday.time.as_str()),
        ("CORE", "2013-03-28T13:30:00.000Z")
    );
    let friday = client.market().step(24 * 3600).await.unwrap();
    assert_eq!(
        (friday.date.as_str(), friday.session.as_str()),
        ("2013-03-29", "CLOSED")
    );
    let quote = client.market().quote("AAPL").await.unwrap();
    assert_eq!(quote.session, "CLOSED");
    let monday = client.market().step(3 * 24 * 3600).await.unwrap();
    assert_eq!((monday.date.as_str(), monday.session.as_str()), ("2013-04-01", "CORE"));

    let calendar: Vec<signet_model::v1::TradeDay> = server
        .client()
        .get(
            "/trade/calendar",
            &[("market", "US"), ("start", "2013-03-25"), ("end", "2013-04-05")],
        )
        .await
        .unwrap();
    let days: Vec<&str> = calendar.iter().map(|d| d.trade_day.as_str()).collect();
    assert_eq!(
        days,
        [
            "2013-03-25",
            "2013-03-26",
            "2013-03-27",
            "2013-03-28",
            "2013-04-01",
            "2013-04-02",
            "2013-04-03",
            "2013-04-04",
            "2013-04-05"
        ]
    );
    // New York is on daylight-saving time: the core session is 13:30 to 20:00 UTC, and Monday's
    // overnight session began on Sunday evening.
    let monday = &calendar[4];
    let hours: Vec<(&str, &str, &str)> = monday
        .sessions
        .iter()
        .map(|s| (s.session.as_str(), s.start.as_str(), s.end.as_str()))
        .collect();
    assert_eq!(
        hours,
        [
            ("OVERNIGHT", "2013-04-01T00:00:00.000Z", "2013-04-01T08:00:00.000Z"),
            ("PRE_MARKET", "2013-04-01T08:00:00.000Z", "2013-04-01T13:30:00.000Z"),
            ("CORE", "2013-04-01T13:30:00.000Z", "2013-04-01T20:00:00.000Z"),
            ("AFTER_HOURS", "2013-04-01T20:00:00.000Z", "2013-04-02T00:00:00.000Z"),
        ]
    );
    assert!(calendar.iter().all(|d| d.trade_date_type == "FULL_DAY"));

    for (market, start, end, code) in [
        ("US", "2013-03-01", "2013-04-01", ErrorCode::DateRangeTooLong),
        ("HK", "2013-03-01", "2013-03-05", ErrorCode::UnsupportedMarket),
        ("US", "2013-02-30", "2013-03-05", ErrorCode::IllegalParameter),
        ("US", "2013-03-05", "2013-03-01", ErrorCode::IllegalParameter),
    ] {
        let refused = server
            .client()
            .get::<serde_json::Value>("/trade/calendar", &[("market", market), ("start", start), ("end", end)])
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Some(code), "{market} {start} {end}");
    }
}

/// The day after Thanksgiving closes early: the core session ends at 13:00 New York (its last
/// trade is the day's real close), after hours at 17:00, a DAY order expires at 13:00, the
/// day's minute bars stop at 12:59, and the trade calendar says `HALF_DAY` with those hours.
#[tokio::test]
async fn the_day_after_thanksgiving_closes_at_one() {
    let (server, ops) = market("2012-11-23", 7).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    let order = json!({"account_id": account, "new_orders": [{
        "client_order_id": "half-day", "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
        "order_type": "LIMIT", "limit_price": "100", "time_in_force": "DAY", "entrust_type": "QTY",
        "quantity": "1", "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE"
    }]});
    client
        .post::<_, serde_json::Value>("/trading/orders/place", &order)
        .await
        .unwrap();
    let status = |record: serde_json::Value| record["orders"][0]["status"].as_str().unwrap().to_owned();
    let detail = || async {
        client
            .get::<serde_json::Value>(
                "/trading/orders/get",
                &[("account_id", account.as_str()), ("client_order_id", "half-day")],
            )
            .await
            .unwrap()
    };
    // 12:59:59 New York (EST): still the core session, its last second.
    let last = ops.market().step(3 * 3600 + 1799).await.unwrap();
    assert_eq!(last.session, "CORE");
    assert_eq!(status(detail().await), "SUBMITTED");
    let quote = ops.market().quote("AAPL").await.unwrap();
    assert_eq!(quote.last, "571.50", "the walk reaches the day's real close by 13:00");
    // 13:00: after hours, the DAY order of the core session expired.
    let after = ops.market().step(1).await.unwrap();
    assert_eq!(after.session, "AFTER_HOURS");
    assert_eq!(status(detail().await), "CANCELLED");
    let bars: serde_json::Value = client
        .post(
            "/market-data/stocks/bars/list",
            &json!({"symbols": ["AAPL"], "category": "US_STOCK", "timespan": "M1", "count": "1"}),
        )
        .await
        .unwrap();
    assert_eq!(bars["result"][0]["result"][0]["time"], "2012-11-23T17:59:00.000+0000");
    // 17:00: closed until Monday's overnight session on Sunday evening.
    let evening = ops.market().step(4 * 3600).await.unwrap();
    assert_eq!(evening.session, "CLOSED");

    let calendar: Vec<signet_model::v1::TradeDay> = client
        .get(
            "/trade/calendar",
            &[("market", "US"), ("start", "2012-11-21"), ("end", "2012-11-26")],
        )
        .await
        .unwrap();
    let days: Vec<(&str, &str)> = calendar
        .iter()
        .map(|d| (d.trade_day.as_str(), d.trade_date_type.as_str()))
        .collect();
    assert_eq!(
        days,
        [
            ("2012-11-21", "FULL_DAY"),
            ("2012-11-23", "HALF_DAY"),
            ("2012-11-26", "FULL_DAY")
        ]
    );
    let hours: Vec<(&str, &str, &str)> = calendar[1]
        .sessions
        .iter()
        .map(|s| (s.session.as_str(), s.start.as_str(), s.end.as_str()))
        .collect();
    assert_eq!(
        &hours[2..],
        [
            ("CORE", "2012-11-23T14:30:00.000Z", "2012-11-23T18:00:00.000Z"),
            ("AFTER_HOURS", "2012-11-23T18:00:00.000Z", "2012-11-23T22:00:00.000Z"),
        ]
    );
}

/// End-of-day bars are the stored daily bars, the simulated days once over included; corporate
/// actions are the splits and dividends derived at import.
#[tokio::test]
async fn eod_bars_and_corporate_actions_come_from_the_stored_history() {
    let (server, ops) = market("2013-03-04", 3).await;
    let client = server.client();
    let aapl: serde_json::Value = client
        .get("/trading/instruments/stocks/profiles/list", &[("symbols", "AAPL")])
        .await
        .unwrap();
    let aapl = aapl["data"][0]["instrument_id"].as_str().unwrap().to_owned();

    let eod: Vec<signet_model::quotes::EodBars> = client
        .get(
            "/market-data/eod-bars",
            &[
                ("instrument_ids", aapl.as_str()),
                ("date", "2013-03-01"),
                ("count", "3"),
            ],
        )
        .await
        .unwrap();
    let bars = &eod[0].bars;
    let days: Vec<&str> = bars.iter().map(|b| b.time.as_str()).collect();
    assert_eq!(days, ["2013-02-27", "2013-02-28", "2013-03-01"]);
    assert_eq!(
        (bars[2].close.as_str(), bars[2].volume.as_str()),
        ("430.47", "19730300")
    );
    // The last finished day by default: once Monday 2013-03-04, a drawn day, is over, it is the
    // last bar.
    ops.market().step(24 * 3600).await.unwrap();
    let latest: Vec<signet_model::quotes::EodBars> = client
        .get(
            "/market-data/eod-bars",
            &[("instrument_ids", &format!("{aapl},999999"))],
        )
        .await
        .unwrap();
    assert_eq!(latest.len(), 1, "an unknown id is left out");
    assert_eq!(latest[0].bars.len(), 1);
    assert_eq!(latest[0].bars[0].time, "2013-03-04");

    let actions: Vec<signet_model::quotes::CorpAction> = client
        .get(
            "/instrument/corp-action",
            &[("instrument_ids", aapl.as_str()), ("event_types", "SPLIT")],
        )
        .await
        .unwrap();
    let splits: Vec<(&str, Option<&str>)> = actions
        .iter()
        .map(|a| (a.ex_date.as_str(), a.ratio.as_deref()))
        .collect();
    assert_eq!(splits, [("2000-06-21", Some("2")), ("2005-02-28", Some("2"))]);
    let dividends: Vec<signet_model::quotes::CorpAction> = client
        .get(
            "/instrument/corp-action",
            &[
                ("instrument_ids", aapl.as_str()),
                ("event_types", "DIVIDEND"),
                ("start_date", "2012-01-01"),
                ("end_date", "2012-12-31"),
            ],
        )
        .await
        .unwrap();
    assert!(!dividends.is_empty(), "AAPL paid dividends from August 2012");
    assert!(
        dividends
            .iter()
            .all(|d| d.event_type == "DIVIDEND" && d.amount.is_some() && d.ex_date.starts_with("2012-"))
    );
    let second_page: Vec<signet_model::quotes::CorpAction> = client
        .get(
            "/instrument/corp-action",
            &[
                ("instrument_ids", aapl.as_str()),
                ("event_types", "SPLIT"),
                ("page_size", "1"),
                ("page_number", "2"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(second_page.len(), 1);
    assert_eq!(second_page[0].ex_date, "2005-02-28");

    for (path, query, expected) in [
        (
            "/market-data/eod-bars",
            vec![("count", "1")],
            ErrorCode::IllegalParameter,
        ),
        (
            "/market-data/eod-bars",
            vec![("instrument_ids", aapl.as_str()), ("count", "801")],
            ErrorCode::IllegalParameter,
        ),
        (
            "/market-data/eod-bars",
            vec![("instrument_ids", "x")],
            ErrorCode::IllegalParameter,
        ),
        (
            "/instrument/corp-action",
            vec![("instrument_ids", aapl.as_str()), ("event_types", "MERGER")],
            ErrorCode::IllegalParameter,
        ),
        (
            "/instrument/corp-action",
            vec![("instrument_ids", aapl.as_str()), ("page_number", "0")],
            ErrorCode::IllegalParameter,
        ),
    ] {
        let e = client.get::<serde_json::Value>(path, &query).await.unwrap_err();
        assert_eq!(e.code(), Some(expected), "{path} {query:?}");
    }
}

#[tokio::test]
async fn the_market_stats_of_replayed_and_drawn_days_are_a_real_markets() {
    // Replayed days of the real history, each symbol's stored bar drawn minute by minute.
    let (_server, ops) = market("2013-02-28", 1).await;
    let mut kurtosis = Vec::new();
    for symbol in ["AAPL", "MSFT", "IBM", "GOOG"] {
        for date in ["2013-02-25", "2013-02-26", "2013-02-27"] {
            let stats = ops.market().stats(symbol, Some(date)).await.unwrap();
            assert_eq!(
                (stats.symbol.as_str(), stats.date.as_str(), stats.minutes),
                (symbol, date, 390)
            );
            let figure = |name: &str| stats.figures.iter().find(|f| f.name.contains(name)).unwrap();
            for name in ["most common volume", "first 30", "last 30", "day's low", "day's high"] {
                assert!(figure(name).within, "{symbol} {date}: {:?}", figure(name));
            }
            kurtosis.push(figure("kurtosis").value.unwrap());
        }
    }
    let mean = kurtosis.iter().sum::<f64>() / kurtosis.len() as f64;
    assert!(mean > 4.0, "fat tails on average: {kurtosis:?}");
    // Today so far, and days to come or before the history, which have no minutes to show.
    ops.market().step(3600).await.unwrap();
    let today = ops.market().stats("AAPL", None).await.unwrap();
    assert_eq!((today.date.as_str(), today.minutes), ("2013-02-28", 61));
    for date in ["2013-03-01", "1999-01-04"] {
        let e = ops.market().stats("AAPL", Some(date)).await.unwrap_err();
        assert_eq!(e.code(), Some(ErrorCode::IllegalParameter), "{e}");
    }
    let e = ops.market().stats("AAPL", Some("28/02/2013")).await.unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter), "{e}");

    // A drawn day, beyond the history (which ends on 2013-03-01), behaves the same.
    let (_server, ops) = market("2013-03-04", 5).await;
    ops.market().step(CORE_SECONDS + 1).await.unwrap();
    for symbol in ["AAPL", "IBM"] {
        let stats = ops.market().stats(symbol, None).await.unwrap();
        assert_eq!(stats.minutes, 390);
        for f in stats.figures.iter().filter(|f| !f.name.contains("autocorrelation")) {
            assert!(
                f.within || f.name.contains("kurtosis") && f.value.unwrap() > 3.0,
                "{symbol}: {f:?}"
            );
        }
    }
}

/// One minute of the imported file: (New York day, minute of the session, open, high, low,
/// close in cents, volume).
type FileMinute = (&'static str, u16, i64, i64, i64, i64, i64);

/// AAPL's minutes of two days in signet's own layout (timestamps in New York time), with a
/// minute missing each day: a file as a vendor's export would give them.
fn minute_file(dir: &std::path::Path) -> (std::path::PathBuf, Vec<FileMinute>) {
    let mut rows = Vec::new();
    for (date, start) in [("2013-02-25", 45_385), ("2013-02-26", 44_800)] {
        let mut price: i64 = start;
        for minute in 0..390u16 {
            if minute == 200 {
                continue;
            }
            // A deterministic zig-zag with a drift, and volumes that differ every minute.
            let step = [7, -12, 3, 15, -9, -4, 11, -13][usize::from(minute % 8)];
            let open = price;
            let close = (price + step).max(100);
            let (high, low) = (open.max(close) + 4, open.min(close) - 3);
            let volume = 20_000 + i64::from(minute) * 37 % 9_001;
            rows.push((date, minute, open, high, low, close, volume));
            price = close;
        }
    }
    let mut csv = String::from("symbol,timestamp,open,high,low,close,volume\n");
    for &(date, minute, open, high, low, close, volume) in &rows {
        let at = 9 * 60 + 30 + u32::from(minute);
        let money = |c: i64| format!("{}.{:02}", c / 100, c % 100);
        csv.push_str(&format!(
            "AAPL,{date} {:02}:{:02}:00,{},{},{},{},{volume}\n",
            at / 60,
            at % 60,
            money(open),
            money(high),
            money(low),
            money(close)
        ));
    }
    let path = dir.join("aapl_minutes.csv");
    std::fs::write(&path, csv).unwrap();
    (path, rows)
}

#[tokio::test]
async fn an_imported_day_is_replayed_minute_by_minute() {
    let server = TestServer::start_market("2013-02-26", 3).await;
    let dir = tempfile::tempdir().unwrap();
    let (path, rows) = minute_file(dir.path());
    let store: std::sync::Arc<dyn signet_store::MarketDataStore> = server.database.store.clone();
    signet_import::import_file(store, &path, &Default::default(), Default::default())
        .await
        .unwrap();
    // The simulator reads the day's minutes when it enters the day: start it again on them.
    let server = server.restart().await;
    let ops = server.ops().await;
    ops.market().step(CORE_SECONDS + 1).await.unwrap();
    let bars = server.client().stocks().bars(&["AAPL"], "M1", Some(780)).await.unwrap();
    let mut served: Vec<_> = bars.result[0].result.iter().rev().collect();
    served.retain(|b| b.time.starts_with("2013-02-25") || b.time.starts_with("2013-02-26"));
    assert_eq!(
        served.len(),
        780,
        "every minute of both days, the missing ones untraded"
    );
    let money = |c: i64| format!("{}.{:02}", c / 100, c % 100);
    let mut file = rows.iter().peekable();
    for (i, bar) in served.iter().enumerate() {
        let minute = u16::try_from(i % 390).unwrap();
        match file.peek() {
            Some(&&(_, m, open, high, low, close, volume)) if m == minute => {
                let got = (&bar.open, &bar.high, &bar.low, &bar.close, &bar.volume);
                let want = (money(open), money(high), money(low), money(close), volume.to_string());
                assert_eq!(got, (&want.0, &want.1, &want.2, &want.3, &want.4), "{}", bar.time);
                file.next();
            }
            _ => assert_eq!(bar.volume, "0", "a minute the file lacks: {bar:?}"),
        }
    }
    // The quotes of the day are the file's too: the session's close is the file's last close.
    let snapshot = server
        .client()
        .stocks()
        .snapshots(&["AAPL"], false, false)
        .await
        .unwrap();
    assert_eq!(snapshot[0].close, money(rows.last().unwrap().5));
}
