//! MQTT over WebSocket (`--mqtt-ws-listen`): the HTTP upgrade on `/mqtt`, then MQTT's bytes in
//! binary WebSocket messages, read and written by the same connection code as over TCP.
//!
//! The upgrade is tokio-tungstenite's server handshake on the (TLS) stream: a request for
//! another path is answered 404 and closed, one that is not a WebSocket upgrade is closed; the
//! `mqtt` subprotocol is chosen when the client offers it (paho, the official client's library,
//! does), and none otherwise (RFC 6455 lets the client decide). A request with an `Origin` of
//! another host than its own (a browser page's elsewhere) is refused 403 unless
//! `--mqtt-ws-origins` names it: no web page can open the feed by default. paho names the
//! server's own host as its origin. The upgrade request must arrive
//! within the header timeout (tungstenite also refuses a head over 64 KiB), while the connection
//! holds its unbound place. After it, a message or frame larger than the largest packet (with
//! its fixed header) closes the connection; a message may carry part of a packet or several.
//! A text message is not MQTT and closes the connection; pings are answered by tungstenite.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use futures_core::Stream;
use futures_sink::Sink;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::{HeaderValue, StatusCode, header};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

/// The only path upgraded.
pub const PATH: &str = "/mqtt";

/// The subprotocol of MQTT over WebSocket (MQTT 3.1.1 §6).
pub const SUBPROTOCOL: &str = "mqtt";

/// The largest fixed header of an MQTT packet: its type byte and four bytes of length.
const MAX_FIXED_HEADER: usize = 5;

/// The WebSocket layer's limits for MQTT packets of at most `max_packet_bytes` (their remaining
/// length): a message, and a frame, hold one packet at most. Small buffers, since most
/// connections wait unbound or read little.
pub fn config(max_packet_bytes: usize) -> WebSocketConfig {
    let max = max_packet_bytes.saturating_add(MAX_FIXED_HEADER);
    WebSocketConfig::default()
        .read_buffer_size(4096)
        // Each message is written as it is sent; the connection code flushes after each write.
        .write_buffer_size(0)
        .max_message_size(Some(max))
        .max_frame_size(Some(max))
}

/// Answers the upgrade request: 404 for another path, 403 for a browser page of an origin not
/// in `origins` (a request without `Origin` is not from a browser page), the `mqtt`
/// subprotocol when offered.
#[allow(clippy::result_large_err)] // tungstenite's callback type
pub fn answer(request: &Request, mut response: Response, origins: &[String]) -> Result<Response, ErrorResponse> {
    let refuse = |status| {
        let mut refused = ErrorResponse::new(None);
        *refused.status_mut() = status;
        let headers = refused.headers_mut();
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        refused
    };
    if request.uri().path() != PATH {
        return Err(refuse(StatusCode::NOT_FOUND));
    }
    if let Some(origin) = request.headers().get(header::ORIGIN)
        && !same_origin(origin, request.headers().get(header::HOST))
        && !origins
            .iter()
            .any(|allowed| origin.as_bytes().eq_ignore_ascii_case(allowed.as_bytes()))
    {
        return Err(refuse(StatusCode::FORBIDDEN));
    }
    if offers_mqtt(request) {
        response
            .headers_mut()
            .insert(header::SEC_WEBSOCKET_PROTOCOL, HeaderValue::from_static(SUBPROTOCOL));
    }
    Ok(response)
}

/// Whether `origin` names the host the request was sent to, as paho's handshake does
/// (`Origin: https://HOST:PORT` beside `Host: HOST:PORT`): this port serves no page, so no
/// browser page has that origin.
fn same_origin(origin: &HeaderValue, host: Option<&HeaderValue>) -> bool {
    let authority = origin.to_str().ok().and_then(|o| o.split_once("://")).map(|(_, a)| a);
    matches!((authority, host.and_then(|h| h.to_str().ok())), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
}

/// Whether one of the request's `Sec-WebSocket-Protocol` lists names `mqtt`.
fn offers_mqtt(request: &Request) -> bool {
    request
        .headers()
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|p| p.trim() == SUBPROTOCOL)
}

/// Upgrades `stream` on `/mqtt` for a client of one of `origins` (or none): its MQTT bytes, or
/// why not.
pub async fn upgrade<S>(stream: S, max_packet_bytes: usize, origins: Arc<[String]>) -> Result<MqttBytes<S>, WsError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    #[allow(clippy::result_large_err)] // tungstenite's callback type
    let answer = |request: &Request, response: Response| answer(request, response, &origins);
    let ws = tokio_tungstenite::accept_hdr_async_with_config(stream, answer, Some(config(max_packet_bytes))).await?;
    Ok(MqttBytes {
        ws,
        pending: Bytes::new(),
    })
}

