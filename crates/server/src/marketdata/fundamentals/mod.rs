//! Fundamentals (catalog section 6): 23 data sets of one symbol each.
//!
//! | data sets | from |
//! |---|---|
//! | income statement, balance sheet, cash flow, indicators, filings, reported EPS | SEC facts (`signet_domain::marketdata::fundamentals::statements`) |
//! | dividend calendar, fund dividends, fund splits | corporate actions (derived from prices, or generated) |
//! | fund net value, fund performance | daily closes |
//! | industry comparison | snapshot figures of the industry's equities, and their SEC facts |
//! | company profile | the instrument list, and `company_profile` records |
//! | target price, rating, EPS estimates, capital flow, fund brief, holdings, rating, files, allocation | records of signet's layout (`layout` in the domain crate): imported, or generated for the demo |
//!
//! An unknown symbol is 404 `INSTRUMENT_NOT_FOUND`; a known one without data answers an empty
//! list, or the object with `null` fields. "Today", for the calendars, is the market
//! simulator's day.

// utoipa expands a `params(T)` or `responses(T)` of an `IntoParams` or `IntoResponses` type with
// a path the lint finds longer than needed; the attributes name each type once, plainly.
#![allow(unused_qualifications)]

use axum::Json;
use axum::extract::State;
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::marketdata::fundamentals::earnings::{self, Quarter};
use signet_domain::marketdata::fundamentals::layout::{
    CapitalFlowRecord, EarningsRecord, FundBriefRecord, FundHoldingRecord, ProfileRecord, RatingRecord, RecordKind,
    TargetPriceRecord,
};
use signet_domain::marketdata::fundamentals::statements::{BALANCE, CASH_FLOW, INCOME, StatementRow, Statements};
use signet_domain::marketdata::fundamentals::valuation::{self, Book};
use signet_domain::marketdata::fundamentals::{funds, statements};
use signet_domain::marketdata::units::{format_day, from_micros, parse_day};
use signet_domain::marketdata::{ActionKind, CorporateAction, Instrument, InstrumentType};
use signet_model::fundamentals::*;
use signet_model::wire::WireEnum;
use signet_model::{ErrorBody, ErrorCode};
use utoipa::{IntoParams, IntoResponses};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::screeners::params::{LegacyPage, param};
use crate::error::ApiError;
use crate::extract::{QueryParams, given};
use crate::pagination;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(company_profile))
        .routes(routes!(target_price))
        .routes(routes!(analyst_rating))
        .routes(routes!(forecast_eps))
        .routes(routes!(filings))
        .routes(routes!(earnings_calendar))
        .routes(routes!(dividend_calendar))
        .routes(routes!(capital_flow))
        .routes(routes!(industry_comparison))
        .routes(routes!(indicators))
        .routes(routes!(income_statement))
        .routes(routes!(cash_flow))
        .routes(routes!(balance_sheet))
        .routes(routes!(financial_alert))
        .routes(routes!(fund_brief))
        .routes(routes!(fund_performance))
        .routes(routes!(fund_net_value))
        .routes(routes!(fund_holdings))
        .routes(routes!(fund_dividends))
        .routes(routes!(fund_rating))
        .routes(routes!(fund_splits))
        .routes(routes!(fund_files))
        .routes(routes!(fund_allocation))
}

/// The legacy path (`--compat legacy`, [`crate::generations::compat`]): the fund dividends, paginated by
/// `page_index` and `page_size`.
pub fn legacy_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(legacy_fund_dividends))
}

/// The subject of every data set, as `Params` reads it: for the OpenAPI document.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SymbolParams {
    /// One symbol, e.g. AAPL (case-insensitive)
    #[param(example = "AAPL")]
    pub symbol: String,
    /// US_STOCK (default) or US_ETF
    pub category: Option<FundamentalsCategory>,
}

/// The statements' kind and length, as `report` reads them: for the OpenAPI document.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReportParams {
    /// QUARTERLY (default) or ANNUAL
    #[param(rename = "type")]
    pub report_type: Option<ReportType>,
    /// How many, 5 by default
    #[param(minimum = 1, maximum = 20)]
    pub count: Option<u32>,
}

/// INSTRUMENT_NOT_FOUND: no instrument has this symbol
#[derive(IntoResponses)]
#[response(status = 404)]
pub struct UnknownSymbol(pub ErrorBody);

