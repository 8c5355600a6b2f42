//! The paper broker behind signet's three doors: what the HTTP handlers, the gRPC trade-events
//! service and the MQTT quotes feed share. It depends on no HTTP, gRPC or MQTT crate, so that no
//! door's type can reach it; each door maps its [`CoreError`] to its own answer.
//!
//! - [`accounts`]: whose an account is, and what the buying-power check weighs of it.
//! - [`simulator`]: the market, a pure function of (day plan, seed, second), with its clock.
//! - [`engine`]: the paper-trading engine that fills open orders ([`engine::book`]) on the
//!   simulator's ticks.
//! - [`claims`]: what each account's open orders hold back, kept between placements.
//! - [`turns`]: each account's turns to raise its claims, so that concurrent placements are
//!   checked one after another.
//! - [`orders`]: an order's whole life at its holder's request: priced, previewed, placed,
//!   found, replaced, cancelled.
//! - [`placements`]: new orders, checked and stored in their account's turn.
//! - [`hub`]: this node's order events, fanned out to the trade-events subscriptions.
//! - [`options`]: listed option contracts and their market, priced off the simulator.
//! - [`quotes`]: the simulator's quotes and trades in the wire's shapes, for HTTP and MQTT alike.
//! - [`ratelimit`]: the per-app and per-address rate limits, on this node or shared in Redis.
//! - [`scenarios`]: the rules that make unhappy paths happen on purpose, shared through the store.
//! - [`checkpoints`]: known states saved and restored while the server runs.

pub mod accounts;
pub mod checkpoints;
pub mod claims;
pub mod engine;
pub mod error;
pub mod hub;
pub mod ledger;
pub mod options;
pub mod orders;
pub mod placements;
pub mod quotes;
pub mod ratelimit;
pub mod scenarios;
pub mod simulator;
pub mod turns;

pub use error::CoreError;
