//! What an account's positions are worth at the last prices: each position's market value and
//! open profit or loss, and the account's totals (the balance call). Buying power is not here:
//! it is [`super::buying_power::check`]'s, the figure placement enforces.

use rust_decimal::Decimal;

use std::collections::BTreeMap;

use signet_model::orders::Side;

use super::accounting::Holding;
use crate::options::multiplier;

/// A position valued at a price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Valued {
    /// Shares, negative when sold short.
    pub quantity: Decimal,
    pub average_cost: Decimal,
    pub price: Decimal,
    /// `quantity × price` (× 100 for an option contract): negative for a short.
    pub market_value: Decimal,
    /// `(price − average_cost) × quantity` (× 100 for an option contract): a short gains as the
    /// price falls.
    pub unrealized: Decimal,
    /// `unrealized` over the cost of the shares (`|quantity| × average_cost`); zero when that
    /// cost is zero.
    pub unrealized_rate: Decimal,
}

/// Values `holding` of `instrument_id` at `price` (an option contract's 100 shares at its
/// price per share).
pub fn value(instrument_id: i64, holding: Holding, price: Decimal) -> Valued {
    let Holding { quantity, average_cost } = holding;
    let shares = quantity * multiplier(instrument_id);
    let unrealized = (price - average_cost) * shares;
    let cost = shares.abs() * average_cost;
    let unrealized_rate = if cost.is_zero() {
        Decimal::ZERO
    } else {
        (unrealized / cost).round_dp(6)
    };
    Valued {
        quantity,
        average_cost,
        price,
        market_value: shares * price,
        unrealized,
        unrealized_rate,
    }
}

/// An account's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub cash: Decimal,
    /// Longs less shorts.
    pub market_value: Decimal,
    pub unrealized: Decimal,
    /// `cash + market_value`: what the account would hold once every position is closed at the
    /// last prices.
    pub net_liquidation: Decimal,
}

/// The totals of an account holding `cash` and `positions`.
pub fn totals<'a>(cash: Decimal, positions: impl IntoIterator<Item = &'a Valued>) -> Totals {
    let (market_value, unrealized) = positions.into_iter().fold((Decimal::ZERO, Decimal::ZERO), |(m, u), p| {
        (m + p.market_value, u + p.unrealized)
    });
    Totals {
        cash,
        market_value,
        unrealized,
        net_liquidation: cash + market_value,
    }
}

/// A fill, as the console reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PastFill {
    pub time_ms: i64,
    pub instrument_id: i64,
    pub side: Side,
    pub quantity: Decimal,
    pub price: Decimal,
    pub commission: Decimal,
}

impl PastFill {
    /// What the fill did to the cash.
    fn cash(&self) -> Decimal {
        let value = self.quantity * self.price * multiplier(self.instrument_id);
        match self.side {
            Side::Buy => -value - self.commission,
            Side::Sell | Side::Short => value - self.commission,
        }
    }

    /// What the fill did to the shares held.
    fn shares(&self) -> Decimal {
        if self.side == Side::Buy {
            self.quantity
        } else {
            -self.quantity
        }
    }
}

/// A change of an account's cash and shares at a moment of the simulated clock, as
/// [`Book::before`] undoes it and [`history`] replays it: a fill, or a split or dividend applied
/// ([`super::corporate::Applied::movement`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Movement {
    pub time_ms: i64,
    pub instrument_id: i64,
    pub cash: Decimal,
    pub shares: Decimal,
    /// A fill's price: a position is valued at its last fill's where the market has none.
    pub price: Option<Decimal>,
}

impl From<&PastFill> for Movement {
    fn from(f: &PastFill) -> Self {
        Movement {
            time_ms: f.time_ms,
            instrument_id: f.instrument_id,
            cash: f.cash(),
            shares: f.shares(),
            price: Some(f.price),
        }
    }
}

/// An account's cash and shares, by instrument.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Book {
    pub cash: Decimal,
    pub shares: BTreeMap<i64, Decimal>,
}

impl Book {
    /// What the account held before `movements` (those since some moment, in any order).
    pub fn before(&self, movements: &[Movement]) -> Book {
        let mut book = self.clone();
        for m in movements {
            book.cash -= m.cash;
            *book.shares.entry(m.instrument_id).or_default() -= m.shares;
        }
        book
    }

    /// The cash plus the shares at `price` (zero where it has none).
    pub fn value(&self, price: impl Fn(i64) -> Option<Decimal>) -> Decimal {
        let shares: Decimal = self
            .shares
            .iter()
            .filter(|(_, quantity)| !quantity.is_zero())
            .map(|(&id, &quantity)| quantity * price(id).unwrap_or_default() * multiplier(id))
            .sum();
        self.cash + shares
    }
}

