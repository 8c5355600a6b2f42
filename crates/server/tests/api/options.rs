//! US equity options over signed HTTP, on the real price history: the chain listed on a day,
//! pages and filters; snapshots priced off the underlying (put–call parity within the spread,
//! moving with it); ticks, bars and the snapshot telling the same day; expiries rolling off as
//! the simulated calendar moves; refusals that name what is wrong.

use std::collections::BTreeSet;

use serde_json::Value;
use signet_model::ErrorCode;
use signet_model::options::{OptionBars, OptionContract, OptionContractPage, OptionSnapshot, OptionTicks};

use crate::common::TestServer;

const CONTRACTS: &str = "/trading/instruments/options/contracts/list";
const SNAPSHOTS: &str = "/market-data/options/snapshots/list";

/// The core open of Monday 2013-02-25 (AAPL closed at 450.81 the Friday before).
async fn market() -> TestServer {
    TestServer::start_market("2013-02-25", 2013).await
}

async fn chain(server: &TestServer, query: &[(&str, &str)]) -> Vec<OptionContract> {
    let client = server.client();
    let mut all = Vec::new();
    let mut key: Option<String> = None;
    loop {
        let mut q: Vec<(&str, &str)> = vec![("category", "US_OPTION")];
        q.extend_from_slice(query);
        if let Some(k) = &key {
            q.push(("pagination_key", k));
        }
        let page: OptionContractPage = client.get(CONTRACTS, &q).await.unwrap();
        // Full pages but the last.
        assert!(
            page.data.len() == 1000 || page.pagination_key.is_none(),
            "{}",
            page.data.len()
        );
        all.extend(page.data);
        match page.pagination_key {
            Some(k) => key = Some(k),
            None => return all,
        }
    }
}

fn f(text: &str) -> f64 {
    text.parse().unwrap_or_else(|_| panic!("a number: {text:?}"))
}

async fn snapshot(server: &TestServer, symbols: &str) -> Vec<OptionSnapshot> {
    server
        .client()
        .get(SNAPSHOTS, &[("symbols", symbols), ("category", "US_OPTION")])
        .await
        .unwrap()
}

