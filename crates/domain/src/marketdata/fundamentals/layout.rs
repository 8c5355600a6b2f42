//! signet's fundamentals layout, for the data sets no public file carries: JSON Lines, one
//! record a line, `{"symbol": ..., "data_set": ..., "data": {...}}`. Decimals are strings,
//! dates `YYYY-MM-DD`; unknown fields are refused so that a misspelt one is not lost silently.
//!
//! ```text
//! {"symbol":"AAPL","data_set":"analyst_rating","data":{"date":"2013-03-01","strong_buy":12,"buy":20,"hold":9,"sell":1,"under_perform":0}}
//! ```
//!
//! Statements, filings, reported EPS, dividends, splits and fund prices are not records: they
//! are derived from SEC facts, corporate actions and daily bars.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use signet_model::fundamentals::{FundAllocation, FundFile, FundManager, FundRating};

use crate::marketdata::units::parse_day;

/// The stored data sets, by their `data_set` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataSet {
    CompanyProfile,
    AnalystTargetPrice,
    AnalystRating,
    Earnings,
    CapitalFlow,
    FundBrief,
    FundHolding,
    FundRating,
    FundFile,
    FundAllocation,
}

impl DataSet {
    pub const ALL: [DataSet; 10] = [
        DataSet::CompanyProfile,
        DataSet::AnalystTargetPrice,
        DataSet::AnalystRating,
        DataSet::Earnings,
        DataSet::CapitalFlow,
        DataSet::FundBrief,
        DataSet::FundHolding,
        DataSet::FundRating,
        DataSet::FundFile,
        DataSet::FundAllocation,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            DataSet::CompanyProfile => "company_profile",
            DataSet::AnalystTargetPrice => "analyst_target_price",
            DataSet::AnalystRating => "analyst_rating",
            DataSet::Earnings => "earnings",
            DataSet::CapitalFlow => "capital_flow",
            DataSet::FundBrief => "fund_brief",
            DataSet::FundHolding => "fund_holding",
            DataSet::FundRating => "fund_rating",
            DataSet::FundFile => "fund_file",
            DataSet::FundAllocation => "fund_allocation",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

/// Imported from a file, or generated for the demo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordSource {
    Imported,
    Generated,
}

impl RecordSource {
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordSource::Imported => "IMPORTED",
            RecordSource::Generated => "GENERATED",
        }
    }
}

/// `company_profile`: what the instrument list does not say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileRecord {
    pub establish_date: Option<String>,
    pub profile: Option<String>,
    pub employees: Option<u64>,
    pub address: Option<String>,
    pub ceo: Option<String>,
}

/// `analyst_target_price`: the consensus on `date`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetPriceRecord {
    pub date: String,
    pub mean: Decimal,
    pub low: Decimal,
    pub high: Decimal,
    pub median: Decimal,
}

/// `analyst_rating`: analysts by grade on `date`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingRecord {
    pub date: String,
    pub strong_buy: u32,
    pub buy: u32,
    pub hold: u32,
    pub sell: u32,
    pub under_perform: u32,
}

/// `earnings`: one fiscal quarter's report, expected or published. Actuals given here are used
/// only when the company has no SEC facts for the quarter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EarningsRecord {
    pub fiscal_year: i32,
    /// `Q1` to `Q4`.
    pub fiscal_period: String,
    pub end_date: String,
    /// The publication day, expected or actual.
    pub publish_date: String,
    #[serde(default)]
    pub eps_est: Option<Decimal>,
    #[serde(default)]
    pub rev_est: Option<Decimal>,
    #[serde(default)]
    pub eps_actual: Option<Decimal>,
    #[serde(default)]
    pub rev_actual: Option<Decimal>,
}

/// `capital_flow`: one day's money in and out by order size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapitalFlowRecord {
    pub date: String,
    pub large_in: Decimal,
    pub large_out: Decimal,
    pub medium_in: Decimal,
    pub medium_out: Decimal,
    pub small_in: Decimal,
    pub small_out: Decimal,
}

/// `fund_brief`: a fund's standing facts (its name comes from the instrument list).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FundBriefRecord {
    pub launch_date: Option<String>,
    pub benchmark: Option<String>,
    pub investment_objective: Option<String>,
    #[serde(default)]
    pub aum: Option<Decimal>,
    pub issuer: Option<String>,
    pub custodian: Option<String>,
    #[serde(default)]
    pub managers: Vec<FundManager>,
}

