//! Fundamentals over signed HTTP: statements from Snowflake's real companyfacts file equal the
//! values its filings reported (read here from the file itself); every data set answers with its
//! shape on the demo; unknown symbols, bad parameters and symbols without data answer as the
//! interface says.

use std::io::Read;
use std::sync::Arc;

use rust_decimal::Decimal;
use signet_core::simulator::MarketConfig;
use signet_domain::marketdata::fundamentals::layout::{DataSet, Record};
use signet_domain::marketdata::units::parse_day;
use signet_domain::simulator::clock::ClockMode;
use signet_import::{Progress, import_file};
use signet_model::fundamentals::{ComparisonMetric, ReportType};

use crate::common::TestServer;

const FACTS: &str = "data/demo/companyfacts_CIK0001640147.json.gz";

fn workspace_file(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// The value a filing (by accession number) reported for `concept` over `start..=end`.
fn filed_value(facts: &serde_json::Value, concept: &str, accn: &str, start: Option<&str>, end: &str) -> Decimal {
    let units = &facts["facts"]["us-gaap"][concept]["units"];
    let unit = units.as_object().unwrap().values().next().unwrap();
    let fact = unit
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["accn"] == accn && f["end"] == end && f["start"].as_str() == start)
        .unwrap_or_else(|| panic!("{concept} of {accn} for {start:?}..{end}"));
    fact["val"].to_string().parse().unwrap()
}

fn dec(value: &Option<String>) -> Decimal {
    value.as_deref().expect("a value").parse().unwrap()
}

#[tokio::test]
async fn statements_equal_what_the_filings_reported() {
    let server = TestServer::start().await;
    for file in ["data/demo/us_listed_companies.csv", FACTS] {
        import_file(
            server.database.store.clone(),
            &workspace_file(file),
            &Default::default(),
            Arc::new(Progress::default()),
        )
        .await
        .unwrap();
    }
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(workspace_file(FACTS)).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let facts: serde_json::Value = serde_json::from_str(&text).unwrap();
    let revenue = "RevenueFromContractWithCustomerExcludingAssessedTax";
    let client = server.client();
    let f = client.fundamentals();

    // Fiscal 2024 (February 2023 to January 2024), as its 10-K reported it.
    let k10 = "0001640147-24-000101";
    let years = f.income_statement("SNOW", ReportType::Annual, 20).await.unwrap();
    let fy2024 = years
        .iter()
        .find(|y| y.period.fiscal_year == 2024)
        .expect("fiscal 2024");
    assert_eq!(
        (fy2024.period.fiscal_period.as_str(), fy2024.period.end_date.as_str()),
        ("FY", "2024-01-31")
    );
    assert_eq!(fy2024.period.publish_date.as_deref(), Some("2024-03-26"), "first filed");
    let year = (Some("2023-02-01"), "2024-01-31");
    assert_eq!(dec(&fy2024.revenue), filed_value(&facts, revenue, k10, year.0, year.1));
    assert_eq!(
        dec(&fy2024.net_income),
        filed_value(&facts, "NetIncomeLoss", k10, year.0, year.1)
    );
    assert!(
        years
            .windows(2)
            .all(|w| w[0].period.fiscal_year > w[1].period.fiscal_year)
    );

    // The third quarter of fiscal 2025 as its 10-Q reported it, and the fourth, which no filing
    // reports alone: the year (10-K) minus the nine months (10-Q).
    let (q10, k10_2025) = ("0001640147-24-000250", "0001640147-25-000052");
    let quarters = f.income_statement("SNOW", ReportType::Quarterly, 8).await.unwrap();
    let quarter = |fy: i32, fp: &str| {
        quarters
            .iter()
            .find(|q| q.period.fiscal_year == fy && q.period.fiscal_period == fp)
            .unwrap_or_else(|| panic!("{fy} {fp}"))
    };
    assert_eq!(
        dec(&quarter(2025, "Q3").revenue),
        filed_value(&facts, revenue, q10, Some("2024-08-01"), "2024-10-31")
    );
    let q4 = quarter(2025, "Q4");
    assert_eq!(q4.period.end_date, "2025-01-31");
    assert_eq!(
        dec(&q4.net_income),
        filed_value(&facts, "NetIncomeLoss", k10_2025, Some("2024-02-01"), "2025-01-31")
            - filed_value(&facts, "NetIncomeLoss", q10, Some("2024-02-01"), "2024-10-31")
    );

    let balance = f.balance_sheet("SNOW", ReportType::Quarterly, 5).await.unwrap();
    let at_year_end = balance.iter().find(|b| b.period.end_date == "2025-01-31").unwrap();
    assert_eq!(at_year_end.period.fiscal_period, "Q4");
    assert_eq!(
        dec(&at_year_end.total_assets),
        filed_value(&facts, "Assets", k10_2025, None, "2025-01-31")
    );
    assert_eq!(
        dec(&at_year_end.total_non_cur_assets),
        dec(&at_year_end.total_assets) - dec(&at_year_end.total_cur_assets)
    );

    let cash = f.cash_flow("SNOW", ReportType::Annual, 2).await.unwrap();
    assert_eq!(cash.len(), 2);
    assert!(dec(&cash[0].capex).is_sign_negative(), "capital spending is an outflow");

    let indicators = f.indicators("SNOW", ReportType::Annual, 3).await.unwrap();
    let margins = &indicators.values["net_margin"];
    assert_eq!(margins.len(), 3);
    let fy2024_margin = margins.iter().find(|m| m.fiscal_year == 2024).unwrap();
    assert_eq!(
        dec(&fy2024_margin.value),
        (dec(&fy2024.net_income) / dec(&fy2024.total_revenue)).round_dp(4)
    );

    let filings = f.filings("SNOW").await.unwrap();
    let latest = &filings.filings[0];
    assert!(
        filings.filings.iter().any(|x| x.url.contains("000164014725000052")),
        "{latest:?}"
    );
    assert!(
        latest
            .url
            .starts_with("https://www.sec.gov/Archives/edgar/data/1640147/")
    );
    assert!(
        filings
            .filings
            .windows(2)
            .all(|w| w[0].publish_date >= w[1].publish_date)
    );

    // Reported EPS: the last four quarters from the filings, no estimate imported.
    let eps = f.forecast_eps("SNOW").await.unwrap();
    assert_eq!(eps.len(), 4);
    assert!(eps.iter().all(|e| e.reported && e.actual.is_some()));

    // A known company without facts has empty statements; an unknown symbol is 404.
    assert!(
        f.income_statement("AAPL", ReportType::Quarterly, 5)
            .await
            .unwrap()
            .is_empty()
    );
    let unknown = f.income_statement("NOPE", ReportType::Quarterly, 5).await.unwrap_err();
    assert_eq!(unknown.code(), Some(signet_model::ErrorCode::InstrumentNotFound));
}

