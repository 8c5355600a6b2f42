//! The option strategies an order may name (`option_strategy`), and whether its legs form the
//! one it names. Legs are compared by their ratios (a butterfly's 1:2:1), the order's quantity
//! being how many of the whole it trades. Every option leg of a combination is of one
//! underlying; a strategy with stock (`COVERED_STOCK`, `COLLAR_WITH_STOCK`) has one leg of its
//! shares, 100 a contract.

use rust_decimal::Decimal;
use signet_model::orders::Side;

use super::{MULTIPLIER, Right};

/// The strategies of `option_strategy` (catalog §3.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Single,
    Vertical,
    Straddle,
    Strangle,
    Butterfly,
    Condor,
    IronButterfly,
    IronCondor,
    Calendar,
    Diagonal,
    CoveredStock,
    CollarWithStock,
}

impl Strategy {
    pub const ALL: [Strategy; 12] = [
        Strategy::Single,
        Strategy::Vertical,
        Strategy::Straddle,
        Strategy::Strangle,
        Strategy::Butterfly,
        Strategy::Condor,
        Strategy::IronButterfly,
        Strategy::IronCondor,
        Strategy::Calendar,
        Strategy::Diagonal,
        Strategy::CoveredStock,
        Strategy::CollarWithStock,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Strategy::Single => "SINGLE",
            Strategy::Vertical => "VERTICAL",
            Strategy::Straddle => "STRADDLE",
            Strategy::Strangle => "STRANGLE",
            Strategy::Butterfly => "BUTTERFLY",
            Strategy::Condor => "CONDOR",
            Strategy::IronButterfly => "IRON_BUTTERFLY",
            Strategy::IronCondor => "IRON_CONDOR",
            Strategy::Calendar => "CALENDAR",
            Strategy::Diagonal => "DIAGONAL",
            Strategy::CoveredStock => "COVERED_STOCK",
            Strategy::CollarWithStock => "COLLAR_WITH_STOCK",
        }
    }

    pub fn parse(text: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.as_str() == text.trim())
    }
}

/// What a leg trades.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asset {
    Option {
        expiry: i32,
        right: Right,
        strike: Decimal,
    },
    /// The underlying's shares.
    Shares,
}

/// One leg: its side, its quantity in the whole (contracts, or shares for stock), and what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leg {
    pub side: Side,
    pub quantity: u64,
    pub asset: Asset,
}

/// Why legs do not form the strategy named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the legs do not form a {strategy}: {why}")]
pub struct NotTheStrategy {
    pub strategy: &'static str,
    pub why: String,
}

/// An option leg's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Opt {
    side: Side,
    quantity: u64,
    expiry: i32,
    right: Right,
    strike: Decimal,
}

fn options(legs: &[Leg]) -> Vec<Opt> {
    let mut options: Vec<Opt> = legs
        .iter()
        .filter_map(|l| match l.asset {
            Asset::Option { expiry, right, strike } => Some(Opt {
                side: l.side,
                quantity: l.quantity,
                expiry,
                right,
                strike,
            }),
            Asset::Shares => None,
        })
        .collect();
    // Puts before calls, then by strike and expiry: the order the rules read them in.
    options.sort_by(|a, b| {
        (a.right == Right::Call, a.strike, a.expiry).cmp(&(b.right == Right::Call, b.strike, b.expiry))
    });
    options
}

fn opposite(a: Side, b: Side) -> bool {
    a != b
}

