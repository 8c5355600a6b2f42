//! What an account's written contracts hold back, whatever orders made them: shares under calls,
//! cash for the most the contracts can lose at expiry. The buying-power check deducts it before
//! any new order ([`crate::trading::buying_power::check`]), and a multi-leg order takes what it
//! adds to it.
//!
//! In a CASH account each written contract stands alone: a call needs 100 shares of its
//! underlying, a put the cash its shares would cost at the strike. In a MARGIN account contracts
//! bought cover contracts written, as a broker's strategy-based margin sees them:
//!
//! - per underlying and expiry, the options of that expiry are valued at expiry (their intrinsic
//!   value) and the group holds back the most it can lose at any price of the underlying (a
//!   vertical its width, an iron condor its wider side, a long butterfly nothing);
//! - calls written beyond the calls bought of their expiry are covered first by calls bought of a
//!   later expiry (a calendar or diagonal: valued at their intrinsic value at the earlier
//!   expiry, a bound they cannot fall below), then by 100 shares a contract; puts written beyond
//!   the puts bought are helped the same way by later puts;
//! - the contracts bought that cover, and the shares, are held back from sales, so that a
//!   covering leg is not sold alone and the written one left naked.
//!
//! Uncovered calls are not offered, so shares always cover what options do not.

use std::collections::{BTreeMap, HashMap};

use rust_decimal::Decimal;

use super::{Contract, IdParts, Right, hundred};

/// What contracts written hold back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secured {
    /// Cash: the most the written contracts can lose at expiry, beyond what covers them.
    pub cash: Decimal,
    /// Units held back from sales, by instrument: shares of an underlying under its calls,
    /// contracts bought under contracts written.
    pub selling: HashMap<i64, Decimal>,
}

/// An option position of one underlying.
#[derive(Debug, Clone, Copy)]
struct Held {
    id: i64,
    expiry: i32,
    right: Right,
    strike: Decimal,
    /// Contracts, negative when written.
    contracts: Decimal,
}

/// What `positions` (instrument id, quantity; negative when written or short) hold back in an
/// account whose bought contracts cover its written ones (`pair`: MARGIN) or not (CASH). Shares
/// and other instruments count only as the coverer of calls, through the selling.
pub fn secured(positions: impl IntoIterator<Item = (i64, Decimal)>, pair: bool) -> Secured {
    let mut by_underlying: BTreeMap<i64, Vec<Held>> = BTreeMap::new();
    for (id, contracts) in positions {
        if contracts.is_zero() {
            continue;
        }
        if let Some(IdParts {
            underlying_id,
            expiry,
            right,
            strike,
        }) = Contract::of_id(id)
        {
            by_underlying.entry(underlying_id).or_default().push(Held {
                id,
                expiry,
                right,
                strike,
                contracts,
            });
        }
    }
    let mut secured = Secured::default();
    for (underlying, options) in by_underlying {
        if pair {
            paired(underlying, options, &mut secured);
        } else {
            alone(underlying, &options, &mut secured);
        }
    }
    secured
}

/// Each contract written on its own: a call on 100 shares, a put on its strike's cash.
fn alone(underlying: i64, options: &[Held], secured: &mut Secured) {
    for h in options.iter().filter(|h| h.contracts < Decimal::ZERO) {
        let contracts = -h.contracts;
        match h.right {
            Right::Call => *secured.selling.entry(underlying).or_default() += contracts * hundred(),
            Right::Put => secured.cash += h.strike * hundred() * contracts,
        }
    }
}