#[tokio::test]
async fn a_chain_is_listed_once_across_its_pages_and_the_filters_narrow_it() {
    let server = market().await;
    let all = chain(&server, &[("underlying_symbols", "AAPL")]).await;
    let expiries: BTreeSet<&str> = all.iter().map(|c| c.expiration_date.as_str()).collect();
    let strikes: BTreeSet<i64> = all.iter().map(|c| c.strike_price.parse().unwrap()).collect();
    // Strikes from half to one and a half times 450.81, by $10; weeklies, monthlies, LEAPS.
    assert_eq!((strikes.first(), strikes.last()), (Some(&230), Some(&670)));
    assert_eq!(strikes.len(), 45);
    assert!(expiries.contains("2013-03-01") && expiries.contains("2013-03-15") && expiries.contains("2015-01-16"));
    assert!(!expiries.contains("2013-02-22"), "expired the Friday before");
    assert_eq!(all.len(), expiries.len() * strikes.len() * 2, "every contract once");
    assert!(all.len() > 1000, "more than one page: {}", all.len());
    let ids: Vec<i64> = all.iter().map(|c| c.instrument_id.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "in id order");
    let first = &all[0];
    assert_eq!(first.symbol, "AAPL130301C00230000");
    assert_eq!(
        (
            first.option_type.as_str(),
            first.style.as_str(),
            first.multiplier.as_str(),
            first.underlying_type.as_str(),
            first.expired_cycle.as_str(),
            first.underlying_symbol.as_str(),
        ),
        ("CALL", "AMERICAN", "100", "EQUITY_CALL_OPTION", "WEEKLY", "AAPL")
    );
    assert!(first.deliverables.is_none());

    let narrowed = chain(
        &server,
        &[
            ("underlying_symbols", "AAPL"),
            ("start_date", "2013-03-15"),
            ("option_type", "PUT"),
            ("strike_price_gte", "440"),
            ("strike_price_lte", "460"),
            ("show_deliverables", "true"),
        ],
    )
    .await;
    let symbols: Vec<&str> = narrowed.iter().map(|c| c.symbol.as_str()).collect();
    assert_eq!(
        symbols,
        ["AAPL130315P00440000", "AAPL130315P00450000", "AAPL130315P00460000"]
    );
    assert_eq!(narrowed[0].expired_cycle, "MONTHLY");
    let deliverable = &narrowed[0].deliverables.as_ref().unwrap()[0];
    assert_eq!(
        (deliverable.symbol.as_str(), deliverable.amount.as_str()),
        ("AAPL", "100")
    );
    // An ETF's contracts say so; two underlyings list one after the other; none are European.
    let two = chain(
        &server,
        &[("underlying_symbols", "SPY,AAPL"), ("start_date", "2013-03-15")],
    )
    .await;
    assert_eq!(
        two.iter().filter(|c| c.underlying_type.starts_with("ETF_")).count(),
        two.len() - 90
    );
    assert!(
        chain(&server, &[("underlying_symbols", "AAPL"), ("style", "EUROPEAN")])
            .await
            .is_empty()
    );
    // Two whole chains paged together: each contract once, in id order, AAPL's first (its id is
    // the lower), and every page but the last full.
    let spy = chain(&server, &[("underlying_symbols", "SPY")]).await;
    let both = chain(&server, &[("underlying_symbols", "SPY,AAPL,AAPL")]).await;
    assert_eq!(both.len(), all.len() + spy.len());
    assert_eq!(both[..all.len()], all[..]);
    assert_eq!(both[all.len()..], spy[..]);
    // By symbol: listed ones only.
    let by_symbol = chain(
        &server,
        &[("option_symbols", "AAPL130315C00450000,AAPL130315C00451000")],
    )
    .await;
    assert_eq!(by_symbol.len(), 1);
    assert_eq!(by_symbol[0].symbol, "AAPL130315C00450000");

    // The deprecated path pages by page_size and the last id, in the same order.
    let client = server.client();
    let earlier: Vec<OptionContract> = client
        .get(
            "/openapi/instrument/option/contracts",
            &[
                ("category", "US_OPTION"),
                ("underlying_symbols", "AAPL"),
                ("page_size", "3"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(earlier, all[..3]);
    let next: Vec<OptionContract> = client
        .get(
            "/openapi/instrument/option/contracts",
            &[
                ("category", "US_OPTION"),
                ("underlying_symbols", "AAPL"),
                ("last_instrument_id", &earlier[2].instrument_id),
            ],
        )
        .await
        .unwrap();
    assert_eq!(next, all[3..13], "ten by default");
}

#[tokio::test]
async fn snapshots_are_priced_off_the_underlying_with_parity_within_the_spread() {
    let server = market().await;
    let ops = server.ops().await;
    ops.market().step(3600).await.unwrap();
    let spot = f(&ops.market().quote("AAPL").await.unwrap().last);
    // Calls and puts of one expiry, three weeks out.
    let strikes = [400, 430, 450, 470, 500];
    let symbols: Vec<String> = strikes
        .iter()
        .flat_map(|k| [format!("AAPL130315C00{k}000"), format!("AAPL130315P00{k}000")])
        .collect();
    let snaps = snapshot(&server, &symbols.join(",")).await;
    assert_eq!(
        snaps.iter().map(|s| s.symbol.as_str()).collect::<Vec<_>>(),
        symbols.iter().map(String::as_str).collect::<Vec<_>>(),
        "in the order asked"
    );
    let years: f64 = 18.0 / 365.0;
    for (k, pair) in strikes.iter().zip(snaps.chunks(2)) {
        let (call, put) = (&pair[0], &pair[1]);
        for s in pair {
            assert!(f(&s.bid) < f(&s.ask), "{}: {} {}", s.symbol, s.bid, s.ask);
            assert!(f(&s.bid) >= 0.0);
            assert_eq!(s.strike_price, k.to_string());
        }
        let discounted = *k as f64 * (-0.02 * years).exp();
        // Any dividend yield up to 5 % puts the forward between these.
        let (low, high) = (spot * (-0.05 * years).exp() - discounted, spot - discounted);
        assert!(
            f(&call.bid) - f(&put.ask) <= high + 1e-9,
            "{k}: {} {} {high}",
            call.bid,
            put.ask
        );
        assert!(
            f(&call.ask) - f(&put.bid) >= low - 1e-9,
            "{k}: {} {} {low}",
            call.ask,
            put.bid
        );
        let (cd, pd) = (f(&call.delta), f(&put.delta));
        assert!((0.0..=1.0).contains(&cd) && (-1.0..=0.0).contains(&pd), "{cd} {pd}");
        assert!((cd - pd - 1.0).abs() < 0.01, "deltas differ by about one: {cd} {pd}");
        assert!(f(&call.imp_vol) > 0.05 && f(&call.imp_vol) < 2.0);
        assert_eq!(call.imp_vol, put.imp_vol, "one volatility a strike");
    }
    // Calls cheapen and puts dearen with the strike.
    let calls: Vec<f64> = snaps.iter().step_by(2).map(|s| f(&s.ask)).collect();
    let puts: Vec<f64> = snaps.iter().skip(1).step_by(2).map(|s| f(&s.bid)).collect();
    assert!(calls.windows(2).all(|w| w[0] > w[1]), "{calls:?}");
    assert!(puts.windows(2).all(|w| w[0] < w[1]), "{puts:?}");

    // The underlying pinned far higher: the call dearer, the put cheaper.
    ops.market()
        .set("AAPL", "520.00", Some("519.98"), Some("520.02"), Some(1000))
        .await
        .unwrap();
    let moved = snapshot(&server, "AAPL130315C00450000,AAPL130315P00450000").await;
    assert!(
        f(&moved[0].bid) > f(&snaps[4].ask) + 40.0,
        "{} {}",
        moved[0].bid,
        snaps[4].ask
    );
    assert!(f(&moved[1].ask) < f(&snaps[5].bid), "{} {}", moved[1].ask, snaps[5].bid);
    assert!(f(&moved[0].delta) > f(&snaps[4].delta));
    assert_eq!(
        moved[0].open_interest, snaps[4].open_interest,
        "open interest is the day's"
    );
}

#[tokio::test]
async fn ticks_bars_and_the_snapshot_tell_the_same_day() {
    let server = market().await;
    let ops = server.ops().await;
    let client = server.client();
    let atm = "AAPL130301C00450000";
    let before = snapshot(&server, atm).await.remove(0);
    assert_eq!(before.volume, "0", "nothing traded at the open");
    assert!(before.open.is_none() && before.last_trade_time.is_none());
    assert_eq!(before.price, before.pre_close);
    ops.market().step(2 * 3600).await.unwrap();
    let now = snapshot(&server, atm).await.remove(0);
    let ticks: OptionTicks = client
        .get(
            "/market-data/options/ticks/list",
            &[("symbol", atm), ("category", "US_OPTION"), ("count", "1200")],
        )
        .await
        .unwrap();
    assert!(
        ticks.result.len() > 20,
        "two hours at the money: {}",
        ticks.result.len()
    );
    let volume: u64 = ticks.result.iter().map(|t| t.volume.parse::<u64>().unwrap()).sum();
    assert_eq!(volume.to_string(), now.volume);
    assert_eq!(ticks.result[0].price, now.price, "the newest tick is the last price");
    assert_eq!(ticks.result[0].time, now.last_trade_time.unwrap().to_string());
    let times: Vec<i64> = ticks.result.iter().map(|t| t.time.parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] > w[1]) && times[0] <= now.quote_time);
    assert!(ticks.result.iter().all(|t| ["B", "S", "N"].contains(&t.side.as_str())));
    assert_eq!(ticks.instrument_id, now.instrument_id);
    let five: OptionTicks = client
        .get(
            "/market-data/options/ticks/list",
            &[("symbol", atm), ("count", "5"), ("category", "US_OPTION")],
        )
        .await
        .unwrap();
    assert_eq!(five.result, ticks.result[..5]);
    let high = ticks.result.iter().map(|t| f(&t.price)).fold(f64::MIN, f64::max);
    assert_eq!(f(now.high.as_deref().unwrap()), high);

    let bars = |timespan: &'static str| {
        let client = client.clone();
        async move {
            let bars: OptionBars = client
                .get(
                    "/market-data/options/bars/list",
                    &[
                        ("symbols", atm),
                        ("category", "US_OPTION"),
                        ("timespan", timespan),
                        ("count", "200"),
                    ],
                )
                .await
                .unwrap();
            bars.result.into_iter().next().unwrap().result
        }
    };
    let minutes = bars("M5").await;
    let (today, before): (Vec<_>, Vec<_>) = minutes.iter().partition(|b| b.time.starts_with("2013-02-25"));
    let summed: u64 = today.iter().map(|b| b.volume.parse::<u64>().unwrap()).sum();
    assert_eq!(summed.to_string(), now.volume, "today's bars are made of its ticks");
    assert!(today.len() <= 24, "two hours of five minutes: {}", today.len());
    assert!(
        before[0].time.starts_with("2013-02-22"),
        "then Friday's: {}",
        before[0].time
    );
    assert!(before.iter().all(|b| b.time.as_str() < "2013-02-23"));
    assert_eq!(minutes.len(), 200, "as many as asked, from the days before");
    assert!(minutes.windows(2).all(|w| w[0].time > w[1].time));
    assert_eq!(bars("M5").await, minutes, "an earlier day's trades are drawn once");
    let days = bars("D").await;
    assert_eq!(days[0].volume, now.volume, "today's bar so far first");
    assert_eq!(days[0].close, now.price);
    assert!(days.len() >= 5, "the days it was listed before: {}", days.len());
    assert!(days.windows(2).all(|w| w[0].time > w[1].time));
    assert!(days.iter().all(|b| f(&b.low) <= f(&b.open) && f(&b.open) <= f(&b.high)));
}

