//! Order events as the trade-events subscription sends them (catalog §12.6): what happened to an
//! order (`scene_type`) and the flat JSON object of string values that describes it. The store
//! writes each event's payload in the transaction that changes the order, so that every node
//! sends the same bytes for it.

use rust_decimal::Decimal;
use signet_model::events::{OrderEventPayload, PositionEventPayload};
use signet_model::ids::AccountId;
use signet_model::wire::WireEnum;

use super::accounting::Holding;
use super::order::{Event, Order};
use crate::times::format_ms;

/// What happened to an order, as `scene_type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scene {
    /// Accepted and open (not in the published list: signet's own value).
    Placed,
    /// A fill that leaves some quantity open.
    Filled,
    /// The fill that completes the order.
    FinalFilled,
    PlaceFailed,
    ModifySuccess,
    CancelSuccess,
    /// Cancelled by the server at the end of its time in force (signet's own value).
    Expired,
}

impl Scene {
    pub const fn as_str(self) -> &'static str {
        match self {
            Scene::Placed => "PLACE_SUCCESS",
            Scene::Filled => "FILLED",
            Scene::FinalFilled => "FINAL_FILLED",
            Scene::PlaceFailed => "PLACE_FAILED",
            Scene::ModifySuccess => "MODIFY_SUCCESS",
            Scene::CancelSuccess => "CANCEL_SUCCESS",
            Scene::Expired => "EXPIRED",
        }
    }

    /// The scene of a transition (`None`: the placement). A released leg of a combination
    /// (`RELEASE`) has none: its placement was its event.
    pub const fn of(event: Option<Event>) -> Option<Scene> {
        Some(match event {
            None => Scene::Placed,
            Some(Event::PartialFill) => Scene::Filled,
            Some(Event::Fill) => Scene::FinalFilled,
            Some(Event::Cancel) => Scene::CancelSuccess,
            Some(Event::Expire) => Scene::Expired,
            Some(Event::Fail) => Scene::PlaceFailed,
            Some(Event::Replace) => Scene::ModifySuccess,
            Some(Event::Release) => return None,
        })
    }
}

/// The payload of the event `event` (`None`: the placement) that left `order` as it is, without
/// its `request_id`, which [`with_request_id`] adds when it is sent; `None` when the event is
/// not sent ([`Scene::of`]).
pub fn payload(order: &Order, event: Option<Event>) -> Option<String> {
    let scene = Scene::of(event)?;
    let filled_price = if order.filled_quantity > Decimal::ZERO {
        (order.filled_amount / order.filled_quantity).round_dp(6).normalize()
    } else {
        Decimal::ZERO
    };
    let payload = OrderEventPayload {
        request_id: String::new(),
        account_id: order.account_id.to_string(),
        order_id: order.order_id.to_string(),
        client_order_id: order.client_order_id.to_string(),
        instrument_id: order.instrument_id.to_string(),
        order_status: order.status.as_str().to_owned(),
        symbol: order.symbol.clone(),
        qty: order.quantity.to_string(),
        filled_qty: order.filled_quantity.to_string(),
        filled_price: filled_price.to_string(),
        filled_time: order.fill_time.map(|t| format_ms(t.0)).unwrap_or_default(),
        side: order.side.as_str().to_owned(),
        category: if crate::options::is_contract(order.instrument_id) || order.multi_leg.is_some() {
            "US_OPTION"
        } else {
            "US_STOCK"
        }
        .to_owned(),
        order_type: order.order_type.as_str().to_owned(),
        scene_type: scene.as_str().to_owned(),
        biz_type: "TRADE".to_owned(),
    };
    serde_json::to_string(&payload).ok()
}

/// The payload of the position event of a fill of `order` that left the position at `holding`,
/// without its `request_id` (as [`payload`]). The numbers are written as the positions table
/// keeps them, so that the event and the positions list agree.
pub fn position_payload(order: &Order, holding: Holding) -> Option<String> {
    leg_position_payload(order, order.instrument_id, &order.symbol, holding)
}

