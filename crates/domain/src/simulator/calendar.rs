//! The US equity market's trading days: every weekday but the New York Stock Exchange's
//! full-day holidays, computed from their rules so that a simulated day beyond the stored
//! history closes when the exchange would. A holiday on a Saturday is observed on the Friday
//! before and one on a Sunday on the Monday after, but New Year's Day on a Saturday is not moved
//! into the old year. One-off closures (a storm, a national day of mourning) follow no rule:
//! within the history the simulator knows them from the days without bars.

use time::{Date, Month, Weekday};

use crate::marketdata::units::date_of;

/// The holiday the exchange closes for on New York `day` (days since 1970-01-01), if any.
pub fn holiday(day: i32) -> Option<&'static str> {
    let date = date_of(day);
    let year = date.year();
    let on = |d: Date| d == date;
    let observed_on = |month: Month, dom: u8| Date::from_calendar_date(year, month, dom).is_ok_and(|d| on(observed(d)));
    let fixed = [
        ("New Year's Day", new_years_day(year).is_some_and(on)),
        (
            "Martin Luther King Jr. Day",
            year >= 1998 && on(nth_weekday(year, Month::January, Weekday::Monday, 3)),
        ),
        (
            "Washington's Birthday",
            on(nth_weekday(year, Month::February, Weekday::Monday, 3)),
        ),
        ("Good Friday", on(easter(year) - time::Duration::days(2))),
        ("Memorial Day", on(last_weekday(year, Month::May, Weekday::Monday))),
        ("Juneteenth", year >= 2022 && observed_on(Month::June, 19)),
        ("Independence Day", observed_on(Month::July, 4)),
        ("Labor Day", on(nth_weekday(year, Month::September, Weekday::Monday, 1))),
        (
            "Thanksgiving Day",
            on(nth_weekday(year, Month::November, Weekday::Thursday, 4)),
        ),
        ("Christmas Day", observed_on(Month::December, 25)),
    ];
    fixed.into_iter().find(|(_, is)| *is).map(|(name, _)| name)
}

/// Whether the exchange trades on New York `day`: a weekday that is no holiday.
pub fn is_trading_day(day: i32) -> bool {
    let weekend = matches!(date_of(day).weekday(), Weekday::Saturday | Weekday::Sunday);
    !weekend && holiday(day).is_none()
}

/// Why the exchange closes early (13:00, its after-hours at 17:00) on New York `day`, if it
/// does: the eve of Independence Day, the day after Thanksgiving and Christmas Eve, each when
/// it is a trading day (a July 3 or December 24 that is the holiday observed, or a weekend, is
/// not).
pub fn early_close(day: i32) -> Option<&'static str> {
    // The date alone rules out nearly every day; the holidays are reckoned for the few left.
    let date = date_of(day);
    let reason = match (date.month(), date.day()) {
        (Month::July, 3) => "Independence Day's eve",
        (Month::December, 24) => "Christmas Eve",
        (Month::November, 23..=29)
            if date.weekday() == Weekday::Friday
                && date - time::Duration::days(1)
                    == nth_weekday(date.year(), Month::November, Weekday::Thursday, 4) =>
        {
            "the day after Thanksgiving"
        }
        _ => return None,
    };
    is_trading_day(day).then_some(reason)
}

/// The first trading day after `day`.
pub fn next_trading_day(day: i32) -> i32 {
    let mut next = day + 1;
    while !is_trading_day(next) {
        next += 1;
    }
    next
}

/// The last trading day before `day`.
pub fn previous_trading_day(day: i32) -> i32 {
    let mut previous = day - 1;
    while !is_trading_day(previous) {
        previous -= 1;
    }
    previous
}

/// A holiday on a weekend moves to the nearest weekday.
fn observed(date: Date) -> Date {
    match date.weekday() {
        Weekday::Saturday => date - time::Duration::days(1),
        Weekday::Sunday => date + time::Duration::days(1),
        _ => date,
    }
}

/// January 1st, or Monday the 2nd when the 1st is a Sunday; none when it is a Saturday.
fn new_years_day(year: i32) -> Option<Date> {
    let first = Date::from_calendar_date(year, Month::January, 1).ok()?;
    match first.weekday() {
        Weekday::Saturday => None,
        _ => Some(observed(first)),
    }
}

fn nth_weekday(year: i32, month: Month, weekday: Weekday, n: u8) -> Date {
    let first = Date::from_calendar_date(year, month, 1).expect("a valid date");
    let ahead = (7 + weekday.number_days_from_monday() - first.weekday().number_days_from_monday()) % 7;
    first + time::Duration::days(i64::from(ahead) + 7 * i64::from(n - 1))
}

fn last_weekday(year: i32, month: Month, weekday: Weekday) -> Date {
    let last = Date::from_calendar_date(year, month.next(), 1).expect("a valid date") - time::Duration::days(1);
    let back = (7 + last.weekday().number_days_from_monday() - weekday.number_days_from_monday()) % 7;
    last - time::Duration::days(i64::from(back))
}

