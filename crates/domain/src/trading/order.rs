//! An order as the engine keeps it, and the one table of its status transitions.

use rust_decimal::Decimal;
use signet_model::ErrorCode;
use signet_model::ids::{AccountId, ClientOrderId, OrderId};
use signet_model::orders::{
    ComboType, EntrustType, OrderStatus, OrderType, PositionIntent, Side, TimeInForce, TradingSession, TrailingType,
};
use signet_model::wire::WireEnum;

use super::order_parts::{Combo, FillPlan, MultiLeg};
use crate::Rejection;
use crate::times::{SimTime, WallTime};

/// What can happen to an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// Part of the remaining quantity filled.
    PartialFill,
    /// The rest filled.
    Fill,
    /// The account holder cancelled it.
    Cancel,
    /// Its time ran out: an IOC remainder, a DAY order at its session's close.
    Expire,
    /// The broker refused it after accepting it (buying power gone, ...).
    Fail,
    /// The unfilled part changed.
    Replace,
    /// The master order it waited for filled: it works from now on.
    Release,
}

impl Event {
    pub const ALL: [Event; 7] = [
        Event::PartialFill,
        Event::Fill,
        Event::Cancel,
        Event::Expire,
        Event::Fail,
        Event::Replace,
        Event::Release,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Event::PartialFill => "PARTIAL_FILL",
            Event::Fill => "FILL",
            Event::Cancel => "CANCEL",
            Event::Expire => "EXPIRE",
            Event::Fail => "FAIL",
            Event::Replace => "REPLACE",
            Event::Release => "RELEASE",
        }
    }
}

pub const STATUSES: [OrderStatus; 5] = [
    OrderStatus::Submitted,
    OrderStatus::PartialFilled,
    OrderStatus::Filled,
    OrderStatus::Cancelled,
    OrderStatus::Failed,
];

/// The status after `event`, or `None` when the event cannot happen to an order in `status`.
///
/// | status \ event | PartialFill | Fill | Cancel | Expire | Fail | Replace | Release |
/// |---|---|---|---|---|---|---|---|
/// | SUBMITTED | PARTIAL_FILLED | FILLED | CANCELLED | CANCELLED | FAILED | SUBMITTED | SUBMITTED |
/// | PARTIAL_FILLED | PARTIAL_FILLED | FILLED | CANCELLED | CANCELLED | CANCELLED | PARTIAL_FILLED | — |
/// | FILLED, CANCELLED, FAILED | — | — | — | — | — | — | — |
///
/// A refusal of a partly filled order cancels the rest: what filled stays filled. An order that
/// waits for its master has not traded, so only a SUBMITTED one is released.
pub fn transition(status: OrderStatus, event: Event) -> Option<OrderStatus> {
    use Event as E;
    use OrderStatus as S;
    match (status, event) {
        (S::Submitted | S::PartialFilled, E::PartialFill) => Some(S::PartialFilled),
        (S::Submitted | S::PartialFilled, E::Fill) => Some(S::Filled),
        (S::Submitted | S::PartialFilled, E::Cancel | E::Expire) => Some(S::Cancelled),
        (S::Submitted, E::Fail) => Some(S::Failed),
        (S::PartialFilled, E::Fail) => Some(S::Cancelled),
        (S::Submitted | S::PartialFilled, E::Replace) => Some(status),
        (S::Submitted, E::Release) => Some(S::Submitted),
        (S::PartialFilled, E::Release) => None,
        (S::Filled | S::Cancelled | S::Failed, _) => None,
    }
}

pub fn is_open(status: OrderStatus) -> bool {
    matches!(status, OrderStatus::Submitted | OrderStatus::PartialFilled)
}

/// The refusal of a cancel or replacement of an order that is no longer open.
pub fn not_open(order: &Order) -> Rejection {
    Rejection::new(
        ErrorCode::OrderNotOpen,
        format!("the order is {} and can no longer change", order.status.as_str()),
    )
}

/// An order as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    pub seq: i64,
    pub order_id: OrderId,
    pub account_id: AccountId,
    pub client_order_id: ClientOrderId,
    pub client_combo_order_id: Option<String>,
    /// Its part in a combination, as sent (NORMAL when alone).
    pub combo_type: ComboType,
    pub combo: Option<Combo>,
    /// The master order it waits for (OTO, OTOCO), until the master has filled.
    pub waits_for: Option<OrderId>,
    pub instrument_id: i64,
    pub symbol: String,
    pub side: Side,
    pub order_type: OrderType,
    pub time_in_force: TimeInForce,
    pub quantity: Decimal,
    /// The cash of an AMOUNT order (`entrust_type`), which set its quantity.
    pub cash_amount: Option<Decimal>,
    pub limit_price: Option<Decimal>,
    /// The stop; a trailing stop's moves with the price.
    pub stop_price: Option<Decimal>,
    pub trailing: Option<Trailing>,
    /// Simulated time the stop was reached (stop orders only).
    pub triggered_at: Option<SimTime>,
    pub session: TradingSession,
    pub status: OrderStatus,
    pub filled_quantity: Decimal,
    pub filled_amount: Decimal,
    pub reason: Option<String>,
    /// Simulated time after which a DAY or GTD order is cancelled.
    pub expires_at_sim: Option<SimTime>,
    pub place_time: WallTime,
    pub fill_time: Option<WallTime>,
    pub update_time: WallTime,
    /// Simulated time of its latest fill.
    pub filled_at_sim: Option<SimTime>,
    /// How a scenario rule shapes its fills, when one matched it at placement.
    pub fill_plan: Option<FillPlan>,
    /// An option order's: whether it opens or closes a position.
    pub position_intent: Option<PositionIntent>,
    /// A multi-leg option order's strategy and legs: `instrument_id` and `symbol` are then its
    /// underlying's, `quantity` counts units of the whole, and the limit is a net price.
    pub multi_leg: Option<MultiLeg>,
}

