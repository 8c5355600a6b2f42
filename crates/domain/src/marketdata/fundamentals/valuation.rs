//! Figures that compare a company with itself and with its industry: a period's indicators
//! (margins, returns, growth), a company's book figures from its latest statements, and the
//! industry comparison's ranking of peers on one metric.

use std::cmp::Ordering;

use rust_decimal::Decimal;
use signet_model::fundamentals::ComparisonMetric;

use super::Peer;
use super::statements::{self, BALANCE, INCOME, StatementRow, Statements};
use crate::marketdata::units::from_micros;

/// The industry comparison's length, the target included.
pub const PEERS: usize = 20;

/// Indicators of one period from its income statement, the balance sheet at its end, and the
/// income statement of the same period a year before. Ratios to 4 places; per-period (a
/// quarter's ROE is the quarter's income over the equity at its end, not annualized).
pub fn indicators(
    income: &StatementRow,
    balance: Option<&StatementRow>,
    year_before: Option<&StatementRow>,
) -> [(&'static str, Option<Decimal>); 10] {
    let div = |a: Option<Decimal>, b: Option<Decimal>| match (a, b) {
        (Some(a), Some(b)) if !b.is_zero() => Some((a / b).round_dp(4)),
        _ => None,
    };
    let growth = |name: &str| {
        div(income.get(name), year_before.and_then(|y| y.get(name)))
            .map(|r| r - Decimal::ONE)
            .filter(|_| {
                year_before
                    .and_then(|y| y.get(name))
                    .is_some_and(|v| v.is_sign_positive())
            })
    };
    let b = |name: &str| balance.and_then(|b| b.get(name));
    let revenue = income.get("total_revenue");
    [
        ("gross_margin", div(income.get("gross_profit"), revenue)),
        ("operating_margin", div(income.get("op_income"), revenue)),
        ("net_margin", div(income.get("net_income"), revenue)),
        ("roe", div(income.get("net_income"), b("total_equity"))),
        ("roa", div(income.get("net_income"), b("total_assets"))),
        ("debt_to_assets", div(b("total_liab"), b("total_assets"))),
        ("current_ratio", div(b("total_cur_assets"), b("total_cur_liab"))),
        ("eps", income.get("diluted_eps_incl_extra")),
        ("revenue_growth", growth("total_revenue")),
        ("net_income_growth", growth("net_income")),
    ]
}

/// What the comparison needs from a company's statements.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Book {
    pub eps_ttm: Option<Decimal>,
    /// Net assets per share.
    pub naps: Option<Decimal>,
    pub roe: Option<Decimal>,
    pub debt_to_assets: Option<Decimal>,
    pub net_margin: Option<Decimal>,
}

impl Book {
    /// From the latest annual statements (and the latest four quarters for EPS); the shares
    /// outstanding from the balance sheet, or `shares` when it has none.
    pub fn of(st: &Statements, shares: Option<i64>) -> Book {
        let quarters = st.rows(INCOME, false, true);
        let years = st.rows(INCOME, false, false);
        let balance = st.rows(BALANCE, true, false);
        let (year, end) = (years.first(), balance.first());
        let values = year.map(|y| indicators(y, end, None));
        let find = |name: &str| values.as_ref().and_then(|v| v.iter().find(|(n, _)| *n == name)?.1);
        let equity = end.and_then(|b| b.get("total_equity"));
        let shares = end
            .and_then(|b| b.get("common_shares_out"))
            .or(shares.map(Decimal::from));
        Book {
            eps_ttm: statements::eps_ttm(&quarters),
            naps: match (equity, shares) {
                (Some(e), Some(s)) if !s.is_zero() => Some((e / s).round_dp(4)),
                _ => None,
            },
            roe: find("roe"),
            debt_to_assets: find("debt_to_assets"),
            net_margin: find("net_margin"),
        }
    }
}

