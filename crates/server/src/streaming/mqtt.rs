//! The MQTT 3.1.1 endpoint: rumqttc's packet codec (`mqttbytes::v4`) over a TCP connection.
//!
//! CONNECT must come within the header timeout. It is refused, and the connection closed, with
//! a CONNACK code the official client does not retry (catalog §13.5: it retries 3 and 5 every
//! 10 s for ever): 1 for another protocol level, 2 for an empty session id or one connected
//! under another app key or with another password (the client makes its password at random and
//! reconnects with it, so that only the same client takes its session over), 4 for an app key
//! that is not active, and Webull's 105 ("connection limit exceeded") for an app that already
//! holds its most sessions on this node. Then the connection is closed
//! when nothing arrives for one and a half keep-alive periods, on DISCONNECT, when a newer
//! connection takes its session id (after a `notice` saying so), or when the server stops. SUBSCRIBE is answered with a
//! failure for each filter (the feed is chosen over HTTP), UNSUBSCRIBE with its UNSUBACK.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use rumqttc::mqttbytes::v4::{
    ConnAck, Connect, ConnectReturnCode, Packet, PubAck, Publish, SubAck, SubscribeReasonCode, UnsubAck,
};
use rumqttc::mqttbytes::{Error as CodecError, Protocol, QoS};
use signet_model::streaming::topic;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use super::sessions::{ConnectRefusal, Session};
use crate::app::AppState;

/// Accepts connections until the task is dropped.
pub async fn serve(listener: TcpListener, state: AppState) {
    loop {
        match listener.accept().await {
            Ok((stream, remote)) => {
                let _ = stream.set_nodelay(true);
                tokio::spawn(connection(state.clone(), stream, remote));
            }
            Err(e) => {
                tracing::warn!(error = %e, "accepting an MQTT connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
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
    writer.write_all(&out).await
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

async fn refuse(stream: &mut TcpStream, refused: Refused) {
    let _ = match refused {
        Refused::Standard(code) => write_packet(stream, &Packet::ConnAck(ConnAck::new(code, false))).await,
        // CONNACK: type 2, remaining length 2, no session present, the code.
        Refused::ConnectionLimit => stream.write_all(&[0x20, 0x02, 0x00, Refused::CONNECTION_LIMIT]).await,
    };
    let _ = stream.shutdown().await;
}

/// The refusal of `connect`, or the session it opens.
async fn admit(state: &AppState, connect: &Connect) -> Result<Arc<Session>, Refused> {
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
        .connect(&connect.client_id, app.app_key.clone(), password.as_bytes())
        .map_err(|refusal| match refusal {
            ConnectRefusal::OtherApp | ConnectRefusal::OtherClient => ConnectReturnCode::BadClientId.into(),
            ConnectRefusal::TooManySessions => Refused::ConnectionLimit,
        })
}

async fn connection(state: AppState, mut stream: TcpStream, remote: SocketAddr) {
    let max = state.streams.config.max_packet_bytes;
    let mut buffer = BytesMut::with_capacity(1024);
    let first = tokio::time::timeout(
        state.config.connections.header_timeout,
        read_packet(&mut stream, &mut buffer, max),
    )
    .await;
    let connect = match first {
        Ok(Ok(Packet::Connect(connect))) => connect,
        Ok(Err(ReadError::Codec(CodecError::InvalidProtocol | CodecError::InvalidProtocolLevel(_)))) => {
            let refused = Refused::from(ConnectReturnCode::RefusedProtocolVersion);
            state.metrics.mqtt_refused(refused.code());
            return refuse(&mut stream, refused).await;
        }
        _ => return,
    };
    let session = match admit(&state, &connect).await {
        Ok(session) => session,
        Err(refused) => {
            tracing::info!(remote = %remote, code = refused.code(), "MQTT connection refused");
            state.metrics.mqtt_refused(refused.code());
            return refuse(&mut stream, refused).await;
        }
    };
    tracing::info!(remote = %remote, app_key = %session.app_key, "MQTT session connected");
    state.metrics.mqtt_connected(1);
    let (mut reader, writer) = stream.into_split();
    let (control, controls) = mpsc::channel(CONTROL_BACKLOG);
    let _ = control.try_send(Packet::ConnAck(ConnAck::new(ConnectReturnCode::Success, false)));
    let writing = tokio::spawn(write(writer, session.clone(), controls, state.clone()));
    // Keep-alive 0 turns the check off (MQTT 3.1.1 §3.1.2.10).
    let idle = (connect.keep_alive > 0).then(|| Duration::from_millis(u64::from(connect.keep_alive) * 1500));
    let mut writing = std::pin::pin!(writing);
    // Whether a newer connection took the session over.
    let taken_over = loop {
        let next = async {
            match idle {
                Some(idle) => tokio::time::timeout(idle, read_packet(&mut reader, &mut buffer, max))
                    .await
                    .unwrap_or(Err(ReadError::Closed)),
                None => read_packet(&mut reader, &mut buffer, max).await,
            }
        };
        let packet = tokio::select! {
            packet = next => match packet {
                Ok(packet) => packet,
                Err(_) => break false,
            },
            () = session.kicked.notified() => break session.taken_over(),
            _ = &mut writing => break false,
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
    if taken_over {
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
/// connection fails.
async fn write(
    mut writer: tokio::net::tcp::OwnedWriteHalf,
    session: Arc<Session>,
    mut controls: mpsc::Receiver<Packet>,
    state: AppState,
) {
    let mut out = BytesMut::with_capacity(4096);
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
                let messages = session.take();
                let sent = messages.len() as u64;
                out.clear();
                for message in messages {
                    let publish = Publish::from_bytes(message.topic, QoS::AtMostOnce, message.payload);
                    if publish.write(&mut out).is_err() {
                        return;
                    }
                }
                if writer.write_all(&out).await.is_err() {
                    return;
                }
                state.metrics.mqtt_sent(sent);
            }
        }
    }
}
