//! `signet data import` against a real SQLite file: each layout from real data, malformed files
//! (nothing changes, the error names line and column), re-imports that change nothing, and the
//! corporate actions the real price history implies.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rust_decimal::Decimal;
use signet_domain::marketdata::fundamentals::layout::{DataSet, Record};
use signet_domain::marketdata::units::{format_day, parse_day};
use signet_domain::marketdata::{ActionKind, ActionSource, Bar, InstrumentType, MinuteBar};
use signet_import::{ImportError, ImportOptions, ImportSummary, Progress, import_file};
use signet_store::{MarketDataStatus, MarketDataStore, Store};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

struct Db {
    _dir: tempfile::TempDir,
    store: Arc<dyn Store>,
}

async fn db() -> Db {
    let dir = tempfile::tempdir().unwrap();
    let location = crate::common::fresh_location(dir.path()).await;
    let database = crate::common::open(&location, dir.path()).await;
    Db {
        _dir: dir,
        store: database.store,
    }
}

impl Db {
    async fn import(&self, path: &str) -> Result<ImportSummary, ImportError> {
        self.import_with(path, ImportOptions::default()).await
    }

    async fn import_with(&self, path: &str, options: ImportOptions) -> Result<ImportSummary, ImportError> {
        let store: Arc<dyn MarketDataStore> = self.store.clone();
        import_file(store, &repo(path), &options, Arc::new(Progress::default())).await
    }

    async fn status(&self) -> MarketDataStatus {
        self.store.market_data_status().await.unwrap()
    }
}

#[tokio::test]
async fn the_real_universe_imports_once() {
    let db = db().await;
    let first = db.import("data/demo/us_listed_companies.csv").await.unwrap();
    assert_eq!(
        (first.format, first.rows, first.instruments_changed),
        ("sec-tickers", 10_365, 10_365)
    );
    let again = db.import("data/demo/us_listed_companies.csv").await.unwrap();
    assert_eq!(again.changed(), 0, "a second import changes nothing");

    let apple = db.store.instrument("AAPL").await.unwrap().unwrap();
    assert_eq!(apple.name, "Apple Inc.");
    assert_eq!(apple.cik.as_deref(), Some("0000320193"));
    assert_eq!(apple.exchange.as_deref(), Some("NASDAQ"));
    assert_eq!(apple.sector.as_deref(), Some("Information Technology"));
    assert!(apple.indices.as_deref().unwrap().contains("S&P 500"));
    assert_eq!(apple.instrument_type, InstrumentType::Equity);
}

#[tokio::test]
async fn real_prices_import_with_their_splits_and_dividends() {
    let db = db().await;
    let summary = db.import("data/demo/daily_ohlcv_2000_2013.csv.gz").await.unwrap();
    assert_eq!(
        (summary.format, summary.rows, summary.bars_changed),
        ("ohlcv-quandl-wiki", 12_154, 12_154)
    );
    let status = db.status().await;
    assert_eq!(status.instruments_with_bars, 5);
    assert_eq!(
        (status.first_day.as_deref(), status.last_day.as_deref()),
        (Some("2000-03-01"), Some("2013-03-01"))
    );

    let apple = db.store.instrument("AAPL").await.unwrap().unwrap();
    let day = parse_day("2013-03-01").unwrap();
    let last = db.store.daily_bars(apple.instrument_id, day, day).await.unwrap();
    assert_eq!(last[0].close, 430_470_000, "AAPL closed at 430.47 on 2013-03-01");
    assert_eq!(last[0].volume, 19_730_300);

    let splits: Vec<(String, Decimal)> = db
        .store
        .corporate_actions(apple.instrument_id)
        .await
        .unwrap()
        .into_iter()
        .filter(|a| a.kind == ActionKind::Split)
        .map(|a| (format_day(a.day), a.value))
        .collect();
    assert_eq!(
        splits,
        [
            ("2000-06-21".into(), Decimal::from(2)),
            ("2005-02-28".into(), Decimal::from(2))
        ]
    );

    let msft = db.store.instrument("MSFT").await.unwrap().unwrap();
    let actions = db.store.corporate_actions(msft.instrument_id).await.unwrap();
    assert!(
        actions
            .iter()
            .any(|a| a.kind == ActionKind::Split && format_day(a.day) == "2003-02-18")
    );
    // MSFT paid 0.23 a share with ex-date 2013-02-19; the derived amount is close to it.
    let february = actions
        .iter()
        .find(|a| format_day(a.day) == "2013-02-19")
        .expect("the February 2013 dividend");
    assert_eq!(february.kind, ActionKind::Dividend);
    assert!(
        (february.value - Decimal::new(23, 2)).abs() < Decimal::new(1, 2),
        "{}",
        february.value
    );
    assert!(actions.iter().all(|a| a.source == ActionSource::Derived));

    let again = db.import("data/demo/daily_ohlcv_2000_2013.csv.gz").await.unwrap();
    assert_eq!(again.changed(), 0);
}

