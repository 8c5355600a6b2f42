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
//! - calls still uncovered are covered by 100 shares of the account a contract (those of the
//!   lowest strikes first, which would be assigned first);
//! - the contracts bought that cover, and the shares, are held back from sales, so that a
//!   covering leg is not sold alone and the written one left naked;
//! - what is left is naked and holds back the standard requirement ([`naked`]): of an expiry's
//!   naked calls and puts, the greater side's requirement and the other side's premium (a short
//!   straddle or strangle cannot lose on both sides at once).

use std::collections::{BTreeMap, HashMap};

use rust_decimal::Decimal;
use signet_model::AccountType;

use super::requirement::naked;
use super::{Contract, IdParts, Right, hundred, is_contract};

/// How an account's written contracts are secured.
#[derive(Clone, Copy)]
pub enum Rule<'a> {
    /// A CASH account's: each written contract alone.
    Alone,
    /// A MARGIN account's: contracts bought cover contracts written, shares cover calls, and
    /// what is left is naked, at the requirement of the prices `price` gives (an instrument's
    /// last price: a contract's mark, an underlying's last; zero when it has none).
    Paired(&'a dyn Fn(i64) -> Decimal),
}

impl<'a> Rule<'a> {
    /// The rule of an account of `account_type`, pricing by `price`.
    pub fn of(account_type: AccountType, price: &'a dyn Fn(i64) -> Decimal) -> Rule<'a> {
        match account_type {
            AccountType::Margin => Rule::Paired(price),
            _ => Rule::Alone,
        }
    }
}

/// What one contract of `right` at `strike`, written alone in a MARGIN account at `premium` a
/// share, holds back less the premium it brings: its naked requirement ([`naked`]) with the
/// underlying at `spot` (at the strike when it has no price), never below zero. What an order
/// writing contracts claims while it rests.
pub fn written_alone(right: Right, strike: Decimal, premium: Decimal, spot: Decimal) -> Decimal {
    (naked(right, strike, premium, priced_spot(spot, strike), Decimal::ONE) - premium * hundred()).max(Decimal::ZERO)
}

/// The underlying's price `spot`, or `strike` when it has none.
fn priced_spot(spot: Decimal, strike: Decimal) -> Decimal {
    if spot > Decimal::ZERO { spot } else { strike }
}

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

/// What `positions` (instrument id, quantity; negative when written or short) hold back under
/// `rule`. Shares count only as the coverer of calls (a MARGIN account's shares held; give what
/// open orders do not already sell).
pub fn secured(positions: impl IntoIterator<Item = (i64, Decimal)>, rule: Rule<'_>) -> Secured {
    let mut by_underlying: BTreeMap<i64, Vec<Held>> = BTreeMap::new();
    let mut shares: HashMap<i64, Decimal> = HashMap::new();
    for (id, contracts) in positions {
        if contracts.is_zero() {
            continue;
        }
        if !is_contract(id) {
            if contracts > Decimal::ZERO {
                shares.insert(id, contracts);
            }
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
        match rule {
            Rule::Paired(price) => {
                let held = shares.get(&underlying).copied().unwrap_or_default();
                paired(underlying, options, held, price, &mut secured);
            }
            Rule::Alone => alone(underlying, &options, &mut secured),
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

/// Contracts of one underlying, bought covering written, then `shares` of it covering calls, the
/// rest naked at `price`'s prices.
fn paired(underlying: i64, options: Vec<Held>, shares: Decimal, price: &dyn Fn(i64) -> Decimal, secured: &mut Secured) {
    let mut shares_left = shares;
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
        let mut naked_ones: Vec<Held> = Vec::new();
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
            // Calls still uncovered are covered by shares, as far as they go; then what is left
            // is naked. The written ones of the lowest call strikes (highest put strikes), which
            // would be assigned first, leave the group first.
            if right == Right::Call {
                let covered = short.min((shares_left / hundred()).floor());
                shares_left -= covered * hundred();
                if !covered.is_zero() {
                    *secured.selling.entry(underlying).or_default() += covered * hundred();
                }
                take_written(&mut group, right, covered);
                short -= covered;
            }
            naked_ones.extend(take_written(&mut group, right, short));
        }
        secured.cash += most_lost(&group) + naked_requirement(underlying, &naked_ones, price);
    }
}

/// Takes `contracts` written of `right` out of `group`, those of the lowest call strikes or
/// highest put strikes first; what was taken.
fn take_written(group: &mut [Held], right: Right, contracts: Decimal) -> Vec<Held> {
    let mut written: Vec<usize> = (0..group.len())
        .filter(|&i| group[i].right == right && group[i].contracts < Decimal::ZERO)
        .collect();
    written.sort_by(|&a, &b| match right {
        Right::Call => group[a].strike.cmp(&group[b].strike),
        Right::Put => group[b].strike.cmp(&group[a].strike),
    });
    let mut left = contracts;
    let mut taken = Vec::new();
    for i in written {
        if left.is_zero() {
            break;
        }
        let take = left.min(-group[i].contracts);
        group[i].contracts += take;
        left -= take;
        taken.push(Held {
            contracts: -take,
            ..group[i]
        });
    }
    taken
}

/// What contracts written naked of one underlying and expiry hold back: the greater of the
/// calls' and the puts' requirements, and the other side's premium.
fn naked_requirement(underlying: i64, naked_ones: &[Held], price: &dyn Fn(i64) -> Decimal) -> Decimal {
    let spot = price(underlying);
    let (mut calls, mut puts) = ((Decimal::ZERO, Decimal::ZERO), (Decimal::ZERO, Decimal::ZERO));
    for h in naked_ones {
        let contracts = -h.contracts;
        let premium = price(h.id);
        let side = if h.right == Right::Call { &mut calls } else { &mut puts };
        side.0 += naked(h.right, h.strike, premium, priced_spot(spot, h.strike), contracts);
        side.1 += premium * hundred() * contracts;
    }
    if calls.0 >= puts.0 {
        calls.0 + puts.1
    } else {
        puts.0 + calls.1
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

    /// AAPL at 450, every contract's mark at 2.
    fn price(instrument: i64) -> Decimal {
        if instrument == AAPL {
            Decimal::from(450)
        } else {
            Decimal::TWO
        }
    }

    fn held(positions: &[(Right, i64, i32, i64)], pair: bool) -> Secured {
        held_with_shares(positions, 0, pair)
    }

    fn held_with_shares(positions: &[(Right, i64, i32, i64)], shares: i64, pair: bool) -> Secured {
        let rule = if pair { Rule::Paired(&price) } else { Rule::Alone };
        secured(
            positions
                .iter()
                .map(|&(right, strike, expiry, contracts)| (id(right, strike, expiry), Decimal::from(contracts)))
                .chain([(AAPL, Decimal::from(shares))]),
            rule,
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
    fn a_lone_written_contract_is_naked_in_margin_unless_shares_cover_a_call() {
        // 20 % of 450 less 20 out of the money is 70 (above 10 % of 430), plus the mark 2: 72
        // a share, two contracts.
        let s = held(&[(P, 430, MARCH, -2)], true);
        assert_eq!((s.cash, selling(&s, AAPL)), (Decimal::from(14_400), Decimal::ZERO));
        // 90 less 10 out of the money, plus 2.
        let s = held(&[(C, 460, MARCH, -2)], true);
        assert_eq!((s.cash, selling(&s, AAPL)), (Decimal::from(16_400), Decimal::ZERO));
        let s = held_with_shares(&[(C, 460, MARCH, -2)], 200, true);
        assert_eq!((s.cash, selling(&s, AAPL)), (Decimal::ZERO, Decimal::from(200)));
        // 150 shares cover one contract; the other is naked.
        let s = held_with_shares(&[(C, 460, MARCH, -2)], 150, true);
        assert_eq!((s.cash, selling(&s, AAPL)), (Decimal::from(8_200), Decimal::from(100)));
        // In cash a call always asks for shares, whether held or not.
        let s = held(&[(C, 460, MARCH, -2)], false);
        assert_eq!((s.cash, selling(&s, AAPL)), (Decimal::ZERO, Decimal::from(200)));
    }

    #[test]
    fn a_short_strangle_holds_back_its_greater_side_and_the_other_premium() {
        // The call: 90 − 10 + 2 = 82; the put: 90 − 20 + 2 = 72. 8,200 and the put's 200.
        let s = held(&[(C, 460, MARCH, -1), (P, 430, MARCH, -1)], true);
        assert_eq!(s.cash, Decimal::from(8_400));
        // A spot unknown counts as the strike: the call then 20 % of 460 plus 2.
        let unknown = |_: i64| Decimal::ZERO;
        let s = secured([(id(C, 460, MARCH), Decimal::NEGATIVE_ONE)], Rule::Paired(&unknown));
        assert_eq!(s.cash, Decimal::from(9_200));
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
    fn a_later_call_covers_an_earlier_one_then_shares_then_naked() {
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
        // An earlier call does not cover a later one: shares do, or it is naked (90 + 2).
        let reversed = [(C, 450, MARCH, 1), (C, 450, APRIL, -1)];
        let s = held_with_shares(&reversed, 100, true);
        assert_eq!((s.cash, selling(&s, AAPL)), (Decimal::ZERO, Decimal::from(100)));
        let s = held(&reversed, true);
        assert_eq!((s.cash, selling(&s, AAPL)), (Decimal::from(9_200), Decimal::ZERO));
        // Two written, one covered by a call bought: the other by shares, the lower strike's.
        let two = [(C, 450, MARCH, -1), (C, 460, MARCH, -1), (C, 470, MARCH, 1)];
        let s = held_with_shares(&two, 100, true);
        assert_eq!(selling(&s, AAPL), Decimal::from(100));
        assert_eq!(s.cash, Decimal::from(1_000), "460 written under 470 bought");
        // Without shares the 450 is naked: 9,200 more.
        assert_eq!(held(&two, true).cash, Decimal::from(10_200));
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
