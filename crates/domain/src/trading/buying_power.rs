//! Whether an account can take new orders: a buy (or short sale) within its buying power, a sell
//! of shares it holds and does not already sell in other orders. Placement, preview, batch
//! placement and replacement all ask [`check`]; the server loads the account's standing (cash,
//! positions and their prices, the claims of its open orders) and maps a refusal to its answer.

use std::collections::HashMap;

use rust_decimal::Decimal;
use signet_model::orders::{PositionIntent, Side};
use signet_model::wire::WireEnum;
use signet_model::{AccountType, ErrorCode};

use super::accounting::{Exposure, buying_power, power};
use super::claims::{Claims, OpenClaims, Reserved};
use super::combo::{ComboKind, Part, part};
use super::spec::OrderSpec;
use crate::Rejection;
use crate::options::secured::{Rule, secured, written_alone};
use crate::options::{Contract, Right, is_contract, multiplier};

/// An order parsed and priced, ready for the check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PricedOrder {
    pub spec: OrderSpec,
    pub instrument_id: i64,
    /// The price the order is expected to fill at: its limit, its stop, or the quote now. Of a
    /// multi-leg order, the debit of one unit per share ([`super::multi_leg::debit`]).
    pub estimate: Decimal,
    /// A multi-leg order's legs (`instrument_id` is then the underlying's); empty otherwise.
    pub legs: Vec<PricedLeg>,
}

/// A multi-leg order's leg as the check weighs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PricedLeg {
    pub instrument_id: i64,
    pub side: Side,
    /// Contracts in one unit of the order.
    pub ratio: u64,
    /// The price it is expected to trade at now (its ask bought, its bid sold).
    pub price: Decimal,
}

/// A position as the check weighs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub instrument_id: i64,
    /// Shares, negative when sold short.
    pub quantity: Decimal,
    /// The last price now.
    pub price: Decimal,
}

/// An account as of now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    pub account_type: AccountType,
    pub cash: Decimal,
    pub positions: Vec<Position>,
    /// The cash the account's open buy and short orders hold back.
    pub reserved: Decimal,
    /// The part of `reserved` that buys option contracts ([`Claims::premiums`]).
    pub reserved_premiums: Decimal,
    /// The shares its open sell orders already sell, per instrument.
    pub selling: HashMap<i64, Decimal>,
}

impl Standing {
    /// The account with `more` claimed besides what its open orders claim (the placements a
    /// turn accepted before the one it checks).
    pub fn claiming(mut self, more: &Claims) -> Standing {
        self.reserved += more.cash;
        self.reserved_premiums += more.premiums;
        for (&instrument_id, &shares) in &more.selling {
            *self.selling.entry(instrument_id).or_default() += shares;
        }
        self
    }
}

/// Buying power before the new orders and what would be left after them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Headroom {
    pub before: Decimal,
    pub after: Decimal,
}

