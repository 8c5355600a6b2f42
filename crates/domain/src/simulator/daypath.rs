//! Where an instrument trades at each second of a simulated day: drawn once per day from the
//! day's bar (its open, high, low, close and volume, to the cent), the seed and the instrument,
//! so that every node computes the same prices, and a drawn day replayed later from the bar
//! it stored is the day that was drawn.
//!
//! The core session is drawn minute by minute, then each minute second by second:
//! - the day's low and high are each reached in one minute only, drawn with the arcsine law of
//!   a random walk's extremes (near the open or the close more often than at midday), unless
//!   the day opens or closes at one of them;
//! - between them the price is a random walk whose one-minute moves are fat-tailed (Student's
//!   t, 6 degrees of freedom), cluster (GARCH(1,1)) and are larger near the open and the close
//!   (a "U" of volatility), folded back inside the day's range a cent from its ends, so that no
//!   other minute reaches the day's low or high;
//! - the day's volume is spread over the minutes with the intraday "U" (about 2.5 times the
//!   midday rate in the first half hour, about 1.9 times in the last), lognormal noise, and more
//!   in the minutes that move more;
//! - within a minute the price goes from its open through its low and its high (at drawn
//!   seconds) to its close, and the minute's volume is printed second by second in sizes that
//!   look like a tape: round lots, some odd sizes, a heavy tail.
//!
//! Around the core session the market trades thinly ([`super::extended`]): the gap from the
//! previous close to the open forms overnight and in the pre-market, and after the close the
//! price wanders around it.

#![expect(
    clippy::cast_possible_truncation,
    reason = "draws become prices in cents, sizes and seconds far inside the integers they are cast to"
)]

use super::clock::{self, CORE_OPEN};
use super::extended::{Ends, Extended};
use super::intraday::Candle;
use super::mix::Mix;
use super::path::{DayPlan, Trade};
use crate::marketdata::{Bar, MinuteBar};

/// Seconds in a minute, the path's unit.
const MINUTE: i64 = 60;

/// One minute of the core session, prices in cents above the day's low (so that a day of
/// minutes is small: every instrument's day may be held at once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Minute {
    open: u32,
    high: u32,
    low: u32,
    close: u32,
    volume: u64,
}

/// The prints of a stretch of an extended session, as one bar, and the second of the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stretch {
    pub bar: Candle,
    pub last_second: i64,
}

/// One instrument's simulated day, second by second.
#[derive(Debug, Clone, PartialEq)]
pub struct DayPath {
    day: i32,
    /// The day's low, in cents: the minutes' prices are counted from it.
    base: i64,
    prev_close: i64,
    /// The second the core session closes at.
    close_second: i64,
    /// Draws of the seconds within the minutes.
    seconds: Mix,
    /// The bar the path was drawn from, to the cent.
    bar: Bar,
    minutes: Vec<Minute>,
    /// The sessions around the core one.
    extended: Extended,
}

impl DayPath {
    /// `plan`'s day, drawn minute by minute from its bar.
    pub fn draw(plan: &DayPlan, seed: u64, instrument: i64) -> Self {
        let bar = plan.bar();
        let cents = |micros: i64| micros / 10_000;
        let day = Day {
            open: cents(bar.open),
            high: cents(bar.high),
            low: cents(bar.low),
            close: cents(bar.close),
            volume: u64::try_from(bar.volume).unwrap_or(0),
        };
        let close_second = plan.core_close();
        let n = usize::try_from((close_second - CORE_OPEN) / MINUTE).unwrap_or(1).max(1);
        let rng = Mix::new(seed, instrument, plan.day).salted(0xDA7_9A7);
        let minutes = day.minutes(&mut rng.salted(1), n);
        let prev_close = super::path::cents(plan.prev_close);
        let extended = Extended::draw(
            &Ends {
                prev_close,
                open: day.open,
                close: day.close,
                volume: day.volume,
                minute_volatility: day.minute_volatility(n),
                core_close: close_second,
                after_close: clock::after_close(plan.day),
                overnight_evening: super::calendar::is_trading_day(plan.day + 1),
            },
            &rng.salted(9),
        );
        DayPath {
            day: plan.day,
            base: day.low,
            prev_close,
            close_second,
            seconds: rng.salted(2),
            bar,
            minutes,
            extended,
        }
    }

