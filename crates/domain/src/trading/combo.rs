//! Combinations: orders placed together in one `new_orders` list under a
//! `client_combo_order_id`, each naming its part in `combo_type` (catalog 3.7).
//!
//! | kind | `new_orders` | what happens |
//! |---|---|---|
//! | OTO | `MASTER`, `OTO` | the second order works once the master has filled |
//! | OCO | two legs | when one leg trades or ends, the other is cancelled |
//! | OTOCO | `MASTER`, two legs | the legs work once the master has filled, then as OCO |
//!
//! A leg is `combo_type` `OCO`, `OTOCO`, `STOP_PROFIT` or `STOP_LOSS`. A master that ends
//! without filling completely (cancelled, expired, failed) cancels the orders waiting for it.

use signet_model::ErrorCode;
use signet_model::orders::{ComboType, OrderStatus};

use super::order::{Order, is_open};
pub use super::order_parts::{Combo, ComboKind};
use crate::Rejection;

/// The most orders of a combination (OTOCO).
pub const MAX_ORDERS: usize = 3;

/// An order's part in its combination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Alone,
    Master,
    /// The order an OTO master triggers.
    Follower,
    /// One of an OCO pair.
    Leg,
}

/// The combo types the engine takes: NORMAL and the parts above.
pub const COMBO_TYPES: [ComboType; 7] = [
    ComboType::Normal,
    ComboType::Master,
    ComboType::Oto,
    ComboType::Oco,
    ComboType::Otoco,
    ComboType::StopProfit,
    ComboType::StopLoss,
];

pub fn part(combo_type: ComboType) -> Part {
    match combo_type {
        ComboType::Master => Part::Master,
        ComboType::Oto => Part::Follower,
        ComboType::Oco | ComboType::Otoco | ComboType::StopProfit | ComboType::StopLoss => Part::Leg,
        _ => Part::Alone,
    }
}

/// The combination a `new_orders` list makes, from each order's `combo_type` in order; `None`
/// for one order alone.
pub fn kind_of(combo_types: &[ComboType]) -> Result<Option<ComboKind>, Rejection> {
    use Part::*;
    let parts: Vec<Part> = combo_types.iter().map(|&c| part(c)).collect();
    match parts.as_slice() {
        [Alone] => Ok(None),
        [Master, Follower] => Ok(Some(ComboKind::Oto)),
        [Leg, Leg] => Ok(Some(ComboKind::Oco)),
        [Master, Leg, Leg] => Ok(Some(ComboKind::Otoco)),
        [] => Err(Rejection::illegal_parameter("new_orders is empty")),
        _ => Err(Rejection::new(
            ErrorCode::UnsupportedComboType,
            "new_orders holds one NORMAL order or a combination: MASTER then OTO (OTO); two of OCO, STOP_PROFIT, \
             STOP_LOSS (OCO); MASTER then two of OCO, OTOCO, STOP_PROFIT, STOP_LOSS (OTOCO)",
        )),
    }
}

/// Refuses a `new_orders` list longer than a combination, before its orders are read.
pub fn check_count(orders: usize) -> Result<(), Rejection> {
    if orders > MAX_ORDERS {
        return Err(Rejection::new(
            ErrorCode::UnsupportedComboType,
            format!(
                "new_orders holds one order or a combination of at most {MAX_ORDERS}: use /trading/orders/batch-place for independent orders"
            ),
        ));
    }
    Ok(())
}

/// What an order's fill or end does to another open order of its combination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consequence {
    /// It waited for the master, which has filled: it works from now on.
    Release,
    Cancel(&'static str),
}