/// A peer's value of `metric`, to 4 places: trailing figures from the snapshot, book figures
/// from its statements (when the company has SEC facts).
pub fn peer_value(peer: &Peer, metric: ComparisonMetric, book: Option<&Book>) -> Option<Decimal> {
    let micros = |v: Option<i64>| v.map(from_micros);
    let float = |v: Option<f64>| v.and_then(|f| Decimal::try_from(f).ok()).map(|d| d.round_dp(4));
    match metric {
        ComparisonMetric::EpsTtm => book.and_then(|b| b.eps_ttm).or_else(|| micros(peer.eps_ttm_e6)),
        ComparisonMetric::PeTtm => float(peer.pe_ttm),
        ComparisonMetric::DpsTtm => micros(peer.dividend_e6),
        ComparisonMetric::DivYieldTtm => float(peer.dividend_yield),
        ComparisonMetric::Naps => book.and_then(|b| b.naps),
        ComparisonMetric::Roe => book.and_then(|b| b.roe),
        ComparisonMetric::DebtToAssets => book.and_then(|b| b.debt_to_assets),
        ComparisonMetric::NetMargin => book.and_then(|b| b.net_margin),
        ComparisonMetric::PbRatio => {
            let naps = book
                .and_then(|b| b.naps)
                .filter(|n| n.is_sign_positive() && !n.is_zero())?;
            Some((micros(peer.price_e6)? / naps).round_dp(4))
        }
    }
    .map(|d| d.round_dp(4))
}

/// A peer as the comparison lists it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked<'a> {
    pub peer: &'a Peer,
    /// Its place over the whole industry, from 1.
    pub rank: u32,
    pub value: Option<Decimal>,
}