/// What every data set answers.
const DATA_SET: &str = "The data set of the symbol (empty, or `null` fields, when there is none)";

/// Half a year, the window of the calendars.
const HALF_YEAR_DAYS: i32 = 182;
const FUND_DIVIDENDS_PAGE: usize = 10;
/// The legacy fund dividends' `page_size`: default and maximum (catalog 6.20).
const LEGACY_FUND_DIVIDENDS_PAGE: u32 = 10;
const LEGACY_FUND_DIVIDENDS_MAX_PAGE: u32 = 20;

/// Every parameter any data set takes; each handler reads its own.
#[derive(Debug, Default, Deserialize)]
struct Params {
    symbol: Option<String>,
    category: Option<String>,
    #[serde(rename = "type")]
    report_type: Option<String>,
    count: Option<String>,
    last_date: Option<String>,
    sort_by: Option<String>,
    pagination_key: Option<String>,
    /// The legacy fund dividends' page number, from 1, and page size.
    page_index: Option<String>,
    page_size: Option<String>,
}

/// The instrument a request is about.
struct Subject {
    instrument: Instrument,
    category: FundamentalsCategory,
}

impl Subject {
    fn is_fund(&self) -> bool {
        self.instrument.instrument_type == InstrumentType::Etf
    }
}

async fn subject(state: &AppState, p: &Params) -> Result<Subject, ApiError> {
    let category = param(
        "category",
        given(p.category.as_deref()),
        FundamentalsCategory::UsStock,
        None,
    )?;
    let symbol = given(p.symbol.as_deref()).ok_or_else(|| ApiError::illegal_parameter("symbol is required"))?;
    if symbol.contains(',') {
        return Err(ApiError::illegal_parameter("one symbol at a time"));
    }
    let symbol = symbol.to_ascii_uppercase();
    let instrument = state.store.instrument(&symbol).await?.ok_or_else(|| {
        let shown: String = symbol.chars().take(16).collect();
        ApiError::new(
            ErrorCode::InstrumentNotFound,
            format!("no instrument has the symbol {shown:?}"),
        )
    })?;
    Ok(Subject { instrument, category })
}

/// `count`: `default` when absent, from 1 to `max`.
fn count(p: &Params, default: u32, max: u32) -> Result<usize, ApiError> {
    pagination::bounded("count", given(p.count.as_deref()), default, max).map(|n| n as usize)
}

fn text(d: Decimal) -> String {
    d.normalize().to_string()
}

fn opt(d: Option<Decimal>) -> Option<String> {
    d.map(text)
}

fn today(state: &AppState) -> i32 {
    signet_domain::simulator::clock::day_number_of(state.simulator.now_ms())
}

/// The records of a data set, newest (highest key) first.
async fn records<T: RecordKind>(state: &AppState, s: &Subject) -> Result<Vec<T>, ApiError> {
    let records = state.store.records(s.instrument.instrument_id, T::DATA_SET).await?;
    Ok(records.into_iter().rev().filter_map(T::from_record).collect())
}

/// The company's statements, when it has SEC facts.
async fn statements(state: &AppState, instrument: &Instrument) -> Result<Option<Statements>, ApiError> {
    let Some(cik) = &instrument.cik else { return Ok(None) };
    let facts = state.store.company_facts(cik, &statements::concepts()).await?;
    Ok(Statements::new(&facts))
}

