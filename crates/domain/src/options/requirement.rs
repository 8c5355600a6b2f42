//! What an option order takes of an account's buying power, by the usual US rules:
//!
//! | the order | CASH account | MARGIN account |
//! |---|---|---|
//! | options bought, nothing sold (shares may be bought beside) | its cost, paid in full | the same |
//! | calls sold against shares held or bought in the order (covered) | the shares' cost less the premium | the same |
//! | a put sold alone (cash-secured in CASH) | the strike × 100 less the premium | the naked requirement less the premium |
//! | a combination whose loss at expiry is bounded (spreads, butterflies, condors, collars) | refused | its maximum loss |
//! | a calendar or diagonal whose bought leg expires last | refused | its cost, and the strikes' difference when the bought strike is the worse |
//! | calls sold uncovered, a short straddle or strangle | refused | the naked requirement less the premium |
//!
//! The naked requirement of a short contract is the premium plus the greater of 20 % of the
//! underlying less the amount it is out of the money, and 10 % of the underlying (a call) or of
//! the strike (a put), times 100; of a short straddle or strangle, the greater side's
//! requirement plus the other side's premium. Prices are per share; a contract is 100 shares.

use rust_decimal::Decimal;
use signet_model::AccountType;
use signet_model::orders::Side;

use super::strategy::{Asset, Leg, Strategy};
use super::{Right, direction, hundred};

/// A leg with the price it is expected to trade at, per share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PricedLeg {
    pub leg: Leg,
    pub price: Decimal,
}

/// An option order as the check weighs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionOrder {
    pub strategy: Strategy,
    pub legs: Vec<PricedLeg>,
    /// How many of the whole (the order's quantity).
    pub units: u64,
    /// The underlying's price now.
    pub spot: Decimal,
    /// Shares of the underlying the account holds and does not already sell.
    pub shares_held: Decimal,
}

/// Why an account may not take an order, whatever its buying power.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAllowed {
    #[error(
        "a CASH account may buy options, sell calls covered by its shares and sell puts secured by its cash; \
         not {0}: use a MARGIN account"
    )]
    InCash(&'static str),
}

/// Shares (or contracts) a leg trades in the whole order.
fn count(order: &OptionOrder, leg: &Leg) -> Decimal {
    Decimal::from(leg.quantity) * Decimal::from(order.units)
}

/// The premium and share cost paid, less what is received (negative: a credit).
pub fn net_debit(order: &OptionOrder) -> Decimal {
    order
        .legs
        .iter()
        .map(|p| {
            let per = match p.leg.asset {
                Asset::Option { .. } => hundred(),
                Asset::Shares => Decimal::ONE,
            };
            direction(p.leg.side) * p.price * per * count(order, &p.leg)
        })
        .sum()
}

fn intrinsic(right: Right, strike: Decimal, spot: Decimal) -> Decimal {
    match right {
        Right::Call => (spot - strike).max(Decimal::ZERO),
        Right::Put => (strike - spot).max(Decimal::ZERO),
    }
}

/// The most the order can lose at one expiry (its legs' common one), premium included; `None`
/// when the loss has no bound (more calls sold than bought and shares held in it).
pub fn max_loss_at_expiry(order: &OptionOrder) -> Option<Decimal> {
    let payoff = |spot: Decimal| -> Decimal {
        order
            .legs
            .iter()
            .map(|p| {
                let value = match p.leg.asset {
                    Asset::Option { right, strike, .. } => intrinsic(right, strike, spot) * hundred(),
                    Asset::Shares => spot,
                };
                direction(p.leg.side) * value * count(order, &p.leg)
            })
            .sum()
    };
    // Beyond the highest strike the payoff moves by the calls and shares held.
    let slope: Decimal = order
        .legs
        .iter()
        .map(|p| {
            let per = match p.leg.asset {
                Asset::Option { right: Right::Call, .. } => hundred(),
                Asset::Option { right: Right::Put, .. } => Decimal::ZERO,
                Asset::Shares => Decimal::ONE,
            };
            direction(p.leg.side) * per * count(order, &p.leg)
        })
        .sum();
    if slope < Decimal::ZERO {
        return None;
    }
    let debit = net_debit(order);
    let kinks = order.legs.iter().filter_map(|p| match p.leg.asset {
        Asset::Option { strike, .. } => Some(strike),
        Asset::Shares => None,
    });
    std::iter::once(Decimal::ZERO)
        .chain(kinks)
        .map(|spot| debit - payoff(spot))
        .max()
}