#[tokio::test]
async fn companyfacts_keep_every_fact_and_the_shares_outstanding() {
    let db = db().await;
    db.import("data/demo/us_listed_companies.csv").await.unwrap();
    let summary = db.import("data/demo/companyfacts_CIK0001640147.json.gz").await.unwrap();
    assert_eq!((summary.format, summary.facts_changed), ("sec-companyfacts", 8_163));
    let revenue = db
        .store
        .facts("0001640147", "RevenueFromContractWithCustomerExcludingAssessedTax")
        .await
        .unwrap();
    let fy2021 = revenue
        .iter()
        .find(|f| f.form == "10-K" && f.start == "2020-02-01" && f.end == "2021-01-31")
        .expect("fiscal 2021 revenue");
    assert_eq!(fy2021.value, Decimal::from(592_049_000));
    let loss = db.store.facts("0001640147", "NetIncomeLoss").await.unwrap();
    assert!(
        loss.iter()
            .any(|f| f.frame.as_deref() == Some("CY2023") && f.value == Decimal::from(-836_097_000))
    );
    let snowflake = db.store.instrument("SNOW").await.unwrap().unwrap();
    assert_eq!(
        snowflake.shares_outstanding,
        Some(333_700_000),
        "the latest reported count"
    );
    // Diluted EPS of the four quarters to 2025-04-30: -0.95, -0.98 and -1.29 as the 10-Qs filed
    // them, and the fourth quarter of fiscal 2025 as the year (-3.86) less nine months (-2.88).
    let quarters = db.store.facts("0001640147", "EarningsPerShareDiluted").await.unwrap();
    let filed = |start: &str, end: &str| {
        quarters
            .iter()
            .find(|f| f.start == start && f.end == end)
            .unwrap_or_else(|| panic!("{start}..{end}"))
            .value
    };
    let ttm = filed("2024-05-01", "2024-07-31")
        + filed("2024-08-01", "2024-10-31")
        + (filed("2024-02-01", "2025-01-31") - filed("2024-02-01", "2024-10-31"))
        + filed("2025-02-01", "2025-04-30");
    assert_eq!(Decimal::new(snowflake.eps_ttm_e6.unwrap(), 6), ttm);
    assert_eq!(
        db.import("data/demo/companyfacts_CIK0001640147.json.gz")
            .await
            .unwrap()
            .changed(),
        0
    );
}

#[tokio::test]
async fn the_nasdaq_directory_marks_etfs_and_skips_test_issues() {
    let db = db().await;
    let listed = db.import("testdata/import/nasdaqlisted.txt").await.unwrap();
    assert_eq!(
        (listed.format, listed.rows, listed.skipped, listed.instruments_changed),
        ("nasdaq-listed", 4, 1, 3)
    );
    let other = db.import("testdata/import/otherlisted.txt").await.unwrap();
    assert_eq!(
        (other.format, other.rows, other.skipped, other.instruments_changed),
        ("nasdaq-other-listed", 5, 1, 4)
    );

    let qqq = db.store.instrument("QQQ").await.unwrap().unwrap();
    assert_eq!(
        (qqq.instrument_type, qqq.exchange.as_deref()),
        (InstrumentType::Etf, Some("NASDAQ"))
    );
    let spy = db.store.instrument("SPY").await.unwrap().unwrap();
    assert_eq!(
        (spy.instrument_type, spy.exchange.as_deref()),
        (InstrumentType::Etf, Some("NYSE_ARCA"))
    );
    assert_eq!(
        db.store.instrument("IBM").await.unwrap().unwrap().exchange.as_deref(),
        Some("NYSE")
    );
    assert!(db.store.instrument("BRK.A").await.unwrap().is_some());
    assert!(
        db.store.instrument("ZXZZT").await.unwrap().is_none(),
        "test issues are skipped"
    );

    // A later SEC import (which does not know ETFs) keeps the ETF flag and fills the CIK.
    db.import("data/demo/us_listed_companies.csv").await.unwrap();
    let qqq = db.store.instrument("QQQ").await.unwrap().unwrap();
    assert_eq!(qqq.instrument_type, InstrumentType::Etf);
}

