//! The per-instrument figures the screeners rank on, derived from daily bars, shares outstanding,
//! trailing EPS and dividends. Every definition is here, in one place:
//!
//! | figure | definition |
//! |---|---|
//! | price, close, open, high, low, volume | of the bar on the as-of day (price will follow the market simulator) |
//! | pre_close | close of the previous bar |
//! | change_ratio | price / pre_close − 1 |
//! | close_5d, _1m, _3m, _52w | close 5, 21, 63 and 252 bars before, adjusted for splits since |
//! | amplitude | (high − low) / pre_close |
//! | relative_volume_10d | volume / mean volume of the 10 bars before |
//! | turnover | volume × close, in dollars (no intraday prices to do better) |
//! | turnover_rate | volume / shares outstanding |
//! | market_value | price × shares outstanding |
//! | pe_ttm | price / trailing EPS, when EPS is positive |
//! | dividend, dividend_yield, ex_day | dividends with ex-dates in the 365 days to the as-of day, their sum / price, the last ex-date |
//! | high_52w, low_52w | highest high and lowest low of the bars in the 365 days to the as-of day, split-adjusted |

use super::{ActionKind, Bar, CorporateAction};

/// Calendar days in the trailing year.
pub const YEAR_DAYS: i32 = 365;
/// Bars back for the period changes.
const BARS_5D: usize = 5;
const BARS_1M: usize = 21;
const BARS_3M: usize = 63;
const BARS_52W: usize = 252;

/// What one instrument's snapshot is computed from: its bars of the trailing year and a little
/// more (oldest first, none after the as-of day), its corporate actions, and its size and EPS.
#[derive(Debug, Clone, Default)]
pub struct History {
    pub instrument_id: i64,
    pub bars: Vec<Bar>,
    pub actions: Vec<CorporateAction>,
    pub shares_outstanding: Option<i64>,
    pub eps_ttm_e6: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub instrument_id: i64,
    pub day: i32,
    pub price: i64,
    pub pre_close: i64,
    pub open: i64,
    pub high: i64,
    pub low: i64,
    pub close: i64,
    pub volume: i64,
    pub turnover: f64,
    pub change_ratio: f64,
    pub close_5d: Option<i64>,
    pub close_1m: Option<i64>,
    pub close_3m: Option<i64>,
    pub close_52w: Option<i64>,
    pub amplitude: f64,
    pub relative_volume_10d: Option<f64>,
    pub turnover_rate: Option<f64>,
    pub market_value: Option<f64>,
    pub pe_ttm: Option<f64>,
    pub dividend: Option<i64>,
    pub dividend_yield: Option<f64>,
    pub ex_day: Option<i32>,
    pub high_52w: i64,
    pub low_52w: i64,
}

/// What the figures are computed from: the as-of bar and what the history before it says,
/// split-adjusted to the as-of day. The store can summarize in bulk (SQL window queries);
/// [`summarize`] does the same from bars, for histories with splits.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub instrument_id: i64,
    pub last: Bar,
    pub pre_close: i64,
    pub close_5d: Option<i64>,
    pub close_1m: Option<i64>,
    pub close_3m: Option<i64>,
    pub close_52w: Option<i64>,
    /// Mean volume of the 10 bars before the last, when there are 10.
    pub mean_volume_10d: Option<f64>,
    pub high_52w: i64,
    pub low_52w: i64,
    pub dividend: Option<i64>,
    pub ex_day: Option<i32>,
    pub shares_outstanding: Option<i64>,
    pub eps_ttm_e6: Option<i64>,
}

