//! The interface's time format for order times and the simulator: UTC `yyyy-MM-ddTHH:mm:ss.SSSZ`.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// A moment on the simulator's clock, in milliseconds since the Unix epoch: what prices,
/// sessions and the expiry of orders follow. Apart from [`WallTime`] where the two meet (an order
/// is placed at both), so that passing one for the other does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub i64);

/// A moment on this machine's clock, in milliseconds since the Unix epoch: when an order was
/// stored, changed or filled, as the interface's order times show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WallTime(pub i64);

impl WallTime {
    pub fn now() -> WallTime {
        WallTime(millis(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default(),
        ))
    }
}

/// A duration in whole milliseconds, saturating (at 292 million years).
pub fn millis(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// Milliseconds since the Unix epoch as market data writes them: `yyyy-MM-ddTHH:mm:ss.SSS+0000`.
pub fn format_ms_utc_offset(ms: i64) -> String {
    let mut text = format_ms(ms);
    text.truncate(text.len() - 1);
    text + "+0000"
}

/// Milliseconds since the Unix epoch as `yyyy-MM-ddTHH:mm:ss.SSSZ`.
pub fn format_ms(ms: i64) -> String {
    let t = OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

/// Parses `yyyy-MM-ddTHH:mm:ss.SSSZ` (exactly three fraction digits, UTC) into milliseconds.
pub fn parse_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() != 24 || b[19] != b'.' || b[23] != b'Z' || !b[20..23].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let t = OffsetDateTime::parse(text, &Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        assert_eq!(format_ms(1_362_407_400_123), "2013-03-04T14:30:00.123Z");
        assert_eq!(parse_ms("2013-03-04T14:30:00.123Z"), Some(1_362_407_400_123));
        for bad in [
            "2013-03-04T14:30:00Z",
            "2013-03-04T14:30:00.12Z",
            "2013-03-04T14:30:00.123+00:00",
            "2013-02-30T00:00:00.000Z",
        ] {
            assert_eq!(parse_ms(bad), None, "{bad}");
        }
    }
}
