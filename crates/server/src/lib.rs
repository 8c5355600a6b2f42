//! The signet server as a library: the binary (`signet serve`) and the integration tests start
//! it the same way.
//!
//! A request passes the request-id and trace layers, then the authentication layer
//! ([`auth`]), then the router to one area module ([`trading`], [`tokens`], [`marketdata`]),
//! which applies the rules of `signet_domain` and reads and writes through the storage traits of
//! `signet_store`. Every refusal is an [`ApiError`].
//!
//! Market-data files and the demo dataset come in beside the server, not through it: the CLI's
//! `data import` and `serve --demo` write them into the store with `signet_import` (a crate of
//! its own, which the server does not depend on). The server reads them from the store, and adds
//! the bars of the simulated days that are over ([`broker::simulator`]).

pub mod admin_api;
pub mod auth;
pub mod broker;
pub mod config;
pub mod console;
pub mod database;
pub mod error;
pub mod events;
pub mod extract;
pub mod legacy;
pub mod marketdata;
pub mod metrics;
pub mod openapi;
pub mod operator;
pub mod pagination;
pub mod ratelimit;
pub mod router;
pub mod secrets;
pub mod serve;
pub mod startup;
pub mod state;
pub mod streaming;
pub mod tokens;
pub mod trading;

pub use config::ServerConfig;
pub use database::{Database, OpenError};
pub use error::ApiError;
pub use operator::{Credentials, Operator, OperatorError};
pub use signet_store::Durability;
pub use startup::{Server, StartupError};