/// An account's value at each of `times` (ascending) from what it holds `now` and its
/// `movements` since before the first of them, oldest first: they are undone, then replayed. A
/// position is valued at `price(instrument, time)`, or at its last fill's price where that has
/// none.
pub fn history(
    now: &Book,
    movements: &[Movement],
    times: &[i64],
    price: impl Fn(i64, i64) -> Option<Decimal>,
) -> Vec<(i64, Decimal)> {
    let mut book = now.before(movements);
    let mut last_fill: BTreeMap<i64, Decimal> = BTreeMap::new();
    let mut next = movements.iter().peekable();
    times
        .iter()
        .map(|&t| {
            while let Some(m) = next.next_if(|m| m.time_ms <= t) {
                book.cash += m.cash;
                *book.shares.entry(m.instrument_id).or_default() += m.shares;
                if let Some(price) = m.price {
                    last_fill.insert(m.instrument_id, price);
                }
            }
            (t, book.value(|id| price(id, t).or_else(|| last_fill.get(&id).copied())))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn holding(quantity: &str, average_cost: &str) -> Holding {
        Holding {
            quantity: d(quantity),
            average_cost: d(average_cost),
        }
    }

    #[test]
    fn a_long_gains_as_the_price_rises_and_a_short_as_it_falls() {
        let long = value(1, holding("10", "400"), d("410"));
        assert_eq!(
            (long.market_value, long.unrealized, long.unrealized_rate),
            (d("4100"), d("100"), d("0.025"))
        );
        let short = value(1, holding("-10", "400"), d("390"));
        assert_eq!(
            (short.market_value, short.unrealized, short.unrealized_rate),
            (d("-3900"), d("100"), d("0.025"))
        );
        assert_eq!(value(1, holding("5", "0"), d("1")).unrealized_rate, Decimal::ZERO);
    }

    #[test]
    fn net_liquidation_is_cash_plus_longs_less_shorts() {
        let positions = [
            value(1, holding("10", "400"), d("410")),
            value(1, holding("-10", "400"), d("390")),
        ];
        let t = totals(d("100000"), &positions);
        assert_eq!(
            (t.market_value, t.unrealized, t.net_liquidation),
            (d("200"), d("200"), d("100200"))
        );
        assert_eq!(totals(d("5"), &[]).net_liquidation, d("5"));
    }

    #[test]
    fn a_split_is_undone_like_a_fill_so_the_value_before_it_holds_the_shares_then() {
        // 10 shares bought at 300; a 2-for-1 split at 500 doubled them (the price halved).
        let bought = PastFill {
            time_ms: 100,
            instrument_id: 7,
            side: Side::Buy,
            quantity: d("10"),
            price: d("300"),
            commission: d("0"),
        };
        let split = Movement {
            time_ms: 500,
            instrument_id: 7,
            cash: d("0"),
            shares: d("10"),
            price: None,
        };
        let movements = [Movement::from(&bought), split];
        let now = Book {
            cash: d("0"),
            shares: [(7, d("20"))].into(),
        };
        let price = |_, t: i64| Some(if t < 500 { d("310") } else { d("155") });
        let history = history(&now, &movements, &[50, 400, 600], price);
        assert_eq!(history, vec![(50, d("3000")), (400, d("3100")), (600, d("3100"))]);
    }

    #[test]
    fn the_history_undoes_the_fills_then_replays_them() {
        let fill = |time_ms, side, quantity: &str, price: &str| PastFill {
            time_ms,
            instrument_id: 7,
            side,
            quantity: d(quantity),
            price: d(price),
            commission: d("1"),
        };
        // Held 2 shares and 1,000 cash; bought 10 at 10 (and 1 of commission), sold 4 at 12.
        let fills: Vec<Movement> = [fill(100, Side::Buy, "10", "10"), fill(200, Side::Sell, "4", "12")]
            .iter()
            .map(Movement::from)
            .collect();
        let now = Book {
            cash: d("946"),
            shares: [(7, d("8"))].into(),
        };
        assert_eq!(
            now.before(&fills),
            Book {
                cash: d("1000"),
                shares: [(7, d("2"))].into()
            }
        );
        let price = |_, t: i64| (!(100..300).contains(&t)).then(|| d("15"));
        let history = history(&now, &fills, &[50, 100, 250, 300], price);
        assert_eq!(
            history,
            vec![
                // 1,000 cash and 2 shares at the market's 15
                (50, d("1030")),
                // 899 cash and 12 shares at the fill's price
                (100, d("1019")),
                // 946 cash and 8 shares at the last fill's 12
                (250, d("1042")),
                // and at the market's 15
                (300, d("1066")),
            ]
        );
    }
}
