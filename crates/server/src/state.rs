//! What every handler, the authentication layer and the three doors (HTTP, gRPC, MQTT) share:
//! the services a server holds, built once at startup ([`crate::startup`]).

use std::sync::Arc;

use signet_store::{NonceStore, Store};

use crate::auth::apps::AppDirectory;
use crate::config::ServerConfig;
use crate::simulator::Simulator;

/// What every handler and the authentication layer share.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<ServerConfig>,
    pub store: Arc<dyn Store>,
    pub nonces: Arc<dyn NonceStore>,
    pub apps: Arc<AppDirectory>,
    pub market: Arc<Simulator>,
    /// The engine's ticks, which the simulator's step also drives.
    pub engine: Arc<crate::engine::Engine>,
    /// What open orders hold back, per account, between placements.
    pub reservations: Arc<crate::reservations::Reservations>,
    /// Each account's turns to raise its claims (placements, replacements).
    pub turns: Arc<crate::turns::Turns<crate::trading::orders::Queued>>,
    /// The open orders the engine's ticks match.
    pub book: Arc<crate::engine::book::Book>,
    pub limiter: Option<Arc<crate::ratelimit::Limiter>>,
    pub metrics: Arc<crate::metrics::Metrics>,
    /// This node's order events, for the trade-events subscriptions.
    pub events: Arc<crate::events::hub::EventHub>,
    /// The apps' open trade-events streams, counted against `--events-max-streams`.
    pub event_slots: Arc<crate::events::slots::StreamSlots>,
    /// The sessions of the quotes feed over MQTT on this node.
    pub streams: Arc<crate::streaming::Streams>,
    /// The master key, for what the console administers (apps' secrets are sealed with it).
    pub key: Arc<crate::secrets::MasterKey>,
    /// The operator console's memory; `None` when the console is off.
    pub console: Option<Arc<crate::console::memory::Console>>,
}