#[tokio::test]
async fn yahoo_and_stooq_files_take_their_symbol_from_the_file_name() {
    let db = db().await;
    let yahoo = db.import("testdata/import/yahoo/AAPL.csv").await.unwrap();
    assert_eq!(
        (yahoo.format, yahoo.rows, yahoo.skipped, yahoo.bars_changed),
        ("ohlcv-yahoo", 5, 1, 4)
    );
    let stooq = db.import("testdata/import/stooq/msft.us.txt").await.unwrap();
    assert_eq!((stooq.format, stooq.bars_changed), ("ohlcv-stooq", 5));
    let msft = db.store.instrument("MSFT").await.unwrap().unwrap();
    let bars = db.store.daily_bars(msft.instrument_id, 0, i32::MAX).await.unwrap();
    assert_eq!(bars.len(), 5);
    assert_eq!(bars[4].adj_close, None, "Stooq has no adjusted close");

    // The same days from the Quandl file agree with the Yahoo excerpt: nothing changes.
    let options = ImportOptions {
        symbol: Some("AAPL".into()),
        ..ImportOptions::default()
    };
    assert_eq!(
        db.import_with("testdata/import/yahoo/AAPL.csv", options)
            .await
            .unwrap()
            .changed(),
        0
    );
}

#[tokio::test]
async fn sectors_in_signets_layout() {
    let db = db().await;
    db.import("data/demo/us_listed_companies.csv").await.unwrap();
    let summary = db.import("testdata/import/sectors.csv").await.unwrap();
    assert_eq!(summary.format, "signet-sectors");
    let apple = db.store.instrument("AAPL").await.unwrap().unwrap();
    assert_eq!(apple.industry.as_deref(), Some("Technology Hardware"));
    let fb = db.store.instrument("FB").await.unwrap().unwrap();
    assert_eq!(fb.sector.as_deref(), Some("Communication Services"));
}

#[tokio::test]
async fn a_malformed_file_changes_nothing_and_names_line_and_column() {
    let db = db().await;
    db.import("testdata/import/nasdaqlisted.txt").await.unwrap();
    let before = db.status().await;
    let cases = [
        ("testdata/import/bad/prices.csv", 4, 4, "high"),
        ("testdata/import/bad/tickers.csv", 3, 1, "cik"),
        ("testdata/import/bad/nasdaqlisted.txt", 3, 7, "flag"),
        ("testdata/import/bad/sectors.csv", 3, 2, "sector"),
        ("testdata/import/bad/fundamentals_bad_date.jsonl", 2, 0, "date"),
    ];
    for (file, line, column, field) in cases {
        match db.import(file).await {
            Err(ImportError::Row {
                file: f,
                line: l,
                column: c,
                field: name,
                problem,
            }) => {
                assert!(f.ends_with(file.rsplit('/').next().unwrap()), "{f}");
                assert_eq!((l, c, name.as_str()), (line, column, field), "{file}: {problem}");
            }
            other => panic!("{file}: expected a row error, got {other:?}"),
        }
        assert_eq!(db.status().await, before, "{file} changed nothing");
    }
    let truncated = db.import("testdata/import/bad/companyfacts.json").await.unwrap_err();
    assert!(matches!(truncated, ImportError::Row { line: 2, .. }), "{truncated}");
    let unknown = db.import("testdata/import/bad/unknown.csv").await.unwrap_err();
    assert!(unknown.to_string().contains("unknown layout"), "{unknown}");
    assert_eq!(db.status().await, before);
    let message = db
        .import("testdata/import/bad/prices.csv")
        .await
        .unwrap_err()
        .to_string();
    assert!(message.contains("prices.csv: line 4, column 4 (high)"), "{message}");
}

