//! The scenario rules in force ([`signet_domain::scenarios`]), shared by every node through the
//! store: loaded, listed, switched and cleared there, and read again by each node within a
//! second of a change ([`REFRESH`]). Deciding a request or an order counts the match of each
//! candidate rule in the store, so that `times` and `probability` count the same matches on every
//! node and a run repeats.
//!
//! What a rule did to a request is recorded for the door that answers it ([`RequestScope`], a
//! task-local slot the HTTP door opens around each request), so that every answer a rule touched
//! says so, and an answer to drop is dropped after the order was stored.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock, RwLockReadGuard};
use signet_domain::scenarios::{
    Facts, Operation, OrderFacts, Outcome, Rule, Scenario, ScenarioError, Stage, StreamFacts, StreamKind,
};
use signet_domain::simulator::clock::wall_clock_ms;
use signet_domain::trading::fill_plan::FillPlan;
use signet_domain::trading::order::Order;
use signet_model::ids::{AccountId, AppKey};
use signet_store::{Store, StoreError, StoredScenario};

use crate::CoreError;
use crate::simulator::Simulator;

/// How long a node goes on with the rules it read before it asks the store for their version.
pub const REFRESH: Duration = Duration::from_secs(1);

/// The rules this node holds, and the version they are of.
struct InForce {
    version: i64,
    scenario: Arc<Scenario>,
}

pub struct Scenarios {
    store: Arc<dyn Store>,
    /// Told what the rules do to the market (halts, freezes, gaps).
    simulator: Arc<Simulator>,
    held: RwLock<InForce>,
    checked: Mutex<Option<Instant>>,
}

/// What loading a file of rules failed with.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Invalid(#[from] ScenarioError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A rule that decided what happens to a request, as the door that answers it needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Injected {
    pub rule: String,
    pub outcome: Outcome,
    pub delay_ms: u64,
}

impl Injected {
    fn of(rule: &Rule) -> Self {
        Injected {
            rule: rule.name.clone(),
            outcome: rule.then.outcome.clone(),
            delay_ms: rule.then.delay_ms,
        }
    }
}

/// The request a task answers, as the rules see it, and what rules did to it: the HTTP door
/// opens it around each signed request ([`RequestScope::run`]), so that an order placed in it is
/// decided with the request's path and app, and its answer says which rules touched it.
#[derive(Debug, Clone, Default)]
pub struct RequestScope {
    pub path: String,
    pub app: Option<AppKey>,
    pub touched: Vec<Injected>,
}

tokio::task_local! {
    static SCOPE: RefCell<RequestScope>;
}

impl RequestScope {
    /// Runs `work` in this scope; the scope as `work` left it, beside its output.
    pub async fn run<T>(self, work: impl Future<Output = T>) -> (T, RequestScope) {
        SCOPE
            .scope(RefCell::new(self), async move {
                let output = work.await;
                let scope = SCOPE.with(|scope| std::mem::take(&mut *scope.borrow_mut()));
                (output, scope)
            })
            .await
    }
}

/// Records that `injected` touched the request under way (nothing outside a request's scope).
fn touch(injected: &Injected) {
    let _ = SCOPE.try_with(|scope| scope.borrow_mut().touched.push(injected.clone()));
}

impl Scenarios {
    /// The rules in force in the store now. A stored file this build cannot read (written by
    /// another version) is logged and left out of force.
    pub async fn start(store: Arc<dyn Store>, simulator: Arc<Simulator>) -> Result<Arc<Self>, StoreError> {
        let scenarios = Scenarios {
            store,
            simulator,
            held: RwLock::new(InForce {
                version: -1,
                scenario: Arc::default(),
            }),
            checked: Mutex::new(None),
        };
        scenarios.refresh().await?;
        Ok(Arc::new(scenarios))
    }

    /// Checks and puts a file of rules in force on every node; the rules as stored.
    pub async fn load(&self, text: &str) -> Result<StoredScenario, LoadError> {
        let scenario = Scenario::parse(text)?;
        let names: Vec<String> = scenario.rules.iter().map(|r| r.name.clone()).collect();
        self.store.load_scenario(text, &names, wall_clock_ms()).await?;
        self.refresh().await?;
        Ok(self.stored().await?.unwrap_or_default())
    }

    /// Takes every rule out of force.
    pub async fn clear(&self) -> Result<(), StoreError> {
        self.store.clear_scenario(wall_clock_ms()).await?;
        self.refresh().await
    }

    /// Switches a rule on or off; false when no rule in force has that name.
    pub async fn switch(&self, name: &str, enabled: bool) -> Result<bool, StoreError> {
        let found = self.store.switch_scenario_rule(name, enabled, wall_clock_ms()).await?;
        self.refresh().await?;
        Ok(found)
    }

    /// Reads the rules in force again (after a checkpoint's restore put others in place).
    pub async fn reload(&self) -> Result<(), StoreError> {
        self.refresh().await
    }

    /// The rules in force as stored, with their counts.
    pub async fn stored(&self) -> Result<Option<StoredScenario>, StoreError> {
        self.store.scenario().await
    }

    /// Whether no rule is in force on this node and it is not time to ask the store again: a
    /// request then skips the rules' work.
    pub fn idle(&self) -> bool {
        let fresh = self.checked.lock().is_some_and(|at| at.elapsed() < REFRESH);
        fresh && self.held().scenario.rules.is_empty()
    }

