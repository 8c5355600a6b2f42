//! The legacy market-data paths of `--compat legacy` (catalog 4.2–4.12 and 6.20) over signed
//! HTTP, on the real AAPL, IBM, MSFT, GOOG and FB history as of 2012-12-31 (as in
//! `screeners.rs`) and on the demo's SPY (as in `fundamentals.rs`): each legacy page is the
//! matching slice of the current call's list, in the same order; `has_more` is false on the last
//! page; pages and page sizes out of range are 400 ILLEGAL_PARAMETER naming the parameter; every
//! other parameter is refused as the current call refuses it; the answers carry the catalog's
//! field names. Without `--compat legacy` every legacy path is 404 NOT_FOUND naming its
//! replacement.

use std::collections::BTreeSet;
use std::sync::Arc;

use reqwest::Method;
use serde_json::Value;
use signet_client::Client;
use signet_core::simulator::MarketConfig;
use signet_domain::marketdata::units::parse_day;
use signet_domain::simulator::clock::ClockMode;
use signet_import::{Progress, import_file};
use signet_model::fundamentals::FundDividend;
use signet_model::screeners::{LegacyScreenerPage, LegacySectorDetail, Sector};
use signet_server::generations::compat::{Compat, PATHS};
use signet_store::refresh_snapshots;

use crate::common::{Answer, TestServer};

const AS_OF: &str = "2012-12-31";
const LEGACY: &str = "/openapi/market-data/screener";
const CURRENT: &str = "/market-data/screeners";

/// The five ranked symbols of `screeners.rs`, on a server in legacy mode.
async fn screener_server() -> TestServer {
    screener_server_on(AS_OF, 5).await
}

/// The symbols of `screeners.rs` as of `as_of`, when `ranked` of them traded.
async fn screener_server_on(as_of: &str, ranked: usize) -> TestServer {
    let server = TestServer::start_with(|c| c.compat = Compat::Legacy).await;
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
    let (_, traded) = refresh_snapshots(store.as_ref(), parse_day(as_of)).await.unwrap();
    assert_eq!(traded, ranked);
    server
}

async fn get(client: &Client, path: &str, query: &[(&str, &str)]) -> Answer {
    crate::common::send(client.prepare(Method::GET, path, query, None).unwrap()).await
}

/// As [`get`], with `x-version: v2` (which is not signed), as the SDK's legacy classes send.
async fn get_v2(client: &Client, path: &str, query: &[(&str, &str)]) -> Answer {
    let mut request = client.prepare(Method::GET, path, query, None).unwrap();
    request.headers.insert(
        signet_model::headers::VERSION,
        reqwest::header::HeaderValue::from_static("v2"),
    );
    crate::common::send(request).await
}

/// The body of a 200.
async fn ok(client: &Client, path: &str, query: &[(&str, &str)]) -> Value {
    let answer = get(client, path, query).await;
    assert_eq!(answer.status.as_u16(), 200, "{path} {query:?}: {}", answer.body);
    answer.body
}

fn with<'a>(query: &[(&'a str, &'a str)], more: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    query.iter().chain(more).copied().collect()
}

fn symbols(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["symbol"].as_str().unwrap()).collect()
}

/// A legacy item without the two names the current item lacks: `currency` (= `currency_code`)
/// and `ticker_symbol` (= `symbol`).
fn as_current(legacy: &Value) -> Value {
    assert_eq!(legacy["currency"], legacy["currency_code"], "{legacy}");
    assert_eq!(legacy["ticker_symbol"], legacy["symbol"], "{legacy}");
    let mut item = legacy.clone();
    let object = item.as_object_mut().unwrap();
    object.remove("currency");
    object.remove("ticker_symbol");
    item
}

/// The optional fields of an item, absent where the figure is unknown (as on the current paths):
/// FB, say, has no exchange in the company list, nor a price a year before.
const OPTIONAL: [&str; 11] = [
    "exchange_code",
    "turnover_rate",
    "market_value",
    "relative_volume_10d",
    "pe_ttm",
    "dividend",
    "yield",
    "ex_date",
    "price_1w",
    "price_52w",
    "change_ratio_52w",
];

