//! The sessions around the core one, which trade thinly: the overnight session's morning
//! (00:00–04:00 New York), the pre-market (04:00–09:30), the after hours (from the core close to
//! 20:00, 17:00 on an early-close day) and the overnight session's evening (from then to
//! midnight, when the next day trades).
//!
//! - **Price.** A fat-tailed walk with a knot every five minutes, bridged: in the morning from
//!   the previous close to the day's open (the gap forms before the open), in the evening from
//!   the close back to it at midnight. Its steps are half the core session's (a quarter
//!   overnight).
//! - **Volume.** Shares of the core session's volume: 1.5 % in the pre-market, rising into the
//!   open; 2 % in the after hours, most of it in the first half hour; 0.3 % overnight, evenly.
//!   (Large US stocks trade about 1–3 % of their day outside the core session, the overnight
//!   venues a fraction of a percent.)
//! - **Prints.** A minute prints a drawn number of trades (as many as its volume makes at 150
//!   shares a print on average, often none in a thin name) at drawn seconds, in sizes with the
//!   core tape's heavy tail, each at the walk's price of its second.
//!
//! Every print is a pure function of the seed, the instrument, the day and its minute, so a
//! price, a tick or an extended-hours figure is computed without the ones before it.

#![expect(
    clippy::cast_possible_truncation,
    reason = "draws become prices in cents, sizes and seconds far inside the integers they are cast to"
)]

use super::clock::{CORE_OPEN, PRE_OPEN};
use super::mix::Mix;
use super::path::Trade;

const MINUTE: i64 = 60;
const DAY: i64 = 86_400;
/// Seconds between two knots of the walk.
const KNOT: i64 = 300;

/// The share of the core session's volume each session prints.
const PRE_SHARE: f64 = 0.015;
const AFTER_SHARE: f64 = 0.02;
/// Over the night's eight hours, evening and morning together.
const OVERNIGHT_SHARE: f64 = 0.003;
/// Shares a print averages; its sizes are a Pareto tail of index 1.6 above 3/8 of it.
const MEAN_PRINT: f64 = 150.0;
const SMALLEST_PRINT: f64 = MEAN_PRINT * 0.6 / 1.6;
/// No print is larger: the tail is cut where a thin session's book would have run dry.
const LARGEST_PRINT: f64 = 20_000.0;
/// Minutes a price looks back for the last print before it takes the session's reference (the
/// previous close in the morning, the close in the evening): a thin name may print rarely.
const LOOKBACK: i64 = 120;

/// One day's extended sessions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Extended {
    /// The walk's price in cents every [`KNOT`] seconds from midnight to the core open.
    morning: Vec<i64>,
    /// The same from the core close to midnight.
    evening: Vec<i64>,
    prev_close: i64,
    close: i64,
    core_close: i64,
    after_close: i64,
    /// Whether the overnight session trades this evening (the next day is a trading day).
    overnight_evening: bool,
    /// The core session's volume, which these sessions print shares of.
    volume: f64,
    draws: Mix,
}

/// What a day's extended sessions are drawn from, in cents, shares and seconds.
pub(crate) struct Ends {
    pub prev_close: i64,
    pub open: i64,
    pub close: i64,
    pub volume: u64,
    /// The core session's one-minute volatility, in cents.
    pub minute_volatility: f64,
    pub core_close: i64,
    pub after_close: i64,
    pub overnight_evening: bool,
}

impl Extended {
    pub(crate) fn draw(ends: &Ends, rng: &Mix) -> Self {
        let knot_volatility = ends.minute_volatility * ((KNOT / MINUTE) as f64).sqrt();
        let step = |second: i64, after: i64| {
            let quiet = second < PRE_OPEN || second >= after;
            knot_volatility * if quiet { 0.25 } else { 0.5 }
        };
        let morning = bridge(
            &mut rng.salted(1),
            ends.prev_close,
            ends.open,
            (0..CORE_OPEN / KNOT).map(|i| step(i * KNOT, ends.after_close)),
        );
        let evening = bridge(
            &mut rng.salted(2),
            ends.close,
            ends.close,
            (0..(DAY - ends.core_close) / KNOT).map(|i| step(ends.core_close + i * KNOT, ends.after_close)),
        );
        Extended {
            morning,
            evening,
            prev_close: ends.prev_close,
            close: ends.close,
            core_close: ends.core_close,
            after_close: ends.after_close,
            overnight_evening: ends.overnight_evening,
            volume: ends.volume as f64,
            draws: rng.salted(3),
        }
    }

    /// The walk's price at `second` (outside the core session), in cents.
    fn level(&self, second: i64) -> i64 {
        let (knots, from) = if second < CORE_OPEN {
            (&self.morning, 0)
        } else {
            (&self.evening, self.core_close)
        };
        let i = usize::try_from((second - from) / KNOT)
            .unwrap_or(0)
            .min(knots.len() - 2);
        let f = ((second - from) as f64 / KNOT as f64 - i as f64).clamp(0.0, 1.0);
        let (a, b) = (knots[i] as f64, knots[i + 1] as f64);
        (a + (b - a) * f).round().max(1.0) as i64
    }

