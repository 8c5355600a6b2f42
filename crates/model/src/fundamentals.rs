//! Fundamentals (catalog section 6): company and analyst data, financial statements, calendars
//! and fund data. Decimal figures travel as strings, counts as integers; a figure the server does
//! not have is `null`, so that object-shaped answers keep every field.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::wire_enum;

wire_enum!(
    /// `category`: US equities and funds are the only data this interface serves.
    FundamentalsCategory { UsStock = "US_STOCK", UsEtf = "US_ETF" }
);

wire_enum!(
    /// `type` of the statements and indicators.
    ReportType { Quarterly = "QUARTERLY", Annual = "ANNUAL" }
);

wire_enum!(
    /// `sort_by` of the industry comparison.
    ComparisonMetric {
        EpsTtm = "EPS_TTM",
        Naps = "NAPS",
        DpsTtm = "DPS_TTM",
        Roe = "ROE",
        DebtToAssets = "DEBT_TO_ASSETS",
        NetMargin = "NET_MARGIN",
        DivYieldTtm = "DIV_YIELD_TTM",
        PeTtm = "PE_TTM",
        PbRatio = "PB_RATIO",
    }
);

/// 6.1 `GET /market-data/fundamentals/company-profiles/get`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CompanyProfile {
    pub symbol: String,
    pub category: String,
    #[schema(required = true)]
    pub company_name: Option<String>,
    #[schema(required = true)]
    pub establish_date: Option<String>,
    /// The listing exchange.
    #[schema(required = true)]
    pub exhibition_code: Option<String>,
    #[schema(required = true)]
    pub profile: Option<String>,
    #[schema(required = true)]
    pub employees: Option<u64>,
    #[schema(required = true)]
    pub address: Option<String>,
    #[schema(required = true)]
    pub ceo: Option<String>,
    pub industries: Vec<String>,
}

/// 6.2 `GET /market-data/fundamentals/analysis/target-prices/get`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TargetPrice {
    pub symbol: String,
    pub category: String,
    #[schema(required = true)]
    pub mean: Option<String>,
    #[schema(required = true)]
    pub low: Option<String>,
    #[schema(required = true)]
    pub high: Option<String>,
    #[schema(required = true)]
    pub median: Option<String>,
    #[schema(required = true)]
    pub currency: Option<String>,
    #[schema(required = true)]
    pub effective_start_date: Option<String>,
}

/// 6.3 `GET /market-data/fundamentals/analysis/ratings/get`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AnalystRating {
    pub symbol: String,
    pub category: String,
    /// Analysts counted: the sum of the five grades.
    #[schema(required = true)]
    pub number: Option<u32>,
    #[schema(required = true)]
    pub strong_buy: Option<u32>,
    #[schema(required = true)]
    pub buy: Option<u32>,
    #[schema(required = true)]
    pub hold: Option<u32>,
    #[schema(required = true)]
    pub sell: Option<u32>,
    #[schema(required = true)]
    pub under_perform: Option<u32>,
    #[schema(required = true)]
    pub effective_start_date: Option<String>,
}

/// 6.4 `GET /market-data/fundamentals/forecast-eps/get`: one fiscal period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ForecastEps {
    pub fiscal_year: i32,
    pub fiscal_period: String,
    #[schema(required = true)]
    pub actual: Option<String>,
    #[schema(required = true)]
    pub est: Option<String>,
    /// Whether the period's results are published.
    pub reported: bool,
}

/// 6.5 `GET /market-data/fundamentals/filings/list`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Filings {
    pub symbol: String,
    pub category: String,
    pub filings: Vec<Filing>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Filing {
    pub title: String,
    pub url: String,
    pub publish_date: String,
}

/// 6.6 `GET /market-data/fundamentals/earnings-calendars/list`: one fiscal period's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct EarningsEvent {
    pub fiscal_year: i32,
    pub fiscal_period: String,
    pub currency: String,
    #[schema(required = true)]
    pub expected_publish_date: Option<String>,
    #[schema(required = true)]
    pub eps_actual: Option<String>,
    #[schema(required = true)]
    pub eps_est: Option<String>,
    #[schema(required = true)]
    pub rev_actual: Option<String>,
    #[schema(required = true)]
    pub rev_est: Option<String>,
}

/// 6.7 `GET /market-data/fundamentals/dividend-calendars/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DividendEvent {
    pub symbol: String,
    pub market: String,
    pub currency: String,
    pub amount: String,
    pub div_type: String,
    #[schema(required = true)]
    pub declare_date: Option<String>,
    pub ex_div_date: String,
    #[schema(required = true)]
    pub record_date: Option<String>,
    #[schema(required = true)]
    pub pay_date: Option<String>,
}

