//! Property tests of the engine's rules over random sequences of orders and price moves: the
//! matching (stops, limits, slices), the accounting and the combinations, run the way a tick and
//! the store run them; and after every tick, what the balance call shows of the account.

use std::collections::HashMap;

use proptest::prelude::*;
use rust_decimal::Decimal;
use signet_model::orders::{ComboType, OrderStatus, OrderType, Side, TrailingType};
use signet_model::{AccountType, ErrorCode};

use super::accounting::{Commission, Holding, apply_fill};
use super::buying_power::{self, Position, Standing};
use super::combo::{Combo, ComboKind, Consequence, Part, consequence, part};
use super::matching::{fill, watch};
use super::order::{Event, Order, Trailing, has_stop, is_open, transition};
use super::valuation;
use crate::simulator::Quote;
use crate::times::SimTime;

#[derive(Debug, Clone)]
enum Step {
    Place {
        side: Side,
        order_type: OrderType,
        quantity: u32,
        /// Cents.
        price: u32,
        /// Cents.
        step: u32,
    },
    /// An OTOCO bracket: a limit buy, then a limit sell above and a stop below (cents).
    Bracket {
        quantity: u32,
        entry: u32,
        profit: u32,
        loss: u32,
    },
    /// A new last price (cents) and displayed size.
    Move { last: u32, size: u64 },
}

fn step() -> impl Strategy<Value = Step> {
    let order_type = prop_oneof![
        Just(OrderType::Market),
        Just(OrderType::Limit),
        Just(OrderType::StopLoss),
        Just(OrderType::StopLossLimit),
        Just(OrderType::TrailingStopLoss),
    ];
    let side = prop_oneof![Just(Side::Buy), Just(Side::Sell), Just(Side::Short)];
    prop_oneof![
        (side, order_type, 1u32..300, 8_000u32..12_000, 1u32..1_500).prop_map(
            |(side, order_type, quantity, price, step)| Step::Place {
                side,
                order_type,
                quantity,
                price,
                step
            }
        ),
        (1u32..300, 8_000u32..12_000, 0u32..1_500, 0u32..1_500).prop_map(|(quantity, entry, up, down)| {
            Step::Bracket {
                quantity,
                entry,
                profit: entry + up + 1,
                loss: entry - down - 1,
            }
        }),
        (8_000u32..12_000, 1u64..400).prop_map(|(last, size)| Step::Move { last, size }),
    ]
}

fn cents(c: u32) -> Decimal {
    Decimal::new(i64::from(c), 2)
}

fn new_order(n: usize, side: Side, order_type: OrderType, quantity: u32, price: Decimal, step: Decimal) -> Order {
    let trailing = (order_type == OrderType::TrailingStopLoss).then_some(Trailing {
        kind: TrailingType::Amount,
        step,
    });
    Order {
        seq: n as i64,
        quantity: Decimal::from(quantity),
        limit_price: matches!(order_type, OrderType::Limit | OrderType::StopLossLimit).then_some(price),
        stop_price: match order_type {
            OrderType::StopLoss | OrderType::StopLossLimit => Some(price),
            OrderType::TrailingStopLoss => Some(trailing.expect("trailing").stop_for(side, price)),
            _ => None,
        },
        trailing,
        ..Order::sample(&n.to_string(), side, order_type)
    }
}

/// A master limit buy at `entry`, then a limit sell at `profit` and a stop at `loss`, both
/// waiting for it.
fn bracket(n: usize, quantity: u32, entry: Decimal, profit: Decimal, loss: Decimal) -> [Order; 3] {
    let master = format!("{n}.0");
    let combo = Some(Combo {
        combo_order_id: master.clone().into(),
        kind: ComboKind::Otoco,
    });
    let mut orders = [
        new_order(n, Side::Buy, OrderType::Limit, quantity, entry, Decimal::ZERO),
        new_order(n, Side::Sell, OrderType::Limit, quantity, profit, Decimal::ZERO),
        new_order(n, Side::Sell, OrderType::StopLoss, quantity, loss, Decimal::ZERO),
    ];
    let parts = [ComboType::Master, ComboType::StopProfit, ComboType::StopLoss];
    for (i, (order, combo_type)) in orders.iter_mut().zip(parts).enumerate() {
        order.order_id = format!("{n}.{i}").into();
        order.combo_type = combo_type;
        order.combo = combo.clone();
        order.waits_for = (i > 0).then(|| master.clone().into());
    }
    orders
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fills_respect_quantities_cash_and_stops(
        account_type in prop_oneof![Just(AccountType::Cash), Just(AccountType::Margin)],
        steps in proptest::collection::vec(step(), 1..80),
    ) {
        fills_respect_quantities_cash_and_stops_in(account_type, steps)?;
    }
}