/// The figures that need shares outstanding or earnings, which this data set has not: absent
/// from every item.
const UNKNOWN_HERE: [&str; 3] = ["market_value", "turnover_rate", "pe_ttm"];

/// What the items of one path showed.
#[derive(Debug, Default)]
struct Seen {
    /// The longest list.
    longest: usize,
    /// Every field name.
    names: BTreeSet<String>,
}

impl Seen {
    /// Asserts that `item` has every field the catalog names but optional ones, and notes its
    /// names.
    #[track_caller]
    fn item(&mut self, item: &Value, catalog: &[&str]) {
        let keys: BTreeSet<&str> = item.as_object().unwrap().keys().map(String::as_str).collect();
        for name in catalog {
            assert!(
                keys.contains(name) || OPTIONAL.contains(name),
                "{name} missing from {item}"
            );
        }
        self.names.extend(keys.iter().map(ToString::to_string));
    }

    /// Asserts that some item had each name of the catalog's list, but the figures unknown here.
    #[track_caller]
    fn had_all(&self, catalog: &[&str]) {
        for name in catalog {
            assert!(
                self.names.contains(*name) || UNKNOWN_HERE.contains(name),
                "no item had {name}: {:?}",
                self.names
            );
        }
    }
}

/// Catalog 4.2 (gainers/losers); 4.4 adds `relative_volume_10d`.
const ITEM_4_2: [&str; 18] = [
    "symbol",
    "name",
    "instrument_id",
    "price",
    "pre_close",
    "open",
    "high",
    "low",
    "close",
    "change",
    "change_ratio",
    "amplitude",
    "volume",
    "turnover",
    "turnover_rate",
    "market_value",
    "exchange_code",
    "currency_code",
];

/// Catalog 4.8, the members of a sector.
const MEMBER_4_8: [&str; 15] = [
    "instrument_id",
    "category",
    "currency",
    "name",
    "symbol",
    "exchange_code",
    "close",
    "change_ratio",
    "price",
    "volume",
    "market_value",
    "turnover_rate",
    "amplitude",
    "high",
    "low",
];

/// Catalog 4.10 (high dividend).
const ITEM_4_10: [&str; 22] = [
    "instrument_id",
    "category",
    "currency",
    "name",
    "symbol",
    "ticker_symbol",
    "exchange_code",
    "close",
    "change",
    "change_ratio",
    "price",
    "volume",
    "market_value",
    "turnover_rate",
    "amplitude",
    "high",
    "low",
    "turnover",
    "yield",
    "dividend",
    "ex_date",
    "pe_ttm",
];

/// Catalog 4.12 (52-week high/low).
const ITEM_4_12: [&str; 22] = [
    "instrument_id",
    "category",
    "currency",
    "name",
    "symbol",
    "ticker_symbol",
    "exchange_code",
    "close",
    "change",
    "change_ratio",
    "price",
    "volume",
    "market_value",
    "turnover_rate",
    "high",
    "low",
    "turnover",
    "amplitude",
    "price_1w",
    "price_52w",
    "change_ratio_52w",
    "pe_ttm",
];

/// Walks the legacy pages of `page_size` 2 and checks each against the current list.
async fn pages_are_slices(
    client: &Client,
    legacy: &str,
    current: &str,
    query: &[(&str, &str)],
    catalog: &[&str],
    seen: &mut Seen,
) {
    let whole = ok(client, current, query).await;
    let whole = whole.as_array().unwrap();
    let n = whole.len();
    // One page past the end as well: empty, and no more.
    for index in 1..=n / 2 + 2 {
        let index_text = index.to_string();
        let q = with(query, &[("page_index", &index_text), ("page_size", "2")]);
        let body = ok(client, legacy, &q).await;
        assert_eq!(
            body.as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect::<BTreeSet<_>>(),
            BTreeSet::from(["data", "has_more"]),
            "{legacy} {q:?}"
        );
        let page: LegacyScreenerPage = serde_json::from_value(body.clone()).expect("the model reads it");
        let data = body["data"].as_array().unwrap();
        let from = ((index - 1) * 2).min(n);
        let to = (index * 2).min(n);
        let want = &whole[from..to];
        assert_eq!(symbols(data), symbols(want), "{legacy} {q:?}");
        assert_eq!(
            data.iter().map(as_current).collect::<Vec<_>>(),
            want,
            "{legacy} {q:?}: the current call's items"
        );
        assert_eq!(page.has_more, to < n, "{legacy} {q:?}: has_more of {n} rows");
        assert_eq!(page.data.len(), data.len());
        for item in data {
            seen.item(item, catalog);
        }
    }
    // The defaults: page 1 of 20, here the whole list.
    let body = ok(client, legacy, query).await;
    let data = body["data"].as_array().unwrap();
    assert_eq!(symbols(data), symbols(whole), "{legacy} {query:?} by default");
    assert_eq!(body["has_more"], false);
    seen.longest = seen.longest.max(n);
}