    /// `plan`'s day replayed from its imported one-minute bars: each minute is the file's (to the
    /// cent), a minute the file lacks repeats the price before it without trading, and the
    /// seconds within each minute are drawn as a drawn day's are.
    pub fn replay(plan: &DayPlan, seed: u64, instrument: i64, imported: &[MinuteBar]) -> Self {
        let mut path = DayPath::draw(plan, seed, instrument);
        let n = path.minutes.len();
        let cents = |micros: i64| micros / 10_000;
        let mut by_minute: Vec<Option<&MinuteBar>> = vec![None; n];
        for m in imported {
            if let Some(slot) = by_minute.get_mut(usize::from(m.minute)) {
                *slot = Some(m);
            }
        }
        let Some(first) = by_minute.iter().flatten().next() else {
            return path;
        };
        let base = by_minute.iter().flatten().map(|m| cents(m.low)).min().unwrap_or(0);
        let above = |micros: i64| u32::try_from(cents(micros) - base).unwrap_or(u32::MAX);
        let mut last = above(first.open);
        path.minutes = by_minute
            .iter()
            .map(|m| match m {
                Some(m) => {
                    last = above(m.close);
                    Minute {
                        open: above(m.open),
                        high: above(m.high),
                        low: above(m.low),
                        close: last,
                        volume: u64::try_from(m.volume).unwrap_or(0),
                    }
                }
                None => Minute {
                    open: last,
                    high: last,
                    low: last,
                    close: last,
                    volume: 0,
                },
            })
            .collect();
        path.base = base;
        path
    }

    /// Whether this is `plan`'s path (a plan changes within a day only when the history is
    /// imported again, or a split adjusts the previous close).
    pub fn drawn_from(&self, plan: &DayPlan) -> bool {
        self.bar == plan.bar() && self.prev_close == super::path::cents(plan.prev_close)
    }

    pub fn day(&self) -> i32 {
        self.day
    }

    /// The second the core session closes at: 16:00, 13:00 on an early-close day.
    pub fn core_close(&self) -> i64 {
        self.close_second
    }

    /// The day's previous close, in cents.
    pub fn prev_close(&self) -> i64 {
        self.prev_close
    }

