//! Daily bars rolled up into weeks, months and years, as the bars call serves them.

use super::Bar;
use super::units::date_of;

/// What one bar covers: the interface's 13 timespan codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timespan {
    /// Seconds of the core session, counted from its open: S5 and S15, M1 to M240.
    Seconds(i64),
    Days(DaySpan),
}

impl Timespan {
    /// Every code, for messages.
    pub const CODES: &str = "S5, S15, M1, M5, M15, M30, M60, M120, M240, D, W, M (a month), Y";

    pub fn parse(code: &str) -> Option<Self> {
        let seconds = match code {
            "S5" => 5,
            "S15" => 15,
            "M1" => 60,
            "M5" => 300,
            "M15" => 900,
            "M30" => 1800,
            "M60" => 3600,
            "M120" => 7200,
            "M240" => 14_400,
            _ => return DaySpan::parse(code).map(Timespan::Days),
        };
        Some(Timespan::Seconds(seconds))
    }
}

/// A span of days a bar covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DaySpan {
    Day,
    /// Monday to Sunday.
    Week,
    Month,
    Year,
}

impl DaySpan {
    /// The timespan codes of the interface that are spans of days (`D`, `W`, `M`, `Y`).
    pub fn parse(code: &str) -> Option<Self> {
        match code {
            "D" => Some(DaySpan::Day),
            "W" => Some(DaySpan::Week),
            "M" => Some(DaySpan::Month),
            "Y" => Some(DaySpan::Year),
            _ => None,
        }
    }

    /// The first day of the span `day` falls in: what its bars are grouped by.
    pub fn start(self, day: i32) -> i32 {
        let date = date_of(day);
        match self {
            DaySpan::Day => day,
            DaySpan::Week => day - i32::from(date.weekday().number_days_from_monday()),
            DaySpan::Month => day - i32::from(date.day()) + 1,
            DaySpan::Year => day - i32::from(date.ordinal()) + 1,
        }
    }
}

/// `bars` (daily, oldest first) rolled up by `span`: each bar opens at its first day's open,
/// closes at its last day's close, spans their highs and lows and sums their volumes; its `day` is
/// the first trading day in it. No adjusted close: a roll-up of adjusted closes means nothing.
pub fn roll_up(bars: &[Bar], span: DaySpan) -> Vec<Bar> {
    let mut out: Vec<(i32, Bar)> = Vec::new();
    for bar in bars {
        let key = span.start(bar.day);
        match out.last_mut() {
            Some((k, rolled)) if *k == key => {
                rolled.high = rolled.high.max(bar.high);
                rolled.low = rolled.low.min(bar.low);
                rolled.close = bar.close;
                rolled.volume += bar.volume;
            }
            _ => out.push((
                key,
                Bar {
                    adj_close: None,
                    ..*bar
                },
            )),
        }
    }
    out.into_iter().map(|(_, bar)| bar).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::parse_day;

    fn bar(day: &str, open: i64, high: i64, low: i64, close: i64, volume: i64) -> Bar {
        Bar {
            day: parse_day(day).unwrap(),
            open,
            high,
            low,
            close,
            volume,
            adj_close: Some(close),
        }
    }

    #[test]
    fn weeks_start_on_monday_and_months_on_the_first() {
        let friday = parse_day("2013-03-01").unwrap();
        assert_eq!(DaySpan::Week.start(friday), parse_day("2013-02-25").unwrap());
        assert_eq!(DaySpan::Month.start(friday), friday);
        assert_eq!(DaySpan::Year.start(friday), parse_day("2013-01-01").unwrap());
    }

    #[test]
    fn a_week_opens_on_its_first_day_and_closes_on_its_last() {
        let days = [
            bar("2013-02-22", 10, 12, 9, 11, 100),
            bar("2013-02-25", 11, 15, 10, 14, 200),
            bar("2013-02-26", 14, 16, 8, 9, 300),
            bar("2013-03-01", 9, 10, 7, 8, 400),
        ];
        let weeks = roll_up(&days, DaySpan::Week);
        assert_eq!(weeks.len(), 2);
        assert_eq!(
            weeks[0],
            Bar {
                adj_close: None,
                ..days[0]
            }
        );
        assert_eq!(
            weeks[1],
            Bar {
                day: days[1].day,
                open: 11,
                high: 16,
                low: 7,
                close: 8,
                volume: 900,
                adj_close: None,
            }
        );
        assert_eq!(roll_up(&days, DaySpan::Month).len(), 2);
        assert_eq!(roll_up(&days, DaySpan::Year).len(), 1);
        assert_eq!(roll_up(&days, DaySpan::Day).len(), 4);
    }
}
