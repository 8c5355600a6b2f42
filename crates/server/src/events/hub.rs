//! One node's fan-out of order events: whatever commits an order's change publishes it here,
//! after the commit; every open subscription holds a receiver.
//!
//! The channel is a bounded ring (tokio's broadcast): publishing never waits, so a slow
//! subscriber never slows the engine; a subscriber that falls more than the ring's capacity
//! behind is told it lagged, and its stream is ended with `UNAVAILABLE` (the client reconnects).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rust_decimal::Decimal;
use signet_domain::trading::order::Order;
use signet_model::wire::WireEnum;
use tokio::sync::broadcast;

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
}

/// An order event ready to send: its account (to pick the subscribers) and its JSON payload.
#[derive(Debug, Clone)]
pub struct OrderEvent {
    pub account_id: String,
    pub request_id: String,
    pub time_ms: i64,
    pub payload: String,
}

pub struct EventHub {
    sender: broadcast::Sender<Arc<OrderEvent>>,
    /// Makes `request_id` unique on this node: the hub's creation time, then a sequence.
    prefix: i64,
    sequence: AtomicU64,
    /// Open streams per app key.
    streams: Mutex<HashMap<Arc<str>, usize>>,
}

/// One open stream of an app, counted until dropped.
pub struct StreamSlot {
    hub: Arc<EventHub>,
    app_key: Arc<str>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut streams = self
            .hub
            .streams
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = streams.get_mut(&self.app_key) {
            *n -= 1;
            if *n == 0 {
                streams.remove(&self.app_key);
            }
        }
    }
}

impl EventHub {
    /// A hub whose subscribers may fall at most `capacity` events behind.
    pub fn new(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity.max(1));
        EventHub {
            sender,
            prefix: signet_domain::simulator::clock::wall_clock_ms(),
            sequence: AtomicU64::new(0),
            streams: Mutex::default(),
        }
    }

    /// A slot for one more stream of `app_key`, or `None` when it has `max` open already.
    pub fn open_stream(self: &Arc<Self>, app_key: &Arc<str>, max: usize) -> Option<StreamSlot> {
        let mut streams = self.streams.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let open = streams.entry(app_key.clone()).or_insert(0);
        if *open >= max {
            return None;
        }
        *open += 1;
        Some(StreamSlot {
            hub: self.clone(),
            app_key: app_key.clone(),
        })
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<OrderEvent>> {
        self.sender.subscribe()
    }

    /// Publishes what `scene` did to `order` (as committed). Never waits; without subscribers
    /// the event is dropped.
    pub fn order_changed(&self, order: &Order, scene: Scene, time_ms: i64) {
        if self.sender.receiver_count() == 0 {
            return;
        }
        let request_id = format!("{}{:08}", self.prefix, self.sequence.fetch_add(1, Ordering::Relaxed));
        self.publish(OrderEvent {
            account_id: order.account_id.clone(),
            payload: payload(order, scene, &request_id),
            request_id,
            time_ms,
        });
    }

    /// Hands `event` to every subscriber; never waits.
    pub fn publish(&self, event: OrderEvent) {
        let _ = self.sender.send(Arc::new(event));
    }
}

/// The flat JSON object of string values of an order event (catalog §12.6).
fn payload(order: &Order, scene: Scene, request_id: &str) -> String {
    let filled_price = if order.filled_quantity > Decimal::ZERO {
        (order.filled_amount / order.filled_quantity).round_dp(6).normalize()
    } else {
        Decimal::ZERO
    };
    let filled_time = order.fill_time.map(iso_millis).unwrap_or_default();
    serde_json::json!({
        "account_id": order.account_id,
        "request_id": request_id,
        "order_id": order.order_id,
        "client_order_id": order.client_order_id,
        "instrument_id": order.instrument_id.to_string(),
        "order_status": order.status.as_str(),
        "symbol": order.symbol,
        "qty": order.quantity.to_string(),
        "filled_qty": order.filled_quantity.to_string(),
        "filled_price": filled_price.to_string(),
        "filled_time": filled_time,
        "side": order.side.as_str(),
        "category": "US_STOCK",
        "order_type": order.order_type.as_str(),
        "scene_type": scene.as_str(),
        "biz_type": "TRADE",
    })
    .to_string()
}

/// Epoch milliseconds as `YYYY-MM-DDThh:mm:ss.SSSZ`.
fn iso_millis(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let base = signet_signing::format_timestamp(secs);
    format!("{}.{:03}Z", base.trim_end_matches('Z'), ms.rem_euclid(1000))
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_have_milliseconds() {
        assert_eq!(super::iso_millis(1_795_300_956_042), "2026-11-21T22:42:36.042Z");
    }
}