/// The failure proptest once shrank to (its seed is kept in
/// `proptest-regressions/trading/properties.txt`), as a case of its own, in a CASH account: two
/// OTOCO brackets whose masters both buy at one move down (81.52); in that tick the first
/// bracket's legs are released and its stop (92.90), reached already, sells at once and cancels
/// its take-profit; at the move up (92.93) the second bracket's take-profit sells and cancels its
/// stop.
#[test]
fn two_brackets_filled_at_one_price_then_exited() {
    let steps = vec![
        Step::Bracket {
            quantity: 1,
            entry: 9291,
            profit: 9292,
            loss: 9290,
        },
        Step::Bracket {
            quantity: 1,
            entry: 8153,
            profit: 8154,
            loss: 8151,
        },
        Step::Move { last: 8152, size: 1 },
        Step::Move { last: 9293, size: 1 },
    ];
    fills_respect_quantities_cash_and_stops_in(AccountType::Cash, steps).unwrap();
}

/// After every tick of `steps`, as the engine runs them in an account of `account_type`: each
/// fill respects the order's stop, limit and master; cash, shares and the balance call's figures
/// move by the fills exactly; a CASH account never goes below zero; and the buying power shown is
/// the one placement enforces. At the end, one leg of an OCO pair at most has traded.
fn fills_respect_quantities_cash_and_stops_in(
    account_type: AccountType,
    steps: Vec<Step>,
) -> Result<(), TestCaseError> {
    let start_cash = Decimal::from(50_000);
    let (mut cash, mut holding) = (start_cash, Holding::default());
    let (mut bought, mut sold) = (Decimal::ZERO, Decimal::ZERO);
    let (mut spent, mut received, mut commissions) = (Decimal::ZERO, Decimal::ZERO, Decimal::ZERO);
    let commission = Commission {
        per_share: Decimal::new(5, 3),
        per_order: Decimal::ONE,
    };
    let mut orders: Vec<Order> = Vec::new();
    let mut last = Decimal::from(100);
    for (n, step) in steps.into_iter().enumerate() {
        let size = match step {
            Step::Place {
                side,
                order_type,
                quantity,
                price,
                step,
            } => {
                orders.push(new_order(n, side, order_type, quantity, cents(price), cents(step)));
                100
            }
            Step::Bracket {
                quantity,
                entry,
                profit,
                loss,
            } => {
                orders.extend(bracket(n, quantity, cents(entry), cents(profit), cents(loss)));
                100
            }
            Step::Move { last: l, size } => {
                last = cents(l);
                size
            }
        };
        // One tick, as the engine runs it.
        let q = Quote::sample(last, size);
        for i in 0..orders.len() {
            let master_filled = orders[i].waits_for.as_ref().is_none_or(|m| {
                orders
                    .iter()
                    .any(|o| &o.order_id == m && o.status == OrderStatus::Filled)
            });
            let order = &mut orders[i];
            if !is_open(order.status) {
                continue;
            }
            if let Some(moved) = watch(order, &q) {
                let before = order.stop_price.expect("a stop order has a stop");
                match order.side {
                    Side::Buy => prop_assert!(moved.stop_price <= before, "a buy stop only comes down"),
                    _ => prop_assert!(moved.stop_price >= before, "a sell stop only goes up"),
                }
                if order.trailing.is_none() {
                    prop_assert_eq!(moved.stop_price, before, "a plain stop stays where it was put");
                }
                order.stop_price = Some(moved.stop_price);
                if moved.triggered {
                    order.triggered_at = Some(SimTime(n as i64));
                }
            }
            let fills = fill(order, &q);
            for (quantity, price) in fills {
                let order = &mut orders[i];
                if !is_open(order.status) {
                    break;
                }
                prop_assert!(
                    has_stop(order.order_type) <= order.triggered_at.is_some(),
                    "a stop order trades once triggered"
                );
                prop_assert!(
                    master_filled,
                    "an order waiting for its master trades once the master has filled"
                );
                if let Some(limit) = order.limit_price {
                    match order.side {
                        Side::Buy => prop_assert!(price <= limit),
                        _ => prop_assert!(price >= limit),
                    }
                }
                let fee = commission.of(quantity, order.filled_quantity.is_zero());
                match apply_fill(account_type, order.side, holding, cash, quantity, price, fee) {
                    Ok(effect) => {
                        commissions += fee;
                        (holding, cash) = (effect.holding, effect.cash);
                        order.filled_quantity += quantity;
                        order.filled_amount += quantity * price;
                        let event = if order.remaining().is_zero() {
                            Event::Fill
                        } else {
                            Event::PartialFill
                        };
                        order.status = transition(order.status, event).expect("an open order fills");
                        match order.side {
                            Side::Buy => {
                                bought += quantity;
                                spent += quantity * price;
                            }
                            _ => {
                                sold += quantity;
                                received += quantity * price;
                            }
                        }
                    }
                    Err(_) => order.status = transition(order.status, Event::Fail).expect("an open order can fail"),
                }
                prop_assert!(order.filled_quantity <= order.quantity);
                // What the store does to the rest of the combination, in the fill's transaction.
                let changed = order.clone();
                for other in orders
                    .iter_mut()
                    .filter(|o| o.combo.is_some() && o.combo == changed.combo)
                {
                    let event = match consequence(&changed, other) {
                        None => continue,
                        Some(Consequence::Release) => {
                            other.waits_for = None;
                            Event::Release
                        }
                        Some(Consequence::Cancel(_)) => Event::Cancel,
                    };
                    other.status = transition(other.status, event).expect("consequences touch open orders");
                }
            }
        }
        prop_assert!(
            account_type == AccountType::Margin || cash >= Decimal::ZERO,
            "a cash account never goes below zero"
        );
        prop_assert!(
            account_type == AccountType::Margin || holding.quantity >= Decimal::ZERO,
            "only margin accounts go short"
        );
        prop_assert_eq!(
            holding.quantity,
            bought - sold,
            "shares are what was bought less what was sold"
        );
        prop_assert_eq!(
            cash,
            start_cash - spent + received - commissions,
            "cash moves by the fills' value and their commissions exactly"
        );
        // What the balance call shows: the account's value at the last price.
        let valued = valuation::value(1, holding, last);
        let totals = valuation::totals(cash, [&valued]);
        let (long, short) = if holding.quantity.is_sign_negative() {
            (Decimal::ZERO, -holding.quantity * last)
        } else {
            (holding.quantity * last, Decimal::ZERO)
        };
        prop_assert_eq!(
            totals.net_liquidation,
            cash + long - short,
            "total assets are cash and longs less shorts"
        );
        prop_assert_eq!(valued.unrealized, (last - holding.average_cost) * holding.quantity);
        // Its buying power is what placement enforces: a buy of exactly that much is
        // taken, a cent more is refused.
        let standing = Standing {
            account_type,
            cash,
            positions: vec![Position {
                instrument_id: 1,
                quantity: holding.quantity,
                price: last,
            }],
            reserved: Decimal::ZERO,
            reserved_premiums: Decimal::ZERO,
            selling: HashMap::new(),
        };
        let power = buying_power::check(standing.clone(), &[], None, &|_| Decimal::ZERO)
            .expect("no orders, no refusal")
            .before;
        if power >= Decimal::new(1, 2) {
            let buy = |estimate: Decimal| {
                buying_power::tests::order(2, Side::Buy, "1", &estimate.to_string(), ComboType::Normal)
            };
            prop_assert!(
                buying_power::check(standing.clone(), &[&buy(power)], None, &|_| Decimal::ZERO).is_ok(),
                "exactly the buying power"
            );
            let over = buying_power::check(standing, &[&buy(power + Decimal::new(1, 2))], None, &|_| Decimal::ZERO);
            prop_assert_eq!(
                over.map_err(|r| r.code),
                Err(ErrorCode::InsufficientBuyingPower),
                "a cent more"
            );
        }
    }
    for legs in orders
        .iter()
        .filter(|o| part(o.combo_type) == Part::Leg)
        .collect::<Vec<_>>()
        .chunks(2)
    {
        prop_assert!(
            legs.iter().filter(|o| !o.filled_quantity.is_zero()).count() <= 1,
            "one leg of an OCO pair trades"
        );
    }
    for order in &orders {
        prop_assert!(order.filled_quantity <= order.quantity);
        prop_assert_eq!(
            order.status == OrderStatus::Filled,
            order.filled_quantity == order.quantity
        );
    }
    Ok(())
}