    /// The core session's minutes that end by `until` (a second after New York midnight), as
    /// bars, oldest first.
    pub fn whole_minutes(&self, until: i64) -> impl Iterator<Item = Candle> + '_ {
        let whole = usize::try_from((until - CORE_OPEN).div_euclid(MINUTE)).unwrap_or(0);
        (0..whole.min(self.minutes.len())).map(|k| self.candle(k))
    }

    /// The core session before `until` (a second after New York midnight) as one bar: the
    /// day's open, high and low so far, last trade and volume (none before the open). Read for
    /// every snapshot, so it folds the stored minutes without making bars of them.
    pub fn session(&self, until: i64) -> Option<Candle> {
        let into = (until - CORE_OPEN).clamp(0, self.close_second - CORE_OPEN);
        let whole = usize::try_from(into / MINUTE).unwrap_or(0).min(self.minutes.len());
        let done = &self.minutes[..whole];
        let mut day = done.first().map(|first| {
            let (mut high, mut low, mut volume) = (first.high, first.low, 0);
            for m in done {
                high = high.max(m.high);
                low = low.min(m.low);
                volume += m.volume;
            }
            Candle {
                day: self.day,
                start: CORE_OPEN,
                open: self.price(first.open),
                high: self.price(high),
                low: self.price(low),
                close: self.price(done[whole - 1].close),
                volume,
            }
        });
        let minute = CORE_OPEN + MINUTE * whole as i64;
        let mut under_way = super::intraday::candles(self.day, self.trades(minute, until), MINUTE);
        if let Some(part) = under_way.pop() {
            match &mut day {
                Some(day) => day.absorb(&part),
                None => {
                    day = Some(Candle {
                        start: CORE_OPEN,
                        ..part
                    });
                }
            }
        }
        day
    }

    /// The core session's last whole minute before the one `second` falls in: how the market
    /// was moving just before, which the book's spread and sizes follow (none in the first
    /// minute or outside the session).
    pub fn minute_before(&self, second: i64) -> Option<Candle> {
        if second >= self.close_second {
            return None;
        }
        let k = usize::try_from((second - CORE_OPEN) / MINUTE - 1).ok()?;
        Some(self.candle(k))
    }

    /// Minute `k` of the core session as a bar.
    fn candle(&self, k: usize) -> Candle {
        let m = self.minutes[k];
        Candle {
            day: self.day,
            start: CORE_OPEN + MINUTE * k as i64,
            open: self.price(m.open),
            high: self.price(m.high),
            low: self.price(m.low),
            close: self.price(m.close),
            volume: m.volume,
        }
    }

    fn price(&self, above_low: u32) -> i64 {
        self.base + i64::from(above_low)
    }

    /// The price in cents at `second` after New York midnight: the trade of that second in the
    /// core session, the last print around it ([`Extended::price_at`]).
    pub fn price_at(&self, second: i64) -> i64 {
        if (CORE_OPEN..self.close_second).contains(&second) {
            let k = ((second - CORE_OPEN) / MINUTE) as usize;
            self.second_price(k, second - CORE_OPEN - MINUTE * k as i64)
        } else {
            self.extended.price_at(second)
        }
    }

    /// Shares traded in the core session before `second` began.
    pub fn volume_before(&self, second: i64) -> u64 {
        let into = (second - CORE_OPEN).clamp(0, self.close_second - CORE_OPEN);
        let k = usize::try_from(into / MINUTE).unwrap_or(0);
        let whole: u64 = self.minutes[..k.min(self.minutes.len())].iter().map(|m| m.volume).sum();
        let part = match self.minutes.get(k) {
            Some(_) => self.second_volumes(k)[..usize::try_from(into % MINUTE).unwrap_or(0)]
                .iter()
                .sum(),
            None => 0,
        };
        whole + part
    }

    /// The core session's trades in `[from, to)` (seconds after New York midnight), one a
    /// second, oldest first: ticks, bars and footprints are all made of these.
    pub fn trades(&self, from: i64, to: i64) -> impl Iterator<Item = Trade> + '_ {
        let (from, to) = (from.max(CORE_OPEN), to.min(self.close_second));
        let first = usize::try_from((from - CORE_OPEN).div_euclid(MINUTE)).unwrap_or(0);
        let last = usize::try_from((to - CORE_OPEN + MINUTE - 1).div_euclid(MINUTE)).unwrap_or(0);
        (first..last.min(self.minutes.len())).flat_map(move |k| {
            let start = CORE_OPEN + MINUTE * k as i64;
            let volumes = self.second_volumes(k);
            (start.max(from)..(start + MINUTE).min(to)).map(move |second| {
                let s = second - start;
                Trade {
                    second,
                    cents: self.second_price(k, s),
                    volume: volumes[s as usize],
                }
            })
        })
    }

    /// Every print in `[from, to)` (seconds after New York midnight), in every session, oldest
    /// first: the core session's trades, one a second, and the thin prints around them.
    pub fn tape(&self, from: i64, to: i64) -> impl Iterator<Item = Trade> + '_ {
        self.extended
            .tape(from, to.min(CORE_OPEN))
            .chain(self.trades(from, to))
            .chain(self.extended.tape(from.max(self.close_second), to))
    }

    /// The last `count` prints before `until` of the sessions `keep` takes (by their second),
    /// oldest first, and the print before the first of them (the side of a tick is told from
    /// it) when there is one.
    pub fn tape_before(&self, until: i64, count: usize, keep: impl Fn(i64) -> bool) -> Vec<Trade> {
        let mut found: Vec<Trade> = Vec::new();
        let mut to = until.min(86_400);
        // Seconds of tape read going back: enough in the core session (a trade a second), twice
        // as many each time the thin tape had too few.
        let mut stretch = i64::try_from(count).unwrap_or(86_400).clamp(1, 86_400) + 1;
        while to > 0 && found.len() <= count {
            let from = (to - stretch).max(0);
            let mut earlier: Vec<Trade> = self.tape(from, to).filter(|t| keep(t.second)).collect();
            earlier.append(&mut found);
            found = earlier;
            to = from;
            stretch *= 2;
        }
        let skip = found.len().saturating_sub(count + 1);
        found.split_off(skip)
    }

    /// The prints outside the core session in `[since, until)`, as one bar starting at `since`
    /// (none when nothing printed): an extended session's figures so far.
    pub fn extended_between(&self, since: i64, until: i64) -> Option<Stretch> {
        let mut stretch: Option<Stretch> = None;
        for t in self.extended.tape(since, until) {
            let print = Candle::of(self.day, since, &t);
            match &mut stretch {
                Some(s) => {
                    s.bar.absorb(&print);
                    s.last_second = t.second;
                }
                None => {
                    stretch = Some(Stretch {
                        bar: print,
                        last_second: t.second,
                    });
                }
            }
        }
        stretch
    }

    /// The last print before `until` outside the core session, within the stretch `until` falls
    /// in and the last two hours.
    pub fn last_extended_print(&self, until: i64) -> Option<Trade> {
        self.extended.last_before(until)
    }

    /// The seconds (of minute `k`) at which its low and its high trade: at its open or close
    /// when it opens or closes there, otherwise drawn, apart.
    fn extremes(&self, k: usize) -> (i64, i64) {
        let m = self.minutes[k];
        let draw = |salt: u64| 1 + (self.seconds.salted(salt).at(k as i64) * 58.0) as i64;
        let at = |price: u32, salt: u64| {
            if price == m.open {
                0
            } else if price == m.close {
                MINUTE - 1
            } else {
                draw(salt)
            }
        };
        let low = at(m.low, 4);
        let mut high = at(m.high, 5);
        if high == low && m.high != m.low {
            high = if low < MINUTE - 2 { low + 1 } else { low - 1 };
        }
        (low, high)
    }

    /// The price in cents `s` seconds into minute `k`: the minute's open, low, high and close at
    /// their seconds, and in between a line through them with a little noise inside the minute's
    /// range.
    fn second_price(&self, k: usize, s: i64) -> i64 {
        let m = self.minutes[k];
        let (at_low, at_high) = self.extremes(k);
        let mut knots = [(0, m.open), (at_low, m.low), (at_high, m.high), (MINUTE - 1, m.close)];
        // The open and the close win over an extreme drawn at the same second.
        if let Some(&(_, price)) = [knots[0], knots[3], knots[1], knots[2]].iter().find(|(t, _)| *t == s) {
            return self.price(price);
        }
        knots.sort_by_key(|&(t, _)| t);
        let i = knots.iter().rposition(|&(t, _)| t < s).unwrap_or(0);
        let ((t0, p0), (t1, p1)) = (knots[i], knots[(i + 1).min(3)]);
        let f = if t1 > t0 {
            (s - t0) as f64 / (t1 - t0) as f64
        } else {
            0.0
        };
        let line = f64::from(p0) + (f64::from(p1) - f64::from(p0)) * f;
        let noise = (self.seconds.salted(6).at(k as i64 * MINUTE + s) - 0.5) * 0.2 * f64::from(m.high - m.low);
        let price = (line + noise).round().clamp(f64::from(m.low), f64::from(m.high));
        self.base + price as i64
    }

    /// Minute `k`'s volume printed second by second: sizes drawn from a heavy tail (Pareto, index
    /// 1.6), mostly in round lots of 100, some odd; the last second takes what is left, so that
    /// the seconds add up to the minute.
    fn second_volumes(&self, k: usize) -> [u64; MINUTE as usize] {
        let volume = self.minutes[k].volume;
        let draws = self.seconds.salted(7);
        let mut weights = [0.0; MINUTE as usize];
        for (i, w) in weights.iter_mut().enumerate() {
            // (1 - u)^(-5/8), a Pareto tail of index 1.6, as two square roots and a cube of
            // them: this runs for every quote, and `powf` was most of a quote's cost.
            let x = 1.0 - draws.at(k as i64 * MINUTE + i as i64);
            let eighth = x.sqrt().sqrt().sqrt();
            *w = 1.0 / (x.sqrt() * eighth);
        }
        let total: f64 = weights.iter().sum();
        let odd = self.seconds.salted(8);
        let mut out = [0; MINUTE as usize];
        let mut left = volume;
        for (i, w) in weights.iter().enumerate().take(MINUTE as usize - 1) {
            let share = volume as f64 * w / total;
            let size = if share >= 100.0 && odd.at(k as i64 * MINUTE + i as i64) >= 0.2 {
                (share / 100.0).round() * 100.0
            } else {
                share.round()
            };
            out[i] = (size as u64).min(left);
            left -= out[i];
        }
        out[MINUTE as usize - 1] = left;
        out
    }
}

