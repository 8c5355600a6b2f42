//! US equity options (Webull's published option-contract and option market-data reference):
//! the listed contracts, and each contract's snapshot, ticks and bars. Prices, sizes and greeks
//! are decimal strings, as the official client reads them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `GET /trading/instruments/options/contracts/list`: a page of contracts, and the key of the
/// next page when there is one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OptionContractPage {
    pub data: Vec<OptionContract>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pagination_key: Option<String>,
}

/// One listed contract: what does not change while it is listed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OptionContract {
    /// The contract's id: made of its underlying, expiry, strike and right, so it sorts as
    /// the chain reads.
    pub instrument_id: String,
    /// The OCC symbol, the root unpadded: `AAPL130419C00450000`.
    #[schema(example = "AAPL130419C00450000")]
    pub symbol: String,
    /// `LISTING`.
    pub status: String,
    /// `OC`: tradable.
    pub tradable_status: String,
    /// `yyyy-MM-dd`: the last trading day.
    pub expiration_date: String,
    pub root_symbol: String,
    pub underlying_symbol: String,
    pub underlying_instrument_id: String,
    /// `EQUITY_CALL_OPTION`, `EQUITY_PUT_OPTION`, `ETF_CALL_OPTION` or `ETF_PUT_OPTION`.
    pub underlying_type: String,
    /// `CALL` or `PUT`.
    pub option_type: String,
    /// `AMERICAN`.
    pub style: String,
    pub strike_price: String,
    /// `100`.
    pub multiplier: String,
    /// `PHYSICAL`.
    pub settlement_method: String,
    /// `WEEKLY` or `MONTHLY` (a month's third Friday, LEAPS included).
    pub expired_cycle: String,
    /// In the penny program: quoted in cents below $3.
    pub ppind: bool,
    pub currency: String,
    /// `STANDARD`.
    pub def_type: String,
    pub listed_exchanges: Vec<String>,
    /// With `show_deliverables=true`: 100 shares of the underlying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deliverables: Option<Vec<Deliverable>>,
}

/// What exercising one contract delivers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Deliverable {
    /// `EQUITY`.
    pub asset_type: String,
    pub symbol: String,
    pub instrument_id: String,
    /// Shares: `100`.
    pub amount: String,
    pub allocation_percentage: String,
    /// `T_1`.
    pub settlement_type: String,
    pub settlement_method: String,
    /// `REGULAR`.
    pub settlement_status: String,
}

/// `GET /market-data/options/snapshots/list`: one contract now. The day's fields (`open`,
/// `high`, `low`, `change`, `change_ratio`, `last_trade_time`) are absent before its first
/// trade of the day.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OptionSnapshot {
    pub instrument_id: String,
    pub symbol: String,
    /// The last trade's price; the previous close before the day's first trade.
    pub price: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<String>,
    /// Its value at the previous trading day's close.
    pub pre_close: String,
    /// Contracts traded today.
    pub volume: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_ratio: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_trade_time: Option<i64>,
    pub close: String,
    pub strike_price: String,
    pub delta: String,
    pub gamma: String,
    /// Per calendar day.
    pub theta: String,
    /// Per volatility point.
    pub vega: String,
    /// Per rate point.
    pub rho: String,
    /// The volatility the contract is valued at, as a fraction (`0.3125` is 31.25 %).
    pub imp_vol: String,
    pub open_interest: String,
    /// The simulated time of the quote, epoch milliseconds.
    pub quote_time: i64,
    pub bid: String,
    pub ask: String,
    pub bid_size: String,
    pub ask_size: String,
    /// Premium traded today: price × contracts × 100.
    pub deal_amount: String,
}

/// `GET /market-data/options/ticks/list`: a contract's trades of the day so far, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OptionTicks {
    pub symbol: String,
    pub instrument_id: String,
    pub result: Vec<OptionTick>,
}

/// One trade of a contract.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OptionTick {
    /// Simulated time, epoch milliseconds as a string.
    pub time: String,
    pub price: String,
    /// Contracts.
    pub volume: String,
    /// `B` above the trade before, `S` below it, `N` at the same price.
    pub side: String,
}

/// `GET /market-data/options/bars/list`: each contract's bars, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OptionBars {
    pub result: Vec<OptionSymbolBars>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OptionSymbolBars {
    pub symbol: String,
    pub instrument_id: String,
    pub result: Vec<OptionBar>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OptionBar {
    /// The bar's start, UTC: `2013-03-04T14:30:00.000+0000`.
    pub time: String,
    pub open: String,
    pub close: String,
    pub high: String,
    pub low: String,
    pub volume: String,
}
