//! Wire types of the signet interface, shared by the server and the client: request and
//! response bodies, enumerations, header names and the error body.

pub mod accounts;
pub mod error;
pub mod headers;
pub mod market;
pub mod screeners;
pub mod tokens;

pub use accounts::{Account, AccountClass, AccountType};
pub use error::{ErrorBody, ErrorCode};
pub use tokens::{ConfigResponse, TokenRequest, TokenResponse, TokenStatus};