#[tokio::test]
async fn fundamentals_in_signets_layout_import_once() {
    let db = db().await;
    db.import("data/demo/us_listed_companies.csv").await.unwrap();
    let first = db.import("testdata/import/fundamentals.jsonl").await.unwrap();
    assert_eq!(
        (first.format, first.rows, first.records_changed),
        ("signet-fundamentals", 5, 5)
    );
    assert_eq!(
        db.import("testdata/import/fundamentals.jsonl").await.unwrap().changed(),
        0
    );

    let apple = db.store.instrument("AAPL").await.unwrap().unwrap();
    let ratings = db
        .store
        .records(apple.instrument_id, DataSet::AnalystRating)
        .await
        .unwrap();
    match ratings.as_slice() {
        [Record::AnalystRating(r)] => assert_eq!((r.date.as_str(), r.strong_buy), ("2013-03-01", 12)),
        other => panic!("{other:?}"),
    }
    let estimates = db.store.records(apple.instrument_id, DataSet::Earnings).await.unwrap();
    match estimates.as_slice() {
        [Record::Earnings(e)] => assert_eq!(e.eps_est, Some("10.07".parse().unwrap())),
        other => panic!("{other:?}"),
    }
}

/// A price file of `symbols` made-up symbols (`Q000`...) × 500 weekdays, each split 2:1 on its
/// 250th day (the adjusted close says so); with `bad_last_row`, its last row's high is not a
/// number. Returns the file and its number of rows.
fn split_prices(dir: &Path, symbols: usize, bad_last_row: bool) -> (PathBuf, u64) {
    use std::fmt::Write;
    let mut out = String::from("Ticker,Date,Open,High,Low,Close,Volume,Adj Close\n");
    let first = parse_day("2010-01-04").unwrap();
    let days: Vec<String> = (0..700)
        .map(|n| first + n)
        .filter(|d| (d + 3).rem_euclid(7) < 5)
        .take(500)
        .map(format_day)
        .collect();
    for s in 0..symbols {
        for (n, day) in days.iter().enumerate() {
            let close = if n < 250 { 2 * (50 + s % 7) } else { 50 + s % 7 };
            let adj = 50 + s % 7;
            let high = if bad_last_row && s + 1 == symbols && n + 1 == days.len() {
                "x".to_owned()
            } else {
                format!("{}", close + 1)
            };
            writeln!(out, "Q{s:03},{day},{close},{high},{},{close},1000,{adj}", close - 1).unwrap();
        }
    }
    let path = dir.join(if bad_last_row {
        "bad-split-prices.csv"
    } else {
        "split-prices.csv"
    });
    std::fs::write(&path, out).unwrap();
    (path, (symbols * days.len()) as u64)
}