/// Checks `orders` (one order, a combination of `kind` in the order placed, or a batch of
/// independent orders) against the account, refusing a buy beyond its buying power and a sell of
/// shares it does not hold (or already sells in other orders). Of an OCO pair only one leg
/// trades, so the larger claim counts; an order waiting for a master that buys may sell what the
/// master buys. Instruments the account does not hold (the underlyings of contracts written)
/// are priced by `price_now`.
pub fn check(
    standing: Standing,
    orders: &[&PricedOrder],
    kind: Option<ComboKind>,
    price_now: &dyn Fn(i64) -> Decimal,
) -> Result<Headroom, Rejection> {
    let Standing {
        account_type,
        cash,
        positions,
        reserved,
        reserved_premiums,
        mut selling,
    } = standing;
    let exposure = positions
        .iter()
        .map(|p| Exposure::of(p.instrument_id, p.quantity, p.price))
        .fold(Exposure::default(), Exposure::plus);
    // What open orders sell, before what written contracts hold back joins it.
    let sold_by_orders = selling.clone();
    let price = |id: i64| {
        positions
            .iter()
            .find(|p| p.instrument_id == id)
            .map_or_else(|| price_now(id), |p| p.price)
    };
    // Contracts written hold back what secures them (`options::secured`): shares under calls,
    // cash for what they can lose (in full, as options bought are paid).
    let secured = secured(
        positions.iter().map(|p| {
            (
                p.instrument_id,
                free_to_cover(p.instrument_id, p.quantity, &sold_by_orders),
            )
        }),
        Rule::of(account_type, &price),
    );
    for (&instrument_id, &units) in &secured.selling {
        *selling.entry(instrument_id).or_default() += units;
    }
    // Held in full, as the premiums of options bought.
    let before = buying_power(
        account_type,
        cash,
        exposure,
        reserved + secured.cash,
        reserved_premiums + secured.cash,
    );
    let master = orders
        .first()
        .filter(|_| matches!(kind, Some(ComboKind::Oto | ComboKind::Otoco)));
    let (mut cost, mut leg_cost) = (Decimal::ZERO, Decimal::ZERO);
    for (i, p) in orders.iter().enumerate() {
        let mut held = positions
            .iter()
            .find(|h| h.instrument_id == p.instrument_id)
            .map_or(Decimal::ZERO, |h| h.quantity);
        let waits = i > 0 && master.is_some();
        if let Some(m) = master.filter(|m| waits && m.spec.side == Side::Buy && m.instrument_id == p.instrument_id) {
            held += m.spec.quantity;
        }
        let value = p.spec.quantity * p.estimate * multiplier(p.instrument_id);
        // Options are paid (and puts written secured) in full: in a margin account that takes
        // twice the cash of its buying power, which is twice its excess equity.
        let in_full = |cash: Decimal| {
            if account_type == AccountType::Margin {
                cash * Decimal::TWO
            } else {
                cash
            }
        };
        if !p.legs.is_empty() {
            cost += multi_leg_cost(account_type, cash, &positions, &sold_by_orders, p, price_now)?;
            continue;
        }
        let mut sells = p.instrument_id;
        let (order_cost, shares) = match p.spec.side {
            _ if is_contract(p.instrument_id) => match intent_for(held, p)? {
                PositionIntent::BuyToOpen | PositionIntent::BuyToClose => (in_full(value), Decimal::ZERO),
                PositionIntent::SellToClose => {
                    let free = (held - selling.get(&p.instrument_id).copied().unwrap_or_default()).max(Decimal::ZERO);
                    if p.spec.quantity > free {
                        return Err(Rejection::new(
                            ErrorCode::InsufficientPosition,
                            format!(
                                "the account can sell {free} {} to close (held, and not already being sold nor covering a contract written)",
                                p.spec.symbol
                            ),
                        ));
                    }
                    (Decimal::ZERO, p.spec.quantity)
                }
                PositionIntent::SellToOpen => {
                    let parts = Contract::of_id(p.instrument_id).expect("a contract's id");
                    let shares = p.spec.quantity * multiplier(p.instrument_id);
                    match parts.right {
                        // In a MARGIN account a contract written holds back its naked
                        // requirement until it fills; then shares held cover a call
                        // (`options::secured`).
                        right if account_type == AccountType::Margin => (
                            in_full(
                                written_alone(right, parts.strike, p.estimate, price(parts.underlying_id))
                                    * p.spec.quantity,
                            ),
                            Decimal::ZERO,
                        ),
                        // A call written is covered by 100 shares a contract, held and not
                        // already sold or covering.
                        Right::Call => {
                            let underlying = parts.underlying_id;
                            let held_shares = positions
                                .iter()
                                .find(|h| h.instrument_id == underlying)
                                .map_or(Decimal::ZERO, |h| h.quantity);
                            let free = (held_shares - selling.get(&underlying).copied().unwrap_or_default())
                                .max(Decimal::ZERO);
                            if shares > free {
                                return Err(Rejection::new(
                                    ErrorCode::InsufficientPosition,
                                    format!(
                                        "a call written in a CASH account needs 100 shares of the underlying a contract, held and not already sold or covering: the account has {free} free, {shares} are needed (a MARGIN account may write calls uncovered)"
                                    ),
                                ));
                            }
                            sells = underlying;
                            (Decimal::ZERO, shares)
                        }
                        // A put written is secured by the cash its shares would cost.
                        Right::Put => (in_full(parts.strike * shares), Decimal::ZERO),
                    }
                }
            },
            Side::Buy => (value, Decimal::ZERO),
            Side::Short if account_type == AccountType::Cash => {
                return Err(Rejection::new(
                    ErrorCode::UnsupportedSide,
                    "side \"SHORT\" is for MARGIN accounts: a CASH account sells only what it holds",
                ));
            }
            Side::Short if held > Decimal::ZERO => {
                return Err(Rejection::new(
                    ErrorCode::InsufficientPosition,
                    format!(
                        "the account holds {held} {} long: SELL them before selling short",
                        p.spec.symbol
                    ),
                ));
            }
            // A short sale uses buying power as a purchase does (Reg T: 50% of its value).
            Side::Short => (value, Decimal::ZERO),
            Side::Sell => {
                let free = (held - selling.get(&p.instrument_id).copied().unwrap_or_default()).max(Decimal::ZERO);
                if p.spec.quantity > free {
                    return Err(Rejection::new(
                        ErrorCode::InsufficientPosition,
                        format!(
                            "the account can sell {free} {} (held and not already being sold)",
                            p.spec.symbol
                        ),
                    ));
                }
                (Decimal::ZERO, if waits { Decimal::ZERO } else { p.spec.quantity })
            }
        };
        // The legs come last: each is checked against the same shares.
        if part(p.spec.combo_type) == Part::Leg {
            leg_cost = leg_cost.max(order_cost);
        } else {
            cost += order_cost;
            *selling.entry(sells).or_default() += shares;
        }
    }
    cost += leg_cost;
    if cost > before {
        let kind = if account_type == AccountType::Cash {
            "cash"
        } else {
            "margin"
        };
        return Err(Rejection::new(
            ErrorCode::InsufficientBuyingPower,
            format!(
                "the order needs about {} USD and the {kind} account's buying power is {} USD",
                cost.round_dp(2),
                before.round_dp(2)
            ),
        ));
    }
    Ok(Headroom {
        before,
        after: before - cost,
    })
}

