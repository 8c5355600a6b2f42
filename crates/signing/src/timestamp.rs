//! The `x-timestamp` format: exactly `YYYY-MM-DDThh:mm:ssZ`, a real UTC date and time.

use std::fmt;

use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time};

/// `x-timestamp` is not of the form `YYYY-MM-DDThh:mm:ssZ` or not a real date and time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimestampError;

impl fmt::Display for TimestampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected a UTC time of the form YYYY-MM-DDThh:mm:ssZ")
    }
}

impl std::error::Error for TimestampError {}

/// Parses `YYYY-MM-DDThh:mm:ssZ` into seconds since the Unix epoch.
///
/// Strict: no fractions, no offsets, no lower-case `t`/`z`, no leap second, no 30 February.
pub fn parse_timestamp(s: &str) -> Result<i64, TimestampError> {
    let b = s.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'Z'
    {
        return Err(TimestampError);
    }
    let num = |range: std::ops::Range<usize>| -> Result<u16, TimestampError> {
        b[range].iter().try_fold(0u16, |acc, &d| {
            if d.is_ascii_digit() {
                Ok(acc * 10 + u16::from(d - b'0'))
            } else {
                Err(TimestampError)
            }
        })
    };
    // Two digits always fit a byte.
    let two = |range: std::ops::Range<usize>| u8::try_from(num(range)?).map_err(|_| TimestampError);
    let year = i32::from(num(0..4)?);
    let month = Month::try_from(two(5..7)?).map_err(|_| TimestampError)?;
    let date = Date::from_calendar_date(year, month, two(8..10)?).map_err(|_| TimestampError)?;
    let time = Time::from_hms(two(11..13)?, two(14..16)?, two(17..19)?).map_err(|_| TimestampError)?;
    Ok(PrimitiveDateTime::new(date, time).assume_utc().unix_timestamp())
}

/// Formats seconds since the Unix epoch as `YYYY-MM-DDThh:mm:ssZ`.
///
/// # Panics
/// If `unix_seconds` lies outside years 0000 to 9999.
pub fn format_timestamp(unix_seconds: i64) -> String {
    let t = OffsetDateTime::from_unix_timestamp(unix_seconds).expect("timestamp within years 0000-9999");
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats_round_trip() {
        let s = "2022-01-04T03:55:31Z";
        assert_eq!(parse_timestamp(s), Ok(1_641_268_531));
        assert_eq!(format_timestamp(1_641_268_531), s);
        assert_eq!(parse_timestamp("2024-02-29T23:59:59Z"), Ok(1_709_251_199));
    }

    #[test]
    fn rejects_everything_that_is_not_exactly_the_format() {
        for bad in [
            "",
            "2026-02-30T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-01-00T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T23:60:00Z",
            "2026-01-01T23:59:60Z",
            "2026-01-01t00:00:00Z",
            "2026-01-01T00:00:00z",
            "2026-01-01T00:00:00",
            "2026-01-01T00:00:00+00:00",
            "2026-01-01T00:00:00.000Z",
            "2026-01-01 00:00:00Z",
            "+026-01-01T00:00:00Z",
            "2026-1-01T00:00:00ZZ",
            "2026-01-01T0:00:00ZZ",
            "1735689600",
            "２０２６-01-01T00:00:00Z",
        ] {
            assert_eq!(parse_timestamp(bad), Err(TimestampError), "{bad:?}");
        }
    }
}
