//! Fund figures derived from prices and corporate actions: returns over standard periods, and
//! splits as fractions.

use rust_decimal::Decimal;
use rust_decimal::prelude::FromPrimitive;
use signet_model::fundamentals::FundPerformance;

use super::statements::shift_months;
use crate::marketdata::Bar;
use crate::marketdata::units::{format_day, from_micros};

/// Total returns up to the last bar, from adjusted closes where the history has them; a period
/// longer than the history is `null`.
pub fn performance(bars: &[Bar], currency: &str) -> FundPerformance {
    let Some(last) = bars.last() else {
        return FundPerformance::default();
    };
    let price = |b: &Bar| b.adj_close.unwrap_or(b.close);
    let ratio = |from: &Bar| {
        let base = price(from);
        (base > 0).then(|| {
            let r = Decimal::from(price(last)) / Decimal::from(base) - Decimal::ONE;
            r.round_dp(4).normalize().to_string()
        })
    };
    let since = |months: i32| {
        let day = shift_months(last.day, -months);
        if bars[0].day > day {
            return None;
        }
        // The last close on or before the day the period starts.
        let index = bars.partition_point(|b| b.day <= day).checked_sub(1)?;
        ratio(&bars[index])
    };
    FundPerformance {
        currency: Some(currency.to_owned()),
        end_date: Some(format_day(last.day)),
        return_1m: since(1),
        return_3m: since(3),
        return_6m: since(6),
        return_1y: since(12),
        return_3y: since(36),
        return_5y: since(60),
        return_10y: since(120),
        return_si: ratio(&bars[0]),
    }
}

/// A split ratio (shares after per share before) as `SPLIT` or `REVERSE_SPLIT` with its `from`
/// and `to` share counts: 2 is 1 to 2, 0.1 is 10 to 1.
pub fn split_parts(ratio: Decimal) -> (&'static str, String, String) {
    let text = |d: Decimal| d.round_dp(6).normalize().to_string();
    if ratio >= Decimal::ONE {
        ("SPLIT", "1".into(), text(ratio))
    } else if ratio.is_zero() {
        ("REVERSE_SPLIT", "0".into(), "0".into())
    } else {
        ("REVERSE_SPLIT", text(Decimal::ONE / ratio), "1".into())
    }
}

/// Money as the wire carries it: a price in millionths times a count, to the cent.
pub fn money(price_e6: i64, count: i64) -> Decimal {
    (from_micros(price_e6) * Decimal::from(count)).round_dp(2)
}

/// A ratio of floating figures as a decimal string (ratios are approximate by nature).
pub fn ratio_text(value: f64) -> Option<String> {
    Decimal::from_f64(value).map(|d| d.round_dp(4).normalize().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::parse_day;

    fn bar(day: &str, close: i64) -> Bar {
        Bar {
            day: parse_day(day).unwrap(),
            open: close,
            high: close,
            low: close,
            close,
            volume: 1,
            adj_close: None,
        }
    }

    #[test]
    fn returns_over_the_history_there_is() {
        let bars = vec![
            bar("2012-01-03", 100_000_000),
            bar("2012-11-30", 110_000_000),
            bar("2013-02-01", 120_000_000),
            bar("2013-03-01", 132_000_000),
        ];
        let p = performance(&bars, "USD");
        assert_eq!(p.end_date.as_deref(), Some("2013-03-01"));
        assert_eq!(p.return_1m.as_deref(), Some("0.1"));
        assert_eq!(p.return_3m.as_deref(), Some("0.2"));
        assert_eq!(p.return_1y.as_deref(), Some("0.32"));
        assert_eq!(p.return_3y, None);
        assert_eq!(p.return_si.as_deref(), Some("0.32"));
        assert_eq!(performance(&[], "USD"), FundPerformance::default());
    }

    #[test]
    fn splits_as_fractions() {
        assert_eq!(split_parts(Decimal::from(2)), ("SPLIT", "1".into(), "2".into()));
        assert_eq!(
            split_parts("0.1".parse().unwrap()),
            ("REVERSE_SPLIT", "10".into(), "1".into())
        );
    }
}
