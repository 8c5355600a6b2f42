//! Stock snapshots and depth of book (catalog §11.1, §11.4) from the market simulator: the quote
//! they show is the one orders fill at, replayed days show the real day, and refusals name what
//! is wrong.

use serde_json::{Value, json};
use signet_model::ErrorCode;
use signet_model::quotes::{BarRow, BarsResponse, Depth, DepthLevel, Snapshot, SymbolFootprints, Tick, Ticks};

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
    // The after hours' figures are its thin tape's since the close.
    let after: Ticks = client
        .get(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("count", "1000"), ("trading_sessions", "ATH")],
        )
        .await
        .unwrap();
    let close_ms = 1_361_826_000_000; // 16:00 New York
    assert!(after.result.iter().all(|t| t.time.parse::<i64>().unwrap() >= close_ms));
    let n = |s: &str| s.parse::<f64>().unwrap();
    let volume: u64 = after.result.iter().map(|t| t.volume.parse::<u64>().unwrap()).sum();
    assert!(after.result.len() < 1000, "all of it, thin");
    assert_eq!(asked[0].extend_hour_volume, Some(volume.to_string()));
    let highest = after.result.iter().map(|t| n(&t.price)).fold(f64::MIN, f64::max);
    assert_eq!(n(asked[0].extend_hour_high.as_deref().unwrap()), highest);
    assert_eq!(
        asked[0].extend_hour_last_price.as_deref(),
        Some(after.result[0].price.as_str())
    );
    assert_eq!(
        asked[0].extend_hour_last_trade_time,
        Some(after.result[0].time.parse().unwrap())
    );
    let change = n(&asked[0].price) - n(&asked[0].close);
    let reported = n(asked[0].extend_hour_change.as_deref().unwrap());
    assert!(
        (reported - change).abs() < 1e-6,
        "from the day's close: {reported} against {change}"
    );
}

#[tokio::test]
async fn ticks_are_the_core_sessions_seconds_and_the_thin_tape_around_it() {
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
    // The core session so far is 121 seconds; before it, the thin tape of the overnight
    // session and the pre-market: a print now and then.
    let all: Ticks = client
        .get(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("count", "1000")],
        )
        .await
        .unwrap();
    assert!(all.result.len() > 121);
    assert!(all.result[..121].iter().all(|t| t.trading_session == "RTH"));
    assert!(
        all.result[121..]
            .iter()
            .all(|t| t.trading_session == "PRE" || t.trading_session == "OVN")
    );
    let pre: Ticks = client
        .get(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("trading_sessions", "PRE,ATH"), ("count", "1000")],
        )
        .await
        .unwrap();
    let print = |t: &Tick| (t.time.clone(), t.price.clone(), t.volume.clone());
    let pre_in_all: Vec<_> = all.result[121..]
        .iter()
        .filter(|t| t.trading_session == "PRE")
        .map(print)
        .collect();
    assert!(!pre_in_all.is_empty());
    assert_eq!(
        pre.result.iter().take(pre_in_all.len()).map(print).collect::<Vec<_>>(),
        pre_in_all,
        "the same prints, whatever else is asked"
    );
    assert!(pre.result.iter().all(|t| t.trading_session == "PRE"));
    let times: Vec<i64> = pre.result.iter().map(|t| t.time.parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");
    let spread = (times[0] - times[times.len() - 1]) / 1000;
    assert!(
        spread > 2 * i64::try_from(times.len()).unwrap(),
        "thin: {} prints over {spread} seconds",
        times.len()
    );
    assert!(
        times[0] < open && times[0] >= open - 600_000,
        "the last just before the open"
    );
    let e = client
        .get::<Value>(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("count", "1001")],
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter));
}

