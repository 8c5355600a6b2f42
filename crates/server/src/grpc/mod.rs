//! gRPC on the HTTP address (and on `--events-listen`): told apart from HTTP by its content
//! type, once past the guards every request passes, then by its method: the trade-events
//! subscription of the official client ([`crate::events`]) and, under `--compat legacy`, the
//! earlier generation's quotes gateway ([`crate::gateway`]). The limit per client address
//! applies first, as for HTTP.

use axum::extract::Request;
use axum::response::Response;
use tonic::Status;

use crate::state::AppState;

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
        signet_model::gateway::STREAM_PATH => crate::gateway::handle(state, request).await,
        other => Status::unimplemented(format!("no gRPC method {other}")).into_http(),
    }
}

/// The codec of both services: requests are kept as the exact bytes received (the events
/// signature is over them, not over a re-encoding); responses arrive encoded (an order event is
/// encoded once for all its subscribers).
#[derive(Debug, Clone, Copy, Default)]
pub struct RawCodec;

#[derive(Debug, Clone, Copy, Default)]
pub struct RawEncoder;

#[derive(Debug, Clone, Copy, Default)]
pub struct RawDecoder;

impl tonic::codec::Codec for RawCodec {
    type Encode = bytes::Bytes;
    type Decode = bytes::Bytes;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;

    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }

    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

impl tonic::codec::Encoder for RawEncoder {
    type Item = bytes::Bytes;
    type Error = Status;

    fn encode(&mut self, item: bytes::Bytes, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), Status> {
        bytes::BufMut::put(dst, item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawDecoder {
    type Item = bytes::Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<bytes::Bytes>, Status> {
        use bytes::Buf as _;
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}