/// 6.8 `GET /market-data/fundamentals/capital-flows/get`: one day's money in and out by order
/// size, in the instrument's currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CapitalFlow {
    pub date: String,
    pub large_in: String,
    pub large_out: String,
    pub medium_in: String,
    pub medium_out: String,
    pub small_in: String,
    pub small_out: String,
}

/// 6.9 `GET /market-data/fundamentals/industry-comparisons/get`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct IndustryComparison {
    #[schema(required = true)]
    pub fiscal_year: Option<i32>,
    #[schema(required = true)]
    pub fiscal_period: Option<String>,
    #[schema(required = true)]
    pub industry_name: Option<String>,
    /// The `sort_by` ranked on.
    #[serde(rename = "type")]
    pub metric: String,
    pub data: Vec<IndustryPeer>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct IndustryPeer {
    pub symbol: String,
    pub name: String,
    /// Position in the whole industry, 1 for the highest value.
    pub rank: u32,
    #[schema(required = true)]
    pub value: Option<String>,
}

/// 6.10 `GET /market-data/fundamentals/indicators/get`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Indicators {
    #[schema(required = true)]
    pub currency: Option<String>,
    /// Indicator name to its values, oldest period first.
    pub values: BTreeMap<String, Vec<PeriodValue>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PeriodValue {
    pub fiscal_year: i32,
    pub fiscal_period: String,
    #[schema(required = true)]
    pub value: Option<String>,
}

/// The fields every statement period carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StatementPeriod {
    pub fiscal_year: i32,
    /// `Q1` to `Q4`, or `FY`.
    pub fiscal_period: String,
    pub end_date: String,
    pub currency: String,
    /// The day the period's figures were first filed.
    #[schema(required = true)]
    pub publish_date: Option<String>,
}

/// 6.11 `GET /market-data/fundamentals/income-statements/get`: one period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct IncomeStatement {
    #[serde(flatten)]
    pub period: StatementPeriod,
    #[schema(required = true)]
    pub total_revenue: Option<String>,
    #[schema(required = true)]
    pub revenue: Option<String>,
    #[schema(required = true)]
    pub cost_of_revenue: Option<String>,
    #[schema(required = true)]
    pub gross_profit: Option<String>,
    #[schema(required = true)]
    pub opex: Option<String>,
    #[schema(required = true)]
    pub op_income: Option<String>,
    #[schema(required = true)]
    pub ebt: Option<String>,
    #[schema(required = true)]
    pub income_tax: Option<String>,
    #[schema(required = true)]
    pub net_income: Option<String>,
    #[schema(required = true)]
    pub diluted_eps_incl_extra: Option<String>,
    #[schema(required = true)]
    pub dps: Option<String>,
}

/// 6.12 `GET /market-data/fundamentals/cash-flows/get`: one period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CashFlowStatement {
    #[serde(flatten)]
    pub period: StatementPeriod,
    #[schema(required = true)]
    pub cfo: Option<String>,
    #[schema(required = true)]
    pub net_income: Option<String>,
    #[schema(required = true)]
    pub dna: Option<String>,
    #[schema(required = true)]
    pub cfi: Option<String>,
    #[schema(required = true)]
    pub capex: Option<String>,
    #[schema(required = true)]
    pub cff: Option<String>,
    #[schema(required = true)]
    pub net_change_cash: Option<String>,
    #[schema(required = true)]
    pub interest_paid: Option<String>,
    #[schema(required = true)]
    pub taxes_paid: Option<String>,
}

/// 6.13 `GET /market-data/fundamentals/balance-sheets/get`: one period end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BalanceSheet {
    #[serde(flatten)]
    pub period: StatementPeriod,
    #[schema(required = true)]
    pub total_assets: Option<String>,
    #[schema(required = true)]
    pub total_cur_assets: Option<String>,
    #[schema(required = true)]
    pub cash_st_invest: Option<String>,
    #[schema(required = true)]
    pub total_non_cur_assets: Option<String>,
    #[schema(required = true)]
    pub total_liab: Option<String>,
    #[schema(required = true)]
    pub total_cur_liab: Option<String>,
    #[schema(required = true)]
    pub total_debt: Option<String>,
    #[schema(required = true)]
    pub total_equity: Option<String>,
    #[schema(required = true)]
    pub retained_earnings: Option<String>,
    #[schema(required = true)]
    pub common_shares_out: Option<String>,
}

/// 6.14 `GET /market-data/fundamentals/financial-alerts/get`: the next period to be reported,
/// its consensus and the same period a year before.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FinancialAlert {
    #[schema(required = true)]
    pub start_date: Option<String>,
    #[schema(required = true)]
    pub end_date: Option<String>,
    #[schema(required = true)]
    pub fiscal_year: Option<i32>,
    #[schema(required = true)]
    pub fiscal_period: Option<String>,
    #[schema(required = true)]
    pub currency: Option<String>,
    #[schema(required = true)]
    pub eps_est: Option<String>,
    #[schema(required = true)]
    pub eps_ly: Option<String>,
    #[schema(required = true)]
    pub rev_est: Option<String>,
    #[schema(required = true)]
    pub rev_ly: Option<String>,
}

