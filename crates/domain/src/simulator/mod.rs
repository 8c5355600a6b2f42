//! The simulated market's rules: its clock and sessions ([`clock`]), the path an instrument's
//! price follows through a day ([`path`]), and what it quotes.

pub mod clock;
pub mod path;

use rust_decimal::Decimal;

use self::clock::Session;

/// A quote, in dollars.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    pub instrument_id: i64,
    pub symbol: String,
    pub time_ms: i64,
    pub session: Session,
    pub last: Decimal,
    pub bid: Decimal,
    pub ask: Decimal,
    pub bid_size: u64,
    pub ask_size: u64,
    pub open: Decimal,
    pub high: Decimal,
    pub low: Decimal,
    pub pre_close: Decimal,
    pub volume: u64,
    pub pinned: bool,
}

#[cfg(test)]
impl Quote {
    /// A core-session quote of instrument 1 a cent either side of `last`, `size` shares each side.
    pub fn sample(last: Decimal, size: u64) -> Quote {
        Quote {
            instrument_id: 1,
            symbol: "X".into(),
            time_ms: 0,
            session: Session::Core,
            last,
            bid: last - Decimal::new(1, 2),
            ask: last + Decimal::new(1, 2),
            bid_size: size,
            ask_size: size,
            open: last,
            high: last,
            low: last,
            pre_close: last,
            volume: 0,
            pinned: true,
        }
    }
}

/// An instrument the simulator quotes.
#[derive(Debug, Clone)]
pub struct Listing {
    pub instrument_id: i64,
    pub symbol: String,
    /// Daily volatility used for drawn days.
    pub vol: f64,
    /// Typical daily volume, for drawn days and quote sizes.
    pub volume: f64,
}

impl Listing {
    /// A listing from the instrument's last snapshot, where it has one: its day's range
    /// (amplitude) is about twice its daily standard deviation.
    pub fn from_snapshot(instrument_id: i64, symbol: String, amplitude: Option<f64>, volume: Option<i64>) -> Self {
        Listing {
            instrument_id,
            symbol,
            vol: amplitude.map_or(0.02, |a| (a / 2.0).clamp(0.005, 0.08)),
            volume: volume.map_or(100_000.0, |v| (v as f64).max(1_000.0)),
        }
    }
}
