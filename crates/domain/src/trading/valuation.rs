//! What an account's positions are worth at the last prices: each position's market value and
//! open profit or loss, and the account's totals (the balance call). Buying power is not here:
//! it is [`super::buying_power::check`]'s, the figure placement enforces.

use rust_decimal::Decimal;

use super::accounting::Holding;

/// A position valued at a price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Valued {
    /// Shares, negative when sold short.
    pub quantity: Decimal,
    pub average_cost: Decimal,
    pub price: Decimal,
    /// `quantity × price`: negative for a short.
    pub market_value: Decimal,
    /// `(price − average_cost) × quantity`: a short gains as the price falls.
    pub unrealized: Decimal,
    /// `unrealized` over the cost of the shares (`|quantity| × average_cost`); zero when that
    /// cost is zero.
    pub unrealized_rate: Decimal,
}

/// Values `holding` at `price`.
pub fn value(holding: Holding, price: Decimal) -> Valued {
    let Holding { quantity, average_cost } = holding;
    let unrealized = (price - average_cost) * quantity;
    let cost = quantity.abs() * average_cost;
    let unrealized_rate = if cost.is_zero() {
        Decimal::ZERO
    } else {
        (unrealized / cost).round_dp(6)
    };
    Valued {
        quantity,
        average_cost,
        price,
        market_value: quantity * price,
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
        let long = value(holding("10", "400"), d("410"));
        assert_eq!(
            (long.market_value, long.unrealized, long.unrealized_rate),
            (d("4100"), d("100"), d("0.025"))
        );
        let short = value(holding("-10", "400"), d("390"));
        assert_eq!(
            (short.market_value, short.unrealized, short.unrealized_rate),
            (d("-3900"), d("100"), d("0.025"))
        );
        assert_eq!(value(holding("5", "0"), d("1")).unrealized_rate, Decimal::ZERO);
    }

    #[test]
    fn net_liquidation_is_cash_plus_longs_less_shorts() {
        let positions = [
            value(holding("10", "400"), d("410")),
            value(holding("-10", "400"), d("390")),
        ];
        let t = totals(d("100000"), &positions);
        assert_eq!(
            (t.market_value, t.unrealized, t.net_liquidation),
            (d("200"), d("200"), d("100200"))
        );
        assert_eq!(totals(d("5"), &[]).net_liquidation, d("5"));
    }
}
