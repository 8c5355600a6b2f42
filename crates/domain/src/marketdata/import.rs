//! What an import hands to the store: chunks of parsed rows, in file order, then a commit.

use super::fundamentals::layout::SymbolRecord;
use super::{CorporateAction, Fact, InstrumentUpdate, SymbolBar, SymbolMinute};

/// What a parser hands to the store, in file order.
#[derive(Debug, Clone)]
pub enum Chunk {
    Instruments(Vec<InstrumentUpdate>),
    /// Bars, imported or (for the demo) generated.
    Bars {
        bars: Vec<SymbolBar>,
        generated: bool,
    },
    /// Imported minutes of days' core sessions. A file of minutes also sends, after them, the
    /// daily bars rolled up from them (as `Bars`), so that a day's bar and its minutes agree.
    Minutes(Vec<SymbolMinute>),
    /// Corporate actions reported by a source or generated (derived ones come from the bars).
    Actions(Vec<(String, CorporateAction)>),
    Facts(Vec<Fact>),
    /// Records of signet's fundamentals layout, imported or generated.
    Records(Vec<SymbolRecord>),
    /// What a company's facts say of the figures the screeners use: its latest count of shares
    /// outstanding, and its trailing EPS (`None` leaves a stored value as it is).
    Reported {
        cik: String,
        shares_outstanding: Option<i64>,
        eps_ttm_e6: Option<i64>,
    },
}

impl Chunk {
    /// How many rows the chunk holds (a company's reported figures count as one).
    pub fn rows(&self) -> usize {
        match self {
            Chunk::Instruments(v) => v.len(),
            Chunk::Bars { bars, .. } => bars.len(),
            Chunk::Minutes(v) => v.len(),
            Chunk::Actions(v) => v.len(),
            Chunk::Facts(v) => v.len(),
            Chunk::Records(v) => v.len(),
            Chunk::Reported { .. } => 1,
        }
    }
}

/// The stream a store applies in one transaction; it commits only on `Commit`, so a stream that
/// ends without it (the parser failed) changes nothing.
#[derive(Debug)]
pub enum ImportMessage {
    Chunk(Chunk),
    Commit,
}

/// How many stored rows an import changed (inserted or updated; equal rows are not counted).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportCounts {
    pub instruments: u64,
    pub bars: u64,
    pub minutes: u64,
    pub actions: u64,
    pub facts: u64,
    pub records: u64,
}

#[cfg(test)]
mod tests {
    use super::Chunk;
    use crate::marketdata::{MinuteBar, SymbolMinute};

    #[test]
    fn rows_counts_what_a_chunk_holds() {
        assert_eq!(Chunk::Facts(Vec::new()).rows(), 0);
        assert_eq!(Chunk::Instruments(vec![Default::default(); 3]).rows(), 3);
        let reported = Chunk::Reported {
            cik: "0000320193".into(),
            shares_outstanding: None,
            eps_ttm_e6: Some(1),
        };
        assert_eq!(reported.rows(), 1);
        let minute = SymbolMinute {
            symbol: "AAPL".into(),
            day: 19_724,
            bar: MinuteBar {
                minute: 0,
                open: 185_000_000,
                high: 185_500_000,
                low: 184_900_000,
                close: 185_100_000,
                volume: 1_000,
            },
        };
        assert_eq!(Chunk::Minutes(vec![minute; 2]).rows(), 2);
    }
}
