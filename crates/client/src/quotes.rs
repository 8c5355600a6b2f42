//! The quotes feed over MQTT, as the official client's `DataStreamingClient` uses it (catalog
//! §13): a session connects to the server's `--mqtt-listen` (client id = session id, user name =
//! app key, a random password), is told over signed HTTP which symbols to receive, and is
//! pushed protobuf messages, which [`QuoteStream`] yields decoded. rumqttc speaks MQTT.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use prost::Message as _;
use rumqttc::{
    AsyncClient, ConnectionError, Event, EventLoop, MqttOptions, Packet, StateError, TlsConfiguration, Transport,
};
use signet_model::streaming::{
    StreamingSubscribeRequest, StreamingSubscriptions, StreamingUnsubscribeRequest, proto, topic,
};
use tokio::sync::mpsc;

use crate::{Client, Error};

/// The quotes feed of the server.
pub struct Quotes<'a> {
    pub(crate) client: &'a Client,
}

/// What a subscription receives of a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubType {
    /// `snapshot`: the snapshot call's numbers.
    Snapshot,
    /// `quote`: the book.
    Quote,
    /// `tick`: each trade.
    Tick,
}

impl SubType {
    pub const ALL: [SubType; 3] = [SubType::Snapshot, SubType::Quote, SubType::Tick];

    /// The name the subscribe call takes.
    pub fn name(self) -> &'static str {
        match self {
            SubType::Snapshot => "SNAPSHOT",
            SubType::Quote => "QUOTE",
            SubType::Tick => "TICK",
        }
    }
}

/// A message the feed pushed, decoded by its topic as the official client does.
#[derive(Debug, Clone, PartialEq)]
pub enum Pushed {
    /// Boxed: the largest message by far.
    Snapshot(Box<proto::Snapshot>),
    Quote(proto::Quote),
    Tick(proto::Tick),
    /// A topic without a protobuf message (`notice`: JSON text).
    Other {
        topic: String,
        payload: Bytes,
    },
}

impl Pushed {
    fn decode(topic: &str, payload: Bytes) -> Result<Pushed, Error> {
        let undecodable = |e: prost::DecodeError| Error::Feed(format!("a {topic} message that does not decode: {e}"));
        Ok(match topic {
            topic::SNAPSHOT => Pushed::Snapshot(Box::new(proto::Snapshot::decode(payload).map_err(undecodable)?)),
            topic::QUOTE => Pushed::Quote(proto::Quote::decode(payload).map_err(undecodable)?),
            topic::TICK => Pushed::Tick(proto::Tick::decode(payload).map_err(undecodable)?),
            _ => Pushed::Other {
                topic: topic.to_owned(),
                payload,
            },
        })
    }
}

/// Messages decoded but not yet taken: beyond them the connection is not read, and the server
/// drops the oldest of a symbol rather than buffer them (QoS 0).
const BACKLOG: usize = 1024;

/// The most a message may weigh (a book of 50 levels a side is a few kilobytes).
const MAX_PACKET_BYTES: usize = 1 << 20;

impl Quotes<'_> {
    /// Connects a new session (a random id) to the feed at `mqtt` (`HOST:PORT`, the server's
    /// `--mqtt-listen`), over TLS when the client's endpoint is `https` (verified as the HTTP
    /// calls are, for the name `HOST`). It receives nothing until [`QuoteStream::subscribe`], which binds it to
    /// the app; the server closes a session not bound within its `--mqtt-bind-timeout` (30 s).
    pub async fn connect(&self, mqtt: &str) -> Result<QuoteStream, Error> {
        let (host, port) = mqtt
            .rsplit_once(':')
            .and_then(|(host, port)| Some((host.trim_matches(['[', ']']), port.parse::<u16>().ok()?)))
            .ok_or_else(|| Error::InvalidInput {
                what: "MQTT address",
                detail: format!("{mqtt:?} is not HOST:PORT"),
            })?;
        let session_id = uuid::Uuid::new_v4().simple().to_string();
        let mut options = MqttOptions::new(&session_id, host, port);
        options.set_credentials(&self.client.app_key, uuid::Uuid::new_v4().simple().to_string());
        options.set_keep_alive(Duration::from_secs(30));
        options.set_max_packet_size(MAX_PACKET_BYTES, MAX_PACKET_BYTES);
        // A server that speaks TLS on its HTTP address speaks it on its MQTT address too.
        if self.client.base.scheme() == "https" {
            let config = self.client.trust.rustls()?;
            options.set_transport(Transport::tls_with_config(TlsConfiguration::Rustls(config)));
        }
        let (mqtt_client, mut events) = AsyncClient::new(options, 10);
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => break,
                Ok(_) => {}
                Err(e) => return Err(connect_error(mqtt, e)),
            }
        }
        let (sender, messages) = mpsc::channel(BACKLOG);
        tokio::spawn(forward(events, mqtt_client, sender));
        Ok(QuoteStream {
            client: self.client.clone(),
            session_id,
            messages,
        })
    }

    /// Connects a new session to the feed at `mqtt` and subscribes it to `sub_types` of
    /// `symbols`: the stream yields the messages pushed, starting with what each symbol is now.
    pub async fn stream(&self, mqtt: &str, symbols: &[&str], sub_types: &[SubType]) -> Result<QuoteStream, Error> {
        let stream = self.connect(mqtt).await?;
        stream.subscribe(symbols, sub_types, None).await?;
        Ok(stream)
    }
}

