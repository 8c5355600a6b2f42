//! Checkpoints of the whole sandbox, saved and restored while the server runs.
//!
//! A restore closes the [`Gate`]: the calls under way finish, new ones are refused (the HTTP
//! door answers 503 `RESTORING`), the engine's ticks wait. The store then puts the state back in
//! one transaction, and every cache of this node starts again from it: the simulator (clock,
//! seed, pins, plans and paths), the claims, the engine's book and queues, the scenario rules,
//! and the event hub, which ends every open stream so that its client subscribes again; the
//! doors add their own ([`Checkpoints::on_restore`]). Then the gate opens.
//!
//! Other nodes on the same database follow the store's restore epoch ([`Checkpoints::follow`]):
//! each closes its gate and starts its caches again as soon as it sees the epoch move, within
//! [`FOLLOW_EVERY`]. Until then it may answer from what it held before (its market, the
//! positions it last read): the window a client that restores waits out.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use signet_domain::checkpoint::{CheckpointName, MarketState};
use signet_domain::simulator::clock::wall_clock_ms;
use signet_store::{CheckpointInfo, Restored, Store, StoreError};
use tokio::sync::{OwnedRwLockReadGuard, RwLock};

use crate::claims::ClaimsCache;
use crate::engine::Engine;
use crate::hub::EventHub;
use crate::scenarios::Scenarios;
use crate::simulator::Simulator;

/// How often a node asks the store whether another node restored a checkpoint.
pub const FOLLOW_EVERY: Duration = Duration::from_millis(100);

/// Open while the node serves; closed while it restores.
#[derive(Debug, Default, Clone)]
pub struct Gate(Arc<RwLock<()>>);

impl Gate {
    /// A call's pass, held until it is answered: `None` while a restore is under way.
    pub fn enter(&self) -> Option<OwnedRwLockReadGuard<()>> {
        self.0.clone().try_read_owned().ok()
    }
}

/// A restore, as this node saw it.
#[derive(Debug, Clone)]
pub struct RestoreDone {
    pub restored: Restored,
    /// From closing the gate to opening it again.
    pub closed_for: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no checkpoint is named {0}")]
    NotFound(String),
    #[error("checkpoint {0}'s market state does not read: {1}")]
    Market(String, String),
}

/// Saves and restores checkpoints, and follows the restores of other nodes.
pub struct Checkpoints {
    pub store: Arc<dyn Store>,
    pub simulator: Arc<Simulator>,
    pub engine: Arc<Engine>,
    pub claims: Arc<ClaimsCache>,
    pub hub: Arc<EventHub>,
    pub scenarios: Arc<Scenarios>,
    pub gate: Gate,
    /// What the doors start again after a restore (the apps' directory, the quotes sessions).
    pub on_restore: Vec<Box<dyn Fn() + Send + Sync>>,
    /// The restore epoch this node's caches follow.
    epoch: AtomicI64,
    /// One save, restore or delete at a time on this node.
    busy: tokio::sync::Mutex<()>,
}

impl Checkpoints {
    #[allow(clippy::too_many_arguments)]
    pub async fn start(
        store: Arc<dyn Store>,
        simulator: Arc<Simulator>,
        engine: Arc<Engine>,
        claims: Arc<ClaimsCache>,
        hub: Arc<EventHub>,
        scenarios: Arc<Scenarios>,
        gate: Gate,
        on_restore: Vec<Box<dyn Fn() + Send + Sync>>,
    ) -> Result<Arc<Self>, StoreError> {
        let (epoch, _) = store.restore_epoch().await?;
        Ok(Arc::new(Checkpoints {
            store,
            simulator,
            engine,
            claims,
            hub,
            scenarios,
            gate,
            on_restore,
            epoch: AtomicI64::new(epoch),
            busy: tokio::sync::Mutex::new(()),
        }))
    }

    /// Saves the state now, with the simulator's, as `name` (replacing a checkpoint of that
    /// name). Runs to its end even if its caller goes away.
    pub async fn save(self: &Arc<Self>, name: CheckpointName) -> Result<CheckpointInfo, CheckpointError> {
        let this = self.clone();
        run_apart(async move {
            let _one = this.busy.lock().await;
            // No tick between the market's state and the tables' copy.
            let _ticks = this.engine.hold().await;
            let market = this.simulator.market_state().encode();
            Ok(this.store.save_checkpoint(&name, &market, wall_clock_ms()).await?)
        })
        .await
    }