#[tokio::test]
async fn expiries_roll_off_as_the_calendar_moves() {
    let server = market().await;
    let ops = server.ops().await;
    let weekly = "AAPL130301C00450000";
    snapshot(&server, weekly).await;
    // To Monday 2013-03-04's open: the weekly of Friday 2013-03-01 has expired.
    ops.market().step(7 * 86_400).await.unwrap();
    let e = server
        .client()
        .get::<Value>(SNAPSHOTS, &[("symbols", weekly), ("category", "US_OPTION")])
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::InstrumentNotFound), "{e}");
    let listed = chain(&server, &[("underlying_symbols", "AAPL")]).await;
    let expiries: BTreeSet<&str> = listed.iter().map(|c| c.expiration_date.as_str()).collect();
    assert!(!expiries.contains("2013-03-01"));
    assert!(
        expiries.contains("2013-04-12"),
        "a new weekly six weeks out: {expiries:?}"
    );
}

#[tokio::test]
async fn refusals_name_what_is_wrong() {
    let server = market().await;
    let client = server.client();
    let refused = |path: &'static str, query: Vec<(&'static str, String)>| {
        let client = client.clone();
        async move {
            let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
            client.get::<Value>(path, &query).await.unwrap_err()
        }
    };
    let e = refused(SNAPSHOTS, vec![("symbols", "AAPL".into())]).await;
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter), "not an OCC symbol: {e}");
    let e = refused(SNAPSHOTS, vec![("symbols", "AAPL130315C00451000".into())]).await;
    assert_eq!(e.code(), Some(ErrorCode::InstrumentNotFound), "no such strike: {e}");
    assert!(e.to_string().contains("not listed"), "{e}");
    let e = refused(SNAPSHOTS, vec![("symbols", "NOPE130315C00045000".into())]).await;
    assert_eq!(e.code(), Some(ErrorCode::InstrumentNotFound), "{e}");
    let many = vec!["AAPL130315C00450000"; 21].join(",");
    let e = refused(SNAPSHOTS, vec![("symbols", many)]).await;
    assert!(e.to_string().contains("at most 20"), "{e}");
    let e = refused(
        SNAPSHOTS,
        vec![
            ("symbols", "AAPL130315C00450000".into()),
            ("category", "US_STOCK".into()),
        ],
    )
    .await;
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter), "{e}");
    let e = refused(CONTRACTS, vec![("category", "US_OPTION".into())]).await;
    assert!(e.to_string().contains("underlying_symbols"), "{e}");
    let e = refused(
        CONTRACTS,
        vec![
            ("underlying_symbols", "AAPL".into()),
            ("pagination_key", "forged".into()),
        ],
    )
    .await;
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter), "{e}");
    let e = refused(
        "/market-data/options/bars/list",
        vec![("symbols", "AAPL130315C00450000".into()), ("timespan", "M7".into())],
    )
    .await;
    assert!(e.to_string().contains("timespan"), "{e}");
    let e = refused(
        "/market-data/options/ticks/list",
        vec![("symbol", "AAPL130315C00450000".into()), ("count", "1201".into())],
    )
    .await;
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter), "{e}");
    // An unknown underlying lists nothing.
    assert!(chain(&server, &[("underlying_symbols", "NOPE")]).await.is_empty());
}

