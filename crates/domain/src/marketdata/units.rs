//! Exact prices and calendar days, as stored.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use time::{Date, Month};

/// Prices are stored as integers in millionths: exact for every layout imported so far, cheap
/// to compare and sum, and never binary floating point.
pub const PRICE_SCALE: u32 = 6;

/// Parses a decimal price ("130.31", "4.186662803811") into millionths, rounding half away
/// from zero beyond six places.
pub fn parse_price(text: &str) -> Option<i64> {
    let value: Decimal = text.trim().parse().ok()?;
    to_micros(value)
}

/// `None` when the value does not fit (found by the `import_ohlcv` fuzz target: a price of 10^23
/// overflowed the multiplication).
pub fn to_micros(value: Decimal) -> Option<i64> {
    value
        .round_dp_with_strategy(PRICE_SCALE, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
        .checked_mul(Decimal::from(1_000_000))?
        .to_i64()
}

pub fn from_micros(micros: i64) -> Decimal {
    Decimal::new(micros, PRICE_SCALE).normalize()
}

const EPOCH: Date = time::macros::date!(1970 - 01 - 01);

/// Parses `YYYY-MM-DD` into days since 1970-01-01.
pub fn parse_day(text: &str) -> Option<i32> {
    let b = text.trim().as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| std::str::from_utf8(&b[r]).ok()?.parse::<u16>().ok();
    let two = |r: std::ops::Range<usize>| u8::try_from(num(r)?).ok();
    let month = Month::try_from(two(5..7)?).ok()?;
    let date = Date::from_calendar_date(i32::from(num(0..4)?), month, two(8..10)?).ok()?;
    Some(day_number(date))
}

pub fn day_number(date: Date) -> i32 {
    // `time` dates span ±9999 years: about 3.7 million days either way of 1970.
    i32::try_from((date - EPOCH).whole_days()).expect("a date's day number fits an i32")
}

pub fn date_of(day: i32) -> Date {
    EPOCH + time::Duration::days(i64::from(day))
}

/// `YYYY-MM-DD` of a day number.
pub fn format_day(day: i32) -> String {
    let d = date_of(day);
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_exact_millionths() {
        assert_eq!(parse_price("130.31"), Some(130_310_000));
        assert_eq!(parse_price("4.186662803811"), Some(4_186_663));
        assert_eq!(parse_price("0.0000005"), Some(1));
        assert_eq!(parse_price("12"), Some(12_000_000));
        assert_eq!(parse_price("abc"), None);
        assert_eq!(parse_price(""), None);
        assert_eq!(from_micros(130_310_000).to_string(), "130.31");
    }

    #[test]
    fn days() {
        assert_eq!(parse_day("1970-01-02"), Some(1));
        assert_eq!(parse_day("2013-03-01"), Some(15765));
        assert_eq!(format_day(15765), "2013-03-01");
        for bad in ["2013-02-30", "2013/03/01", "13-03-01", "2013-3-01", ""] {
            assert_eq!(parse_day(bad), None, "{bad}");
        }
    }
}
