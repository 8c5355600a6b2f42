//! How a scenario rule shapes an order's fills ([`crate::scenarios`]): in slices over time,
//! only a share of it, never, or at a worse price. The plan is decided once, when the order is
//! placed, and stored with it, so that every node's engine fills it the same way and a restart
//! changes nothing; the engine matches the order as usual and the plan cuts, delays and prices
//! what matching found ([`FillPlan::shape`]).

use rust_decimal::Decimal;
use signet_model::orders::Side;

use super::multi_leg;
use super::order::Order;
use super::order_parts::MultiLeg;
pub use super::order_parts::{AfterPartial, FillPlan, Shape};

/// What a plan lets an order fill in one tick, and whether the rest is then cancelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shaped {
    /// (quantity, price), as matching gives them.
    pub fills: Vec<(Decimal, Decimal)>,
    /// The rest is to be cancelled once these fills are applied.
    pub cancel_rest: bool,
}

impl FillPlan {
    /// What `order` fills at simulated time `now_ms` of what matching found (`found`, in
    /// order): cut to the slice or share the plan allows now, priced with the slippage.
    pub fn shape(&self, order: &Order, found: Vec<(Decimal, Decimal)>, now_ms: i64) -> Shaped {
        let would_trade = !found.is_empty();
        let (allowed, cancel_after) = match self.shape {
            Shape::Market => (order.remaining(), None),
            Shape::Never => (Decimal::ZERO, None),
            Shape::Slices { slices, every_ms } => (self.slice_due(order, slices, every_ms, now_ms), None),
            Shape::Partial { ratio, then } => {
                let target = share(order.quantity, ratio);
                (
                    (target - order.filled_quantity).max(Decimal::ZERO),
                    (then == AfterPartial::Cancel).then_some(target),
                )
            }
        };
        let mut fills = cut(found, allowed);
        for (_, price) in &mut fills {
            *price = self.slipped(order, *price);
        }
        let filled_after = order.filled_quantity + fills.iter().map(|(q, _)| *q).sum::<Decimal>();
        // Cancelled once the order would trade and its share is filled: a resting order that
        // has not met the market yet waits for it.
        let cancel_rest = would_trade && cancel_after.is_some_and(|target| filled_after >= target);
        Shaped { fills, cancel_rest }
    }

    /// What multi-leg `order` (its legs `multi`) fills at simulated time `now_ms` of the `units`
    /// matching found at `prices` (one per leg): the units the plan allows now, each leg's price
    /// moved by the slippage against it (a leg bought pays more, a leg sold gets less) unless
    /// that takes the net beyond the order's limit, and whether the rest is then cancelled.
    pub fn shape_legs(
        &self,
        order: &Order,
        multi: &MultiLeg,
        units: Decimal,
        prices: Vec<Decimal>,
        now_ms: i64,
    ) -> (Decimal, Vec<Decimal>, bool) {
        let shaped = self.shape(order, vec![(units, multi.net(&prices))], now_ms);
        let units = shaped.fills.first().map_or(Decimal::ZERO, |(units, _)| *units);
        let slipped: Vec<Decimal> = multi
            .legs
            .iter()
            .zip(&prices)
            .map(|(leg, &price)| self.slipped_as(leg.side, None, price))
            .collect();
        let prices = if multi_leg::within_limit(order, multi.net(&slipped)) {
            slipped
        } else {
            prices
        };
        (units, prices, shaped.cancel_rest)
    }

