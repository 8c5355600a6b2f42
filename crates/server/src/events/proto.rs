//! The server's codec of `grpc.trade.event.EventService`; the messages are the model's
//! ([`signet_model::events`]).

pub use signet_model::events::*;

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
