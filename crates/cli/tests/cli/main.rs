//! The `signet` binary's integration tests, one binary (each file a module): its commands
//! against a real server, several nodes on PostgreSQL and Redis, `kill -9` in the middle of
//! writes, a large import beside a server, and several processes creating one database at once.

mod common;

mod commands;
mod crash;
mod creation;
mod flood;
mod import_beside;
mod nodes;
mod tls;
