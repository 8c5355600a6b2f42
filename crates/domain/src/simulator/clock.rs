//! Simulated time and the US equity sessions.
//!
//! Times are milliseconds since the Unix epoch (UTC). Sessions follow New York time: pre-market
//! 04:00–09:30, core 09:30–16:00, after-hours 16:00–20:00, on each trading day (13:00 and 17:00
//! on an early-close day, closed until 20:00), and the overnight session 20:00–04:00 before each
//! trading day (Sunday evening to Friday morning). New York's offset
//! follows the US daylight-saving rules (since 2007: second Sunday of March to first Sunday of
//! November; before: first Sunday of April to last Sunday of October), written out here rather
//! than read from a time-zone database because only this one zone is needed.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use time::{Date, Month, Weekday};

use super::calendar;
use crate::marketdata::units::{date_of, day_number};

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Session {
    PreMarket,
    Core,
    AfterHours,
    /// 20:00–04:00 New York, ending on a weekday's morning.
    Overnight,
    Closed,
}

impl Session {
    pub const fn as_str(self) -> &'static str {
        match self {
            Session::PreMarket => "PRE_MARKET",
            Session::Core => "CORE",
            Session::AfterHours => "AFTER_HOURS",
            Session::Overnight => "OVERNIGHT",
            Session::Closed => "CLOSED",
        }
    }
}

/// Seconds after New York midnight at which each session starts.
pub const PRE_OPEN: i64 = 4 * 3600;
pub const CORE_OPEN: i64 = 9 * 3600 + 1800;
/// The core session's close, but on an early-close day ([`core_close`]).
pub const CORE_CLOSE: i64 = 16 * 3600;
/// The after-hours session's close, but on an early-close day ([`after_close`]); the overnight
/// session starts then every evening.
pub const AFTER_CLOSE: i64 = 20 * 3600;
/// The core and after-hours closes on an early-close day ([`calendar::early_close`]).
pub const EARLY_CORE_CLOSE: i64 = 13 * 3600;
pub const EARLY_AFTER_CLOSE: i64 = 17 * 3600;

/// The core session's close on New York `day`: 16:00, 13:00 on an early-close day.
pub fn core_close(day: i32) -> i64 {
    if calendar::early_close(day).is_some() {
        EARLY_CORE_CLOSE
    } else {
        CORE_CLOSE
    }
}

/// The after-hours session's close on New York `day`: 20:00, 17:00 on an early-close day.
pub fn after_close(day: i32) -> i64 {
    if calendar::early_close(day).is_some() {
        EARLY_AFTER_CLOSE
    } else {
        AFTER_CLOSE
    }
}

/// A moment read in New York: its calendar day (days since 1970-01-01) and seconds into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewYork {
    pub day: i32,
    pub second: i64,
}

impl NewYork {
    pub fn of(utc_ms: i64) -> Self {
        let offset = eastern_offset_hours(utc_ms) * HOUR_MS;
        let local = utc_ms + offset;
        NewYork {
            day: day_number_of(local),
            second: local.rem_euclid(DAY_MS) / 1000,
        }
    }

    pub fn is_weekday(self) -> bool {
        !matches!(date_of(self.day).weekday(), Weekday::Saturday | Weekday::Sunday)
    }

    /// Whether the exchange trades on this day: a weekday but a holiday ([`calendar`]).
    pub fn is_trading_day(self) -> bool {
        calendar::is_trading_day(self.day)
    }

    /// The session at this moment of a trading day; the overnight session runs from the evening
    /// before a trading day to its morning.
    pub fn session(self) -> Session {
        let trading = self.is_trading_day();
        match (self.second, trading) {
            (s, true) if s < PRE_OPEN => Session::Overnight,
            (s, true) if s < CORE_OPEN => Session::PreMarket,
            (s, true) if s < core_close(self.day) => Session::Core,
            (s, true) if s < after_close(self.day) => Session::AfterHours,
            _ if self.second >= AFTER_CLOSE && calendar::is_trading_day(self.day + 1) => Session::Overnight,
            _ => Session::Closed,
        }
    }
}

/// UTC milliseconds of `second` after midnight of New York's calendar `day`.
pub fn utc_ms_of(day: i32, second: i64) -> i64 {
    let guess = i64::from(day) * DAY_MS + second * 1000 + 5 * HOUR_MS;
    // The offset at the guess is right except within an hour of a change, where either is fine.
    i64::from(day) * DAY_MS + second * 1000 - eastern_offset_hours(guess) * HOUR_MS
}

/// New York's offset from UTC at a UTC instant: −4 in daylight-saving time, −5 otherwise.
pub fn eastern_offset_hours(utc_ms: i64) -> i64 {
    let year = date_of(day_number_of(utc_ms)).year();
    let (start, end) = if year >= 2007 {
        (nth_sunday(year, Month::March, 2), nth_sunday(year, Month::November, 1))
    } else {
        (nth_sunday(year, Month::April, 1), last_sunday(year, Month::October))
    };
    // Changes happen at 02:00 local: 07:00 UTC in spring (EST), 06:00 UTC in autumn (EDT).
    let starts = i64::from(day_number(start)) * DAY_MS + 7 * HOUR_MS;
    let ends = i64::from(day_number(end)) * DAY_MS + 6 * HOUR_MS;
    if (starts..ends).contains(&utc_ms) { -4 } else { -5 }
}

