//! Intraday bars and footprints: a day's trades ([`Trade`], one a second of the core session,
//! [`super::daypath::DayPath::trades`])
//! grouped into spans of seconds counted from the core session's open, so that an hour's bar
//! runs 09:30–10:30 and the session's last bar is a short one, as exchanges publish them.
//!
//! Everything here is made of the same trades the ticks call lists, so a bar rebuilt from the
//! ticks equals the bar served, and the day's minutes rolled up equal its daily bar.

use std::collections::BTreeMap;

use super::clock::CORE_OPEN;
use super::path::Trade;

/// One bar of a day: prices in cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candle {
    /// The New York day.
    pub day: i32,
    /// The bar's first second, after New York midnight.
    pub start: i64,
    pub open: i64,
    pub high: i64,
    pub low: i64,
    pub close: i64,
    pub volume: u64,
}

impl Candle {
    pub(crate) fn of(day: i32, start: i64, t: &Trade) -> Self {
        Candle {
            day,
            start,
            open: t.cents,
            high: t.cents,
            low: t.cents,
            close: t.cents,
            volume: t.volume,
        }
    }

    /// `later` (the bars that follow this one) folded into it.
    pub fn absorb(&mut self, later: &Candle) {
        self.high = self.high.max(later.high);
        self.low = self.low.min(later.low);
        self.close = later.close;
        self.volume += later.volume;
    }
}

/// The start of the `span`-second bar that `second` falls in, bars being counted from `origin`.
fn bucket(second: i64, span: i64, origin: i64) -> i64 {
    origin + (second - origin).div_euclid(span) * span
}

/// `trades` (one day's, oldest first) grouped into bars of `span` seconds counted from the core
/// session's open, oldest first.
pub fn candles(day: i32, trades: impl IntoIterator<Item = Trade>, span: i64) -> Vec<Candle> {
    candles_since(day, trades, span, CORE_OPEN)
}

/// [`candles`] counted from `origin` (the core close for the sessions after it, so that an
/// after-hours bar starts at the close).
pub fn candles_since(day: i32, trades: impl IntoIterator<Item = Trade>, span: i64, origin: i64) -> Vec<Candle> {
    let mut out: Vec<Candle> = Vec::new();
    for t in trades {
        let start = bucket(t.second, span, origin);
        match out.last_mut() {
            Some(c) if c.start == start => c.absorb(&Candle::of(day, start, &t)),
            _ => out.push(Candle::of(day, start, &t)),
        }
    }
    out
}

/// Bars of one day (oldest first) as one bar, or none.
pub fn fold<'a>(bars: impl IntoIterator<Item = &'a Candle>) -> Option<Candle> {
    bars.into_iter().fold(None, |whole: Option<Candle>, b| match whole {
        None => Some(*b),
        Some(mut w) => {
            w.absorb(b);
            Some(w)
        }
    })
}

/// Bars of one day (oldest first) rolled up into bars of `span` seconds, a multiple of theirs.
pub fn roll_up(bars: &[Candle], span: i64) -> Vec<Candle> {
    let mut out: Vec<Candle> = Vec::new();
    for b in bars {
        let start = bucket(b.start, span, CORE_OPEN);
        match out.last_mut() {
            Some(c) if c.start == start => c.absorb(b),
            _ => out.push(Candle { start, ..*b }),
        }
    }
    out
}