#[tokio::test]
async fn ranked_lists_page_through_the_current_lists() {
    let server = screener_server().await;
    let client = server.client();
    let current = |p: &str| format!("{CURRENT}/{p}");
    let legacy = |p: &str| format!("{LEGACY}/{p}");

    let item_4_4: Vec<&str> = ITEM_4_2.iter().copied().chain(["relative_volume_10d"]).collect();
    let mut seen: std::collections::HashMap<String, Seen> = Default::default();
    for rank_type in ["DAY_1", "DAY_5", "WEEK_52"] {
        for direction in ["DESC", "ASC"] {
            for sort_by in ["CHANGE_RATIO", "VOLUME"] {
                let query = [
                    ("rank_type", rank_type),
                    ("category", "US_STOCK"),
                    ("sort_by", sort_by),
                    ("direction", direction),
                ];
                pages_are_slices(
                    &client,
                    &legacy("gainers-losers"),
                    &current("gainers-losers/list"),
                    &query,
                    &ITEM_4_2,
                    seen.entry(legacy("gainers-losers")).or_default(),
                )
                .await;
            }
        }
    }
    for rank_type in ["VOLUME", "TURNOVER", "AMPLITUDE"] {
        for direction in ["DESC", "ASC"] {
            let query = [
                ("category", "US_STOCK"),
                ("rank_type", rank_type),
                ("sort_by", "CHANGE_RATIO"),
                ("direction", direction),
            ];
            pages_are_slices(
                &client,
                &legacy("top-active"),
                &current("top-actives/list"),
                &query,
                &item_4_4,
                seen.entry(legacy("top-active")).or_default(),
            )
            .await;
        }
    }
    for (sort_by, direction) in [("YIELD", "DESC"), ("DIVIDEND", "ASC"), ("VOLUME", "DESC")] {
        let query = [("category", "US_STOCK"), ("sort_by", sort_by), ("direction", direction)];
        pages_are_slices(
            &client,
            &legacy("high-dividend"),
            &current("high-dividend-ranks/list"),
            &query,
            &ITEM_4_10,
            seen.entry(legacy("high-dividend")).or_default(),
        )
        .await;
    }
    for rank_type in ["NEW_HIGH", "NEAR_HIGH", "NEW_LOW", "NEAR_LOW"] {
        for sort_by in ["CHANGE_RATIO_52W", "VOLUME"] {
            let query = [("rank_type", rank_type), ("category", "US_STOCK"), ("sort_by", sort_by)];
            pages_are_slices(
                &client,
                &legacy("52whl"),
                &current("week52-high-low/list"),
                &query,
                &ITEM_4_12,
                seen.entry(legacy("52whl")).or_default(),
            )
            .await;
        }
    }
    // Lists long enough to have a second page (of two a page), but the 52-week lists: see
    // `week52_lists_page_through_on_a_day_of_lows`.
    let longest = |path: &str| seen[&legacy(path)].longest;
    eprintln!(
        "longest lists: {:?}",
        ["gainers-losers", "top-active", "high-dividend", "52whl"].map(longest)
    );
    assert!(longest("gainers-losers") >= 3);
    assert_eq!(longest("top-active"), 5);
    assert_eq!(longest("high-dividend"), 3);
    assert!(longest("52whl") >= 1);
    // Each catalog name was in some item.
    seen[&legacy("gainers-losers")].had_all(&ITEM_4_2);
    seen[&legacy("top-active")].had_all(&item_4_4);
    seen[&legacy("high-dividend")].had_all(&ITEM_4_10);
    seen[&legacy("52whl")].had_all(&ITEM_4_12);
}