    /// Reads the rules again whenever they change on any node, within [`REFRESH`], until the
    /// task is dropped: the symbols they hold still must follow them without a request.
    pub async fn follow(self: Arc<Self>) {
        let mut every = tokio::time::interval(REFRESH);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if let Err(e) = self.current().await {
                tracing::warn!(error = %e, "reading the scenario rules failed");
            }
        }
    }

    /// The rules this node holds, read again when [`REFRESH`] has passed since it last asked.
    async fn current(&self) -> Result<Arc<Scenario>, StoreError> {
        let due = {
            let mut checked = self.checked.lock();
            let due = checked.is_none_or(|at| at.elapsed() >= REFRESH);
            if due {
                *checked = Some(Instant::now());
            }
            due
        };
        if due && self.store.scenario_version().await? != self.held().version {
            self.refresh().await?;
        }
        Ok(self.held().scenario.clone())
    }

    fn held(&self) -> RwLockReadGuard<'_, InForce> {
        self.held.read()
    }

    async fn refresh(&self) -> Result<(), StoreError> {
        let stored = self.store.scenario().await?;
        let (version, mut scenario) = match &stored {
            None => (0, Scenario::default()),
            Some(s) if s.text.is_empty() => (s.version, Scenario::default()),
            Some(s) => match Scenario::parse(&s.text) {
                Ok(scenario) => (s.version, scenario),
                Err(e) => {
                    tracing::warn!(error = %e, "the stored scenario rules do not read: none are in force");
                    (s.version, Scenario::default())
                }
            },
        };
        for rule in &mut scenario.rules {
            let switched = stored.iter().flat_map(|s| &s.rules).find(|r| r.name == rule.name);
            rule.enabled = switched.is_some_and(|r| r.enabled);
        }
        self.simulator.follow(scenario.market_rules());
        let mut held = self.held.write();
        *held = InForce {
            version,
            scenario: Arc::new(scenario),
        };
        Ok(())
    }

    /// The rule that decides `facts` at `stage`, if any, recorded for the request's answer: each
    /// candidate's match is counted in the store, and the first whose `times` and `probability`
    /// let it decides.
    pub async fn decide(&self, stage: Stage, facts: &Facts<'_>) -> Result<Option<Injected>, StoreError> {
        let scenario = self.current().await?;
        if scenario.rules.is_empty() {
            return Ok(None);
        }
        for index in scenario.candidates(stage, facts) {
            let rule = &scenario.rules[index];
            let Some(n) = self.store.hit_scenario_rule(&rule.name).await? else {
                continue;
            };
            if scenario.applies(index, u64::try_from(n).unwrap_or(0)) {
                let injected = Injected::of(rule);
                tracing::info!(rule = %rule.name, path = facts.path, "a scenario rule decides this request");
                touch(&injected);
                return Ok(Some(injected));
            }
        }
        Ok(None)
    }
}

impl Scenarios {
    /// Decides `operation` on `order` of `account_id` ([`Scenarios::decide_order`]): a rule that
    /// refuses it or answers with a fault is the error; a rule on its fills gives their plan;
    /// another (a dropped answer, a delay) lets it go on.
    pub async fn check_order(
        &self,
        operation: Operation,
        account_id: &AccountId,
        order: &Order,
        time_ms: i64,
    ) -> Result<Option<FillPlan>, CoreError> {
        // A halted symbol takes no new order nor a change; a cancel goes through.
        if operation != Operation::Cancel {
            let scenario = self.current().await?;
            if let Some(rule) = scenario.halting(&order.symbol, time_ms) {
                self.store.hit_scenario_rule(&rule.name).await?;
                let injected = Injected::of(rule);
                touch(&injected);
                return Err(CoreError::Injected(Box::new(injected)));
            }
        }
        let facts = OrderFacts {
            operation,
            account: account_id,
            symbol: &order.symbol,
            side: order.side,
            order_type: order.order_type,
            quantity: f64::try_from(order.quantity).unwrap_or(f64::MAX),
            client_order_id: &order.client_order_id,
        };
        match self.decide_order(facts, time_ms).await? {
            Some(injected) if matches!(injected.outcome, Outcome::Reject { .. } | Outcome::Status { .. }) => {
                Err(CoreError::Injected(Box::new(injected)))
            }
            Some(Injected {
                outcome: Outcome::Fill(plan),
                ..
            }) => Ok(Some(plan)),
            _ => Ok(None),
        }
    }

    /// The rule that decides an order operation of the request under way, if any (the request's
    /// path and app from its [`RequestScope`], none outside one).
    pub async fn decide_order(&self, order: OrderFacts<'_>, time_ms: i64) -> Result<Option<Injected>, StoreError> {
        let (path, app) = SCOPE
            .try_with(|scope| {
                let scope = scope.borrow();
                (scope.path.clone(), scope.app.clone())
            })
            .unwrap_or_default();
        let facts = Facts {
            path: &path,
            app: app.as_ref(),
            time_ms,
            order: Some(order),
            stream: None,
        };
        self.decide(Stage::Order, &facts).await
    }

    /// The rule that ends a stream of `kind` opening for `app` (a trade-events subscription
    /// following `accounts`), if any.
    pub async fn decide_stream(
        &self,
        kind: StreamKind,
        app: &AppKey,
        accounts: &[AccountId],
        time_ms: i64,
    ) -> Result<Option<EndStream>, StoreError> {
        if self.idle() {
            return Ok(None);
        }
        let facts = Facts {
            path: "",
            app: Some(app),
            time_ms,
            order: None,
            stream: Some(StreamFacts { kind, accounts }),
        };
        Ok(match self.decide(Stage::Stream, &facts).await? {
            Some(Injected {
                rule,
                outcome: Outcome::EndStream { after },
                ..
            }) => Some(EndStream { rule, after }),
            _ => None,
        })
    }
}

/// A stream a rule ends: after how many events or messages, and the rule's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndStream {
    pub rule: String,
    pub after: u64,
}

impl EndStream {
    /// Whether the stream ends now, having carried `sent`.
    pub fn due(&self, sent: u64) -> bool {
        sent >= self.after
    }
}
