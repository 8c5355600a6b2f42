//! The server's integration tests, one binary (each file a module, so that the server and its
//! dependencies are linked once): a real server on a random loopback port, spoken to with signed
//! HTTP; with `SIGNET_TEST_BACKEND=postgres`, on PostgreSQL instead of SQLite.

mod common;

mod console;
mod console_browser;
mod corporate_actions;

mod events;

mod assets;
mod auth;
mod checkpoints;
mod claims;
mod earlier_sdk;
mod fundamentals;
mod gateway;
mod guards;
mod hostile;
mod import;
mod legacy;
mod legacy_market_data;
mod market;
mod metrics;
mod multi_leg;
mod nodes;
mod official_client;
mod openapi;
mod option_orders;
mod options;
mod orders;
mod redis;
mod reset;
mod revocation;
mod scenarios;
mod schemathesis;
mod screeners;
mod stocks;
mod store;
mod streaming;
mod streaming_measure;
mod streaming_ws;
mod tls;
mod tokens;
mod v1_trading;
mod watchlists;