/// A day's bar in cents, which its minutes are drawn to reproduce.
struct Day {
    open: i64,
    high: i64,
    low: i64,
    close: i64,
    volume: u64,
}

/// Persistence and reach of the one-minute volatility's clustering (GARCH(1,1), which keeps
/// the long-run variance at 1 with `1 - ALPHA - BETA` as its constant).
const ALPHA: f64 = 0.10;
const BETA: f64 = 0.85;

/// The most the walk's drift may cover in a minute between two points it must reach, in one-
/// minute volatilities: more, and the minute is a jump no market makes without news.
const REACH: f64 = 1.5;

impl Day {
    /// The one-minute volatility of a day of `n` minutes, in cents: the range of a random walk
    /// of n steps is about 1.6 √n steps.
    fn minute_volatility(&self, n: usize) -> f64 {
        (self.high - self.low) as f64 / (1.6 * (n as f64).sqrt())
    }

    /// The day's `n` minutes.
    fn minutes(&self, rng: &mut Mix, n: usize) -> Vec<Minute> {
        let (low, high) = (self.low, self.high);
        // Room strictly inside the day's range: the only minutes that reach its low or high are
        // the ones drawn for them.
        let inside = high - low >= 2;
        let (floor, ceiling) = if inside { (low + 1, high - 1) } else { (low, high) };
        // The one-minute volatility (a multiple of `scale`, in cents).
        let scale = self.minute_volatility(n);
        let mut variance: f64 = 1.0;
        let mut sigma = Vec::with_capacity(n);
        let mut moves = Vec::with_capacity(n);
        for k in 0..n {
            let s = volatility_profile(k, n) * variance.sqrt();
            let z = rng.fat_tailed();
            sigma.push(s);
            moves.push(s * z * scale);
            variance = (1.0 - ALPHA - BETA) + ALPHA * z * z * variance + BETA * variance;
        }
        // The points between minutes: 0 is the open, n the close, k the close of minute k - 1.
        // An extreme `away` cents from the open cannot come sooner than the walk takes to get
        // there (nor closer to the close than it takes to come back), or one minute would jump.
        let minutes_for = |away: i64| (away as f64 / (REACH * scale.max(f64::MIN_POSITIVE))).ceil() as usize;
        let window = |price: i64| {
            let first = minutes_for((price - self.open).abs()).clamp(1, n - 1);
            let last = n
                .saturating_sub(minutes_for((price - self.close).abs()))
                .clamp(1, n - 1);
            if first <= last {
                (first, last)
            } else {
                ((first + last) / 2, (first + last) / 2)
            }
        };
        let extreme = |rng: &mut Mix, (first, last): (usize, usize)| {
            let x = (std::f64::consts::FRAC_PI_2 * rng.uniform()).sin().powi(2);
            first + ((x * (last - first + 1) as f64) as usize).min(last - first)
        };
        let at_low = if low == self.open {
            0
        } else if low == self.close {
            n
        } else {
            extreme(rng, window(low))
        };
        let mut at_high = if high == self.open {
            0
        } else if high == self.close {
            n
        } else {
            let (first, last) = window(high);
            let drawn = extreme(rng, (first, last));
            // Nor as close to the low as one minute's walk.
            let gap = minutes_for(high - low).min(n / 3);
            if drawn.abs_diff(at_low) >= gap {
                drawn
            } else if drawn >= at_low && at_low + gap <= last {
                at_low + gap
            } else if at_low >= first + gap {
                at_low - gap
            } else {
                (at_low + gap).min(n - 1)
            }
        };
        if at_high == at_low && high != low {
            at_high = if at_low + 1 < n { at_low + 1 } else { at_low - 1 };
        }
        let mut knots = vec![(0, self.open), (at_low, low), (at_high, high), (n, self.close)];
        knots.sort_by_key(|&(at, _)| at);
        knots.dedup_by_key(|&mut (at, _)| at);
        let mut points = vec![0_i64; n + 1];
        for pair in knots.windows(2) {
            let ((i0, a), (i1, b)) = (pair[0], pair[1]);
            let len = (i1 - i0) as f64;
            let walk: Vec<f64> = std::iter::once(0.0)
                .chain(moves[i0..i1].iter().scan(0.0, |w, m| {
                    *w += m;
                    Some(*w)
                }))
                .collect();
            let end = walk[i1 - i0];
            points[i0] = a;
            for t in 1..i1 - i0 {
                let f = t as f64 / len;
                let x = a as f64 + (b - a) as f64 * f + walk[t] - end * f;
                points[i0 + t] = fold(x, floor as f64, ceiling as f64).round() as i64;
            }
            points[i1] = b;
        }
        let mut minutes = Vec::with_capacity(n);
        let mut weights = Vec::with_capacity(n);
        for k in 0..n {
            let mut open = points[k];
            // A drawn extreme closes the minute before; this one opens a cent inside.
            if k > 0 && inside && (k == at_low || k == at_high) {
                open = open.clamp(floor, ceiling);
            }
            let close = points[k + 1];
            let wick = |rng: &mut Mix| (rng.normal().abs() * sigma[k] * scale * 0.5).round() as i64;
            let top = open.max(close);
            let bottom = open.min(close);
            let reached = if top >= high {
                high
            } else {
                (top + wick(rng)).min(ceiling)
            };
            let fell_to = if bottom <= low {
                low
            } else {
                (bottom - wick(rng)).max(floor)
            };
            let above = |price: i64| u32::try_from(price - self.low).unwrap_or(u32::MAX);
            minutes.push(Minute {
                open: above(open),
                high: above(reached),
                low: above(fell_to),
                close: above(close),
                volume: 0,
            });
            let moved = (close - open).abs() as f64 / (sigma[k] * scale).max(f64::MIN_POSITIVE);
            let noise = (0.35 * rng.normal() - 0.06).exp();
            weights.push(volume_profile(k, n) * noise * (0.75 + 0.25 * moved.min(4.0)));
        }
        for (m, v) in minutes.iter_mut().zip(apportion(self.volume, &weights)) {
            m.volume = v;
        }
        minutes
    }
}

