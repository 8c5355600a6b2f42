//! The earlier SDK generation's quotes gateway (`webull-python-sdk-quotes-core` and `-mdata`
//! 0.1.x, catalog of that generation in [`signet_model::gateway`]), under `--compat legacy`
//! only: one bidirectional gRPC stream, `openapi.Quote/StreamRequest`, on the HTTP address.
//! That generation reads its market data through it (instruments, snapshots, the book, ticks,
//! bars) and takes the token and subscriptions of its MQTT feed from it.
//!
//! The stream is signed once, when it opens: its metadata carries the HTTP signing headers
//! without `x-version`, signed as an HTTP request of path `/openapi.Quote/StreamRequest` without
//! query or body (HMAC-SHA1 is what that client uses). The checks are the HTTP ones (the
//! headers, the app, the signature against the received authority, the nonce spent, the app's
//! rate limit for opening a stream; what legacy mode accepted is counted in
//! `signet_legacy_acceptances_total`, as `legacy_path` and `hmac_sha1`); a refusal ends the stream at once with `UNAUTHENTICATED`
//! (`RESOURCE_EXHAUSTED` for a limit) and the HTTP error body as its message. An app holds at
//! most [`MAX_STREAMS_PER_APP`] open streams (Webull's published limit, on every node with
//! Redis).
//!
//! Then each `Payload` request is answered by one `Payload` response with its `requestId`,
//! in order: code 200 and the answer's message, or the HTTP status and error body
//! `{"error_code", "message"}` of the same refusal over HTTP ([`calls`]). Each request spends the
//! app's rate limit of its path as the HTTP call does. The client's keep-alives (`Pong`, its
//! first message and one every 10 s) are not answered. The stream ends when the client closes
//! it, when nothing arrives for [`IDLE_TIMEOUT`], when a message does not decode or exceeds
//! [`MAX_MESSAGE_BYTES`], when the app is revoked (`UNAUTHENTICATED`), or when the server
//! stops.

mod calls;

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::request::Parts;
use axum::response::Response;
use bytes::Bytes;
use prost::Message as _;
use signet_model::ErrorCode;
use signet_model::gateway::{ClientRequest, ClientResponse, STREAM_PATH, msg_type};
use signet_model::ids::AppKey;
use tokio::sync::mpsc;
use tonic::{Code, Status};

use crate::auth::NONCE_MARGIN_SECS;
use crate::error::ApiError;
use crate::generations::compat::Compat;
use crate::metrics::Legacy;
use crate::state::AppState;

/// Open streams an app may hold (Webull: "each App Key can only establish a maximum of 10 gRPC
/// connections").
pub const MAX_STREAMS_PER_APP: usize = 10;
/// The largest request message: the largest (a batch-bars request of 100 symbols) is a few
/// kilobytes.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// How long a stream may stay silent: the client sends a keep-alive every 10 s.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Responses a stream holds that its client has not read.
const OUTGOING: usize = 16;

/// Answers the stream ([`crate::grpc`] sends it here): refused outside legacy mode and before
/// its metadata passes, then served until it ends.
pub async fn handle(state: AppState, request: Request) -> Response {
    if state.config.compat != Compat::Legacy {
        return Status::unimplemented(
            "the earlier SDK generation's quotes gateway (openapi.Quote/StreamRequest) is served under --compat legacy \
             only: read market data with the /market-data/stocks/* calls and stream quotes over MQTT with \
             POST /market-data/streaming/subscribe",
        )
        .into_http();
    }
    let (parts, body) = request.into_parts();
    let app_key = match authenticate(&state, &parts).await {
        Ok(app_key) => app_key,
        Err(error) => return refusal(error).into_http(),
    };
    // The gate, once the stream is authenticated, until its head is ready (as HTTP's calls).
    let Some(_pass) = state.gate.enter() else {
        let error = ApiError::new(
            ErrorCode::Restoring,
            "a checkpoint is being restored; open the stream again in a moment",
        );
        return refusal(error).into_http();
    };
    let slot = match state.gateway_slots.open(&app_key, MAX_STREAMS_PER_APP).await {
        Ok(Some(slot)) => slot,
        Ok(None) => {
            return refusal(ApiError::new(
                ErrorCode::TooManyRequests,
                format!(
                    "this app has {MAX_STREAMS_PER_APP} open quotes-gateway streams, the most allowed: close one first"
                ),
            ))
            .into_http();
        }
        Err(e) => return refusal(e.into()).into_http(),
    };
    let request = Request::from_parts(parts, body);
    let mut grpc = tonic::server::Grpc::new(crate::grpc::codec::RawCodec).max_decoding_message_size(MAX_MESSAGE_BYTES);
    // The slot goes with the stream's task, which ends when the stream does.
    let slot = parking_lot::Mutex::new(Some(slot));
    let service = tower::service_fn(move |request: tonic::Request<tonic::Streaming<Bytes>>| {
        let (state, app_key) = (state.clone(), app_key.clone());
        let slot = slot.lock().take();
        let incoming = request.into_inner();
        let (sender, receiver) = mpsc::channel(OUTGOING);
        let mut hold = state.apps.hold(&app_key);
        tokio::spawn(async move {
            tokio::select! {
                () = serve(&state, &app_key, incoming, &sender) => {}
                () = hold.revoked() => {
                    tracing::info!("a quotes-gateway stream ends: its app was revoked");
                    let _ = sender.send(Err(Status::unauthenticated("this app key was revoked"))).await;
                }
            }
            drop(slot);
        });
        std::future::ready(Ok::<_, Status>(tonic::Response::new(Responses { receiver })))
    });
    grpc.streaming(service, request).await.map(Body::new)
}

