//! Where an instrument's price is at any moment of a simulated day: a pure function of the day's
//! plan, the seed and the second, so that quotes are the same however often they are read.
//!
//! A day's plan is its real bar when the database has one (replay) or else a seeded draw from
//! the previous close. Within the core session the price walks open → low → high → close (or
//! open → high → low → close on a falling day), reaching each point a third of the way further
//! (of a session that ends at 13:00 on an early-close day),
//! with a small deterministic jitter kept inside the day's range. Before the open it moves from
//! the previous close to the open; after the close it stays near the close.

use super::clock::{AFTER_CLOSE, CORE_OPEN, PRE_OPEN, core_close};
use crate::marketdata::Bar;

/// One instrument's day, in dollars.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DayPlan {
    pub day: i32,
    pub prev_close: f64,
    pub open: f64,
    pub high: f64,
    pub low: f64,
    pub close: f64,
    pub volume: f64,
    /// The plan comes from a stored bar rather than a draw.
    pub replayed: bool,
}

/// Relative size of the jitter around the planned path.
const JITTER: f64 = 0.0015;

impl DayPlan {
    /// A drawn day following `prev_close`, with daily volatility `vol`, for `instrument` on `day`.
    pub fn draw(seed: u64, instrument: i64, day: i32, prev_close: f64, vol: f64, volume: f64) -> Self {
        let mut rng = Mix::new(seed, instrument, day);
        let close = (prev_close * (rng.normal() * vol).exp()).max(0.01);
        let open = (prev_close * (rng.normal() * vol * 0.3).exp()).max(0.01);
        let high = open.max(close) * (rng.normal().abs() * vol * 0.5).exp();
        let low = open.min(close) * (-rng.normal().abs() * vol * 0.5).exp();
        let volume = volume * (rng.normal() * 0.3).exp();
        DayPlan {
            day,
            prev_close,
            open,
            high,
            low,
            close,
            volume,
            replayed: false,
        }
    }

    /// The day as a daily bar, prices to the cent as quoted.
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a simulated price or volume is far below 2^63"
    )]
    pub fn bar(&self) -> Bar {
        let micros = |x: f64| cents(x) * 10_000;
        let (open, close) = (micros(self.open), micros(self.close));
        Bar {
            day: self.day,
            open,
            high: micros(self.high).max(open).max(close),
            low: micros(self.low).min(open).min(close),
            close,
            volume: self.volume.round() as i64,
            adj_close: None,
        }
    }

    /// The planned price `second` seconds after New York midnight.
    pub fn price_at(&self, seed: u64, instrument: i64, second: i64) -> f64 {
        self.price_in(seed, instrument, second, self.core_close())
    }

    /// [`DayPlan::price_at`] in a core session that closes at `close` (the calendar's close is
    /// reckoned once for a day's trades, not once a second: [`super::intraday::trades`]).
    pub(super) fn price_in(&self, seed: u64, instrument: i64, second: i64, close: i64) -> f64 {
        let jitter = |scale: f64| {
            let u = Mix::new(seed ^ 0x5151, instrument, self.day).at(second);
            1.0 + (u * 2.0 - 1.0) * JITTER * scale
        };
        let planned = if second < PRE_OPEN {
            return self.prev_close;
        } else if second < CORE_OPEN {
            let f = (second - PRE_OPEN) as f64 / (CORE_OPEN - PRE_OPEN) as f64;
            self.prev_close + (self.open - self.prev_close) * f
        } else if second < close {
            let (i, f) = leg(second, close);
            let points = self.points();
            points[i] + (points[i + 1] - points[i]) * f
        } else if second < AFTER_CLOSE {
            self.close
        } else {
            return self.close;
        };
        // The open, the low, the high and the close themselves are exact, so that the day's trades
        // reach its bar; in between the price wanders a little.
        let at_a_point = knots(close).iter().any(|&k| second == CORE_OPEN + k);
        let price = if at_a_point {
            planned
        } else {
            planned * jitter(if second < close { 1.0 } else { 0.3 })
        };
        if (CORE_OPEN..close).contains(&second) {
            price.clamp(self.low, self.high)
        } else {
            price
        }
    }

    /// Shares traded before `second` began (the day's volume spread evenly over the core
    /// session), whole shares: the day's last second brings it to the bar's volume.
    pub fn volume_before(&self, second: i64) -> u64 {
        self.volume_in(second, self.core_close())
    }

    #[expect(
        clippy::cast_possible_truncation,
        reason = "a day's simulated volume is far below 2^63"
    )]
    /// [`DayPlan::volume_before`] in a core session that closes at `close`.
    pub(super) fn volume_in(&self, second: i64, close: i64) -> u64 {
        let f = ((second - CORE_OPEN) as f64 / (close - CORE_OPEN) as f64).clamp(0.0, 1.0);
        (self.volume * f).round().max(0.0) as u64
    }

    /// A day replayed from its stored bar (prices in micros) after a close of `prev_close`.
    pub fn replay(day: i32, prev_close: f64, bar: &Bar) -> Self {
        DayPlan {
            day,
            prev_close,
            open: bar.open as f64 / 1e6,
            high: bar.high as f64 / 1e6,
            low: bar.low as f64 / 1e6,
            close: bar.close as f64 / 1e6,
            volume: bar.volume as f64,
            replayed: true,
        }
    }

    /// The core session's close on this day: 16:00, 13:00 on an early-close day.
    pub fn core_close(&self) -> i64 {
        core_close(self.day)
    }

    /// The four points of the core session's walk: open, then low and high (or high and low on
    /// a falling day), then close.
    fn points(&self) -> [f64; 4] {
        if self.close >= self.open {
            [self.open, self.low, self.high, self.close]
        } else {
            [self.open, self.high, self.low, self.close]
        }
    }
}

