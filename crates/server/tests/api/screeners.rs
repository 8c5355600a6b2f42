//! The six screeners over the real AAPL, IBM, MSFT, GOOG and FB history as of 2012-12-31: every
//! ranking equals the one this test computes on its own from the CSV, for every sort key and
//! direction; sectors aggregate and paginate; bad parameters are refused by name.

use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;

use signet_client::Client;
use signet_domain::marketdata::units::parse_day;
use signet_import::{Progress, import_file};
use signet_model::screeners::{ScreenerItem, SectorDetail, SectorPage};
use signet_store::refresh_snapshots;

use crate::common::TestServer;

const AS_OF: &str = "2012-12-31";

/// One symbol's figures, computed here from the CSV alone.
#[derive(Debug, Clone)]
struct Figures {
    symbol: String,
    price: f64,
    high: f64,
    low: f64,
    volume: f64,
    change: HashMap<&'static str, Option<f64>>,
    amplitude: f64,
    relative_volume_10d: Option<f64>,
    turnover: f64,
    high_52w: f64,
    low_52w: f64,
}

fn expected_figures() -> Vec<Figures> {
    let mut text = String::new();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/demo/daily_ohlcv_2000_2013.csv.gz"
    );
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut by_symbol: HashMap<String, Vec<Vec<String>>> = HashMap::new();
    for line in text.lines().skip(1) {
        let cells: Vec<String> = line.split(',').map(str::to_owned).collect();
        if cells[1].as_str() <= AS_OF {
            by_symbol.entry(cells[0].clone()).or_default().push(cells);
        }
    }
    let one_year_before = "2012-01-01"; // 365 days before 2012-12-31 is 2012-01-01 (2012 is a leap year)
    by_symbol
        .into_iter()
        .map(|(symbol, rows)| {
            let f = |row: &Vec<String>, i: usize| row[i].parse::<f64>().unwrap();
            let n = rows.len();
            let last = &rows[n - 1];
            let (price, pre_close) = (f(last, 5), f(&rows[n - 2], 5));
            let back = |k: usize| n.checked_sub(k + 1).map(|i| f(&rows[i], 5));
            let ratio = |base: Option<f64>| base.map(|b| price / b - 1.0);
            let change = HashMap::from([
                ("D1", ratio(Some(pre_close))),
                ("D5", ratio(back(5))),
                ("M1", ratio(back(21))),
                ("M3", ratio(back(63))),
                ("W52", ratio(back(252))),
            ]);
            let previous: Vec<f64> = rows[n - 11..n - 1].iter().map(|r| f(r, 6)).collect();
            let year: Vec<&Vec<String>> = rows.iter().filter(|r| r[1].as_str() > one_year_before).collect();
            Figures {
                symbol,
                price,
                high: f(last, 3),
                low: f(last, 4),
                volume: f(last, 6),
                change,
                amplitude: (f(last, 3) - f(last, 4)) / pre_close,
                relative_volume_10d: Some(f(last, 6) / (previous.iter().sum::<f64>() / 10.0)),
                turnover: f(last, 6) * price,
                high_52w: year.iter().map(|r| f(r, 3)).fold(f64::MIN, f64::max),
                low_52w: year.iter().map(|r| f(r, 4)).fold(f64::MAX, f64::min),
            }
        })
        .collect()
}

/// The value a sort key means for a figure set; `period` is the key of the change measured.
fn key(f: &Figures, sort_by: &str, period: &str) -> Option<f64> {
    match sort_by {
        "CHANGE_RATIO" => f.change[period],
        "CHANGE_RATIO_52W" => f.change["W52"],
        "RELATIVE_VOLUME_10D" => f.relative_volume_10d,
        "CLOSE" | "PRICE" => Some(f.price),
        "HIGH" => Some(f.high),
        "LOW" => Some(f.low),
        "AMPLITUDE" => Some(f.amplitude),
        "TURNOVER" => Some(f.turnover),
        "VOLUME" => Some(f.volume),
        // No shares outstanding, EPS or dividends are imported here: unknown for everyone.
        "MARKET_VALUE" | "PE_TTM" | "YIELD" | "DIVIDEND" => None,
        other => panic!("unknown sort key {other}"),
    }
}