#[tokio::test]
async fn every_data_set_answers_on_the_demo() {
    // The market's day, which the calendars are around: the demo's last day.
    let server = TestServer::start_with(|c| {
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
    let f = client.fundamentals();

    let profile = f.company_profile("AAPL").await.unwrap();
    assert_eq!(profile.company_name.as_deref(), Some("Apple Inc."));
    assert_eq!(profile.exhibition_code.as_deref(), Some("NASDAQ"));
    assert!(!profile.industries.is_empty());

    let store = &server.database.store;
    let aapl = store.instrument("AAPL").await.unwrap().unwrap();
    let price = Decimal::new(store.closes_before(i32::MAX).await.unwrap()[&aapl.instrument_id], 6);
    let target = f.target_price("AAPL").await.unwrap();
    let (low, mean, high) = (dec(&target.low), dec(&target.mean), dec(&target.high));
    assert!(low <= mean && mean <= high, "{target:?}");
    assert!(
        mean > price / Decimal::TWO && mean < price * Decimal::TWO,
        "{mean} near {price}"
    );
    let rating = f.analyst_rating("AAPL").await.unwrap();
    let grades = [
        rating.strong_buy,
        rating.buy,
        rating.hold,
        rating.sell,
        rating.under_perform,
    ];
    assert_eq!(rating.number, Some(grades.iter().map(|g| g.unwrap()).sum()));

    let eps = f.forecast_eps("AAPL").await.unwrap();
    assert_eq!(eps.len(), 5);
    assert!(eps[..4].iter().all(|e| e.reported) && !eps[4].reported && eps[4].est.is_some());
    let periods: Vec<(i32, String)> = eps.iter().map(|e| (e.fiscal_year, e.fiscal_period.clone())).collect();
    assert!(periods.windows(2).all(|w| w[0] < w[1]), "ascending: {periods:?}");
    let alert = f.financial_alert("AAPL").await.unwrap();
    assert_eq!(
        (alert.fiscal_year, alert.fiscal_period.clone()),
        (Some(eps[4].fiscal_year), Some(eps[4].fiscal_period.clone()))
    );
    assert!(alert.eps_ly.is_some() && alert.start_date.is_some());

    let flows = f.capital_flow("AAPL", Some(3)).await.unwrap();
    assert_eq!(flows.len(), 3);
    assert!(flows.windows(2).all(|w| w[0].date > w[1].date), "newest first");
    assert!(
        f.capital_flow("AAPL", Some(6)).await.unwrap_err().code() == Some(signet_model::ErrorCode::IllegalParameter)
    );

    let comparison = f
        .industry_comparison("AAPL", Some(ComparisonMetric::PeTtm))
        .await
        .unwrap();
    assert!(comparison.data.len() <= 20 && comparison.data.iter().any(|p| p.symbol == "AAPL"));
    assert_eq!(comparison.metric, "PE_TTM");
    let values: Vec<Decimal> = comparison
        .data
        .iter()
        .filter_map(|p| p.value.as_deref()?.parse().ok())
        .collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "highest first");

    // Dividends the real AAPL history implies (from 2012-08), within half a year of the day.
    let dividends = f.dividend_calendar("AAPL").await.unwrap();
    let ex_dates: Vec<&str> = dividends.iter().map(|d| d.ex_div_date.as_str()).collect();
    assert!(
        ex_dates.len() >= 2 && ex_dates.iter().all(|d| ("2012-09-01".."2013-08-31").contains(d)),
        "{ex_dates:?}"
    );
    assert!(dividends.iter().all(|d| d.div_type == "CASH" && d.market == "US"));
    let earnings = f.earnings_calendar("AAPL").await.unwrap();
    assert!(earnings.len() >= 3, "{earnings:?}");
    assert!(earnings.iter().any(|e| e.eps_actual.is_some()) && earnings.iter().any(|e| e.eps_actual.is_none()));

    // A fund.
    let brief = f.fund_brief("SPY").await.unwrap();
    assert_eq!(brief.launch_date.as_deref(), Some("1993-01-22"));
    assert!(brief.aum.is_some());
    let holdings = f.fund_holdings("SPY").await.unwrap();
    assert_eq!(holdings.len(), 10);
    let weight = |h: &signet_model::fundamentals::FundHolding| h.share_held_pct.parse::<Decimal>().unwrap();
    assert!(holdings.windows(2).all(|w| weight(&w[0]) >= weight(&w[1])));
    let spy = store.instrument("SPY").await.unwrap().unwrap();
    let all: Vec<Record> = store.records(spy.instrument_id, DataSet::FundHolding).await.unwrap();
    let total: Decimal = all
        .iter()
        .map(|r| match r {
            Record::FundHolding(h) => h.share_held_pct,
            _ => unreachable!(),
        })
        .sum();
    assert!(
        all.len() > 400 && total == Decimal::ONE_HUNDRED,
        "{} holdings, {total}",
        all.len()
    );

    let performance = f.fund_performance("SPY").await.unwrap();
    assert!(performance.return_1m.is_some() && performance.return_1y.is_some() && performance.return_10y.is_none());
    let net = f.fund_net_value("SPY", Some("2013-02-27"), Some(3)).await.unwrap();
    assert_eq!(net.len(), 3);
    assert!(net[0].date.as_str() <= "2013-02-27" && net[0].date > net[1].date);
    let page = f.fund_dividends("SPY", None).await.unwrap();
    assert!(!page.data.is_empty() && page.pagination_key.is_none());
    assert!(f.fund_splits("SPY").await.unwrap().is_empty());
    assert_eq!(f.fund_rating("SPY").await.unwrap().len(), 3);
    assert_eq!(f.fund_files("SPY").await.unwrap().len(), 3);
    let allocation = f.fund_allocation("SPY").await.unwrap();
    let ratios: Decimal = [
        &allocation[0].cash,
        &allocation[0].bond,
        &allocation[0].stock,
        &allocation[0].preferred,
        &allocation[0].convertible,
        &allocation[0].other,
    ]
    .iter()
    .map(|s| s.ratio.parse::<Decimal>().unwrap())
    .sum();
    assert_eq!(ratios, Decimal::ONE);

    // An equity has no fund data: empty lists, objects of nulls.
    assert!(f.fund_holdings("AAPL").await.unwrap().is_empty());
    assert_eq!(f.fund_brief("AAPL").await.unwrap().name, None);
    assert!(f.fund_net_value("AAPL", None, None).await.unwrap().is_empty());

    // Parameters by name.
    for (path, query, code) in [
        (
            "company-profiles/get",
            vec![("symbol", "NOPE"), ("category", "US_STOCK")],
            "INSTRUMENT_NOT_FOUND",
        ),
        (
            "company-profiles/get",
            vec![("category", "US_STOCK")],
            "ILLEGAL_PARAMETER",
        ),
        (
            "company-profiles/get",
            vec![("symbol", "AAPL"), ("category", "HK_STOCK")],
            "ILLEGAL_PARAMETER",
        ),
        (
            "income-statements/get",
            vec![("symbol", "SNOW"), ("type", "MONTHLY")],
            "ILLEGAL_PARAMETER",
        ),
        (
            "income-statements/get",
            vec![("symbol", "SNOW"), ("count", "21")],
            "ILLEGAL_PARAMETER",
        ),
        (
            "industry-comparisons/get",
            vec![("symbol", "AAPL"), ("sort_by", "LUCK")],
            "ILLEGAL_PARAMETER",
        ),
        (
            "fund-net-values/get",
            vec![("symbol", "SPY"), ("last_date", "2013-02-30")],
            "ILLEGAL_PARAMETER",
        ),
        (
            "fund-dividends/get",
            vec![("symbol", "SPY"), ("pagination_key", "forged")],
            "ILLEGAL_PARAMETER",
        ),
    ] {
        let request = client
            .prepare(
                reqwest::Method::GET,
                &format!("/market-data/fundamentals/{path}"),
                &query,
                None,
            )
            .unwrap();
        let answer = crate::common::send(request).await;
        let status = if code == "INSTRUMENT_NOT_FOUND" { 404 } else { 400 };
        answer.assert_error(status, code);
    }
}