/// Ranks the industry's peers on their values (highest first, unknown values last, ties by
/// symbol) and lists the first [`PEERS`], the target (`target_id`) always among them: when it
/// ranks lower, it takes the last place of the list, with its own rank.
pub fn compare(mut values: Vec<(&Peer, Option<Decimal>)>, target_id: i64) -> Vec<Ranked<'_>> {
    values.sort_by(|(a, x), (b, y)| match (x, y) {
        (Some(x), Some(y)) => y.cmp(x).then_with(|| a.symbol.cmp(&b.symbol)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.symbol.cmp(&b.symbol),
    });
    let target_rank = values.iter().position(|(peer, _)| peer.instrument_id == target_id);
    let mut listed = Vec::new();
    for (index, (peer, value)) in values.into_iter().enumerate() {
        let room = listed.len() < PEERS - usize::from(target_rank.is_some_and(|t| t > index));
        if room || Some(index) == target_rank {
            listed.push(Ranked {
                peer,
                rank: u32::try_from(index + 1).unwrap_or(u32::MAX),
                value,
            });
        }
    }
    listed
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;
    use crate::marketdata::fundamentals::statements::Period;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn row(fiscal_year: i32, values: &[(&'static str, &str)]) -> StatementRow {
        StatementRow {
            period: Period {
                fiscal_year,
                quarter: 0,
            },
            end_day: 0,
            publish_day: None,
            values: values.iter().map(|(k, v)| (*k, d(v))).collect::<BTreeMap<_, _>>(),
        }
    }

    fn peer(instrument_id: i64, symbol: &str) -> Peer {
        Peer {
            instrument_id,
            symbol: symbol.into(),
            name: symbol.into(),
            cik: None,
            eps_ttm_e6: None,
            shares_outstanding: None,
            price_e6: None,
            pe_ttm: None,
            dividend_e6: None,
            dividend_yield: None,
            day: None,
            has_facts: false,
        }
    }

    fn value(indicators: &[(&str, Option<Decimal>)], name: &str) -> Option<Decimal> {
        indicators.iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn indicators_are_ratios_of_the_period_and_growth_over_the_year_before() {
        let income = row(
            2025,
            &[("total_revenue", "300"), ("gross_profit", "100"), ("net_income", "30")],
        );
        let balance = row(2025, &[("total_equity", "90"), ("total_assets", "0")]);
        let before = row(2024, &[("total_revenue", "200"), ("net_income", "-10")]);
        let values = indicators(&income, Some(&balance), Some(&before));
        assert_eq!(value(&values, "gross_margin"), Some(d("0.3333")));
        assert_eq!(value(&values, "roe"), Some(d("0.3333")));
        assert_eq!(value(&values, "roa"), None, "no ratio over zero");
        assert_eq!(value(&values, "revenue_growth"), Some(d("0.5")));
        assert_eq!(value(&values, "net_income_growth"), None, "no growth from a loss");
        assert_eq!(value(&values, "operating_margin"), None);
    }

    #[test]
    fn trailing_figures_come_from_the_snapshot_and_book_figures_from_the_statements() {
        let p = Peer {
            price_e6: Some(50_000_000),
            eps_ttm_e6: Some(2_500_000),
            pe_ttm: Some(20.123456),
            ..peer(1, "A")
        };
        let book = Book {
            naps: Some(d("12.5")),
            ..Book::default()
        };
        assert_eq!(peer_value(&p, ComparisonMetric::EpsTtm, None), Some(d("2.5")));
        assert_eq!(peer_value(&p, ComparisonMetric::PeTtm, None), Some(d("20.1235")));
        assert_eq!(peer_value(&p, ComparisonMetric::PbRatio, Some(&book)), Some(d("4")));
        assert_eq!(peer_value(&p, ComparisonMetric::PbRatio, None), None);
        let negative = Book {
            naps: Some(d("-1")),
            ..Book::default()
        };
        assert_eq!(peer_value(&p, ComparisonMetric::PbRatio, Some(&negative)), None);
        let reported = Book {
            eps_ttm: Some(d("3")),
            ..Book::default()
        };
        assert_eq!(peer_value(&p, ComparisonMetric::EpsTtm, Some(&reported)), Some(d("3")));
    }

    #[test]
    fn peers_rank_highest_first_unknown_last_ties_by_symbol() {
        let peers = [peer(1, "C"), peer(2, "A"), peer(3, "B"), peer(4, "D")];
        let values = vec![
            (&peers[0], Some(d("1"))),
            (&peers[1], None),
            (&peers[2], Some(d("1"))),
            (&peers[3], Some(d("5"))),
        ];
        let listed: Vec<(&str, u32)> = compare(values, 2)
            .iter()
            .map(|r| (r.peer.symbol.as_str(), r.rank))
            .collect();
        assert_eq!(listed, [("D", 1), ("B", 2), ("C", 3), ("A", 4)]);
    }

    #[test]
    fn a_target_ranked_below_the_list_takes_its_last_place() {
        let peers: Vec<Peer> = (0..30).map(|i| peer(i, &format!("S{i:02}"))).collect();
        let values = peers
            .iter()
            .map(|p| (p, Some(Decimal::from(100 - p.instrument_id))))
            .collect();
        let listed = compare(values, 25);
        assert_eq!(listed.len(), PEERS);
        assert_eq!(listed[PEERS - 2].rank, 19);
        assert_eq!((listed[PEERS - 1].peer.instrument_id, listed[PEERS - 1].rank), (25, 26));
    }

    proptest! {
        /// The list is at most [`PEERS`] long, in rank order, and holds the target when it is
        /// a peer.
        #[test]
        fn the_list_is_short_ordered_and_holds_the_target(
            values in prop::collection::vec(prop::option::of(-50i64..50), 0..45),
            target in 0i64..50,
        ) {
            let peers: Vec<Peer> = (0..values.len() as i64).map(|i| peer(i, &format!("S{i:02}"))).collect();
            let listed = compare(
                peers.iter().zip(&values).map(|(p, v)| (p, v.map(Decimal::from))).collect(),
                target,
            );
            prop_assert!(listed.len() <= PEERS);
            prop_assert_eq!(listed.len(), peers.len().min(PEERS));
            prop_assert_eq!(listed.iter().any(|r| r.peer.instrument_id == target), usize::try_from(target).is_ok_and(|t| t < peers.len()));
            for pair in listed.windows(2) {
                prop_assert!(pair[0].rank < pair[1].rank);
                match (pair[0].value, pair[1].value) {
                    (Some(a), Some(b)) => prop_assert!(a >= b),
                    (None, Some(_)) => prop_assert!(false, "unknown values come last"),
                    _ => {}
                }
            }
        }
    }
}
