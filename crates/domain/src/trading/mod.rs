//! Orders: parsing a request into a specification, whether the account can take it, when it
//! expires, the state machine, combinations, what a replacement may change, matching against a
//! quote, what a fill does to cash and positions, and what a split or dividend does to them.

pub mod accounting;
pub mod bounds;
pub mod buying_power;
pub mod claims;
pub mod combo;
pub mod corporate;
pub mod events;
pub mod expiry;
pub mod fill_plan;
pub mod ledger;
pub mod matching;
pub mod multi_leg;
pub mod order;
pub mod order_parts;
pub mod placement;
#[cfg(test)]
mod properties;
pub mod replace;
pub mod spec;
pub mod valuation;