/// One second's trading in the core session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trade {
    /// Seconds after New York midnight.
    pub second: i64,
    /// The price, in cents.
    pub cents: i64,
    /// Shares traded in this second.
    pub volume: u64,
}

/// A price in dollars to whole cents (at least one), as every quote shows it.
#[expect(
    clippy::cast_possible_truncation,
    reason = "a simulated price is far below 2^63 cents"
)]
pub fn cents(x: f64) -> i64 {
    (x * 100.0).round().max(1.0) as i64
}

/// Seconds after the open at which the walk reaches each of its points exactly, for a core
/// session closing at `close`: the first second, a third and two thirds of the way, the last.
fn knots(close: i64) -> [i64; 4] {
    let last = close - 1 - CORE_OPEN;
    [0, last / 3, 2 * last / 3, last]
}

/// Which leg of the walk `second` (of a core session closing at `close`) is on, and how far
/// along it.
fn leg(second: i64, close: i64) -> (usize, f64) {
    let knots = knots(close);
    let t = (second - CORE_OPEN).clamp(0, knots[3]);
    let i = if t < knots[1] {
        0
    } else if t < knots[2] {
        1
    } else {
        2
    };
    (i, (t - knots[i]) as f64 / (knots[i + 1] - knots[i]) as f64)
}

/// A small deterministic mixer (SplitMix64 finalizer) keyed by seed, instrument and day.
struct Mix {
    state: u64,
}

impl Mix {
    fn new(seed: u64, instrument: i64, day: i32) -> Self {
        let key = seed
            ^ (instrument as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (day as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        Mix { state: key }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let u1 = self.uniform().max(f64::MIN_POSITIVE);
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * self.uniform()).cos()
    }

    /// A uniform number in [0, 1) for one second of the day, independent of any other read.
    fn at(&self, second: i64) -> f64 {
        let mut m = Mix {
            state: self.state ^ (second as u64).wrapping_mul(0xA24B_AED4_963E_E407),
        };
        m.uniform()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulator::clock::CORE_CLOSE;

    fn rising() -> DayPlan {
        DayPlan {
            day: 1,
            prev_close: 99.0,
            open: 100.0,
            high: 110.0,
            low: 95.0,
            close: 105.0,
            volume: 1e6,
            replayed: true,
        }
    }

    #[test]
    fn the_core_session_walks_open_low_high_close() {
        // A full day, and an early close (2013-07-03): the walk fits the session either way.
        let early = crate::marketdata::units::parse_day("2013-07-03").unwrap();
        for (p, close) in [(rising(), CORE_CLOSE), (DayPlan { day: early, ..rising() }, 13 * 3600)] {
            assert_eq!(p.core_close(), close);
            let knots = knots(close);
            assert_eq!(p.price_at(1, 1, CORE_OPEN), 100.0);
            assert_eq!(p.price_at(1, 1, close - 1), 105.0);
            // Exactly, not merely near: the day's trades reach its bar's low and high.
            assert_eq!(p.price_at(1, 1, CORE_OPEN + knots[1]), 95.0, "the low a third in");
            assert_eq!(p.price_at(1, 1, CORE_OPEN + knots[2]), 110.0, "then the high");
            for s in (CORE_OPEN..close).step_by(97) {
                let price = p.price_at(1, 1, s);
                assert!((95.0..=110.0).contains(&price), "{s}: {price}");
            }
            assert_eq!(p.price_at(1, 1, 100), 99.0, "before the pre-market: the previous close");
            assert_eq!(p.price_at(1, 1, AFTER_CLOSE + 10), 105.0);
            // The day's volume is traded by the close.
            assert_eq!(p.volume_before(close), 1_000_000);
            assert!(p.volume_before(close - 60) < 1_000_000);
        }
    }

    #[test]
    fn prices_are_a_function_of_the_second() {
        let p = rising();
        let s = CORE_OPEN + 1234;
        assert_eq!(p.price_at(7, 3, s), p.price_at(7, 3, s));
        assert_ne!(p.price_at(7, 3, s), p.price_at(8, 3, s), "the seed matters");
        assert_eq!(
            DayPlan::draw(1, 2, 3, 50.0, 0.02, 1e5),
            DayPlan::draw(1, 2, 3, 50.0, 0.02, 1e5)
        );
        let d = DayPlan::draw(1, 2, 3, 50.0, 0.02, 1e5);
        assert!(d.low <= d.open.min(d.close) && d.high >= d.open.max(d.close));
    }
}