/// 6.15 `GET /market-data/fundamentals/fund-brief/get`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundBrief {
    #[schema(required = true)]
    pub name: Option<String>,
    #[schema(required = true)]
    pub launch_date: Option<String>,
    #[schema(required = true)]
    pub benchmark: Option<String>,
    #[schema(required = true)]
    pub investment_objective: Option<String>,
    #[schema(required = true)]
    pub aum: Option<String>,
    #[schema(required = true)]
    pub issuer: Option<String>,
    #[schema(required = true)]
    pub custodian: Option<String>,
    #[serde(default)]
    #[schema(required = true)]
    pub managers: Vec<FundManager>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundManager {
    pub name: String,
    #[schema(required = true)]
    pub start_date: Option<String>,
    #[schema(required = true)]
    pub end_date: Option<String>,
    pub is_incumbent: bool,
    #[schema(required = true)]
    pub tenure_return: Option<String>,
    #[schema(required = true)]
    pub title: Option<String>,
    #[schema(required = true)]
    pub tenure_years: Option<String>,
    #[schema(required = true)]
    pub tenure_days: Option<u32>,
}

/// 6.16 `GET /market-data/fundamentals/fund-performances/get`: total returns as ratios (0.1 is
/// 10 %), from the closing prices; `null` where the history is shorter than the period.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundPerformance {
    #[schema(required = true)]
    pub currency: Option<String>,
    #[schema(required = true)]
    pub end_date: Option<String>,
    #[schema(required = true)]
    pub return_1m: Option<String>,
    #[schema(required = true)]
    pub return_3m: Option<String>,
    #[schema(required = true)]
    pub return_6m: Option<String>,
    #[schema(required = true)]
    pub return_1y: Option<String>,
    #[schema(required = true)]
    pub return_3y: Option<String>,
    #[schema(required = true)]
    pub return_5y: Option<String>,
    #[schema(required = true)]
    pub return_10y: Option<String>,
    /// Since the first price on record.
    #[schema(required = true)]
    pub return_si: Option<String>,
}

/// 6.17 `GET /market-data/fundamentals/fund-net-values/get`: one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundNetValue {
    pub date: String,
    pub currency: String,
    pub net_value: String,
}

/// 6.18 `GET /market-data/fundamentals/fund-holdings/get`: one of the ten largest holdings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundHolding {
    pub target_symbol: String,
    pub stock_name: String,
    /// Percent of the fund's assets (the whole portfolio sums to 100).
    pub share_held_pct: String,
    #[schema(required = true)]
    pub share_held_chg_pct: Option<String>,
    #[schema(required = true)]
    pub maturity_date: Option<String>,
    pub update_time: String,
}

/// 6.19 `GET /market-data/fundamentals/fund-dividends/get`: a page of distributions, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundDividendPage {
    pub data: Vec<FundDividend>,
    /// Absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub pagination_key: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundDividend {
    /// The ex-dividend day.
    pub share_date: String,
    #[schema(required = true)]
    pub publish_date: Option<String>,
    #[schema(required = true)]
    pub pay_date: Option<String>,
    #[schema(required = true)]
    pub record_date: Option<String>,
    /// Cash per share.
    pub dps: String,
}

/// 6.21 `GET /market-data/fundamentals/fund-ratings/get`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundRating {
    pub rating_date: String,
    pub rating_agency: String,
    pub rating_cycle: String,
    pub rating_results: String,
}

/// 6.22 `GET /market-data/fundamentals/fund-splits/get`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundSplit {
    pub split_date: String,
    /// `SPLIT` or `REVERSE_SPLIT`.
    pub split_type: String,
    /// Shares after per share before.
    pub split_ratio: String,
    pub from: String,
    pub to: String,
}

/// 6.23 `GET /market-data/fundamentals/fund-files/get`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundFile {
    pub publish_date: String,
    #[schema(required = true)]
    pub url: Option<String>,
    #[serde(rename = "type")]
    pub file_type: String,
    pub file_name: String,
}

/// 6.24 `GET /market-data/fundamentals/fund-allocations/get`: the portfolio by asset class on
/// one day; the ratios sum to 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FundAllocation {
    pub date: String,
    #[schema(required = true)]
    pub aum: Option<String>,
    pub cash: AssetShare,
    pub bond: AssetShare,
    pub stock: AssetShare,
    pub preferred: AssetShare,
    pub convertible: AssetShare,
    pub other: AssetShare,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AssetShare {
    #[schema(required = true)]
    pub value: Option<String>,
    pub ratio: String,
}