/// As of 2012-12-31 no 52-week list has two symbols; on 2008-11-20, a low of the crash, the new
/// lows do, so that a second page has rows.
#[tokio::test]
async fn week52_lists_page_through_on_a_day_of_lows() {
    let server = screener_server_on("2008-11-20", 4).await;
    let client = server.client();
    let mut seen = Seen::default();
    for rank_type in ["NEW_HIGH", "NEAR_HIGH", "NEW_LOW", "NEAR_LOW"] {
        for (sort_by, direction) in [
            ("CHANGE_RATIO_52W", "DESC"),
            ("VOLUME", "ASC"),
            ("CHANGE_RATIO", "DESC"),
        ] {
            let query = [
                ("rank_type", rank_type),
                ("category", "US_STOCK"),
                ("sort_by", sort_by),
                ("direction", direction),
            ];
            pages_are_slices(
                &client,
                &format!("{LEGACY}/52whl"),
                &format!("{CURRENT}/week52-high-low/list"),
                &query,
                &ITEM_4_12,
                &mut seen,
            )
            .await;
        }
    }
    eprintln!("longest 52-week list on 2008-11-20: {}", seen.longest);
    assert!(seen.longest >= 3, "{}", seen.longest);
    seen.had_all(&ITEM_4_12);
}

#[tokio::test]
async fn sectors_page_through_the_current_sectors() {
    let server = screener_server().await;
    let client = server.client();
    for (agg_type, direction) in [("VOLUME", "DESC"), ("MARKET_VALUE", "ASC"), ("VOLUME", "ASC")] {
        let query = [
            ("category", "US_STOCK"),
            ("agg_type", agg_type),
            ("direction", direction),
        ];
        let current = ok(
            &client,
            "/market-data/screeners/market-sectors/list",
            &with(&query, &[("page_size", "100")]),
        )
        .await;
        let whole = current["data"].as_array().unwrap();
        assert_eq!(whole.len(), 2, "Information Technology and Communication Services");
        let mut seen = Vec::new();
        for index in ["1", "2", "3"] {
            let q = with(&query, &[("page_index", index), ("page_size", "1")]);
            let body = ok(&client, "/openapi/market-data/screener/market-sectors", &q).await;
            let sectors: Vec<Sector> = serde_json::from_value(body.clone()).expect("a bare array of sectors");
            assert!(sectors.len() <= 1, "{q:?}");
            for sector in body.as_array().unwrap() {
                let keys: BTreeSet<&str> = sector.as_object().unwrap().keys().map(String::as_str).collect();
                assert_eq!(
                    keys,
                    BTreeSet::from([
                        "id",
                        "name",
                        "change_ratio",
                        "volume",
                        "market_value",
                        "declined",
                        "advanced",
                        "flat",
                        "data"
                    ])
                );
                let members = sector["data"].as_array().unwrap();
                assert!(!members.is_empty() && members.len() <= 3, "{sector}");
                for member in members {
                    let keys: BTreeSet<&str> = member.as_object().unwrap().keys().map(String::as_str).collect();
                    assert_eq!(keys, BTreeSet::from(["instrument_id", "name", "symbol"]));
                }
                seen.push(sector.clone());
            }
            if index == "3" {
                assert!(sectors.is_empty(), "past the last page");
            }
        }
        assert_eq!(&seen, whole, "{query:?}: page by page, the current list");
        let all = ok(&client, "/openapi/market-data/screener/market-sectors", &query).await;
        assert_eq!(&all, &current["data"], "the default page of 20 holds both");
    }

    // The detail: IT's three constituents, two a page.
    let mut constituents = Seen::default();
    for (sort_by, direction) in [("VOLUME", "DESC"), ("CHANGE_RATIO", "ASC"), ("YIELD", "DESC")] {
        let query = [
            ("sector_id", "45"),
            ("category", "US_STOCK"),
            ("sort_by", sort_by),
            ("direction", direction),
        ];
        let current = ok(
            &client,
            "/market-data/screeners/market-sectors/get",
            &with(&query, &[("page_size", "100")]),
        )
        .await;
        let whole = current["data"].as_array().unwrap();
        assert_eq!(whole.len(), 3);
        for (index, from, to, more) in [("1", 0, 2, true), ("2", 2, 3, false), ("3", 3, 3, false)] {
            let q = with(&query, &[("page_index", index), ("page_size", "2")]);
            let body = ok(&client, "/openapi/market-data/screener/market-sectors-detail", &q).await;
            let detail: LegacySectorDetail = serde_json::from_value(body.clone()).expect("the model reads it");
            assert_eq!(detail.has_more, more, "{q:?}");
            for name in ["id", "name", "change_ratio", "declined", "advanced", "flat"] {
                assert_eq!(body[name], current[name], "{name} {q:?}");
            }
            let data = body["data"].as_array().unwrap();
            assert_eq!(
                data.iter().map(as_current).collect::<Vec<_>>(),
                &whole[from..to],
                "{q:?}"
            );
            for member in data {
                constituents.item(member, &MEMBER_4_8);
            }
        }
    }
    constituents.had_all(&MEMBER_4_8);
}

