//! The MQTT 3.1.1 endpoint: rumqttc's packet codec (`mqttbytes::v4`) over a TCP connection, or
//! over a WebSocket ([`super::ws`]), either over TLS when TLS is on: the same code, sessions and
//! limits whatever the carrier.
//!
//! A connection from an address that has its most unbound connections, or when the node has
//! its most, is closed at once, unread (the official client retries in 10 s). CONNECT must come
//! within the header timeout. It is refused, and the connection closed, with
//! a CONNACK code the official client does not retry (catalog §13.5: it retries 3 and 5 every
//! 10 s for ever): 1 for another protocol level, 2 for an empty session id or one connected
//! under another app key or with another password (the client makes its password at random and
//! reconnects with it, so that only the same client takes its session over), 4 for an app key
//! that is not active, and Webull's 105 ("connection limit exceeded") for an app that already
//! holds its most bound sessions on this node. Then the connection is closed when it is not
//! bound within the bind timeout of its accept, when nothing arrives for one and a half
//! keep-alive periods (0 and anything longer count as the longest accepted), on DISCONNECT,
//! when a newer connection takes its session id (after a `notice` saying so), when its app is
//! revoked, or when the server stops. SUBSCRIBE is answered with a
//! failure for each filter (the feed is chosen over HTTP), UNSUBSCRIBE with its UNSUBACK.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use rumqttc::mqttbytes::v4::{
    ConnAck, Connect, ConnectReturnCode, Packet, PubAck, Publish, SubAck, SubscribeReasonCode, UnsubAck,
};
use rumqttc::mqttbytes::{Error as CodecError, Protocol, QoS};
use signet_core::scenarios::EndStream;
use signet_domain::scenarios::StreamKind;
use signet_model::streaming::topic;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use super::sessions::{ConnectRefusal, Session, Topics, UnboundRefusal, UnboundSlot};
use crate::state::AppState;

/// What carries MQTT on a listener: bare TCP (`--mqtt-listen`), or WebSocket
/// (`--mqtt-ws-listen`, [`super::ws`]); either over TLS when TLS is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    Tcp,
    WebSocket,
}

impl Carrier {
    /// Its name in logs.
    fn name(self) -> &'static str {
        match self {
            Carrier::Tcp => "tcp",
            Carrier::WebSocket => "ws",
        }
    }
}