/// What multi-leg order `p` takes of the buying power: the fall in it from the account now to
/// the account after every unit filled at the order's debit, its legs valued at their prices now
/// and its written contracts holding back what they need ([`crate::options::secured`]). Refused
/// when a leg sells contracts held that open orders already sell, or when the account after it
/// would write calls that neither its shares (not already being sold) nor contracts bought
/// cover, or sell contracts bought that cover written ones.
fn multi_leg_cost(
    account_type: AccountType,
    cash: Decimal,
    positions: &[Position],
    sold_by_orders: &HashMap<i64, Decimal>,
    p: &PricedOrder,
    price_now: &dyn Fn(i64) -> Decimal,
) -> Result<Decimal, Rejection> {
    let units = p.spec.quantity;
    let mut before: HashMap<i64, (Decimal, Decimal)> = positions
        .iter()
        .map(|h| (h.instrument_id, (h.quantity, h.price)))
        .collect();
    let sold = |id: i64| sold_by_orders.get(&id).copied().unwrap_or_default();
    let mut after = before.clone();
    for leg in &p.legs {
        let contracts = units * Decimal::from(leg.ratio);
        let entry = after.entry(leg.instrument_id).or_insert((Decimal::ZERO, leg.price));
        // A leg of shares sells only shares held and not already being sold.
        if leg.side == Side::Sell && !is_contract(leg.instrument_id) {
            let free = (entry.0 - sold(leg.instrument_id)).max(Decimal::ZERO);
            if contracts > free {
                return Err(Rejection::new(
                    ErrorCode::InsufficientPosition,
                    format!(
                        "the account can sell {free} shares of the leg of shares (held, and not already being sold)"
                    ),
                ));
            }
        }
        if leg.side == Side::Sell && entry.0 > Decimal::ZERO {
            let free = (entry.0 - sold(leg.instrument_id)).max(Decimal::ZERO);
            if contracts.min(entry.0) > free {
                return Err(Rejection::new(
                    ErrorCode::InsufficientPosition,
                    format!(
                        "the account can sell {free} of the contracts of a leg (held and not already being sold): {} are held",
                        entry.0
                    ),
                ));
            }
        }
        entry.0 += if leg.side == Side::Buy { contracts } else { -contracts };
        entry.1 = leg.price;
        before.entry(leg.instrument_id).or_insert((Decimal::ZERO, leg.price)).1 = leg.price;
    }
    let price = |id: i64| after.get(&id).map_or_else(|| price_now(id), |h| h.1);
    let standing = |holdings: &HashMap<i64, (Decimal, Decimal)>, cash: Decimal| {
        let exposure = holdings
            .iter()
            .map(|(&id, &(quantity, price))| Exposure::of(id, quantity, price))
            .fold(Exposure::default(), Exposure::plus);
        let held = secured(
            holdings
                .iter()
                .map(|(&id, &(quantity, _))| (id, free_to_cover(id, quantity, sold_by_orders))),
            Rule::of(account_type, &price),
        );
        (power(account_type, cash, exposure, held.cash), held)
    };
    let (power_before, _) = standing(&before, cash);
    let debit = p.estimate * Decimal::from(crate::options::MULTIPLIER) * units;
    let (power_after, held_after) = standing(&after, cash - debit);
    for (&id, &needed) in &held_after.selling {
        let held = after.get(&id).map_or(Decimal::ZERO, |h| h.0);
        let free = (held - sold(id)).max(Decimal::ZERO);
        if needed > free {
            return Err(Rejection::new(
                ErrorCode::InsufficientPosition,
                if is_contract(id) {
                    format!(
                        "the order would sell contracts that cover contracts written: {needed} must stay, {free} are free"
                    )
                } else {
                    format!(
                        "calls written in a CASH account need 100 shares of the underlying a contract, or calls bought to cover them: {needed} shares are needed and {free} are free (a MARGIN account may write calls uncovered)"
                    )
                },
            ));
        }
    }
    Ok(power_before - power_after)
}

/// What of `quantity` of `instrument_id` may cover contracts written: a contract's position
/// whole (what sells it is weighed apart), the shares open orders do not already sell.
fn free_to_cover(instrument_id: i64, quantity: Decimal, sold_by_orders: &HashMap<i64, Decimal>) -> Decimal {
    if is_contract(instrument_id) || quantity <= Decimal::ZERO {
        quantity
    } else {
        (quantity - sold_by_orders.get(&instrument_id).copied().unwrap_or_default()).max(Decimal::ZERO)
    }
}

