//! The quotes feed of the official client's `DataStreamingClient` (catalog §13): an MQTT 3.1.1
//! endpoint on `--mqtt-listen` ([`mqtt`]) and over WebSocket on `--mqtt-ws-listen` ([`ws`]), the
//! sessions connected to them and what they subscribed to over signed HTTP ([`sessions`]; the
//! calls are in
//! [`crate::marketdata::streaming`]), and the messages pushed at each tick ([`feed`], protobuf
//! messages of [`proto`], shared with the client).
//!
//! A connection's CONNECT carries the session id as its client id and the app key as its user
//! name (the password is the client's random one: it proves nothing about the app, which the
//! signed HTTP calls prove, but only a connection with the same one takes a session id over). The client never subscribes over MQTT: the server pushes to a session what it was told
//! to over HTTP, QoS 0. A session lives on the node it connected to, and a disconnect forgets
//! what it subscribed to.
//!
//! Since the app key travels in clear, a CONNECT proves nothing: a connection is *unbound*, holds
//! none of its app's sessions and is closed after [`StreamingConfig::bind_timeout`], until a
//! signed subscribe names its session id and so *binds* it (the official client subscribes right
//! after CONNACK). Unbound connections are few per client address and on the node, so that a
//! flood of them costs bounded memory and file descriptors.

use std::time::Duration;

pub mod feed;
pub mod mqtt;
pub mod sessions;
pub mod ws;

pub use signet_model::streaming::proto;

pub use sessions::Streams;

/// The feed's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamingConfig {
    /// Symbols one session may receive.
    pub max_symbols_per_session: usize,
    /// Bound sessions one app may hold on a node: a CONNECT when it holds them all is refused
    /// (code 105).
    pub max_sessions_per_app: usize,
    /// How long a connection may stay unbound, from its accept, before it is closed.
    pub bind_timeout: Duration,
    /// Unbound connections (from accept to binding) of one client address; one more is closed at
    /// once.
    pub max_unbound_per_address: usize,
    /// Unbound connections on the node, whatever their address; one more is closed at once.
    pub max_unbound: usize,
    /// The longest keep-alive accepted: a CONNECT's 0 (none) or more counts as this, so that a
    /// silent connection is always closed after one and a half of it.
    pub max_keep_alive: Duration,
    /// Messages of one symbol a session's outbox holds before the oldest is dropped.
    pub buffer_per_symbol: usize,
    /// The largest packet a client may send.
    pub max_packet_bytes: usize,
}

impl Default for StreamingConfig {
    fn default() -> Self {
        StreamingConfig {
            max_symbols_per_session: 100,
            max_sessions_per_app: 5,
            bind_timeout: Duration::from_secs(30),
            max_unbound_per_address: 16,
            max_unbound: 256,
            max_keep_alive: Duration::from_secs(300),
            buffer_per_symbol: 64,
            max_packet_bytes: 64 * 1024,
        }
    }
}
