//! Quarterly earnings, reported and expected: SEC facts for what was reported, `earnings`
//! records for the estimates (and for actuals where a company has no facts). Forecast EPS, the
//! earnings calendar and the financial alert are three views of it.

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use super::layout::EarningsRecord;
use super::statements::{Period, StatementRow};
use crate::marketdata::units::parse_day;

#[derive(Debug, Clone, PartialEq)]
pub struct Quarter {
    pub period: Period,
    pub end_day: i32,
    /// Published, or expected to be.
    pub publish_day: Option<i32>,
    pub eps_actual: Option<Decimal>,
    pub rev_actual: Option<Decimal>,
    pub eps_est: Option<Decimal>,
    pub rev_est: Option<Decimal>,
}

impl Quarter {
    pub fn reported(&self) -> bool {
        self.eps_actual.is_some() || self.rev_actual.is_some()
    }
}

/// The quarters of both sources, oldest first; facts win for actuals.
pub fn merge(income_quarters: &[StatementRow], records: &[EarningsRecord]) -> Vec<Quarter> {
    let mut quarters: BTreeMap<Period, Quarter> = BTreeMap::new();
    for record in records {
        let Some(end_day) = parse_day(&record.end_date) else {
            continue;
        };
        let quarter = record.fiscal_period[1..].parse().unwrap_or(0);
        let period = Period {
            fiscal_year: record.fiscal_year,
            quarter,
        };
        quarters.insert(
            period,
            Quarter {
                period,
                end_day,
                publish_day: parse_day(&record.publish_date),
                eps_actual: record.eps_actual,
                rev_actual: record.rev_actual,
                eps_est: record.eps_est,
                rev_est: record.rev_est,
            },
        );
    }
    for row in income_quarters {
        let eps = row.get("diluted_eps_incl_extra");
        let revenue = row.get("total_revenue");
        if eps.is_none() && revenue.is_none() {
            continue;
        }
        let entry = quarters.entry(row.period).or_insert_with(|| Quarter {
            period: row.period,
            end_day: row.end_day,
            publish_day: None,
            eps_actual: None,
            rev_actual: None,
            eps_est: None,
            rev_est: None,
        });
        entry.end_day = row.end_day;
        entry.publish_day = row.publish_day.or(entry.publish_day);
        entry.eps_actual = eps;
        entry.rev_actual = revenue;
    }
    quarters.into_values().collect()
}

/// The last four reported quarters and the next expected one, oldest first.
pub fn forecast(quarters: &[Quarter]) -> Vec<&Quarter> {
    let reported: Vec<&Quarter> = quarters.iter().filter(|q| q.reported()).collect();
    let mut out: Vec<&Quarter> = reported[reported.len().saturating_sub(4)..].to_vec();
    let last = out.last().map(|q| q.period);
    if let Some(next) = quarters
        .iter()
        .find(|q| !q.reported() && q.eps_est.is_some() && last.is_none_or(|l| q.period > l))
    {
        out.push(next);
    }
    out
}

/// Reports published or expected within `half_window` days of `today`, oldest first.
pub fn calendar(quarters: &[Quarter], today: i32, half_window: i32) -> Vec<&Quarter> {
    quarters
        .iter()
        .filter(|q| {
            q.publish_day
                .is_some_and(|d| d.abs_diff(today) <= half_window.unsigned_abs())
        })
        .collect()
}

/// The next quarter to be reported, and the same quarter a year before.
pub fn next_with_last_year(quarters: &[Quarter]) -> Option<(&Quarter, Option<&Quarter>, Option<i32>)> {
    let last_reported = quarters.iter().rposition(Quarter::reported);
    let next_index = match last_reported {
        Some(i) => quarters.iter().skip(i + 1).position(|q| !q.reported())? + i + 1,
        None => quarters.iter().position(|q| !q.reported())?,
    };
    let next = &quarters[next_index];
    let year_before = quarters.iter().find(|q| {
        q.period
            == Period {
                fiscal_year: next.period.fiscal_year - 1,
                quarter: next.period.quarter,
            }
    });
    let previous_end = next_index.checked_sub(1).map(|i| quarters[i].end_day);
    Some((next, year_before, previous_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(fy: i32, q: &str, end: &str, eps_est: &str, eps_actual: Option<&str>) -> EarningsRecord {
        EarningsRecord {
            fiscal_year: fy,
            fiscal_period: q.into(),
            end_date: end.into(),
            publish_date: end.into(),
            eps_est: Some(eps_est.parse().unwrap()),
            rev_est: None,
            eps_actual: eps_actual.map(|a| a.parse().unwrap()),
            rev_actual: None,
        }
    }

    #[test]
    fn views_of_the_quarters() {
        let records = vec![
            record(2012, "Q1", "2012-03-31", "1.0", Some("1.1")),
            record(2012, "Q2", "2012-06-30", "1.0", Some("0.9")),
            record(2012, "Q3", "2012-09-30", "1.0", Some("1.2")),
            record(2012, "Q4", "2012-12-31", "1.0", Some("1.3")),
            record(2013, "Q1", "2013-03-31", "1.25", None),
            record(2011, "Q1", "2011-03-31", "0.8", Some("0.7")),
        ];
        let quarters = merge(&[], &records);
        let forecast = forecast(&quarters);
        assert_eq!(forecast.len(), 5);
        assert_eq!(
            forecast[0].period,
            Period {
                fiscal_year: 2012,
                quarter: 1
            }
        );
        assert!(!forecast[4].reported());
        let (next, year_before, previous_end) = next_with_last_year(&quarters).unwrap();
        assert_eq!(
            next.period,
            Period {
                fiscal_year: 2013,
                quarter: 1
            }
        );
        assert_eq!(year_before.unwrap().eps_actual, Some("1.1".parse().unwrap()));
        assert_eq!(previous_end, parse_day("2012-12-31"));
        let today = parse_day("2013-02-01").unwrap();
        let around: Vec<_> = calendar(&quarters, today, 182)
            .iter()
            .map(|q| q.period.quarter)
            .collect();
        assert_eq!(around, [3, 4, 1]);
    }
}
