//! The contracts an exchange lists on a day, as the simulator lists them:
//!
//! - **Expiries.** The weekly Fridays of the next [`WEEKLIES`] weeks; the monthly expiry, the
//!   third Friday, of the next [`MONTHLIES`] months; and the January LEAPS of the next
//!   [`LEAPS_YEARS`] years beyond them. An expiry that falls on a holiday moves to the trading
//!   day before it (Good Friday's weekly expires on Thursday). A day's own expiry is listed until
//!   that day is over.
//! - **Strikes.** From half the underlying's price to one and a half times it, at the increment
//!   usual for its price level ([`increment`]): about 40 to 50 strikes an expiry.

use rust_decimal::Decimal;
use time::Weekday;

use crate::marketdata::units::{date_of, day_number};
use crate::simulator::calendar;

/// Weekly expiries listed ahead.
pub const WEEKLIES: i32 = 6;
/// Monthly expiries listed ahead.
pub const MONTHLIES: i32 = 12;
/// Years of January LEAPS beyond the monthlies.
pub const LEAPS_YEARS: i32 = 2;

/// The last trading day on or before `day`.
fn trading_day_on_or_before(mut day: i32) -> i32 {
    while !calendar::is_trading_day(day) {
        day -= 1;
    }
    day
}

/// The third Friday of a month.
fn third_friday(year: i32, month: time::Month) -> i32 {
    let first = time::Date::from_calendar_date(year, month, 1).expect("the first of a month");
    let to_friday =
        (7 + Weekday::Friday.number_days_from_monday() as i32 - first.weekday().number_days_from_monday() as i32) % 7;
    day_number(first) + to_friday + 14
}

/// The expiries listed on New York `today`, earliest first.
pub fn expiries(today: i32) -> Vec<i32> {
    let date = date_of(today);
    let to_friday =
        (7 + Weekday::Friday.number_days_from_monday() as i32 - date.weekday().number_days_from_monday() as i32) % 7;
    let first_friday = today + to_friday;
    let mut days: Vec<i32> = (0..WEEKLIES).map(|week| first_friday + 7 * week).collect();
    let (mut year, mut month) = (date.year(), date.month());
    for _ in 0..=MONTHLIES {
        days.push(third_friday(year, month));
        month = month.next();
        if month == time::Month::January {
            year += 1;
        }
    }
    let last_monthly = days.iter().copied().max().unwrap_or(today);
    for ahead in 1..=LEAPS_YEARS + 1 {
        let leaps = third_friday(date.year() + ahead, time::Month::January);
        if leaps > last_monthly {
            days.push(leaps);
        }
    }
    let mut listed: Vec<i32> = days
        .into_iter()
        .map(trading_day_on_or_before)
        .filter(|&day| day >= today)
        .collect();
    listed.sort_unstable();
    listed.dedup();
    listed
}

/// `MONTHLY` for a month's third-Friday expiry (LEAPS included), `WEEKLY` for the others.
pub fn cycle(expiry: i32) -> &'static str {
    let date = date_of(expiry);
    if trading_day_on_or_before(third_friday(date.year(), date.month())) == expiry {
        "MONTHLY"
    } else {
        "WEEKLY"
    }
}

/// The strike increment usual at a price level.
pub fn increment(price: f64) -> Decimal {
    match price {
        p if p < 5.0 => Decimal::new(5, 1),
        p if p < 25.0 => Decimal::ONE,
        p if p < 100.0 => Decimal::new(25, 1),
        p if p < 250.0 => Decimal::from(5),
        _ => Decimal::from(10),
    }
}

/// The strikes listed around an underlying at `price`, lowest first.
pub fn strikes(price: f64) -> Vec<Decimal> {
    let step = increment(price);
    let Some(level) = Decimal::try_from(price).ok().filter(|p| *p > Decimal::ZERO) else {
        return Vec::new();
    };
    let low = (level / Decimal::TWO / step).ceil().max(Decimal::ONE);
    let high = (level * Decimal::new(15, 1) / step).floor();
    let mut listed = Vec::new();
    let mut n = low;
    while n <= high {
        listed.push((step * n).normalize());
        n += Decimal::ONE;
    }
    listed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::{format_day, parse_day};

    fn days(listed: &[i32]) -> Vec<String> {
        listed.iter().map(|&d| format_day(d)).collect()
    }

    #[test]
    fn weeklies_monthlies_and_leaps_are_listed_with_holidays_moved_back() {
        let listed = days(&expiries(parse_day("2013-02-25").unwrap()));
        // Weeklies: 2013-03-29 is Good Friday, so that week expires on Thursday.
        for weekly in ["2013-03-01", "2013-03-08", "2013-03-22", "2013-03-28", "2013-04-05"] {
            assert!(listed.contains(&weekly.to_owned()), "{weekly}: {listed:?}");
        }
        assert!(!listed.contains(&"2013-03-29".to_owned()));
        // Monthlies: third Fridays, to February of the next year.
        for monthly in ["2013-03-15", "2013-04-19", "2013-06-21", "2013-12-20", "2014-02-21"] {
            assert!(listed.contains(&monthly.to_owned()), "{monthly}: {listed:?}");
        }
        // LEAPS: the Januaries beyond the monthlies.
        for leaps in ["2015-01-16", "2016-01-15"] {
            assert!(listed.contains(&leaps.to_owned()), "{leaps}: {listed:?}");
        }
        let mut sorted = listed.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, listed, "sorted and without repeats");
        assert!(listed.len() >= 18 && listed.len() <= 22, "{}", listed.len());
    }

    #[test]
    fn third_fridays_are_monthly_and_the_rest_weekly() {
        assert_eq!(cycle(parse_day("2013-03-15").unwrap()), "MONTHLY");
        assert_eq!(cycle(parse_day("2013-03-22").unwrap()), "WEEKLY");
        assert_eq!(cycle(parse_day("2015-01-16").unwrap()), "MONTHLY");
    }

    #[test]
    fn a_days_own_expiry_is_listed_that_day_and_gone_the_next() {
        let friday = parse_day("2013-03-15").unwrap();
        assert_eq!(expiries(friday)[0], friday);
        assert!(expiries(friday + 1)[0] > friday);
    }

    #[test]
    fn strikes_span_half_to_one_and_a_half_times_at_the_usual_increment() {
        let aapl = strikes(443.66);
        assert_eq!(aapl.first(), Some(&Decimal::from(230)));
        assert_eq!(aapl.last(), Some(&Decimal::from(660)));
        assert!(aapl.windows(2).all(|w| w[1] - w[0] == Decimal::from(10)));
        let f = strikes(12.5);
        assert_eq!((f[0], *f.last().unwrap()), (Decimal::from(7), Decimal::from(18)));
        assert_eq!(strikes(60.0)[1] - strikes(60.0)[0], Decimal::new(25, 1));
        assert!(strikes(3.0).iter().all(|s| *s > Decimal::ZERO));
        assert!(strikes(f64::NAN).is_empty() && strikes(0.0).is_empty());
    }
}