/// Easter Sunday of the Gregorian calendar (the anonymous algorithm of 1876).
fn easter(year: i32) -> Date {
    let a = year % 19;
    let (b, c) = (year / 100, year % 100);
    let (d, e) = (b / 4, b % 4);
    let f = (b + 8) / 25;
    let g = (b - f + 1) / 3;
    let h = (19 * a + b - d - g + 15) % 30;
    let (i, k) = (c / 4, c % 4);
    let l = (32 + 2 * e + 2 * i - h - k) % 7;
    let m = (a + 11 * h + 22 * l) / 451;
    let month = (h + l - 7 * m + 114) / 31;
    let dom = (h + l - 7 * m + 114) % 31 + 1;
    let month = Month::try_from(u8::try_from(month).expect("March or April")).expect("a month");
    Date::from_calendar_date(year, month, u8::try_from(dom).expect("a day")).expect("a valid date")
}

/// The trading days from `first` to `last` (New York days), in order.
pub fn trading_days(first: i32, last: i32) -> impl Iterator<Item = i32> {
    (first..=last).filter(|&day| is_trading_day(day))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::{day_number, parse_day};

    fn day(text: &str) -> i32 {
        parse_day(text).unwrap()
    }

    #[test]
    fn the_holidays_of_2013_are_the_exchanges() {
        let holidays: Vec<(String, &str)> = (day("2013-01-01")..=day("2013-12-31"))
            .filter_map(|d| holiday(d).map(|name| (date_of(d).to_string(), name)))
            .collect();
        let expected = [
            ("2013-01-01", "New Year's Day"),
            ("2013-01-21", "Martin Luther King Jr. Day"),
            ("2013-02-18", "Washington's Birthday"),
            ("2013-03-29", "Good Friday"),
            ("2013-05-27", "Memorial Day"),
            ("2013-07-04", "Independence Day"),
            ("2013-09-02", "Labor Day"),
            ("2013-11-28", "Thanksgiving Day"),
            ("2013-12-25", "Christmas Day"),
        ];
        let expected: Vec<(String, &str)> = expected.iter().map(|(d, n)| ((*d).to_owned(), *n)).collect();
        assert_eq!(holidays, expected);
        // 252 trading days, as the exchange had that year.
        assert_eq!(trading_days(day("2013-01-01"), day("2013-12-31")).count(), 252);
    }

    #[test]
    fn weekend_holidays_are_observed_on_the_nearest_weekday_but_new_years_day_on_a_saturday() {
        // Juneteenth 2022 fell on a Sunday; Christmas 2021 and Independence Day 2020 on Saturdays.
        assert_eq!(holiday(day("2022-06-20")), Some("Juneteenth"));
        assert_eq!(holiday(day("2021-12-24")), Some("Christmas Day"));
        assert_eq!(holiday(day("2020-07-03")), Some("Independence Day"));
        assert_eq!(holiday(day("2021-06-18")), None, "Juneteenth from 2022 on");
        // New Year's Day 2022 was a Saturday: Friday 2021-12-31 traded.
        assert!(is_trading_day(day("2021-12-31")));
        assert_eq!(
            holiday(day("2017-01-02")),
            Some("New Year's Day"),
            "a Sunday, moved to Monday"
        );
        assert!(!is_trading_day(day("2013-03-30")) && !is_trading_day(day("2013-03-31")));
        assert_eq!(next_trading_day(day("2013-03-28")), day("2013-04-01"));
        assert_eq!(
            previous_trading_day(day("2013-04-01")),
            day("2013-03-28"),
            "back over Good Friday"
        );
    }

    #[test]
    fn the_exchange_closes_early_on_the_eves_of_three_holidays_when_they_trade() {
        let early: Vec<String> = (day("2012-01-01")..=day("2013-12-31"))
            .filter(|&d| early_close(d).is_some())
            .map(|d| date_of(d).to_string())
            .collect();
        assert_eq!(
            early,
            [
                "2012-07-03",
                "2012-11-23",
                "2012-12-24",
                "2013-07-03",
                "2013-11-29",
                "2013-12-24"
            ]
        );
        // July 3 2015 was the holiday observed (July 4 a Saturday); Christmas Eve 2011 a Saturday.
        assert_eq!(early_close(day("2015-07-03")), None);
        assert_eq!(early_close(day("2011-12-24")), None);
        assert_eq!(
            early_close(day("2010-07-02")),
            None,
            "the Friday before a Monday holiday trades all day"
        );
    }

    #[test]
    fn easter_matches_known_dates() {
        for (year, date) in [
            (2013, "2013-03-31"),
            (2019, "2019-04-21"),
            (2024, "2024-03-31"),
            (2026, "2026-04-05"),
        ] {
            assert_eq!(easter(year).to_string(), date);
        }
        assert_eq!(day_number(easter(2013)), day("2013-03-31"));
    }
}
