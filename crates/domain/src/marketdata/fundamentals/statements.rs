//! Financial statements from SEC facts, as first filed.
//!
//! A companyfacts file holds every value of every filing, comparatives included, tagged with the
//! fiscal year of the filing rather than of the value. So periods are recognised from their dates:
//! the company's fiscal year ends are the ends of its twelve-month facts, a quarter ends 3, 6 or
//! 9 months before one, and the fiscal year's label is taken from the 10-K that reported it.
//! A value is the one of the earliest filing that reported it (restatements are ignored); a
//! quarter that no filing reports alone (the fourth, and cash flows, which 10-Qs report year to
//! date) is the difference of two year-to-date values.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rust_decimal::Decimal;
use time::{Date, Month};

use crate::marketdata::Fact;
use crate::marketdata::units::{date_of, day_number, parse_day};

/// A line of a statement and the US GAAP concepts that report it, in order of preference.
pub struct Line {
    pub name: &'static str,
    pub concepts: &'static [&'static str],
    /// Reported as a positive payment, shown as an outflow.
    pub negate: bool,
}

const fn line(name: &'static str, concepts: &'static [&'static str]) -> Line {
    Line {
        name,
        concepts,
        negate: false,
    }
}

/// The concept-to-line mapping of every statement: the one place to extend.
pub const INCOME: &[Line] = &[
    line(
        "total_revenue",
        &[
            "Revenues",
            "RevenueFromContractWithCustomerExcludingAssessedTax",
            "RevenueFromContractWithCustomerIncludingAssessedTax",
            "SalesRevenueNet",
        ],
    ),
    line(
        "revenue",
        &[
            "RevenueFromContractWithCustomerExcludingAssessedTax",
            "RevenueFromContractWithCustomerIncludingAssessedTax",
            "SalesRevenueNet",
            "Revenues",
        ],
    ),
    line(
        "cost_of_revenue",
        &["CostOfRevenue", "CostOfGoodsAndServicesSold", "CostOfGoodsSold"],
    ),
    line("gross_profit", &["GrossProfit"]),
    line("opex", &["OperatingExpenses", "CostsAndExpenses"]),
    line("op_income", &["OperatingIncomeLoss"]),
    line(
        "ebt",
        &[
            "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
            "IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
        ],
    ),
    line("income_tax", &["IncomeTaxExpenseBenefit"]),
    line("net_income", &["NetIncomeLoss", "ProfitLoss"]),
    line(
        "diluted_eps_incl_extra",
        &["EarningsPerShareDiluted", "EarningsPerShareBasicAndDiluted"],
    ),
    line(
        "dps",
        &[
            "CommonStockDividendsPerShareDeclared",
            "CommonStockDividendsPerShareCashPaid",
        ],
    ),
];

pub const CASH_FLOW: &[Line] = &[
    line("cfo", &["NetCashProvidedByUsedInOperatingActivities"]),
    line("net_income", &["NetIncomeLoss", "ProfitLoss"]),
    line(
        "dna",
        &[
            "DepreciationDepletionAndAmortization",
            "DepreciationAmortizationAndAccretionNet",
            "DepreciationAndAmortization",
        ],
    ),
    line("cfi", &["NetCashProvidedByUsedInInvestingActivities"]),
    Line {
        name: "capex",
        concepts: &["PaymentsToAcquirePropertyPlantAndEquipment"],
        negate: true,
    },
    line("cff", &["NetCashProvidedByUsedInFinancingActivities"]),
    line(
        "net_change_cash",
        &[
            "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalentsPeriodIncreaseDecreaseIncludingExchangeRateEffect",
            "CashAndCashEquivalentsPeriodIncreaseDecrease",
        ],
    ),
    line("interest_paid", &["InterestPaidNet", "InterestPaid"]),
    line("taxes_paid", &["IncomeTaxesPaidNet", "IncomeTaxesPaid"]),
];

pub const BALANCE: &[Line] = &[
    line("total_assets", &["Assets"]),
    line("total_cur_assets", &["AssetsCurrent"]),
    line(
        "cash_st_invest",
        &[
            "CashCashEquivalentsAndShortTermInvestments",
            "CashAndCashEquivalentsAtCarryingValue",
        ],
    ),
    // Computed as total minus current assets when not reported: the `NoncurrentAssets` of
    // companyfacts is usually the geographic note's long-lived assets, not this line.
    line("total_non_cur_assets", &["AssetsNoncurrent"]),
    line("total_liab", &["Liabilities"]),
    line("total_cur_liab", &["LiabilitiesCurrent"]),
    line(
        "total_debt",
        &["LongTermDebt", "DebtInstrumentCarryingAmount", "LongTermDebtNoncurrent"],
    ),
    line(
        "total_equity",
        &[
            "StockholdersEquity",
            "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
        ],
    ),
    line("retained_earnings", &["RetainedEarningsAccumulatedDeficit"]),
    line("common_shares_out", &["CommonStockSharesOutstanding"]),
];

/// Every concept the statements read.
pub fn concepts() -> Vec<&'static str> {
    let all: BTreeSet<&str> = [INCOME, CASH_FLOW, BALANCE]
        .iter()
        .flat_map(|lines| lines.iter())
        .flat_map(|l| l.concepts.iter().copied())
        .collect();
    all.into_iter().collect()
}