/// The SDK sends `x-version: v2` on five legacy screeners and v3 on the other two legacy paths:
/// in legacy mode either is accepted there, with the same answer.
#[tokio::test]
async fn the_screener_paths_answer_x_version_v2_alike() {
    let server = screener_server().await;
    let client = server.client();
    for (path, query) in [
        (
            "gainers-losers",
            vec![
                ("rank_type", "DAY_1"),
                ("category", "US_STOCK"),
                ("sort_by", "CHANGE_RATIO"),
            ],
        ),
        ("top-active", vec![("category", "US_STOCK")]),
        ("market-sectors", vec![("category", "US_STOCK")]),
        (
            "market-sectors-detail",
            vec![("sector_id", "45"), ("category", "US_STOCK")],
        ),
        ("high-dividend", vec![("category", "US_STOCK")]),
        ("52whl", vec![("category", "US_STOCK")]),
    ] {
        let path = format!("{LEGACY}/{path}");
        let paged = with(&query, &[("page_index", "1"), ("page_size", "2")]);
        let v2 = get_v2(&client, &path, &paged).await;
        assert_eq!(v2.status.as_u16(), 200, "{path}: {}", v2.body);
        assert_eq!(v2.body, ok(&client, &path, &paged).await, "{path}");
        // Pagination out of range is refused the same way under v2.
        get_v2(&client, &path, &with(&query, &[("page_size", "0")]))
            .await
            .assert_error(400, "ILLEGAL_PARAMETER");
    }
}

/// Sends `query` to the legacy path and to the current one: the same status and, when refused,
/// the same error code and message. Returns whether it was refused.
async fn validated_alike(client: &Client, legacy: &str, current: &str, query: &[(&str, &str)]) -> bool {
    let (l, c) = (get(client, legacy, query).await, get(client, current, query).await);
    if c.status.is_success() {
        assert!(l.status.is_success(), "{legacy} {query:?}: {}", l.body);
        return false;
    }
    let code = c.error().error_code;
    let e = l.assert_error(c.status.as_u16(), &code);
    assert_eq!(e.message, c.error().message, "{legacy} {query:?}");
    true
}

/// [`validated_alike`], for a query the current call refuses.
async fn refused_alike(client: &Client, legacy: &str, current: &str, query: &[(&str, &str)]) {
    assert!(
        validated_alike(client, legacy, current, query).await,
        "{current} {query:?} is refused"
    );
}

