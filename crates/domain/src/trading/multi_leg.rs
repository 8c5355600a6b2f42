//! Multi-leg option orders (`option_strategy` VERTICAL to DIAGONAL, and COVERED_STOCK and
//! COLLAR_WITH_STOCK with a leg of shares): one order of two to four legs of one underlying,
//! which fills every leg at once at a net price.
//!
//! - **Units and price.** The order's quantity counts units of the whole; a leg trades its ratio
//!   of contracts a unit (a butterfly's 1, 2, 1), a leg of shares its shares (a covered stock's
//!   100 beside 1 call). The net of a unit is, per share of a contract, what its legs bought
//!   cost less what its legs sold bring ([`weight`]: 100 shares count as one contract):
//!   positive a debit, negative a credit. A BUY pays at most its limit, a SELL receives at least
//!   its limit.
//! - **Fills.** Each tick, in the core session, the legs bought take their ask and the legs
//!   sold their bid; the order fills as many units as every leg's size at the touch allows when
//!   the net of a unit is within the limit, all legs in one transaction ([`fill`]). The price
//!   recorded per leg is the average it filled at.
//! - **Money.** The account after the fill must hold back what its written contracts need
//!   ([`crate::options::secured`]): a fill that would leave it below zero buying power, or with
//!   calls no share or bought call covers, is refused, as a single order's is. While the order
//!   is open it claims, per unit, its debit at its limit and what its legs would hold back on
//!   their own ([`claim`]), which is never less than what they add to the account's.

use std::collections::HashMap;

use rust_decimal::Decimal;
use signet_model::AccountType;
use signet_model::orders::{OrderStatus, OrderType, Side};
use signet_model::wire::WireEnum;

use super::accounting::{Commission, Exposure, Holding, NotFilled, Refusal, apply_fill_scaled, power};
use super::matching::trades_in;
use super::order::{Event, Order, is_open, transition};
pub use super::order_parts::{LegsClaim, MultiLeg, OrderLeg};
use crate::options::secured::{Rule, secured};
use crate::options::strategy::Strategy;
use crate::options::{Contract, direction, hundred, is_contract, multiplier};
use crate::simulator::{Held, Quote};

/// What one unit of an order trades of a leg of `instrument_id` and `ratio`, in contracts: a
/// contract leg's ratio, a hundredth of a leg of shares (its shares are priced one by one, a
/// contract per share of a hundred). A unit's net per share is its legs' prices times this.
pub fn weight(instrument_id: i64, ratio: u64) -> Decimal {
    if is_contract(instrument_id) {
        Decimal::from(ratio)
    } else {
        Decimal::from(ratio) / hundred()
    }
}

impl MultiLeg {
    /// The net of one unit per share at `prices` (one per leg, in order): positive a debit.
    pub fn net(&self, prices: &[Decimal]) -> Decimal {
        self.legs
            .iter()
            .zip(prices)
            .map(|(leg, price)| direction(leg.side) * *price * weight(leg.instrument_id, leg.ratio))
            .sum()
    }

    /// The contracts one unit trades, all legs together.
    pub fn contracts_per_unit(&self) -> u64 {
        self.legs.iter().map(|l| l.ratio).sum()
    }

    /// The underlying's instrument id (of its contracts: a leg of shares is of it).
    pub fn underlying_id(&self) -> Option<i64> {
        self.legs
            .iter()
            .find_map(|l| Contract::of_id(l.instrument_id).map(|p| p.underlying_id))
    }

    /// The shares its legs of shares buy (`Side::Buy`) or sell in one unit.
    fn shares(&self, side: Side) -> Decimal {
        self.legs
            .iter()
            .filter(|l| !is_contract(l.instrument_id) && (l.side == Side::Buy) == (side == Side::Buy))
            .map(|l| Decimal::from(l.ratio))
            .sum()
    }

