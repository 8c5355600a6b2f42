//! What an account's positions are worth at the last prices: each position's market value and
//! open profit or loss, and the account's totals (the balance call). Buying power is not here:
//! it is [`super::buying_power::check`]'s, the figure placement enforces.

use rust_decimal::Decimal;

use signet_model::orders::Side;

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

/// A fill as [`history`] replays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PastFill {
    pub time_ms: i64,
    pub instrument_id: i64,
    pub side: Side,
    pub quantity: Decimal,
    pub price: Decimal,
    pub commission: Decimal,
}

/// An account's value (cash plus its positions at `price`) at each of `times`, ascending, from
/// its cash now and its fills, oldest first. The cash before the fills is the cash now less what
/// they brought in or took; a position is valued at `price(instrument, time)`, or at its last
/// fill's price where that has none. Times before the first fill show the starting cash.
pub fn history(
    cash_now: Decimal,
    fills: &[PastFill],
    times: &[i64],
    price: impl Fn(i64, i64) -> Option<Decimal>,
) -> Vec<(i64, Decimal)> {
    let flow = |f: &PastFill| match f.side {
        Side::Buy => -(f.quantity * f.price) - f.commission,
        Side::Sell | Side::Short => f.quantity * f.price - f.commission,
    };
    let mut cash = cash_now - fills.iter().map(flow).sum::<Decimal>();
    // Shares held and the last fill's price, by instrument.
    let mut held: std::collections::BTreeMap<i64, (Decimal, Decimal)> = std::collections::BTreeMap::new();
    let mut next = fills.iter().peekable();
    times
        .iter()
        .map(|&t| {
            while let Some(f) = next.next_if(|f| f.time_ms <= t) {
                cash += flow(f);
                let entry = held.entry(f.instrument_id).or_default();
                entry.0 += if f.side == Side::Buy { f.quantity } else { -f.quantity };
                entry.1 = f.price;
            }
            let positions: Decimal = held
                .iter()
                .filter(|(_, (quantity, _))| !quantity.is_zero())
                .map(|(&id, &(quantity, last_fill))| quantity * price(id, t).unwrap_or(last_fill))
                .sum();
            (t, cash + positions)
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

    #[test]
    fn the_history_replays_fills_from_the_cash_now() {
        let fill = |time_ms, side, quantity: &str, price: &str| PastFill {
            time_ms,
            instrument_id: 7,
            side,
            quantity: d(quantity),
            price: d(price),
            commission: d("1"),
        };
        // 1,000 cash, bought 10 at 10 (and 1 of commission), sold 4 at 12: 1,000 - 101 + 47.
        let fills = [fill(100, Side::Buy, "10", "10"), fill(200, Side::Sell, "4", "12")];
        let price = |_, t: i64| (t >= 300).then(|| d("15"));
        let history = history(d("946"), &fills, &[50, 100, 250, 300], price);
        assert_eq!(
            history,
            vec![
                (50, d("1000")),
                // 899 cash and 10 shares at the fill's price
                (100, d("999")),
                // 946 cash and 6 shares at the last fill's 12
                (250, d("1018")),
                // and at the market's 15
                (300, d("1036")),
            ]
        );
    }
}
