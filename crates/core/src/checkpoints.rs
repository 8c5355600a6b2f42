//! Checkpoints of the whole sandbox, saved and restored while the server runs.
//!
//! A restore closes the [`Gate`]: the calls under way finish (within [`GRACE`], or are cut
//! short), new ones are refused (the HTTP door answers 503 `RESTORING`), the engine's ticks wait. The store then puts the state back in
//! one transaction, and every cache of this node starts again from it: the simulator (clock,
//! seed, pins, plans and paths), the claims, the engine's book and queues, the scenario rules,
//! and the event hub, which ends every open stream so that its client subscribes again; the
//! doors add their own ([`Checkpoints::on_restore`]). Then the gate opens.
//!
//! Several nodes on one database restore together, through it ([`Checkpoints::follow`]). The
//! restoring node first announces the restore in the store and waits twice [`FOLLOW_EVERY`]:
//! every other node, which reads the store's restores that often, closes its own gate on
//! seeing the announcement, so that none serves the state before once the state after is
//! committed. Each starts its caches again when it sees the restore's epoch move, and opens its
//! gate; an announcement withdrawn (the restore failed) or left for [`ANNOUNCED_AT_MOST`] (its
//! node died) opens it too.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::{Duration, Instant};

use signet_domain::checkpoint::{CheckpointName, MarketState};
use signet_domain::simulator::clock::wall_clock_ms;
use signet_store::{CheckpointInfo, Restored, Store, StoreError};
use tokio::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock, watch};

use crate::claims::ClaimsCache;
use crate::engine::Engine;
use crate::hub::EventHub;
use crate::scenarios::Scenarios;
use crate::simulator::Simulator;

/// How often a node asks the store whether another node restores a checkpoint.
pub const FOLLOW_EVERY: Duration = Duration::from_millis(100);
/// How long an announced restore keeps the other nodes' gates closed without moving the epoch.
pub const ANNOUNCED_AT_MOST: Duration = Duration::from_secs(30);

/// How long a restore waits for the calls under way before it cuts them short.
pub const GRACE: Duration = Duration::from_secs(2);

/// Open while the node serves; closed while it restores. The doors enter it once a call is
/// authenticated and its request read, so that no caller can hold a restore up by sending
/// slowly; a restore waits at most [`GRACE`] for the calls inside, then cuts them short.
#[derive(Debug, Clone)]
pub struct Gate {
    lock: Arc<RwLock<()>>,
    /// Moves on each time a restore cuts the calls inside short.
    cuts: Arc<watch::Sender<u64>>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            lock: Arc::default(),
            cuts: Arc::new(watch::channel(0).0),
        }
    }
}

/// A call's pass through the [`Gate`], held until it is answered.
#[derive(Debug)]
pub struct Pass {
    _open: OwnedRwLockReadGuard<()>,
    cuts: watch::Receiver<u64>,
}

