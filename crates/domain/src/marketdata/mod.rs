//! Market data: instruments, daily bars, corporate actions and SEC facts; the figures derived
//! from them ([`snapshot`]), the screeners' queries over those figures ([`screeners`]), and
//! fundamentals ([`fundamentals`]).

pub mod actions;
pub mod bars;
pub mod fundamentals;
pub mod import;
pub mod rng;
pub mod screeners;
pub mod snapshot;
pub mod units;

use rust_decimal::Decimal;

/// Equity or exchange-traded fund.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InstrumentType {
    Equity,
    Etf,
}

impl InstrumentType {
    pub const fn as_str(self) -> &'static str {
        match self {
            InstrumentType::Equity => "EQUITY",
            InstrumentType::Etf => "ETF",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "EQUITY" => Some(InstrumentType::Equity),
            "ETF" => Some(InstrumentType::Etf),
            _ => None,
        }
    }
}

/// An instrument as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instrument {
    pub instrument_id: i64,
    pub symbol: String,
    pub name: String,
    pub exchange: Option<String>,
    pub cik: Option<String>,
    pub sector: Option<String>,
    pub industry: Option<String>,
    pub instrument_type: InstrumentType,
    pub currency: String,
    pub shares_outstanding: Option<i64>,
    /// Trailing twelve-month EPS in millionths: from the SEC facts when imported, generated for
    /// the demo otherwise.
    pub eps_ttm_e6: Option<i64>,
    pub indices: Option<String>,
}

/// What an import knows of an instrument; `None` leaves a stored value as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstrumentUpdate {
    pub symbol: String,
    pub name: Option<String>,
    pub exchange: Option<String>,
    pub cik: Option<String>,
    pub sector: Option<String>,
    pub industry: Option<String>,
    pub instrument_type: Option<InstrumentType>,
    pub indices: Option<String>,
    pub shares_outstanding: Option<i64>,
    /// Trailing twelve-month EPS in millionths (generated for the demo where no facts give it).
    pub eps_ttm_e6: Option<i64>,
}

/// One day of one instrument; prices in millionths (see [`units`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bar {
    pub day: i32,
    pub open: i64,
    pub high: i64,
    pub low: i64,
    pub close: i64,
    pub volume: i64,
    pub adj_close: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolBar {
    pub symbol: String,
    pub bar: Bar,
}

/// One imported minute of a day's core session; prices in millionths to the cent, as quoted.
/// A day with imported minutes is replayed minute by minute (`simulator::daypath`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinuteBar {
    /// Minutes after the core session's open: 0 is 09:30 New York, 389 is 15:59 (209 on an
    /// early-close day).
    pub minute: u16,
    pub open: i64,
    pub high: i64,
    pub low: i64,
    pub close: i64,
    pub volume: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolMinute {
    pub symbol: String,
    /// The New York day.
    pub day: i32,
    pub bar: MinuteBar,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// Shares after per share before: 2 for a 2:1 split, 0.1 for a 1:10 reverse split.
    Split,
    /// Cash per share, paid to holders before the ex-date `day`.
    Dividend,
}

impl ActionKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ActionKind::Split => "SPLIT",
            ActionKind::Dividend => "DIVIDEND",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "SPLIT" => Some(ActionKind::Split),
            "DIVIDEND" => Some(ActionKind::Dividend),
            _ => None,
        }
    }
}

/// Where a corporate action comes from: no public layout reports them, so they are either read
/// off a price history or made up for the demo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionSource {
    /// From the ratio of adjusted to unadjusted close (split ratios exact, dividends approximate).
    Derived,
    /// Generated for the demo.
    Generated,
}

impl ActionSource {
    pub const fn as_str(self) -> &'static str {
        match self {
            ActionSource::Derived => "DERIVED",
            ActionSource::Generated => "GENERATED",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "DERIVED" => Some(ActionSource::Derived),
            "GENERATED" => Some(ActionSource::Generated),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorporateAction {
    pub day: i32,
    pub kind: ActionKind,
    pub value: Decimal,
    pub source: ActionSource,
}

/// A fact of an SEC companyfacts file, as reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub cik: String,
    pub taxonomy: String,
    pub concept: String,
    pub unit: String,
    /// Empty for a fact at an instant.
    pub start: String,
    pub end: String,
    pub accn: String,
    pub value: Decimal,
    pub fy: Option<i32>,
    pub fp: Option<String>,
    pub form: String,
    pub filed: String,
    pub frame: Option<String>,
}