/// The one-minute volatility's intraday "U", relative: about twice the midday level in the
/// first minutes, and rising again into the close.
fn volatility_profile(k: usize, n: usize) -> f64 {
    let (from_open, to_close) = (k as f64, (n - 1 - k) as f64);
    0.75 + 1.5 * (-from_open / 20.0).exp() + 0.5 * (-to_close / 20.0).exp()
}

/// The one-minute volume's intraday "U", relative to midday: the first half hour trades about
/// 2.5 times the middle one, the last about 1.9 times.
fn volume_profile(k: usize, n: usize) -> f64 {
    let (from_open, to_close) = (k as f64, (n - 1 - k) as f64);
    1.0 + 3.0 * (-from_open / 20.0).exp() + 2.0 * (-to_close / 15.0).exp()
}

/// `x` folded back into `[floor, ceiling]` (a triangle wave): a walk that reaches an end turns
/// back with the same step, so its moves keep their sizes.
fn fold(x: f64, floor: f64, ceiling: f64) -> f64 {
    let width = ceiling - floor;
    if width <= 0.0 {
        return floor;
    }
    let y = (x - floor).rem_euclid(2.0 * width);
    floor + if y > width { 2.0 * width - y } else { y }
}

/// `total` split in whole units in proportion to `weights` (largest remainders), adding up to it.
fn apportion(total: u64, weights: &[f64]) -> Vec<u64> {
    let sum: f64 = weights.iter().sum();
    if sum <= 0.0 || weights.is_empty() {
        let mut out = vec![0; weights.len()];
        if let Some(last) = out.last_mut() {
            *last = total;
        }
        return out;
    }
    let shares: Vec<f64> = weights.iter().map(|w| total as f64 * w / sum).collect();
    let mut out: Vec<u64> = shares.iter().map(|s| s.floor() as u64).collect();
    let given: u64 = out.iter().sum();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (shares[a] - shares[a].floor(), shares[b] - shares[b].floor());
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    // Floating point may leave the floors a little over or under: the remainder goes round
    // the largest fractions first.
    let mut left = total.saturating_sub(given);
    for &i in order.iter().cycle() {
        if left == 0 {
            break;
        }
        out[i] += 1;
        left -= 1;
    }
    let mut over = given.saturating_sub(total);
    for &i in order.iter().rev().cycle() {
        if over == 0 {
            break;
        }
        if out[i] > 0 {
            out[i] -= 1;
            over -= 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::simulator::intraday::{candles, roll_up};
    use crate::simulator::stats::{DayStats, real};

    /// A large-cap day: AAPL on 2013-02-28 ($444.05 open, $447.87 high, $441.40 low, $441.40
    /// close, 11.5 million shares), and days drawn around it.
    fn aapl(day: i32) -> DayPlan {
        DayPlan {
            day,
            prev_close: 444.57,
            open: 444.05,
            high: 447.87,
            low: 441.40,
            close: 441.40,
            volume: 11_548_600.0,
            replayed: true,
        }
    }

    fn within<T: PartialOrd + std::fmt::Debug>(what: &str, x: T, (lo, hi): (T, T)) {
        assert!(lo <= x && x <= hi, "{what}: {x:?} outside {lo:?}..={hi:?}");
    }

    #[test]
    fn a_day_has_the_figures_of_real_minute_data() {
        // Figures averaged over days, as the literature reports them; each day's also bounded.
        let mut days = Vec::new();
        for (i, day) in (15_000..15_010).enumerate() {
            days.push((aapl(day), i as u64));
            days.push((DayPlan::draw(9, 7, day, 30.0, 0.02, 2e6), i as u64));
            days.push((DayPlan::draw(4, 11, day, 250.0, 0.015, 8e6), 3));
        }
        let (mut kurtosis, mut clustering, mut open, mut close) = (0.0, 0.0, 0.0, 0.0);
        for (plan, seed) in &days {
            let path = DayPath::draw(plan, *seed, 265_598);
            let minutes: Vec<Candle> = path.whole_minutes(plan.core_close()).collect();
            assert_eq!(minutes.len(), 390);
            let s = DayStats::of(&minutes).unwrap();
            within("most common volume", s.most_common_volume, real::MOST_COMMON_VOLUME);
            within("bars at the low", s.bars_at_low, real::BARS_AT_EXTREME);
            within("bars at the high", s.bars_at_high, real::BARS_AT_EXTREME);
            within("open ÷ middle volume", s.open_volume_ratio.unwrap(), (1.5, 5.0));
            within("close ÷ middle volume", s.close_volume_ratio.unwrap(), (1.2, 4.0));
            within("kurtosis", s.kurtosis.unwrap(), (3.2, 200.0));
            kurtosis += s.kurtosis.unwrap();
            clustering += s.clustering.unwrap();
            open += s.open_volume_ratio.unwrap();
            close += s.close_volume_ratio.unwrap();
        }
        let n = days.len() as f64;
        within("mean kurtosis", kurtosis / n, real::KURTOSIS);
        within("mean clustering", clustering / n, real::CLUSTERING);
        within("mean open ÷ middle volume", open / n, real::OPEN_VOLUME_RATIO);
        within("mean close ÷ middle volume", close / n, real::CLOSE_VOLUME_RATIO);
    }

    #[test]
    fn the_tape_prints_round_lots_odd_sizes_and_a_heavy_tail() {
        let path = DayPath::draw(&aapl(15_000), 1, 1);
        let sizes: Vec<u64> = path.trades(0, 86_400).map(|t| t.volume).collect();
        let round = sizes.iter().filter(|&&v| v > 0 && v % 100 == 0).count();
        let odd = sizes.iter().filter(|&&v| v % 100 != 0).count();
        assert!(
            round > sizes.len() / 2 && odd > sizes.len() / 10,
            "{round} round, {odd} odd"
        );
        let mut sorted = sizes.clone();
        sorted.sort_unstable();
        let median = sorted[sorted.len() / 2];
        assert!(sorted[sorted.len() * 999 / 1000] > 8 * median, "a heavy tail");
    }

    #[test]
    fn quotes_read_the_same_trades() {
        let plan = aapl(15_889); // an early close
        let path = DayPath::draw(&plan, 5, 2);
        assert_eq!(path.core_close(), 13 * 3600);
        let trades: Vec<Trade> = path.trades(0, 86_400).collect();
        assert_eq!(trades.len(), 210 * 60);
        let mut before = 0;
        for t in &trades {
            assert_eq!(path.price_at(t.second), t.cents, "{}", t.second);
            assert_eq!(path.volume_before(t.second), before, "{}", t.second);
            before += t.volume;
        }
        assert_eq!(path.volume_before(86_400), 11_548_600);
        // Before the day's first print, the previous close; after the last, its price.
        let first = path.tape(0, 86_400).next().unwrap();
        assert_eq!(path.price_at(first.second - 1), 44_457);
        let last = path.tape(0, 86_400).last().unwrap();
        assert!(
            last.second < clock::after_close(plan.day),
            "no overnight session before a holiday"
        );
        assert_eq!(path.price_at(86_399), last.cents);
        assert_eq!(path, DayPath::draw(&plan, 5, 2));
        assert_ne!(path, DayPath::draw(&plan, 6, 2), "the seed matters");
    }

    #[test]
    fn an_imported_day_is_replayed_minute_by_minute() {
        let plan = aapl(15_000);
        let micros = |cents: i64| cents * 10_000;
        // 09:30, 09:31 and 09:33 (09:32 did not trade), then the last minute.
        let file = [
            (0, 44_405, 44_430, 44_390, 44_420, 52_000),
            (1, 44_420, 44_425, 44_140, 44_200, 61_234),
            (3, 44_210, 44_787, 44_205, 44_700, 9_999),
            (389, 44_150, 44_160, 44_140, 44_140, 120_000),
        ];
        let imported: Vec<MinuteBar> = file
            .iter()
            .map(|&(minute, o, h, l, c, v)| MinuteBar {
                minute,
                open: micros(o),
                high: micros(h),
                low: micros(l),
                close: micros(c),
                volume: v,
            })
            .collect();
        let path = DayPath::replay(&plan, 1, 2, &imported);
        let minutes: Vec<Candle> = path.whole_minutes(plan.core_close()).collect();
        assert_eq!(minutes.len(), 390);
        for &(minute, o, h, l, c, v) in &file {
            let m = minutes[usize::from(minute)];
            assert_eq!(
                (m.open, m.high, m.low, m.close, m.volume),
                (o, h, l, c, u64::try_from(v).unwrap()),
                "minute {minute}"
            );
        }
        let gap = minutes[2];
        assert_eq!(
            (gap.open, gap.high, gap.low, gap.close, gap.volume),
            (44_200, 44_200, 44_200, 44_200, 0),
            "the price before, untraded"
        );
        assert_eq!(minutes[388].close, 44_700, "until the last minute");
        // The seconds are the minutes', as a drawn day's are.
        assert_eq!(minutes, candles(plan.day, path.trades(0, 86_400), 60));
        assert_eq!(
            DayPath::replay(&plan, 1, 2, &[]),
            DayPath::draw(&plan, 1, 2),
            "no minutes: drawn"
        );
    }

    #[test]
    fn the_sessions_around_the_core_one_trade_thinly() {
        use crate::simulator::clock::{AFTER_CLOSE, CORE_CLOSE, PRE_OPEN};
        let plan = aapl(15_000); // a Wednesday: the overnight session trades that evening
        let path = DayPath::draw(&plan, 5, 2);
        let share = |from: i64, to: i64| path.tape(from, to).map(|t| t.volume).sum::<u64>() as f64 / 11_548_600.0;
        within("pre-market share", share(PRE_OPEN, CORE_OPEN), (0.007, 0.03));
        within("after-hours share", share(CORE_CLOSE, AFTER_CLOSE), (0.01, 0.04));
        within(
            "overnight share",
            share(0, PRE_OPEN) + share(AFTER_CLOSE, 86_400),
            (0.000_5, 0.006),
        );
        assert!(
            share(CORE_OPEN - 3600, CORE_OPEN) > 3.0 * share(PRE_OPEN, PRE_OPEN + 3600),
            "into the open"
        );
        assert!(
            share(CORE_CLOSE, CORE_CLOSE + 1800) > 2.0 * share(AFTER_CLOSE - 1800, AFTER_CLOSE),
            "out of the close"
        );
        let pre: Vec<Trade> = path.tape(PRE_OPEN, CORE_OPEN).collect();
        assert!(pre.len() < 19_800 / 4, "thin: {} prints in 19,800 seconds", pre.len());
        // The gap forms before the open.
        within(
            "the last pre-market print",
            pre[pre.len() - 1].cents,
            (44_405 - 100, 44_405 + 100),
        );
        let after: Vec<Trade> = path.tape(CORE_CLOSE, AFTER_CLOSE).collect();
        within(
            "the first after-hours print",
            after[0].cents,
            (44_140 - 100, 44_140 + 100),
        );

        let all: Vec<Trade> = path.tape(0, 86_400).collect();
        assert!(all.windows(2).all(|w| w[0].second <= w[1].second), "in time order");
        let outside: Vec<&Trade> = all
            .iter()
            .filter(|t| !(CORE_OPEN..CORE_CLOSE).contains(&t.second))
            .collect();
        assert_eq!(outside.len(), all.len() - 390 * 60);
        assert!(outside.iter().all(|t| t.cents > 0 && t.volume > 0));
        assert!(outside.iter().any(|t| t.volume % 100 != 0) && outside.iter().any(|t| t.volume >= 1_000));
        // A quote's price outside the core session is its last print's.
        for pair in outside.windows(2).filter(|w| w[0].second != w[1].second) {
            assert_eq!(path.price_at(pair[0].second), pair[0].cents, "{}", pair[0].second);
        }
        // The last prints, read back from any moment, whatever the sessions kept.
        for until in [PRE_OPEN + 600, CORE_OPEN + 5, CORE_CLOSE + 900, 86_400] {
            for count in [1, 30, 500] {
                let pre_market = |s: i64| (PRE_OPEN..CORE_OPEN).contains(&s);
                let kept: Vec<Trade> = all
                    .iter()
                    .filter(|t| t.second < until && pre_market(t.second))
                    .copied()
                    .collect();
                let expected = &kept[kept.len().saturating_sub(count + 1)..];
                assert_eq!(path.tape_before(until, count, pre_market), expected, "{until} {count}");
                let every: Vec<Trade> = all.iter().filter(|t| t.second < until).copied().collect();
                assert_eq!(
                    path.tape_before(until, count, |_| true),
                    &every[every.len().saturating_sub(count + 1)..]
                );
            }
        }
        let figures = path.extended_between(PRE_OPEN, CORE_OPEN).unwrap();
        assert_eq!(figures.bar.volume, pre.iter().map(|t| t.volume).sum::<u64>());
        assert_eq!(figures.bar.close, pre[pre.len() - 1].cents);
        assert_eq!(figures.bar.high, pre.iter().map(|t| t.cents).max().unwrap());
        assert_eq!(figures.last_second, pre[pre.len() - 1].second);
    }

    #[test]
    fn a_day_without_volume_prints_nothing_around_it() {
        let mut plan = aapl(15_000);
        plan.volume = 0.0;
        let path = DayPath::draw(&plan, 5, 2);
        assert_eq!(path.tape(0, CORE_OPEN).count(), 0);
        assert_eq!(path.price_at(CORE_OPEN - 1), 44_457);
    }

    proptest! {
        /// Whatever the day: every minute is its seconds' trades, within the day's range, and
        /// the day's own bar is reached exactly (`intraday`'s tests roll the minutes up).
        #[test]
        fn minutes_are_their_seconds(
            seed in any::<u64>(),
            prev in 0.5f64..3_000.0,
            vol in 0.0f64..0.1,
            volume in 0.0f64..5e7,
            early in any::<bool>(),
        ) {
            let plan = DayPlan::draw(seed, 3, if early { 15_889 } else { 15_000 }, prev, vol, volume);
            let path = DayPath::draw(&plan, seed, 3);
            let whole: Vec<Candle> = path.whole_minutes(plan.core_close()).collect();
            prop_assert_eq!(&whole, &candles(plan.day, path.trades(0, 86_400), 60));
            // Around the core session: prices on the cent grid, positive, and nothing after
            // the after hours of a day the next one does not trade.
            for t in path.tape(0, CORE_OPEN).chain(path.tape(plan.core_close(), 86_400)) {
                prop_assert!(t.cents >= 1 && t.volume >= 1);
                prop_assert!(!early || t.second < clock::after_close(plan.day));
            }
            let bar = plan.bar();
            let (low, high) = (bar.low / 10_000, bar.high / 10_000);
            for m in &whole {
                prop_assert!(low <= m.low && m.low <= m.open.min(m.close));
                prop_assert!(m.open.max(m.close) <= m.high && m.high <= high);
            }
            let day = roll_up(&whole, plan.core_close() - CORE_OPEN)[0];
            prop_assert_eq!((day.open, day.high, day.low, day.close), (bar.open / 10_000, high, low, bar.close / 10_000));
            prop_assert_eq!(day.volume, u64::try_from(bar.volume).unwrap());
            // The session so far, at any second, is the fold of the trades so far.
            for until in [CORE_OPEN, CORE_OPEN + 1, CORE_OPEN + 59, CORE_OPEN + 60, CORE_OPEN + 7_777, plan.core_close()] {
                let traded = candles(plan.day, path.trades(0, until), 60);
                let folded = crate::simulator::intraday::fold(&traded).map(|c| Candle { start: CORE_OPEN, ..c });
                prop_assert_eq!(path.session(until), folded, "until {}", until);
            }
        }
    }
}