/// Whether option order `p` opens or closes a position, the account holding `held` of its
/// contract (negative when written): as it says (`position_intent`), which must be so, or else
/// as it is. A purchase of contracts written buys back at most those; a sale of contracts held
/// sells at most those (what is beyond would open the other way, which is refused rather than
/// guessed).
pub fn intent_for(held: Decimal, p: &PricedOrder) -> Result<PositionIntent, Rejection> {
    let quantity = p.spec.quantity;
    let found = match p.spec.side {
        Side::Buy if held < Decimal::ZERO => PositionIntent::BuyToClose,
        Side::Buy => PositionIntent::BuyToOpen,
        Side::Sell | Side::Short if held > Decimal::ZERO => PositionIntent::SellToClose,
        Side::Sell | Side::Short => PositionIntent::SellToOpen,
    };
    let contracts = p.spec.symbol.as_str();
    if let Some(given) = p.spec.intent
        && given != found
    {
        return Err(Rejection::illegal_parameter(format!(
            "position_intent {} does not fit: the account holds {} {contracts} (negative: written), so this order is {}",
            given.as_str(),
            held.normalize(),
            found.as_str()
        )));
    }
    let beyond = match found {
        PositionIntent::BuyToClose => quantity > -held,
        PositionIntent::SellToClose => quantity > held,
        PositionIntent::BuyToOpen | PositionIntent::SellToOpen => false,
    };
    if beyond {
        return Err(Rejection::new(
            ErrorCode::InsufficientPosition,
            format!(
                "the account holds {} {contracts} (negative: written): close at most those, then open another order",
                held.normalize()
            ),
        ));
    }
    Ok(found)
}

/// One placement of a turn, as [`check_turn`] weighs it: its orders priced, the combination
/// they form (a batch's orders are independent), and what they claim once stored.
#[derive(Debug, Clone)]
pub struct Placing<'a> {
    pub priced: Vec<&'a PricedOrder>,
    pub kind: Option<ComboKind>,
    pub claims: Vec<Reserved>,
}

/// A turn's verdict on a placement: `None` when it was left out.
pub type Verdict = Option<Result<Headroom, Rejection>>;

