//! The trade-events subscription's settings, apart from the service so that the server's
//! configuration does not depend on the service.

use std::time::Duration;

/// The subscription's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventsConfig {
    /// Also serve the subscription on this address (gRPC only), beside the HTTP address.
    pub listen: Option<std::net::SocketAddr>,
    /// How often an open stream receives a `Ping`.
    pub ping_interval: Duration,
    /// How many events a subscriber may fall behind before its stream is ended with
    /// `UNAVAILABLE`.
    pub buffer: usize,
    /// Open streams per app, on every node sharing Redis (else on this node); one more is
    /// refused with `NumOfConnExceed`.
    pub max_streams_per_app: usize,
}

impl Default for EventsConfig {
    fn default() -> Self {
        EventsConfig {
            listen: None,
            ping_interval: Duration::from_secs(15),
            buffer: 1024,
            max_streams_per_app: 10,
        }
    }
}
