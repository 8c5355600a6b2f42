//! What a screener asks the store: which instruments, ranked how, in which order; the rows it
//! gets back; and the rules the answers share (the base a change is measured from, the sectors'
//! order and ids). The intraday rankings, over the simulator's prices, are in [`intraday`].

pub mod intraday;

use signet_model::screeners::AggType;

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

/// The closing price `period` ago, adjusted for splits since.
pub fn base_close(s: &Snapshot, period: Period) -> Option<i64> {
    match period {
        Period::Day1 => Some(s.pre_close),
        Period::Day5 => s.close_5d,
        Period::Month1 => s.close_1m,
        Period::Month3 => s.close_3m,
        Period::Week52 => s.close_52w,
    }
}

/// Orders sectors by their aggregate `by` in `direction`; sectors that tie, by name (the reverse
/// of `direction` so that a reversed list reads the same).
pub fn order_sectors(sectors: &mut [SectorRow], by: AggType, direction: Direction) {
    let key = |s: &SectorRow| match by {
        AggType::MarketValue => s.market_value,
        AggType::Volume => s.volume as f64,
    };
    sectors.sort_by(|a, b| {
        let order = key(a).total_cmp(&key(b)).then_with(|| b.name.cmp(&a.name));
        if direction == Direction::Desc {
            order.reverse()
        } else {
            order
        }
    });
}

/// The sector ids clients pass back: GICS codes for the GICS sectors, a slug for any other name.
pub fn sector_id(name: &str) -> String {
    let gics = match name {
        "Energy" => "10",
        "Materials" => "15",
        "Industrials" => "20",
        "Consumer Discretionary" => "25",
        "Consumer Staples" => "30",
        "Health Care" => "35",
        "Financials" => "40",
        "Information Technology" => "45",
        "Communication Services" => "50",
        "Utilities" => "55",
        "Real Estate" => "60",
        other => {
            return other
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect();
        }
    };
    gics.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sector(name: &str, volume: i64, market_value: f64) -> SectorRow {
        SectorRow {
            name: name.into(),
            constituents: 1,
            advanced: 0,
            declined: 0,
            flat: 1,
            volume,
            market_value,
            change_ratio: 0.0,
            leaders: Vec::new(),
        }
    }

    #[test]
    fn sector_ids() {
        assert_eq!(sector_id("Information Technology"), "45");
        assert_eq!(sector_id("Exchange Traded Funds"), "exchange-traded-funds");
    }

    #[test]
    fn changes_are_measured_from_the_close_of_the_period_ago() {
        let s = Snapshot {
            pre_close: 10,
            close_5d: Some(9),
            ..Snapshot::default()
        };
        assert_eq!(base_close(&s, Period::Day1), Some(10));
        assert_eq!(base_close(&s, Period::Day5), Some(9));
        assert_eq!(base_close(&s, Period::Week52), None);
    }

    #[test]
    fn sectors_order_by_their_aggregate_and_ties_by_name() {
        let mut sectors = vec![sector("B", 5, 1.0), sector("A", 5, 3.0), sector("C", 9, 2.0)];
        let names = |s: &[SectorRow]| s.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        order_sectors(&mut sectors, AggType::MarketValue, Direction::Desc);
        assert_eq!(names(&sectors), ["A", "C", "B"]);
        order_sectors(&mut sectors, AggType::Volume, Direction::Desc);
        assert_eq!(names(&sectors), ["C", "A", "B"]);
        order_sectors(&mut sectors, AggType::Volume, Direction::Asc);
        assert_eq!(names(&sectors), ["B", "A", "C"]);
    }
}