    /// The text the store keeps of it (JSON).
    pub fn encode(&self) -> String {
        let legs: Vec<serde_json::Value> = self
            .legs
            .iter()
            .map(|l| {
                serde_json::json!({
                    "instrument_id": l.instrument_id,
                    "symbol": l.symbol,
                    "side": l.side.as_str(),
                    "ratio": l.ratio,
                    "filled_price": l.filled_price.map(|p| p.to_string()),
                })
            })
            .collect();
        serde_json::json!({
            "strategy": self.strategy.as_str(),
            "claim": {"cash": self.claim.cash.to_string(), "shares": self.claim.shares.to_string()},
            "legs": legs,
        })
        .to_string()
    }

    /// Reads back [`MultiLeg::encode`]'s text.
    pub fn decode(text: &str) -> Option<MultiLeg> {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        let decimal = |v: &serde_json::Value| v.as_str()?.parse::<Decimal>().ok();
        let legs = value["legs"]
            .as_array()?
            .iter()
            .map(|l| {
                Some(OrderLeg {
                    instrument_id: l["instrument_id"].as_i64()?,
                    symbol: l["symbol"].as_str()?.to_owned(),
                    side: Side::parse(l["side"].as_str()?)?,
                    ratio: l["ratio"].as_u64()?,
                    filled_price: match &l["filled_price"] {
                        serde_json::Value::Null => None,
                        p => Some(decimal(p)?),
                    },
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(MultiLeg {
            strategy: Strategy::parse(value["strategy"].as_str()?)?,
            legs,
            claim: LegsClaim {
                cash: decimal(&value["claim"]["cash"])?,
                shares: decimal(&value["claim"]["shares"])?,
            },
        })
    }

    /// Each leg's signed contracts for `units` units (negative when sold).
    pub fn moves(&self, units: Decimal) -> impl Iterator<Item = (i64, Decimal)> + '_ {
        self.legs
            .iter()
            .map(move |l| (l.instrument_id, direction(l.side) * Decimal::from(l.ratio) * units))
    }
}

/// The debit of one unit per share a multi-leg order of `side` is priced at: a BUY's limit, a
/// SELL's limit as a credit, or `estimate` (the net at the quotes) at the market.
pub fn debit(side: Side, order_type: OrderType, limit: Option<Decimal>, estimate: Decimal) -> Decimal {
    match (order_type, limit) {
        (OrderType::Limit, Some(limit)) if side == Side::Buy => limit,
        (OrderType::Limit, Some(limit)) => -limit,
        _ => estimate,
    }
}

/// What one unit of `legs` claims while open in an account whose written contracts are secured
/// by `rule` (priced as at placement: the claim is kept as it is): its debit (`debit` per share, nothing for a credit) and what
/// the legs hold back as if they were the account's only positions, which is at least what they
/// add to the account's ([`crate::options::secured`] never holds back more for positions
/// together than for each part alone).
pub fn claim(multi: &MultiLeg, debit: Decimal, rule: Rule<'_>) -> LegsClaim {
    let held = secured(multi.moves(Decimal::ONE), rule);
    // The account's shares it needs: those its calls need beyond the shares it buys, and those
    // it sells.
    let under_calls = multi
        .underlying_id()
        .and_then(|u| held.selling.get(&u).copied())
        .unwrap_or_default();
    LegsClaim {
        cash: debit.max(Decimal::ZERO) * hundred() + held.cash,
        shares: (under_calls - multi.shares(Side::Buy)).max(Decimal::ZERO) + multi.shares(Side::Sell),
    }
}

/// What fills of a multi-leg order now: the units and each leg's price (buys at the ask, sells
/// at the bid of `quotes`, one per leg), as many units as every leg's size at the touch allows,
/// when the net of a unit is within the limit and every leg trades in the order's session.
pub fn fill(order: &Order, multi: &MultiLeg, quotes: &[&Quote]) -> Option<(Decimal, Vec<Decimal>)> {
    if quotes.len() != multi.legs.len() || !is_open(order.status) {
        return None;
    }
    let mut units = order.remaining().trunc();
    let mut prices = Vec::with_capacity(quotes.len());
    for (leg, quote) in multi.legs.iter().zip(quotes) {
        if !trades_in(order.session, quote.session) || quote.held == Some(Held::Halted) {
            return None;
        }
        let (price, size) = match leg.side {
            Side::Buy => (quote.ask, quote.ask_size),
            Side::Sell | Side::Short => (quote.bid, quote.bid_size),
        };
        if price <= Decimal::ZERO && leg.side == Side::Buy {
            return None;
        }
        units = units.min(Decimal::from(size / leg.ratio.max(1)));
        prices.push(price);
    }
    if units <= Decimal::ZERO {
        return None;
    }
    within_limit(order, multi.net(&prices)).then_some((units, prices))
}

/// Whether a unit's `net` (per share, positive a debit) is within `order`'s limit: a BUY pays
/// at most it, a SELL receives at least it; a market order takes any.
pub fn within_limit(order: &Order, net: Decimal) -> bool {
    match (order.order_type, order.limit_price) {
        (OrderType::Limit, Some(limit)) if order.side == Side::Buy => net <= limit,
        (OrderType::Limit, Some(limit)) => -net >= limit,
        (OrderType::Limit, None) => false,
        _ => true,
    }
}

/// A multi-leg fill's effect, for the store to save in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegsFill {
    pub event: Event,
    pub status: OrderStatus,
    pub filled_quantity: Decimal,
    /// Units × the net per share, over every fill.
    pub filled_amount: Decimal,
    pub commission: Decimal,
    pub cash: Decimal,
    /// Each leg's holding after the fill, in leg order.
    pub holdings: Vec<Holding>,
    /// The legs with the average price each filled at.
    pub legs: Vec<OrderLeg>,
}

/// Fills `units` of multi-leg `order` at `prices` (one per leg) against an account of
/// `account_type` with `cash` and `positions` (every holding, by instrument), its positions
/// valued at `mark` (the filled legs at their prices). Refused when the account afterwards
/// would be below zero buying power (counting only what its positions hold back, as single
/// fills count) and worse than before, or sell more shares than it holds.
#[expect(clippy::too_many_arguments, reason = "the fill, the account and the prices")]
pub fn fill_legs(
    order: &Order,
    multi: &MultiLeg,
    account_type: AccountType,
    cash: Decimal,
    positions: &HashMap<i64, Holding>,
    mark: impl Fn(i64) -> Decimal,
    units: Decimal,
    prices: &[Decimal],
    commission: Commission,
) -> Result<LegsFill, NotFilled> {
    if !is_open(order.status) || order.remaining() < units || units <= Decimal::ZERO || prices.len() != multi.legs.len()
    {
        return Err(NotFilled::Stale);
    }
    let contracts = units * Decimal::from(multi.contracts_per_unit());
    let commission = commission.of(contracts, order.filled_quantity.is_zero());
    // Sales first, so that what they bring pays for what is bought.
    let mut order_of_legs: Vec<usize> = (0..multi.legs.len()).collect();
    order_of_legs.sort_by_key(|&i| multi.legs[i].side == Side::Buy);
    let mut after = positions.clone();
    let mut cash_after = cash;
    for i in order_of_legs {
        let leg = &multi.legs[i];
        let holding = after.get(&leg.instrument_id).copied().unwrap_or_default();
        let effect = apply_fill_scaled(
            account_type,
            leg.side,
            holding,
            cash_after,
            units * Decimal::from(leg.ratio),
            prices[i],
            Decimal::ZERO,
            multiplier(leg.instrument_id),
        )
        .map_err(NotFilled::Refused)?;
        cash_after = effect.cash;
        after.insert(leg.instrument_id, effect.holding);
    }
    cash_after -= commission;
    let pair = account_type == AccountType::Margin;
    let leg_price: HashMap<i64, Decimal> = multi
        .legs
        .iter()
        .map(|l| l.instrument_id)
        .zip(prices.iter().copied())
        .collect();
    let price_of = |id: i64| leg_price.get(&id).copied().unwrap_or_else(|| mark(id));
    let standing = |holdings: &HashMap<i64, Holding>, cash: Decimal| {
        let exposure = holdings
            .iter()
            .map(|(&id, h)| Exposure::of(id, h.quantity, price_of(id)))
            .fold(Exposure::default(), Exposure::plus);
        let held = secured(
            holdings.iter().map(|(&id, h)| (id, h.quantity)),
            Rule::of(account_type, &price_of),
        );
        (power(account_type, cash, exposure, held.cash), held)
    };
    let (power_before, _) = standing(positions, cash);
    let (power_after, held_after) = standing(&after, cash_after);
    if power_after < Decimal::ZERO && power_after < power_before {
        return Err(NotFilled::Refused(if pair { Refusal::Margin } else { Refusal::Cash }));
    }
    if let Some(underlying) = multi.underlying_id() {
        let shares = after.get(&underlying).map_or(Decimal::ZERO, |h| h.quantity);
        if held_after
            .selling
            .get(&underlying)
            .is_some_and(|needed| *needed > shares)
        {
            return Err(NotFilled::Refused(Refusal::Shares));
        }
    }
    let filled_quantity = order.filled_quantity + units;
    let event = if filled_quantity == order.quantity {
        Event::Fill
    } else {
        Event::PartialFill
    };
    let legs = multi
        .legs
        .iter()
        .zip(prices)
        .map(|(leg, price)| OrderLeg {
            filled_price: Some(match leg.filled_price {
                Some(before) if !order.filled_quantity.is_zero() => ((before * order.filled_quantity + *price * units)
                    / filled_quantity)
                    .round_dp(6)
                    .normalize(),
                _ => *price,
            }),
            ..leg.clone()
        })
        .collect();
    Ok(LegsFill {
        event,
        status: transition(order.status, event).expect("an open order can fill"),
        filled_quantity,
        filled_amount: order.filled_amount + units * multi.net(prices),
        commission,
        cash: cash_after,
        holdings: multi
            .legs
            .iter()
            .map(|l| after.get(&l.instrument_id).copied().unwrap_or_default())
            .collect(),
        legs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Right;
    use crate::simulator::clock::Session;
    use crate::trading::order::Order;

    const AAPL: i64 = 7;
    const MARCH: i32 = 15_779;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn id(right: Right, strike: i64) -> i64 {
        Contract {
            underlying: "AAPL".into(),
            expiry: MARCH,
            right,
            strike: Decimal::from(strike),
        }
        .instrument_id(AAPL)
        .unwrap()
    }

    fn leg(side: Side, ratio: u64, right: Right, strike: i64) -> OrderLeg {
        OrderLeg {
            instrument_id: id(right, strike),
            symbol: format!("AAPL{strike}"),
            side,
            ratio,
            filled_price: None,
        }
    }

    fn vertical() -> MultiLeg {
        MultiLeg {
            strategy: Strategy::Vertical,
            legs: vec![
                leg(Side::Buy, 1, Right::Call, 450),
                leg(Side::Sell, 1, Right::Call, 460),
            ],
            claim: LegsClaim::default(),
        }
    }

    fn order(side: Side, limit: &str, quantity: u64) -> Order {
        Order {
            instrument_id: AAPL,
            quantity: Decimal::from(quantity),
            limit_price: Some(d(limit)),
            multi_leg: Some(vertical()),
            ..Order::sample("V", side, OrderType::Limit)
        }
    }

    fn quote(bid: &str, ask: &str, size: u64) -> Quote {
        Quote {
            instrument_id: 0,
            symbol: String::new(),
            time_ms: 0,
            session: Session::Core,
            last: d(bid),
            bid: d(bid),
            ask: d(ask),
            bid_size: size,
            ask_size: size,
            open: Decimal::ZERO,
            pre_close: Decimal::ZERO,
            volume: 0,
            pinned: false,
            held: None,
        }
    }

    #[test]
    fn what_the_store_keeps_reads_back() {
        let mut v = vertical();
        v.legs[1].filled_price = Some(d("5.9"));
        v.claim = LegsClaim {
            cash: d("420.5"),
            shares: d("100"),
        };
        assert_eq!(MultiLeg::decode(&v.encode()), Some(v));
        assert_eq!(MultiLeg::decode("{}"), None);
    }

    #[test]
    fn a_debit_spread_fills_when_its_net_is_within_the_limit_and_as_far_as_the_sizes_allow() {
        let (long, short) = (quote("9.90", "10.10", 5), quote("5.90", "6.00", 3));
        // 10.10 - 5.90 = 4.20 a share.
        assert_eq!(fill(&order(Side::Buy, "4.19", 10), &vertical(), &[&long, &short]), None);
        let (units, prices) = fill(&order(Side::Buy, "4.20", 10), &vertical(), &[&long, &short]).unwrap();
        assert_eq!((units, prices), (Decimal::from(3), vec![d("10.10"), d("5.90")]));
        let closed = Quote {
            session: Session::AfterHours,
            ..long.clone()
        };
        assert_eq!(fill(&order(Side::Buy, "5", 1), &vertical(), &[&closed, &short]), None);
    }

    #[test]
    fn a_credit_spread_sold_fills_when_it_brings_at_least_its_limit() {
        let credit = MultiLeg {
            legs: vec![
                leg(Side::Sell, 1, Right::Call, 450),
                leg(Side::Buy, 1, Right::Call, 460),
            ],
            ..vertical()
        };
        let (short, long) = (quote("9.90", "10.10", 5), quote("5.90", "6.00", 5));
        // Sells at 9.90, buys at 6.00: 3.90 of credit.
        let mut o = order(Side::Sell, "3.90", 1);
        o.multi_leg = Some(credit.clone());
        assert!(fill(&o, &credit, &[&short, &long]).is_some());
        o.limit_price = Some(d("3.91"));
        assert_eq!(fill(&o, &credit, &[&short, &long]), None);
    }

    #[test]
    fn a_unit_claims_its_debit_and_what_its_written_legs_hold_back_alone() {
        let v = vertical();
        assert_eq!(
            claim(&v, d("4.20"), Rule::Paired(&|_| Decimal::ZERO)),
            LegsClaim {
                cash: d("420"),
                shares: Decimal::ZERO
            }
        );
        // In a CASH account the call written needs its shares.
        assert_eq!(
            claim(&v, d("4.20"), Rule::Alone),
            LegsClaim {
                cash: d("420"),
                shares: d("100")
            }
        );
        let credit = MultiLeg {
            legs: vec![leg(Side::Sell, 1, Right::Put, 450), leg(Side::Buy, 1, Right::Put, 440)],
            ..vertical()
        };
        assert_eq!(
            claim(&credit, d("-3"), Rule::Paired(&|_| Decimal::ZERO)).cash,
            d("1000"),
            "the width, the credit aside"
        );
        assert_eq!(debit(Side::Sell, OrderType::Limit, Some(d("3")), d("-2")), d("-3"));
        assert_eq!(debit(Side::Buy, OrderType::Market, None, d("2.5")), d("2.5"));
    }

    #[test]
    fn every_leg_fills_at_once_and_the_account_must_carry_the_result() {
        let o = order(Side::Buy, "5", 2);
        let v = vertical();
        let none = HashMap::new();
        let marks = |_: i64| Decimal::ZERO;
        let commission = Commission {
            per_share: d("0.65"),
            per_order: Decimal::ZERO,
        };
        let filled = fill_legs(
            &o,
            &v,
            AccountType::Margin,
            d("10000"),
            &none,
            marks,
            Decimal::TWO,
            &[d("10.10"), d("5.90")],
            commission,
        )
        .unwrap();
        // 2 × (1,010 - 590) = 840, and 4 contracts of commission.
        assert_eq!(filled.cash, d("10000") - d("840") - d("2.60"));
        assert_eq!(filled.holdings[0].quantity, Decimal::TWO);
        assert_eq!(filled.holdings[1].quantity, -Decimal::TWO);
        assert_eq!((filled.status, filled.filled_amount), (OrderStatus::Filled, d("8.40")));
        assert_eq!(filled.legs[1].filled_price, Some(d("5.90")));
        // The same spread in a CASH account: the call written needs 200 shares it does not have.
        assert_eq!(
            fill_legs(
                &o,
                &v,
                AccountType::Cash,
                d("10000"),
                &none,
                marks,
                Decimal::TWO,
                &[d("10.10"), d("5.90")],
                commission
            ),
            Err(NotFilled::Refused(Refusal::Shares))
        );
        // A credit put spread: a CASH account secures its put alone (45,000); a MARGIN account
        // holds back the width in full, less the 200 of credit the fill brings: 801.30 of cash
        // (the commission too) is its maximum loss.
        let puts = MultiLeg {
            legs: vec![leg(Side::Sell, 1, Right::Put, 450), leg(Side::Buy, 1, Right::Put, 440)],
            ..vertical()
        };
        let mut credit = order(Side::Sell, "1", 1);
        credit.multi_leg = Some(puts.clone());
        assert_eq!(
            fill_legs(
                &credit,
                &puts,
                AccountType::Cash,
                d("500"),
                &none,
                marks,
                Decimal::ONE,
                &[d("3"), d("1")],
                commission
            ),
            Err(NotFilled::Refused(Refusal::Cash))
        );
        assert_eq!(
            fill_legs(
                &credit,
                &puts,
                AccountType::Margin,
                d("500"),
                &none,
                marks,
                Decimal::ONE,
                &[d("3"), d("1")],
                commission
            ),
            Err(NotFilled::Refused(Refusal::Margin))
        );
        let margin = |cash: &str| {
            fill_legs(
                &credit,
                &puts,
                AccountType::Margin,
                d(cash),
                &none,
                marks,
                Decimal::ONE,
                &[d("3"), d("1")],
                commission,
            )
        };
        assert!(margin("801.29").is_err());
        assert!(margin("801.30").is_ok());
    }

    /// A covered stock of one unit: 100 AAPL shares `side`, one call at 450 the other way.
    fn covered(side: Side) -> MultiLeg {
        let other = if side == Side::Buy { Side::Sell } else { Side::Buy };
        MultiLeg {
            strategy: Strategy::CoveredStock,
            legs: vec![
                OrderLeg {
                    instrument_id: AAPL,
                    symbol: "AAPL".into(),
                    side,
                    ratio: 100,
                    filled_price: None,
                },
                leg(other, 1, Right::Call, 450),
            ],
            claim: LegsClaim::default(),
        }
    }

    #[test]
    fn a_covered_stock_is_priced_per_share_and_claims_the_shares_it_sells() {
        let buy_write = covered(Side::Buy);
        assert_eq!(buy_write.underlying_id(), Some(AAPL));
        // 100 shares at 445 less a call at 5: 440 a share.
        assert_eq!(buy_write.net(&[d("445"), d("5")]), d("440"));
        // Its shares cover its call, in either kind of account.
        for rule in [Rule::Alone, Rule::Paired(&|_| Decimal::ZERO)] {
            assert_eq!(
                claim(&buy_write, d("440"), rule),
                LegsClaim {
                    cash: d("44000"),
                    shares: Decimal::ZERO
                }
            );
        }
        // Unwound, it sells the account's shares and buys the call back.
        assert_eq!(
            claim(&covered(Side::Sell), d("-440"), Rule::Alone),
            LegsClaim {
                cash: Decimal::ZERO,
                shares: d("100")
            }
        );
    }

    #[test]
    fn a_buy_write_fills_its_shares_and_its_call_and_needs_the_cash_for_them() {
        let multi = covered(Side::Buy);
        let o = Order {
            multi_leg: Some(multi.clone()),
            ..order(Side::Buy, "441", 1)
        };
        let fill_with = |cash: &str| {
            fill_legs(
                &o,
                &multi,
                AccountType::Cash,
                d(cash),
                &HashMap::new(),
                |_| Decimal::ZERO,
                Decimal::ONE,
                &[d("445"), d("5")],
                Commission::default(),
            )
        };
        let filled = fill_with("50000").unwrap();
        assert_eq!(filled.cash, d("50000") - d("44500") + d("500"));
        assert_eq!(
            (filled.holdings[0].quantity, filled.holdings[1].quantity),
            (d("100"), d("-1"))
        );
        assert_eq!(filled.filled_amount, d("440"));
        assert_eq!(fill_with("43000").unwrap_err(), NotFilled::Refused(Refusal::Cash));
    }
}
