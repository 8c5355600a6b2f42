//! Extractors whose refusals use the interface's error body, and the authenticated caller.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use signet_model::ids::AppKey;

use crate::error::ApiError;
use crate::generations::compat::ApiVersion;

/// A JSON body; invalid JSON or a wrong shape is 400 `ILLEGAL_PARAMETER` saying what is wrong.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    axum::Json<T>: FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(value)) => Ok(JsonBody(value)),
            Err(JsonRejection::MissingJsonContentType(_)) => Err(ApiError::illegal_parameter(
                "the body must be a JSON object, sent with Content-Type: application/json",
            )),
            Err(rejection) => Err(ApiError::illegal_parameter(rejection.body_text())),
        }
    }
}

/// Query parameters; a query that does not fit `T` (a parameter given twice, say) is 400
/// `ILLEGAL_PARAMETER` with the interface's error body, not axum's plain text.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryParams<T>(pub T);

impl<S, T> FromRequestParts<S> for QueryParams<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(value)) => Ok(QueryParams(value)),
            Err(rejection) => Err(ApiError::illegal_parameter(rejection.body_text())),
        }
    }
}

/// The authenticated app a request comes from, handed to every handler behind the layer.
#[derive(Debug, Clone)]
pub struct Caller {
    pub app_key: AppKey,
    pub user_id: Arc<str>,
    /// May drive the market simulator.
    pub admin: bool,
    /// `V2` only in legacy mode, on the calls whose pagination it selects.
    pub version: ApiVersion,
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| ApiError::internal("handler reached without authentication"))
    }
}

/// A query parameter's value, if given: the official client sends a parameter it was not given as
/// the literal `None`, and an empty value means none too.
pub fn given(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty() && *v != "None")
}
