//! Stock snapshots and depth of book (catalog §11.1, §11.4) from the market simulator: the quote
//! they show is the one orders fill at, replayed days show the real day, and refusals name what
//! is wrong.

use serde_json::{Value, json};
use signet_model::ErrorCode;
use signet_model::quotes::{BarsResponse, Depth, DepthLevel, Snapshot, Ticks};

use crate::common::TestServer;

/// The core open of Monday 2013-02-25 on the real price history (manual clock).
async fn market() -> TestServer {
    TestServer::start_market("2013-02-25", 2013).await
}

#[tokio::test]
async fn snapshots_show_the_replayed_day_in_the_order_asked() {
    let server = market().await;
    let ops = server.ops().await;
    ops.market().step(3600).await.unwrap();
    let snapshots: Vec<Snapshot> = server
        .client()
        .get(
            "/market-data/stocks/snapshots/list",
            &[("symbols", "msft,AAPL"), ("category", "US_STOCK")],
        )
        .await
        .unwrap();
    assert_eq!(
        snapshots.iter().map(|s| s.symbol.as_str()).collect::<Vec<_>>(),
        ["MSFT", "AAPL"]
    );
    let aapl = &snapshots[1];
    let quote = ops.market().quote("AAPL").await.unwrap();
    assert_eq!(aapl.price, quote.last);
    assert_eq!(
        (aapl.bid.as_str(), aapl.ask.as_str()),
        (quote.bid.as_str(), quote.ask.as_str())
    );
    assert_eq!(aapl.pre_close, "450.81", "the real close of Friday 2013-02-22");
    assert_eq!(aapl.open.as_deref(), Some("453.85"), "the real open");
    assert_eq!(aapl.trading_session, "CORE");
    assert_eq!(
        aapl.last_trade_time,
        1_361_802_600_000 + 3_600_000,
        "15:30 UTC, simulated"
    );
    let volume: u64 = aapl.volume.as_deref().unwrap().parse().unwrap();
    assert!(volume > 0, "an hour of the day has traded");
    let change: f64 = aapl.change.as_deref().unwrap().parse().unwrap();
    let price: f64 = aapl.price.parse().unwrap();
    assert!((change - (price - 450.81)).abs() < 1e-9);
    assert!(aapl.extend_hour_last_price.is_none() && aapl.ovn_price.is_none());
}

#[tokio::test]
async fn a_market_buy_fills_at_the_ask_the_snapshot_and_the_book_show() {
    let server = market().await;
    let ops = server.ops().await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    // Pinned, so that the quote stays what the snapshot showed until the engine's next tick (the
    // simulator's own path moves it within the second; the engine reads it through the same
    // function as the snapshot, `quote_of`).
    ops.market()
        .set("AAPL", "450.00", Some("449.98"), Some("450.02"), Some(10_000))
        .await
        .unwrap();
    let snapshot: Vec<Snapshot> = client
        .get("/market-data/stocks/snapshots/list", &[("symbols", "AAPL")])
        .await
        .unwrap();
    let depth: Depth = client
        .get("/market-data/stocks/depths/list", &[("symbol", "AAPL"), ("depth", "1")])
        .await
        .unwrap();
    assert_eq!((depth.asks.len(), depth.bids.len()), (1, 1));
    assert_eq!(
        (depth.asks[0].price.as_str(), depth.asks[0].size.as_str()),
        (snapshot[0].ask.as_str(), snapshot[0].ask_size.as_str())
    );
    let placed: Value = client
        .post(
            "/trading/orders/place",
            &json!({"account_id": account, "new_orders": [{
                "client_order_id": "seen", "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
                "order_type": "MARKET", "time_in_force": "DAY", "entrust_type": "QTY", "quantity": "1",
                "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE"}]}),
        )
        .await
        .unwrap();
    assert!(placed.is_object());
    ops.market().step(1).await.unwrap();
    let record: Value = client
        .get(
            "/trading/orders/get",
            &[("account_id", account.as_str()), ("client_order_id", "seen")],
        )
        .await
        .unwrap();
    assert_eq!(record["orders"][0]["filled_price"], json!(snapshot[0].ask));
    assert_eq!(snapshot[0].ask, "450.02");
}