/// `fund_holding`: one position of a fund's portfolio; the weights of a fund sum to 100.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FundHoldingRecord {
    pub target_symbol: String,
    pub stock_name: String,
    pub share_held_pct: Decimal,
    #[serde(default)]
    pub share_held_chg_pct: Option<Decimal>,
    #[serde(default)]
    pub maturity_date: Option<String>,
    pub update_date: String,
}

/// The record type of one data set, to read records back typed.
pub trait RecordKind: Sized {
    const DATA_SET: DataSet;
    fn from_record(record: Record) -> Option<Self>;
}

/// [`Record`], one variant per data set, and what only dispatches on the variant.
macro_rules! records {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        /// One record of one data set.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Record {
            $($variant($ty)),*
        }

        $(impl RecordKind for $ty {
            const DATA_SET: DataSet = DataSet::$variant;
            fn from_record(record: Record) -> Option<Self> {
                match record {
                    Record::$variant(r) => Some(r),
                    _ => None,
                }
            }
        })*

        impl Record {
            pub fn data_set(&self) -> DataSet {
                match self {
                    $(Record::$variant(_) => DataSet::$variant),*
                }
            }

            /// The record as stored: its `data` object.
            pub fn payload(&self) -> String {
                match self {
                    $(Record::$variant(r) => serde_json::to_string(r)),*
                }
                .expect("records serialize")
            }

            /// A `data` object of `data_set`, as serde reads it (unchecked).
            fn decode(data_set: DataSet, data: serde_json::Value) -> Result<Record, LayoutError> {
                let invalid = |e: serde_json::Error| LayoutError::new("data", 0, e.to_string());
                Ok(match data_set {
                    $(DataSet::$variant => Record::$variant(serde_json::from_value(data).map_err(invalid)?)),*
                })
            }
        }
    };
}

records!(
    CompanyProfile(ProfileRecord),
    AnalystTargetPrice(TargetPriceRecord),
    AnalystRating(RatingRecord),
    Earnings(EarningsRecord),
    CapitalFlow(CapitalFlowRecord),
    FundBrief(FundBriefRecord),
    FundHolding(FundHoldingRecord),
    FundRating(FundRating),
    FundFile(FundFile),
    FundAllocation(FundAllocation),
);

/// A record for an instrument, as a parser hands it to the store.
#[derive(Debug, Clone, PartialEq)]
pub struct SymbolRecord {
    pub symbol: String,
    pub record: Record,
    pub source: RecordSource,
}

/// A line of the layout.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    symbol: String,
    data_set: String,
    data: serde_json::Value,
}

impl Record {
    /// What identifies the record among its instrument's records of the same data set: a new
    /// record with the same key replaces the old one. Keys sort in date order.
    pub fn key(&self) -> String {
        match self {
            Record::CompanyProfile(_) | Record::FundBrief(_) => String::new(),
            Record::AnalystTargetPrice(r) => r.date.clone(),
            Record::AnalystRating(r) => r.date.clone(),
            Record::Earnings(r) => format!("{:04}{}", r.fiscal_year, r.fiscal_period),
            Record::CapitalFlow(r) => r.date.clone(),
            Record::FundHolding(r) => r.target_symbol.clone(),
            Record::FundRating(r) => format!("{}|{}|{}", r.rating_date, r.rating_agency, r.rating_cycle),
            Record::FundFile(r) => format!("{}|{}", r.publish_date, r.file_name),
            Record::FundAllocation(r) => r.date.clone(),
        }
    }

    /// A stored or imported `data` object of `data_set`, checked.
    pub fn from_data(data_set: DataSet, data: serde_json::Value) -> Result<Record, LayoutError> {
        let record = Record::decode(data_set, data)?;
        record.check()?;
        Ok(record)
    }

    /// Reads a stored payload back.
    pub fn from_payload(data_set: DataSet, payload: &str) -> Result<Record, LayoutError> {
        let data = serde_json::from_str(payload).map_err(|e| LayoutError::new("data", e.column(), e.to_string()))?;
        Record::from_data(data_set, data)
    }

