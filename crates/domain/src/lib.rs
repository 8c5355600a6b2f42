//! signet's rules, free of I/O: what an order may do and what a fill does to an account
//! ([`trading`]), the simulated market's clock and the paths its prices follow ([`simulator`]),
//! the market-data figures, screener rankings and fundamentals derived from stored history
//! ([`marketdata`]), and the interface's rate limits ([`ratelimit`]).
//!
//! Nothing here reads a database, a socket or a file: the store loads what a rule needs, calls
//! it, and saves its effect; the server maps a [`Rejection`] to its HTTP answer.

pub mod checkpoint;
pub mod marketdata;
pub mod options;
pub mod ratelimit;
mod rejection;
pub mod scenarios;
pub mod simulator;
pub mod times;
pub mod trading;

pub use rejection::Rejection;