#[tokio::test]
async fn a_pinned_quote_is_the_top_of_the_book() {
    let server = market().await;
    let ops = server.ops().await;
    ops.market()
        .set("IBM", "200.00", Some("199.95"), Some("200.05"), Some(300))
        .await
        .unwrap();
    let depth: Depth = server
        .client()
        .get(
            "/market-data/stocks/depths/list",
            &[("symbol", "IBM"), ("category", "US_STOCK"), ("depth", "3")],
        )
        .await
        .unwrap();
    let prices = |levels: &[DepthLevel]| {
        levels
            .iter()
            .map(|l| (l.price.clone(), l.size.clone()))
            .collect::<Vec<_>>()
    };
    let pairs = |v: [(&str, &str); 3]| v.map(|(p, s)| (p.to_owned(), s.to_owned())).to_vec();
    assert_eq!(
        prices(&depth.bids),
        pairs([("199.95", "300"), ("199.94", "500"), ("199.93", "600")])
    );
    assert_eq!(
        prices(&depth.asks),
        pairs([("200.05", "300"), ("200.06", "500"), ("200.07", "600")])
    );
    assert_eq!(depth.asks[0].order[0].mpid, "SIGNET");
    assert_eq!(depth.quote_time, "1361802600000");
}

#[tokio::test]
async fn unknown_symbols_and_bad_parameters_are_named() {
    let server = market().await;
    let client = server.client();
    let refused = |query: Vec<(&'static str, String)>, path: &'static str| {
        let client = client.clone();
        async move {
            let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
            client.get::<Value>(path, &query).await.unwrap_err()
        }
    };
    let snapshots = "/market-data/stocks/snapshots/list";
    let e = refused(vec![("symbols", "AAPL,NOPE,ZZZZ".into())], snapshots).await;
    assert_eq!(e.code(), Some(ErrorCode::InstrumentNotFound));
    assert!(e.to_string().contains("NOPE, ZZZZ"), "{e}");
    let many = vec!["AAPL"; 101].join(",");
    let e = refused(vec![("symbols", many)], snapshots).await;
    assert!(e.to_string().contains("at most 100"), "{e}");
    let e = refused(
        vec![("symbols", "AAPL".into()), ("category", "HK_STOCK".into())],
        snapshots,
    )
    .await;
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter));
    let e = refused(
        vec![("symbols", "AAPL".into()), ("extend_hour_required", "maybe".into())],
        snapshots,
    )
    .await;
    assert!(e.to_string().contains("extend_hour_required"), "{e}");
    let depths = "/market-data/stocks/depths/list";
    let e = refused(vec![("symbol", "AAPL".into()), ("depth", "51".into())], depths).await;
    assert!(e.to_string().contains("1 to 50"), "{e}");
    let e = refused(vec![("symbol", "AAPL,MSFT".into())], depths).await;
    assert!(e.to_string().contains("one symbol"), "{e}");
}

#[tokio::test]
async fn extended_hours_fields_come_when_asked_in_the_after_hours() {
    let server = market().await;
    let ops = server.ops().await;
    // From the core open (14:30 UTC) to 21:30 UTC: half an hour into the after hours.
    ops.market().step(7 * 3600).await.unwrap();
    let client = server.client();
    let plain: Vec<Snapshot> = client
        .get("/market-data/stocks/snapshots/list", &[("symbols", "AAPL")])
        .await
        .unwrap();
    let asked: Vec<Snapshot> = client
        .get(
            "/market-data/stocks/snapshots/list",
            &[
                ("symbols", "AAPL"),
                ("extend_hour_required", "True"),
                ("overnight_required", "True"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(asked[0].trading_session, "AFTER_HOURS");
    assert!(plain[0].extend_hour_last_price.is_none());
    assert_eq!(
        asked[0].extend_hour_last_price.as_deref(),
        Some(asked[0].price.as_str())
    );
    assert!(asked[0].ovn_price.is_none(), "not the overnight session");
}

#[tokio::test]
async fn ticks_are_the_seconds_of_the_core_session_newest_first() {
    let server = market().await;
    let ops = server.ops().await;
    ops.market().step(120).await.unwrap();
    let client = server.client();
    let ticks: Ticks = client
        .get(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("category", "US_STOCK"), ("count", "5")],
        )
        .await
        .unwrap();
    let now = ops.market().quote("AAPL").await.unwrap();
    assert_eq!(ticks.symbol, "AAPL");
    let times: Vec<i64> = ticks.result.iter().map(|t| t.time.parse().unwrap()).collect();
    let open = 1_361_802_600_000;
    assert_eq!(times, [120, 119, 118, 117, 116].map(|s| open + s * 1000));
    assert_eq!(ticks.result[0].price, now.last, "the newest tick is the quote now");
    for pair in ticks.result.windows(2) {
        let (newer, older): (f64, f64) = (pair[0].price.parse().unwrap(), pair[1].price.parse().unwrap());
        let side = if newer > older {
            "B"
        } else if newer < older {
            "S"
        } else {
            "N"
        };
        assert_eq!(pair[0].side, side, "{pair:?}");
        assert!(pair[0].volume.parse::<u64>().unwrap() > 0);
        assert_eq!(pair[0].trading_session, "RTH");
    }
    // The whole session so far is at most 121 seconds; the pre-market alone trades nothing.
    let all: Ticks = client
        .get(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("count", "1000")],
        )
        .await
        .unwrap();
    assert_eq!(all.result.len(), 121);
    let pre: Ticks = client
        .get(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("trading_sessions", "PRE,ATH")],
        )
        .await
        .unwrap();
    assert!(pre.result.is_empty());
    let e = client
        .get::<Value>(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("count", "1001")],
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter));
}

