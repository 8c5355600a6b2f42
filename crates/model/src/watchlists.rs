//! Watchlists (catalog section 5). Times are `yyyy-MM-ddTHH:mm:ss.SSSZ`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The largest `sort` (and, negated, the smallest) a watchlist or an instrument in one takes:
/// the largest integer every JSON client reads exactly (JavaScript's `Number.MAX_SAFE_INTEGER`),
/// far enough below `i64::MAX` that "at the top" (the highest `sort` plus one) always fits.
pub const MAX_SORT: i64 = (1 << 53) - 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Watchlist {
    pub watchlist_id: String,
    pub name: String,
    pub sort: i64,
    pub create_time: String,
    pub update_time: String,
}

/// `POST /market-data/watchlists/create`. `name` is required (the official client sends `null`
/// when it has none, which is refused); `sort` defaults to the top of the list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CreateWatchlist {
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = -9_007_199_254_740_991_i64, maximum = 9_007_199_254_740_991_i64)]
    pub sort: Option<i64>,
}

/// `POST /market-data/watchlists/update`: only the fields given change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct UpdateWatchlist {
    pub watchlist_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = -9_007_199_254_740_991_i64, maximum = 9_007_199_254_740_991_i64)]
    pub sort: Option<i64>,
}

/// `POST /market-data/watchlists/delete`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WatchlistId {
    pub watchlist_id: String,
}

/// An instrument named in an add, remove or sort request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct InstrumentRef {
    pub symbol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = -9_007_199_254_740_991_i64, maximum = 9_007_199_254_740_991_i64)]
    pub sort: Option<i64>,
}

/// `POST /market-data/watchlists/instruments/add|remove|update`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"watchlist_id": "WATCHLIST_ID", "instruments": [{"symbol": "AAPL", "category": "US_STOCK", "sort": 1}]}))]
pub struct WatchlistInstrumentsChange {
    pub watchlist_id: String,
    #[schema(min_items = 1, max_items = 1000)]
    pub instruments: Vec<InstrumentRef>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WatchlistInstrument {
    pub instrument_id: String,
    pub symbol: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub exchange_code: Option<String>,
    pub category: String,
    pub sort: i64,
    pub added_time: String,
}

/// `GET /market-data/watchlists/instruments/list`, and the answer to every instrument change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WatchlistInstruments {
    pub watchlist_id: String,
    pub instruments: Vec<WatchlistInstrument>,
}

/// The answer to a delete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WatchlistDeleted {
    pub watchlist_id: String,
    pub deleted: bool,
}
