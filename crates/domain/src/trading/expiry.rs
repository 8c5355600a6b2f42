//! When an order expires by its time in force, on the simulated clock: a DAY order at the next
//! close of the sessions it may trade in, a GTD order at that close on its last day.

use signet_model::orders::{TimeInForce, TradingSession};

use crate::simulator::calendar;
use crate::simulator::clock::{NewYork, PRE_OPEN, after_close, core_close, utc_ms_of};
use crate::times::SimTime;

/// The simulated moment (UTC milliseconds) an order placed at `now_sim_ms` expires; `None` for
/// GTC and IOC orders (an IOC order ends at its first tick instead). `expire_day` is a GTD
/// order's last day.
pub fn expires_at(
    time_in_force: TimeInForce,
    session: TradingSession,
    expire_day: Option<i32>,
    now: SimTime,
) -> Option<SimTime> {
    match time_in_force {
        TimeInForce::Day => Some(SimTime(day_order_expiry(now.0, session))),
        TimeInForce::Gtd => expire_day.map(|day| SimTime(utc_ms_of(day, session_close(session, day)))),
        TimeInForce::Gtc | TimeInForce::Ioc => None,
    }
}

/// The next close of `session` on a trading day: today's when it is a trading day still before
/// it.
fn day_order_expiry(now_sim_ms: i64, session: TradingSession) -> i64 {
    let now = NewYork::of(now_sim_ms);
    let day = if !now.is_trading_day() || now.second >= session_close(session, now.day) {
        calendar::next_trading_day(now.day)
    } else {
        now.day
    };
    utc_ms_of(day, session_close(session, day))
}

/// The second of New York `day` an order's sessions end: the core close, the after-hours
/// close (earlier on an early-close day), or the overnight session's close in the morning.
fn session_close(session: TradingSession, day: i32) -> i64 {
    match session {
        TradingSession::Core | TradingSession::N => core_close(day),
        TradingSession::All | TradingSession::AllDay => after_close(day),
        TradingSession::Night => PRE_OPEN,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::marketdata::units::parse_day;

    /// `date` at `hour:minute` New York.
    fn at(date: &str, hour: i64, minute: i64) -> i64 {
        utc_ms_of(parse_day(date).unwrap(), hour * 3600 + minute * 60)
    }

    #[test]
    fn a_day_order_expires_at_todays_close_of_its_sessions() {
        // 2026-03-06 is a Friday.
        let morning = at("2026-03-06", 10, 0);
        assert_eq!(
            expires_at(TimeInForce::Day, TradingSession::Core, None, SimTime(morning)),
            Some(SimTime(at("2026-03-06", 16, 0)))
        );
        assert_eq!(
            expires_at(TimeInForce::Day, TradingSession::All, None, SimTime(morning)),
            Some(SimTime(at("2026-03-06", 20, 0)))
        );
    }

    #[test]
    fn after_the_close_or_on_a_weekend_a_day_order_lasts_to_the_next_weekdays_close() {
        let friday_evening = at("2026-03-06", 16, 0);
        assert_eq!(
            expires_at(TimeInForce::Day, TradingSession::Core, None, SimTime(friday_evening)),
            Some(SimTime(at("2026-03-09", 16, 0)))
        );
        let sunday = at("2026-03-08", 12, 0);
        assert_eq!(
            expires_at(TimeInForce::Day, TradingSession::Night, None, SimTime(sunday)),
            Some(SimTime(at("2026-03-09", 4, 0)))
        );
    }

    #[test]
    fn on_an_early_close_day_a_day_order_expires_at_13_00_or_17_00() {
        let morning = at("2013-11-29", 10, 0);
        assert_eq!(
            expires_at(TimeInForce::Day, TradingSession::Core, None, SimTime(morning)),
            Some(SimTime(at("2013-11-29", 13, 0)))
        );
        assert_eq!(
            expires_at(TimeInForce::Day, TradingSession::All, None, SimTime(morning)),
            Some(SimTime(at("2013-11-29", 17, 0)))
        );
        // Placed after the early close: the next trading day's close.
        assert_eq!(
            expires_at(
                TimeInForce::Day,
                TradingSession::Core,
                None,
                SimTime(at("2013-11-29", 14, 0))
            ),
            Some(SimTime(at("2013-12-02", 16, 0)))
        );
    }

    #[test]
    fn a_gtd_order_expires_at_its_last_days_close_and_gtc_never() {
        let day = parse_day("2026-04-01").unwrap();
        assert_eq!(
            expires_at(TimeInForce::Gtd, TradingSession::Core, Some(day), SimTime(0)),
            Some(SimTime(at("2026-04-01", 16, 0)))
        );
        assert_eq!(
            expires_at(TimeInForce::Gtc, TradingSession::Core, None, SimTime(0)),
            None
        );
        assert_eq!(
            expires_at(TimeInForce::Ioc, TradingSession::Core, None, SimTime(0)),
            None
        );
    }

    proptest! {
        /// A DAY order expires after it is placed, within five days (a Friday evening's order
        /// lasts to Monday, or Tuesday after a Monday holiday), at a close on a trading day.
        #[test]
        fn a_day_order_expires_soon_after_on_a_weekday(now in 0i64..4_000_000_000_000, all in any::<bool>()) {
            let session = if all { TradingSession::All } else { TradingSession::Core };
            let expiry = expires_at(TimeInForce::Day, session, None, SimTime(now)).unwrap().0;
            prop_assert!(expiry > now);
            prop_assert!(expiry - now <= 5 * 86_400_000);
            let ny = NewYork::of(expiry);
            prop_assert!(ny.is_trading_day());
            prop_assert_eq!(ny.second, session_close(session, ny.day));
        }
    }
}