    /// What the slice under way has left to fill now: nothing until `every_ms` has passed since
    /// the last fill when a new slice begins; the rest of the slice when the book ran short of it.
    fn slice_due(&self, order: &Order, slices: u32, every_ms: i64, now_ms: i64) -> Decimal {
        let slices = Decimal::from(slices.max(1));
        let whole = order.quantity.fract().is_zero();
        let size = if whole {
            (order.quantity / slices).floor()
        } else {
            (order.quantity / slices).round_dp_with_strategy(4, rust_decimal::RoundingStrategy::ToZero)
        };
        if size.is_zero() {
            return order.remaining();
        }
        let done = (order.filled_quantity / size).floor().min(slices - Decimal::ONE);
        let last = done == slices - Decimal::ONE;
        let begun = order.filled_quantity - done * size;
        let left_of_slice = if last { order.remaining() } else { size - begun };
        let waiting = begun.is_zero() && order.filled_at_sim.is_some_and(|at| now_ms < at.0 + every_ms);
        if waiting { Decimal::ZERO } else { left_of_slice }
    }

    /// `price` moved by the slippage against the order, to the cent (a hundredth of a cent
    /// below a dollar), and kept within its limit.
    fn slipped(&self, order: &Order, price: Decimal) -> Decimal {
        self.slipped_as(order.side, order.limit_price, price)
    }

    /// [`Self::slipped`] of a fill of `side` within `limit`.
    fn slipped_as(&self, side: Side, limit: Option<Decimal>, price: Decimal) -> Decimal {
        if self.slippage_bps.is_zero() {
            return price;
        }
        let factor = self.slippage_bps / Decimal::from(10_000);
        let places = if price < Decimal::ONE { 4 } else { 2 };
        let moved = match side {
            Side::Buy => (price * (Decimal::ONE + factor))
                .round_dp_with_strategy(places, rust_decimal::RoundingStrategy::AwayFromZero),
            Side::Sell | Side::Short => {
                (price * (Decimal::ONE - factor)).round_dp_with_strategy(places, rust_decimal::RoundingStrategy::ToZero)
            }
        };
        match (limit, side) {
            (Some(limit), Side::Buy) => moved.min(limit.max(price)),
            (Some(limit), _) => moved.max(limit.min(price)),
            (None, _) => moved,
        }
        .normalize()
    }

    /// The plan as the store keeps it.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("a fill plan serializes")
    }

    pub fn decode(text: &str) -> Option<FillPlan> {
        serde_json::from_str(text).ok()
    }

    /// Why the rest of an order was cancelled.
    pub fn cancel_reason(&self) -> String {
        format!("scenario rule {:?}: the rest of the order is cancelled", self.rule)
    }
}

/// The plan in a few words, as the rules' list shows it.
impl std::fmt::Display for FillPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.shape {
            Shape::Market => write!(f, "fill as usual")?,
            Shape::Slices { slices, every_ms } => write!(
                f,
                "fill in {slices} slices, {} s apart",
                Decimal::new(every_ms, 3).normalize()
            )?,
            Shape::Partial { ratio, then } => {
                let then = match then {
                    AfterPartial::Cancel => "cancel",
                    AfterPartial::Rest => "rest",
                };
                write!(f, "fill {} % then {then}", (ratio * Decimal::ONE_HUNDRED).normalize())?;
            }
            Shape::Never => write!(f, "never fill")?,
        }
        if !self.slippage_bps.is_zero() {
            write!(f, ", slippage {} bps", self.slippage_bps.normalize())?;
        }
        Ok(())
    }
}

/// `ratio` of `quantity`: whole shares of a whole quantity, rounded down.
fn share(quantity: Decimal, ratio: Decimal) -> Decimal {
    let share = quantity * ratio;
    if quantity.fract().is_zero() {
        share.floor()
    } else {
        share.round_dp_with_strategy(4, rust_decimal::RoundingStrategy::ToZero)
    }
}

/// The first fills of `found` up to `allowed` in all, the last one cut.
fn cut(found: Vec<(Decimal, Decimal)>, allowed: Decimal) -> Vec<(Decimal, Decimal)> {
    let mut left = allowed;
    let mut fills = Vec::new();
    for (quantity, price) in found {
        if left <= Decimal::ZERO {
            break;
        }
        let quantity = quantity.min(left);
        fills.push((quantity, price));
        left -= quantity;
    }
    fills
}