    /// Puts the checkpoint `name` back, with the gate closed. Runs to its end even if its
    /// caller goes away.
    pub async fn restore(self: &Arc<Self>, name: CheckpointName) -> Result<RestoreDone, CheckpointError> {
        let this = self.clone();
        run_apart(async move {
            let _one = this.busy.lock().await;
            let closed = Instant::now();
            let _gate = this.gate.0.write().await;
            let _ticks = this.engine.hold().await;
            let restored = this
                .store
                .restore_checkpoint(&name)
                .await?
                .ok_or_else(|| CheckpointError::NotFound(name.to_string()))?;
            let market = MarketState::decode(&restored.info.market)
                .map_err(|e| CheckpointError::Market(name.to_string(), e.to_string()))?;
            this.epoch.store(restored.epoch, Ordering::SeqCst);
            this.start_again(Some(&market), restored.dropped_bars > 0).await?;
            tracing::info!(checkpoint = %name, epoch = restored.epoch, "checkpoint restored");
            Ok(RestoreDone {
                restored,
                closed_for: closed.elapsed(),
            })
        })
        .await
    }

    pub async fn list(&self) -> Result<Vec<CheckpointInfo>, StoreError> {
        self.store.checkpoints().await
    }

    /// False when no checkpoint has that name.
    pub async fn delete(&self, name: &CheckpointName) -> Result<bool, StoreError> {
        let _one = self.busy.lock().await;
        self.store.delete_checkpoint(name).await
    }

    /// Every cache of this node from the state in the store: the market from `market` (a
    /// checkpoint's) or, after another node's restore, from the store's tables alone.
    async fn start_again(&self, market: Option<&MarketState>, bars_dropped: bool) -> Result<(), StoreError> {
        if bars_dropped {
            signet_store::refresh_snapshots(self.store.as_ref(), None).await?;
        }
        let mine;
        let market = match market {
            Some(market) => market,
            None => {
                // A restore's market that does not read: this node's own clock, seed and pins,
                // with the plans drawn again from the database.
                mine = self.simulator.market_state();
                &mine
            }
        };
        self.simulator.restore(market).await?;
        self.claims.clear();
        self.engine.forget();
        self.scenarios.reload().await?;
        self.hub.restart();
        for restart in &self.on_restore {
            restart();
        }
        self.engine.announce(self.simulator.now_ms());
        Ok(())
    }

    /// Follows the restores other nodes make, until the task is dropped.
    pub async fn follow(self: Arc<Self>) {
        let mut every = tokio::time::interval(FOLLOW_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            let (epoch, market) = match self.store.restore_epoch().await {
                Ok(found) => found,
                Err(e) => {
                    tracing::debug!(error = %e, "reading the restore epoch failed");
                    continue;
                }
            };
            if epoch == self.epoch.load(Ordering::SeqCst) {
                continue;
            }
            let _one = self.busy.lock().await;
            // This node's own restore may have moved it meanwhile.
            if epoch <= self.epoch.load(Ordering::SeqCst) {
                continue;
            }
            let _gate = self.gate.0.write().await;
            let _ticks = self.engine.hold().await;
            let market = market.as_deref().map(MarketState::decode).and_then(Result::ok);
            match self.start_again(market.as_ref(), false).await {
                Ok(()) => {
                    self.epoch.store(epoch, Ordering::SeqCst);
                    tracing::info!(epoch, "followed another node's restore");
                }
                Err(e) => tracing::warn!(error = %e, "following another node's restore failed; trying again"),
            }
        }
    }
}

/// Runs `work` as a task of its own, so that a caller that goes away does not cut a save or a
/// restore short between its steps.
async fn run_apart<T: Send + 'static>(
    work: impl Future<Output = Result<T, CheckpointError>> + Send + 'static,
) -> Result<T, CheckpointError> {
    tokio::spawn(work)
        .await
        .map_err(|e| CheckpointError::Store(StoreError::Other(format!("a checkpoint task failed: {e}"))))?
}