/// The concepts of diluted EPS, the line trailing figures are made of.
pub fn eps_concepts() -> &'static [&'static str] {
    INCOME
        .iter()
        .find(|l| l.name == "diluted_eps_incl_extra")
        .map_or(&[], |l| l.concepts)
}

/// Trailing twelve-month diluted EPS: the sum of the latest four quarters, when they follow one
/// another.
pub fn eps_ttm(quarters: &[StatementRow]) -> Option<Decimal> {
    let latest: Vec<&StatementRow> = quarters.iter().take(4).collect();
    let consecutive = latest.len() == 4
        && latest.windows(2).all(|w| {
            let (a, b) = (w[0].period, w[1].period);
            (a.fiscal_year * 4 + i32::from(a.quarter)) - (b.fiscal_year * 4 + i32::from(b.quarter)) == 1
        });
    if !consecutive {
        return None;
    }
    // Checked: a filing's figures are not to be trusted (found by the companyfacts fuzz target).
    latest
        .iter()
        .map(|q| q.get("diluted_eps_incl_extra"))
        .try_fold(Decimal::ZERO, |sum, eps| sum.checked_add(eps?))
}

/// A fiscal period: a quarter (1 to 4) or the year (quarter 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Period {
    pub fiscal_year: i32,
    pub quarter: u8,
}

impl Period {
    pub fn label(self) -> &'static str {
        ["FY", "Q1", "Q2", "Q3", "Q4"][usize::from(self.quarter)]
    }
}

/// One period of one statement.
#[derive(Debug, Clone, PartialEq)]
pub struct StatementRow {
    pub period: Period,
    pub end_day: i32,
    pub publish_day: Option<i32>,
    pub values: BTreeMap<&'static str, Decimal>,
}

impl StatementRow {
    pub fn get(&self, name: &str) -> Option<Decimal> {
        self.values.get(name).copied()
    }
}

/// One concept's values: (start day, `None` for instants; end day) to (value, filed day) of the
/// earliest filing.
type Values = HashMap<(Option<i32>, i32), (Decimal, i32)>;

/// A company's facts, indexed for the statements.
pub struct Statements {
    calendar: Calendar,
    values: HashMap<String, Values>,
}

impl Statements {
    /// `None` when the facts give no fiscal year (no twelve-month value at all).
    pub fn new(facts: &[Fact]) -> Option<Self> {
        let calendar = Calendar::new(facts)?;
        let mut values: HashMap<String, Values> = HashMap::new();
        for fact in facts {
            let (Some(end), Some(filed)) = (fact_day(&fact.end), fact_day(&fact.filed)) else {
                continue;
            };
            let start = if fact.start.is_empty() {
                None
            } else {
                match fact_day(&fact.start) {
                    Some(s) => Some(s),
                    None => continue,
                }
            };
            let slot = values.entry(fact.concept.clone()).or_default().entry((start, end));
            slot.and_modify(|(value, first)| {
                if filed < *first {
                    (*value, *first) = (fact.value, filed);
                }
            })
            .or_insert((fact.value, filed));
        }
        Some(Statements { calendar, values })
    }