/// The naked requirement of `contracts` short contracts at `premium` a share.
pub fn naked(right: Right, strike: Decimal, premium: Decimal, spot: Decimal, contracts: Decimal) -> Decimal {
    let out_of_the_money = match right {
        Right::Call => (strike - spot).max(Decimal::ZERO),
        Right::Put => (spot - strike).max(Decimal::ZERO),
    };
    let floor = Decimal::new(1, 1)
        * match right {
            Right::Call => spot,
            Right::Put => strike,
        };
    let per_share = (Decimal::new(2, 1) * spot - out_of_the_money).max(floor) + premium;
    per_share * hundred() * contracts
}

/// What `order` takes of the buying power of an account of `account_type`: what it pays and what
/// it holds back, less what it receives; never below zero.
pub fn requirement(account_type: AccountType, order: &OptionOrder) -> Result<Decimal, NotAllowed> {
    let debit = net_debit(order);
    let options: Vec<&PricedLeg> = order
        .legs
        .iter()
        .filter(|p| matches!(p.leg.asset, Asset::Option { .. }))
        .collect();
    let shares_bought: Decimal = order
        .legs
        .iter()
        .filter(|p| p.leg.asset == Asset::Shares && p.leg.side == Side::Buy)
        .map(|p| count(order, &p.leg))
        .sum();
    let sold: Vec<&PricedLeg> = options.iter().copied().filter(|p| p.leg.side == Side::Sell).collect();
    let cash = account_type == AccountType::Cash;
    // Options bought, nothing sold: paid in full.
    if sold.is_empty() && order.legs.iter().all(|p| p.leg.side == Side::Buy) {
        return Ok(debit.max(Decimal::ZERO));
    }
    // Calls sold alone (or with the shares bought), covered by shares.
    let calls_sold: Decimal = sold
        .iter()
        .filter(|p| matches!(p.leg.asset, Asset::Option { right: Right::Call, .. }))
        .map(|p| count(order, &p.leg))
        .sum();
    let only_calls_sold = !sold.is_empty()
        && options
            .iter()
            .all(|p| p.leg.side == Side::Sell && matches!(p.leg.asset, Asset::Option { right: Right::Call, .. }));
    if matches!(order.strategy, Strategy::Single | Strategy::CoveredStock)
        && only_calls_sold
        && calls_sold * hundred() <= order.shares_held + shares_bought
    {
        return Ok(debit.max(Decimal::ZERO));
    }
    // A put sold alone.
    if order.strategy == Strategy::Single
        && let [put] = sold.as_slice()
        && let Asset::Option {
            right: Right::Put,
            strike,
            ..
        } = put.leg.asset
    {
        let contracts = count(order, &put.leg);
        let held = if cash {
            strike * hundred() * contracts
        } else {
            naked(Right::Put, strike, put.price, order.spot, contracts)
        };
        return Ok((held + debit).max(Decimal::ZERO));
    }
    if cash {
        return Err(NotAllowed::InCash(match order.strategy {
            Strategy::Single => "calls sold without the shares to cover them",
            _ => "a combination that sells options",
        }));
    }
    if matches!(order.strategy, Strategy::Calendar | Strategy::Diagonal) {
        return Ok(across_expiries(order, &options, debit));
    }
    Ok(match max_loss_at_expiry(order) {
        // Spreads, butterflies, condors, collars: their maximum loss.
        Some(loss) => loss,
        // Calls sold uncovered, a short straddle or strangle: the greatest short leg's naked
        // requirement and the other short legs' premiums, less what the order receives.
        None => {
            let mut shorts: Vec<(Decimal, Decimal)> = sold
                .iter()
                .filter_map(|p| match p.leg.asset {
                    Asset::Option { right, strike, .. } => {
                        let contracts = count(order, &p.leg);
                        Some((
                            naked(right, strike, p.price, order.spot, contracts),
                            p.price * hundred() * contracts,
                        ))
                    }
                    Asset::Shares => None,
                })
                .collect();
            shorts.sort();
            let greatest = shorts.pop().map_or(Decimal::ZERO, |(requirement, _)| requirement);
            let others: Decimal = shorts.iter().map(|(_, premium)| *premium).sum();
            greatest + others + debit
        }
    }
    .max(Decimal::ZERO))
}