#[tokio::test]
async fn outside_the_core_session_options_stand_at_the_close() {
    let server = market().await;
    let ops = server.ops().await;
    let pair = "AAPL130315C00440000,AAPL130315P00440000";
    // 16:10, then 17:10: the underlying trades on thinly after hours, the options do not.
    ops.market().step(6 * 3600 + 40 * 60).await.unwrap();
    let after_close = snapshot(&server, pair).await;
    ops.market().step(3600).await.unwrap();
    let later = snapshot(&server, pair).await;
    // Tuesday 09:00, the pre-market: still Monday's close.
    ops.market().step(15 * 3600 + 50 * 60).await.unwrap();
    let pre_market = snapshot(&server, pair).await;
    let market_of = |s: &OptionSnapshot| (s.bid.clone(), s.ask.clone(), s.delta.clone(), s.imp_vol.clone());
    for (a, b) in after_close.iter().zip(&later) {
        assert_eq!(market_of(a), market_of(b), "{}", a.symbol);
        assert_ne!(a.volume, "0", "Monday traded");
    }
    // Before Tuesday's open: valued at Monday's close (with Tuesday's volatility, which takes in
    // Monday's return), which is Tuesday's previous close; nothing traded yet.
    for (monday, tuesday) in after_close.iter().zip(&pre_market) {
        let close = f(&tuesday.pre_close);
        assert!(
            f(&tuesday.bid) <= close && close <= f(&tuesday.ask),
            "{}: {close}",
            tuesday.symbol
        );
        assert_eq!(tuesday.volume, "0");
        let moved = (f(&tuesday.bid) - f(&monday.bid)).abs() / f(&monday.bid);
        assert!(moved < 0.05, "{}: {} then {}", monday.symbol, monday.bid, tuesday.bid);
    }
}