/// The summary as of `as_of`, or `None` when the instrument has no bar that day.
pub fn summarize(as_of: i32, history: &History) -> Option<Summary> {
    let bars = &history.bars;
    let last_index = bars.iter().rposition(|b| b.day == as_of)?;
    let last = bars[last_index];

    // Split factor of each bar relative to the as-of day: prices before a k:1 split divide by k.
    let splits: Vec<(i32, f64)> = history
        .actions
        .iter()
        .filter(|a| a.kind == ActionKind::Split && a.day <= as_of)
        .filter_map(|a| a.value.to_string().parse::<f64>().ok().map(|r| (a.day, r)))
        .collect();
    let factor = |day: i32| -> f64 { splits.iter().filter(|(d, _)| *d > day).map(|(_, r)| r).product() };
    // A split-adjusted price is smaller than or near the price it adjusts.
    #[expect(clippy::cast_possible_truncation, reason = "prices in millionths are far below 2^63")]
    let adjusted = |price: i64, day: i32| -> i64 { (price as f64 / factor(day)).round() as i64 };
    let close_back = |n: usize| last_index.checked_sub(n).map(|i| adjusted(bars[i].close, bars[i].day));

    let year = bars[..=last_index].iter().filter(|b| b.day > as_of - YEAR_DAYS);
    let (high_52w, low_52w) = year.fold((i64::MIN, i64::MAX), |(high, low), b| {
        (high.max(adjusted(b.high, b.day)), low.min(adjusted(b.low, b.day)))
    });
    let previous_10 = &bars[last_index.saturating_sub(10)..last_index];
    let (dividend, ex_day) = trailing_dividends(as_of, history.actions.iter());
    Some(Summary {
        instrument_id: history.instrument_id,
        last,
        pre_close: close_back(1).unwrap_or(last.open),
        close_5d: close_back(BARS_5D),
        close_1m: close_back(BARS_1M),
        close_3m: close_back(BARS_3M),
        close_52w: close_back(BARS_52W),
        mean_volume_10d: (previous_10.len() == 10)
            .then(|| previous_10.iter().map(|b| b.volume as f64).sum::<f64>() / 10.0),
        high_52w,
        low_52w,
        dividend,
        ex_day,
        shares_outstanding: history.shares_outstanding,
        eps_ttm_e6: history.eps_ttm_e6,
    })
}

/// The sum of the dividends with ex-dates in the trailing year, and the last ex-date.
pub fn trailing_dividends<'a>(
    as_of: i32,
    actions: impl Iterator<Item = &'a CorporateAction>,
) -> (Option<i64>, Option<i32>) {
    let in_year: Vec<&CorporateAction> = actions
        .filter(|a| a.kind == ActionKind::Dividend && a.day <= as_of && a.day > as_of - YEAR_DAYS)
        .collect();
    if in_year.is_empty() {
        return (None, None);
    }
    let sum = in_year.iter().filter_map(|a| super::units::to_micros(a.value)).sum();
    (Some(sum), in_year.iter().map(|a| a.day).max())
}

/// The figures of a summary.
pub fn figures(s: &Summary) -> Snapshot {
    let last = s.last;
    let price = last.close;
    let dollars = |micros: i64| micros as f64 / 1e6;
    let shares = s.shares_outstanding.filter(|n| *n > 0).map(|n| n as f64);
    Snapshot {
        instrument_id: s.instrument_id,
        day: last.day,
        price,
        pre_close: s.pre_close,
        open: last.open,
        high: last.high,
        low: last.low,
        close: last.close,
        volume: last.volume,
        turnover: last.volume as f64 * dollars(last.close),
        change_ratio: ratio(price, s.pre_close),
        close_5d: s.close_5d,
        close_1m: s.close_1m,
        close_3m: s.close_3m,
        close_52w: s.close_52w,
        amplitude: if s.pre_close > 0 {
            (last.high - last.low) as f64 / s.pre_close as f64
        } else {
            0.0
        },
        relative_volume_10d: s.mean_volume_10d.filter(|m| *m > 0.0).map(|m| last.volume as f64 / m),
        turnover_rate: shares.map(|n| last.volume as f64 / n),
        market_value: shares.map(|n| n * dollars(price)),
        pe_ttm: s.eps_ttm_e6.filter(|e| *e > 0).map(|e| price as f64 / e as f64),
        dividend: s.dividend,
        dividend_yield: s.dividend.map(|d| d as f64 / price as f64),
        ex_day: s.ex_day,
        high_52w: s.high_52w,
        low_52w: s.low_52w,
    }
}