/// A WebSocket connection as a stream of bytes: what binary messages carry is read in order,
/// whatever their cut; each write is sent as one binary message.
pub struct MqttBytes<S> {
    ws: WebSocketStream<S>,
    /// What the last message carried and a read has not taken yet.
    pending: Bytes,
}

fn io_error(e: WsError) -> io::Error {
    match e {
        WsError::Io(e) => e,
        other => io::Error::other(other),
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for MqttBytes<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        loop {
            if !self.pending.is_empty() {
                let n = self.pending.len().min(buf.remaining());
                let taken = self.pending.split_to(n);
                buf.put_slice(&taken);
                return Poll::Ready(Ok(()));
            }
            match ready!(Pin::new(&mut self.ws).poll_next(cx)) {
                // The end: closed, or a Close frame (tungstenite answers it).
                None | Some(Ok(Message::Close(_))) => return Poll::Ready(Ok(())),
                Some(Err(e)) => return Poll::Ready(Err(io_error(e))),
                Some(Ok(Message::Binary(bytes))) => self.pending = bytes,
                Some(Ok(Message::Text(_))) => {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "MQTT travels in binary WebSocket messages, not text",
                    )));
                }
                // Pings (answered by tungstenite), pongs, raw frames.
                Some(Ok(_)) => {}
            }
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for MqttBytes<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let ws = Pin::new(&mut self.ws);
        ready!(Sink::<Message>::poll_ready(ws, cx)).map_err(io_error)?;
        Pin::new(&mut self.ws)
            .start_send(Message::Binary(Bytes::copy_from_slice(buf)))
            .map_err(io_error)?;
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Sink::<Message>::poll_flush(Pin::new(&mut self.ws), cx).map_err(io_error)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Sink::<Message>::poll_close(Pin::new(&mut self.ws), cx).map_err(io_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(path: &str, protocols: &[&str]) -> Request {
        let mut builder = Request::builder().uri(path);
        for p in protocols {
            builder = builder.header(header::SEC_WEBSOCKET_PROTOCOL, *p);
        }
        builder.body(()).unwrap()
    }

    #[test]
    fn only_mqtt_is_upgraded_and_its_subprotocol_chosen_when_offered() {
        let refused = answer(&request("/", &["mqtt"]), Response::new(()), &[]).unwrap_err();
        assert_eq!(refused.status(), StatusCode::NOT_FOUND);
        assert!(answer(&request("/mqtt/x", &[]), Response::new(()), &[]).is_err());
        for offered in [&["mqtt"][..], &["mqttv3.1, mqtt"], &["x", "mqtt"]] {
            let accepted = answer(&request("/mqtt", offered), Response::new(()), &[]).unwrap();
            assert_eq!(
                accepted.headers()[header::SEC_WEBSOCKET_PROTOCOL],
                "mqtt",
                "{offered:?}"
            );
        }
        for offered in [&[][..], &["mqttv3.1"]] {
            let accepted = answer(&request("/mqtt?x=1", offered), Response::new(()), &[]).unwrap();
            assert!(
                accepted.headers().get(header::SEC_WEBSOCKET_PROTOCOL).is_none(),
                "{offered:?}"
            );
        }
    }

    #[test]
    fn a_browser_page_is_upgraded_only_from_an_origin_allowed() {
        let from = |origin: &str| {
            let mut request = request("/mqtt", &["mqtt"]);
            request
                .headers_mut()
                .insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
            request
        };
        let refused = answer(&from("https://evil.example"), Response::new(()), &[]).unwrap_err();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        let allowed = ["https://bots.example".to_owned()];
        assert!(answer(&from("https://bots.example"), Response::new(()), &allowed).is_ok());
        assert!(answer(&from("https://BOTS.example"), Response::new(()), &allowed).is_ok());
        assert!(answer(&from("https://bots.example.evil"), Response::new(()), &allowed).is_err());
        // No Origin: not a browser page. The server's own host, as paho sends it: no page either.
        assert!(answer(&request("/mqtt", &["mqtt"]), Response::new(()), &[]).is_ok());
        let mut paho = from("https://127.0.0.1:8883");
        paho.headers_mut()
            .insert(header::HOST, HeaderValue::from_static("127.0.0.1:8883"));
        assert!(answer(&paho, Response::new(()), &[]).is_ok());
        paho.headers_mut()
            .insert(header::HOST, HeaderValue::from_static("127.0.0.1:9999"));
        assert!(answer(&paho, Response::new(()), &[]).is_err());
    }
}