/// Contracts of one underlying, bought covering written.
fn paired(underlying: i64, options: Vec<Held>, secured: &mut Secured) {
    let mut expiries: Vec<i32> = options
        .iter()
        .filter(|h| h.contracts < Decimal::ZERO)
        .map(|h| h.expiry)
        .collect();
    expiries.sort_unstable();
    expiries.dedup();
    // What is left of each position bought once earlier expiries borrowed from it.
    let mut free: HashMap<i64, Decimal> = options
        .iter()
        .filter(|h| h.contracts > Decimal::ZERO)
        .map(|h| (h.id, h.contracts))
        .collect();
    for expiry in expiries {
        // The group of this expiry: its own options (those bought as far as no earlier expiry
        // borrowed them), then what later ones lend.
        let mut group: Vec<Held> = Vec::new();
        for h in options.iter().filter(|h| h.expiry == expiry) {
            let contracts = if h.contracts > Decimal::ZERO {
                free.remove(&h.id).unwrap_or_default()
            } else {
                h.contracts
            };
            if !contracts.is_zero() {
                group.push(Held { contracts, ..*h });
            }
        }
        for right in [Right::Call, Right::Put] {
            let count = |sign: Decimal| -> Decimal {
                group
                    .iter()
                    .filter(|h| h.right == right && h.contracts * sign > Decimal::ZERO)
                    .map(|h| h.contracts.abs())
                    .sum()
            };
            let (written, bought) = (count(Decimal::NEGATIVE_ONE), count(Decimal::ONE));
            let mut short = (written - bought).max(Decimal::ZERO);
            // The contracts bought of this expiry cover as many written.
            hold_back(&group, right, written.min(bought), secured);
            // Later contracts lend, the ones that cover best first: calls of the lowest strikes,
            // puts of the highest.
            let mut later: Vec<Held> = options
                .iter()
                .filter(|h| h.right == right && h.expiry > expiry && free.get(&h.id).is_some_and(|f| !f.is_zero()))
                .copied()
                .collect();
            later.sort_by(|a, b| match right {
                Right::Call => a.strike.cmp(&b.strike),
                Right::Put => b.strike.cmp(&a.strike),
            });
            for h in later {
                if short.is_zero() {
                    break;
                }
                let left = free.get_mut(&h.id).expect("a free position");
                let lent = short.min(*left);
                *left -= lent;
                short -= lent;
                *secured.selling.entry(h.id).or_default() += lent;
                group.push(Held { contracts: lent, ..h });
            }
            // Calls still uncovered are covered by shares: the written ones of the lowest strikes,
            // which would be assigned first, leave the group.
            if right == Right::Call && !short.is_zero() {
                *secured.selling.entry(underlying).or_default() += short * hundred();
                let mut written: Vec<usize> = (0..group.len())
                    .filter(|&i| group[i].right == Right::Call && group[i].contracts < Decimal::ZERO)
                    .collect();
                written.sort_by(|&a, &b| group[a].strike.cmp(&group[b].strike));
                for i in written {
                    let taken = short.min(-group[i].contracts);
                    group[i].contracts += taken;
                    short -= taken;
                }
            }
        }
        secured.cash += most_lost(&group);
    }
}

/// Holds back `contracts` of the contracts of `right` bought in `group` (those of the lowest
/// call strikes or highest put strikes first: the ones pairing would use).
fn hold_back(group: &[Held], right: Right, contracts: Decimal, secured: &mut Secured) {
    let mut bought: Vec<&Held> = group
        .iter()
        .filter(|h| h.right == right && h.contracts > Decimal::ZERO)
        .collect();
    bought.sort_by(|a, b| match right {
        Right::Call => a.strike.cmp(&b.strike),
        Right::Put => b.strike.cmp(&a.strike),
    });
    let mut left = contracts;
    for h in bought {
        let taken = left.min(h.contracts);
        if taken.is_zero() {
            break;
        }
        *secured.selling.entry(h.id).or_default() += taken;
        left -= taken;
    }
}