    /// Shares a minute starting at `second` prints on average.
    fn rate(&self, second: i64) -> f64 {
        let v = self.volume;
        if second < PRE_OPEN || (second >= self.after_close && self.overnight_evening) {
            v * OVERNIGHT_SHARE / 480.0
        } else if second < CORE_OPEN {
            // e^(-t/60) over the pre-market's 330 minutes adds up to 60 of them.
            v * PRE_SHARE * ((second - CORE_OPEN) as f64 / 3600.0).exp() / 60.0
        } else if second < self.core_close || second >= self.after_close {
            0.0
        } else {
            let t = (second - self.core_close) as f64 / 60.0;
            let minutes = (self.after_close - self.core_close) as f64 / 60.0;
            v * AFTER_SHARE * (0.8 * (-t / 30.0).exp() / 30.0 + 0.2 / minutes)
        }
    }

    /// The prints of the minute `m` of the day (its first second is `60 m`), oldest first; none
    /// within the core session.
    fn prints(&self, m: i64) -> impl Iterator<Item = Trade> + '_ {
        let start = m * MINUTE;
        let expected = self.rate(start) / MEAN_PRINT;
        let n = ((expected + self.draws.salted(1).at(m)).floor() as i64).clamp(0, MINUTE);
        (0..n).map(move |i| {
            let key = start + i;
            // Stratified: the i-th of n prints falls in the i-th n-th of the minute.
            let second = start + ((i as f64 + self.draws.salted(2).at(key)) * MINUTE as f64 / n as f64) as i64;
            // (1 - u)^(-5/8), a Pareto tail of index 1.6 (as in the core session's tape).
            let x = 1.0 - self.draws.salted(3).at(key);
            let share = (SMALLEST_PRINT / (x.sqrt() * x.sqrt().sqrt().sqrt())).min(LARGEST_PRINT);
            let volume = if share >= 100.0 && self.draws.salted(4).at(key) >= 0.2 {
                (share / 100.0).round() * 100.0
            } else {
                share.round().max(1.0)
            };
            Trade {
                second: second.min(start + MINUTE - 1),
                cents: self.level(second),
                volume: volume as u64,
            }
        })
    }

    /// The prints in `[from, to)` (seconds after New York midnight) outside the core session,
    /// oldest first.
    pub(crate) fn tape(&self, from: i64, to: i64) -> impl Iterator<Item = Trade> + '_ {
        let (from, to) = (from.max(0), to.min(DAY));
        let minutes = from.div_euclid(MINUTE)..(to + MINUTE - 1).div_euclid(MINUTE);
        minutes
            .filter(|&m| {
                let start = m * MINUTE;
                start < CORE_OPEN || start >= self.core_close
            })
            .flat_map(|m| self.prints(m))
            .filter(move |t| (from..to).contains(&t.second))
    }

    /// The last print before `until` in its stretch of extended sessions (the morning's or the
    /// evening's) within [`LOOKBACK`] minutes.
    pub(crate) fn last_before(&self, until: i64) -> Option<Trade> {
        let start = if until <= CORE_OPEN { 0 } else { self.core_close };
        // An evening without an overnight session printed last in the after hours.
        let until = if self.overnight_evening {
            until
        } else {
            until.min(self.after_close)
        };
        let last_minute = (until - 1).div_euclid(MINUTE);
        let first_minute = start.div_euclid(MINUTE).max(last_minute - LOOKBACK);
        (first_minute..=last_minute)
            .rev()
            .find_map(|m| self.prints(m).filter(|t| t.second < until).last())
    }

    /// The price at `second` (outside the core session): its last print, or the stretch's
    /// reference when there was none lately.
    pub(crate) fn price_at(&self, second: i64) -> i64 {
        self.last_before(second + 1).map_or(
            if second < CORE_OPEN {
                self.prev_close
            } else {
                self.close
            },
            |t| t.cents,
        )
    }
}

/// A walk from `from` to `to` with steps of the given volatilities (fat-tailed), as prices in
/// cents of at least one: one more point than steps.
fn bridge(rng: &mut Mix, from: i64, to: i64, steps: impl Iterator<Item = f64>) -> Vec<i64> {
    let mut walk = vec![0.0];
    for sigma in steps {
        let last = walk[walk.len() - 1];
        walk.push(last + sigma * rng.fat_tailed());
    }
    let n = (walk.len() - 1).max(1) as f64;
    let end = walk[walk.len() - 1];
    walk.iter()
        .enumerate()
        .map(|(i, w)| {
            let f = i as f64 / n;
            (from as f64 + (to - from) as f64 * f + w - end * f).round().max(1.0) as i64
        })
        .collect()
}
