//! The earlier SDK generation's quotes gateway (`webull-python-sdk-quotes-core` and `-mdata`
//! 0.1.x): one bidirectional gRPC method, `openapi.Quote/StreamRequest`, which carries signed-once
//! requests for market data and for the MQTT feed's token and subscriptions, each a
//! [`ClientRequest`] naming an HTTP-like `path` with a protobuf `payload`, answered by a
//! [`ClientResponse`] with the same `requestId`. The messages of its `gateway.proto` and
//! `quote.proto` (package `openapi`, proto3), written by hand with prost's derive.

/// The full path of the one method.
pub const STREAM_PATH: &str = "/openapi.Quote/StreamRequest";

/// `MsgType`: what a request or response is.
pub mod msg_type {
    /// A keep-alive from the server.
    pub const PING: i32 = 0;
    /// A keep-alive from the client: its first message and one every 10 s.
    pub const PONG: i32 = 1;
    /// A request with a path and payload, or its answer.
    pub const PAYLOAD: i32 = 2;
    pub const COMPLETE: i32 = 3;
    pub const CANCEL: i32 = 4;
    /// "Your market authority has been taken by another device".
    pub const DOWNGRADE: i32 = 5;
}

/// The request paths the gateway answers, with the message each payload decodes as.
pub mod path {
    /// [`super::InstrumentRequest`] → [`super::InstrumentResponse`].
    pub const INSTRUMENTS: &str = "/instrument/list";
    /// [`super::SnapshotRequest`] → [`super::SnapshotResponse`].
    pub const SNAPSHOT: &str = "/market-data/snapshot";
    /// [`super::QuoteRequest`] → [`super::QuoteResponse`].
    pub const QUOTES: &str = "/market-data/quotes";
    /// [`super::TickRequest`] → [`super::TickResponse`].
    pub const TICK: &str = "/market-data/tick";
    /// [`super::BarsRequest`] → [`super::BarsResponse`].
    pub const BARS: &str = "/market-data/bars";
    /// [`super::BatchBarsRequest`] → [`super::BatchBarsResponse`].
    pub const BATCH_BARS: &str = "/market-data/batch-bars";
    /// No payload → [`super::TokenResponse`].
    pub const TOKEN: &str = "/market-data/streaming/token";
    /// [`super::SubscribeRequest`] → [`super::SubscribeResponse`].
    pub const SUBSCRIBE: &str = "/market-data/streaming/subscribe";
    /// [`super::SubscribeRequest`] → [`super::SubscribeResponse`].
    pub const UNSUBSCRIBE: &str = "/market-data/streaming/unsubscribe";
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ClientRequest {
    /// A [`msg_type`].
    #[prost(int32, tag = "1")]
    pub r#type: i32,
    #[prost(string, tag = "2")]
    pub request_id: String,
    #[prost(string, tag = "3")]
    pub path: String,
    #[prost(bytes = "vec", tag = "4")]
    pub payload: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ClientResponse {
    /// A [`msg_type`].
    #[prost(int32, tag = "1")]
    pub r#type: i32,
    #[prost(string, tag = "2")]
    pub request_id: String,
    /// 200 (or 0) for an answer; otherwise the HTTP status the same refusal would have, with
    /// the HTTP error body `{"error_code", "message"}` in `msg`.
    #[prost(uint32, tag = "3")]
    pub code: u32,
    #[prost(string, tag = "4")]
    pub msg: String,
    #[prost(string, tag = "5")]
    pub path: String,
    #[prost(bytes = "vec", tag = "6")]
    pub payload: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct InstrumentRequest {
    /// Comma-separated.
    #[prost(string, tag = "1")]
    pub symbols: String,
    #[prost(string, tag = "2")]
    pub category: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct InstrumentResponse {
    #[prost(message, repeated, tag = "1")]
    pub result: Vec<Instrument>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Instrument {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub symbol: String,
    #[prost(string, tag = "3")]
    pub instrument_id: String,
    #[prost(string, tag = "4")]
    pub exchange_code: String,
    #[prost(string, tag = "5")]
    pub currency: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct BarsRequest {
    #[prost(string, tag = "1")]
    pub symbol: String,
    #[prost(string, tag = "2")]
    pub category: String,
    #[prost(string, tag = "3")]
    pub timespan: String,
    #[prost(string, tag = "4")]
    pub count: String,
    #[prost(string, tag = "5")]
    pub real_time_required: String,
    /// Comma-separated.
    #[prost(string, tag = "6")]
    pub trading_sessions: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct BarsResponse {
    #[prost(string, tag = "1")]
    pub symbol: String,
    #[prost(string, tag = "2")]
    pub instrument_id: String,
    /// Newest first.
    #[prost(message, repeated, tag = "3")]
    pub result: Vec<Bar>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Bar {
    #[prost(string, tag = "1")]
    pub time: String,
    #[prost(string, tag = "2")]
    pub open: String,
    #[prost(string, tag = "3")]
    pub close: String,
    #[prost(string, tag = "4")]
    pub high: String,
    #[prost(string, tag = "5")]
    pub low: String,
    #[prost(string, tag = "6")]
    pub volume: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct BatchBarsRequest {
    #[prost(string, repeated, tag = "1")]
    pub symbols: Vec<String>,
    #[prost(string, tag = "2")]
    pub category: String,
    #[prost(string, tag = "3")]
    pub timespan: String,
    #[prost(int32, tag = "4")]
    pub count: i32,
    #[prost(string, tag = "5")]
    pub real_time_required: String,
    #[prost(string, repeated, tag = "6")]
    pub trading_sessions: Vec<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct BatchBarsResponse {
    #[prost(message, repeated, tag = "1")]
    pub result: Vec<BarsResponse>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SnapshotRequest {
    /// Comma-separated.
    #[prost(string, tag = "1")]
    pub symbols: String,
    #[prost(string, tag = "2")]
    pub category: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SnapshotResponse {
    #[prost(message, repeated, tag = "1")]
    pub result: Vec<Snapshot>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Snapshot {
    #[prost(string, tag = "1")]
    pub symbol: String,
    #[prost(string, tag = "2")]
    pub instrument_id: String,
    #[prost(string, tag = "3")]
    pub trade_time: String,
    #[prost(string, tag = "4")]
    pub price: String,
    #[prost(string, tag = "5")]
    pub open: String,
    #[prost(string, tag = "6")]
    pub high: String,
    #[prost(string, tag = "7")]
    pub low: String,
    #[prost(string, tag = "8")]
    pub pre_close: String,
    #[prost(string, tag = "9")]
    pub volume: String,
    #[prost(string, tag = "10")]
    pub change: String,
    #[prost(string, tag = "11")]
    pub change_ratio: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TokenResponse {
    #[prost(string, tag = "1")]
    pub token: String,
}

/// The subscribe and the unsubscribe request alike.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribeRequest {
    /// The token of the MQTT connection to feed: its CONNECT's password.
    #[prost(string, tag = "1")]
    pub token: String,
    #[prost(string, repeated, tag = "2")]
    pub symbols: Vec<String>,
    #[prost(string, tag = "3")]
    pub category: String,
    /// QUOTE, SNAPSHOT, TICK.
    #[prost(string, repeated, tag = "4")]
    pub sub_types: Vec<String>,
    /// `"true"` or `"false"` (unsubscribe only).
    #[prost(string, tag = "5")]
    pub unsubscribe_all: String,
}

/// Empty: the client checks the code alone.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribeResponse {}

#[derive(Clone, PartialEq, prost::Message)]
pub struct QuoteRequest {
    #[prost(string, tag = "1")]
    pub symbol: String,
    #[prost(string, tag = "2")]
    pub category: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct QuoteResponse {
    #[prost(string, tag = "1")]
    pub symbol: String,
    #[prost(string, tag = "2")]
    pub instrument_id: String,
    /// Lowest first.
    #[prost(message, repeated, tag = "3")]
    pub asks: Vec<AskBid>,
    /// Highest first.
    #[prost(message, repeated, tag = "4")]
    pub bids: Vec<AskBid>,
}

/// A level of the book, and who shows it: the same messages as the feed's (`message.proto`
/// and `quote.proto` declare them alike; a package name does not reach the wire).
pub use crate::streaming::proto::{AskBid, Broker, Order};

#[derive(Clone, PartialEq, prost::Message)]
pub struct TickRequest {
    #[prost(string, tag = "1")]
    pub symbol: String,
    #[prost(string, tag = "2")]
    pub category: String,
    #[prost(string, tag = "3")]
    pub count: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TickResponse {
    #[prost(string, tag = "1")]
    pub symbol: String,
    #[prost(string, tag = "2")]
    pub instrument_id: String,
    /// Newest first.
    #[prost(message, repeated, tag = "3")]
    pub result: Vec<Tick>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Tick {
    #[prost(string, tag = "1")]
    pub time: String,
    #[prost(string, tag = "2")]
    pub price: String,
    #[prost(string, tag = "3")]
    pub volume: String,
    #[prost(string, tag = "4")]
    pub side: String,
}
