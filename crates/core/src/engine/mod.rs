//! The paper-trading engine: on every tick of the market simulator it moves and triggers the
//! stops of stop orders, and matches open orders against the simulator's quotes; when the
//! clock enters a new day, it applies the splits and dividends whose ex-date the market crossed.

pub mod book;
mod ticker;

use signet_domain::simulator::clock::ClockMode;
use signet_model::ids::OrderId;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use rust_decimal::Decimal;
use signet_domain::options::{Contract, is_contract};
use signet_domain::simulator::Quote;
use signet_domain::simulator::clock::{NewYork, Session};
use signet_domain::times::{SimTime, WallTime};
use signet_domain::trading::accounting::Commission;
use signet_domain::trading::matching::{self, Queue};
use signet_domain::trading::multi_leg::{self, MultiLeg};
use signet_domain::trading::order::{Event, Order};
use signet_model::orders::TimeInForce;
use signet_store::{FillOutcome, FillRequest, Store};

use self::book::Book;
use crate::claims::ClaimsCache;
use crate::hub::EventHub;
use crate::simulator::{MarketError, Simulator};

/// What the ticks work with: the store, the simulator's quotes, the open orders they match (the
/// book), the claims a fill or an end makes stale, and a count of fills for the metrics.
pub struct Engine {
    store: Arc<dyn Store>,
    simulator: Arc<Simulator>,
    book: Arc<Book>,
    claims: Arc<ClaimsCache>,
    commission: Commission,
    events: Arc<EventHub>,
    on_fill: Box<dyn Fn() + Send + Sync>,
    /// Held by each tick, so that ticks never overlap.
    ticks: tokio::sync::Mutex<()>,
    /// The simulated time of the last tick (or change of a pinned quote), for the quotes feed.
    ticked: tokio::sync::watch::Sender<i64>,
    /// The New York day up to which this node saw the ex-dates crossed: the store is asked again
    /// only when the clock's day differs.
    crossed: parking_lot::Mutex<Option<i32>>,
    /// The queues of the orders resting in the book, by order id, as this node follows them.
    queues: parking_lot::Mutex<HashMap<OrderId, Watch>>,
}

/// The trades (price, shares) of an instrument from a second to the tick's, by (instrument,
/// first second): one tick reads each stretch of tape once.
type Tapes = HashMap<(i64, i64), Vec<(Decimal, u64)>>;

/// A resting order's queue at its limit on a day, and the second of the tape read up to
/// (exclusive).
struct Watch {
    day: i32,
    limit: Decimal,
    read_to: i64,
    queue: Queue,
}

impl Engine {
    pub fn new(
        events: Arc<EventHub>,
        store: Arc<dyn Store>,
        simulator: Arc<Simulator>,
        book: Arc<Book>,
        claims: Arc<ClaimsCache>,
        commission: Commission,
        on_fill: impl Fn() + Send + Sync + 'static,
    ) -> Self {
        Engine {
            store,
            simulator,
            book,
            claims,
            commission,
            events,
            on_fill: Box::new(on_fill),
            ticks: tokio::sync::Mutex::new(()),
            ticked: tokio::sync::watch::Sender::new(0),
            crossed: parking_lot::Mutex::new(None),
            queues: parking_lot::Mutex::default(),
        }
    }

    /// The simulated time of each tick from now on (the latest one when ticks come faster than
    /// they are read).
    pub fn ticks(&self) -> tokio::sync::watch::Receiver<i64> {
        self.ticked.subscribe()
    }

    /// Tells the quotes feed that quotes changed at `now_ms` outside a tick (a pin).
    pub fn announce(&self, now_ms: i64) {
        self.ticked.send_replace(now_ms);
    }

    /// Waits for the tick under way, and holds the next ones back while the guard lives (a
    /// checkpoint's restore).
    pub async fn hold(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.ticks.lock().await
    }

    /// Forgets what the ticks kept of the orders and the calendar (after a restore).
    pub fn forget(&self) {
        *self.crossed.lock() = None;
        self.queues.lock().clear();
        self.book.forget();
    }
}

/// Ticks one call to [`Engine::step`] may run at most; longer steps take longer ticks.
const MAX_TICKS_PER_STEP: u32 = 10_000;