/// Checks the placements of one turn of an account ([`check`] each), one after another, against
/// the account as the turn found it and what the turn accepted before each. Those `left_out`
/// names, given the verdicts before them, are not checked and claim nothing (they will not be
/// stored: their client order id was used before, or by a placement the turn accepted). The
/// verdict of each.
pub fn check_turn(
    standing: &Standing,
    placings: &[Placing<'_>],
    left_out: impl Fn(usize, &[Verdict]) -> bool,
    price_now: impl Fn(i64) -> Decimal,
) -> Vec<Verdict> {
    let mut accepted = OpenClaims::default();
    let mut verdicts = Vec::with_capacity(placings.len());
    for (i, placing) in placings.iter().enumerate() {
        if left_out(i, &verdicts) {
            verdicts.push(None);
            continue;
        }
        let verdict = check(
            standing.clone().claiming(&accepted.claims(None, &price_now)),
            &placing.priced,
            placing.kind,
            &price_now,
        );
        if verdict.is_ok() {
            placing.claims.iter().cloned().for_each(|claim| accepted.add(claim));
        }
        verdicts.push(Some(verdict));
    }
    verdicts
}

/// Whether a placement of a turn was refused for what the account holds after another was
/// accepted before it: the accepted one's claim may have been the cause.
pub fn refused_after_accepted(verdicts: &[Verdict]) -> bool {
    let Some(first) = verdicts.iter().position(|v| matches!(v, Some(Ok(_)))) else {
        return false;
    };
    verdicts[first..].iter().any(|v| {
        matches!(v, Some(Err(r)) if matches!(r.code, ErrorCode::InsufficientBuyingPower | ErrorCode::InsufficientPosition))
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use proptest::prelude::*;
    use signet_model::orders::{ComboType, OrderType, TimeInForce, TradingSession};

    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    /// A limit order of `quantity` at `estimate`, as placement prices it.
    pub(crate) fn order(
        instrument_id: i64,
        side: Side,
        quantity: &str,
        estimate: &str,
        combo_type: ComboType,
    ) -> PricedOrder {
        PricedOrder {
            spec: OrderSpec {
                client_order_id: format!("c{instrument_id}{side:?}{quantity}").into(),
                combo_type,
                symbol: format!("S{instrument_id}"),
                side,
                order_type: OrderType::Limit,
                time_in_force: TimeInForce::Day,
                quantity: d(quantity),
                cash_amount: None,
                limit_price: Some(d(estimate)),
                stop_price: None,
                trailing: None,
                expire_day: None,
                session: TradingSession::Core,
                contract: None,
                multi_leg: None,
                intent: None,
            },
            instrument_id,
            estimate: d(estimate),
            legs: Vec::new(),
        }
    }

    fn normal(instrument_id: i64, side: Side, quantity: &str, estimate: &str) -> PricedOrder {
        order(instrument_id, side, quantity, estimate, ComboType::Normal)
    }

    fn cash(amount: &str) -> Standing {
        Standing {
            account_type: AccountType::Cash,
            cash: d(amount),
            positions: Vec::new(),
            reserved: Decimal::ZERO,
            reserved_premiums: Decimal::ZERO,
            selling: HashMap::new(),
        }
    }

    fn holding(mut standing: Standing, instrument_id: i64, quantity: &str, price: &str) -> Standing {
        standing.positions.push(Position {
            instrument_id,
            quantity: d(quantity),
            price: d(price),
        });
        standing
    }

    #[test]
    fn a_buy_within_the_cash_passes_and_leaves_the_rest() {
        let buy = normal(1, Side::Buy, "10", "50");
        assert_eq!(
            check(cash("1000"), &[&buy], None),
            Ok(Headroom {
                before: d("1000"),
                after: d("500")
            })
        );
    }

    #[test]
    fn a_buy_beyond_the_buying_power_less_the_reserved_cash_is_refused() {
        let mut standing = cash("1000");
        standing.reserved = d("600");
        let e = check(standing, &[&normal(1, Side::Buy, "10", "50")], None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InsufficientBuyingPower);
        assert_eq!(
            e.message,
            "the order needs about 500 USD and the cash account's buying power is 400 USD"
        );
    }

    /// AAPL's March call at 450 (AAPL is instrument 1 here).
    fn call_id() -> i64 {
        Contract {
            underlying: "AAPL".into(),
            expiry: crate::marketdata::units::parse_day("2013-03-15").unwrap(),
            right: Right::Call,
            strike: d("450"),
        }
        .instrument_id(1)
        .unwrap()
    }

    #[test]
    fn options_are_paid_in_full_and_sold_only_when_held() {
        let call = call_id();
        // 2 contracts at 4.50: 900 of a cash account's 1000.
        let buy = normal(call, Side::Buy, "2", "4.5");
        assert_eq!(check(cash("1000"), &[&buy], None).unwrap().after, d("100"));
        assert_eq!(
            check(cash("899"), &[&buy], None).unwrap_err().code,
            ErrorCode::InsufficientBuyingPower
        );
        // A margin account's 2000 of buying power (twice 1000 of equity) pays 1000 of options.
        let margin = Standing {
            account_type: AccountType::Margin,
            ..cash("1000")
        };
        assert_eq!(check(margin.clone(), &[&buy], None).unwrap().after, d("200"));
        let more = normal(call, Side::Buy, "3", "4.5");
        assert_eq!(
            check(margin.clone(), &[&more], None).unwrap_err().code,
            ErrorCode::InsufficientBuyingPower
        );
        // Contracts held lend no buying power: 900 of options and 100 of cash leave 200.
        let held = Standing {
            cash: d("100"),
            ..holding(margin, call, "2", "4.5")
        };
        assert_eq!(check(held.clone(), &[], None).unwrap().before, d("200"));
        // Open option buys hold back twice their cost in a margin account.
        let claimed = Standing {
            reserved: d("50"),
            reserved_premiums: d("50"),
            ..held.clone()
        };
        assert_eq!(check(claimed, &[], None).unwrap().before, d("100"));
        // Held contracts sell to close, no more than are held.
        assert!(check(held.clone(), &[&normal(call, Side::Sell, "2", "4")], None).is_ok());
        assert_eq!(
            check(held, &[&normal(call, Side::Sell, "3", "4")], None)
                .unwrap_err()
                .code,
            ErrorCode::InsufficientPosition
        );
    }

    /// The check with nothing priced beyond the account's positions.
    fn check(standing: Standing, orders: &[&PricedOrder], kind: Option<ComboKind>) -> Result<Headroom, Rejection> {
        super::check(standing, orders, kind, &|_| Decimal::ZERO)
    }

    /// The underlying of [`contract`]'s contracts at 450.
    fn spot(instrument_id: i64) -> Decimal {
        if instrument_id == 1 { d("450") } else { Decimal::ZERO }
    }

    fn contract(right: Right, strike: &str) -> i64 {
        Contract {
            underlying: "AAPL".into(),
            expiry: crate::marketdata::units::parse_day("2013-03-15").unwrap(),
            right,
            strike: d(strike),
        }
        .instrument_id(1)
        .unwrap()
    }

    #[test]
    fn a_call_is_written_against_100_free_shares_a_contract() {
        let call = contract(Right::Call, "450");
        let write = |quantity: &str| normal(call, Side::Sell, quantity, "10");
        let code = |standing: Standing, orders: &[&PricedOrder]| check(standing, orders, None).unwrap_err().code;
        // Uncovered: refused in a CASH account; in a MARGIN account it holds back its naked
        // requirement less its premium, in full: (20 % of 450 + 10) × 100 − 1,000, twice.
        assert_eq!(code(cash("100000"), &[&write("1")]), ErrorCode::InsufficientPosition);
        let margin = Standing {
            account_type: AccountType::Margin,
            ..cash("100000")
        };
        let naked = super::check(margin.clone(), &[&write("1")], None, &spot).unwrap();
        assert_eq!(naked.before - naked.after, d("18000"));
        // Written, it holds back the same with its mark at 10, and the premium is in the cash.
        let written = holding(
            Standing {
                cash: d("101000"),
                ..margin
            },
            call,
            "-1",
            "10",
        );
        assert_eq!(
            super::check(written, &[], None, &spot).unwrap().before,
            d("202000") - d("20000")
        );
        // 250 shares cover two contracts, which take no buying power; a third is uncovered.
        let shares = holding(cash("1000"), 1, "250", "440");
        assert_eq!(check(shares.clone(), &[&write("2")], None).unwrap().after, d("1000"));
        assert_eq!(code(shares.clone(), &[&write("3")]), ErrorCode::InsufficientPosition);
        // The shares covering a call written are not sold again, nor cover another.
        let written = holding(shares.clone(), call, "-2", "10");
        assert_eq!(code(written.clone(), &[&write("1")]), ErrorCode::InsufficientPosition);
        assert_eq!(
            code(written.clone(), &[&normal(1, Side::Sell, "51", "440")]),
            ErrorCode::InsufficientPosition
        );
        assert!(check(written, &[&normal(1, Side::Sell, "50", "440")], None).is_ok());
        // Two writes of one placement share the shares.
        assert_eq!(
            code(shares, &[&write("1"), &write("2")]),
            ErrorCode::InsufficientPosition
        );
    }

    /// A multi-leg order of `units` of `legs` (side, ratio, right, strike, price now) at a debit
    /// of `debit` a unit per share (negative: a credit).
    fn spread(units: &str, debit: &str, legs: &[(Side, u64, Right, &str, &str)]) -> PricedOrder {
        let mut order = normal(1, Side::Buy, units, debit);
        order.legs = legs
            .iter()
            .map(|&(side, ratio, right, strike, price)| PricedLeg {
                instrument_id: contract(right, strike),
                side,
                ratio,
                price: d(price),
            })
            .collect();
        order
    }

    #[test]
    fn a_spread_takes_its_maximum_loss_in_margin_and_each_written_leg_alone_in_cash() {
        use Right::{Call as C, Put as P};
        use Side::{Buy as B, Sell as S};
        let margin = |amount: &str| Standing {
            account_type: AccountType::Margin,
            ..cash(amount)
        };
        let code = |standing: Standing, order: &PricedOrder| check(standing, &[order], None).unwrap_err().code;
        // A debit call spread: its debit, paid in full (twice it of a margin account's power).
        let debit = spread("2", "4", &[(B, 1, C, "450", "10"), (S, 1, C, "460", "6")]);
        assert_eq!(check(margin("10000"), &[&debit], None).unwrap().after, d("18400"));
        // In a CASH account the call written needs its 100 shares a contract.
        assert_eq!(code(cash("10000"), &debit), ErrorCode::InsufficientPosition);
        let covered = holding(cash("10000"), 1, "200", "450");
        assert_eq!(check(covered, &[&debit], None).unwrap().after, d("9200"));
        // A credit put spread: the width less the credit, in full; in a CASH account the put
        // written is secured by its strike alone.
        let credit = spread("1", "-3", &[(S, 1, P, "450", "9"), (B, 1, P, "440", "6")]);
        assert_eq!(check(margin("1000"), &[&credit], None).unwrap().after, d("600"));
        assert_eq!(code(margin("699"), &credit), ErrorCode::InsufficientBuyingPower);
        assert_eq!(code(cash("40000"), &credit), ErrorCode::InsufficientBuyingPower);
        assert_eq!(check(cash("45000"), &[&credit], None).unwrap().after, d("300"));
        // An iron condor: its wider side less the credit.
        let condor = spread(
            "1",
            "-2",
            &[
                (B, 1, P, "420", "1"),
                (S, 1, P, "430", "2"),
                (S, 1, C, "470", "2"),
                (B, 1, C, "485", "1"),
            ],
        );
        let before = margin("10000");
        assert_eq!(
            check(before, &[&condor], None).unwrap().after,
            d("20000") - d("2") * d("1300")
        );
    }

    #[test]
    fn a_spread_closes_what_is_held_but_not_a_leg_that_covers_another() {
        use Right::Put as P;
        use Side::{Buy as B, Sell as S};
        let (short, long) = (contract(P, "450"), contract(P, "440"));
        let held = Standing {
            account_type: AccountType::Margin,
            ..holding(holding(cash("1000"), short, "-1", "9"), long, "1", "6")
        };
        // The spread held keeps its width: 2,000 of the 2,000 of power.
        assert_eq!(check(held.clone(), &[], None).unwrap().before, d("0"));
        // The put bought covers the one written: not sold alone.
        assert_eq!(
            check(held.clone(), &[&normal(long, S, "1", "6")], None)
                .unwrap_err()
                .code,
            ErrorCode::InsufficientPosition
        );
        // Closed together, at a debit of 3: the width comes back, less the debit twice.
        let close = spread("1", "3", &[(B, 1, P, "450", "9"), (S, 1, P, "440", "6")]);
        let headroom = check(held.clone(), &[&close], None).unwrap();
        assert_eq!(headroom.after, d("2000") - d("600"));
        // What open orders already sell is not sold again.
        let mut selling = held;
        selling.selling.insert(long, Decimal::ONE);
        assert_eq!(
            check(selling, &[&close], None).unwrap_err().code,
            ErrorCode::InsufficientPosition
        );
    }

    #[test]
    fn a_put_is_written_against_the_cash_its_shares_would_cost() {
        let put = contract(Right::Put, "450");
        let write = normal(put, Side::Sell, "1", "10");
        // 45,000 secures one put at 450: all of a cash account's 45,000.
        assert_eq!(check(cash("45000"), &[&write], None).unwrap().after, d("0"));
        assert_eq!(
            check(cash("44999"), &[&write], None).unwrap_err().code,
            ErrorCode::InsufficientBuyingPower
        );
        // A margin account holds back its naked requirement instead, less its premium, in full:
        // (20 % of 450 + 10) × 100 − 1,000, twice.
        let margin = Standing {
            account_type: AccountType::Margin,
            ..cash("45000")
        };
        assert_eq!(super::check(margin, &[&write], None, &spot).unwrap().after, d("72000"));
        // Written, the put keeps holding the cash back (its premium received is the account's).
        let written = holding(cash("46000"), put, "-1", "9");
        assert_eq!(check(written.clone(), &[], None).unwrap().before, d("1000"));
        // Bought back, at most the one written.
        assert!(check(written.clone(), &[&normal(put, Side::Buy, "1", "9")], None).is_ok());
        assert_eq!(
            check(written, &[&normal(put, Side::Buy, "2", "9")], None)
                .unwrap_err()
                .code,
            ErrorCode::InsufficientPosition
        );
    }

    #[test]
    fn an_intent_given_must_be_so() {
        let call = contract(Right::Call, "450");
        let mut sell = normal(call, Side::Sell, "1", "10");
        assert_eq!(intent_for(d("2"), &sell), Ok(PositionIntent::SellToClose));
        assert_eq!(intent_for(d("0"), &sell), Ok(PositionIntent::SellToOpen));
        sell.spec.intent = Some(PositionIntent::SellToClose);
        assert_eq!(intent_for(d("0"), &sell).unwrap_err().code, ErrorCode::IllegalParameter);
        let buy = normal(call, Side::Buy, "1", "10");
        assert_eq!(intent_for(d("-1"), &buy), Ok(PositionIntent::BuyToClose));
        assert_eq!(intent_for(d("1"), &buy), Ok(PositionIntent::BuyToOpen));
    }

    #[test]
    fn a_margin_account_buys_on_twice_its_equity() {
        let standing = Standing {
            account_type: AccountType::Margin,
            ..holding(cash("1000"), 1, "10", "100")
        };
        // Equity 2000, doubled, less the 1000 the long position uses.
        let headroom = check(standing, &[&normal(2, Side::Buy, "30", "100")], None).unwrap();
        assert_eq!((headroom.before, headroom.after), (d("3000"), d("0")));
    }

    #[test]
    fn what_a_turn_accepted_before_counts_as_claimed() {
        let buy = normal(1, Side::Buy, "10", "50");
        let sell = normal(2, Side::Sell, "5", "1");
        let standing = holding(cash("700"), 2, "5", "1");
        assert!(check(standing.clone(), &[&buy], None).is_ok());
        let accepted = Claims {
            cash: d("300"),
            premiums: Decimal::ZERO,
            selling: HashMap::from([(2, d("1"))]),
        };
        let e = check(standing.clone().claiming(&accepted), &[&buy], None).unwrap_err();
        assert_eq!(
            e.message,
            "the order needs about 500 USD and the cash account's buying power is 400 USD"
        );
        let e = check(standing.claiming(&accepted), &[&sell], None).unwrap_err();
        assert_eq!(e.message, "the account can sell 4 S2 (held and not already being sold)");
    }

    #[test]
    fn a_turn_checks_its_placements_one_after_another_and_leaves_out_what_will_not_be_stored() {
        let buys = [normal(1, Side::Buy, "10", "50"), normal(2, Side::Buy, "10", "60")];
        let claim = |instrument_id: i64, price: &str| Reserved {
            order_id: instrument_id.to_string().into(),
            side: Side::Buy,
            instrument_id,
            remaining: d("10"),
            price: Some(d(price)),
            oco: None,
            waits: false,
            writes: false,
            margin: false,
            legs: None,
        };
        let placings = [
            Placing {
                priced: vec![&buys[0]],
                kind: None,
                claims: vec![claim(1, "50")],
            },
            Placing {
                priced: vec![&buys[1]],
                kind: None,
                claims: vec![claim(2, "60")],
            },
        ];
        // 1,000 of cash: the first (500) fits, then the second (600) no longer does.
        let verdicts = check_turn(&cash("1000"), &placings, |_, _| false, |_| Decimal::ZERO);
        assert!(matches!(verdicts[0], Some(Ok(_))));
        assert_eq!(
            verdicts[1].as_ref().unwrap().as_ref().unwrap_err().code,
            ErrorCode::InsufficientBuyingPower
        );
        assert!(refused_after_accepted(&verdicts));
        // Left out (its id was used before), the first claims nothing: the second fits.
        let verdicts = check_turn(&cash("1000"), &placings, |i, _| i == 0, |_| Decimal::ZERO);
        assert!(verdicts[0].is_none() && matches!(verdicts[1], Some(Ok(_))));
        assert!(!refused_after_accepted(&verdicts));
    }

    #[test]
    fn a_sell_is_limited_to_the_shares_held_and_not_already_sold() {
        let mut standing = holding(cash("0"), 1, "10", "5");
        standing.selling.insert(1, d("4"));
        assert!(check(standing.clone(), &[&normal(1, Side::Sell, "6", "5")], None).is_ok());
        let e = check(standing, &[&normal(1, Side::Sell, "7", "5")], None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InsufficientPosition);
        assert_eq!(e.message, "the account can sell 6 S1 (held and not already being sold)");
    }

    #[test]
    fn two_sells_of_a_batch_share_the_shares() {
        let standing = holding(cash("0"), 1, "10", "5");
        let (a, b) = (normal(1, Side::Sell, "6", "5"), normal(1, Side::Sell, "5", "5"));
        let e = check(standing, &[&a, &b], None).unwrap_err();
        assert_eq!(e.message, "the account can sell 4 S1 (held and not already being sold)");
    }

    #[test]
    fn short_sales_need_a_margin_account_without_a_long_position() {
        let short = normal(1, Side::Short, "1", "10");
        assert_eq!(
            check(cash("1000"), &[&short], None).unwrap_err().code,
            ErrorCode::UnsupportedSide
        );
        let margin = Standing {
            account_type: AccountType::Margin,
            ..holding(cash("1000"), 1, "3", "10")
        };
        let e = check(margin, &[&short], None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InsufficientPosition);
        assert_eq!(e.message, "the account holds 3 S1 long: SELL them before selling short");
    }

    #[test]
    fn an_order_waiting_for_a_master_that_buys_may_sell_what_it_buys() {
        let master = order(1, Side::Buy, "10", "10", ComboType::Master);
        let profit = order(1, Side::Sell, "10", "12", ComboType::StopProfit);
        let loss = order(1, Side::Sell, "10", "9", ComboType::StopLoss);
        let headroom = check(cash("100"), &[&master, &profit, &loss], Some(ComboKind::Otoco)).unwrap();
        assert_eq!(headroom.after, d("0"));
        assert!(check(cash("100"), &[&profit], None).is_err(), "alone, nothing to sell");
    }

    #[test]
    fn of_an_oco_pair_only_the_larger_leg_counts() {
        let a = order(1, Side::Buy, "10", "10", ComboType::StopProfit);
        let b = order(1, Side::Buy, "10", "9", ComboType::StopLoss);
        let headroom = check(cash("100"), &[&a, &b], Some(ComboKind::Oco)).unwrap();
        assert_eq!(headroom.after, d("0"));
    }

    proptest! {
        /// Buys pass exactly when their cost fits the buying power, which they then lower by it.
        #[test]
        fn buys_pass_when_they_fit_and_spend_what_they_cost(
            cash_cents in 0u32..10_000_000,
            reserved_cents in 0u32..1_000_000,
            buys in prop::collection::vec((1i64..5, 1u32..1_000, 1u32..100_000), 1..6),
        ) {
            let mut standing = cash(&(Decimal::from(cash_cents) / Decimal::ONE_HUNDRED).to_string());
            standing.reserved = Decimal::from(reserved_cents) / Decimal::ONE_HUNDRED;
            let orders: Vec<PricedOrder> = buys
                .iter()
                .map(|(id, q, cents)| normal(*id, Side::Buy, &q.to_string(), &(Decimal::from(*cents) / Decimal::ONE_HUNDRED).to_string()))
                .collect();
            let cost: Decimal = orders.iter().map(|o| o.spec.quantity * o.estimate).sum();
            let before = (standing.cash - standing.reserved).max(Decimal::ZERO);
            let refs: Vec<&PricedOrder> = orders.iter().collect();
            match check(standing, &refs, None) {
                Ok(headroom) => {
                    prop_assert!(cost <= before);
                    prop_assert_eq!(headroom, Headroom { before, after: before - cost });
                    prop_assert!(headroom.after >= Decimal::ZERO);
                }
                Err(e) => {
                    prop_assert!(cost > before);
                    prop_assert_eq!(e.code, ErrorCode::InsufficientBuyingPower);
                }
            }
        }

        /// Sells never move buying power, and pass exactly when each instrument's sells add up
        /// to no more than what is held and not already sold.
        #[test]
        fn sells_pass_when_the_shares_are_free(
            held in prop::collection::vec(0u32..100, 3),
            already in prop::collection::vec(0u32..100, 3),
            sells in prop::collection::vec((0i64..3, 1u32..60), 1..6),
        ) {
            let mut standing = cash("100");
            for (id, (h, a)) in held.iter().zip(&already).enumerate() {
                standing = holding(standing, id as i64, &h.to_string(), "1");
                standing.selling.insert(id as i64, Decimal::from(*a));
            }
            let orders: Vec<PricedOrder> = sells
                .iter()
                .map(|(id, q)| normal(*id, Side::Sell, &q.to_string(), "1"))
                .collect();
            let fits = held.iter().zip(&already).enumerate().all(|(slot, (held, already))| {
                let wanted: u32 = sells.iter().filter(|(i, _)| usize::try_from(*i) == Ok(slot)).map(|(_, q)| q).sum();
                wanted <= held.saturating_sub(*already)
            });
            let refs: Vec<&PricedOrder> = orders.iter().collect();
            match check(standing, &refs, None) {
                Ok(headroom) => {
                    prop_assert!(fits);
                    prop_assert_eq!(headroom.before, headroom.after);
                }
                Err(e) => {
                    prop_assert!(!fits);
                    prop_assert_eq!(e.code, ErrorCode::InsufficientPosition);
                }
            }
        }
    }
}
