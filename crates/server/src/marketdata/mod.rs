//! The market-data area over HTTP: screeners, watchlists, fundamentals, stock quotes, options and
//! the quotes feed's subscribe calls (the earlier SDK generation's paths are in
//! `crate::generations`). The import of market data and the demo dataset are the
//! `signet-import` crate's.

pub mod bar_rows;
pub mod end_of_day;
pub mod fundamentals;
pub mod options;
pub mod rendered_chains;
pub mod screeners;
pub mod stocks;
pub mod streaming;
pub mod watchlists;