/// Whether each trade was bought or sold into, by the tick rule: a trade above the one before
/// is a buy, below it a sell, and at the same price it takes the side of the last move. The
/// first trade is compared with `reference` (the previous close).
pub fn sides(trades: impl IntoIterator<Item = Trade>, reference: i64) -> impl Iterator<Item = (Trade, Side)> {
    let (mut before, mut side) = (reference, Side::Buy);
    trades.into_iter().map(move |t| {
        side = match t.cents.cmp(&before) {
            std::cmp::Ordering::Greater => Side::Buy,
            std::cmp::Ordering::Less => Side::Sell,
            std::cmp::Ordering::Equal => side,
        };
        before = t.cents;
        (t, side)
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Buy,
    Sell,
}

/// One footprint bar: the shares bought and sold into at each price, in cents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Footprint {
    pub day: i32,
    pub start: i64,
    pub buy: BTreeMap<i64, u64>,
    pub sell: BTreeMap<i64, u64>,
}

impl Footprint {
    pub fn buy_total(&self) -> u64 {
        self.buy.values().sum()
    }

    pub fn sell_total(&self) -> u64 {
        self.sell.values().sum()
    }
}

/// Footprint bars of `span` seconds from sided trades of one day, oldest first. A second in
/// which nothing traded adds nothing.
pub fn footprints(day: i32, trades: impl IntoIterator<Item = (Trade, Side)>, span: i64) -> Vec<Footprint> {
    let mut out: Vec<Footprint> = Vec::new();
    for (t, side) in trades {
        let start = bucket(t.second, span, CORE_OPEN);
        if out.last().is_none_or(|f| f.start != start) {
            out.push(Footprint {
                day,
                start,
                ..Footprint::default()
            });
        }
        let f = out.last_mut().expect("pushed above");
        if t.volume > 0 {
            let book = match side {
                Side::Buy => &mut f.buy,
                Side::Sell => &mut f.sell,
            };
            *book.entry(t.cents).or_default() += t.volume;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::marketdata::Bar;
    use crate::simulator::daypath::DayPath;
    use crate::simulator::path::DayPlan;

    fn plan(open: f64, high: f64, low: f64, close: f64, volume: f64) -> DayPlan {
        DayPlan {
            day: 15_000,
            prev_close: open,
            open,
            high,
            low,
            close,
            volume,
            replayed: true,
        }
    }

    fn day(plan: &DayPlan) -> Vec<Trade> {
        DayPath::draw(plan, 7, 3).trades(0, 86_400).collect()
    }

    /// The day's bar in cents, as `DayPlan::bar` stores it.
    fn cents(bar: &Bar) -> (i64, i64, i64, i64, u64) {
        let c = |micros: i64| micros / 10_000;
        (
            c(bar.open),
            c(bar.high),
            c(bar.low),
            c(bar.close),
            u64::try_from(bar.volume).unwrap(),
        )
    }

    #[test]
    fn the_session_has_390_minutes_and_an_hour_bar_starts_at_the_open() {
        let p = plan(100.0, 110.0, 95.0, 105.0, 1e6);
        let minutes = candles(p.day, day(&p), 60);
        assert_eq!(minutes.len(), 390);
        assert_eq!(minutes[0].start, CORE_OPEN);
        let hours = roll_up(&minutes, 3600);
        assert_eq!(hours.len(), 7, "six hours and the last half hour");
        assert_eq!(hours[0].start, CORE_OPEN);
        assert_eq!(hours[6].start, CORE_OPEN + 6 * 3600);
    }

    #[test]
    fn footprints_split_every_share_into_bought_and_sold() {
        let p = plan(100.0, 110.0, 95.0, 105.0, 1e6);
        let prints = footprints(p.day, sides(day(&p), 9_900), 300);
        let minutes = roll_up(&candles(p.day, day(&p), 60), 300);
        assert_eq!(prints.len(), minutes.len());
        for (f, m) in prints.iter().zip(&minutes) {
            assert_eq!(f.buy_total() + f.sell_total(), m.volume, "{}", f.start);
            let prices = f.buy.keys().chain(f.sell.keys());
            assert!(prices.clone().all(|p| (m.low..=m.high).contains(p)));
        }
        assert!(prints.iter().any(|f| f.buy_total() > 0) && prints.iter().any(|f| f.sell_total() > 0));
    }

    proptest! {
        /// Whatever the day, its one-minute bars rolled up to the session equal its daily bar:
        /// the walk reaches the open, the low, the high and the close exactly, and the volume
        /// of the seconds adds up to the day's.
        #[test]
        fn minutes_roll_up_to_the_daily_bar(
            seed in any::<u64>(),
            instrument in 1i64..100_000,
            prev in 1.0f64..2_000.0,
            vol in 0.001f64..0.1,
            volume in 0.0f64..5e7,
            early in any::<bool>(),
        ) {
            // A full day, or an early close (2013-07-03, day 15_889).
            let p = DayPlan::draw(seed, instrument, if early { 15_889 } else { 15_000 }, prev, vol, volume);
            let trades: Vec<Trade> = DayPath::draw(&p, seed, instrument).trades(0, 86_400).collect();
            let minutes = candles(p.day, trades.iter().copied(), 60);
            let session = roll_up(&minutes, p.core_close() - CORE_OPEN);
            prop_assert_eq!(session.len(), 1);
            let s = session[0];
            prop_assert_eq!((s.open, s.high, s.low, s.close, s.volume), cents(&p.bar()));
            // Every span is a roll-up of the seconds.
            for span in [5, 15, 300, 900, 1800, 3600, 7200, 14_400] {
                let direct = candles(p.day, trades.iter().copied(), span);
                prop_assert_eq!(&direct, &roll_up(&candles(p.day, trades.iter().copied(), 5), span));
            }
        }

        /// A day replayed from its stored bar does the same.
        #[test]
        fn a_replayed_day_rolls_up_to_its_bar(open in 100i64..100_000, up in 0i64..5_000, down in 0i64..5_000, close_at in 0i64..=1000, volume in 0i64..10_000_000, early in any::<bool>()) {
            let (high, low) = (open + up, (open - down).max(1));
            let close = low + (high - low) * close_at / 1000;
            let bar = Bar { day: if early { 15_889 } else { 15_000 }, open: open * 10_000, high: high * 10_000, low: low * 10_000, close: close * 10_000, volume, adj_close: None };
            let p = DayPlan::replay(bar.day, 1.0, &bar);
            let session = roll_up(&candles(p.day, day(&p), 60), p.core_close() - CORE_OPEN);
            let s = session[0];
            prop_assert_eq!((s.open, s.high, s.low, s.close, s.volume), cents(&bar));
        }
    }
}