/// The snapshot as of `as_of` from a history, or `None` when there is no bar that day.
pub fn compute(as_of: i32, history: &History) -> Option<Snapshot> {
    summarize(as_of, history).as_ref().map(figures)
}

/// Calendar days of bars read before the as-of day: a year of trading days (252) spans up to
/// 366 calendar days plus holidays.
pub const LOOKBACK_DAYS: i32 = 380;

/// `now / then − 1`.
pub fn ratio(now: i64, then: i64) -> f64 {
    if then == 0 { 0.0 } else { now as f64 / then as f64 - 1.0 }
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::*;
    use crate::marketdata::ActionSource;

    fn bar(day: i32, close: i64, volume: i64) -> Bar {
        Bar {
            day,
            open: close,
            high: close + 2,
            low: close - 1,
            close,
            volume,
            adj_close: None,
        }
    }

    #[test]
    fn figures_of_a_plain_history() {
        let bars: Vec<Bar> = (0..300).map(|d| bar(d, 100 + i64::from(d), 1_000)).collect();
        let history = History {
            instrument_id: 7,
            bars,
            shares_outstanding: Some(10_000),
            eps_ttm_e6: Some(50),
            ..History::default()
        };
        let s = compute(299, &history).unwrap();
        assert_eq!((s.price, s.pre_close, s.volume), (399, 398, 1_000));
        assert!((s.change_ratio - (399.0 / 398.0 - 1.0)).abs() < 1e-12);
        assert_eq!(
            (s.close_5d, s.close_1m, s.close_3m, s.close_52w),
            (Some(394), Some(378), Some(336), Some(147))
        );
        assert_eq!((s.high_52w, s.low_52w), (401, 99));
        assert_eq!(s.relative_volume_10d, Some(1.0));
        assert_eq!(s.turnover_rate, Some(0.1));
        assert!((s.pe_ttm.unwrap() - 399.0 / 50.0).abs() < 1e-12);
        assert_eq!(s.dividend, None);
        assert!(compute(300, &history).is_none(), "no bar on the as-of day");
    }

    #[test]
    fn periods_and_52_week_range_are_split_adjusted() {
        // A 2:1 split on day 10: closes halve, and the earlier 200 becomes 100.
        let mut bars: Vec<Bar> = (0..10).map(|d| bar(d, 200, 1)).collect();
        bars.extend((10..20).map(|d| bar(d, 100, 1)));
        let split = CorporateAction {
            day: 10,
            kind: ActionKind::Split,
            value: Decimal::from(2),
            source: ActionSource::Derived,
        };
        let history = History {
            bars,
            actions: vec![split],
            ..History::default()
        };
        let s = compute(19, &history).unwrap();
        assert_eq!(s.close_1m, None);
        assert_eq!(s.close_5d, Some(100));
        assert_eq!(s.high_52w, 102, "the pre-split high of 202 is 101 adjusted; 102 after");
    }

    #[test]
    fn dividends_of_the_trailing_year() {
        let bars: Vec<Bar> = (0..400).map(|d| bar(d, 50_000_000, 1)).collect();
        let dividend = |day: i32, cents: i64| CorporateAction {
            day,
            kind: ActionKind::Dividend,
            value: Decimal::new(cents, 2),
            source: ActionSource::Generated,
        };
        let history = History {
            bars,
            actions: vec![dividend(10, 50), dividend(100, 50), dividend(390, 50)],
            ..History::default()
        };
        let s = compute(399, &history).unwrap();
        assert_eq!(s.dividend, Some(1_000_000), "two dividends within 365 days");
        assert_eq!(s.ex_day, Some(390));
        assert!((s.dividend_yield.unwrap() - 0.02).abs() < 1e-12);
    }
}