/// [`position_payload`] of the position in `instrument_id` (`symbol`) a fill of `order` left
/// at `holding`: one of a multi-leg order's legs.
pub fn leg_position_payload(order: &Order, instrument_id: i64, symbol: &str, holding: Holding) -> Option<String> {
    let payload = PositionEventPayload {
        request_id: String::new(),
        account_id: order.account_id.to_string(),
        symbol: symbol.to_owned(),
        instrument_id: instrument_id.to_string(),
        quantity: holding.quantity.normalize().to_string(),
        cost_price: holding.average_cost.normalize().to_string(),
        order_id: order.order_id.to_string(),
        client_order_id: order.client_order_id.to_string(),
        corporate_action: None,
    };
    serde_json::to_string(&payload).ok()
}

/// The payload of the position event of a split that left `account_id`'s position in
/// `instrument_id` at `holding` (without its `request_id`, as [`payload`]).
pub fn split_position_payload(
    account_id: &AccountId,
    symbol: &str,
    instrument_id: i64,
    holding: Holding,
) -> Option<String> {
    action_position_payload(account_id, symbol, instrument_id, holding, "SPLIT")
}

/// The position event of a position that `action` changed without an order (a split, an option
/// contract's exercise or assignment).
pub fn action_position_payload(
    account_id: &AccountId,
    symbol: &str,
    instrument_id: i64,
    holding: Holding,
    action: &str,
) -> Option<String> {
    let payload = PositionEventPayload {
        request_id: String::new(),
        account_id: account_id.to_string(),
        symbol: symbol.to_owned(),
        instrument_id: instrument_id.to_string(),
        quantity: holding.quantity.normalize().to_string(),
        cost_price: holding.average_cost.normalize().to_string(),
        order_id: String::new(),
        client_order_id: String::new(),
        corporate_action: Some(action.to_owned()),
    };
    serde_json::to_string(&payload).ok()
}

/// The `request_id` of the position event written beside order event `id`.
pub fn position_request_id(id: i64) -> String {
    format!("{id}-position")
}

/// `payload` (a JSON object) with `"request_id"` first.
pub fn with_request_id(payload: &str, request_id: &str) -> String {
    let rest = payload.strip_prefix('{').unwrap_or(payload);
    let separator = if rest.trim_start().starts_with('}') { "" } else { "," };
    format!(
        "{{\"request_id\":{}{separator}{rest}",
        serde_json::Value::from(request_id)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_id_goes_in_front() {
        let full: serde_json::Value = serde_json::from_str(&with_request_id(r#"{"a":"1"}"#, "7")).unwrap();
        assert_eq!(full, serde_json::json!({"request_id": "7", "a": "1"}));
        let empty: serde_json::Value = serde_json::from_str(&with_request_id("{}", "x\"y")).unwrap();
        assert_eq!(empty, serde_json::json!({"request_id": "x\"y"}));
    }

    #[test]
    fn an_option_orders_events_say_so() {
        use signet_model::orders::{OrderType, Side};
        let mut order = Order::sample("O", Side::Buy, OrderType::Limit);
        let category = |order: &Order| {
            let payload: serde_json::Value = serde_json::from_str(&payload(order, None).unwrap()).unwrap();
            payload["category"].as_str().unwrap().to_owned()
        };
        assert_eq!(category(&order), "US_STOCK");
        order.instrument_id = crate::options::Contract::parse_occ("AAPL130315C00450000")
            .unwrap()
            .instrument_id(1)
            .unwrap();
        assert_eq!(category(&order), "US_OPTION");
    }

    #[test]
    fn every_event_but_a_release_has_a_scene() {
        assert_eq!(Scene::of(None), Some(Scene::Placed));
        assert_eq!(Scene::of(Some(Event::PartialFill)), Some(Scene::Filled));
        assert_eq!(Scene::of(Some(Event::Fill)), Some(Scene::FinalFilled));
        assert_eq!(Scene::of(Some(Event::Release)), None);
    }
}
