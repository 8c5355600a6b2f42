//! The market-data area over HTTP: screeners, watchlists and fundamentals; and the import of
//! market data and the demo dataset.

pub mod bar_rows;
pub mod demo;
pub mod fundamentals;
pub mod import;
pub mod screeners;
pub mod stocks;
pub mod streaming;
pub mod watchlists;
