//! The `signet` binary's integration tests, one binary (each file a module): its commands
//! against a real server, several nodes on PostgreSQL and Redis, and `kill -9` in the middle of
//! writes.

mod common;

mod commands;
mod crash;
mod nodes;