fn bar_value(bar: &BarRow, field: &str) -> f64 {
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
async fn bars_refuse_unknown_spans_and_ranges_outside_the_simulators_days() {
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
    assert!(e.contains("run from 2000-03-01 to 2013-02-25 (its today)"), "{e}");
    let e = refused(json!({"symbols": ["AAPL"], "timespan": "M5", "start_time": 1_700_000_000_000_i64})).await;
    assert!(e.contains("intraday bars reach back 30 trading days"), "{e}");
    let e = refused(json!({"symbols": ["AAPL"], "timespan": "D", "start_time": 2, "end_time": 1})).await;
    assert!(e.contains("start_time is after end_time"), "{e}");
    let e = refused(json!({"symbols": ["AAPL"], "timespan": "D", "count": "1201"})).await;
    assert!(e.contains("1 to 1200"), "{e}");
    let e = refused(json!({"symbols": ["NOPE"], "timespan": "D"})).await;
    assert!(e.contains("NOPE"), "{e}");
}

async fn bars(server: &TestServer, body: Value) -> Vec<BarRow> {
    let response: BarsResponse = server
        .client()
        .post("/market-data/stocks/bars/list", &body)
        .await
        .unwrap();
    response.result.into_iter().next().unwrap().result
}

/// `bars` (newest first) as one bar: open, high, low, close and volume.
fn rolled(bars: &[BarRow]) -> (f64, f64, f64, f64, u64) {
    let value = |b: &BarRow, field| bar_value(b, field);
    (
        value(bars.last().unwrap(), "open"),
        bars.iter().map(|b| value(b, "high")).fold(f64::MIN, f64::max),
        bars.iter().map(|b| value(b, "low")).fold(f64::MAX, f64::min),
        value(&bars[0], "close"),
        bars.iter().map(|b| b.volume.parse::<u64>().unwrap()).sum(),
    )
}

#[tokio::test]
async fn intraday_bars_are_the_ticks_grouped_and_roll_up_to_the_daily_bar() {
    let server = market().await;
    let ops = server.ops().await;
    // 09:45:30 New York (14:45:30 UTC) on Monday 2013-02-25.
    ops.market().step(15 * 60 + 30).await.unwrap();
    let minutes = bars(&server, json!({"symbols": ["AAPL"], "timespan": "M1", "count": "1200"})).await;
    let today: Vec<BarRow> = minutes
        .iter()
        .take_while(|b| b.time.starts_with("2013-02-25"))
        .cloned()
        .collect();
    assert_eq!(today.len(), 16, "15 whole minutes and the one under way");
    assert_eq!(today[0].time, "2013-02-25T14:45:00.000+0000");
    assert_eq!(today[15].time, "2013-02-25T14:30:00.000+0000");
    assert_eq!(today[0].trading_session.as_deref(), Some("RTH"));
    assert_eq!(minutes.len(), 1200, "then the days before");
    assert_eq!(minutes[16].time, "2013-02-22T20:59:00.000+0000", "Friday's last minute");

    // The same minutes, rebuilt from the ticks.
    let ticks: Ticks = server
        .client()
        .get(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("count", "1000"), ("trading_sessions", "RTH")],
        )
        .await
        .unwrap();
    assert_eq!(ticks.result.len(), 931, "09:30:00 to 09:45:30");
    let open_ms = 1_361_802_600_000_i64;
    for (i, bar) in today.iter().enumerate() {
        let minute = 15 - i64::try_from(i).unwrap();
        let in_minute: Vec<_> = ticks
            .result
            .iter()
            .filter(|t| (t.time.parse::<i64>().unwrap() - open_ms) / 60_000 == minute)
            .collect();
        let prices: Vec<f64> = in_minute.iter().map(|t| t.price.parse().unwrap()).collect();
        let expected = (
            *prices.last().unwrap(),
            prices.iter().copied().fold(f64::MIN, f64::max),
            prices.iter().copied().fold(f64::MAX, f64::min),
            prices[0],
            in_minute.iter().map(|t| t.volume.parse::<u64>().unwrap()).sum::<u64>(),
        );
        assert_eq!(rolled(std::slice::from_ref(bar)), expected, "{}", bar.time);
    }
    let now = ops.market().quote("AAPL").await.unwrap();
    assert_eq!(today[0].close, now.last, "the last minute closes at the quote now");

    // Friday 2013-02-22, replayed from the real file: its 390 minutes make its daily bar.
    let friday = json!({"symbols": ["AAPL"], "timespan": "M1", "count": 1200,
        "start_time": 1_361_543_400_000_i64, "end_time": 1_361_566_799_999_i64});
    let friday_minutes = bars(&server, friday).await;
    assert_eq!(friday_minutes.len(), 390);
    let days = bars(&server, json!({"symbols": ["AAPL"], "timespan": "D", "count": 2})).await;
    let day = rolled(&days[1..2]);
    assert_eq!(days[1].time, "2013-02-22T00:00:00.000+0000");
    assert_eq!(rolled(&friday_minutes), day);
    let hours = bars(
        &server,
        json!({"symbols": ["AAPL"], "timespan": "M60", "count": 7,
        "end_time": 1_361_566_799_999_i64}),
    )
    .await;
    assert_eq!(hours.len(), 7);
    assert_eq!(
        hours[6].time, "2013-02-22T14:30:00.000+0000",
        "an hour's bar starts at the open"
    );
    assert_eq!(
        hours[0].time, "2013-02-22T20:30:00.000+0000",
        "and the last is half an hour"
    );
    assert_eq!(rolled(&hours), day);

    // Only finished bars when asked; seconds bars too.
    let finished = bars(
        &server,
        json!({"symbols": ["AAPL"], "timespan": "M1", "count": 1, "real_time_required": false}),
    )
    .await;
    assert_eq!(finished[0].time, "2013-02-25T14:44:00.000+0000");
    let seconds = bars(&server, json!({"symbols": ["AAPL"], "timespan": "S15", "count": 3})).await;
    let times: Vec<&str> = seconds.iter().map(|b| b.time.as_str()).collect();
    assert_eq!(
        times,
        [
            "2013-02-25T14:45:30.000+0000",
            "2013-02-25T14:45:15.000+0000",
            "2013-02-25T14:45:00.000+0000"
        ]
    );
    assert_eq!(seconds[0].volume, ticks.result[0].volume, "one second of it so far");
    // The pre-market's bars, when asked for, are its thin tape's prints grouped.
    let pre = bars(
        &server,
        json!({"symbols": ["AAPL"], "timespan": "M5", "trading_sessions": "PRE", "count": 3}),
    )
    .await;
    assert_eq!(pre[0].time, "2013-02-25T14:25:00.000+0000", "09:25 to the open");
    assert_eq!(pre[0].trading_session.as_deref(), Some("PRE"));
    let pre_ticks: Ticks = server
        .client()
        .get(
            "/market-data/stocks/ticks/list",
            &[("symbol", "AAPL"), ("count", "1000"), ("trading_sessions", "PRE")],
        )
        .await
        .unwrap();
    let last_five: u64 = pre_ticks
        .result
        .iter()
        .filter(|t| t.time.parse::<i64>().unwrap() >= open_ms - 300_000)
        .map(|t| t.volume.parse::<u64>().unwrap())
        .sum();
    assert_eq!(pre[0].volume, last_five.to_string());
    let with_core = bars(
        &server,
        json!({"symbols": ["AAPL"], "timespan": "M5", "trading_sessions": "PRE,RTH", "count": 5}),
    )
    .await;
    let times: Vec<&str> = with_core.iter().map(|b| &b.time[11..16]).collect();
    assert_eq!(times, ["14:45", "14:40", "14:35", "14:30", "14:25"]);
}

