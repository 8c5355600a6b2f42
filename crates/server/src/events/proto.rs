//! The server's codec of `grpc.trade.event.EventService`; the messages are the model's
//! ([`signet_model::events`]).

pub use signet_model::events::*;

/// The codec of the service: requests are kept as the exact bytes received (the signature is
/// over them, not over a re-encoding); responses arrive encoded (an order event is encoded once
/// for all its subscribers).
#[derive(Debug, Clone, Copy, Default)]
pub struct RawRequestCodec;

#[derive(Debug, Clone, Copy, Default)]
pub struct ResponseEncoder;

#[derive(Debug, Clone, Copy, Default)]
pub struct RawDecoder;

impl tonic::codec::Codec for RawRequestCodec {
    type Encode = bytes::Bytes;
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
    type Item = bytes::Bytes;
    type Error = tonic::Status;

    fn encode(&mut self, item: bytes::Bytes, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), tonic::Status> {
        bytes::BufMut::put(dst, item);
        Ok(())
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
