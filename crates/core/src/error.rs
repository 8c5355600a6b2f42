//! What a core operation fails with. Each door maps it to its own answer (the HTTP door in
//! `signet_server::error`, in one place).

use signet_domain::Rejection;
use signet_model::ErrorCode;
use signet_store::StoreError;

use crate::options::OptionsError;
use crate::simulator::MarketError;

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

impl CoreError {
    /// The same failure, a refusal's message said of `what` (`new_orders[1]: ...`), so that
    /// the client knows which of several orders it concerns.
    pub fn said_of(self, what: &str) -> CoreError {
        match self {
            CoreError::Refused(r) => CoreError::Refused(Rejection::new(r.code, format!("{what}: {}", r.message))),
            other => other,
        }
    }
}

/// The market's refusals are the client's; its store's failures are not.
impl From<MarketError> for CoreError {
    fn from(e: MarketError) -> Self {
        match e {
            MarketError::UnknownSymbol(symbol) => CoreError::Refused(Rejection::new(
                ErrorCode::InstrumentNotFound,
                format!("no instrument has the symbol {symbol:?}"),
            )),
            MarketError::RealClock | MarketError::BadQuote(_) => {
                CoreError::Refused(Rejection::new(ErrorCode::IllegalParameter, e.to_string()))
            }
            MarketError::Store(e) => CoreError::Store(e),
        }
    }
}

impl From<OptionsError> for CoreError {
    fn from(e: OptionsError) -> Self {
        match e {
            OptionsError::Market(e) => e.into(),
            OptionsError::Store(e) => CoreError::Store(e),
            OptionsError::BadSymbol(e) => {
                CoreError::Refused(Rejection::new(ErrorCode::IllegalParameter, e.to_string()))
            }
            OptionsError::NotListed(message) => {
                CoreError::Refused(Rejection::new(ErrorCode::InstrumentNotFound, message))
            }
        }
    }
}
