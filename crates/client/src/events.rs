//! Order and position events over gRPC: `grpc.trade.event.EventService/Subscribe` on the server's address, as
//! the official client's `TradeEventsClient` subscribes (catalog §12), signed with the gRPC
//! string to sign ([`signet_signing::grpc_sign`]).

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream as _;

use bytes::{Buf as _, Bytes};
use secrecy::ExposeSecret as _;
use signet_model::events::{
    OrderEventPayload, PositionEventPayload, SUBSCRIBE_ORDER, SUBSCRIBE_PATH, SUBSCRIBE_POSITION, SubscribeRequest,
    SubscribeResponse, event_type,
};
use signet_model::headers as h;
use signet_signing::{Algorithm, GrpcSigningMetadata, format_timestamp, grpc_sign};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::{Status, Streaming};

use crate::{Client, Error};

/// The trade-events subscription.
pub struct Events<'a> {
    pub(crate) client: &'a Client,
}

/// An order event with the time it committed (epoch milliseconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderEvent {
    pub time_ms: i64,
    pub payload: OrderEventPayload,
}

/// A position event: the position as a fill left it, with the fill's time (epoch milliseconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionEvent {
    pub time_ms: i64,
    pub payload: PositionEventPayload,
}

/// What a subscription yields, in commit order: a fill's position event follows its order event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Order(OrderEvent),
    Position(PositionEvent),
}

/// The kinds of events a subscription asks for (the request's `subscribeType` bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventKinds {
    pub orders: bool,
    pub positions: bool,
}

impl EventKinds {
    pub const ORDERS: EventKinds = EventKinds {
        orders: true,
        positions: false,
    };
    pub const ORDERS_AND_POSITIONS: EventKinds = EventKinds {
        orders: true,
        positions: true,
    };

    fn subscribe_type(self) -> u32 {
        (if self.orders { SUBSCRIBE_ORDER } else { 0 }) | (if self.positions { SUBSCRIBE_POSITION } else { 0 })
    }
}

impl Events<'_> {
    /// Subscribes to the order events of `accounts` (every account of the app when empty):
    /// [`Self::subscribe_to`] with [`EventKinds::ORDERS`].
    pub async fn subscribe(&self, accounts: &[&str]) -> Result<EventStream, Error> {
        self.subscribe_to(accounts, EventKinds::ORDERS).await
    }

    /// Subscribes to the events of `kinds` of `accounts` (every account of the app when empty).
    /// The stream yields each event as it commits; it ends with an error when the server refuses
    /// the subscription ([`Error::Api`] with the HTTP error codes) or cuts it off
    /// (`UNAVAILABLE`: subscribe again).
    pub async fn subscribe_to(&self, accounts: &[&str], kinds: EventKinds) -> Result<EventStream, Error> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let request = SubscribeRequest {
            subscribe_type: kinds.subscribe_type(),
            timestamp: i64::try_from(now.as_millis()).unwrap_or(i64::MAX),
            accounts: accounts.iter().map(ToString::to_string).collect(),
            ..SubscribeRequest::default()
        };
        let bytes = Bytes::from(prost::Message::encode_to_vec(&request));
        let timestamp = format_timestamp(now.as_secs() as i64);
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        let client = self.client;
        let signed = GrpcSigningMetadata {
            app_key: &client.app_key,
            algorithm: Algorithm::HmacSha256.name(),
            signature_version: h::SIGNATURE_VERSION_1_0,
            nonce: &nonce,
            timestamp: &timestamp,
        };
        let signature = grpc_sign(&signed, &bytes, client.secret.expose_secret());
        let mut request = tonic::Request::new(bytes);
        for (name, value) in [
            (h::APP_KEY, client.app_key.as_str()),
            (h::SIGNATURE_ALGORITHM, Algorithm::HmacSha256.name()),
            (h::SIGNATURE_VERSION, h::SIGNATURE_VERSION_1_0),
            (h::SIGNATURE_NONCE, &nonce),
            (h::TIMESTAMP, &timestamp),
            (h::SIGNATURE, &signature),
        ] {
            let value = value.parse().map_err(|_| Error::InvalidInput {
                what: name,
                detail: "not a valid gRPC metadata value".into(),
            })?;
            request.metadata_mut().insert(name, value);
        }
        let origin = client.base.origin().ascii_serialization();
        let mut endpoint =
            tonic::transport::Endpoint::from_shared(origin.clone()).map_err(|_| Error::Endpoint(origin.clone()))?;
        if client.base.scheme() == "https" {
            endpoint = endpoint
                .tls_config(client.trust.grpc())
                .map_err(|e| Error::Events(format!("TLS to {origin}: {e}")))?;
        }
        let channel = endpoint
            .connect()
            .await
            .map_err(|e| Error::Events(format!("cannot connect to {origin}: {e}")))?;
        let mut grpc = tonic::client::Grpc::new(channel);
        grpc.ready()
            .await
            .map_err(|e| Error::Events(format!("cannot connect to {origin}: {e}")))?;
        let path = SUBSCRIBE_PATH.parse().expect("a valid path");
        let stream = grpc
            .server_streaming(request, path, SubscribeCodec)
            .await
            .map_err(status_error)?
            .into_inner();
        Ok(EventStream { stream })
    }
}

