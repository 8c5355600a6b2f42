//! gRPC on the HTTP address (and on `--events-listen`): told apart from HTTP by its content
//! type, once past the guards every request passes, then by its method: the trade-events
//! subscription of the official client ([`crate::events`]) and, under `--compat legacy`, the
//! earlier generation's quotes gateway ([`crate::gateway`]). The limit per client address
//! applies first, as for HTTP.

use axum::extract::Request;
use axum::response::Response;
use tonic::Status;

use crate::state::AppState;

pub mod codec;

/// Whether a request is gRPC (`application/grpc`, with or without `+proto` and parameters).
pub fn is_grpc(request: &Request) -> bool {
    request
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/grpc"))
}

/// Answers one gRPC request: a method of [`crate::events`] or [`crate::gateway`], or
/// `UNIMPLEMENTED`.
pub async fn handle(state: AppState, request: Request) -> Response {
    if let Some(d) = crate::auth::address_refused(&state, &request) {
        let mut refused: Response = Status::resource_exhausted(format!(
            "too many requests from this address: retry in {} s",
            d.retry_after_secs
        ))
        .into_http();
        refused
            .headers_mut()
            .insert(axum::http::header::RETRY_AFTER, d.retry_after_secs.into());
        return refused;
    }
    match request.uri().path() {
        crate::events::proto::SUBSCRIBE_PATH => crate::events::handle(state, request).await,
        signet_model::gateway::STREAM_PATH => crate::generations::gateway::handle(state, request).await,
        other => Status::unimplemented(format!("no gRPC method {other}")).into_http(),
    }
}