/// Whether `legs` form `strategy`; the reason when they do not.
pub fn check(strategy: Strategy, legs: &[Leg]) -> Result<(), NotTheStrategy> {
    let fail = |why: &str| {
        Err(NotTheStrategy {
            strategy: strategy.as_str(),
            why: why.to_owned(),
        })
    };
    if legs
        .iter()
        .any(|l| l.quantity == 0 || !matches!(l.side, Side::Buy | Side::Sell))
    {
        return fail("every leg buys or sells at least one");
    }
    let shares: Vec<&Leg> = legs.iter().filter(|l| l.asset == Asset::Shares).collect();
    let o = options(legs);
    let with_stock = matches!(strategy, Strategy::CoveredStock | Strategy::CollarWithStock);
    if with_stock != (shares.len() == 1) || shares.len() > 1 {
        return fail(if with_stock {
            "it has one leg of the underlying's shares"
        } else {
            "it has no leg of shares"
        });
    }
    let legs_wanted = match strategy {
        Strategy::Single | Strategy::CoveredStock => 1,
        Strategy::Vertical
        | Strategy::Straddle
        | Strategy::Strangle
        | Strategy::Calendar
        | Strategy::Diagonal
        | Strategy::CollarWithStock => 2,
        Strategy::Butterfly => 3,
        Strategy::Condor | Strategy::IronButterfly | Strategy::IronCondor => 4,
    };
    if o.len() != legs_wanted {
        return fail(&format!("it has {legs_wanted} option leg(s), not {}", o.len()));
    }
    let same_expiry = o.iter().all(|x| x.expiry == o[0].expiry);
    let same_right = o.iter().all(|x| x.right == o[0].right);
    let equal = o.iter().all(|x| x.quantity == o[0].quantity);
    let calls = o.iter().filter(|x| x.right == Right::Call).count();
    match strategy {
        Strategy::Single => Ok(()),
        Strategy::Vertical => {
            if !(same_expiry && same_right) {
                return fail("both legs are calls or both puts, of one expiry");
            }
            if o[0].strike == o[1].strike || !opposite(o[0].side, o[1].side) || !equal {
                return fail("one leg is bought and one sold, as many of each, at two strikes");
            }
            Ok(())
        }
        Strategy::Straddle | Strategy::Strangle => {
            if !same_expiry || calls != 1 {
                return fail("a put and a call of one expiry");
            }
            if o[0].side != o[1].side || !equal {
                return fail("both legs bought or both sold, as many of each");
            }
            let (put, call) = (o[0].strike, o[1].strike);
            match strategy {
                Strategy::Straddle if put != call => fail("both at one strike"),
                Strategy::Strangle if put >= call => fail("the put's strike below the call's"),
                _ => Ok(()),
            }
        }
        Strategy::Calendar | Strategy::Diagonal => {
            if !same_right || o[0].expiry == o[1].expiry {
                return fail("both calls or both puts, of two expiries");
            }
            if !opposite(o[0].side, o[1].side) || !equal {
                return fail("one leg bought and one sold, as many of each");
            }
            match strategy {
                Strategy::Calendar if o[0].strike != o[1].strike => fail("both at one strike"),
                Strategy::Diagonal if o[0].strike == o[1].strike => fail("at two strikes"),
                _ => Ok(()),
            }
        }
        Strategy::Butterfly => {
            if !(same_expiry && same_right) {
                return fail("three calls or three puts of one expiry");
            }
            let (low, body, high) = (o[0], o[1], o[2]);
            if !(low.strike < body.strike && body.strike < high.strike)
                || body.strike - low.strike != high.strike - body.strike
            {
                return fail("three strikes equally apart");
            }
            if low.side != high.side
                || !opposite(low.side, body.side)
                || low.quantity != high.quantity
                || body.quantity != 2 * low.quantity
            {
                return fail("the wings bought and the body sold twice as many, or the reverse (1:2:1)");
            }
            Ok(())
        }
        Strategy::Condor => {
            if !(same_expiry && same_right && equal) {
                return fail("four calls or four puts of one expiry, as many of each");
            }
            let k: Vec<Decimal> = o.iter().map(|x| x.strike).collect();
            if !(k[0] < k[1] && k[1] < k[2] && k[2] < k[3]) || k[1] - k[0] != k[3] - k[2] {
                return fail("four strikes, the wings as wide");
            }
            if o[0].side != o[3].side || o[1].side != o[2].side || !opposite(o[0].side, o[1].side) {
                return fail("the outer strikes on one side and the inner on the other");
            }
            Ok(())
        }
        Strategy::IronButterfly | Strategy::IronCondor => {
            if !same_expiry || calls != 2 || !equal {
                return fail("two puts and two calls of one expiry, as many of each");
            }
            let (put_low, put_high, call_low, call_high) = (o[0], o[1], o[2], o[3]);
            let inner_ok = match strategy {
                Strategy::IronButterfly => put_high.strike == call_low.strike,
                _ => put_high.strike < call_low.strike,
            };
            if put_low.strike >= put_high.strike || call_low.strike >= call_high.strike || !inner_ok {
                return fail(if strategy == Strategy::IronButterfly {
                    "a put spread and a call spread sharing the middle strike"
                } else {
                    "a put spread below a call spread"
                });
            }
            if put_high.side != call_low.side
                || put_low.side != call_high.side
                || !opposite(put_low.side, put_high.side)
            {
                return fail("the inner strikes on one side and the outer on the other");
            }
            Ok(())
        }
        Strategy::CoveredStock => {
            let (stock, call) = (shares[0], o[0]);
            if call.right != Right::Call || !opposite(stock.side, call.side) {
                return fail("shares bought and calls sold, or the reverse");
            }
            if stock.quantity != call.quantity * u64::from(MULTIPLIER) {
                return fail("100 shares a contract");
            }
            Ok(())
        }
        Strategy::CollarWithStock => {
            let (stock, put, call) = (shares[0], o[0], o[1]);
            if !(same_expiry && calls == 1) || put.strike >= call.strike {
                return fail("a put below a call, of one expiry, beside the shares");
            }
            if stock.side != put.side || !opposite(put.side, call.side) || !equal {
                return fail("shares and puts bought and calls sold, or the reverse, as many puts as calls");
            }
            if stock.quantity != call.quantity * u64::from(MULTIPLIER) {
                return fail("100 shares a contract");
            }
            Ok(())
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::options) const MARCH: i32 = 15_779;
    pub(in crate::options) const APRIL: i32 = 15_814;

    fn leg(side: Side, quantity: u64, right: Right, strike: i64) -> Leg {
        at(side, quantity, right, strike, MARCH)
    }

    /// A leg of `quantity` contracts of `right` at a whole `strike`, expiring on `expiry`.
    pub(in crate::options) fn at(side: Side, quantity: u64, right: Right, strike: i64, expiry: i32) -> Leg {
        Leg {
            side,
            quantity,
            asset: Asset::Option {
                expiry,
                right,
                strike: Decimal::from(strike),
            },
        }
    }

    fn shares(side: Side, quantity: u64) -> Leg {
        Leg {
            side,
            quantity,
            asset: Asset::Shares,
        }
    }

    use Right::{Call as C, Put as P};
    use Side::{Buy as B, Sell as S};

    /// Each strategy with legs that form it, and legs that nearly do.
    fn cases() -> Vec<(Strategy, Vec<Leg>, Vec<Leg>)> {
        vec![
            (
                Strategy::Single,
                vec![leg(B, 1, C, 450)],
                vec![leg(B, 1, C, 450), leg(S, 1, C, 460)],
            ),
            (
                Strategy::Vertical,
                vec![leg(B, 1, C, 450), leg(S, 1, C, 460)],
                vec![leg(B, 1, C, 450), leg(S, 1, P, 460)],
            ),
            (
                Strategy::Straddle,
                vec![leg(S, 2, C, 450), leg(S, 2, P, 450)],
                vec![leg(S, 2, C, 450), leg(S, 2, P, 440)],
            ),
            (
                Strategy::Strangle,
                vec![leg(B, 1, C, 460), leg(B, 1, P, 440)],
                vec![leg(B, 1, C, 440), leg(B, 1, P, 460)],
            ),
            (
                Strategy::Butterfly,
                vec![leg(B, 1, C, 440), leg(S, 2, C, 450), leg(B, 1, C, 460)],
                vec![leg(B, 1, C, 440), leg(S, 2, C, 450), leg(B, 1, C, 470)],
            ),
            (
                Strategy::Condor,
                vec![
                    leg(B, 1, P, 430),
                    leg(S, 1, P, 440),
                    leg(S, 1, P, 460),
                    leg(B, 1, P, 470),
                ],
                vec![
                    leg(B, 1, P, 430),
                    leg(S, 1, P, 440),
                    leg(B, 1, P, 460),
                    leg(S, 1, P, 470),
                ],
            ),
            (
                Strategy::IronButterfly,
                vec![
                    leg(B, 1, P, 430),
                    leg(S, 1, P, 450),
                    leg(S, 1, C, 450),
                    leg(B, 1, C, 470),
                ],
                vec![
                    leg(B, 1, P, 430),
                    leg(S, 1, P, 440),
                    leg(S, 1, C, 450),
                    leg(B, 1, C, 470),
                ],
            ),
            (
                Strategy::IronCondor,
                vec![
                    leg(B, 1, P, 420),
                    leg(S, 1, P, 430),
                    leg(S, 1, C, 470),
                    leg(B, 1, C, 480),
                ],
                vec![
                    leg(B, 1, P, 420),
                    leg(S, 1, P, 430),
                    leg(S, 1, C, 470),
                    leg(B, 2, C, 480),
                ],
            ),
            (
                Strategy::Calendar,
                vec![at(S, 1, C, 450, MARCH), at(B, 1, C, 450, APRIL)],
                vec![at(S, 1, C, 450, MARCH), at(B, 1, C, 450, MARCH)],
            ),
            (
                Strategy::Diagonal,
                vec![at(S, 1, C, 460, MARCH), at(B, 1, C, 450, APRIL)],
                vec![at(S, 1, C, 450, MARCH), at(B, 1, C, 450, APRIL)],
            ),
            (
                Strategy::CoveredStock,
                vec![shares(B, 200), leg(S, 2, C, 460)],
                vec![shares(B, 100), leg(S, 2, C, 460)],
            ),
            (
                Strategy::CollarWithStock,
                vec![shares(B, 100), leg(B, 1, P, 430), leg(S, 1, C, 470)],
                vec![shares(B, 100), leg(B, 1, P, 470), leg(S, 1, C, 430)],
            ),
        ]
    }

    #[test]
    fn every_strategy_takes_its_legs_and_refuses_near_misses() {
        for (strategy, good, bad) in cases() {
            assert_eq!(check(strategy, &good), Ok(()), "{strategy:?}");
            let e = check(strategy, &bad).unwrap_err();
            assert_eq!(e.strategy, strategy.as_str());
            assert!(e.to_string().starts_with("the legs do not form a "), "{e}");
            // The legs in another order are the same combination.
            let mut reversed = good.clone();
            reversed.reverse();
            assert_eq!(check(strategy, &reversed), Ok(()), "{strategy:?} reversed");
        }
    }

    #[test]
    fn legs_of_one_strategy_are_not_another() {
        let cases = cases();
        for (named, _, _) in &cases {
            for (formed, legs, _) in &cases {
                if named != formed {
                    assert!(check(*named, legs).is_err(), "{formed:?}'s legs taken as {named:?}");
                }
            }
        }
    }

    #[test]
    fn names_read_back_and_odd_legs_are_refused() {
        for s in Strategy::ALL {
            assert_eq!(Strategy::parse(s.as_str()), Some(s));
        }
        assert_eq!(Strategy::parse("RATIO"), None);
        assert!(check(Strategy::Single, &[leg(S, 0, C, 450)]).is_err());
        assert!(check(Strategy::Single, &[leg(Side::Short, 1, C, 450)]).is_err());
        assert!(check(Strategy::Single, &[shares(B, 100)]).is_err());
    }
}