impl Pass {
    /// Resolves when a restore that waited [`GRACE`] for this call cuts it short: the door
    /// then drops the call's work (as when its caller goes away) and answers that a restore
    /// is under way.
    pub async fn cut_off(&mut self) {
        if self.cuts.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl Gate {
    /// A call's pass: `None` while a restore is under way.
    pub fn enter(&self) -> Option<Pass> {
        // Subscribed first: a cut after the pass is taken is seen.
        let cuts = self.cuts.subscribe();
        let open = self.lock.clone().try_read_owned().ok()?;
        Some(Pass { _open: open, cuts })
    }

    /// Closes the gate: new calls are refused at once, the calls inside have [`GRACE`] to
    /// finish, then they are cut short.
    pub async fn close(&self) -> OwnedRwLockWriteGuard<()> {
        let closing = self.lock.clone().write_owned();
        tokio::pin!(closing);
        match tokio::time::timeout(GRACE, &mut closing).await {
            Ok(closed) => closed,
            Err(_) => {
                self.cuts.send_modify(|cut| *cut += 1);
                tracing::warn!(
                    grace = ?GRACE,
                    "calls still under way were cut short for a restore"
                );
                closing.await
            }
        }
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
    /// Set while this node restores: the announcement it made is not for its own gate.
    restoring_here: AtomicBool,
    /// When this node last announced a restore: a read of the store that began before the
    /// announcement was withdrawn still shows it, and must not close this node's gate.
    announced_here: AtomicI64,
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
        let epoch = store.restores().await?.epoch;
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
            restoring_here: AtomicBool::new(false),
            announced_here: AtomicI64::new(0),
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
            // The other nodes close their gates before anything changes.
            let shared = this.store.shared();
            if shared {
                // Before the announcement, which this node's own follower then leaves alone.
                this.restoring_here.store(true, Ordering::SeqCst);
                let at = wall_clock_ms();
                this.announced_here.store(at, Ordering::SeqCst);
                if let Err(e) = this.store.announce_restore(Some(at)).await {
                    this.restoring_here.store(false, Ordering::SeqCst);
                    return Err(e.into());
                }
                tokio::time::sleep(FOLLOW_EVERY * 2).await;
            }
            let closed = Instant::now();
            let gate = this.gate.close().await;
            let ticks = this.engine.hold().await;
            let restored = this.store.restore_checkpoint(&name).await;
            let restored = match restored {
                Ok(Some(restored)) => restored,
                failed => {
                    drop((ticks, gate));
                    if shared {
                        // Withdrawn before this node's follower may heed it, or it would close
                        // this node's gate for a restore that is not coming.
                        let withdrawn = this.store.announce_restore(None).await;
                        this.restoring_here.store(false, Ordering::SeqCst);
                        withdrawn?;
                    }
                    failed?;
                    return Err(CheckpointError::NotFound(name.to_string()));
                }
            };
            this.restoring_here.store(false, Ordering::SeqCst);
            // The tables are the checkpoint's now, whatever fails below: every cache starts
            // again from them. The store checked the market state before it changed anything.
            this.epoch.store(restored.epoch, Ordering::SeqCst);
            let market = MarketState::decode(&restored.info.market);
            let started = this.start_again(market.as_ref().ok(), restored.dropped_bars > 0).await;
            drop((ticks, gate));
            if let Err(e) = market {
                return Err(CheckpointError::Market(name.to_string(), e.to_string()));
            }
            started?;
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

    /// Seals the checkpoint `name` with this server's key, as it now is: for a checkpoint saved
    /// before checkpoints were sealed, or edited on purpose. Everything but the seal is checked
    /// as a restore checks it.
    pub async fn adopt(&self, name: &CheckpointName) -> Result<CheckpointInfo, CheckpointError> {
        let _one = self.busy.lock().await;
        self.store
            .adopt_checkpoint(name)
            .await?
            .ok_or_else(|| CheckpointError::NotFound(name.to_string()))
    }

    /// False when no checkpoint has that name.
    pub async fn delete(&self, name: &CheckpointName) -> Result<bool, StoreError> {
        let _one = self.busy.lock().await;
        self.store.delete_checkpoint(name).await
    }

    /// Every cache of this node from the state in the store: the market from `market` (a
    /// checkpoint's) or, after another node's restore, from the store's tables alone. What
    /// cannot fail goes first, so that a failure of what reads the store (the node's
    /// connection lost) leaves no cache holding the state before.
    async fn start_again(&self, market: Option<&MarketState>, bars_dropped: bool) -> Result<(), StoreError> {
        self.claims.clear();
        self.engine.forget();
        self.hub.restart();
        for restart in &self.on_restore {
            restart();
        }
        let read = async {
            if bars_dropped {
                signet_store::refresh_snapshots(self.store.as_ref(), None).await?;
            }
            let mine;
            let market = match market {
                Some(market) => market,
                None => {
                    // A restore's market that does not read: this node's own clock, seed and
                    // pins, with the plans drawn again from the database.
                    mine = self.simulator.market_state();
                    &mine
                }
            };
            self.simulator.restore(market).await?;
            self.scenarios.reload().await
        };
        let read = read.await;
        self.engine.announce(self.simulator.now_ms());
        read
    }

    /// Follows the restores other nodes make, until the task is dropped: closes this node's
    /// gate while one is announced, and starts the caches again once it is committed.
    pub async fn follow(self: Arc<Self>) {
        // On SQLite this node is the only server of the file: no other restores to follow.
        if !self.store.shared() {
            return;
        }
        let mut every = tokio::time::interval(FOLLOW_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // This node's gate, held closed for another node's announced restore.
        let mut closed: Option<OwnedRwLockWriteGuard<()>> = None;
        loop {
            every.tick().await;
            let restores = match self.store.restores().await {
                Ok(found) => found,
                Err(e) => {
                    tracing::debug!(error = %e, "reading the restores failed");
                    continue;
                }
            };
            if restores.epoch > self.epoch.load(Ordering::SeqCst) {
                let _one = self.busy.lock().await;
                // This node's own restore may have moved it meanwhile.
                if restores.epoch > self.epoch.load(Ordering::SeqCst) {
                    let _gate = match closed.take() {
                        Some(gate) => gate,
                        None => self.gate.close().await,
                    };
                    let _ticks = self.engine.hold().await;
                    let market = restores.market.as_deref().map(MarketState::decode).and_then(Result::ok);
                    match self.start_again(market.as_ref(), false).await {
                        Ok(()) => {
                            self.epoch.store(restores.epoch, Ordering::SeqCst);
                            tracing::info!(epoch = restores.epoch, "followed another node's restore");
                        }
                        Err(e) => tracing::warn!(error = %e, "following another node's restore failed; trying again"),
                    }
                }
                continue;
            }
            let announced = restores.announced.is_some_and(|at| {
                let age = u64::try_from(wall_clock_ms().saturating_sub(at)).unwrap_or(0);
                Duration::from_millis(age) < ANNOUNCED_AT_MOST
            });
            let own = restores.announced == Some(self.announced_here.load(Ordering::SeqCst));
            if !announced || own || self.restoring_here.load(Ordering::SeqCst) {
                closed = None;
            } else if closed.is_none() {
                closed = Some(self.gate.close().await);
                tracing::info!("another node announced a restore: calls wait for it");
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
