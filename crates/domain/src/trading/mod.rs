//! Orders: parsing a request into a specification, the state machine, combinations, matching
//! against a quote, and what a fill does to cash and positions.

pub mod accounting;
pub mod combo;
pub mod matching;
pub mod order;
#[cfg(test)]
mod properties;
pub mod spec;
