//! Fundamentals derived from SEC facts and signet's own record layout, and the figures that
//! compare companies ([`valuation`]).

pub mod earnings;
pub mod funds;
pub mod generate;
pub mod layout;
pub mod statements;
pub mod valuation;

/// An equity of an industry with what the industry comparison ranks on.
#[derive(Debug, Clone, PartialEq)]
pub struct Peer {
    pub instrument_id: i64,
    pub symbol: String,
    pub name: String,
    pub cik: Option<String>,
    pub eps_ttm_e6: Option<i64>,
    pub shares_outstanding: Option<i64>,
    pub price_e6: Option<i64>,
    pub pe_ttm: Option<f64>,
    pub dividend_e6: Option<i64>,
    pub dividend_yield: Option<f64>,
    pub day: Option<i32>,
    /// The company has SEC facts (and so book figures).
    pub has_facts: bool,
}