#[tokio::test]
async fn pagination_out_of_range_and_other_parameters_are_refused() {
    let server = screener_server().await;
    let client = server.client();
    let pairs = [
        ("gainers-losers", "gainers-losers/list"),
        ("top-active", "top-actives/list"),
        ("market-sectors", "market-sectors/list"),
        ("market-sectors-detail", "market-sectors/get"),
        ("high-dividend", "high-dividend-ranks/list"),
        ("52whl", "week52-high-low/list"),
    ];
    // How many of the other bad parameters the current calls refuse.
    let mut refusals = 0;
    for (legacy, current) in pairs {
        let (legacy, current) = (format!("{LEGACY}/{legacy}"), format!("{CURRENT}/{current}"));
        let valid: &[(&str, &str)] = if legacy.ends_with("detail") {
            &[("sector_id", "45"), ("category", "US_STOCK")]
        } else {
            &[("category", "US_STOCK")]
        };
        for (name, value) in [
            ("page_index", "0"),
            ("page_index", "-1"),
            ("page_index", "two"),
            ("page_index", "1.5"),
            ("page_index", "4294967296"),
            ("page_size", "0"),
            ("page_size", "101"),
            ("page_size", "-5"),
            ("page_size", "ten"),
        ] {
            let q = with(valid, &[(name, value)]);
            let e = get(&client, &legacy, &q).await.assert_error(400, "ILLEGAL_PARAMETER");
            assert!(
                e.message.starts_with(name) && e.message.contains("from 1 to"),
                "{legacy} {q:?}: {}",
                e.message
            );
        }
        assert!(
            get(&client, &legacy, &with(valid, &[("page_size", "100")]))
                .await
                .status
                .is_success()
        );

        // The rest as the current call.
        for bad in [
            vec![("category", "HK_STOCK")],
            vec![],
            vec![("category", "US_STOCK"), ("direction", "UP")],
            vec![("category", "US_STOCK"), ("sort_by", "LUCK")],
            vec![("category", "US_STOCK"), ("rank_type", "DAY_2")],
            vec![("category", "US_STOCK"), ("period", "Y1")],
            vec![("category", "US_STOCK"), ("agg_type", "COUNT")],
        ] {
            let mut q = bad.clone();
            if legacy.ends_with("detail") {
                q.insert(0, ("sector_id", "45"));
            }
            refusals += usize::from(validated_alike(&client, &legacy, &current, &q).await);
        }
    }
    // Each path refuses the category, its absence and the direction; and rank_type, sort_by,
    // period or agg_type where it takes them.
    assert!(refusals >= 6 * 3 + 5, "{refusals}");
    let detail = (
        "/openapi/market-data/screener/market-sectors-detail",
        "/market-data/screeners/market-sectors/get",
    );
    refused_alike(&client, detail.0, detail.1, &[("category", "US_STOCK")]).await;
    refused_alike(
        &client,
        detail.0,
        detail.1,
        &[("sector_id", "99"), ("category", "US_STOCK")],
    )
    .await;
    get(&client, detail.0, &[("sector_id", "99"), ("category", "US_STOCK")])
        .await
        .assert_error(404, "NOT_FOUND");
    // The 11 sort keys of gainers/losers: YIELD is refused there as on the current path.
    refused_alike(
        &client,
        "/openapi/market-data/screener/gainers-losers",
        "/market-data/screeners/gainers-losers/list",
        &[("category", "US_STOCK"), ("sort_by", "YIELD")],
    )
    .await;
}

