//! `signet fundamentals DATA-SET SYMBOL`: the 23 fundamentals data sets of a running server.
//! Lists print as tables, objects as `field: value` lines with their lists as tables below.

use clap::{Args, ValueEnum};
use serde_json::Value;
use signet_model::fundamentals::{ComparisonMetric, ReportType};

use crate::ClientArgs;
use crate::output::{table, wire};

#[derive(Args)]
pub struct FundamentalsArgs {
    data_set: DataSet,
    symbol: String,
    /// Statements and indicators: QUARTERLY or ANNUAL
    #[arg(long = "type", default_value = "QUARTERLY", value_parser = wire::<ReportType>)]
    report: ReportType,
    /// Periods (statements, indicators: at most 20), days (capital flow: at most 5; fund net value: at most 20)
    #[arg(long)]
    count: Option<u32>,
    /// Fund net value: the last day, YYYY-MM-DD (inclusive)
    #[arg(long)]
    last_date: Option<String>,
    /// Industry comparison: EPS_TTM, NAPS, DPS_TTM, ROE, DEBT_TO_ASSETS, NET_MARGIN, DIV_YIELD_TTM, PE_TTM or PB_RATIO
    #[arg(long, value_parser = wire::<ComparisonMetric>)]
    sort_by: Option<ComparisonMetric>,
    /// Fund dividends: the key of the previous page
    #[arg(long)]
    page: Option<String>,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum DataSet {
    CompanyProfile,
    TargetPrice,
    Rating,
    ForecastEps,
    Filings,
    EarningsCalendar,
    DividendCalendar,
    CapitalFlow,
    IndustryComparison,
    Indicators,
    Income,
    CashFlow,
    BalanceSheet,
    Alert,
    FundBrief,
    FundPerformance,
    FundNetValue,
    FundHoldings,
    FundDividends,
    FundRating,
    FundSplits,
    FundFiles,
    FundAllocation,
}

pub async fn run(args: FundamentalsArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let f = client.fundamentals();
    let symbol = args.symbol.to_ascii_uppercase();
    let s = symbol.as_str();
    let periods = args.count.unwrap_or(5);
    let value = match args.data_set {
        DataSet::CompanyProfile => serde_json::to_value(f.company_profile(s).await?),
        DataSet::TargetPrice => serde_json::to_value(f.target_price(s).await?),
        DataSet::Rating => serde_json::to_value(f.analyst_rating(s).await?),
        DataSet::ForecastEps => serde_json::to_value(f.forecast_eps(s).await?),
        DataSet::Filings => serde_json::to_value(f.filings(s).await?),
        DataSet::EarningsCalendar => serde_json::to_value(f.earnings_calendar(s).await?),
        DataSet::DividendCalendar => serde_json::to_value(f.dividend_calendar(s).await?),
        DataSet::CapitalFlow => serde_json::to_value(f.capital_flow(s, args.count).await?),
        DataSet::IndustryComparison => serde_json::to_value(f.industry_comparison(s, args.sort_by).await?),
        DataSet::Indicators => serde_json::to_value(f.indicators(s, args.report, periods).await?),
        DataSet::Income => serde_json::to_value(f.income_statement(s, args.report, periods).await?),
        DataSet::CashFlow => serde_json::to_value(f.cash_flow(s, args.report, periods).await?),
        DataSet::BalanceSheet => serde_json::to_value(f.balance_sheet(s, args.report, periods).await?),
        DataSet::Alert => serde_json::to_value(f.financial_alert(s).await?),
        DataSet::FundBrief => serde_json::to_value(f.fund_brief(s).await?),
        DataSet::FundPerformance => serde_json::to_value(f.fund_performance(s).await?),
        DataSet::FundNetValue => {
            serde_json::to_value(f.fund_net_value(s, args.last_date.as_deref(), args.count).await?)
        }
        DataSet::FundHoldings => serde_json::to_value(f.fund_holdings(s).await?),
        DataSet::FundDividends => serde_json::to_value(f.fund_dividends(s, args.page.as_deref()).await?),
        DataSet::FundRating => serde_json::to_value(f.fund_rating(s).await?),
        DataSet::FundSplits => serde_json::to_value(f.fund_splits(s).await?),
        DataSet::FundFiles => serde_json::to_value(f.fund_files(s).await?),
        DataSet::FundAllocation => serde_json::to_value(f.fund_allocation(s).await?),
    }?;
    if args.client.json {
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print(&value);
    }
    Ok(())
}

/// A cell: strings without quotes, nested values as compact JSON, nulls empty.
fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Object(o) if o.contains_key("ratio") => format!("{} ({})", cell(&o["ratio"]), cell(&o["value"])),
        other => other.to_string(),
    }
}

fn print(value: &Value) {
    match value {
        Value::Array(rows) => print_rows(rows),
        Value::Object(fields) => {
            let mut lists = Vec::new();
            for (name, v) in fields {
                match v {
                    Value::Array(rows) if rows.iter().all(Value::is_object) => lists.push((name, rows)),
                    Value::Object(inner) if inner.values().all(Value::is_array) => {
                        // Indicators: one line per name, one column per period.
                        for (indicator, periods) in inner {
                            let cells: Vec<String> = periods
                                .as_array()
                                .into_iter()
                                .flatten()
                                .map(|p| {
                                    format!(
                                        "{}{} {}",
                                        cell(&p["fiscal_year"]),
                                        cell(&p["fiscal_period"]),
                                        cell(&p["value"])
                                    )
                                })
                                .collect();
                            println!("{indicator}: {}", cells.join("  "));
                        }
                    }
                    _ => println!("{name}: {}", cell(v)),
                }
            }
            for (name, rows) in lists {
                println!("\n{name}:");
                print_rows(rows);
            }
        }
        other => println!("{}", cell(other)),
    }
}

/// Rows of objects as a table whose columns are the first row's fields.
fn print_rows(rows: &[Value]) {
    let Some(Value::Object(first)) = rows.first() else {
        println!("(none)");
        return;
    };
    let columns: Vec<&String> = first.keys().collect();
    let header: Vec<String> = columns.iter().map(|c| c.to_ascii_uppercase()).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| columns.iter().map(|c| cell(&row[c.as_str()])).collect())
        .collect();
    table(&header.iter().map(String::as_str).collect::<Vec<_>>(), &cells);
}
