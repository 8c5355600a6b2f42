//! The one error type of the HTTP layer, mapped in one place to a status and an error body.

use std::borrow::Cow;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use signet_core::CoreError;
use signet_core::checkpoints::CheckpointError;
use signet_core::scenarios::Injected;
use signet_core::simulator::MarketError;
use signet_domain::Rejection;
use signet_domain::scenarios::Outcome;
use signet_model::error::SignatureDebug;
use signet_model::{ErrorBody, ErrorCode};
use signet_store::StoreError;

use crate::secrets::KeyError;

/// A refusal: an error code (which fixes the status, see [`ErrorCode::status`]) and a message
/// that helps an honest client fix its request.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: Cow<'static, str>,
    pub debug: Option<Vec<SignatureDebug>>,
    /// What the server computed for a refused signature, for the console's Requests page (in the
    /// response's extensions, never its body).
    pub explanation: Option<Vec<SignatureDebug>>,
    /// A status other than the code's own, where the interface asks for one (an unknown symbol
    /// added to a watchlist is 400, not 404).
    pub status: Option<u16>,
    /// The scenario rule that answered instead of the call: its code, status and name.
    pub injected: Option<Box<Injected>>,
}

/// What the authentication layer computed for a refused signature, one per host value tried;
/// carried from the refusal to the console's request recorder in the response's extensions,
/// never in its body (unless `--debug-signatures`).
#[derive(Debug, Clone)]
pub struct Explanation(pub Vec<SignatureDebug>);

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        ApiError {
            code,
            message: message.into(),
            debug: None,
            explanation: None,
            status: None,
            injected: None,
        }
    }

    /// The answer a scenario rule gives instead of the call's ([`Outcome::Reject`] and
    /// [`Outcome::Status`]; the others let the call answer).
    pub fn injected(injected: Injected) -> Self {
        let (code, message, status) = match &injected.outcome {
            Outcome::Reject { message, status, .. } => (ErrorCode::IllegalParameter, message.clone(), *status),
            Outcome::Status { status, .. } => {
                let code = match status {
                    429 => ErrorCode::TooManyRequests,
                    503 => ErrorCode::ServiceNotAvailable,
                    _ => ErrorCode::InternalError,
                };
                (
                    code,
                    format!("injected by the scenario rule {:?}", injected.rule),
                    *status,
                )
            }
            Outcome::Hold { message, .. } => (ErrorCode::TradingHalted, message.clone(), 400),
            Outcome::DropAnswer
            | Outcome::Fill(_)
            | Outcome::EndStream { .. }
            | Outcome::Gap { .. }
            | Outcome::Delay => {
                return ApiError::internal("a scenario outcome without an answer of its own was answered");
            }
        };
        ApiError {
            injected: Some(Box::new(injected)),
            ..ApiError::new(code, message).with_status(status)
        }
    }

    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// The HTTP status the error is answered with.
    pub fn http_status(&self) -> u16 {
        self.status.unwrap_or(self.code.status())
    }

    pub fn illegal_parameter(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::IllegalParameter, message)
    }

    pub fn not_found(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// An unexpected failure: the detail goes to the log, never to the client.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(%detail, "internal error");
        Self::new(
            ErrorCode::InternalError,
            "the server failed to process the request; it has been logged",
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(detail) => {
                tracing::warn!(%detail, "database unavailable");
                ApiError::new(
                    ErrorCode::ServiceNotAvailable,
                    "the service is briefly unavailable; retry shortly",
                )
            }
            other => ApiError::internal(other),
        }
    }
}

impl From<CheckpointError> for ApiError {
    fn from(e: CheckpointError) -> Self {
        match e {
            CheckpointError::NotFound(_) => ApiError::not_found(e.to_string()),
            CheckpointError::Market(..) | CheckpointError::Store(StoreError::Unusable(_)) => {
                ApiError::new(ErrorCode::CheckpointUnusable, e.to_string())
            }
            CheckpointError::Store(e) => e.into(),
        }
    }
}

impl From<CoreError> for ApiError {
    fn from(e: CoreError) -> Self {
        match e {
            CoreError::Store(e) => e.into(),
            CoreError::Refused(r) => r.into(),
            CoreError::Injected(injected) => ApiError::injected(*injected),
            CoreError::Internal(detail) => ApiError::internal(detail),
        }
    }
}

impl From<Rejection> for ApiError {
    fn from(r: Rejection) -> Self {
        ApiError::new(r.code, r.message)
    }
}

impl From<MarketError> for ApiError {
    fn from(e: MarketError) -> Self {
        CoreError::from(e).into()
    }
}

impl From<signet_core::options::OptionsError> for ApiError {
    fn from(e: signet_core::options::OptionsError) -> Self {
        CoreError::from(e).into()
    }
}

impl From<crate::streaming::sessions::Refusal> for ApiError {
    fn from(refusal: crate::streaming::sessions::Refusal) -> Self {
        use crate::streaming::sessions::Refusal;
        match refusal {
            Refusal::NotConnected => ApiError::new(
                ErrorCode::SessionNotConnected,
                "no MQTT connection of this app has this session_id on this server: connect first (client id = session_id, user name = app key)",
            ),
            Refusal::OtherApp => ApiError::new(
                ErrorCode::PermissionDenied,
                "this session_id is connected under another app key",
            ),
            Refusal::TooManySymbols { max } => ApiError::new(
                ErrorCode::TooManySymbols,
                format!("a session receives at most {max} symbols: unsubscribe some first"),
            ),
            Refusal::TooManySessions { max } => ApiError::new(
                ErrorCode::LimitExceeded,
                format!(
                    "this app already holds its {max} MQTT sessions on this server: this session's connection is closed; close another session first"
                ),
            ),
        }
    }
}

impl From<KeyError> for ApiError {
    fn from(e: KeyError) -> Self {
        ApiError::internal(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let explanation = self.explanation.map(Explanation);
        // A scenario's rejection carries the rule's own code.
        let error_code = match self.injected.as_deref().map(|i| &i.outcome) {
            Some(Outcome::Reject { error_code, .. }) => error_code.clone(),
            _ => self.code.as_str().to_owned(),
        };
        let body = ErrorBody {
            error_code,
            message: self.message.into_owned(),
            debug: self.debug,
            scenario: self.injected.as_ref().map(|i| i.rule.clone()),
        };
        let mut response = (status, Json(body)).into_response();
        if let Some(Outcome::Status {
            retry_after_seconds: Some(seconds),
            ..
        }) = self.injected.as_deref().map(|i| &i.outcome)
        {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(*seconds));
        }
        // For the metrics' count of refusals by code.
        response.extensions_mut().insert(self.code);
        if let Some(explanation) = explanation {
            response.extensions_mut().insert(explanation);
        }
        response
    }
}