fn bar_value(bar: &signet_model::quotes::BarRow, field: &str) -> f64 {
    let text = match field {
        "open" => &bar.open,
        "close" => &bar.close,
        "high" => &bar.high,
        _ => &bar.low,
    };
    text.parse().unwrap()
}

#[tokio::test]
async fn daily_and_weekly_bars_are_the_real_history_and_today_so_far() {
    let server = market().await;
    let ops = server.ops().await;
    // To the last second of Monday 2013-02-25's core session, replayed from the real file.
    ops.market().step(6 * 3600 + 1800 - 1).await.unwrap();
    let client = server.client();
    let days: BarsResponse = client
        .post(
            "/market-data/stocks/bars/list",
            &json!({"symbols": ["AAPL"], "category": "US_STOCK", "timespan": "D", "count": "3"}),
        )
        .await
        .unwrap();
    let aapl = &days.result[0];
    let times: Vec<&str> = aapl.result.iter().map(|b| b.time.as_str()).collect();
    assert_eq!(
        times,
        [
            "2013-02-25T00:00:00.000+0000",
            "2013-02-22T00:00:00.000+0000",
            "2013-02-21T00:00:00.000+0000"
        ],
        "newest first, today included"
    );
    assert_eq!(bar_value(&aapl.result[0], "open"), 453.85, "the real open");
    assert_eq!(bar_value(&aapl.result[0], "close"), 442.8, "the real close, replayed");
    assert_eq!(bar_value(&aapl.result[1], "close"), 450.81, "Friday's real close");
    let quote = ops.market().quote("AAPL").await.unwrap();
    assert_eq!(aapl.result[0].high, quote.high, "today's high is the quote's");

    let weeks: BarsResponse = client
        .post(
            "/market-data/stocks/bars/list",
            &json!({"symbols": ["MSFT", "AAPL"], "timespan": "W", "count": 2}),
        )
        .await
        .unwrap();
    assert_eq!(weeks.result[0].symbol, "MSFT");
    let week = &weeks.result[1].result;
    assert_eq!(week.len(), 2);
    assert_eq!(week[0].time, "2013-02-25T00:00:00.000+0000");
    assert_eq!(
        week[1].time, "2013-02-19T00:00:00.000+0000",
        "Monday 2013-02-18 was a holiday"
    );
    assert_eq!(bar_value(&week[1], "close"), 450.81, "the week closes on Friday");
    let highs = [
        aapl.result[1].high.parse::<f64>().unwrap(),
        aapl.result[2].high.parse().unwrap(),
    ];
    assert!(bar_value(&week[1], "high") >= highs[0].max(highs[1]));
}

#[tokio::test]
async fn bars_refuse_intraday_spans_and_ranges_outside_the_simulators_days() {
    let server = market().await;
    let client = server.client();
    let refused = |body: Value| {
        let client = client.clone();
        async move {
            client
                .post::<_, Value>("/market-data/stocks/bars/list", &body)
                .await
                .unwrap_err()
                .to_string()
        }
    };
    let e = refused(json!({"symbols": ["AAPL"], "timespan": "M1", "count": 1})).await;
    assert!(e.contains("M1 is not served yet"), "{e}");
    let e = refused(json!({"symbols": ["AAPL"], "timespan": "H1"})).await;
    assert!(e.contains("timespan must be one of"), "{e}");
    // 1990: before the demo's history, which starts in 2000.
    let e = refused(json!({"symbols": ["AAPL"], "timespan": "D", "start_time": 631_152_000_000_i64, "end_time": 662_688_000_000_i64})).await;
    assert!(
        e.contains("no bars of AAPL in that range: the simulator's days run from 2000-03-01 to 2013-02-25"),
        "{e}"
    );
    // A bot's own clock, years after the simulator's today.
    let e = refused(json!({"symbols": ["AAPL"], "timespan": "D", "start_time": 1_700_000_000_000_i64})).await;
    assert!(e.contains("after the simulator's today"), "{e}");
    let e = refused(json!({"symbols": ["AAPL"], "timespan": "D", "count": "1201"})).await;
    assert!(e.contains("1 to 1200"), "{e}");
    let e = refused(json!({"symbols": ["NOPE"], "timespan": "D"})).await;
    assert!(e.contains("NOPE"), "{e}");
}
