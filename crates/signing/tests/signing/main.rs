//! The signing crate's tests, one binary: the shared conformance vectors and property tests.

mod properties;
mod vectors;