/// What `changed`, just filled (partly or wholly) or ended, does to `other`, an open order of
/// the same combination.
pub fn consequence(changed: &Order, other: &Order) -> Option<Consequence> {
    if other.order_id == changed.order_id || !is_open(other.status) {
        return None;
    }
    match part(changed.combo_type) {
        Part::Master if other.waits_for.as_deref() == Some(changed.order_id.as_str()) => match changed.status {
            OrderStatus::Filled => Some(Consequence::Release),
            OrderStatus::Cancelled | OrderStatus::Failed => {
                Some(Consequence::Cancel("its master order ended without filling completely"))
            }
            OrderStatus::Submitted | OrderStatus::PartialFilled => None,
        },
        Part::Leg if part(other.combo_type) == Part::Leg => {
            if !changed.filled_quantity.is_zero() {
                Some(Consequence::Cancel("the other order of its OCO pair traded"))
            } else if !is_open(changed.status) {
                Some(Consequence::Cancel("the other order of its OCO pair ended"))
            } else {
                None
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;
    use signet_model::orders::{OrderType, Side};

    use super::*;
    use signet_model::ids::OrderId;

    fn order(id: &str, combo_type: ComboType, waits_for: Option<&str>) -> Order {
        Order {
            client_combo_order_id: Some("C".into()),
            combo_type,
            combo: Some(Combo {
                combo_order_id: "M".into(),
                kind: ComboKind::Otoco,
            }),
            waits_for: waits_for.map(OrderId::from),
            limit_price: Some(Decimal::ONE),
            ..Order::sample(id, Side::Sell, OrderType::Limit)
        }
    }

    #[test]
    fn shapes_name_their_combination() {
        use ComboType as C;
        assert_eq!(kind_of(&[C::Normal]).unwrap(), None);
        assert_eq!(kind_of(&[C::Master, C::Oto]).unwrap(), Some(ComboKind::Oto));
        assert_eq!(kind_of(&[C::Oco, C::Oco]).unwrap(), Some(ComboKind::Oco));
        assert_eq!(kind_of(&[C::StopProfit, C::StopLoss]).unwrap(), Some(ComboKind::Oco));
        assert_eq!(
            kind_of(&[C::Master, C::StopProfit, C::StopLoss]).unwrap(),
            Some(ComboKind::Otoco)
        );
        for bad in [
            &[C::Master][..],
            &[C::Oto],
            &[C::Oco],
            &[C::Oto, C::Master],
            &[C::Normal, C::Normal],
            &[C::Master, C::Oto, C::Oto],
            &[C::Master, C::Oco, C::Oco, C::Oco],
        ] {
            assert_eq!(
                kind_of(bad).unwrap_err().code,
                ErrorCode::UnsupportedComboType,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_master_releases_or_cancels_its_followers_and_legs_cancel_each_other() {
        let mut master = order("M", ComboType::Master, None);
        let profit = order("P", ComboType::StopProfit, Some("M"));
        let loss = order("L", ComboType::StopLoss, Some("M"));

        master.status = OrderStatus::PartialFilled;
        master.filled_quantity = Decimal::ONE;
        assert_eq!(consequence(&master, &profit), None, "not before it has filled");
        master.status = OrderStatus::Filled;
        assert_eq!(consequence(&master, &profit), Some(Consequence::Release));
        master.status = OrderStatus::Cancelled;
        assert!(matches!(consequence(&master, &loss), Some(Consequence::Cancel(_))));
        assert_eq!(consequence(&master, &master), None);

        let (mut profit, loss) = (
            order("P", ComboType::StopProfit, None),
            order("L", ComboType::StopLoss, None),
        );
        assert_eq!(consequence(&profit, &loss), None, "a leg that waits changes nothing");
        profit.status = OrderStatus::PartialFilled;
        profit.filled_quantity = Decimal::ONE;
        assert!(matches!(consequence(&profit, &loss), Some(Consequence::Cancel(_))));
        assert_eq!(consequence(&profit, &master), None, "a leg leaves the master alone");
        let mut expired = order("P", ComboType::Oco, None);
        expired.status = OrderStatus::Cancelled;
        assert!(matches!(consequence(&expired, &loss), Some(Consequence::Cancel(_))));
        let mut ended = loss.clone();
        ended.status = OrderStatus::Cancelled;
        assert_eq!(consequence(&profit, &ended), None, "only open orders change");
    }

    #[test]
    fn a_list_holds_at_most_three_orders() {
        assert_eq!(check_count(1), Ok(()));
        assert_eq!(check_count(3), Ok(()));
        assert_eq!(
            check_count(4).unwrap_err(),
            Rejection::new(
                ErrorCode::UnsupportedComboType,
                "new_orders holds one order or a combination of at most 3: use /trading/orders/batch-place for independent orders"
            )
        );
    }
}