#[tokio::test]
async fn the_days_high_and_low_are_what_traded_so_far_not_what_is_to_come() {
    let server = market().await;
    let ops = server.ops().await;
    let snapshot = |server: &TestServer| {
        let client = server.client();
        async move {
            let mut s: Vec<Snapshot> = client
                .get("/market-data/stocks/snapshots/list", &[("symbols", "AAPL")])
                .await
                .unwrap();
            s.remove(0)
        }
    };
    let at_open = snapshot(&server).await;
    assert_eq!(at_open.open.as_deref(), Some("453.85"));
    assert_eq!(
        (at_open.high.as_deref(), at_open.low.as_deref()),
        (Some("453.85"), Some("453.85")),
        "one trade so far, at the open"
    );
    // Through the close: the day's real range.
    ops.market().step(6 * 3600 + 1800).await.unwrap();
    let closed = snapshot(&server).await;
    let day = bars(&server, json!({"symbols": ["AAPL"], "timespan": "D", "count": 1})).await;
    assert_eq!(day[0].time, "2013-02-25T00:00:00.000+0000");
    assert_eq!(closed.high.as_deref(), Some(day[0].high.as_str()));
    assert_eq!(closed.low.as_deref(), Some(day[0].low.as_str()));
    assert_eq!(closed.close, day[0].close);
    assert_eq!(day[0].close, "442.80", "the real close");
    assert!(bar_value(&day[0], "high") > 453.85 && bar_value(&day[0], "low") < 453.85);
}