    /// The statement of `lines`, newest period first: quarters when `quarterly`, else years.
    pub fn rows(&self, lines: &[Line], instant: bool, quarterly: bool) -> Vec<StatementRow> {
        let mut rows: BTreeMap<Period, StatementRow> = BTreeMap::new();
        for line in lines {
            for concept in line.concepts {
                let Some(values) = self.values.get(*concept) else {
                    continue;
                };
                for (period, end_day, value, filed) in self.periods_of(values, instant, quarterly) {
                    let row = rows.entry(period).or_insert_with(|| StatementRow {
                        period,
                        end_day,
                        publish_day: None,
                        values: BTreeMap::new(),
                    });
                    if row.values.contains_key(line.name) {
                        continue;
                    }
                    row.values.insert(line.name, if line.negate { -value } else { value });
                    row.publish_day = Some(row.publish_day.map_or(filed, |p| p.min(filed)));
                }
            }
        }
        let mut rows: Vec<StatementRow> = rows.into_values().rev().collect();
        for row in &mut rows {
            complete(row);
        }
        rows
    }

    /// Every period of one concept's values with its value and filing day. A quarter reported
    /// alone wins over one computed from year-to-date values.
    fn periods_of(&self, values: &Values, instant: bool, quarterly: bool) -> Vec<(Period, i32, Decimal, i32)> {
        let mut out: BTreeMap<Period, (i32, Decimal, i32, bool)> = BTreeMap::new();
        for (&(start, end), &(value, filed)) in values {
            if instant != start.is_none() {
                continue;
            }
            let Some((fiscal_year, quarter)) = self.calendar.label_end(end) else {
                continue;
            };
            let (period, value, filed, direct) = match start {
                None if quarterly => (Period { fiscal_year, quarter }, value, filed, true),
                None if quarter == 4 => (
                    Period {
                        fiscal_year,
                        quarter: 0,
                    },
                    value,
                    filed,
                    true,
                ),
                None => continue,
                Some(start) => {
                    let months = months_between(start, end);
                    if !quarterly {
                        if months != 12 || quarter != 4 {
                            continue;
                        }
                        (
                            Period {
                                fiscal_year,
                                quarter: 0,
                            },
                            value,
                            filed,
                            true,
                        )
                    } else if months == 3 {
                        (Period { fiscal_year, quarter }, value, filed, true)
                    } else if months == 3 * i32::from(quarter) {
                        // Year to date: minus the year to date of the quarter before.
                        let previous = shift_months(end, -3);
                        let Some((v, f)) = values
                            .iter()
                            .find_map(|(&(s, e), &vf)| (s == Some(start) && e.abs_diff(previous) <= 7).then_some(vf))
                        else {
                            continue;
                        };
                        let Some(quarter_value) = value.checked_sub(v) else {
                            continue;
                        };
                        (Period { fiscal_year, quarter }, quarter_value, filed.max(f), false)
                    } else {
                        continue;
                    }
                }
            };
            match out.get(&period) {
                Some(&(.., existing_direct)) if existing_direct || !direct => {}
                _ => {
                    out.insert(period, (end, value, filed, direct));
                }
            }
        }
        out.into_iter()
            .map(|(period, (end, value, filed, _))| (period, end, value, filed))
            .collect()
    }
}

/// Lines computed from others when not reported.
fn complete(row: &mut StatementRow) {
    let derived = [
        ("gross_profit", "total_revenue", "cost_of_revenue"),
        ("total_non_cur_assets", "total_assets", "total_cur_assets"),
    ];
    for (name, a, b) in derived {
        if !row.values.contains_key(name)
            && let (Some(a), Some(b)) = (row.get(a), row.get(b))
            && let Some(difference) = a.checked_sub(b)
        {
            row.values.insert(name, difference);
        }
    }
}

/// Whole months between two days, rounded (a quarter is 3 whatever its days).
#[expect(clippy::cast_possible_truncation, reason = "days between two i32 days, over 30")]
fn months_between(start: i32, end: i32) -> i32 {
    ((f64::from(end - start + 1)) / 30.44).round() as i32
}

/// A company's fiscal year ends, and how its fiscal years are named.
struct Calendar {
    year_ends: Vec<i32>,
    /// Fiscal year minus the calendar year of its end.
    label_offset: i32,
}