#[cfg(test)]
mod tests {
    use signet_model::orders::OrderType;

    use super::*;
    use crate::times::SimTime;

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    fn plan(shape: Shape) -> FillPlan {
        FillPlan {
            rule: "r".into(),
            shape,
            slippage_bps: Decimal::ZERO,
        }
    }

    /// A market buy of `quantity` with `filled` done, the last fill at simulated `last_fill`.
    fn order(quantity: &str, filled: &str, last_fill: Option<i64>) -> Order {
        Order {
            quantity: d(quantity),
            filled_quantity: d(filled),
            filled_at_sim: last_fill.map(SimTime),
            ..Order::sample("o", Side::Buy, OrderType::Market)
        }
    }

    fn book(levels: &[(&str, &str)]) -> Vec<(Decimal, Decimal)> {
        levels.iter().map(|&(q, p)| (d(q), d(p))).collect()
    }

    #[test]
    fn slices_fill_one_every_interval_and_the_last_takes_the_rest() {
        let slices = plan(Shape::Slices {
            slices: 3,
            every_ms: 1000,
        });
        let found = || book(&[("6", "10.00"), ("100", "10.01")]);
        // The first slice at once, walking the book as usual: 3 of 10.
        let first = slices.shape(&order("10", "0", None), found(), 0);
        assert_eq!(first.fills, book(&[("3", "10.00")]));
        // The next waits a second after the last fill.
        assert!(slices.shape(&order("10", "3", Some(0)), found(), 999).fills.is_empty());
        assert_eq!(
            slices.shape(&order("10", "3", Some(0)), found(), 1000).fills,
            book(&[("3", "10.00")])
        );
        // The last is what rounding left.
        assert_eq!(
            slices.shape(&order("10", "6", Some(1000)), found(), 2000).fills,
            book(&[("4", "10.00")])
        );
        // A slice the book ran short of goes on at the next tick without waiting.
        assert_eq!(
            slices.shape(&order("10", "4", Some(1000)), found(), 1001).fills,
            book(&[("2", "10.00")])
        );
        // Fewer shares than slices: filled as matching finds them.
        assert_eq!(
            slices.shape(&order("2", "0", None), found(), 0).fills,
            book(&[("2", "10.00")])
        );
        assert!(!first.cancel_rest);
    }

    #[test]
    fn a_partial_fills_its_share_then_cancels_or_rests() {
        let cancel = plan(Shape::Partial {
            ratio: d("0.5"),
            then: AfterPartial::Cancel,
        });
        let found = || book(&[("4", "10.00"), ("100", "10.01")]);
        let shaped = cancel.shape(&order("11", "0", None), found(), 0);
        assert_eq!(shaped.fills, book(&[("4", "10.00"), ("1", "10.01")]), "5 of 11");
        assert!(shaped.cancel_rest);
        // Not marketable yet: nothing filled, nothing cancelled.
        assert_eq!(
            cancel.shape(&order("11", "0", None), Vec::new(), 0),
            Shaped {
                fills: Vec::new(),
                cancel_rest: false
            }
        );
        // Part of the share filled: the rest of it first.
        let shaped = cancel.shape(&order("11", "2", Some(0)), found(), 1);
        assert_eq!(shaped.fills, book(&[("3", "10.00")]));
        assert!(shaped.cancel_rest);

        let rest = plan(Shape::Partial {
            ratio: d("0.5"),
            then: AfterPartial::Rest,
        });
        let shaped = rest.shape(&order("11", "5", Some(0)), found(), 1);
        assert_eq!(
            shaped,
            Shaped {
                fills: Vec::new(),
                cancel_rest: false
            }
        );
    }

