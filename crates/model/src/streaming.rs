//! The quotes feed over MQTT (catalog §13): the signed HTTP calls that tell a session connected
//! over MQTT which symbols to receive (§13.3), and the messages pushed to it ([`proto`], §13.4).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub mod proto;

/// The topics the feed publishes on: the client picks a message's decoder by its topic alone.
pub mod topic {
    /// [`super::proto::Snapshot`].
    pub const SNAPSHOT: &str = "snapshot";
    /// [`super::proto::Quote`]: the book.
    pub const QUOTE: &str = "quote";
    /// [`super::proto::Tick`].
    pub const TICK: &str = "tick";
    /// UTF-8 JSON with a `type`: "1002" (with a `content`) tells a connection that a newer one
    /// took its session over.
    pub const NOTICE: &str = "notice";
}

/// `POST /market-data/streaming/subscribe`, in the order the official client writes its keys.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StreamingSubscribeRequest {
    /// The MQTT client id of a connection of the calling app.
    pub session_id: String,
    /// Up to 50 symbols.
    #[serde(default)]
    pub symbols: Option<Vec<String>>,
    /// US_STOCK (or US_ETF).
    #[serde(default)]
    pub category: Option<String>,
    /// QUOTE (the book), SNAPSHOT, TICK.
    #[serde(default)]
    pub sub_types: Option<Vec<String>>,
    /// Levels a side of the QUOTE messages: 1 to 50, default 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Accepted: the overnight fields of SNAPSHOT are always filled in the overnight session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overnight_required: Option<bool>,
}

/// `POST /market-data/streaming/unsubscribe`: the types named (all when none) of the symbols
/// named (all when none), or everything with `unsubscribe_all`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StreamingUnsubscribeRequest {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbols: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_types: Option<Vec<String>>,
    #[serde(default)]
    pub unsubscribe_all: Option<bool>,
}

/// What a session receives after the call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StreamingSubscriptions {
    pub session_id: String,
    /// By symbol, in alphabetical order.
    pub subscriptions: Vec<StreamingSubscription>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StreamingSubscription {
    pub symbol: String,
    /// Among QUOTE, SNAPSHOT, TICK.
    pub sub_types: Vec<String>,
    /// Levels a side of its QUOTE messages.
    pub depth: u32,
}
