//! A request the rules refuse, with the interface's error code for it.

use std::borrow::Cow;

use signet_model::ErrorCode;

/// A refusal by a rule: the code fixes the HTTP status (the server maps it in one place), the
/// message says what an honest client should change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Rejection {
    pub code: ErrorCode,
    pub message: Cow<'static, str>,
}

impl Rejection {
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        Rejection {
            code,
            message: message.into(),
        }
    }

    pub fn illegal_parameter(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::IllegalParameter, message)
    }
}
