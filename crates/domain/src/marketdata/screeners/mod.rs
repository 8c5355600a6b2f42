//! What a screener asks the store: which instruments, ranked how, in which order; and the rows
//! it gets back.

use super::snapshot::Snapshot;

/// A period a change is measured over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Day1,
    Day5,
    Month1,
    Month3,
    Week52,
}

/// A figure to rank or order by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    ChangeRatio(Period),
    Volume,
    Turnover,
    TurnoverRate,
    Amplitude,
    RelativeVolume10d,
    MarketValue,
    PeTtm,
    Price,
    Close,
    High,
    Low,
    DividendYield,
    Dividend,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Asc,
    Desc,
}

/// Where the price stands in its 52-week range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Week52 {
    /// The day's high reached the 52-week high.
    NewHigh,
    /// Within 5% below the 52-week high, without reaching it.
    NearHigh,
    /// The day's low reached the 52-week low.
    NewLow,
    /// Within 5% above the 52-week low, without reaching it.
    NearLow,
}

/// How close "near" a 52-week high or low is.
pub const NEAR_52W: f64 = 0.05;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub sector: Option<String>,
    /// Only instruments that rose (`Desc`) or fell (`Asc`) over the period.
    pub moved: Option<(Period, Direction)>,
    pub dividend_payers: bool,
    pub week52: Option<Week52>,
    /// Only these instruments.
    pub ids: Option<Vec<i64>>,
}

/// Select the instruments that pass `filter`, keep the first `rank_limit` by `rank` (when set),
/// then order them by `order` and return `limit` from `offset`. Instruments whose figure is
/// unknown come last in either direction.
#[derive(Debug, Clone, PartialEq)]
pub struct ScreenQuery {
    pub filter: Filter,
    pub rank: Option<(Metric, Direction)>,
    pub rank_limit: u64,
    pub order: (Metric, Direction),
    pub offset: u64,
    pub limit: u64,
}

/// A sector's aggregate over its constituents that have a snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct SectorRow {
    pub name: String,
    pub constituents: u64,
    pub advanced: u64,
    pub declined: u64,
    pub flat: u64,
    pub volume: i64,
    pub market_value: f64,
    /// Market-value-weighted change over the period (equal-weighted where values are unknown).
    pub change_ratio: f64,
    /// The three largest constituents: id, symbol, name.
    pub leaders: Vec<(i64, String, String)>,
}

/// One instrument's stored figures, with what the answers need of the instrument.
#[derive(Debug, Clone)]
pub struct ScreenRow {
    pub instrument_id: i64,
    pub symbol: String,
    pub name: String,
    pub exchange: Option<String>,
    pub currency: String,
    pub snapshot: Snapshot,
}