fn nth_sunday(year: i32, month: Month, n: u8) -> Date {
    let first = Date::from_calendar_date(year, month, 1).expect("a valid date");
    let to_sunday = (7 - first.weekday().number_days_from_sunday()) % 7;
    first + time::Duration::days(i64::from(to_sunday) + 7 * i64::from(n - 1))
}

fn last_sunday(year: i32, month: Month) -> Date {
    let next_month = Date::from_calendar_date(year, month.next(), 1).expect("a valid date");
    let last = next_month - time::Duration::days(1);
    last - time::Duration::days(i64::from(last.weekday().number_days_from_sunday()))
}

/// How simulated time moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClockMode {
    /// The real time of day and calendar.
    Real,
    /// From a start, `speed` simulated seconds per real second.
    Running { speed: f64 },
    /// Still, moved only by [`Clock::step`].
    Manual,
}

/// The fastest a running clock may go: a simulated month in under three real seconds. Beyond
/// a bound the clock's arithmetic overflows (a speed of 1e300 panicked at every tick), and a
/// speed of 0 or less, or not a number, moves no clock.
pub const MAX_SPEED: f64 = 1_000_000.0;

/// The earliest and the latest simulated times a clock may show: years 0 to 9999, the dates
/// `--market-start` and the day parser accept.
pub const EARLIEST_MS: i64 = -719_528 * DAY_MS;
pub const LATEST_MS: i64 = 253_402_300_799_999;

impl ClockMode {
    /// `Running` at `speed`, if it is a number above 0 and at most [`MAX_SPEED`].
    pub fn running(speed: f64) -> Option<ClockMode> {
        (speed > 0.0 && speed <= MAX_SPEED).then_some(ClockMode::Running { speed })
    }
}

/// Whether a clock may show `ms` (see [`EARLIEST_MS`]).
pub fn in_calendar(ms: i64) -> bool {
    (EARLIEST_MS..=LATEST_MS).contains(&ms)
}

#[derive(Debug)]
pub struct Clock {
    /// The mode, and the simulated time it showed at an instant.
    state: Mutex<(ClockMode, Instant, i64)>,
}

impl Clock {
    /// A clock in `mode` showing `start_ms` now (ignored in `Real` mode).
    pub fn new(mode: ClockMode, start_ms: i64) -> Self {
        Clock {
            state: Mutex::new((mode, Instant::now(), start_ms)),
        }
    }

    pub fn mode(&self) -> ClockMode {
        self.state.lock().0
    }

    /// Simulated now, in UTC milliseconds.
    pub fn now_ms(&self) -> i64 {
        let (mode, anchor, start) = *self.state.lock();
        match mode {
            ClockMode::Real => wall_clock_ms(),
            ClockMode::Running { speed } => start + crate::times::millis(anchor.elapsed().mul_f64(speed)),
            ClockMode::Manual => start,
        }
    }

    /// Moves simulated time forward (any mode but `Real`).
    pub fn step(&self, by: Duration) -> i64 {
        let mut state = self.state.lock();
        state.2 += crate::times::millis(by);
        state.2
    }

    /// Sets the mode, and the time it shows now (a checkpoint's clock put back).
    pub fn set(&self, mode: ClockMode, now_ms: i64) {
        *self.state.lock() = (mode, Instant::now(), now_ms);
    }
}

/// The day number of a time in milliseconds (saturating far outside the calendar).
pub fn day_number_of(ms: i64) -> i32 {
    let day = ms.div_euclid(DAY_MS);
    i32::try_from(day).unwrap_or(if day < 0 { i32::MIN } else { i32::MAX })
}

pub fn wall_clock_ms() -> i64 {
    crate::times::millis(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default())
}