/// Orders symbols the way the screeners promise: by key, unknown values last, then by symbol.
fn order(mut figures: Vec<&Figures>, sort_by: &str, period: &str, descending: bool) -> Vec<String> {
    figures.sort_by(|a, b| {
        let (ka, kb) = (key(a, sort_by, period), key(b, sort_by, period));
        let by_key = match (ka, kb) {
            (Some(x), Some(y)) => {
                if descending {
                    y.total_cmp(&x)
                } else {
                    x.total_cmp(&y)
                }
            }
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        by_key.then_with(|| a.symbol.cmp(&b.symbol))
    });
    figures.into_iter().map(|f| f.symbol.clone()).collect()
}

async fn server() -> TestServer {
    let server = TestServer::start().await;
    let store = server.database.store.clone();
    for file in [
        "data/demo/us_listed_companies.csv",
        "data/demo/daily_ohlcv_2000_2013.csv.gz",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(file);
        import_file(store.clone(), &path, &Default::default(), Arc::new(Progress::default()))
            .await
            .unwrap();
    }
    let (_, ranked) = refresh_snapshots(store.as_ref(), parse_day(AS_OF)).await.unwrap();
    assert_eq!(ranked, 5);
    server
}

async fn list(client: &Client, path: &str, query: &[(&str, &str)]) -> Vec<ScreenerItem> {
    client
        .get(path, query)
        .await
        .unwrap_or_else(|e| panic!("{path} {query:?}: {e}"))
}

fn symbols(items: &[ScreenerItem]) -> Vec<String> {
    items.iter().map(|i| i.symbol.clone()).collect()
}

const SORT_11: [&str; 11] = [
    "CHANGE_RATIO",
    "RELATIVE_VOLUME_10D",
    "MARKET_VALUE",
    "CLOSE",
    "PRICE",
    "PE_TTM",
    "HIGH",
    "LOW",
    "AMPLITUDE",
    "TURNOVER",
    "VOLUME",
];

#[tokio::test]
async fn gainers_and_losers_match_an_independent_computation() {
    let server = server().await;
    let client = server.client();
    let expected = expected_figures();
    for (rank_type, period) in [
        ("DAY_1", "D1"),
        ("DAY_5", "D5"),
        ("MONTH_1", "M1"),
        ("MONTH_3", "M3"),
        ("WEEK_52", "W52"),
    ] {
        for direction in ["DESC", "ASC"] {
            let movers: Vec<&Figures> = expected
                .iter()
                .filter(|f| f.change[period].is_some_and(|c| if direction == "DESC" { c > 0.0 } else { c < 0.0 }))
                .collect();
            for sort_by in SORT_11 {
                let query = [
                    ("rank_type", rank_type),
                    ("category", "US_STOCK"),
                    ("sort_by", sort_by),
                    ("direction", direction),
                ];
                let got = list(&client, "/market-data/screeners/gainers-losers/list", &query).await;
                let want = order(movers.clone(), sort_by, period, direction == "DESC");
                assert_eq!(symbols(&got), want, "{query:?}");
                for item in &got {
                    let f = expected.iter().find(|f| f.symbol == item.symbol).unwrap();
                    let ratio: f64 = item.change_ratio.parse().unwrap();
                    assert!(
                        (ratio - f.change[period].unwrap()).abs() < 1e-5,
                        "{} {rank_type}",
                        item.symbol
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn the_figures_of_one_instrument() {
    let server = server().await;
    let got = list(
        &server.client(),
        "/market-data/screeners/top-actives/list",
        &[("category", "US_STOCK")],
    )
    .await;
    let apple = got.iter().find(|i| i.symbol == "AAPL").unwrap();
    assert_eq!(
        (apple.date.as_str(), apple.close.as_str(), apple.pre_close.as_str()),
        (AS_OF, "532.1729", "509.5892")
    );
    assert_eq!(
        (apple.open.as_str(), apple.high.as_str(), apple.low.as_str()),
        ("510.53", "535.4", "509")
    );
    assert_eq!(apple.volume, "23553300");
    assert_eq!(apple.name, "Apple Inc.");
    assert_eq!(apple.exchange_code.as_deref(), Some("NASDAQ"));
    let expected = expected_figures();
    let f = expected.iter().find(|f| f.symbol == "AAPL").unwrap();
    let close = |text: &str, want: f64| assert!((text.parse::<f64>().unwrap() - want).abs() < 1e-4, "{text} vs {want}");
    close(&apple.high_52w, f.high_52w);
    close(&apple.low_52w, f.low_52w);
    close(&apple.amplitude, f.amplitude);
    close(
        apple.relative_volume_10d.as_deref().unwrap(),
        f.relative_volume_10d.unwrap(),
    );
    assert!(
        apple.market_value.is_none() && apple.pe_ttm.is_none(),
        "unknown without shares and EPS"
    );
    assert!(
        apple
            .dividend
            .as_deref()
            .is_some_and(|d| d.parse::<f64>().unwrap() > 2.0),
        "AAPL's derived 2012 dividend"
    );
}

#[tokio::test]
async fn most_active_ranks_then_sorts() {
    let server = server().await;
    let client = server.client();
    let expected = expected_figures();
    for sort_by in SORT_11 {
        for direction in ["DESC", "ASC"] {
            let query = [
                ("category", "US_STOCK"),
                ("rank_type", "VOLUME"),
                ("sort_by", sort_by),
                ("direction", direction),
            ];
            let got = list(&client, "/market-data/screeners/top-actives/list", &query).await;
            assert_eq!(
                symbols(&got),
                order(expected.iter().collect(), sort_by, "D1", direction == "DESC"),
                "{query:?}"
            );
        }
    }
}

#[tokio::test]
async fn high_dividend_lists_the_payers_by_yield() {
    let server = server().await;
    let got = list(
        &server.client(),
        "/market-data/screeners/high-dividend-ranks/list",
        &[("category", "US_STOCK")],
    )
    .await;
    // MSFT, IBM and AAPL paid in 2012 (derived from the adjusted close); GOOG and FB did not.
    let mut payers = symbols(&got);
    let yields: Vec<f64> = got
        .iter()
        .map(|i| i.dividend_yield.as_deref().unwrap().parse().unwrap())
        .collect();
    assert!(
        yields.windows(2).all(|w| w[0] >= w[1]),
        "by yield, highest first: {yields:?}"
    );
    payers.sort();
    assert_eq!(payers, ["AAPL", "IBM", "MSFT"]);
    assert!(
        got.iter()
            .all(|i| i.ex_date.as_deref().is_some_and(|d| d.starts_with("2012-")))
    );
}

#[tokio::test]
async fn week52_highs_and_lows() {
    let server = server().await;
    let client = server.client();
    let expected = expected_figures();
    let near = 0.05;
    type Selects = fn(&Figures, f64) -> bool;
    let cases: [(&str, Selects); 4] = [
        ("NEW_HIGH", |f, _| f.high >= f.high_52w),
        ("NEAR_HIGH", |f, near| {
            f.high < f.high_52w && f.price >= f.high_52w * (1.0 - near)
        }),
        ("NEW_LOW", |f, _| f.low <= f.low_52w),
        ("NEAR_LOW", |f, near| {
            f.low > f.low_52w && f.price <= f.low_52w * (1.0 + near)
        }),
    ];
    for (rank_type, selects) in cases {
        for sort_by in ["CHANGE_RATIO_52W", "VOLUME", "CHANGE_RATIO"] {
            let query = [("rank_type", rank_type), ("category", "US_STOCK"), ("sort_by", sort_by)];
            let got = list(&client, "/market-data/screeners/week52-high-low/list", &query).await;
            let want = order(
                expected.iter().filter(|f| selects(f, near)).collect(),
                sort_by,
                "D1",
                true,
            );
            assert_eq!(symbols(&got), want, "{query:?}");
        }
    }
}

#[tokio::test]
async fn sectors_aggregate_and_paginate() {
    let server = server().await;
    let client = server.client();
    let page: SectorPage = client
        .get(
            "/market-data/screeners/market-sectors/list",
            &[("category", "US_STOCK"), ("agg_type", "VOLUME")],
        )
        .await
        .unwrap();
    let names: Vec<&str> = page.data.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["Information Technology", "Communication Services"],
        "by volume, largest first"
    );
    let it = &page.data[0];
    assert_eq!(it.id, "45");
    let expected = expected_figures();
    let it_symbols = ["AAPL", "IBM", "MSFT"];
    let it_figures: Vec<&Figures> = expected
        .iter()
        .filter(|f| it_symbols.contains(&f.symbol.as_str()))
        .collect();
    let up = it_figures.iter().filter(|f| f.change["D1"].unwrap() > 0.0).count() as u64;
    assert_eq!((it.advanced, it.declined), (up, 3 - up));
    let mean = it_figures.iter().map(|f| f.change["D1"].unwrap()).sum::<f64>() / 3.0;
    assert!(
        (it.change_ratio.parse::<f64>().unwrap() - mean).abs() < 1e-5,
        "equal weights without market values"
    );
    let volume: f64 = it_figures.iter().map(|f| f.volume).sum();
    assert_eq!(it.volume, format!("{volume:.0}"));
    assert!(page.pagination_key.is_none());

    let first: SectorPage = client
        .get(
            "/market-data/screeners/market-sectors/list",
            &[("category", "US_STOCK"), ("agg_type", "VOLUME"), ("page_size", "1")],
        )
        .await
        .unwrap();
    let key = first.pagination_key.clone().expect("a second page");
    let second: SectorPage = client
        .get(
            "/market-data/screeners/market-sectors/list",
            &[
                ("category", "US_STOCK"),
                ("agg_type", "VOLUME"),
                ("page_size", "1"),
                ("pagination_key", &key),
            ],
        )
        .await
        .unwrap();
    assert_eq!(
        (first.data[0].name.as_str(), second.data[0].name.as_str()),
        ("Information Technology", "Communication Services")
    );
    assert!(second.pagination_key.is_none(), "absent on the last page");

    let mut seen = Vec::new();
    let mut key: Option<String> = None;
    loop {
        let mut query = vec![
            ("sector_id", "45"),
            ("category", "US_STOCK"),
            ("sort_by", "VOLUME"),
            ("page_size", "2"),
        ];
        if let Some(k) = &key {
            query.push(("pagination_key", k));
        }
        let detail: SectorDetail = client
            .get("/market-data/screeners/market-sectors/get", &query)
            .await
            .unwrap();
        assert_eq!(detail.name, "Information Technology");
        seen.extend(symbols(&detail.data));
        match detail.pagination_key {
            Some(next) => key = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, order(it_figures.clone(), "VOLUME", "D1", true));
}

#[tokio::test]
async fn bad_parameters_are_refused_by_name() {
    let server = server().await;
    let client = server.client();
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 7] = [
        (
            "/market-data/screeners/gainers-losers/list",
            &[("category", "HK_STOCK")],
            "category",
        ),
        (
            "/market-data/screeners/gainers-losers/list",
            &[("rank_type", "DAY_2"), ("category", "US_STOCK")],
            "rank_type",
        ),
        ("/market-data/screeners/top-actives/list", &[], "category"),
        (
            "/market-data/screeners/top-actives/list",
            &[("category", "US_STOCK"), ("sort_by", "YIELD")],
            "sort_by",
        ),
        (
            "/market-data/screeners/high-dividend-ranks/list",
            &[("category", "US_STOCK"), ("direction", "UP")],
            "direction",
        ),
        (
            "/market-data/screeners/market-sectors/list",
            &[("category", "US_STOCK"), ("period", "Y1")],
            "period",
        ),
        (
            "/market-data/screeners/market-sectors/list",
            &[("category", "US_STOCK"), ("pagination_key", "x")],
            "pagination_key",
        ),
    ];
    for (path, query, named) in cases {
        let e = client.get::<serde_json::Value>(path, query).await.unwrap_err();
        match &e {
            signet_client::Error::Api {
                status: 400,
                error_code,
                message,
                ..
            } => {
                assert_eq!(error_code, "ILLEGAL_PARAMETER");
                assert!(message.contains(named), "{path} {query:?}: {message}");
            }
            other => panic!("{path} {query:?}: {other}"),
        }
    }
    let unknown = client
        .get::<serde_json::Value>(
            "/market-data/screeners/market-sectors/get",
            &[("sector_id", "99"), ("category", "US_STOCK")],
        )
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, signet_client::Error::Api { status: 404, .. }),
        "{unknown}"
    );
    let intraday: Vec<ScreenerItem> = client
        .get(
            "/market-data/screeners/gainers-losers/list",
            &[("rank_type", "MIN_5"), ("category", "US_STOCK")],
        )
        .await
        .unwrap();
    assert!(intraday.is_empty(), "no intraday prices without the market simulator");
}