#[tokio::test]
async fn fund_dividends_page_through_the_current_rows() {
    let server = TestServer::start_with(|c| {
        c.compat = Compat::Legacy;
        c.market = MarketConfig {
            clock: ClockMode::Manual,
            start_day: parse_day("2013-03-01"),
            ..MarketConfig::default()
        }
    })
    .await;
    signet_import::demo::ensure_loaded(server.database.store.clone())
        .await
        .unwrap()
        .expect("loaded");
    let client = server.client();
    const PATH: &str = "/openapi/fundamentals/fund/dividends";

    let mut whole: Vec<Value> = Vec::new();
    let mut key: Option<String> = None;
    loop {
        let mut q = vec![("symbol", "SPY"), ("category", "US_ETF")];
        if let Some(k) = &key {
            q.push(("pagination_key", k));
        }
        let page = ok(&client, "/market-data/fundamentals/fund-dividends/get", &q).await;
        whole.extend(page["data"].as_array().unwrap().iter().cloned());
        match page["pagination_key"].as_str() {
            Some(k) => key = Some(k.to_owned()),
            None => break,
        }
    }
    let n = whole.len();
    assert!(n >= 3, "SPY's distributions: {whole:?}");
    for index in 1..=n / 2 + 2 {
        let index_text = index.to_string();
        let q = [
            ("symbol", "SPY"),
            ("category", "US_ETF"),
            ("page_index", index_text.as_str()),
            ("page_size", "2"),
        ];
        let body = ok(&client, PATH, &q).await;
        let rows: Vec<FundDividend> = serde_json::from_value(body.clone()).expect("a bare array of rows");
        let (from, to) = (((index - 1) * 2).min(n), (index * 2).min(n));
        assert_eq!(body.as_array().unwrap(), &whole[from..to], "{q:?}");
        assert_eq!(rows.len(), to - from);
        for row in body.as_array().unwrap() {
            let keys: BTreeSet<&str> = row.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(
                keys,
                BTreeSet::from(["share_date", "publish_date", "pay_date", "record_date", "dps"])
            );
        }
    }
    // By default the first ten (the official client sends `None` for what it was not given).
    let first = ok(&client, PATH, &[("symbol", "SPY")]).await;
    assert_eq!(first.as_array().unwrap(), &whole[..n.min(10)]);
    let first = ok(
        &client,
        PATH,
        &[("symbol", "SPY"), ("page_index", "None"), ("page_size", "None")],
    )
    .await;
    assert_eq!(first.as_array().unwrap(), &whole[..n.min(10)]);
    let most = ok(&client, PATH, &[("symbol", "SPY"), ("page_size", "20")]).await;
    assert_eq!(most.as_array().unwrap(), &whole[..n.min(20)]);
    // With x-version v2 as well.
    let v2 = get_v2(&client, PATH, &[("symbol", "SPY")]).await;
    assert_eq!(v2.status.as_u16(), 200, "{}", v2.body);
    assert_eq!(v2.body.as_array().unwrap(), &whole[..n.min(10)]);
    // An equity: no distributions as a fund.
    assert_eq!(ok(&client, PATH, &[("symbol", "AAPL")]).await, Value::Array(vec![]));

    for (name, value) in [
        ("page_index", "0"),
        ("page_index", "-2"),
        ("page_index", "first"),
        ("page_size", "0"),
        ("page_size", "21"),
        ("page_size", "x"),
    ] {
        let e = get(&client, PATH, &[("symbol", "SPY"), (name, value)])
            .await
            .assert_error(400, "ILLEGAL_PARAMETER");
        assert!(
            e.message.starts_with(name) && e.message.contains("from 1 to"),
            "{name}={value}: {}",
            e.message
        );
        if name == "page_size" {
            assert!(e.message.contains("to 20"), "{}", e.message);
        }
    }
    // The rest as the current call.
    for q in [
        vec![("category", "US_STOCK")],
        vec![("symbol", "NOPE")],
        vec![("symbol", "SPY"), ("category", "HK_STOCK")],
        vec![("symbol", "SPY,QQQ")],
    ] {
        refused_alike(&client, PATH, "/market-data/fundamentals/fund-dividends/get", &q).await;
    }
}

#[tokio::test]
async fn without_compat_legacy_the_paths_are_not_found() {
    let server = TestServer::start().await;
    let client = server.client();
    for retired in PATHS {
        let method = Method::from_bytes(retired.method.as_bytes()).unwrap();
        let body = (method == Method::POST).then(|| b"{}".to_vec());
        let request = client
            .prepare(
                method,
                retired.path,
                &[("category", "US_STOCK"), ("symbol", "SPY")],
                body,
            )
            .unwrap();
        let e = crate::common::send(request).await.assert_error(404, "NOT_FOUND");
        let current = format!("{} {}", retired.current_method, retired.current);
        assert!(e.message.contains(&current), "{}: {}", retired.path, e.message);
    }
    // The current calls answer as ever.
    assert!(
        get(
            &client,
            "/market-data/screeners/top-actives/list",
            &[("category", "US_STOCK")]
        )
        .await
        .status
        .is_success()
    );
}
