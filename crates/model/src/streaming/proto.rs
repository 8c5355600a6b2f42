//! The messages of the feed (`message.proto` of the official client, catalog §13.4: proto3, no
//! package, every scalar a string), written by hand with prost's derive: no build script or
//! `protoc`. Only the stock messages; the event-contract ones are out of scope.

#[derive(Clone, PartialEq, prost::Message)]
pub struct Basic {
    #[prost(string, tag = "1")]
    pub symbol: String,
    #[prost(string, tag = "2")]
    pub instrument_id: String,
    /// Epoch milliseconds, digits only: the client `int()`s it and drops the connection if it
    /// cannot.
    #[prost(string, tag = "3")]
    pub timestamp: String,
    #[prost(string, tag = "4")]
    pub trading_session: String,
}

/// Topic `snapshot`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Snapshot {
    #[prost(message, optional, tag = "1")]
    pub basic: Option<Basic>,
    #[prost(string, tag = "2")]
    pub trade_time: String,
    #[prost(string, tag = "3")]
    pub price: String,
    #[prost(string, tag = "4")]
    pub open: String,
    #[prost(string, tag = "5")]
    pub high: String,
    #[prost(string, tag = "6")]
    pub low: String,
    #[prost(string, tag = "7")]
    pub pre_close: String,
    #[prost(string, tag = "8")]
    pub volume: String,
    #[prost(string, tag = "9")]
    pub change: String,
    #[prost(string, tag = "10")]
    pub change_ratio: String,
    #[prost(string, tag = "11")]
    pub ext_trade_time: String,
    #[prost(string, tag = "12")]
    pub ext_price: String,
    #[prost(string, tag = "13")]
    pub ext_high: String,
    #[prost(string, tag = "14")]
    pub ext_low: String,
    #[prost(string, tag = "15")]
    pub ext_volume: String,
    #[prost(string, tag = "16")]
    pub ext_change: String,
    #[prost(string, tag = "17")]
    pub ext_change_ratio: String,
    #[prost(string, tag = "18")]
    pub ovn_trade_time: String,
    #[prost(string, tag = "19")]
    pub ovn_price: String,
    #[prost(string, tag = "20")]
    pub ovn_high: String,
    #[prost(string, tag = "21")]
    pub ovn_low: String,
    #[prost(string, tag = "22")]
    pub ovn_volume: String,
    #[prost(string, tag = "23")]
    pub ovn_change: String,
    #[prost(string, tag = "24")]
    pub ovn_change_ratio: String,
}

/// Topic `quote`: the book.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Quote {
    #[prost(message, optional, tag = "1")]
    pub basic: Option<Basic>,
    #[prost(message, repeated, tag = "2")]
    pub asks: Vec<AskBid>,
    #[prost(message, repeated, tag = "3")]
    pub bids: Vec<AskBid>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct AskBid {
    #[prost(string, tag = "1")]
    pub price: String,
    #[prost(string, tag = "2")]
    pub size: String,
    #[prost(message, repeated, tag = "3")]
    pub order: Vec<Order>,
    #[prost(message, repeated, tag = "4")]
    pub broker: Vec<Broker>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Order {
    #[prost(string, tag = "1")]
    pub mpid: String,
    #[prost(string, tag = "2")]
    pub size: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Broker {
    #[prost(string, tag = "1")]
    pub bid: String,
    #[prost(string, tag = "2")]
    pub name: String,
}

/// Topic `tick`: one trade.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Tick {
    #[prost(message, optional, tag = "1")]
    pub basic: Option<Basic>,
    #[prost(string, tag = "2")]
    pub time: String,
    #[prost(string, tag = "3")]
    pub price: String,
    #[prost(string, tag = "4")]
    pub volume: String,
    #[prost(string, tag = "5")]
    pub side: String,
}
