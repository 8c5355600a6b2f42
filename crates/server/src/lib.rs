//! The signet server as a library: the binary (`signet serve`) and the integration tests start
//! it the same way.
//!
//! One core and three doors. The core is the paper broker (the crate `signet_core`: the market
//! simulator, the engine, the claims cache, account turns and placements, the event hub, the
//! rate limits), which depends on no crate of any protocol. The doors share it through [`state::AppState`]: HTTP ([`router`], the
//! authentication layer [`auth`], one module per area: [`trading`], [`tokens`], [`marketdata`],
//! [`admin_api`]; every earlier client generation in [`generations`]), gRPC ([`events`], the trade events) and MQTT ([`streaming`], the quotes
//! feed); the [`console`] is a fourth, for people. Rules are `signet_domain`'s; data goes through
//! the storage traits of `signet_store`. Every refusal is an [`ApiError`]; the core's errors become one in [`error`].
//!
//! Market-data files and the demo dataset come in beside the server, not through it: the CLI's
//! `data import` and `serve --demo` write them into the store with `signet_import` (a crate of
//! its own, which the server does not depend on). The server reads them from the store, and adds
//! the bars of the simulated days that are over (`signet_core::simulator`).

pub mod admin_api;
pub mod auth;
pub mod config;
pub mod console;
pub mod database;
pub mod error;
pub mod events;
pub mod extract;
pub mod generations;
pub mod grpc;
pub mod marketdata;
pub mod metrics;
pub mod openapi;
pub mod operator;
pub mod pagination;
pub mod router;
pub mod scenarios;
pub mod secrets;
pub mod serve;
pub mod startup;
pub mod state;
pub mod streaming;
pub mod tls;
pub mod tokens;
pub mod trading;

pub use config::ServerConfig;
pub use database::{Database, OpenError};
pub use error::ApiError;
pub use operator::{Credentials, Operator, OperatorError};
pub use signet_store::Durability;
pub use startup::{Server, StartupError};
