//! Stock market data from the simulator (catalog §11): snapshots and depth of book. Prices and
//! sizes are decimal strings, as the official client reads them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `GET /market-data/stocks/snapshots/list`: one instrument now. The day's fields (`open`,
/// `high`, `low`, `volume`, `change`, `change_ratio`) are absent when nothing traded that day;
/// the extended-hours and overnight fields only when asked for and that session is on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Snapshot {
    pub symbol: String,
    pub instrument_id: String,
    /// The last price: what a market order would be compared with now.
    pub price: String,
    pub pre_close: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_ratio: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<String>,
    /// The last price too (the day's close once the day is over).
    pub close: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<String>,
    /// The best bid and ask: the prices a sell and a buy would fill at, for up to these sizes.
    pub bid: String,
    pub bid_size: String,
    pub ask: String,
    pub ask_size: String,
    /// Simulated time of the quote, epoch milliseconds.
    pub last_trade_time: i64,
    /// PRE_MARKET, CORE, AFTER_HOURS, OVERNIGHT or CLOSED (signet's addition).
    pub trading_session: String,
    /// With `extend_hour_required=true` in the pre-market or after hours: the price now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extend_hour_last_price: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extend_hour_high: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extend_hour_low: Option<String>,
    /// Shares printed in the extended session under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extend_hour_volume: Option<String>,
    /// From the last close: the previous day's in the pre-market, the day's in the after hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extend_hour_change: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extend_hour_change_ratio: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extend_hour_last_trade_time: Option<i64>,
    /// With `overnight_required=true` in the overnight session: the price and quote now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_price: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_high: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_low: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_volume: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_change: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_change_ratio: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_bid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_bid_size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_ask: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_ask_size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ovn_last_trade_time: Option<i64>,
}

/// `GET /market-data/stocks/depths/list`: the book around the simulator's quote.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Depth {
    pub symbol: String,
    pub instrument_id: String,
    /// Simulated time, epoch milliseconds as a string.
    pub quote_time: String,
    pub trading_session: String,
    /// Lowest first; the first is the quote's ask.
    pub asks: Vec<DepthLevel>,
    /// Highest first; the first is the quote's bid.
    pub bids: Vec<DepthLevel>,
}

/// One price level of the book.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DepthLevel {
    pub price: String,
    pub size: String,
    /// Who shows the size: one market maker, `SIGNET`, the simulator.
    pub order: Vec<DepthOrder>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DepthOrder {
    pub mpid: String,
    pub size: String,
}

/// `GET /market-data/stocks/ticks/list`: the simulator's trades of the day, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Ticks {
    pub symbol: String,
    pub instrument_id: String,
    pub result: Vec<Tick>,
}

/// One second's trading: its last price and the shares traded in it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Tick {
    /// Simulated time, epoch milliseconds as a string.
    pub time: String,
    pub price: String,
    pub volume: String,
    /// `B` above the second before (buyers lifting), `S` below it, `N` unchanged.
    pub side: String,
    /// The session of the print: `PRE`, `RTH`, `ATH` or `OVN`.
    pub trading_session: String,
}

/// `POST /market-data/stocks/bars/list`. `count` arrives as a string (`"200"`, the official
/// client's default) or a number; both are taken.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"symbols": ["AAPL", "MSFT"], "category": "US_STOCK", "timespan": "D", "count": "5"}))]
pub struct BarsRequest {
    pub symbols: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// S5, S15, M1, M5, M15, M30, M60, M120, M240, D, W, M (a month) or Y.
    pub timespan: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "200")]
    pub count: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_time_required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trading_sessions: Option<String>,
    /// Epoch milliseconds (UTC): the first bar starts on or after this time (a daily bar: on or
    /// after this one's day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<i64>,
    /// Epoch milliseconds (UTC): the last bar starts on or before this time (a daily bar: on or
    /// before this one's day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<i64>,
}

/// The bars of each symbol asked for, in the order asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BarsResponse {
    pub result: Vec<SymbolBars>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SymbolBars {
    pub symbol: String,
    pub instrument_id: String,
    /// Newest first.
    pub result: Vec<BarRow>,
}

/// One bar; prices and volume are decimal strings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BarRow {
    /// When the bar starts, UTC: `yyyy-MM-ddTHH:mm:ss.SSS+0000`; a bar of days at midnight of
    /// its first trading day.
    pub time: String,
    pub open: String,
    pub close: String,
    pub high: String,
    pub low: String,
    pub volume: String,
    /// The session an intraday bar starts in: `PRE`, `RTH`, `ATH` or `OVN`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trading_session: Option<String>,
}

/// `GET /market-data/stocks/footprints/list`: one symbol's footprint bars, newest first (the
/// response is an array of these, one per symbol asked).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SymbolFootprints {
    pub symbol: String,
    pub instrument_id: String,
    pub result: Vec<FootprintRow>,
}

/// The shares traded in one bar, split by whether each trade was bought (its price above the
/// trade before, or level after a rise) or sold into, and by price.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FootprintRow {
    /// When the bar starts, UTC: `yyyy-MM-ddTHH:mm:ss.SSS+0000`.
    pub time: String,
    pub trading_session: String,
    /// `buy_total` plus `sell_total`.
    pub total: String,
    /// `buy_total` less `sell_total`.
    pub delta: String,
    pub buy_total: String,
    pub sell_total: String,
    /// Shares bought at each price (`{"24.20": "100"}`).
    pub buy_detail: std::collections::BTreeMap<String, String>,
    pub sell_detail: std::collections::BTreeMap<String, String>,
}

/// An element of `GET /market-data/eod-bars`: one instrument's last daily bars, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct EodBars {
    pub instrument_id: String,
    pub symbol: String,
    pub bars: Vec<EodBar>,
}

/// A trading day's bar: prices in dollars, as decimal strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct EodBar {
    /// The New York trading day, yyyy-MM-dd.
    pub time: String,
    pub open: String,
    pub high: String,
    pub low: String,
    pub close: String,
    pub volume: String,
}

/// An element of `GET /instrument/corp-action`: a split or a dividend of an instrument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CorpAction {
    pub instrument_id: String,
    pub symbol: String,
    /// `SPLIT`, `REVERSE_SPLIT` or `DIVIDEND`.
    pub event_type: String,
    /// The ex-date, yyyy-MM-dd.
    pub ex_date: String,
    /// Splits: shares after per share before (`2` for 2:1, `0.1` for 1:10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<String>,
    /// Dividends: cash per share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
    /// `DERIVED` (from the ratio of adjusted to unadjusted closes) or `GENERATED` (the demo's).
    pub source: String,
}