    /// What serde cannot say: dates are dates, and figures are consistent.
    fn check(&self) -> Result<(), LayoutError> {
        let day = |name: &'static str, value: &str| {
            parse_day(value)
                .map(|_| ())
                .ok_or_else(|| LayoutError::new(name, 0, format!("{value:?} is not a YYYY-MM-DD date")))
        };
        let optional_day =
            |name: &'static str, value: &Option<String>| value.as_deref().map_or(Ok(()), |v| day(name, v));
        match self {
            Record::CompanyProfile(r) => optional_day("establish_date", &r.establish_date),
            Record::AnalystTargetPrice(r) => {
                day("date", &r.date)?;
                if r.low > r.high || !(r.low..=r.high).contains(&r.mean) || !(r.low..=r.high).contains(&r.median) {
                    return Err(LayoutError::new(
                        "mean",
                        0,
                        "mean and median must lie between low and high",
                    ));
                }
                Ok(())
            }
            Record::AnalystRating(r) => day("date", &r.date),
            Record::Earnings(r) => {
                if !matches!(r.fiscal_period.as_str(), "Q1" | "Q2" | "Q3" | "Q4") {
                    return Err(LayoutError::new(
                        "fiscal_period",
                        0,
                        format!("{:?} is not Q1 to Q4", r.fiscal_period),
                    ));
                }
                day("end_date", &r.end_date)?;
                day("publish_date", &r.publish_date)
            }
            Record::CapitalFlow(r) => day("date", &r.date),
            Record::FundBrief(r) => optional_day("launch_date", &r.launch_date),
            Record::FundHolding(r) => {
                day("update_date", &r.update_date)?;
                if r.share_held_pct.is_sign_negative() || r.share_held_pct > Decimal::ONE_HUNDRED {
                    return Err(LayoutError::new("share_held_pct", 0, "must be from 0 to 100"));
                }
                Ok(())
            }
            Record::FundRating(r) => day("rating_date", &r.rating_date),
            Record::FundFile(r) => day("publish_date", &r.publish_date),
            Record::FundAllocation(r) => day("date", &r.date),
        }
    }
}

/// What is wrong in a line: the field (or `data`), the column when JSON says, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutError {
    pub field: &'static str,
    pub column: usize,
    pub problem: String,
}

impl LayoutError {
    fn new(field: &'static str, column: usize, problem: impl Into<String>) -> Self {
        LayoutError {
            field,
            column,
            problem: problem.into(),
        }
    }
}

impl std::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

/// Parses one line of the layout.
pub fn parse_line(text: &str) -> Result<(String, Record), LayoutError> {
    let line: Line = serde_json::from_str(text).map_err(|e| LayoutError::new("", e.column(), e.to_string()))?;
    let data_set = DataSet::parse(&line.data_set).ok_or_else(|| {
        let names: Vec<&str> = DataSet::ALL.iter().map(|d| d.as_str()).collect();
        LayoutError::new(
            "data_set",
            0,
            format!("{:?} is not one of {}", line.data_set, names.join(", ")),
        )
    })?;
    let record = Record::from_data(data_set, line.data)?;
    Ok((line.symbol, record))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_and_bad_ones_say_why() {
        let (symbol, record) = parse_line(
            r#"{"symbol":"AAPL","data_set":"analyst_target_price","data":{"date":"2013-03-01","mean":"520","low":"400","high":"700","median":"510"}}"#,
        )
        .unwrap();
        assert_eq!(symbol, "AAPL");
        assert_eq!(record.key(), "2013-03-01");
        assert_eq!(
            Record::from_payload(DataSet::AnalystTargetPrice, &record.payload()).unwrap(),
            record
        );

        let bad = [
            (r#"{"symbol":"A","data_set":"gossip","data":{}}"#, "not one of"),
            (
                r#"{"symbol":"A","data_set":"analyst_rating","data":{"date":"2013-02-30","strong_buy":1,"buy":1,"hold":1,"sell":1,"under_perform":1}}"#,
                "not a YYYY-MM-DD",
            ),
            (
                r#"{"symbol":"A","data_set":"analyst_target_price","data":{"date":"2013-03-01","mean":"900","low":"400","high":"700","median":"510"}}"#,
                "between low and high",
            ),
            (
                r#"{"symbol":"A","data_set":"capital_flow","data":{"date":"2013-03-01","large_inn":"1"}}"#,
                "unknown field",
            ),
        ];
        for (line, expected) in bad {
            let error = parse_line(line).unwrap_err().to_string();
            assert!(error.contains(expected), "{line}: {error}");
        }
    }
}