impl Engine {
    /// One tick at simulated time `now`: the plans follow the clock's day, then every open
    /// order is expired, matched against its quote, or left as it is. Ticks never overlap.
    pub async fn tick(&self, now: SimTime) -> Result<(), MarketError> {
        let now_ms = now.0;
        let _one_at_a_time = self.ticks.lock().await;
        self.simulator.sync().await?;
        self.cross_ex_dates(now_ms).await?;
        let open = self.book.open(&*self.store).await?;
        self.forget_queues(&open);
        // A multi-leg order's legs are quoted too.
        let legs: Vec<i64> = open
            .iter()
            .filter_map(|o| o.multi_leg.as_ref())
            .flat_map(|m| m.legs.iter().map(|l| l.instrument_id))
            .collect();
        self.simulator
            .prepare(open.iter().map(|o| o.instrument_id).chain(legs))
            .await;
        let mut quotes: HashMap<i64, Option<Quote>> = HashMap::new();
        // The tape since the last tick, read once an instrument for all its resting orders.
        let mut tapes: Tapes = HashMap::new();
        'orders: for order in open {
            if order.expires_at_sim.is_some_and(|at| now >= at) {
                let reason = match order.time_in_force {
                    TimeInForce::Gtd => "a GTD order is cancelled at the close of its expire_date",
                    _ => "a DAY order is cancelled at the close of its session",
                };
                self.end(&order, Event::Expire, reason).await?;
                continue;
            }
            if let Some(multi) = &order.multi_leg {
                self.fill_legs(&order, multi, now, &mut quotes).await?;
                continue;
            }
            let quote = quotes
                .entry(order.instrument_id)
                .or_insert_with(|| self.simulator.quote_of(order.instrument_id, now_ms));
            let Some(quote) = quote.as_ref() else { continue };
            let mut order = order;
            if let Some(stop) = matching::watch(&order, quote) {
                let triggered_at = stop.triggered.then_some(now);
                let moved = self
                    .store
                    .move_stop(&order.order_id, stop.stop_price, triggered_at, WallTime::now())
                    .await;
                self.claims.forget(&order.account_id);
                moved?;
                let changed = Arc::make_mut(&mut order);
                changed.stop_price = Some(stop.stop_price);
                changed.triggered_at = triggered_at;
                self.book.update(changed.clone());
            }
            // Each level of the book the order walks is an execution of its own; an order resting
            // in the book fills from its queue.
            let mut fills = matching::fill(&order, quote);
            if fills.is_empty()
                && let Some(limit) = matching::resting(&order, quote)
            {
                fills.extend(self.queued(&order, limit, quote, &mut tapes));
            }
            // A scenario rule's plan cuts, paces and prices what matching found.
            let mut cancel_rest = None;
            if let Some(plan) = &order.fill_plan {
                let shaped = plan.shape(&order, fills, now_ms);
                fills = shaped.fills;
                cancel_rest = shaped.cancel_rest.then(|| plan.cancel_reason());
            }
            let mut filled_before = order.filled_quantity;
            for (quantity, price) in fills {
                let fill = FillRequest {
                    order_id: order.order_id.clone(),
                    quantity,
                    price,
                    commission: self.commission,
                    time: WallTime::now(),
                    market_time: now,
                    filled_before: Some(filled_before),
                    leg_prices: Vec::new(),
                };
                filled_before += quantity;
                let marks = |instrument_id: i64| self.simulator.last_of(instrument_id, now_ms);
                let outcome = self.store.apply_fill(&fill, &marks).await;
                self.claims.forget(&order.account_id);
                let outcome = outcome?;
                if let FillOutcome::Applied(_) = &outcome {
                    (self.on_fill)();
                    self.events.wake();
                }
                match outcome {
                    // What a fill does to the rest of a combination is not in the returned order.
                    FillOutcome::Applied(updated) if updated.combo.is_none() => self.book.update(*updated),
                    FillOutcome::Applied(_) => self.book.forget(),
                    FillOutcome::Stale => {
                        self.book.forget();
                        cancel_rest = None;
                        break;
                    }
                    FillOutcome::Refused(refusal) => {
                        self.end(&order, Event::Fail, refusal.reason()).await?;
                        continue 'orders;
                    }
                }
            }
            if let Some(reason) = cancel_rest {
                self.end(&order, Event::Cancel, &reason).await?;
                continue;
            }
            // An IOC order has had its one chance, or none at all outside its sessions.
            if order.time_in_force == TimeInForce::Ioc {
                let (event, reason) = if matching::trades_in(order.session, quote.session) {
                    (Event::Expire, "IOC: what could not fill at once is cancelled")
                } else {
                    (
                        Event::Fail,
                        "IOC: the market is closed for the order's sessions (support_trading_session)",
                    )
                };
                self.end(&order, event, reason).await?;
            }
        }
        self.announce(now_ms);
        Ok(())
    }

    /// Matches a multi-leg order against its legs' quotes ([`multi_leg::fill`]) and applies
    /// what fills, every leg in one transaction; an order with a leg that expired is cancelled
    /// (its contract is no longer quoted).
    async fn fill_legs(
        &self,
        order: &Arc<Order>,
        multi: &MultiLeg,
        now: SimTime,
        quotes: &mut HashMap<i64, Option<Quote>>,
    ) -> Result<(), MarketError> {
        let today = NewYork::of(now.0).day;
        if multi
            .legs
            .iter()
            .any(|l| Contract::of_id(l.instrument_id).is_some_and(|c| c.expiry < today))
        {
            return self
                .end(order, Event::Expire, "a leg's contract expired: the order is cancelled")
                .await;
        }
        for leg in &multi.legs {
            quotes
                .entry(leg.instrument_id)
                .or_insert_with(|| self.simulator.quote_of(leg.instrument_id, now.0));
        }
        let legs: Option<Vec<&Quote>> = multi
            .legs
            .iter()
            .map(|l| quotes.get(&l.instrument_id).and_then(Option::as_ref))
            .collect();
        let Some((mut units, mut prices)) = legs.and_then(|legs| multi_leg::fill(order, multi, &legs)) else {
            return Ok(());
        };
        // A scenario rule's plan cuts, paces and prices what matching found, as a single order's.
        let mut cancel_rest = None;
        if let Some(plan) = &order.fill_plan {
            let cancel;
            (units, prices, cancel) = plan.shape_legs(order, multi, units, prices, now.0);
            cancel_rest = cancel.then(|| plan.cancel_reason());
        }
        if units.is_zero() {
            return Ok(());
        }
        let fill = FillRequest {
            order_id: order.order_id.clone(),
            quantity: units,
            price: multi.net(&prices),
            commission: self.commission,
            time: WallTime::now(),
            market_time: now,
            filled_before: Some(order.filled_quantity),
            leg_prices: prices,
        };
        let marks = |instrument_id: i64| self.simulator.last_of(instrument_id, now.0);
        let outcome = self.store.apply_fill(&fill, &marks).await;
        self.claims.forget(&order.account_id);
        match outcome? {
            FillOutcome::Applied(updated) => {
                (self.on_fill)();
                self.events.wake();
                self.book.update(*updated);
            }
            FillOutcome::Stale => {
                self.book.forget();
                return Ok(());
            }
            FillOutcome::Refused(refusal) => return self.end(order, Event::Fail, refusal.reason()).await,
        }
        if let Some(reason) = cancel_rest {
            self.end(order, Event::Cancel, &reason).await?;
        }
        Ok(())
    }

    /// What `order`, resting at `limit`, fills from its queue at `quote`'s moment: this node
    /// follows the tape from the tick it first saw the order rest (the back of the queue at its
    /// price then), reading only the seconds since the last tick. Each morning, after a change
    /// of limit or a restart the order joins the back of its queue again, as brokers resubmit
    /// resting orders. A pinned quote has no tape; the sessions around the core one have a thin
    /// one ([`DayPath::tape`](signet_domain::simulator::daypath::DayPath::tape)).
    fn queued(&self, order: &Order, limit: Decimal, quote: &Quote, tapes: &mut Tapes) -> Option<(Decimal, Decimal)> {
        let mut queues = self.queues.lock();
        if quote.pinned || quote.held.is_some() || quote.session == Session::Closed {
            // The tape of a pinned, held or closed stretch does not count: the order joins again
            // after.
            queues.remove(&order.order_id);
            return None;
        }
        let ny = NewYork::of(quote.time_ms);
        let until = ny.second + 1;
        let joined = || Watch {
            day: ny.day,
            limit,
            read_to: until,
            queue: Queue::join(order.side, limit, quote),
        };
        let watch = match queues.get_mut(&order.order_id) {
            Some(watch) if watch.day == ny.day && watch.limit == limit => watch,
            _ => queues.entry(order.order_id.clone()).insert_entry(joined()).into_mut(),
        };
        if watch.read_to < until {
            let key = (order.instrument_id, watch.read_to);
            let tape = match tapes.get(&key) {
                Some(tape) => tape,
                // An option contract's queue follows its own prints.
                None if is_contract(order.instrument_id) => {
                    let trades = self
                        .simulator
                        .contract_trades(order.instrument_id, ny.day, watch.read_to, until)?;
                    tapes.entry(key).or_insert(trades)
                }
                None => {
                    let path = self
                        .simulator
                        .path_today(order.instrument_id)
                        .filter(|p| p.day() == ny.day)?;
                    let trades = path
                        .tape(watch.read_to, until)
                        .map(|t| (Decimal::new(t.cents, 2), t.volume));
                    tapes.entry(key).or_insert(trades.collect())
                }
            };
            for &(price, shares) in tape {
                watch.queue.absorb(order.side, limit, price, shares);
            }
            watch.read_to = until;
        }
        matching::queue_fill(order, &watch.queue)
    }

    /// Stops following the queues of orders no longer open.
    fn forget_queues(&self, open: &[Arc<Order>]) {
        let mut queues = self.queues.lock();
        if queues.is_empty() {
            return;
        }
        let open: HashSet<&str> = open.iter().map(|o| o.order_id.as_str()).collect();
        queues.retain(|id, _| open.contains(id.as_str()));
    }

    /// Applies the splits and dividends of the days the clock entered since the last crossing
    /// ([`signet_store::TradingStore::cross_ex_dates`]), once per day this node sees.
    async fn cross_ex_dates(&self, now_ms: i64) -> Result<(), MarketError> {
        let today = NewYork::of(now_ms).day;
        if *self.crossed.lock() == Some(today) {
            return Ok(());
        }
        let crossed = self.store.cross_ex_dates(today, WallTime::now()).await;
        // Whatever happened, the claims of the accounts it may have changed are read again.
        if let Ok(crossed) = &crossed {
            let accounts = crossed.applied.iter().map(|a| &a.account_id);
            for account_id in accounts.chain(crossed.cancelled.iter().map(|o| &o.account_id)) {
                self.claims.forget(account_id);
            }
        }
        let crossed = crossed?;
        if !crossed.cancelled.is_empty() {
            self.book.forget();
        }
        if !crossed.applied.is_empty() || !crossed.cancelled.is_empty() {
            tracing::info!(
                day = today,
                applied = crossed.applied.len(),
                cancelled = crossed.cancelled.len(),
                "splits and dividends applied to the positions held across their ex-dates"
            );
            self.events.wake();
        }
        self.settle_expired_options(today).await?;
        *self.crossed.lock() = Some(today);
        Ok(())
    }

    /// Settles the option contracts held that expired before `today` and cancels their open
    /// orders ([`signet_store::TradingStore::settle_expired_options`]).
    async fn settle_expired_options(&self, today: i32) -> Result<(), MarketError> {
        let settled = self.store.settle_expired_options(today, WallTime::now()).await;
        if let Ok(settled) = &settled {
            let accounts = settled.settled.iter().map(|s| &s.account_id);
            for account_id in accounts.chain(settled.cancelled.iter().map(|o| &o.account_id)) {
                self.claims.forget(account_id);
            }
        }
        let settled = settled?;
        if !settled.cancelled.is_empty() {
            self.book.forget();
        }
        if !settled.settled.is_empty() || !settled.cancelled.is_empty() {
            tracing::info!(
                day = today,
                settled = settled.settled.len(),
                cancelled = settled.cancelled.len(),
                "option contracts settled at their expiry"
            );
            self.events.wake();
        }
        Ok(())
    }

    /// Ends an open order with `event` (no-op when it ended meanwhile).
    async fn end(&self, order: &Order, event: Event, reason: &str) -> Result<(), MarketError> {
        let ended = self
            .store
            .update_open_order(&order.order_id, event, Some(reason), None, WallTime::now())
            .await;
        self.claims.forget(&order.account_id);
        let ended = ended?;
        if ended.is_some() {
            self.events.wake();
        }
        match ended {
            Some(ended) if ended.combo.is_none() => self.book.update(ended),
            _ => self.book.forget(),
        }
        Ok(())
    }

    /// Moves a manual clock forward by `by`, ticking on the way as the running clock would.
    pub async fn step(&self, by: Duration) -> Result<(), MarketError> {
        // Whole milliseconds, which is what the clock counts in.
        let per_tick =
            Duration::from_millis(u64::try_from((by / MAX_TICKS_PER_STEP).as_millis()).unwrap_or(u64::MAX - 1) + 1);
        let tick_length = self.simulator.tick().max(per_tick);
        let mut left = by;
        while !left.is_zero() {
            let this = left.min(tick_length);
            let now = self.simulator.advance(this).await?;
            self.tick(now).await?;
            left -= this;
        }
        Ok(())
    }
}

/// Ticks four times a second of real time (a clock that is not manual) until `stop`, which a
/// tick under way finishes first. A tick that panics is logged and reported to `panicked` (the
/// server counts it in its metrics), and the next tick runs (`ticker::run`).
pub async fn run_ticker(
    engine: Arc<Engine>,
    panicked: impl Fn() + Send + 'static,
    stop: tokio::sync::oneshot::Receiver<()>,
) {
    let tick = move || {
        let engine = engine.clone();
        async move {
            // A manual clock moves only by steps, which tick themselves (a restored checkpoint
            // may have set it so).
            if engine.simulator.clock_mode() == ClockMode::Manual {
                return Ok(());
            }
            engine.tick(engine.simulator.now()).await
        }
    };
    ticker::run(tick, panicked, stop).await;
}
