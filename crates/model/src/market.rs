//! The simulator's control surface (`/admin/market/...`, apps created with `--admin`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A quote of the market simulator. Prices are decimal strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MarketQuote {
    pub symbol: String,
    pub instrument_id: String,
    /// Simulated time, `yyyy-MM-ddTHH:mm:ss.SSSZ`.
    pub time: String,
    /// PRE_MARKET, CORE, AFTER_HOURS or CLOSED.
    pub session: String,
    pub last: String,
    pub bid: String,
    pub ask: String,
    pub bid_size: u64,
    pub ask_size: u64,
    pub open: String,
    pub high: String,
    pub low: String,
    pub pre_close: String,
    pub volume: u64,
    /// Set by hand (`signet market set`) rather than simulated.
    pub pinned: bool,
}

/// `POST /admin/market/set`: pin a quote, or release it (`release: true`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SetQuoteRequest {
    pub symbol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default)]
    pub release: bool,
}

/// `POST /admin/market/step`: move the simulated clock forward (not a real-time clock).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StepRequest {
    pub seconds: u64,
}

/// `GET /admin/market/clock` and the answer to a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MarketClock {
    pub time: String,
    /// The New York calendar day, `yyyy-MM-dd`.
    pub date: String,
    pub session: String,
    /// REAL, RUNNING or MANUAL.
    pub mode: String,
}

/// `GET /admin/market/stats`: how the simulated market behaved on a day, beside what real
/// US large-cap minute data shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MarketStats {
    pub symbol: String,
    /// The New York calendar day, `yyyy-MM-dd`.
    pub date: String,
    /// One-minute bars the figures are made of (today: the minutes so far).
    pub minutes: usize,
    pub figures: Vec<MarketFigure>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MarketFigure {
    pub name: String,
    /// The day's figure (none when the day has too few minutes for it).
    pub value: Option<f64>,
    /// The range real minute data shows (see the simulator's documentation for the sources).
    pub real_low: f64,
    pub real_high: f64,
    /// The figure lies within that range.
    pub within: bool,
}