async fn quarters(state: &AppState, s: &Subject) -> Result<Vec<Quarter>, ApiError> {
    let income = statements(state, &s.instrument)
        .await?
        .map(|st| st.rows(INCOME, false, true))
        .unwrap_or_default();
    let records: Vec<EarningsRecord> = records(state, s).await?;
    Ok(earnings::merge(&income, &records))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/company-profiles/get", tag = "fundamentals",
    operation_id = "fundamentalsCompanyProfile", summary = "Company profile", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = CompanyProfile), UnknownSymbol)
)]
async fn company_profile(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<CompanyProfile>, ApiError> {
    let s = subject(&state, &p).await?;
    let profile = records::<ProfileRecord>(&state, &s)
        .await?
        .into_iter()
        .next()
        .unwrap_or_default();
    let i = &s.instrument;
    Ok(Json(CompanyProfile {
        symbol: i.symbol.clone(),
        category: s.category.as_str().to_owned(),
        company_name: Some(i.name.clone()),
        establish_date: profile.establish_date,
        exhibition_code: i.exchange.clone(),
        profile: profile.profile,
        employees: profile.employees,
        address: profile.address,
        ceo: profile.ceo,
        industries: [&i.sector, &i.industry].into_iter().flatten().cloned().collect(),
    }))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/analysis/target-prices/get", tag = "fundamentals",
    operation_id = "fundamentalsTargetPrice", summary = "Analyst target price", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = TargetPrice), UnknownSymbol)
)]
async fn target_price(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<TargetPrice>, ApiError> {
    let s = subject(&state, &p).await?;
    let latest = records::<TargetPriceRecord>(&state, &s).await?.into_iter().next();
    let mut answer = TargetPrice {
        symbol: s.instrument.symbol.clone(),
        category: s.category.as_str().to_owned(),
        ..TargetPrice::default()
    };
    if let Some(t) = latest {
        answer.mean = Some(text(t.mean));
        answer.low = Some(text(t.low));
        answer.high = Some(text(t.high));
        answer.median = Some(text(t.median));
        answer.currency = Some(s.instrument.currency.clone());
        answer.effective_start_date = Some(t.date);
    }
    Ok(Json(answer))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/analysis/ratings/get", tag = "fundamentals",
    operation_id = "fundamentalsAnalystRating", summary = "Analyst rating", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = AnalystRating), UnknownSymbol)
)]
async fn analyst_rating(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<AnalystRating>, ApiError> {
    let s = subject(&state, &p).await?;
    let latest = records::<RatingRecord>(&state, &s).await?.into_iter().next();
    let mut answer = AnalystRating {
        symbol: s.instrument.symbol.clone(),
        category: s.category.as_str().to_owned(),
        ..AnalystRating::default()
    };
    if let Some(r) = latest {
        answer.number = Some(r.strong_buy + r.buy + r.hold + r.sell + r.under_perform);
        answer.strong_buy = Some(r.strong_buy);
        answer.buy = Some(r.buy);
        answer.hold = Some(r.hold);
        answer.sell = Some(r.sell);
        answer.under_perform = Some(r.under_perform);
        answer.effective_start_date = Some(r.date);
    }
    Ok(Json(answer))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/forecast-eps/get", tag = "fundamentals",
    operation_id = "fundamentalsForecastEps", summary = "Forecast EPS", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = Vec<ForecastEps>), UnknownSymbol)
)]
async fn forecast_eps(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<ForecastEps>>, ApiError> {
    let s = subject(&state, &p).await?;
    let quarters = quarters(&state, &s).await?;
    Ok(Json(
        earnings::forecast(&quarters)
            .into_iter()
            .map(|q| ForecastEps {
                fiscal_year: q.period.fiscal_year,
                fiscal_period: q.period.label().to_owned(),
                actual: opt(q.eps_actual),
                est: opt(q.eps_est),
                reported: q.reported(),
            })
            .collect(),
    ))
}

/// The filings of the three years up to the latest one on record.
#[utoipa::path(
    get, path = "/market-data/fundamentals/filings/list", tag = "fundamentals",
    operation_id = "fundamentalsFilings", summary = "SEC filings", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = Filings), UnknownSymbol)
)]
async fn filings(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Filings>, ApiError> {
    let s = subject(&state, &p).await?;
    let rows = match &s.instrument.cik {
        Some(cik) => state.store.filings(cik).await?,
        None => Vec::new(),
    };
    let since = rows
        .first()
        .and_then(|f| parse_day(&f.filed))
        .map_or(0, |d| d - 3 * 365);
    let cik_number = s
        .instrument
        .cik
        .as_deref()
        .unwrap_or("")
        .trim_start_matches('0')
        .to_owned();
    let filings = rows
        .into_iter()
        .filter(|f| parse_day(&f.filed).is_some_and(|d| d >= since))
        .map(|f| Filing {
            title: format!("{} for the period ended {}", f.form, f.period_end),
            url: format!(
                "https://www.sec.gov/Archives/edgar/data/{cik_number}/{}/",
                f.accn.replace('-', "")
            ),
            publish_date: f.filed,
        })
        .collect();
    Ok(Json(Filings {
        symbol: s.instrument.symbol.clone(),
        category: s.category.as_str().to_owned(),
        filings,
    }))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/earnings-calendars/list", tag = "fundamentals",
    operation_id = "fundamentalsEarningsCalendar", summary = "Earnings calendar", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = Vec<EarningsEvent>), UnknownSymbol)
)]
async fn earnings_calendar(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<EarningsEvent>>, ApiError> {
    let s = subject(&state, &p).await?;
    let quarters = quarters(&state, &s).await?;
    Ok(Json(
        earnings::calendar(&quarters, today(&state), HALF_YEAR_DAYS)
            .into_iter()
            .map(|q| EarningsEvent {
                fiscal_year: q.period.fiscal_year,
                fiscal_period: q.period.label().to_owned(),
                currency: s.instrument.currency.clone(),
                expected_publish_date: q.publish_day.map(format_day),
                eps_actual: opt(q.eps_actual),
                eps_est: opt(q.eps_est),
                rev_actual: opt(q.rev_actual),
                rev_est: opt(q.rev_est),
            })
            .collect(),
    ))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/dividend-calendars/list", tag = "fundamentals",
    operation_id = "fundamentalsDividendCalendar", summary = "Dividend calendar", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = Vec<DividendEvent>), UnknownSymbol)
)]
async fn dividend_calendar(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<DividendEvent>>, ApiError> {
    let s = subject(&state, &p).await?;
    let today = today(&state);
    let actions = state.store.corporate_actions(s.instrument.instrument_id).await?;
    Ok(Json(
        actions
            .into_iter()
            .filter(|a| a.kind == ActionKind::Dividend && a.day.abs_diff(today) <= HALF_YEAR_DAYS.unsigned_abs())
            .map(|a| DividendEvent {
                symbol: s.instrument.symbol.clone(),
                market: "US".into(),
                currency: s.instrument.currency.clone(),
                amount: text(a.value),
                div_type: "CASH".into(),
                declare_date: None,
                ex_div_date: format_day(a.day),
                record_date: None,
                pay_date: None,
            })
            .collect(),
    ))
}

/// The latest `count` days (1 to 5), newest first.
#[utoipa::path(
    get, path = "/market-data/fundamentals/capital-flows/get", tag = "fundamentals",
    operation_id = "fundamentalsCapitalFlow", summary = "Capital flow",
    params(
        SymbolParams,
        ("count" = Option<u32>, Query, minimum = 1, maximum = 5, description = "How many, 5 by default"),
    ),
    responses((status = 200, description = DATA_SET, body = Vec<CapitalFlow>), UnknownSymbol)
)]
async fn capital_flow(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<CapitalFlow>>, ApiError> {
    let s = subject(&state, &p).await?;
    let count = count(&p, 5, 5)?;
    let flows = records::<CapitalFlowRecord>(&state, &s)
        .await?
        .into_iter()
        .map(|f| CapitalFlow {
            date: f.date,
            large_in: text(f.large_in),
            large_out: text(f.large_out),
            medium_in: text(f.medium_in),
            medium_out: text(f.medium_out),
            small_in: text(f.small_in),
            small_out: text(f.small_out),
        })
        .take(count)
        .collect();
    Ok(Json(flows))
}

/// `type` (QUARTERLY by default) and `count` (5 by default, at most 20) of the statements.
fn report(p: &Params) -> Result<(bool, usize), ApiError> {
    let t = param("type", given(p.report_type.as_deref()), ReportType::Quarterly, None)?;
    Ok((t == ReportType::Quarterly, count(p, 5, 20)?))
}

/// The newest `count` periods of a statement.
async fn statement(
    state: &AppState,
    p: &Params,
    lines: &[statements::Line],
    instant: bool,
) -> Result<(Subject, Vec<StatementRow>), ApiError> {
    let s = subject(state, p).await?;
    let (quarterly, count) = report(p)?;
    let mut rows = statements(state, &s.instrument)
        .await?
        .map(|st| st.rows(lines, instant, quarterly))
        .unwrap_or_default();
    rows.truncate(count);
    Ok((s, rows))
}

fn period(s: &Subject, row: &StatementRow) -> StatementPeriod {
    StatementPeriod {
        fiscal_year: row.period.fiscal_year,
        fiscal_period: row.period.label().to_owned(),
        end_date: format_day(row.end_day),
        currency: s.instrument.currency.clone(),
        publish_date: row.publish_day.map(format_day),
    }
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/income-statements/get", tag = "fundamentals",
    operation_id = "fundamentalsIncomeStatement", summary = "Income statement", params(SymbolParams, ReportParams),
    responses((status = 200, description = DATA_SET, body = Vec<IncomeStatement>), UnknownSymbol)
)]
async fn income_statement(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<IncomeStatement>>, ApiError> {
    let (s, rows) = statement(&state, &p, INCOME, false).await?;
    Ok(Json(
        rows.iter()
            .map(|r| {
                let v = |name| opt(r.get(name));
                IncomeStatement {
                    period: period(&s, r),
                    total_revenue: v("total_revenue"),
                    revenue: v("revenue"),
                    cost_of_revenue: v("cost_of_revenue"),
                    gross_profit: v("gross_profit"),
                    opex: v("opex"),
                    op_income: v("op_income"),
                    ebt: v("ebt"),
                    income_tax: v("income_tax"),
                    net_income: v("net_income"),
                    diluted_eps_incl_extra: v("diluted_eps_incl_extra"),
                    dps: v("dps"),
                }
            })
            .collect(),
    ))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/cash-flows/get", tag = "fundamentals",
    operation_id = "fundamentalsCashFlow", summary = "Cash flow", params(SymbolParams, ReportParams),
    responses((status = 200, description = DATA_SET, body = Vec<CashFlowStatement>), UnknownSymbol)
)]
async fn cash_flow(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<CashFlowStatement>>, ApiError> {
    let (s, rows) = statement(&state, &p, CASH_FLOW, false).await?;
    Ok(Json(
        rows.iter()
            .map(|r| {
                let v = |name| opt(r.get(name));
                CashFlowStatement {
                    period: period(&s, r),
                    cfo: v("cfo"),
                    net_income: v("net_income"),
                    dna: v("dna"),
                    cfi: v("cfi"),
                    capex: v("capex"),
                    cff: v("cff"),
                    net_change_cash: v("net_change_cash"),
                    interest_paid: v("interest_paid"),
                    taxes_paid: v("taxes_paid"),
                }
            })
            .collect(),
    ))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/balance-sheets/get", tag = "fundamentals",
    operation_id = "fundamentalsBalanceSheet", summary = "Balance sheet", params(SymbolParams, ReportParams),
    responses((status = 200, description = DATA_SET, body = Vec<BalanceSheet>), UnknownSymbol)
)]
async fn balance_sheet(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<BalanceSheet>>, ApiError> {
    let (s, rows) = statement(&state, &p, BALANCE, true).await?;
    Ok(Json(
        rows.iter()
            .map(|r| {
                let v = |name| opt(r.get(name));
                BalanceSheet {
                    period: period(&s, r),
                    total_assets: v("total_assets"),
                    total_cur_assets: v("total_cur_assets"),
                    cash_st_invest: v("cash_st_invest"),
                    total_non_cur_assets: v("total_non_cur_assets"),
                    total_liab: v("total_liab"),
                    total_cur_liab: v("total_cur_liab"),
                    total_debt: v("total_debt"),
                    total_equity: v("total_equity"),
                    retained_earnings: v("retained_earnings"),
                    common_shares_out: v("common_shares_out"),
                }
            })
            .collect(),
    ))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/indicators/get", tag = "fundamentals",
    operation_id = "fundamentalsIndicators", summary = "Financial indicators", params(SymbolParams, ReportParams),
    responses((status = 200, description = DATA_SET, body = Indicators), UnknownSymbol)
)]
async fn indicators(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Indicators>, ApiError> {
    let s = subject(&state, &p).await?;
    let (quarterly, count) = report(&p)?;
    let Some(st) = statements(&state, &s.instrument).await? else {
        return Ok(Json(Indicators::default()));
    };
    let income = st.rows(INCOME, false, quarterly);
    let balance = st.rows(BALANCE, true, quarterly);
    let mut answer = Indicators {
        currency: Some(s.instrument.currency.clone()),
        ..Indicators::default()
    };
    // Oldest first, as the catalog's consumers chart them.
    for row in income.iter().take(count).rev() {
        let at_end = balance.iter().find(|b| b.end_day.abs_diff(row.end_day) <= 7);
        let year_before = income
            .iter()
            .find(|y| y.period.quarter == row.period.quarter && y.period.fiscal_year == row.period.fiscal_year - 1);
        for (name, value) in valuation::indicators(row, at_end, year_before) {
            answer.values.entry(name.to_owned()).or_default().push(PeriodValue {
                fiscal_year: row.period.fiscal_year,
                fiscal_period: row.period.label().to_owned(),
                value: opt(value),
            });
        }
    }
    Ok(Json(answer))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/financial-alerts/get", tag = "fundamentals",
    operation_id = "fundamentalsFinancialAlert", summary = "Financial alert", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = FinancialAlert), UnknownSymbol)
)]
async fn financial_alert(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<FinancialAlert>, ApiError> {
    let s = subject(&state, &p).await?;
    let quarters = quarters(&state, &s).await?;
    let Some((next, year_before, previous_end)) = earnings::next_with_last_year(&quarters) else {
        return Ok(Json(FinancialAlert::default()));
    };
    Ok(Json(FinancialAlert {
        start_date: previous_end.map(|d| format_day(d + 1)),
        end_date: Some(format_day(next.end_day)),
        fiscal_year: Some(next.period.fiscal_year),
        fiscal_period: Some(next.period.label().to_owned()),
        currency: Some(s.instrument.currency.clone()),
        eps_est: opt(next.eps_est),
        eps_ly: opt(year_before.and_then(|y| y.eps_actual)),
        rev_est: opt(next.rev_est),
        rev_ly: opt(year_before.and_then(|y| y.rev_actual)),
    }))
}

/// Up to 20 equities of the same industry (the sector when the industry is unknown), the
/// target always among them, ranked on `sort_by` over the whole industry (highest first,
/// unknown values last).
#[utoipa::path(
    get, path = "/market-data/fundamentals/industry-comparisons/get", tag = "fundamentals",
    operation_id = "fundamentalsIndustryComparison", summary = "Industry comparison",
    params(
        SymbolParams,
        ("sort_by" = Option<ComparisonMetric>, Query, description = "The figure ranked on, EPS_TTM by default"),
    ),
    responses((status = 200, description = DATA_SET, body = IndustryComparison), UnknownSymbol)
)]
async fn industry_comparison(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<IndustryComparison>, ApiError> {
    let s = subject(&state, &p).await?;
    let metric = param("sort_by", given(p.sort_by.as_deref()), ComparisonMetric::EpsTtm, None)?;
    let i = &s.instrument;
    let peers = state.store.peers(i.industry.as_deref(), i.sector.as_deref()).await?;
    let mut values = Vec::with_capacity(peers.len());
    for peer in &peers {
        let book = match &peer.cik {
            Some(cik) if peer.has_facts => {
                let facts = state.store.company_facts(cik, &statements::concepts()).await?;
                Statements::new(&facts).map(|st| Book::of(&st, peer.shares_outstanding))
            }
            _ => None,
        };
        values.push((peer, valuation::peer_value(peer, metric, book.as_ref())));
    }
    let data = valuation::compare(values, i.instrument_id)
        .into_iter()
        .map(|r| IndustryPeer {
            symbol: r.peer.symbol.clone(),
            name: r.peer.name.clone(),
            rank: r.rank,
            value: opt(r.value),
        })
        .collect();
    let day = peers
        .iter()
        .find(|peer| peer.instrument_id == i.instrument_id)
        .and_then(|peer| peer.day);
    Ok(Json(IndustryComparison {
        fiscal_year: day.map(|d| signet_domain::marketdata::units::date_of(d).year()),
        fiscal_period: day.map(|_| "TTM".to_owned()),
        industry_name: i.industry.clone().or_else(|| i.sector.clone()),
        metric: metric.as_str().to_owned(),
        data,
    }))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/fund-brief/get", tag = "fundamentals",
    operation_id = "fundamentalsFundBrief", summary = "Fund brief", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = FundBrief), UnknownSymbol)
)]
async fn fund_brief(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<FundBrief>, ApiError> {
    let s = subject(&state, &p).await?;
    if !s.is_fund() {
        return Ok(Json(FundBrief::default()));
    }
    let brief = records::<FundBriefRecord>(&state, &s)
        .await?
        .into_iter()
        .next()
        .unwrap_or_default();
    // The assets under management of the latest allocation, when the brief has none.
    let aum = match brief.aum {
        Some(aum) => Some(text(aum)),
        None => records::<FundAllocation>(&state, &s)
            .await?
            .into_iter()
            .find_map(|a| a.aum),
    };
    Ok(Json(FundBrief {
        name: Some(s.instrument.name.clone()),
        launch_date: brief.launch_date,
        benchmark: brief.benchmark,
        investment_objective: brief.investment_objective,
        aum,
        issuer: brief.issuer,
        custodian: brief.custodian,
        managers: brief.managers,
    }))
}

/// The closes of a fund up to the market's today.
async fn fund_closes(
    state: &AppState,
    s: &Subject,
    from_day: i32,
    to_day: i32,
) -> Result<Vec<signet_domain::marketdata::Bar>, ApiError> {
    if !s.is_fund() {
        return Ok(Vec::new());
    }
    Ok(state
        .store
        .daily_bars(s.instrument.instrument_id, from_day, to_day.min(today(state)))
        .await?)
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/fund-performances/get", tag = "fundamentals",
    operation_id = "fundamentalsFundPerformance", summary = "Fund performance", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = FundPerformance), UnknownSymbol)
)]
async fn fund_performance(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<FundPerformance>, ApiError> {
    let s = subject(&state, &p).await?;
    let bars = fund_closes(&state, &s, i32::MIN, i32::MAX).await?;
    if bars.is_empty() {
        return Ok(Json(FundPerformance::default()));
    }
    Ok(Json(funds::performance(&bars, &s.instrument.currency)))
}

/// Daily net values (the closing price: exchange-traded funds trade near their net asset
/// value) up to `last_date` inclusive, newest first.
#[utoipa::path(
    get, path = "/market-data/fundamentals/fund-net-values/get", tag = "fundamentals",
    operation_id = "fundamentalsFundNetValue", summary = "Fund net value",
    params(
        SymbolParams,
        ("last_date" = Option<String>, Query, format = Date, description = "The last day, YYYY-MM-DD (today by default)"),
        ("count" = Option<u32>, Query, minimum = 1, maximum = 20, description = "How many, 5 by default"),
    ),
    responses((status = 200, description = DATA_SET, body = Vec<FundNetValue>), UnknownSymbol)
)]
async fn fund_net_value(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<FundNetValue>>, ApiError> {
    let s = subject(&state, &p).await?;
    let count = count(&p, 5, 20)?;
    let last_day = match given(p.last_date.as_deref()) {
        None => i32::MAX,
        Some(d) => parse_day(d).ok_or_else(|| ApiError::illegal_parameter("last_date must be a YYYY-MM-DD date"))?,
    };
    let to = last_day.min(today(&state));
    let bars = fund_closes(&state, &s, to.saturating_sub(60), to).await?;
    Ok(Json(
        bars.iter()
            .rev()
            .take(count)
            .map(|b| FundNetValue {
                date: format_day(b.day),
                currency: s.instrument.currency.clone(),
                net_value: text(from_micros(b.close)),
            })
            .collect(),
    ))
}

/// The ten largest holdings.
#[utoipa::path(
    get, path = "/market-data/fundamentals/fund-holdings/get", tag = "fundamentals",
    operation_id = "fundamentalsFundHoldings", summary = "Fund holdings", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = Vec<FundHolding>), UnknownSymbol)
)]
async fn fund_holdings(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<FundHolding>>, ApiError> {
    let s = subject(&state, &p).await?;
    let mut holdings = records::<FundHoldingRecord>(&state, &s).await?;
    holdings.sort_by_key(|h| std::cmp::Reverse(h.share_held_pct));
    Ok(Json(
        holdings
            .into_iter()
            .take(10)
            .map(|h| FundHolding {
                target_symbol: h.target_symbol,
                stock_name: h.stock_name,
                share_held_pct: text(h.share_held_pct),
                share_held_chg_pct: opt(h.share_held_chg_pct),
                maturity_date: h.maturity_date,
                update_time: h.update_date,
            })
            .collect(),
    ))
}

/// Distributions, newest first, ten a page.
#[utoipa::path(
    get, path = "/market-data/fundamentals/fund-dividends/get", tag = "fundamentals",
    operation_id = "fundamentalsFundDividends", summary = "Fund dividends",
    params(
        SymbolParams,
        ("pagination_key" = Option<String>, Query, description = "The previous page's `pagination_key`"),
    ),
    responses((status = 200, description = DATA_SET, body = FundDividendPage), UnknownSymbol)
)]
async fn fund_dividends(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<FundDividendPage>, ApiError> {
    let s = subject(&state, &p).await?;
    let before = pagination::decode('f', p.pagination_key.as_deref())?.unwrap_or(i64::MAX);
    let mut dividends = fund_distributions(&state, &s).await?;
    dividends.retain(|a| i64::from(a.day) < before);
    let more = dividends.len() > FUND_DIVIDENDS_PAGE;
    dividends.truncate(FUND_DIVIDENDS_PAGE);
    Ok(Json(FundDividendPage {
        pagination_key: more
            .then(|| dividends.last().map(|a| pagination::encode('f', i64::from(a.day))))
            .flatten(),
        data: dividends.iter().map(fund_dividend).collect(),
    }))
}

/// The legacy fund dividends (catalog 6.20): the rows of [`fund_dividends`], in its order,
/// `page_size` (default 10, at most 20) a page, as a bare array.
#[utoipa::path(
    get, path = "/openapi/fundamentals/fund/dividends", tag = "legacy",
    operation_id = "legacyFundDividends", summary = "Fund dividends (legacy)",
    params(
        SymbolParams,
        ("page_index" = Option<u32>, Query, minimum = 1, description = "The page, from 1 (default 1)"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 20, description = "Rows a page, 10 by default"),
    ),
    responses((status = 200, description = DATA_SET, body = Vec<FundDividend>), UnknownSymbol)
)]
async fn legacy_fund_dividends(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<FundDividend>>, ApiError> {
    let page = LegacyPage::parse(
        given(p.page_index.as_deref()),
        given(p.page_size.as_deref()),
        LEGACY_FUND_DIVIDENDS_PAGE,
        LEGACY_FUND_DIVIDENDS_MAX_PAGE,
    )?;
    let s = subject(&state, &p).await?;
    let (dividends, _) = page.slice(fund_distributions(&state, &s).await?);
    Ok(Json(dividends.iter().map(fund_dividend).collect()))
}

/// A fund's distributions, newest first; none for an instrument that is not a fund.
async fn fund_distributions(state: &AppState, s: &Subject) -> Result<Vec<CorporateAction>, ApiError> {
    if !s.is_fund() {
        return Ok(Vec::new());
    }
    let mut dividends: Vec<_> = state
        .store
        .corporate_actions(s.instrument.instrument_id)
        .await?
        .into_iter()
        .filter(|a| a.kind == ActionKind::Dividend)
        .collect();
    dividends.reverse();
    Ok(dividends)
}

fn fund_dividend(a: &CorporateAction) -> FundDividend {
    FundDividend {
        share_date: format_day(a.day),
        publish_date: None,
        pay_date: None,
        record_date: None,
        dps: text(a.value),
    }
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/fund-ratings/get", tag = "fundamentals",
    operation_id = "fundamentalsFundRating", summary = "Fund rating", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = Vec<FundRating>), UnknownSymbol)
)]
async fn fund_rating(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<FundRating>>, ApiError> {
    let s = subject(&state, &p).await?;
    Ok(Json(records::<FundRating>(&state, &s).await?))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/fund-splits/get", tag = "fundamentals",
    operation_id = "fundamentalsFundSplits", summary = "Fund splits", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = Vec<FundSplit>), UnknownSymbol)
)]
async fn fund_splits(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<FundSplit>>, ApiError> {
    let s = subject(&state, &p).await?;
    if !s.is_fund() {
        return Ok(Json(Vec::new()));
    }
    let actions = state.store.corporate_actions(s.instrument.instrument_id).await?;
    Ok(Json(
        actions
            .into_iter()
            .rev()
            .filter(|a| a.kind == ActionKind::Split)
            .map(|a| {
                let (split_type, from, to) = funds::split_parts(a.value);
                FundSplit {
                    split_date: format_day(a.day),
                    split_type: split_type.to_owned(),
                    split_ratio: text(a.value),
                    from,
                    to,
                }
            })
            .collect(),
    ))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/fund-files/get", tag = "fundamentals",
    operation_id = "fundamentalsFundFiles", summary = "Fund files", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = Vec<FundFile>), UnknownSymbol)
)]
async fn fund_files(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<FundFile>>, ApiError> {
    let s = subject(&state, &p).await?;
    Ok(Json(records::<FundFile>(&state, &s).await?))
}

#[utoipa::path(
    get, path = "/market-data/fundamentals/fund-allocations/get", tag = "fundamentals",
    operation_id = "fundamentalsFundAllocation", summary = "Fund allocation", params(SymbolParams),
    responses((status = 200, description = DATA_SET, body = Vec<FundAllocation>), UnknownSymbol)
)]
async fn fund_allocation(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<FundAllocation>>, ApiError> {
    let s = subject(&state, &p).await?;
    Ok(Json(records::<FundAllocation>(&state, &s).await?))
}