/// A calendar or diagonal in a MARGIN account: covered when its bought leg expires last (its
/// cost, and the strikes' difference when the bought strike is the worse), naked otherwise.
fn across_expiries(order: &OptionOrder, options: &[&PricedLeg], debit: Decimal) -> Decimal {
    let bought = options.iter().find(|p| p.leg.side == Side::Buy);
    let sold = options.iter().find(|p| p.leg.side == Side::Sell);
    let (Some(bought), Some(sold)) = (bought, sold) else {
        return debit.max(Decimal::ZERO);
    };
    let (
        Asset::Option {
            expiry: long_expiry,
            right,
            strike: long_strike,
        },
        Asset::Option {
            expiry: short_expiry,
            strike: short_strike,
            ..
        },
    ) = (bought.leg.asset, sold.leg.asset)
    else {
        return debit.max(Decimal::ZERO);
    };
    let contracts = count(order, &sold.leg);
    let held = if long_expiry >= short_expiry {
        let worse = match right {
            Right::Call => long_strike - short_strike,
            Right::Put => short_strike - long_strike,
        };
        worse.max(Decimal::ZERO) * hundred() * contracts
    } else {
        naked(right, short_strike, sold.price, order.spot, contracts)
    };
    (debit + held).max(Decimal::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use AccountType::{Cash, Margin};
    use Right::{Call as C, Put as P};
    use Side::{Buy as B, Sell as S};

    use super::super::strategy::tests::{APRIL, MARCH};

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    fn opt(side: Side, quantity: u64, right: Right, strike: i64, price: &str) -> PricedLeg {
        at(side, quantity, right, strike, MARCH, price)
    }

    fn at(side: Side, quantity: u64, right: Right, strike: i64, expiry: i32, price: &str) -> PricedLeg {
        PricedLeg {
            leg: super::super::strategy::tests::at(side, quantity, right, strike, expiry),
            price: d(price),
        }
    }

    fn shares(side: Side, quantity: u64, price: &str) -> PricedLeg {
        PricedLeg {
            leg: Leg {
                side,
                quantity,
                asset: Asset::Shares,
            },
            price: d(price),
        }
    }

    /// An order of one unit with AAPL at 450 and `held` shares of it.
    fn order(strategy: Strategy, legs: Vec<PricedLeg>, held: i64) -> OptionOrder {
        OptionOrder {
            strategy,
            legs,
            units: 1,
            spot: Decimal::from(450),
            shares_held: Decimal::from(held),
        }
    }

    fn need(account: AccountType, order: &OptionOrder) -> Decimal {
        requirement(account, order).unwrap()
    }

    #[test]
    fn options_bought_are_paid_in_full_in_either_account() {
        let calls = order(Strategy::Single, vec![opt(B, 2, C, 450, "3.50")], 0);
        assert_eq!((need(Cash, &calls), need(Margin, &calls)), (d("700"), d("700")));
        let straddle = order(
            Strategy::Straddle,
            vec![opt(B, 1, C, 450, "12"), opt(B, 1, P, 450, "11")],
            0,
        );
        assert_eq!(need(Cash, &straddle), d("2300"));
    }

    #[test]
    fn a_call_covered_by_shares_held_takes_nothing_and_uncovered_is_refused_in_cash() {
        let covered = order(Strategy::Single, vec![opt(S, 2, C, 460, "1.20")], 200);
        assert_eq!(need(Cash, &covered), Decimal::ZERO);
        assert_eq!(need(Margin, &covered), Decimal::ZERO);
        let bare = order(Strategy::Single, vec![opt(S, 2, C, 460, "1.20")], 199);
        assert!(matches!(requirement(Cash, &bare), Err(NotAllowed::InCash(_))));
    }

    #[test]
    fn covered_stock_takes_the_shares_cost_less_the_premium() {
        let covered = order(
            Strategy::CoveredStock,
            vec![shares(B, 100, "450"), opt(S, 1, C, 460, "5")],
            0,
        );
        assert_eq!(need(Cash, &covered), d("44500"));
    }

    #[test]
    fn a_put_sold_is_cash_secured_in_cash_and_naked_in_margin() {
        let put = order(Strategy::Single, vec![opt(S, 1, P, 430, "4")], 0);
        assert_eq!(need(Cash, &put), d("42600"), "430 × 100 less 400");
        // 20 % of 450 less 20 out of the money = 70 (above 10 % of 430), plus 4: 7,400 less 400.
        assert_eq!(need(Margin, &put), d("7000"));
    }

    #[test]
    fn a_spread_is_refused_in_cash_and_takes_its_maximum_loss_in_margin() {
        let credit = order(
            Strategy::Vertical,
            vec![opt(S, 1, C, 450, "10"), opt(B, 1, C, 460, "6")],
            0,
        );
        assert!(requirement(Cash, &credit).is_err());
        assert_eq!(need(Margin, &credit), d("600"), "10 wide less 4 of credit");
        let debit = order(
            Strategy::Vertical,
            vec![opt(B, 1, C, 450, "10"), opt(S, 1, C, 460, "6")],
            0,
        );
        assert_eq!(need(Margin, &debit), d("400"));
        let three = OptionOrder { units: 3, ..credit };
        assert_eq!(need(Margin, &three), d("1800"));
    }

    #[test]
    fn butterflies_condors_and_collars_take_their_maximum_loss() {
        let iron_condor = order(
            Strategy::IronCondor,
            vec![
                opt(B, 1, P, 420, "1"),
                opt(S, 1, P, 430, "2"),
                opt(S, 1, C, 470, "2"),
                opt(B, 1, C, 480, "1"),
            ],
            0,
        );
        assert_eq!(need(Margin, &iron_condor), d("800"));
        let butterfly = order(
            Strategy::Butterfly,
            vec![
                opt(B, 1, C, 440, "14"),
                opt(S, 2, C, 450, "9"),
                opt(B, 1, C, 460, "5.5"),
            ],
            0,
        );
        assert_eq!(need(Margin, &butterfly), d("150"));
        let collar = order(
            Strategy::CollarWithStock,
            vec![shares(B, 100, "450"), opt(B, 1, P, 430, "3"), opt(S, 1, C, 470, "4")],
            0,
        );
        assert_eq!(max_loss_at_expiry(&collar), Some(d("1900")));
        assert_eq!(need(Margin, &collar), d("1900"));
        assert!(requirement(Cash, &collar).is_err());
    }

    #[test]
    fn naked_calls_and_short_straddles_take_the_naked_requirement() {
        let call = order(Strategy::Single, vec![opt(S, 1, C, 460, "5")], 0);
        assert_eq!(max_loss_at_expiry(&call), None);
        // 20 % of 450 less 10 out of the money = 80, plus 5: 8,500 less the 500 received.
        assert_eq!(need(Margin, &call), d("8000"));
        // A call far out of the money: the 10 % floor.
        let far = order(Strategy::Single, vec![opt(S, 1, C, 600, "0.10")], 0);
        assert_eq!(need(Margin, &far), d("4500"));
        let straddle = order(
            Strategy::Straddle,
            vec![opt(S, 1, C, 450, "12"), opt(S, 1, P, 450, "11")],
            0,
        );
        assert!(requirement(Cash, &straddle).is_err());
        // The call's 10,200 and the put's premium of 1,100, less the 2,300 received.
        assert_eq!(need(Margin, &straddle), d("9000"));
    }

    #[test]
    fn a_calendar_is_covered_when_its_bought_leg_expires_last() {
        let calendar = order(
            Strategy::Calendar,
            vec![at(S, 1, C, 450, MARCH, "8"), at(B, 1, C, 450, APRIL, "12")],
            0,
        );
        assert_eq!(need(Margin, &calendar), d("400"));
        assert!(requirement(Cash, &calendar).is_err());
        let worse = order(
            Strategy::Diagonal,
            vec![at(S, 1, C, 460, MARCH, "5"), at(B, 1, C, 470, APRIL, "6")],
            0,
        );
        assert_eq!(
            need(Margin, &worse),
            d("1100"),
            "the cost and the 10 between the strikes"
        );
        let reversed = order(
            Strategy::Calendar,
            vec![at(B, 1, C, 450, MARCH, "8"), at(S, 1, C, 450, APRIL, "12")],
            0,
        );
        // The April call sold is naked once March's expires: 90 + 12 = 10,200, less 400 net credit.
        assert_eq!(need(Margin, &reversed), d("9800"));
    }
}