/// Accepts connections until the task is dropped. One that finds no place among the unbound
/// connections is dropped at once: it costs neither a task nor a buffer. With `tls`, every
/// connection is TLS; over WebSocket, every connection is upgraded first: the TLS handshake and
/// the upgrade hold an unbound place and must end, with the CONNECT after them, within the
/// header timeout.
pub async fn serve(listener: TcpListener, state: AppState, tls: Option<Arc<rustls::ServerConfig>>, carrier: Carrier) {
    let tls = tls.map(tokio_rustls::TlsAcceptor::from);
    loop {
        match listener.accept().await {
            Ok((stream, remote)) => match state.streams.unbound_slot(remote.ip()) {
                Ok(slot) => {
                    let _ = stream.set_nodelay(true);
                    let accepted = tokio::time::Instant::now();
                    let opened = Opened {
                        state: state.clone(),
                        remote,
                        slot,
                        accepted,
                        carrier,
                    };
                    match &tls {
                        None => {
                            tokio::spawn(opened.carry(stream));
                        }
                        Some(tls) => {
                            tokio::spawn(handshake(opened, tls.clone(), stream));
                        }
                    }
                }
                Err(refusal) => {
                    tracing::debug!(
                        remote = %remote,
                        carrier = carrier.name(),
                        ?refusal,
                        "MQTT connection dropped: too many unbound connections"
                    );
                    state.metrics.mqtt_unbound_closed(match refusal {
                        UnboundRefusal::Address => "address_limit",
                        UnboundRefusal::Node => "node_limit",
                    });
                }
            },
            Err(e) => {
                tracing::warn!(error = %e, carrier = carrier.name(), "accepting an MQTT connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// A connection accepted, holding its unbound place.
struct Opened {
    state: AppState,
    remote: SocketAddr,
    slot: UnboundSlot,
    accepted: tokio::time::Instant,
    carrier: Carrier,
}

impl Opened {
    /// MQTT on `stream` (TCP or TLS), upgraded to WebSocket first when that is the carrier.
    async fn carry<S: Halves>(self, stream: S) {
        let Opened {
            state,
            remote,
            slot,
            accepted,
            carrier,
        } = self;
        match carrier {
            Carrier::Tcp => connection(state, stream, remote, slot, accepted, carrier).await,
            Carrier::WebSocket => {
                let deadline = connect_deadline(&state, accepted);
                let max = state.streams.config.max_packet_bytes;
                let origins = state.config.mqtt_ws_origins.clone();
                let upgrade = tokio::time::timeout_at(deadline, super::ws::upgrade(stream, max, origins));
                match unless_evicted(&state, &slot, upgrade).await {
                    Some(Ok(Ok(stream))) => connection(state, stream, remote, slot, accepted, carrier).await,
                    Some(Ok(Err(e))) => tracing::debug!(error = %e, remote = %remote, "MQTT WebSocket upgrade refused"),
                    Some(Err(_)) => {
                        tracing::debug!(remote = %remote, "MQTT connection closed: no WebSocket upgrade in time");
                    }
                    None => {}
                }
            }
        }
    }
}

/// A TLS connection's handshake, within the time its CONNECT has (what is not TLS fails at its
/// first bytes and is closed at once), then the connection.
async fn handshake(opened: Opened, tls: tokio_rustls::TlsAcceptor, stream: TcpStream) {
    let deadline = connect_deadline(&opened.state, opened.accepted);
    let remote = opened.remote;
    let accepting = tokio::time::timeout_at(deadline, tls.accept(stream));
    match unless_evicted(&opened.state, &opened.slot, accepting).await {
        Some(Ok(Ok(stream))) => opened.carry(stream).await,
        Some(Ok(Err(e))) => tracing::debug!(error = %e, remote = %remote, "MQTT TLS handshake failed"),
        Some(Err(_)) => tracing::debug!(remote = %remote, "MQTT connection closed: no TLS handshake in time"),
        None => {}
    }
}

/// What `work` gives, or `None` when the connection lost its unbound place to a newer one
/// meanwhile (counted, and the connection closed by the caller dropping it).
async fn unless_evicted<T>(state: &AppState, slot: &UnboundSlot, work: impl Future<Output = T>) -> Option<T> {
    tokio::select! {
        done = work => Some(done),
        () = slot.evicted() => {
            state.metrics.mqtt_unbound_closed("evicted");
            None
        }
    }
}

/// A connection's stream, cut into what its reader and its writer (another task) hold.
trait Halves: AsyncRead + AsyncWrite + Unpin + Send + 'static {
    type Reader: AsyncRead + Unpin + Send;
    type Writer: AsyncWrite + Unpin + Send + 'static;
    fn halves(self) -> (Self::Reader, Self::Writer);
}

/// A TCP stream's halves need no lock.
impl Halves for TcpStream {
    type Reader = tokio::net::tcp::OwnedReadHalf;
    type Writer = tokio::net::tcp::OwnedWriteHalf;
    fn halves(self) -> (Self::Reader, Self::Writer) {
        self.into_split()
    }
}

/// A TLS stream's halves share its state behind tokio's lock.
impl Halves for tokio_rustls::server::TlsStream<TcpStream> {
    type Reader = tokio::io::ReadHalf<Self>;
    type Writer = tokio::io::WriteHalf<Self>;
    fn halves(self) -> (Self::Reader, Self::Writer) {
        tokio::io::split(self)
    }
}

/// So do a WebSocket's, over TCP or TLS.
impl<S> Halves for super::ws::MqttBytes<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Reader = tokio::io::ReadHalf<Self>;
    type Writer = tokio::io::WriteHalf<Self>;
    fn halves(self) -> (Self::Reader, Self::Writer) {
        tokio::io::split(self)
    }
}

/// When a connection accepted at `accepted` must have sent its CONNECT: within the header
/// timeout, and no later than its bind deadline.
fn connect_deadline(state: &AppState, accepted: tokio::time::Instant) -> tokio::time::Instant {
    (accepted + state.config.connections.header_timeout).min(accepted + state.streams.config.bind_timeout)
}

/// Why reading a packet stopped.
enum ReadError {
    Closed,
    Codec(CodecError),
}

/// Reads the next packet, reading more bytes as it needs them.
async fn read_packet(
    reader: &mut (impl AsyncRead + Unpin),
    buffer: &mut BytesMut,
    max: usize,
) -> Result<Packet, ReadError> {
    loop {
        match Packet::read(buffer, max) {
            Ok(packet) => return Ok(packet),
            Err(CodecError::InsufficientBytes(_)) => {}
            Err(e) => return Err(ReadError::Codec(e)),
        }
        match reader.read_buf(buffer).await {
            Ok(0) | Err(_) => return Err(ReadError::Closed),
            Ok(_) => {}
        }
    }
}

async fn write_packet(writer: &mut (impl AsyncWrite + Unpin), packet: &Packet) -> std::io::Result<()> {
    let mut out = BytesMut::with_capacity(packet.size());
    packet
        .write(&mut out, usize::MAX)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    writer.write_all(&out).await?;
    // What TLS or a WebSocket still holds is sent by the flush (a no-op on TCP).
    writer.flush().await
}

/// Why a CONNECT is refused: one of MQTT 3.1.1's codes, or Webull's 105, which the official
/// client does not retry either and which the codec has no name for.
#[derive(Debug, Clone, Copy)]
enum Refused {
    Standard(ConnectReturnCode),
    ConnectionLimit,
}

impl Refused {
    const CONNECTION_LIMIT: u8 = 105;

    fn code(self) -> u8 {
        match self {
            Refused::Standard(code) => code as u8,
            Refused::ConnectionLimit => Self::CONNECTION_LIMIT,
        }
    }
}

impl From<ConnectReturnCode> for Refused {
    fn from(code: ConnectReturnCode) -> Self {
        Refused::Standard(code)
    }
}

async fn refuse(stream: &mut (impl AsyncWrite + Unpin), refused: Refused) {
    let _ = match refused {
        Refused::Standard(code) => write_packet(stream, &Packet::ConnAck(ConnAck::new(code, false))).await,
        // CONNACK: type 2, remaining length 2, no session present, the code.
        Refused::ConnectionLimit => {
            let written = stream.write_all(&[0x20, 0x02, 0x00, Refused::CONNECTION_LIMIT]).await;
            match written {
                Ok(()) => stream.flush().await,
                Err(e) => Err(e),
            }
        }
    };
    let _ = stream.shutdown().await;
}

/// The refusal of `connect`, or the session it opens, unbound (in `slot`).
async fn admit(state: &AppState, connect: &Connect, slot: UnboundSlot) -> Result<Arc<Session>, Refused> {
    if connect.protocol != Protocol::V4 {
        return Err(ConnectReturnCode::RefusedProtocolVersion.into());
    }
    if connect.client_id.is_empty() || connect.client_id.len() > 128 {
        return Err(ConnectReturnCode::BadClientId.into());
    }
    let (app_key, password) = connect
        .login
        .as_ref()
        .map_or(("", ""), |l| (l.username.as_str(), l.password.as_str()));
    let app = match state.apps.active(app_key).await {
        Ok(Some(app)) => app,
        Ok(None) => return Err(ConnectReturnCode::BadUserNamePassword.into()),
        // Worth retrying: the client does so for 3 only.
        Err(_) => return Err(ConnectReturnCode::ServiceUnavailable.into()),
    };
    state
        .streams
        .connect(&connect.client_id, app.app_key.clone(), password.as_bytes(), slot)
        .map_err(|refusal| match refusal {
            ConnectRefusal::OtherApp | ConnectRefusal::OtherClient => ConnectReturnCode::BadClientId.into(),
            ConnectRefusal::TooManySessions => Refused::ConnectionLimit,
        })
}

/// The largest CONNECT read: the official client's is about 120 bytes, and an unbound
/// connection's buffer stays small.
const MAX_CONNECT_BYTES: usize = 4096;

async fn connection<S>(
    state: AppState,
    mut stream: S,
    remote: SocketAddr,
    slot: UnboundSlot,
    accepted: tokio::time::Instant,
    carrier: Carrier,
) where
    S: Halves,
{
    let config = state.streams.config;
    let bind_deadline = accepted + config.bind_timeout;
    let max = config.max_packet_bytes;
    let mut buffer = BytesMut::with_capacity(1024);
    let connect_deadline = connect_deadline(&state, accepted);
    let first = tokio::time::timeout_at(
        connect_deadline,
        read_packet(&mut stream, &mut buffer, MAX_CONNECT_BYTES.min(max)),
    );
    let Some(first) = unless_evicted(&state, &slot, first).await else {
        return;
    };
    let connect = match first {
        Ok(Ok(Packet::Connect(connect))) => connect,
        Ok(Err(ReadError::Codec(CodecError::InvalidProtocol | CodecError::InvalidProtocolLevel(_)))) => {
            let refused = Refused::from(ConnectReturnCode::RefusedProtocolVersion);
            state.metrics.mqtt_refused(refused.code());
            return refuse(&mut stream, refused).await;
        }
        // No CONNECT by the bind deadline (when it comes before the header timeout).
        Err(_) if connect_deadline == bind_deadline => {
            state.metrics.mqtt_unbound_closed("bind_timeout");
            return;
        }
        _ => return,
    };
    let session = match admit(&state, &connect, slot).await {
        Ok(session) => session,
        Err(refused) => {
            tracing::info!(remote = %remote, carrier = carrier.name(), code = refused.code(), "MQTT connection refused");
            state.metrics.mqtt_refused(refused.code());
            return refuse(&mut stream, refused).await;
        }
    };
    tracing::info!(remote = %remote, carrier = carrier.name(), app_key = %session.app_key, "MQTT session connected");
    state.metrics.mqtt_connected(1);
    // A scenario rule may close the session after some messages.
    let now_ms = state.simulator.now_ms();
    let end = match state
        .scenarios
        .decide_stream(StreamKind::Quotes, &session.app_key, &[], now_ms)
        .await
    {
        Ok(end) => end,
        Err(e) => {
            tracing::warn!(error = %e, "deciding the scenario rules of an MQTT session failed");
            None
        }
    };
    if let Some(end) = &end {
        state.metrics.scenario_hit(&end.rule);
    }
    let mut app = state.apps.hold(&session.app_key);
    let (mut reader, writer) = stream.halves();
    let (control, controls) = mpsc::channel(CONTROL_BACKLOG);
    let _ = control.try_send(Packet::ConnAck(ConnAck::new(ConnectReturnCode::Success, false)));
    let writing = tokio::spawn(write(writer, session.clone(), controls, state.clone(), end));
    let idle = idle_timeout(connect.keep_alive, config.max_keep_alive);
    let mut writing = std::pin::pin!(writing);
    let mut waiting_for_bind = true;
    // Whether a newer connection took the session over.
    let taken_over = loop {
        let next = async {
            tokio::time::timeout(idle, read_packet(&mut reader, &mut buffer, max))
                .await
                .unwrap_or(Err(ReadError::Closed))
        };
        let packet = tokio::select! {
            packet = next => match packet {
                Ok(packet) => packet,
                Err(_) => break false,
            },
            () = session.kicked.notified() => break session.taken_over(),
            () = session.evicted.notified(), if waiting_for_bind => {
                if session.bound() {
                    waiting_for_bind = false;
                    continue;
                }
                tracing::debug!(remote = %remote, "MQTT connection closed: a newer one took its unbound place");
                state.metrics.mqtt_unbound_closed("evicted");
                break false;
            }
            _ = &mut writing => break false,
            () = tokio::time::sleep_until(bind_deadline), if waiting_for_bind => {
                if session.bound() {
                    waiting_for_bind = false;
                    continue;
                }
                tracing::info!(remote = %remote, "MQTT connection closed: no signed subscribe bound it in time");
                state.metrics.mqtt_unbound_closed("bind_timeout");
                break false;
            }
            () = app.revoked() => {
                tracing::info!(remote = %remote, app_key = %session.app_key, "MQTT session closed: its app was revoked");
                break false;
            }
        };
        let answer = match packet {
            Packet::PingReq => Packet::PingResp,
            Packet::Subscribe(s) => {
                Packet::SubAck(SubAck::new(s.pkid, vec![SubscribeReasonCode::Failure; s.filters.len()]))
            }
            Packet::Unsubscribe(u) => Packet::UnsubAck(UnsubAck::new(u.pkid)),
            Packet::Publish(p) if p.qos == QoS::AtMostOnce => continue,
            Packet::Publish(p) if p.qos == QoS::AtLeastOnce => Packet::PubAck(PubAck::new(p.pkid)),
            Packet::PubAck(_) | Packet::PubRec(_) | Packet::PubComp(_) | Packet::PingResp => continue,
            // DISCONNECT, a second CONNECT, QoS 2 and what only a server sends.
            _ => break false,
        };
        // A client that sends more than it reads is cut off.
        if control.try_send(answer).is_err() {
            break false;
        }
    };
    // The earlier generation's client has no `notice` topic.
    if taken_over && session.topics() == Topics::Current {
        // The writer writes the notice, then ends with the control channel.
        let _ = control.try_send(taken_over_notice());
        drop(control);
        let _ = tokio::time::timeout(NOTICE_FLUSH, &mut writing).await;
    }
    writing.abort();
    state.streams.disconnect(&session);
    state.metrics.mqtt_connected(-1);
    tracing::info!(remote = %remote, "MQTT session closed");
}

/// How long a connection may stay silent: one and a half keep-alive periods (MQTT 3.1.1
/// §3.1.2.10), the keep-alive capped at `longest`; 0, which would turn the check off, counts as
/// `longest` too.
fn idle_timeout(keep_alive_secs: u16, longest: Duration) -> Duration {
    let keep_alive = match Duration::from_secs(u64::from(keep_alive_secs)) {
        Duration::ZERO => longest,
        asked => asked.min(longest),
    };
    keep_alive * 3 / 2
}

/// Control packets waiting to be written before a connection is cut off.
const CONTROL_BACKLOG: usize = 16;

/// How long a connection taken over has to write its notice before it is closed.
const NOTICE_FLUSH: Duration = Duration::from_secs(1);

/// The `notice` a connection gets when a newer one takes its session over: JSON (catalog §13.4),
/// type 1002, "permission pre-emption", with a `content`.
fn taken_over_notice() -> Packet {
    let notice = serde_json::json!({
        "type": "1002",
        "content": "another connection with this session id and password took the session over",
    });
    Packet::Publish(Publish::new(topic::NOTICE, QoS::AtMostOnce, notice.to_string()))
}

/// Writes a connection's control packets and its session's outbox as they come, until the
/// connection fails, or until it carried the messages a scenario rule lets it (`end`).
async fn write<W: AsyncWrite + Unpin>(
    mut writer: W,
    session: Arc<Session>,
    mut controls: mpsc::Receiver<Packet>,
    state: AppState,
    end: Option<EndStream>,
) {
    let mut out = BytesMut::with_capacity(4096);
    let mut published = 0;
    loop {
        tokio::select! {
            biased;
            control = controls.recv() => match control {
                Some(packet) => {
                    if write_packet(&mut writer, &packet).await.is_err() {
                        return;
                    }
                }
                None => return,
            },
            () = session.ready.notified() => {
                let mut messages = session.take();
                if let Some(end) = &end {
                    messages.truncate(usize::try_from(end.after.saturating_sub(published)).unwrap_or(usize::MAX));
                }
                let sent = messages.len() as u64;
                out.clear();
                for message in messages {
                    let Some(topic) = session.topic_of(&message) else { continue };
                    let publish = Publish::from_bytes(topic, QoS::AtMostOnce, message.payload);
                    if publish.write(&mut out).is_err() {
                        return;
                    }
                }
                if writer.write_all(&out).await.is_err() || writer.flush().await.is_err() {
                    return;
                }
                state.metrics.mqtt_sent(sent);
                published += sent;
                if let Some(end) = end.as_ref().filter(|end| end.due(published)) {
                    tracing::info!(rule = %end.rule, messages = end.after, "a scenario rule closes an MQTT session");
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_alive_zero_or_too_long_counts_as_the_longest_accepted() {
        let longest = Duration::from_secs(300);
        assert_eq!(idle_timeout(60, longest), Duration::from_secs(90));
        assert_eq!(idle_timeout(0, longest), Duration::from_secs(450));
        assert_eq!(idle_timeout(u16::MAX, longest), Duration::from_secs(450));
        assert_eq!(idle_timeout(1, longest), Duration::from_millis(1500));
    }
}
