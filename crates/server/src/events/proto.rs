//! The messages of `events.proto` (package `grpc.trade.event`), written by hand with prost's
//! derive: two messages and one enum do not need a build script or `protoc`.

/// The full path of the one method.
pub const SUBSCRIBE_PATH: &str = "/grpc.trade.event.EventService/Subscribe";

/// `SubscribeRequest`. The server decodes it only after checking the signature over its bytes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribeRequest {
    /// A bit set: 1 order events, 2 position events, 4 option events (the client sends 7).
    #[prost(uint32, tag = "1")]
    pub subscribe_type: u32,
    /// Epoch milliseconds.
    #[prost(int64, tag = "2")]
    pub timestamp: i64,
    #[prost(string, tag = "3")]
    pub content_type: String,
    #[prost(string, tag = "4")]
    pub payload: String,
    #[prost(string, repeated, tag = "5")]
    pub accounts: Vec<String>,
}

/// `SubscribeResponse`. `event_type` is an `EventType` or a business code outside the enum
/// (1024 order, 1028 position, 1032 option), which proto3 keeps.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SubscribeResponse {
    #[prost(int32, tag = "1")]
    pub event_type: i32,
    #[prost(uint32, tag = "2")]
    pub subscribe_type: u32,
    #[prost(string, tag = "3")]
    pub content_type: String,
    #[prost(string, tag = "4")]
    pub payload: String,
    #[prost(string, tag = "5")]
    pub request_id: String,
    /// Epoch milliseconds.
    #[prost(int64, tag = "6")]
    pub timestamp: i64,
}

/// `EventType` values, and the business codes outside the enum.
pub mod event_type {
    pub const SUBSCRIBE_SUCCESS: i32 = 0;
    pub const PING: i32 = 1;
    pub const AUTH_ERROR: i32 = 2;
    pub const NUM_OF_CONN_EXCEED: i32 = 3;
    pub const ORDER: i32 = 1024;
}

/// The `subscribeType` of order status changes.
pub const SUBSCRIBE_ORDER: u32 = 1;

/// The codec of the service: requests are kept as the exact bytes received (the signature is
/// over them, not over a re-encoding); responses are encoded with prost.
#[derive(Debug, Clone, Copy, Default)]
pub struct RawRequestCodec;

#[derive(Debug, Clone, Copy, Default)]
pub struct ResponseEncoder;

#[derive(Debug, Clone, Copy, Default)]
pub struct RawDecoder;

impl tonic::codec::Codec for RawRequestCodec {
    type Encode = SubscribeResponse;
    type Decode = bytes::Bytes;
    type Encoder = ResponseEncoder;
    type Decoder = RawDecoder;

    fn encoder(&mut self) -> ResponseEncoder {
        ResponseEncoder
    }

    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

impl tonic::codec::Encoder for ResponseEncoder {
    type Item = SubscribeResponse;
    type Error = tonic::Status;

    fn encode(&mut self, item: SubscribeResponse, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), tonic::Status> {
        prost::Message::encode(&item, dst).map_err(|e| tonic::Status::internal(e.to_string()))
    }
}

impl tonic::codec::Decoder for RawDecoder {
    type Item = bytes::Bytes;
    type Error = tonic::Status;

    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<bytes::Bytes>, tonic::Status> {
        use bytes::Buf as _;
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}