/// The core open of the first trading day on or after New York `day`.
pub fn next_core_open(day: i32) -> i64 {
    let day = if calendar::is_trading_day(day) {
        day
    } else {
        calendar::next_trading_day(day)
    };
    utc_ms_of(day, CORE_OPEN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::parse_day;

    fn utc(text: &str) -> i64 {
        signet_signing::parse_timestamp(text).unwrap() * 1000
    }

    #[test]
    fn new_york_offsets_follow_both_eras_of_daylight_saving() {
        assert_eq!(eastern_offset_hours(utc("2013-03-10T06:59:59Z")), -5);
        assert_eq!(eastern_offset_hours(utc("2013-03-10T07:00:00Z")), -4);
        assert_eq!(eastern_offset_hours(utc("2013-11-03T05:59:59Z")), -4);
        assert_eq!(eastern_offset_hours(utc("2013-11-03T06:00:00Z")), -5);
        assert_eq!(eastern_offset_hours(utc("2005-04-03T07:00:00Z")), -4);
        assert_eq!(eastern_offset_hours(utc("2005-03-20T12:00:00Z")), -5);
        assert_eq!(eastern_offset_hours(utc("2005-10-30T06:00:00Z")), -5);
        assert_eq!(eastern_offset_hours(utc("2026-07-01T12:00:00Z")), -4);
    }

    #[test]
    fn sessions() {
        let day = parse_day("2013-03-04").unwrap(); // a Monday, EST
        assert_eq!(utc_ms_of(day, CORE_OPEN), utc("2013-03-04T14:30:00Z"));
        assert_eq!(NewYork::of(utc("2013-03-04T14:30:00Z")).session(), Session::Core);
        assert_eq!(NewYork::of(utc("2013-03-04T14:29:59Z")).session(), Session::PreMarket);
        assert_eq!(NewYork::of(utc("2013-03-04T21:00:00Z")).session(), Session::AfterHours);
        assert_eq!(NewYork::of(utc("2013-03-05T01:00:00Z")).session(), Session::Overnight);
        assert_eq!(NewYork::of(utc("2013-03-05T08:59:59Z")).session(), Session::Overnight);
        // Friday evening to Sunday evening nothing trades; Sunday 20:00 (EDT from that day)
        // starts Monday's night.
        assert_eq!(NewYork::of(utc("2013-03-09T01:00:00Z")).session(), Session::Closed);
        assert_eq!(NewYork::of(utc("2013-03-10T23:59:59Z")).session(), Session::Closed);
        assert_eq!(NewYork::of(utc("2013-03-11T00:00:00Z")).session(), Session::Overnight);
        assert_eq!(
            NewYork::of(utc("2013-03-02T15:00:00Z")).session(),
            Session::Closed,
            "Saturday"
        );
        let summer = parse_day("2013-07-01").unwrap();
        assert_eq!(utc_ms_of(summer, CORE_OPEN), utc("2013-07-01T13:30:00Z"));
        // 2013-07-03 closed early (EDT): core to 13:00, after hours to 17:00, nothing till 20:00.
        assert_eq!(NewYork::of(utc("2013-07-03T16:59:59Z")).session(), Session::Core);
        assert_eq!(NewYork::of(utc("2013-07-03T17:00:00Z")).session(), Session::AfterHours);
        assert_eq!(NewYork::of(utc("2013-07-03T21:00:00Z")).session(), Session::Closed);
        assert_eq!(
            NewYork::of(utc("2013-07-04T00:00:00Z")).session(),
            Session::Closed,
            "July 4 does not trade"
        );
        assert_eq!(
            NewYork::of(utc("2012-11-23T18:00:00Z")).session(),
            Session::AfterHours,
            "EST, 13:00"
        );
        assert_eq!(
            next_core_open(parse_day("2013-03-02").unwrap()),
            utc("2013-03-04T14:30:00Z")
        );
    }

    #[test]
    fn speeds_and_times_a_clock_accepts() {
        for speed in [f64::MIN_POSITIVE, 1.0, 60.0, MAX_SPEED] {
            assert_eq!(ClockMode::running(speed), Some(ClockMode::Running { speed }), "{speed}");
        }
        for speed in [0.0, -5.0, MAX_SPEED * 1.01, 1e300, f64::INFINITY, f64::NAN] {
            assert_eq!(ClockMode::running(speed), None, "{speed}");
        }
        assert_eq!(EARLIEST_MS, utc("0000-01-01T00:00:00Z"));
        assert_eq!(LATEST_MS, utc("9999-12-31T23:59:59Z") + 999);
        assert!(in_calendar(utc("2013-02-25T14:30:00Z")));
        assert!(in_calendar(EARLIEST_MS) && in_calendar(LATEST_MS));
        assert!(!in_calendar(EARLIEST_MS - 1) && !in_calendar(LATEST_MS + 1));
        assert!(!in_calendar(9_000_000_000_000_000_000));
    }

    #[test]
    fn clocks() {
        let manual = Clock::new(ClockMode::Manual, 1_000);
        assert_eq!(manual.now_ms(), 1_000);
        manual.step(Duration::from_secs(2));
        assert_eq!(manual.now_ms(), 3_000);
        let fast = Clock::new(ClockMode::Running { speed: 1000.0 }, 0);
        std::thread::sleep(Duration::from_millis(20));
        assert!(fast.now_ms() >= 20_000);
        // The fastest clock, a long way into its calendar, still counts.
        let fastest = Clock::new(ClockMode::running(MAX_SPEED).unwrap(), LATEST_MS - DAY_MS * 365);
        assert!(fastest.now_ms() >= LATEST_MS - DAY_MS * 365);
        assert!((Clock::new(ClockMode::Real, 0).now_ms() - wall_clock_ms()).abs() < 1_000);
    }
}