/// Large enough for SQLite's staged import (built beside the live bars and swapped in): the
/// same counts, bars and derived actions as one transaction (PostgreSQL), the bars already
/// stored kept, a re-import that changes nothing, and a bad file that changes nothing.
#[tokio::test]
async fn a_large_price_file_imports_whole_once_and_a_bad_one_not_at_all() {
    let db = db().await;
    db.import("data/demo/daily_ohlcv_2000_2013.csv.gz").await.unwrap();
    let before = db.status().await;
    let (good, rows) = split_prices(db._dir.path(), 40, false);
    let (bad, _) = split_prices(db._dir.path(), 40, true);

    let store: Arc<dyn MarketDataStore> = db.store.clone();
    let options = ImportOptions::default();
    match import_file(store.clone(), &bad, &options, Arc::new(Progress::default())).await {
        Err(ImportError::Row { line, column, .. }) => assert_eq!((line, column), (rows + 1, 4)),
        other => panic!("expected a row error, got {other:?}"),
    }
    assert_eq!(db.status().await, before, "a bad file changes nothing");

    let summary = import_file(store.clone(), &good, &options, Arc::new(Progress::default()))
        .await
        .unwrap();
    assert_eq!(
        (
            summary.rows,
            summary.bars_changed,
            summary.instruments_changed,
            summary.actions_changed
        ),
        (rows, rows, 40, 40)
    );
    let status = db.status().await;
    assert_eq!(status.instruments, before.instruments + 40);
    assert_eq!(status.bars, before.bars + rows);
    assert_eq!(status.splits, before.splits + 40);
    assert_eq!(status.dividends, before.dividends);

    let q007 = db.store.instrument("Q007").await.unwrap().unwrap();
    let actions = db.store.corporate_actions(q007.instrument_id).await.unwrap();
    assert_eq!(actions.len(), 1);
    assert_eq!(
        (actions[0].kind, actions[0].value),
        (ActionKind::Split, Decimal::from(2))
    );
    let bars = db
        .store
        .daily_bars(q007.instrument_id, i32::MIN, i32::MAX)
        .await
        .unwrap();
    assert_eq!(
        (bars.len(), bars[0].close, bars[499].close),
        (500, 100_000_000, 50_000_000)
    );
    let apple = db.store.instrument("AAPL").await.unwrap().unwrap();
    let day = parse_day("2013-03-01").unwrap();
    let last = db.store.daily_bars(apple.instrument_id, day, day).await.unwrap();
    assert_eq!(last[0].close, 430_470_000, "the bars stored before are kept");

    let again = import_file(store, &good, &options, Arc::new(Progress::default()))
        .await
        .unwrap();
    assert_eq!(again.changed(), 0, "a second import changes nothing");
    assert_eq!(db.status().await, status);
}

/// A minute file in signet's layout: AAPL and MSFT, every minute of the core sessions of
/// 2013-02-27 and 2013-03-01, prices in thousandths of a dollar (so they round to the cent),
/// with a pre-market and an after-hours row; `cents_more` raises every price, and with
/// `bad_last_row` a last row repeats a minute. Returns the file and the minutes it holds, as
/// they should be stored (rounded half up: the prices are positive).
fn minute_prices(dir: &Path, cents_more: i64, bad_last_row: bool) -> (PathBuf, Vec<(String, i32, MinuteBar)>) {
    use std::fmt::Write;
    let price = |millis: i64| format!("{}.{:03}", millis / 1000, millis % 1000);
    let mut out = String::from("symbol,timestamp,open,high,low,close,volume\n");
    let mut minutes = Vec::new();
    for (s, symbol) in ["AAPL", "MSFT"].into_iter().enumerate() {
        for day in ["2013-02-27", "2013-03-01"] {
            writeln!(out, "{symbol},{day} 09:29,100,100,100,100,5").unwrap();
            for m in 0..390i64 {
                let base = 100_000 * (s as i64 + 1) + 37 * m + cents_more * 10;
                // open, high, low, close in thousandths, to round to the cent.
                let prices = [base + 4, base + 1_305, base - 1_196, base + 5];
                let [open, high, low, close] = prices.map(price);
                let volume = 1_000 + m * (s as i64 + 2);
                writeln!(
                    out,
                    "{symbol},{day} {:02}:{:02},{open},{high},{low},{close},{volume}",
                    9 + (30 + m) / 60,
                    (30 + m) % 60
                )
                .unwrap();
                let [open, high, low, close] = prices.map(|millis| (millis + 5) / 10 * 10_000);
                let minute = u16::try_from(m).unwrap();
                minutes.push((
                    symbol.to_owned(),
                    parse_day(day).unwrap(),
                    MinuteBar {
                        minute,
                        open,
                        high,
                        low,
                        close,
                        volume,
                    },
                ));
            }
            writeln!(out, "{symbol},{day} 16:00,100,100,100,100,5").unwrap();
        }
    }
    if bad_last_row {
        out.push_str("MSFT,2013-03-01 15:59,100,100,100,100,5\n");
    }
    let path = dir.join(format!("minutes-{cents_more}-{bad_last_row}.csv"));
    std::fs::write(&path, out).unwrap();
    (path, minutes)
}