/// The stream's error: the HTTP error body as the message, and the status that makes the client
/// stop (a limit: that it may retry later).
fn refusal(error: ApiError) -> Status {
    tracing::info!(error_code = error.code.as_str(), "quotes-gateway stream refused");
    let code = match error.code {
        ErrorCode::TooManyRequests => Code::ResourceExhausted,
        ErrorCode::InternalError | ErrorCode::ServiceNotAvailable | ErrorCode::Restoring => Code::Unavailable,
        _ => Code::Unauthenticated,
    };
    Status::new(code, error_body(&error))
}

/// `{"error_code", "message"}`, as HTTP answers it.
fn error_body(error: &ApiError) -> String {
    serde_json::json!({"error_code": error.code.as_str(), "message": error.message}).to_string()
}

/// The HTTP checks of the stream's metadata, cheapest first; answers the app.
async fn authenticate(state: &AppState, parts: &Parts) -> Result<AppKey, ApiError> {
    let (h, app, window_secs) = crate::auth::stream_caller(state, &parts.headers, Compat::Legacy).await?;
    crate::auth::verify_signature(state, parts, &h, &app, b"")?;
    let expires_at_ms = (h.timestamp_secs + window_secs + NONCE_MARGIN_SECS) * 1000;
    if !state.nonces.remember(&app.app_key, h.nonce, expires_at_ms).await? {
        return Err(ApiError::new(
            ErrorCode::DuplicatedRequest,
            "this x-signature-nonce was already used; every stream needs a new nonce",
        ));
    }
    crate::auth::spend_quota(state, &app.app_key, STREAM_PATH).await?;
    // What legacy mode accepted, counted as for HTTP: the retired door, and its algorithm.
    state.metrics.legacy(Legacy::Path);
    if h.algorithm == signet_signing::Algorithm::LegacyHmacSha1 {
        state.metrics.legacy(Legacy::HmacSha1);
    }
    Ok(app.app_key.clone())
}

/// Answers the stream's requests in order until it ends.
async fn serve(
    state: &AppState,
    app_key: &AppKey,
    mut incoming: tonic::Streaming<Bytes>,
    sender: &mpsc::Sender<Result<Bytes, Status>>,
) {
    let ended = loop {
        let next = tokio::select! {
            () = sender.closed() => return,
            next = tokio::time::timeout(IDLE_TIMEOUT, incoming.message()) => next,
        };
        let bytes = match next {
            Err(_) => {
                break Status::deadline_exceeded(format!(
                    "nothing arrived for {} s: the stream is closed; open another",
                    IDLE_TIMEOUT.as_secs()
                ));
            }
            Ok(Ok(Some(bytes))) => bytes,
            Ok(Ok(None)) => return,
            Ok(Err(status)) => break status,
        };
        let Ok(request) = ClientRequest::decode(bytes) else {
            break Status::invalid_argument("a message is not a ClientRequest");
        };
        if request.r#type != msg_type::PAYLOAD {
            continue;
        }
        let answer = answer(state, app_key, request).await;
        if sender.send(Ok(Bytes::from(answer.encode_to_vec()))).await.is_err() {
            return;
        }
    };
    let _ = sender.send(Err(ended)).await;
}

/// One request's response: the answer of its path, or its refusal.
async fn answer(state: &AppState, app_key: &AppKey, request: ClientRequest) -> ClientResponse {
    let result = match crate::auth::spend_quota(state, app_key, &request.path).await {
        Ok(()) => calls::call(state, app_key, &request.path, &request.payload).await,
        Err(e) => Err(e),
    };
    let (code, msg, payload) = match result {
        Ok(payload) => (200, String::new(), payload),
        Err(error) => {
            tracing::info!(path = %request.path.chars().take(64).collect::<String>(), error_code = error.code.as_str(), "quotes-gateway request refused");
            (u32::from(error.http_status()), error_body(&error), Vec::new())
        }
    };
    ClientResponse {
        r#type: msg_type::PAYLOAD,
        request_id: request.request_id,
        code,
        msg,
        path: request.path,
        payload,
    }
}

/// The responses of one stream, as its task sends them.
struct Responses {
    receiver: mpsc::Receiver<Result<Bytes, Status>>,
}

impl futures_core::Stream for Responses {
    type Item = Result<Bytes, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.receiver.poll_recv(cx)
    }
}