impl Calendar {
    fn new(facts: &[Fact]) -> Option<Calendar> {
        let mut year_ends = BTreeSet::new();
        // The latest end of each filing: the period it reports (the rest are comparatives).
        let mut filing_end: HashMap<&str, i32> = HashMap::new();
        for fact in facts {
            let Some(end) = fact_day(&fact.end) else { continue };
            let e = filing_end.entry(&fact.accn).or_insert(end);
            *e = (*e).max(end);
            if let Some(start) = fact_day(&fact.start)
                && months_between(start, end) == 12
            {
                year_ends.insert(end);
            }
        }
        if year_ends.is_empty() {
            return None;
        }
        // A 10-K's fiscal year names the year it reports: the year whose end is its latest date.
        let label_offset = facts
            .iter()
            .filter(|f| f.form.starts_with("10-K") && f.fp.as_deref() == Some("FY"))
            .find_map(|f| {
                let end = fact_day(&f.end)?;
                let reported = year_ends.contains(&end) && filing_end.get(f.accn.as_str()) == Some(&end);
                if reported {
                    // Named after the calendar year the fiscal year ends in, or one next to it: an
                    // offset beyond that is no label (and would overflow the years it names).
                    f.fy?
                        .checked_sub(date_of(end).year())
                        .filter(|offset| (-1..=1).contains(offset))
                } else {
                    None
                }
            })
            .unwrap_or(0);
        // Fiscal year ends move by a few days (52/53-week years): keep one per year.
        let mut ends: Vec<i32> = Vec::new();
        for end in year_ends {
            if ends.last().is_none_or(|&last| end - last > 300) {
                ends.push(end);
            }
        }
        Some(Calendar {
            year_ends: ends,
            label_offset,
        })
    }

    /// The fiscal year end at or after `day`, extrapolating a year at a time past the known ones.
    fn year_end_after(&self, day: i32) -> i32 {
        if let Some(&end) = self.year_ends.iter().find(|&&e| e >= day - 7) {
            return end;
        }
        let mut end = *self.year_ends.last().expect("at least one year end");
        while end < day - 7 {
            end = shift_year(end, 1);
        }
        end
    }

    /// The fiscal year and quarter (1 to 4) that end on `day`, if any do.
    fn label_end(&self, day: i32) -> Option<(i32, u8)> {
        if day < self.year_ends[0] - 370 {
            // Before the first known fiscal year: extrapolate backwards.
            let mut end = self.year_ends[0];
            while end - 370 > day {
                end = shift_year(end, -1);
            }
            return self.quarter_of(day, end);
        }
        self.quarter_of(day, self.year_end_after(day))
    }

    #[expect(clippy::cast_possible_truncation, reason = "months of i32 days; a quarter is 1 to 4")]
    fn quarter_of(&self, day: i32, year_end: i32) -> Option<(i32, u8)> {
        let months_before = (f64::from(year_end - day) / 30.44).round() as i32;
        if !(0..=9).contains(&months_before) || months_before % 3 != 0 {
            return None;
        }
        // The quarter must end near the month end the year end implies (within a week).
        if shift_months(year_end, -months_before).abs_diff(day) > 7 {
            return None;
        }
        Some((
            date_of(year_end).year() + self.label_offset,
            4 - (months_before / 3) as u8,
        ))
    }
}

/// A fact's date, within the years a filing can name: a calendar extrapolated from a date near
/// year 9999 would step past the last date there is (found by the companyfacts fuzz target).
fn fact_day(text: &str) -> Option<i32> {
    parse_day(text).filter(|&day| (1900..=2199).contains(&date_of(day).year()))
}

fn shift_year(day: i32, years: i32) -> i32 {
    shift_months(day, 12 * years)
}

