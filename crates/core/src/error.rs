//! What a core operation fails with. Each door maps it to its own answer (the HTTP door in
//! `signet_server::error`, in one place).

use signet_domain::Rejection;
use signet_store::StoreError;

#[derive(Debug, Clone, thiserror::Error)]
pub enum CoreError {
    /// The store failed (unavailable, a conflict, a broken invariant).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A rule refused the request: its code and message go to the client as they are.
    #[error(transparent)]
    Refused(#[from] Rejection),
    /// A scenario rule decided the operation's answer instead ([`crate::scenarios`]).
    #[error("scenario rule {:?}", .0.rule)]
    Injected(Box<crate::scenarios::Injected>),
    /// Something that cannot happen did: the detail is for the log, not the client.
    #[error("{0}")]
    Internal(&'static str),
}
