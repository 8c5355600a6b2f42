//! An instrument's day as a plan: its daily bar, either the stored one (replay) or a seeded
//! draw from the previous close; [`super::daypath`] draws the seconds of the day from it.

use super::clock::core_close;
use super::mix::Mix;
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

    /// The day moved by `ratio` of its prices after the same previous close: it opens with that
    /// gap, trades and closes that much away (a scenario rule's gap at the open).
    pub fn gapped(self, ratio: f64) -> Self {
        let moved = |x: f64| (x * (1.0 + ratio)).max(0.01);
        DayPlan {
            open: moved(self.open),
            high: moved(self.high),
            low: moved(self.low),
            close: moved(self.close),
            ..self
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drawn_day_is_a_function_of_its_seed() {
        assert_eq!(
            DayPlan::draw(1, 2, 3, 50.0, 0.02, 1e5),
            DayPlan::draw(1, 2, 3, 50.0, 0.02, 1e5)
        );
        let d = DayPlan::draw(1, 2, 3, 50.0, 0.02, 1e5);
        assert!(d.low <= d.open.min(d.close) && d.high >= d.open.max(d.close));
    }
}
