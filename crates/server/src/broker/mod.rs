//! The paper broker behind the three doors: what HTTP handlers, the gRPC trade-events service
//! and the MQTT quotes feed share, with no type of any of them.
//!
//! - [`accounts`]: whose an account is, and what the buying-power check weighs of it.
//! - [`simulator`]: the market, a pure function of (day plan, seed, second), with its clock.
//! - [`engine`]: the paper-trading engine that fills open orders ([`engine::book`]) on the
//!   simulator's ticks.
//! - [`claims`]: what each account's open orders hold back, kept between placements.
//! - [`turns`]: each account's turns to raise its claims, so that concurrent placements are
//!   checked one after another.
//! - [`placements`]: new orders, checked and stored in their account's turn.
//! - [`hub`]: this node's order events, fanned out to the trade-events subscriptions.
//! - [`quotes`]: the simulator's quotes and trades in the wire's shapes, for HTTP and MQTT alike.

pub mod accounts;
pub mod claims;
pub mod engine;
pub mod hub;
pub mod placements;
pub mod quotes;
pub mod simulator;
pub mod turns;