/// The most `group` can lose at its expiry: the lowest of its value at a price of zero and at
/// each strike (its value is straight between them and, with no more calls written than bought,
/// does not fall beyond the highest), as a positive amount.
fn most_lost(group: &[Held]) -> Decimal {
    let value = |spot: Decimal| -> Decimal {
        group
            .iter()
            .map(|h| {
                let intrinsic = match h.right {
                    Right::Call => (spot - h.strike).max(Decimal::ZERO),
                    Right::Put => (h.strike - spot).max(Decimal::ZERO),
                };
                h.contracts * intrinsic * hundred()
            })
            .sum()
    };
    std::iter::once(Decimal::ZERO)
        .chain(group.iter().map(|h| h.strike))
        .map(|spot| -value(spot))
        .fold(Decimal::ZERO, Decimal::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Right::{Call as C, Put as P};

    use super::super::strategy::tests::{APRIL, MARCH};

    const AAPL: i64 = 7;

    fn id(right: Right, strike: i64, expiry: i32) -> i64 {
        Contract {
            underlying: "AAPL".into(),
            expiry,
            right,
            strike: Decimal::from(strike),
        }
        .instrument_id(AAPL)
        .unwrap()
    }

    fn held(positions: &[(Right, i64, i32, i64)], pair: bool) -> Secured {
        secured(
            positions
                .iter()
                .map(|&(right, strike, expiry, contracts)| (id(right, strike, expiry), Decimal::from(contracts))),
            pair,
        )
    }

    fn selling(s: &Secured, instrument: i64) -> Decimal {
        s.selling.get(&instrument).copied().unwrap_or_default()
    }

    #[test]
    fn in_cash_each_written_contract_stands_alone() {
        let s = held(&[(C, 450, MARCH, 1), (C, 460, MARCH, -2), (P, 430, MARCH, -1)], false);
        assert_eq!(s.cash, Decimal::from(43_000), "the put's 430 × 100");
        assert_eq!(
            selling(&s, AAPL),
            Decimal::from(200),
            "the calls' shares, the call bought aside"
        );
        assert_eq!(selling(&s, id(C, 450, MARCH)), Decimal::ZERO);
    }

    #[test]
    fn a_lone_written_contract_holds_back_the_same_in_margin() {
        let s = held(&[(P, 430, MARCH, -2)], true);
        assert_eq!((s.cash, selling(&s, AAPL)), (Decimal::from(86_000), Decimal::ZERO));
        let s = held(&[(C, 460, MARCH, -2)], true);
        assert_eq!((s.cash, selling(&s, AAPL)), (Decimal::ZERO, Decimal::from(200)));
    }

    #[test]
    fn a_vertical_holds_back_its_width_when_credit_and_nothing_when_debit() {
        let credit = held(&[(C, 450, MARCH, -3), (C, 460, MARCH, 3)], true);
        assert_eq!(credit.cash, Decimal::from(3_000));
        assert_eq!(selling(&credit, AAPL), Decimal::ZERO);
        assert_eq!(
            selling(&credit, id(C, 460, MARCH)),
            Decimal::from(3),
            "the call bought covers"
        );
        let debit = held(&[(C, 450, MARCH, 1), (C, 460, MARCH, -1)], true);
        assert_eq!(debit.cash, Decimal::ZERO);
        let put_credit = held(&[(P, 430, MARCH, -1), (P, 420, MARCH, 1)], true);
        assert_eq!(put_credit.cash, Decimal::from(1_000));
        assert_eq!(selling(&put_credit, id(P, 420, MARCH)), Decimal::ONE);
    }

    #[test]
    fn an_iron_condor_holds_back_its_wider_side_and_a_long_butterfly_nothing() {
        let condor = held(
            &[
                (P, 420, MARCH, 1),
                (P, 430, MARCH, -1),
                (C, 470, MARCH, -1),
                (C, 485, MARCH, 1),
            ],
            true,
        );
        assert_eq!(condor.cash, Decimal::from(1_500));
        let butterfly = held(&[(C, 440, MARCH, 1), (C, 450, MARCH, -2), (C, 460, MARCH, 1)], true);
        assert_eq!(butterfly.cash, Decimal::ZERO);
        assert_eq!(selling(&butterfly, AAPL), Decimal::ZERO);
    }

    #[test]
    fn a_later_call_covers_an_earlier_one_and_shares_cover_the_rest() {
        // A calendar: the April call covers the March one written at its strike.
        let calendar = held(&[(C, 450, MARCH, -1), (C, 450, APRIL, 1)], true);
        assert_eq!(
            (calendar.cash, selling(&calendar, AAPL)),
            (Decimal::ZERO, Decimal::ZERO)
        );
        assert_eq!(selling(&calendar, id(C, 450, APRIL)), Decimal::ONE);
        // A diagonal whose bought strike is the worse: the 10 between.
        let diagonal = held(&[(C, 460, MARCH, -1), (C, 470, APRIL, 1)], true);
        assert_eq!(diagonal.cash, Decimal::from(1_000));
        // An earlier call does not cover a later one: shares do.
        let reversed = held(&[(C, 450, MARCH, 1), (C, 450, APRIL, -1)], true);
        assert_eq!(
            (reversed.cash, selling(&reversed, AAPL)),
            (Decimal::ZERO, Decimal::from(100))
        );
        // Two written, one covered by a call bought: the other by shares, the lower strike's.
        let two = held(&[(C, 450, MARCH, -1), (C, 460, MARCH, -1), (C, 470, MARCH, 1)], true);
        assert_eq!(selling(&two, AAPL), Decimal::from(100));
        assert_eq!(two.cash, Decimal::from(1_000), "460 written under 470 bought");
    }

    #[test]
    fn holding_back_never_grows_when_positions_join() {
        // What two sets hold back together is at most what each holds back alone, the rule that
        // lets an order claim what its own legs hold back.
        let a = [(C, 450, MARCH, -1), (C, 460, MARCH, 1)];
        let b = [(P, 430, MARCH, -1), (P, 420, MARCH, 1), (C, 440, MARCH, 1)];
        let both: Vec<_> = a.iter().chain(&b).copied().collect();
        let (sa, sb, sab) = (held(&a, true), held(&b, true), held(&both, true));
        assert!(
            sab.cash <= sa.cash + sb.cash,
            "{} > {} + {}",
            sab.cash,
            sa.cash,
            sb.cash
        );
        assert!(selling(&sab, AAPL) <= selling(&sa, AAPL) + selling(&sb, AAPL));
    }
}