fn connect_error(mqtt: &str, e: ConnectionError) -> Error {
    match e {
        ConnectionError::ConnectionRefused(code) => Error::FeedRefused { code: code as u8 },
        // The codec knows MQTT's codes (0 to 5) only: Webull's are told by their number.
        ConnectionError::MqttState(StateError::Deserialization(rumqttc::Error::InvalidConnectReturnCode(code))) => {
            Error::FeedRefused { code }
        }
        e => Error::Feed(format!(
            "cannot reach the quotes feed at {mqtt} (the server's --mqtt-listen): {e}"
        )),
    }
}

/// Reads the connection and hands on what it pushes, until the stream is dropped (which closes
/// the connection) or the connection fails.
async fn forward(mut events: EventLoop, _client: AsyncClient, sender: mpsc::Sender<Result<Pushed, Error>>) {
    loop {
        let event = tokio::select! {
            event = events.poll() => event,
            () = sender.closed() => return,
        };
        let item = match event {
            Ok(Event::Incoming(Packet::Publish(p))) => Pushed::decode(&p.topic, p.payload),
            Ok(_) => continue,
            Err(e) => {
                let _ = sender
                    .send(Err(Error::Feed(format!("the connection ended: {e}"))))
                    .await;
                return;
            }
        };
        if sender.send(item).await.is_err() {
            return;
        }
    }
}

/// A session connected to the quotes feed, and the messages pushed to it. Dropping it closes
/// the connection, and the server forgets the session's subscriptions.
pub struct QuoteStream {
    client: Client,
    session_id: String,
    messages: mpsc::Receiver<Result<Pushed, Error>>,
}

impl QuoteStream {
    /// The session id: the connection's MQTT client id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// `POST /market-data/streaming/subscribe`: adds `sub_types` of `symbols` (up to 50 a call),
    /// with `depth` levels a side for `Quote` (server default 10). Answers what the session
    /// receives now.
    pub async fn subscribe(
        &self,
        symbols: &[&str],
        sub_types: &[SubType],
        depth: Option<u32>,
    ) -> Result<StreamingSubscriptions, Error> {
        let request = StreamingSubscribeRequest {
            session_id: self.session_id.clone(),
            symbols: Some(symbols.iter().map(|s| (*s).to_owned()).collect()),
            category: Some("US_STOCK".into()),
            sub_types: Some(sub_types.iter().map(|t| t.name().to_owned()).collect()),
            depth,
            overnight_required: None,
        };
        self.client.post("/market-data/streaming/subscribe", &request).await
    }

    /// `POST /market-data/streaming/unsubscribe`: `sub_types` (all when empty) of `symbols` (all
    /// when empty). Answers what the session still receives.
    pub async fn unsubscribe(&self, symbols: &[&str], sub_types: &[SubType]) -> Result<StreamingSubscriptions, Error> {
        let request = StreamingUnsubscribeRequest {
            session_id: self.session_id.clone(),
            symbols: (!symbols.is_empty()).then(|| symbols.iter().map(|s| (*s).to_owned()).collect()),
            category: Some("US_STOCK".into()),
            sub_types: (!sub_types.is_empty()).then(|| sub_types.iter().map(|t| t.name().to_owned()).collect()),
            unsubscribe_all: Some(symbols.is_empty() && sub_types.is_empty()),
        };
        self.client.post("/market-data/streaming/unsubscribe", &request).await
    }

    /// The next message pushed; an error when the connection ended (then `None`).
    pub async fn next(&mut self) -> Option<Result<Pushed, Error>> {
        self.messages.recv().await
    }
}

impl futures_core::Stream for QuoteStream {
    type Item = Result<Pushed, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.messages.poll_recv(cx)
    }
}