    #[test]
    fn never_fills_and_slippage_moves_against_the_order_within_its_limit() {
        let found = || book(&[("4", "10.00"), ("4", "0.5")]);
        assert!(
            plan(Shape::Never)
                .shape(&order("8", "0", None), found(), 0)
                .fills
                .is_empty()
        );
        let slipping = FillPlan {
            slippage_bps: d("25"),
            ..plan(Shape::Market)
        };
        assert_eq!(
            slipping.shape(&order("8", "0", None), found(), 0).fills,
            book(&[("4", "10.03"), ("4", "0.5013")]),
            "a buy pays 0.25 % more, rounded up to the tick"
        );
        let sell = Order {
            side: Side::Sell,
            ..order("4", "0", None)
        };
        assert_eq!(slipping.shape(&sell, found(), 0).fills, book(&[("4", "9.97")]));
        let limit_buy = Order {
            order_type: OrderType::Limit,
            limit_price: Some(d("10.01")),
            ..order("4", "0", None)
        };
        assert_eq!(
            slipping.shape(&limit_buy, found(), 0).fills,
            book(&[("4", "10.01")]),
            "never beyond the limit"
        );
    }

    #[test]
    fn a_plan_is_kept_as_text_and_read_back() {
        for shape in [
            Shape::Market,
            Shape::Never,
            Shape::Slices {
                slices: 3,
                every_ms: 1000,
            },
            Shape::Partial {
                ratio: d("0.5"),
                then: AfterPartial::Cancel,
            },
        ] {
            let plan = FillPlan {
                slippage_bps: d("5"),
                ..plan(shape)
            };
            assert_eq!(FillPlan::decode(&plan.encode()), Some(plan));
        }
        let half = FillPlan {
            slippage_bps: d("2.5"),
            ..plan(Shape::Partial {
                ratio: d("0.50"),
                then: AfterPartial::Rest,
            })
        };
        assert_eq!(half.to_string(), "fill 50 % then rest, slippage 2.5 bps");
        let sliced = plan(Shape::Slices {
            slices: 3,
            every_ms: 1500,
        });
        assert_eq!(sliced.to_string(), "fill in 3 slices, 1.5 s apart");
        assert_eq!(FillPlan::decode("{"), None);
    }

    #[test]
    fn a_multi_leg_order_is_cut_by_units_and_slipped_leg_by_leg_within_its_limit() {
        use crate::trading::multi_leg::{LegsClaim, OrderLeg};
        let call = crate::options::Contract {
            underlying: "AAPL".into(),
            expiry: 15_779,
            right: crate::options::Right::Call,
            strike: d("450"),
        };
        let leg = |side| OrderLeg {
            instrument_id: call.instrument_id(7).unwrap(),
            symbol: call.occ_symbol(),
            side,
            ratio: 1,
            filled_price: None,
        };
        let multi = MultiLeg {
            strategy: crate::options::strategy::Strategy::Vertical,
            legs: vec![leg(Side::Buy), leg(Side::Sell)],
            claim: LegsClaim::default(),
        };
        let half = plan(Shape::Partial {
            ratio: d("0.5"),
            then: AfterPartial::Cancel,
        });
        let (units, prices, cancel) = half.shape_legs(&order("4", "0", None), &multi, d("3"), vec![d("10"), d("6")], 0);
        assert_eq!((units, prices, cancel), (d("2"), vec![d("10"), d("6")], true));
        // 1 %: 10.10 and 5.94, a net of 4.16; a limit of 4.10 keeps the prices matching found.
        let slip = FillPlan {
            slippage_bps: d("100"),
            ..plan(Shape::Market)
        };
        let (_, prices, _) = slip.shape_legs(&order("1", "0", None), &multi, d("1"), vec![d("10"), d("6")], 0);
        assert_eq!(prices, vec![d("10.10"), d("5.94")]);
        let limited = Order {
            order_type: OrderType::Limit,
            limit_price: Some(d("4.10")),
            ..order("1", "0", None)
        };
        let (_, prices, _) = slip.shape_legs(&limited, &multi, d("1"), vec![d("10"), d("6")], 0);
        assert_eq!(prices, vec![d("10"), d("6")]);
    }
}
