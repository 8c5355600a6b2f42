//! The signing crate's tests, one binary: the shared conformance vectors and property tests.

mod grpc_vectors;
mod properties;
mod vectors;
