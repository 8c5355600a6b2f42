//! Placing new orders (catalog 3.2–3.7): what a `new_orders` list makes (one order, or a
//! combination under its client id), and what a batch of independent orders may hold.

use signet_model::ErrorCode;
use signet_model::orders::ComboType;

use super::buying_power::PricedOrder;
use super::combo::{self, ComboKind};
use super::spec::{self, OrderSpec};
use crate::Rejection;

/// The most orders of a batch.
pub const MAX_BATCH: usize = 50;

/// `new_orders` parsed and priced: one order, or a combination with its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub orders: Vec<PricedOrder>,
    /// The combination the orders make; `None` for one order alone.
    pub kind: Option<ComboKind>,
    pub client_combo_order_id: Option<String>,
}

impl Placement {
    /// The placement `orders` make, in the order placed ([`combo::kind_of`], [`combo::check`]),
    /// under `client_combo_order_id`: required of a combination, optional on one order alone but
    /// checked as a combination's is when given (it is stored and echoed).
    pub fn new(orders: Vec<PricedOrder>, client_combo_order_id: Option<&str>) -> Result<Placement, Rejection> {
        let kind = combo::kind_of(&orders.iter().map(|p| p.spec.combo_type).collect::<Vec<_>>())?;
        let client_combo_order_id = match kind {
            None if client_combo_order_id.is_none_or(|c| c.trim().is_empty()) => None,
            _ => Some(spec::client_id("client_combo_order_id", client_combo_order_id)?),
        };
        if kind.is_some() {
            combo::check(&orders)?;
        }
        Ok(Placement {
            orders,
            kind,
            client_combo_order_id,
        })
    }
}

/// Refuses a batch of no orders or more than [`MAX_BATCH`], before its orders are read.
pub fn check_batch_size(orders: usize) -> Result<(), Rejection> {
    if orders == 0 || orders > MAX_BATCH {
        return Err(Rejection::illegal_parameter(format!(
            "batch_orders must hold 1 to {MAX_BATCH} orders"
        )));
    }
    Ok(())
}

/// Refuses `order`, the `i`th of a batch, unless it is NORMAL: a batch's orders are independent.
pub fn check_batch_order(i: usize, order: &OrderSpec) -> Result<(), Rejection> {
    if order.combo_type != ComboType::Normal {
        return Err(Rejection::new(
            ErrorCode::UnsupportedComboType,
            format!(
                "batch_orders[{i}]: a batch holds independent NORMAL orders; place a combination with /trading/orders/place"
            ),
        ));
    }
    Ok(())
}

/// Refuses a batch of which two orders share a client order id.
pub fn check_batch_ids(orders: &[PricedOrder]) -> Result<(), Rejection> {
    combo::distinct_ids(orders, "two orders of the batch share a client_order_id")
}

#[cfg(test)]
mod tests {
    use signet_model::orders::{Side, TimeInForce};

    use super::*;
    use crate::trading::buying_power::tests::order;

    fn with_id(mut order: PricedOrder, id: &str) -> PricedOrder {
        order.spec.client_order_id = id.into();
        order
    }

    fn bracket() -> Vec<PricedOrder> {
        vec![
            with_id(order(1, Side::Buy, "1", "100", ComboType::Master), "m"),
            with_id(order(1, Side::Sell, "1", "110", ComboType::StopProfit), "p"),
            with_id(order(1, Side::Sell, "1", "90", ComboType::StopLoss), "l"),
        ]
    }

    #[test]
    fn one_order_needs_no_combination_id_but_a_given_one_is_checked() {
        let one = || vec![order(1, Side::Buy, "1", "100", ComboType::Normal)];
        for none in [None, Some(""), Some("  ")] {
            let placement = Placement::new(one(), none).unwrap();
            assert_eq!(
                (placement.kind, placement.client_combo_order_id),
                (None, None),
                "{none:?}"
            );
        }
        assert_eq!(
            Placement::new(one(), Some(" c-1 "))
                .unwrap()
                .client_combo_order_id
                .as_deref(),
            Some("c-1")
        );
        assert_eq!(
            Placement::new(one(), Some("not valid")).unwrap_err(),
            Rejection::illegal_parameter("client_combo_order_id must be 1 to 32 characters of A-Z a-z 0-9 _ -")
        );
    }

    #[test]
    fn a_combination_needs_its_id_and_keeps_its_order() {
        let placement = Placement::new(bracket(), Some("c1")).unwrap();
        assert_eq!(placement.kind, Some(ComboKind::Otoco));
        assert_eq!(placement.client_combo_order_id.as_deref(), Some("c1"));
        assert_eq!(placement.orders, bracket());
        assert_eq!(
            Placement::new(bracket(), None).unwrap_err(),
            Rejection::illegal_parameter("client_combo_order_id is required")
        );
    }

    #[test]
    fn the_shape_is_checked_before_the_id_and_the_id_before_the_orders() {
        let mut upside_down = bracket();
        upside_down.swap(0, 1);
        assert_eq!(
            Placement::new(upside_down, None).unwrap_err().code,
            ErrorCode::UnsupportedComboType
        );
        let mut ioc = bracket();
        ioc[0].spec.time_in_force = TimeInForce::Ioc;
        assert_eq!(
            Placement::new(ioc.clone(), None).unwrap_err(),
            Rejection::illegal_parameter("client_combo_order_id is required")
        );
        assert_eq!(
            Placement::new(ioc, Some("c1")).unwrap_err().code,
            ErrorCode::UnsupportedTimeInForce
        );
        assert_eq!(
            Placement::new(Vec::new(), None).unwrap_err(),
            Rejection::illegal_parameter("new_orders is empty")
        );
    }

    #[test]
    fn a_batch_holds_1_to_50_independent_orders_with_their_own_ids() {
        let refusal = Rejection::illegal_parameter("batch_orders must hold 1 to 50 orders");
        assert_eq!(check_batch_size(0).unwrap_err(), refusal);
        assert_eq!(check_batch_size(51).unwrap_err(), refusal);
        assert_eq!(check_batch_size(1), Ok(()));
        assert_eq!(check_batch_size(50), Ok(()));

        let normal = order(1, Side::Buy, "1", "100", ComboType::Normal);
        assert_eq!(check_batch_order(0, &normal.spec), Ok(()));
        assert_eq!(
            check_batch_order(7, &bracket()[0].spec).unwrap_err(),
            Rejection::new(
                ErrorCode::UnsupportedComboType,
                "batch_orders[7]: a batch holds independent NORMAL orders; place a combination with /trading/orders/place"
            )
        );

        let (a, b) = (with_id(normal.clone(), "a"), with_id(normal.clone(), "b"));
        assert_eq!(check_batch_ids(&[a.clone(), b]), Ok(()));
        assert_eq!(
            check_batch_ids(&[a.clone(), with_id(normal, "c"), a]).unwrap_err(),
            Rejection::new(
                ErrorCode::DuplicateClientOrderId,
                "two orders of the batch share a client_order_id"
            )
        );
    }
}