/// A file of minutes stores them to the cent, readable by instrument and day or by day, makes
/// each day's bar their roll-up (over a bar another file stored), and imports once; a bad file
/// changes nothing.
#[tokio::test]
async fn minute_bars_import_once_and_roll_up_into_the_days_bars() {
    let db = db().await;
    db.import("testdata/import/yahoo/AAPL.csv").await.unwrap();
    let (good, expected) = minute_prices(db._dir.path(), 0, false);
    let (changed, _) = minute_prices(db._dir.path(), 1, true);
    let store: Arc<dyn MarketDataStore> = db.store.clone();
    let import = |path: PathBuf| {
        let store = store.clone();
        async move { import_file(store, &path, &ImportOptions::default(), Arc::new(Progress::default())).await }
    };

    let summary = import(good.clone()).await.unwrap();
    assert_eq!(
        (
            summary.format,
            summary.rows,
            summary.skipped,
            summary.minutes_changed,
            summary.bars_changed,
            summary.instruments_changed
        ),
        ("minutes-signet", 1_568, 8, 1_560, 4, 1)
    );
    let status = db.status().await;
    assert_eq!((status.minute_bars, status.days_with_minutes), (1_560, 4));
    let apple = db.store.instrument("AAPL").await.unwrap().unwrap();
    let msft = db.store.instrument("MSFT").await.unwrap().unwrap();
    let of = |symbol: &str, day: i32| -> Vec<MinuteBar> {
        expected
            .iter()
            .filter(|(s, d, _)| s == symbol && *d == day)
            .map(|(_, _, bar)| *bar)
            .collect()
    };
    let stored = async || {
        let mut all = Vec::new();
        for day in ["2013-02-27", "2013-03-01"] {
            let day = parse_day(day).unwrap();
            for instrument in [&apple, &msft] {
                all.push(db.store.minute_bars(instrument.instrument_id, day).await.unwrap());
            }
            all.extend(
                db.store
                    .minutes_on(day)
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|(_, minutes)| minutes),
            );
        }
        all
    };
    for day in ["2013-02-27", "2013-03-01"] {
        let day = parse_day(day).unwrap();
        assert_eq!(
            db.store.minute_bars(apple.instrument_id, day).await.unwrap(),
            of("AAPL", day)
        );
        assert_eq!(
            db.store.minute_bars(msft.instrument_id, day).await.unwrap(),
            of("MSFT", day)
        );
        assert_eq!(
            db.store.minutes_on(day).await.unwrap(),
            [
                (apple.instrument_id, of("AAPL", day)),
                (msft.instrument_id, of("MSFT", day))
            ]
        );
        // The day's bar is the minutes' roll-up, over the Yahoo bar of AAPL's.
        let minutes = of("AAPL", day);
        let rollup = Bar {
            day,
            open: minutes[0].open,
            high: minutes.iter().map(|m| m.high).max().unwrap(),
            low: minutes.iter().map(|m| m.low).min().unwrap(),
            close: minutes[389].close,
            volume: minutes.iter().map(|m| m.volume).sum(),
            adj_close: None,
        };
        assert_eq!(
            db.store.daily_bars(apple.instrument_id, day, day).await.unwrap(),
            [rollup]
        );
    }
    let between = parse_day("2013-02-26").unwrap();
    assert!(
        db.store
            .minute_bars(apple.instrument_id, between)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(db.store.minutes_on(between).await.unwrap().is_empty());
    let untouched = db
        .store
        .daily_bars(apple.instrument_id, between, between)
        .await
        .unwrap();
    assert_eq!(
        untouched[0].close, 448_970_000,
        "the Yahoo bar of a day without minutes stays"
    );

    let again = import(good).await.unwrap();
    assert_eq!(
        (again.rows, again.changed()),
        (1_568, 0),
        "a second import changes nothing"
    );

    let (status, minutes) = (db.status().await, stored().await);
    match import(changed).await {
        Err(ImportError::Row {
            line, column, field, ..
        }) => {
            assert_eq!((line, column, field.as_str()), (1_570, 2, "timestamp"));
        }
        other => panic!("expected a row error, got {other:?}"),
    }
    assert_eq!(db.status().await, status, "a bad file changes nothing");
    assert_eq!(stored().await, minutes, "a bad file changes no minute");
}