/// The same day `months` later, at the month's end when `day` is a month end (Jan 31 + 3 months
/// is Apr 30).
pub(super) fn shift_months(day: i32, months: i32) -> i32 {
    let date = date_of(day);
    let month_end = date.day() == date.month().length(date.year());
    let index = date.year() * 12 + i32::from(u8::from(date.month())) - 1 + months;
    let (year, month) = (
        index.div_euclid(12),
        u8::try_from(index.rem_euclid(12) + 1)
            .ok()
            .and_then(|m| Month::try_from(m).ok())
            .expect("1..=12"),
    );
    let length = month.length(year);
    let d = if month_end { length } else { date.day().min(length) };
    day_number(Date::from_calendar_date(year, month, d).expect("a valid day"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::format_day;

    /// A fact of `concept` over `start..=end` (`start` empty for an instant), filed in
    /// (form, fiscal year, fiscal period, filed day).
    fn fact(
        concept: &str,
        (start, end): (&str, &str),
        value: i64,
        (form, fy, fp, filed): (&str, i32, &str, &str),
    ) -> Fact {
        Fact {
            cik: "1".into(),
            taxonomy: "us-gaap".into(),
            concept: concept.into(),
            unit: "USD".into(),
            start: start.into(),
            end: end.into(),
            accn: format!("{form}-{filed}"),
            value: Decimal::from(value),
            fy: Some(fy),
            fp: Some(fp.into()),
            form: form.into(),
            filed: filed.into(),
            frame: None,
        }
    }

    #[test]
    fn months_shift_to_month_ends() {
        let d = |s| parse_day(s).unwrap();
        assert_eq!(format_day(shift_months(d("2025-01-31"), -3)), "2024-10-31");
        assert_eq!(format_day(shift_months(d("2025-01-31"), -9)), "2024-04-30");
        assert_eq!(format_day(shift_months(d("2024-02-29"), 12)), "2025-02-28");
        assert_eq!(format_day(shift_months(d("2024-09-28"), -3)), "2024-06-28");
    }

    #[test]
    fn quarters_come_from_year_to_date_differences() {
        // A fiscal year ending January 31, named after the calendar year it ends in.
        let facts = vec![
            fact(
                "NetIncomeLoss",
                ("2024-02-01", "2025-01-31"),
                100,
                ("10-K", 2025, "FY", "2025-03-20"),
            ),
            fact(
                "NetIncomeLoss",
                ("2024-02-01", "2024-10-31"),
                60,
                ("10-Q", 2025, "Q3", "2024-12-01"),
            ),
            fact(
                "NetIncomeLoss",
                ("2024-08-01", "2024-10-31"),
                25,
                ("10-Q", 2025, "Q3", "2024-12-01"),
            ),
            fact(
                "NetIncomeLoss",
                ("2024-02-01", "2024-07-31"),
                35,
                ("10-Q", 2025, "Q2", "2024-09-01"),
            ),
            fact(
                "NetIncomeLoss",
                ("2024-05-01", "2024-07-31"),
                20,
                ("10-Q", 2025, "Q2", "2024-09-01"),
            ),
            fact(
                "NetIncomeLoss",
                ("2024-02-01", "2024-04-30"),
                15,
                ("10-Q", 2025, "Q1", "2024-06-01"),
            ),
            // A later restatement of Q1 is ignored: statements are as first filed.
            fact(
                "NetIncomeLoss",
                ("2024-02-01", "2024-04-30"),
                99,
                ("10-Q", 2026, "Q1", "2025-06-01"),
            ),
            fact("Assets", ("", "2025-01-31"), 1000, ("10-K", 2025, "FY", "2025-03-20")),
            fact("Assets", ("", "2024-10-31"), 900, ("10-Q", 2025, "Q3", "2024-12-01")),
        ];
        let statements = Statements::new(&facts).unwrap();
        let quarters = statements.rows(INCOME, false, true);
        let got: Vec<(String, String, Decimal)> = quarters
            .iter()
            .map(|r| {
                (
                    format!("{}{}", r.period.fiscal_year, r.period.label()),
                    format_day(r.end_day),
                    r.get("net_income").unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("2025Q4".into(), "2025-01-31".into(), Decimal::from(40)),
                ("2025Q3".into(), "2024-10-31".into(), Decimal::from(25)),
                ("2025Q2".into(), "2024-07-31".into(), Decimal::from(20)),
                ("2025Q1".into(), "2024-04-30".into(), Decimal::from(15)),
            ]
        );
        assert_eq!(quarters[3].publish_day, parse_day("2024-06-01"));
        let years = statements.rows(INCOME, false, false);
        assert_eq!(years.len(), 1);
        assert_eq!(
            (years[0].period.label(), years[0].get("net_income")),
            ("FY", Some(Decimal::from(100)))
        );
        let balance = statements.rows(BALANCE, true, true);
        assert_eq!(balance.len(), 2);
        assert_eq!(
            balance[0].period,
            Period {
                fiscal_year: 2025,
                quarter: 4
            }
        );
        assert_eq!(
            statements.rows(BALANCE, true, false)[0].get("total_assets"),
            Some(Decimal::from(1000))
        );
    }
}
