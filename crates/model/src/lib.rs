//! Wire types of the signet interface, shared by the server and the client: request and
//! response bodies, enumerations, header names and the error body.

pub mod accounts;
pub mod assets;
pub mod checkpoints;
pub mod error;
pub mod events;
pub mod fundamentals;
pub mod gateway;
pub mod headers;
pub mod ids;
pub mod market;
pub mod options;
pub mod orders;
pub mod quotes;
pub mod scenarios;
pub mod screeners;
pub mod streaming;
pub mod tokens;
pub mod v1;
pub mod watchlists;
pub mod wire;

pub use accounts::{Account, AccountClass, AccountType};
pub use error::{ErrorBody, ErrorCode};
pub use tokens::{ConfigResponse, TokenRequest, TokenResponse, TokenStatus};