#[tokio::test]
async fn footprints_split_each_bars_volume_into_bought_and_sold() {
    let server = market().await;
    let ops = server.ops().await;
    ops.market().step(10 * 60 + 7).await.unwrap();
    let client = server.client();
    // As the official client sends a list of sessions: its Python repr.
    let prints: Vec<SymbolFootprints> = client
        .get(
            "/market-data/stocks/footprints/list",
            &[
                ("symbols", "AAPL"),
                ("category", "US_STOCK"),
                ("timespan", "M1"),
                ("count", "200"),
                ("real_time_required", "True"),
                ("trading_sessions", "['PRE', 'RTH']"),
            ],
        )
        .await
        .unwrap();
    let aapl = &prints[0];
    assert_eq!(aapl.symbol, "AAPL");
    let minutes = bars(&server, json!({"symbols": ["AAPL"], "timespan": "M1", "count": 200})).await;
    assert_eq!(aapl.result.len(), 200);
    assert_eq!(
        aapl.result[0].time, "2013-02-25T14:40:00.000+0000",
        "the minute under way"
    );
    for (print, bar) in aapl.result.iter().zip(&minutes) {
        assert_eq!(print.time, bar.time);
        let (buy, sell): (u64, u64) = (print.buy_total.parse().unwrap(), print.sell_total.parse().unwrap());
        assert_eq!(print.total, bar.volume, "{}", bar.time);
        assert_eq!(buy + sell, print.total.parse::<u64>().unwrap());
        assert_eq!(print.delta, (i128::from(buy) - i128::from(sell)).to_string());
        let detail: u64 = print.buy_detail.values().map(|v| v.parse::<u64>().unwrap()).sum();
        assert_eq!(detail, buy);
        for price in print.buy_detail.keys().chain(print.sell_detail.keys()) {
            let price: f64 = price.parse().unwrap();
            assert!(
                (bar_value(bar, "low")..=bar_value(bar, "high")).contains(&price),
                "{price} in {bar:?}"
            );
        }
    }
    // Without real_time_required, the finished bars only.
    let finished: Vec<SymbolFootprints> = client
        .get(
            "/market-data/stocks/footprints/list",
            &[("symbols", "AAPL"), ("timespan", "S5"), ("count", "1")],
        )
        .await
        .unwrap();
    assert_eq!(
        finished[0].result[0].time, "2013-02-25T14:40:00.000+0000",
        "09:40:05's bar is under way"
    );
    let e = client
        .get::<Value>(
            "/market-data/stocks/footprints/list",
            &[("symbols", "AAPL"), ("timespan", "M15")],
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("S5, S15, M1, M5, M30"), "{e}");
    let many = (0..21).map(|i| format!("S{i}")).collect::<Vec<_>>().join(",");
    let e = client
        .get::<Value>("/market-data/stocks/footprints/list", &[("symbols", many.as_str())])
        .await
        .unwrap_err();
    assert!(e.to_string().contains("at most 20 symbols"), "{e}");
}
