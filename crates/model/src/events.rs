//! The trade-events subscription's wire types (catalog §12): the messages of `events.proto`
//! (package `grpc.trade.event`), written by hand with prost's derive (two messages and a few
//! codes need neither a build script nor `protoc`), and the JSON payload of an order event.

use serde::{Deserialize, Serialize};

/// The full path of the one method.
pub const SUBSCRIBE_PATH: &str = "/grpc.trade.event.EventService/Subscribe";

/// `SubscribeRequest`. The server decodes it only after checking the signature over its bytes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribeRequest {
    /// A bit set: 1 order events, 2 position events, 4 option events (the client sends 7).
    #[prost(uint32, tag = "1")]
    pub subscribe_type: u32,
    /// Epoch milliseconds.
    #[prost(int64, tag = "2")]
    pub timestamp: i64,
    #[prost(string, tag = "3")]
    pub content_type: String,
    #[prost(string, tag = "4")]
    pub payload: String,
    #[prost(string, repeated, tag = "5")]
    pub accounts: Vec<String>,
}

/// `SubscribeResponse`. `event_type` is an `EventType` or a business code outside the enum
/// (1024 order, 1028 position, 1032 option), which proto3 keeps.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribeResponse {
    #[prost(int32, tag = "1")]
    pub event_type: i32,
    #[prost(uint32, tag = "2")]
    pub subscribe_type: u32,
    #[prost(string, tag = "3")]
    pub content_type: String,
    #[prost(string, tag = "4")]
    pub payload: String,
    #[prost(string, tag = "5")]
    pub request_id: String,
    /// Epoch milliseconds.
    #[prost(int64, tag = "6")]
    pub timestamp: i64,
}

/// `EventType` values, and the business codes outside the enum.
pub mod event_type {
    pub const SUBSCRIBE_SUCCESS: i32 = 0;
    pub const PING: i32 = 1;
    pub const AUTH_ERROR: i32 = 2;
    pub const NUM_OF_CONN_EXCEED: i32 = 3;
    pub const ORDER: i32 = 1024;
    pub const POSITION: i32 = 1028;
}

/// The `subscribeType` of order status changes.
pub const SUBSCRIBE_ORDER: u32 = 1;
/// The `subscribeType` of position changes.
pub const SUBSCRIBE_POSITION: u32 = 2;

/// The payload of an order event (`eventType` 1024): a flat JSON object of strings. `scene_type`
/// says what happened: `PLACE_SUCCESS`, `FILLED` (a fill that leaves some quantity open),
/// `FINAL_FILLED`, `PLACE_FAILED`, `MODIFY_SUCCESS`, `CANCEL_SUCCESS`, `EXPIRED`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderEventPayload {
    /// Unique per event, and the same on every node. Empty, and left out, in the payload the
    /// store writes: the event's id is known only once it is inserted.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub request_id: String,
    pub account_id: String,
    pub order_id: String,
    pub client_order_id: String,
    pub instrument_id: String,
    pub order_status: String,
    pub symbol: String,
    pub qty: String,
    pub filled_qty: String,
    /// The average price of what filled so far (`0` before the first fill).
    pub filled_price: String,
    /// The last fill's time, `yyyy-MM-ddTHH:mm:ss.SSSZ`; empty before the first fill.
    pub filled_time: String,
    pub side: String,
    pub category: String,
    pub order_type: String,
    pub scene_type: String,
    pub biz_type: String,
}

/// The payload of a position event (`eventType` 1028, `subscribeType` 2): a flat JSON object of
/// strings, the position as a fill left it. No source gives the official payload (catalog
/// §12.6): these are signet's fields, named as the positions list names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionEventPayload {
    /// Unique per event, and the same on every node (`{id}-position`, beside the order event
    /// `{id}` of the same fill). Left out in the payload the store writes, as for an order event.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub request_id: String,
    pub account_id: String,
    pub symbol: String,
    pub instrument_id: String,
    /// Shares held after the fill; negative when short, `0` once closed.
    pub quantity: String,
    /// The average cost of the shares held, as the positions list's `cost_price`.
    pub cost_price: String,
    /// The order whose fill changed the position; absent when a split did.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub order_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub client_order_id: String,
    /// `SPLIT` when a split applied at its ex-date changed the position (signet's addition:
    /// no order did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corporate_action: Option<String>,
}