/// A trailing stop's distance from the best price seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailing {
    pub kind: TrailingType,
    /// Money (AMOUNT), or a ratio of the price (PERCENTAGE, 0 to 1).
    pub step: Decimal,
}

impl Trailing {
    /// Where the stop stands for a reference price: below it for a sell, above for a buy.
    pub fn stop_for(self, side: Side, reference: Decimal) -> Decimal {
        let distance = match self.kind {
            TrailingType::Amount => self.step,
            TrailingType::Percentage => reference * self.step,
        };
        let stop = match side {
            Side::Buy => reference + distance,
            Side::Sell | Side::Short => reference - distance,
        };
        stop.round_dp(4).max(Decimal::ZERO).normalize()
    }
}

/// Whether orders of this type wait for a stop.
pub fn has_stop(order_type: OrderType) -> bool {
    matches!(
        order_type,
        OrderType::StopLoss | OrderType::StopLossLimit | OrderType::TrailingStopLoss
    )
}

impl Order {
    pub fn entrust_type(&self) -> EntrustType {
        if self.cash_amount.is_some() {
            EntrustType::Amount
        } else {
            EntrustType::Qty
        }
    }

    pub fn remaining(&self) -> Decimal {
        self.quantity - self.filled_quantity
    }

    pub fn average_price(&self) -> Option<Decimal> {
        (!self.filled_quantity.is_zero()).then(|| (self.filled_amount / self.filled_quantity).round_dp(6).normalize())
    }
}

#[cfg(test)]
impl Order {
    /// An open GTC order of 10 shares of instrument 1 for the engine's tests, with no price set.
    pub(crate) fn sample(order_id: &str, side: Side, order_type: OrderType) -> Order {
        Order {
            seq: 1,
            order_id: order_id.into(),
            account_id: "A".into(),
            client_order_id: order_id.into(),
            client_combo_order_id: None,
            combo_type: ComboType::Normal,
            combo: None,
            waits_for: None,
            instrument_id: 1,
            symbol: "X".into(),
            side,
            order_type,
            time_in_force: TimeInForce::Gtc,
            quantity: Decimal::TEN,
            cash_amount: None,
            limit_price: None,
            stop_price: None,
            trailing: None,
            triggered_at: None,
            session: TradingSession::Core,
            status: OrderStatus::Submitted,
            filled_quantity: Decimal::ZERO,
            filled_amount: Decimal::ZERO,
            reason: None,
            expires_at_sim: None,
            place_time: WallTime(0),
            fill_time: None,
            update_time: WallTime(0),
            filled_at_sim: None,
            fill_plan: None,
            position_intent: None,
            multi_leg: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every status against every event, spelled out: the table above, and nothing else.
    #[test]
    fn the_transition_table_is_exhaustive() {
        use Event as E;
        use OrderStatus as S;
        let expected = |status: S, event: E| -> Option<S> {
            match status {
                S::Submitted => Some(match event {
                    E::PartialFill => S::PartialFilled,
                    E::Fill => S::Filled,
                    E::Cancel | E::Expire => S::Cancelled,
                    E::Fail => S::Failed,
                    E::Replace | E::Release => S::Submitted,
                }),
                S::PartialFilled => match event {
                    E::PartialFill | E::Replace => Some(S::PartialFilled),
                    E::Fill => Some(S::Filled),
                    E::Cancel | E::Expire | E::Fail => Some(S::Cancelled),
                    E::Release => None,
                },
                S::Filled | S::Cancelled | S::Failed => None,
            }
        };
        let mut cells = 0;
        for status in STATUSES {
            for event in Event::ALL {
                assert_eq!(
                    transition(status, event),
                    expected(status, event),
                    "{status:?} × {event:?}"
                );
                cells += 1;
            }
        }
        assert_eq!(cells, 35);
        for status in STATUSES {
            assert_eq!(is_open(status), transition(status, Event::Cancel).is_some());
        }
    }

    #[test]
    fn a_closed_order_is_refused_by_its_status() {
        let order = Order {
            status: OrderStatus::Cancelled,
            ..Order::sample("A", Side::Buy, OrderType::Limit)
        };
        assert_eq!(
            not_open(&order),
            Rejection::new(
                ErrorCode::OrderNotOpen,
                "the order is CANCELLED and can no longer change"
            )
        );
        let filled = Order {
            status: OrderStatus::Filled,
            ..order
        };
        assert_eq!(
            not_open(&filled).message,
            "the order is FILLED and can no longer change"
        );
    }
}
