//! What every handler, the authentication layer and the three doors (HTTP, gRPC, MQTT) share:
//! the services a server holds, built once at startup ([`crate::startup`]).

use std::sync::Arc;

use signet_store::{NonceStore, Store};

use crate::auth::apps::AppDirectory;
use crate::config::ServerConfig;
use signet_core::accounts::Accounts;
use signet_core::orders::Orders;
use signet_core::simulator::Simulator;

/// What every handler and the authentication layer share.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<ServerConfig>,
    pub store: Arc<dyn Store>,
    pub nonces: Arc<dyn NonceStore>,
    pub apps: Arc<AppDirectory>,
    pub simulator: Arc<Simulator>,
    /// The engine's ticks, which the simulator's step also drives.
    pub engine: Arc<signet_core::engine::Engine>,
    /// The order operations, built once: every door places, replaces and cancels through them,
    /// and they hold the claims, the account turns and the engine's book.
    pub(crate) orders: Orders,
    pub limiter: Option<Arc<signet_core::ratelimit::Limiter>>,
    pub metrics: Arc<crate::metrics::Metrics>,
    /// This node's order events, for the trade-events subscriptions.
    pub events: Arc<signet_core::hub::EventHub>,
    /// The apps' open trade-events streams, counted against `--events-max-streams`.
    pub event_slots: Arc<crate::events::slots::StreamSlots>,
    /// The apps' open streams of the earlier generation's quotes gateway, counted against
    /// [`crate::generations::gateway::MAX_STREAMS_PER_APP`].
    pub gateway_slots: Arc<crate::events::slots::StreamSlots>,
    /// The sessions of the quotes feed over MQTT on this node.
    pub streams: Arc<crate::streaming::Streams>,
    /// The master key, for what the console administers (apps' secrets are sealed with it).
    pub key: Arc<crate::secrets::MasterKey>,
    /// The scenario rules in force, shared with the other nodes through the store.
    pub scenarios: Arc<signet_core::scenarios::Scenarios>,
    /// Closed while a checkpoint is restored: calls are then refused with `RESTORING`.
    pub gate: signet_core::checkpoints::Gate,
    pub checkpoints: Arc<signet_core::checkpoints::Checkpoints>,
    /// The listed options and their market, priced off the simulator.
    pub options: Arc<signet_core::options::Options>,
    /// The option listing's rows, rendered once a day per underlying.
    pub rendered_chains: Arc<crate::marketdata::rendered_chains::RenderedChains>,
    /// The operator console's memory; `None` when the console is off.
    pub console: Option<Arc<crate::console::memory::Console>>,
}

impl AppState {
    /// The broker's questions about accounts ([`Accounts`]), answered from this server's parts.
    pub fn accounts(&self) -> Accounts<'_> {
        self.orders.accounts()
    }

    /// The order operations ([`Orders`]).
    pub fn orders(&self) -> &Orders {
        &self.orders
    }
}