/// The events of a subscription, as they commit.
pub struct EventStream {
    stream: Streaming<SubscribeResponse>,
}

impl EventStream {
    /// The next event; `None` when the server ended the stream without an error.
    pub async fn next(&mut self) -> Option<Result<Event, Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl futures_core::Stream for EventStream {
    type Item = Result<Event, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            let message = match Pin::new(&mut self.stream).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Ready(Some(Err(status))) => return Poll::Ready(Some(Err(status_error(status)))),
                Poll::Ready(Some(Ok(message))) => message,
            };
            match message.event_type {
                event_type::SUBSCRIBE_SUCCESS | event_type::PING => {}
                event_type::AUTH_ERROR | event_type::NUM_OF_CONN_EXCEED => {
                    return Poll::Ready(Some(Err(refusal(&message.payload))));
                }
                event_type::ORDER => {
                    let event = decode(&message, "an order event's payload").map(|payload| {
                        Event::Order(OrderEvent {
                            time_ms: message.timestamp,
                            payload,
                        })
                    });
                    return Poll::Ready(Some(event));
                }
                event_type::POSITION => {
                    let event = decode(&message, "a position event's payload").map(|payload| {
                        Event::Position(PositionEvent {
                            time_ms: message.timestamp,
                            payload,
                        })
                    });
                    return Poll::Ready(Some(event));
                }
                // Option events, which signet does not send.
                _ => {}
            }
        }
    }
}

fn decode<T: serde::de::DeserializeOwned>(message: &SubscribeResponse, what: &str) -> Result<T, Error> {
    serde_json::from_str(&message.payload).map_err(|e| Error::Decode {
        status: 200,
        detail: format!("{what}: {e}"),
    })
}

/// The refusal an `AuthError` or `NumOfConnExceed` message carries: the HTTP error body.
fn refusal(payload: &str) -> Error {
    match serde_json::from_str::<signet_model::ErrorBody>(payload) {
        Ok(body) => Error::Api {
            status: 401,
            error_code: body.error_code,
            message: body.message,
            request_id: None,
        },
        Err(_) => Error::Events(format!("the subscription was refused: {payload}")),
    }
}

fn status_error(status: Status) -> Error {
    Error::Events(format!("{:?}: {}", status.code(), status.message()))
}

/// The subscription's codec on the client's side: the request goes out as the exact bytes that
/// were signed; responses decode with prost.
#[derive(Debug, Clone, Copy, Default)]
pub struct SubscribeCodec;

impl Codec for SubscribeCodec {
    type Encode = Bytes;
    type Decode = SubscribeResponse;
    type Encoder = SubscribeCodec;
    type Decoder = SubscribeCodec;

    fn encoder(&mut self) -> SubscribeCodec {
        SubscribeCodec
    }

    fn decoder(&mut self) -> SubscribeCodec {
        SubscribeCodec
    }
}

impl Encoder for SubscribeCodec {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        bytes::BufMut::put(dst, item);
        Ok(())
    }
}

impl Decoder for SubscribeCodec {
    type Item = SubscribeResponse;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<SubscribeResponse>, Status> {
        let bytes = src.copy_to_bytes(src.remaining());
        prost::Message::decode(bytes)
            .map(Some)
            .map_err(|e| Status::internal(e.to_string()))
    }
}
