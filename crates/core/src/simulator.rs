//! The market simulator: a quote for every instrument at any simulated moment.
//!
//! Each New York trading day every listed instrument has a plan (`DayPlan`): its stored
//! bar when the simulated day lies within the price history (replay), a flat day at the previous
//! close for an instrument that did not trade that day, and beyond the history a seeded draw
//! from the previous close. Quotes are read off the plan at the clock's second, so they depend on
//! the seed and the time only, not on how often they are read. A test or an operator can pin an
//! instrument's quote (`signet market set`) to force the price an order fills at.
//!
//! A drawn day, once over, is stored as daily bars (marked generated) and the screeners' figures
//! are computed anew, so that rankings and fundamentals follow the simulated market, and a
//! restart replays what was simulated.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use rust_decimal::Decimal;
use signet_domain::checkpoint::{MarketState, SavedClock};
use signet_domain::marketdata::import::{Chunk, ImportMessage};
use signet_domain::marketdata::{MinuteBar, SymbolBar};
use signet_domain::options::is_contract;
use signet_domain::scenarios::MarketRules;
use signet_domain::simulator::calendar;
use signet_domain::simulator::clock::CORE_OPEN;
use signet_domain::simulator::clock::{Clock, ClockMode, NewYork, Session, next_core_open};
use signet_domain::simulator::daypath::{DayPath, Stretch};
use signet_domain::simulator::intraday::{self, Candle};
use signet_domain::simulator::path::{DayPlan, cents};
use signet_domain::simulator::{Held, Listing, Pin, PinError, Quote, clock};
use signet_domain::times::SimTime;
use signet_store::{Store, StoreError};

/// How the simulator runs (flags of `signet serve`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarketConfig {
    pub seed: u64,
    pub clock: ClockMode,
    /// New York day the simulated clock starts on (at its core open); by default the first
    /// weekday after the last stored bar, or today when there is none.
    pub start_day: Option<i32>,
    /// Simulated time between two ticks of the engine.
    pub tick: Duration,
}

impl Default for MarketConfig {
    fn default() -> Self {
        MarketConfig {
            seed: 2013,
            clock: ClockMode::Running { speed: 1.0 },
            start_day: None,
            tick: Duration::from_millis(250),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MarketError {
    #[error("unknown symbol {0:?}")]
    UnknownSymbol(String),
    #[error("the clock follows real time and cannot be stepped")]
    RealClock,
    #[error(transparent)]
    BadQuote(#[from] PinError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The market of option contracts, made from their underlyings' quotes
/// ([`crate::options::Options`]), so that whoever asks the simulator for a quote (the engine,
/// placement, the accounts) gets one for a contract too.
pub trait ContractQuotes: Send + Sync {
    /// Contract `contract_id`'s quote at `time_ms`: `None` when its underlying was not prepared
    /// today ([`ContractQuotes::prepare`]).
    fn quote_at(&self, contract_id: i64, time_ms: i64) -> Option<Quote>;
    /// Contract `contract_id`'s trades (price, contracts) of New York `day` in the seconds
    /// `from..until`, oldest first: `None` when its underlying was not prepared today.
    fn trades(&self, contract_id: i64, day: i32, from: i64, until: i64) -> Option<Vec<(Decimal, u64)>>;
    /// Reads what quoting these contracts needs (their underlyings' figures of the day).
    fn prepare<'a>(&'a self, contract_ids: &'a [i64]) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + 'a>>;
}

pub struct Simulator {
    /// Set again only by a restore ([`Simulator::restore`]).
    seed: AtomicU64,
    /// Where the quotes of option contracts come from, once set.
    contracts: OnceLock<Weak<dyn ContractQuotes>>,
    clock: Clock,
    tick: Duration,
    store: Arc<dyn Store>,
    state: RwLock<State>,
    /// Each (instrument, day)'s path, drawn once: quotes, ticks and bars read it.
    paths: RwLock<HashMap<(i64, i32), Arc<DayPath>>>,
    /// What the scenario rules in force do to the market ([`Simulator::follow`]).
    rules: RwLock<MarketRules>,
}

/// (instrument, day) paths kept beyond which the days before today are dropped (about 10 KB
/// each: the demo's ten thousand instruments fit).
const MAX_CACHED_PATHS: usize = 16_384;

/// `path`'s one-minute bars before `until` (a second of the core session, exclusive): its whole
/// minutes, and the one under way up to `until`.
fn minutes_until(path: &DayPath, until: i64) -> Vec<Candle> {
    let mut minutes: Vec<Candle> = path.whole_minutes(until).collect();
    let minute = CORE_OPEN + (until - CORE_OPEN).div_euclid(60) * 60;
    minutes.extend(intraday::fold(&intraday::candles(
        path.day(),
        path.trades(minute, until),
        60,
    )));
    minutes
}

#[derive(Default)]
struct State {
    /// The New York day the plans are for.
    day: i32,
    /// Whether that day is a trading day (a weekday, and not a holiday of the history).
    trading: bool,
    plans: HashMap<i64, DayPlan>,
    /// Close of each instrument's last trading day before `day`.
    closes: HashMap<i64, f64>,
    listings: HashMap<i64, Listing>,
    ids: HashMap<String, i64>,
    pins: HashMap<i64, Pin>,
    /// The imported one-minute bars of `day`, by instrument: those instruments replay them.
    imported: HashMap<i64, Arc<[MinuteBar]>>,
}

/// Stores the bars of simulated days that are over, and computes the screeners' figures anew.
async fn store_finished_days(store: Arc<dyn Store>, bars: Vec<SymbolBar>) -> Result<(), StoreError> {
    let (tx, rx) = tokio::sync::mpsc::channel(2);
    let writer = {
        let store = store.clone();
        tokio::spawn(async move { store.import(rx).await })
    };
    for message in [
        ImportMessage::Chunk(Chunk::Bars { bars, generated: true }),
        ImportMessage::Commit,
    ] {
        if tx.send(message).await.is_err() {
            break;
        }
    }
    drop(tx);
    writer.await.map_err(|e| StoreError::Other(e.to_string()))??;
    signet_store::refresh_snapshots(store.as_ref(), None).await?;
    Ok(())
}

/// Days of history beyond which a simulator catching up draws only the last day.
const MAX_CATCH_UP_DAYS: i32 = 10;

impl Simulator {
    /// Loads the listings and the plans of the starting day.
    pub async fn start(store: Arc<dyn Store>, config: MarketConfig) -> Result<Arc<Self>, StoreError> {
        let start_ms = match (config.clock, config.start_day) {
            (ClockMode::Real, _) => clock::wall_clock_ms(),
            (_, Some(day)) => next_core_open(day),
            (_, None) => match store.latest_bar_day().await? {
                Some(last) => next_core_open(last + 1),
                None => next_core_open(NewYork::of(clock::wall_clock_ms()).day),
            },
        };
        let state = Self::fresh_state(store.as_ref(), config.seed, start_ms).await?;
        let simulator = Arc::new(Simulator {
            seed: AtomicU64::new(config.seed),
            contracts: OnceLock::new(),
            clock: Clock::new(config.clock, start_ms),
            tick: config.tick,
            store,
            state: RwLock::new(state),
            paths: RwLock::default(),
            rules: RwLock::default(),
        });
        simulator.sync().await?;
        Ok(simulator)
    }

    /// The listings, and the closes before the day of `start_ms`: what the plans of that day
    /// are drawn from ([`Simulator::sync`]).
    async fn fresh_state(store: &dyn Store, seed: u64, start_ms: i64) -> Result<State, StoreError> {
        let start_day = NewYork::of(start_ms).day;
        let listings = store.listings().await?;
        let closes: HashMap<i64, f64> = store
            .closes_before(start_day)
            .await?
            .into_iter()
            .map(|(id, c)| (id, c as f64 / 1e6))
            .collect();
        let mut state = State {
            day: start_day - 1,
            closes,
            ids: listings.iter().map(|l| (l.symbol.clone(), l.instrument_id)).collect(),
            listings: listings.into_iter().map(|l| (l.instrument_id, l)).collect(),
            ..State::default()
        };
        // Instruments with no price at all start from a seeded price between $5 and $50.
        for &id in state.listings.keys() {
            state
                .closes
                .entry(id)
                .or_insert_with(|| DayPlan::draw(seed, id, 0, 20.0, 0.6, 0.0).close.clamp(5.0, 50.0));
        }
        Ok(state)
    }

    /// The clock, seed and pinned quotes, as a checkpoint holds them.
    pub fn market_state(&self) -> MarketState {
        let state = self.state();
        let mut pins: Vec<(String, Pin)> = state
            .pins
            .iter()
            .filter_map(|(id, pin)| Some((state.listings.get(id)?.symbol.clone(), *pin)))
            .collect();
        pins.sort_by(|a, b| a.0.cmp(&b.0));
        MarketState {
            now_ms: self.now_ms(),
            clock: self.clock_mode().into(),
            seed: self.seed(),
            pins,
        }
    }

    /// Puts a checkpoint's market back: its seed and pins, and its clock unless either clock
    /// follows real time (which no checkpoint sets); every plan and path is drawn again, as at
    /// a start, from the database as the restore left it.
    pub async fn restore(&self, saved: &MarketState) -> Result<(), StoreError> {
        let keeps_real = self.clock_mode() == ClockMode::Real || saved.clock == SavedClock::Real;
        let now_ms = if keeps_real { self.now_ms() } else { saved.now_ms };
        let mut state = Self::fresh_state(self.store.as_ref(), saved.seed, now_ms).await?;
        state.pins = saved
            .pins
            .iter()
            .filter_map(|(symbol, pin)| Some((*state.ids.get(symbol)?, *pin)))
            .collect();
        self.seed.store(saved.seed, Ordering::Relaxed);
        if !keeps_real {
            self.clock.set(saved.clock.into(), saved.now_ms);
        }
        *self.state_mut() = state;
        self.paths.write().clear();
        self.sync().await
    }

    /// The market's state. A panic while it was written (a bug) leaves it as the panic found it
    /// instead of failing every later tick and quote: the market goes on.
    fn state(&self) -> RwLockReadGuard<'_, State> {
        self.state.read()
    }

    fn state_mut(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write()
    }

    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The simulated now, typed apart from the wall clock for where the two meet (an order's
    /// placement, a fill).
    pub fn now(&self) -> SimTime {
        SimTime(self.now_ms())
    }

    pub fn tick(&self) -> Duration {
        self.tick
    }

    pub fn clock_mode(&self) -> ClockMode {
        self.clock.mode()
    }

    /// Brings the plans to the clock's current New York day.
    pub async fn sync(&self) -> Result<(), StoreError> {
        let today = NewYork::of(self.now_ms()).day;
        let from = {
            let state = self.state();
            if state.day >= today {
                return Ok(());
            }
            (state.day + 1).max(today - MAX_CATCH_UP_DAYS)
        };
        let history_ends = self.store.latest_bar_day().await?.unwrap_or(i32::MIN);
        let gaps = self.rules().gaps.clone();
        let mut finished = Vec::new();
        for day in from..=today {
            // Within the history the market traded on the days with bars; beyond it, on the
            // exchange's trading days.
            let weekday = (NewYork { day, second: 0 }).is_weekday();
            let bars = if weekday && day <= history_ends {
                self.store.bars_between(day, day).await?
            } else {
                Vec::new()
            };
            // The instruments with imported minutes that day replay them.
            let imported: HashMap<i64, Arc<[MinuteBar]>> = if weekday && day <= history_ends {
                self.store
                    .minutes_on(day)
                    .await?
                    .into_iter()
                    .map(|(id, minutes)| (id, Arc::from(minutes)))
                    .collect()
            } else {
                HashMap::new()
            };
            // On a split's ex-date the previous close is quoted as the split made it.
            let splits: HashMap<i64, f64> = if weekday && day <= history_ends {
                self.store
                    .splits_on(day)
                    .await?
                    .into_iter()
                    .filter_map(|(id, ratio)| Some((id, f64::try_from(ratio).ok()?)).filter(|&(_, r)| r > 0.0))
                    .collect()
            } else {
                HashMap::new()
            };
            let mut state = self.state_mut();
            if state.trading && state.day > history_ends {
                let state = &*state;
                finished.extend(
                    state
                        .plans
                        .iter()
                        .filter(|(_, plan)| !plan.replayed)
                        .filter_map(|(id, plan)| {
                            Some(SymbolBar {
                                symbol: state.listings.get(id)?.symbol.clone(),
                                bar: plan.bar(),
                            })
                        }),
                );
            }
            state.day = day;
            state.imported = imported;
            state.trading = if day <= history_ends {
                weekday && !bars.is_empty()
            } else {
                calendar::is_trading_day(day)
            };
            if !state.trading {
                continue;
            }
            let replayed: HashMap<i64, _> = bars.into_iter().collect();
            let mut plans = HashMap::with_capacity(state.listings.len());
            let mut gapped = Vec::new();
            for (&id, listing) in &state.listings {
                let prev_close =
                    state.closes.get(&id).copied().unwrap_or(20.0) / splits.get(&id).copied().unwrap_or(1.0);
                let plan = match replayed.get(&id) {
                    Some(bar) => DayPlan::replay(day, prev_close, bar),
                    // Within the history, an instrument without a bar did not trade that day.
                    None if day <= history_ends => DayPlan {
                        day,
                        prev_close,
                        open: prev_close,
                        high: prev_close,
                        low: prev_close,
                        close: prev_close,
                        volume: 0.0,
                        replayed: false,
                    },
                    None => DayPlan::draw(self.seed(), id, day, prev_close, listing.vol, listing.volume),
                };
                // A scenario rule's gap moves the day, which is then drawn from its plan.
                let plan = match gaps.iter().find(|gap| gap.symbol == listing.symbol && gap.on(day)) {
                    Some(gap) => {
                        gapped.push(id);
                        plan.gapped(gap.ratio)
                    }
                    None => plan,
                };
                plans.insert(id, plan);
            }
            for id in gapped.drain(..) {
                state.imported.remove(&id);
            }
            for (id, plan) in &plans {
                state.closes.insert(*id, plan.close);
            }
            state.plans = plans;
        }
        if !finished.is_empty() {
            // In the background: the ticks go on while the figures are computed.
            let store = self.store.clone();
            tokio::spawn(async move {
                if let Err(e) = store_finished_days(store, finished).await {
                    tracing::warn!(error = %e, "storing the simulated day failed");
                }
            });
        }
        Ok(())
    }

    pub fn instrument_id(&self, symbol: &str) -> Option<i64> {
        self.state().ids.get(symbol).copied()
    }

    /// What the simulator draws an instrument's days from.
    pub fn listing(&self, instrument_id: i64) -> Option<Listing> {
        self.state().listings.get(&instrument_id).cloned()
    }

    /// The symbol of an instrument the simulator quotes (the v1 calls place by instrument id).
    pub fn symbol_of(&self, instrument_id: i64) -> Option<String> {
        self.state().listings.get(&instrument_id).map(|l| l.symbol.clone())
    }

    /// The quote of `symbol` now.
    pub fn quote(&self, symbol: &str) -> Result<Quote, MarketError> {
        let id = self
            .instrument_id(symbol)
            .ok_or_else(|| MarketError::UnknownSymbol(symbol.to_owned()))?;
        Ok(self
            .quote_of(id, self.now_ms())
            .expect("a listed instrument has a quote"))
    }

    /// Every instrument's last price at `from_ms` and its quote at `to_ms` (both within the day
    /// the plans are for), for the intraday rankings.
    pub fn moves(&self, from_ms: i64, to_ms: i64) -> Vec<(Decimal, Quote)> {
        let ids: Vec<i64> = self.state().listings.keys().copied().collect();
        ids.into_iter()
            .filter_map(|id| Some((self.quote_of(id, from_ms)?.last, self.quote_of(id, to_ms)?)))
            .collect()
    }

    /// Follows these scenario rules from now on, in place of those before: symbols held still
    /// at once, gaps from the next day the simulator plans.
    pub fn follow(&self, rules: MarketRules) {
        *self.rules.write() = rules;
    }

    fn rules(&self) -> RwLockReadGuard<'_, MarketRules> {
        self.rules.read()
    }

    /// How `symbol` is held still at `time_ms`, and since when, if it is.
    pub fn held(&self, symbol: &str, time_ms: i64) -> Option<(Held, i64)> {
        self.rules()
            .holds
            .iter()
            .filter(|hold| hold.symbol == symbol)
            .find_map(|hold| Some((hold.held, hold.since(time_ms)?)))
    }

    /// The quote of an instrument at `time_ms` (within the day the plans are for). A symbol a
    /// scenario rule holds still quotes what it quoted when the hold began, timed then, in the
    /// session of `time_ms`: the snapshots, ticks and feed made from the quote stand still too.
    pub fn quote_of(&self, instrument_id: i64, time_ms: i64) -> Option<Quote> {
        if is_contract(instrument_id) {
            return self.contracts.get()?.upgrade()?.quote_at(instrument_id, time_ms);
        }
        let ny = NewYork::of(time_ms);
        let (listing, plan, close, pin, session, held, priced) = {
            let state = self.state();
            let listing = state.listings.get(&instrument_id)?;
            let held = self.held(&listing.symbol, time_ms);
            // The overnight session runs at the last price, also on the evening before a trading day.
            let session = match ny.session() {
                Session::Overnight => Session::Overnight,
                s if state.trading && ny.day == state.day => s,
                _ => Session::Closed,
            };
            // A held symbol's price is the one of the moment the hold began, in the session of now.
            let priced = held.map_or(ny, |(_, since)| NewYork::of(since));
            let plan = state
                .plans
                .get(&instrument_id)
                .copied()
                .filter(|_| state.trading && priced.day == state.day);
            let close = state.closes.get(&instrument_id).copied().unwrap_or(20.0);
            (
                listing.clone(),
                plan,
                close,
                state.pins.get(&instrument_id).copied(),
                session,
                held,
                priced,
            )
        };
        let path = plan.map(|p| self.path(instrument_id, &p));
        let (price, volume, recent) = match &path {
            Some(path) => (
                path.price_at(priced.second),
                path.volume_before(priced.second + 1),
                path.minute_before(priced.second),
            ),
            None => (cents(close), 0, None),
        };
        let money = |cents: i64| Decimal::new(cents, 2);
        let last = pin.map_or_else(|| money(price), |p| p.last);
        let top = listing.top(price, recent, session);
        let half_spread = money(top.half_spread);
        let (open, pre_close) = match plan {
            Some(p) => (money(cents(p.open)), money(cents(p.prev_close))),
            None => (last, money(cents(close))),
        };
        Some(Quote {
            instrument_id,
            symbol: listing.symbol,
            // A held quote is the one of the moment the hold began: its figures stand still.
            time_ms: held.map_or(time_ms, |(_, since)| since),
            session,
            bid: pin.map_or_else(|| (last - half_spread).max(Decimal::new(1, 2)), |p| p.bid),
            ask: pin.map_or_else(|| last + half_spread, |p| p.ask),
            bid_size: pin.map_or(top.size, |p| p.size),
            ask_size: pin.map_or(top.size, |p| p.size),
            last,
            open,
            pre_close,
            volume,
            pinned: pin.is_some(),
            held: held.map(|(held, _)| held),
        })
    }

    /// Contract `contract_id`'s trades of New York `day` in the seconds `from..until` (what a
    /// resting order's queue follows), when its underlying is prepared.
    pub fn contract_trades(&self, contract_id: i64, day: i32, from: i64, until: i64) -> Option<Vec<(Decimal, u64)>> {
        self.contracts.get()?.upgrade()?.trades(contract_id, day, from, until)
    }

    /// Makes `contracts` the source of option contracts' quotes (once; later calls change
    /// nothing).
    pub fn quote_contracts_with(&self, contracts: Weak<dyn ContractQuotes>) {
        let _ = self.contracts.set(contracts);
    }

    /// Reads what quoting `instrument_ids` needs now, for those that are option contracts:
    /// before a loop that asks [`Simulator::quote_of`] or [`Simulator::last_of`] of them.
    pub async fn prepare(&self, instrument_ids: impl IntoIterator<Item = i64>) {
        let mut contracts: Vec<i64> = instrument_ids.into_iter().filter(|&id| is_contract(id)).collect();
        if contracts.is_empty() {
            return;
        }
        contracts.sort_unstable();
        contracts.dedup();
        if let Some(source) = self.contracts.get().and_then(Weak::upgrade) {
            source.prepare(&contracts).await;
        }
    }

    /// The plan of `instrument` today (the simulator's day), if it trades today.
    pub fn plan_today(&self, instrument_id: i64) -> Option<DayPlan> {
        let state = self.state();
        state.plans.get(&instrument_id).copied().filter(|_| state.trading)
    }

    /// The path of `instrument` today (the simulator's day), if it trades today.
    pub fn path_today(&self, instrument_id: i64) -> Option<Arc<DayPath>> {
        let plan = self.plan_today(instrument_id)?;
        Some(self.path(instrument_id, &plan))
    }

    /// `plan`'s path, drawn once and kept: every quote, tick and bar of the day reads it.
    pub fn path(&self, instrument_id: i64, plan: &DayPlan) -> Arc<DayPath> {
        if let Some(path) = self.kept(instrument_id, plan) {
            return path;
        }
        let imported = {
            let state = self.state();
            (state.day == plan.day)
                .then(|| state.imported.get(&instrument_id).cloned())
                .flatten()
        };
        let path = match imported {
            Some(minutes) => DayPath::replay(plan, self.seed(), instrument_id, &minutes),
            None => DayPath::draw(plan, self.seed(), instrument_id),
        };
        self.keep(instrument_id, path)
    }

    /// [`Simulator::path`] of any day: a day before today is replayed from its imported
    /// one-minute bars when it has them (read from the store once, then kept).
    pub async fn path_on(&self, instrument_id: i64, plan: &DayPlan) -> Result<Arc<DayPath>, StoreError> {
        if plan.day == self.state().day {
            return Ok(self.path(instrument_id, plan));
        }
        if let Some(path) = self.kept(instrument_id, plan) {
            return Ok(path);
        }
        let imported = self.store.minute_bars(instrument_id, plan.day).await?;
        let path = if imported.is_empty() {
            DayPath::draw(plan, self.seed(), instrument_id)
        } else {
            DayPath::replay(plan, self.seed(), instrument_id, &imported)
        };
        Ok(self.keep(instrument_id, path))
    }

    /// The path kept for `plan`, if it is still `plan`'s (a plan changes within a day only when
    /// the history is imported again).
    fn kept(&self, instrument_id: i64, plan: &DayPlan) -> Option<Arc<DayPath>> {
        let paths = self.paths.read();
        paths
            .get(&(instrument_id, plan.day))
            .filter(|p| p.drawn_from(plan))
            .cloned()
    }

    fn keep(&self, instrument_id: i64, path: DayPath) -> Arc<DayPath> {
        let path = Arc::new(path);
        let today = self.state().day;
        let mut paths = self.paths.write();
        if paths.len() >= MAX_CACHED_PATHS {
            paths.retain(|&(_, day), _| day == today);
            if paths.len() >= MAX_CACHED_PATHS {
                paths.clear();
            }
        }
        paths.insert((instrument_id, path.day()), path.clone());
        path
    }

    pub fn seed(&self) -> u64 {
        self.seed.load(Ordering::Relaxed)
    }

    /// `plan`'s bars of `span` seconds up to `until` (a second after New York midnight,
    /// exclusive), oldest first: the trades the ticks call lists, grouped. A pin changes the
    /// quote orders meet, not these trades.
    pub async fn candles(
        &self,
        instrument_id: i64,
        plan: &DayPlan,
        span: i64,
        until: i64,
    ) -> Result<Vec<Candle>, StoreError> {
        let until = until.clamp(CORE_OPEN, plan.core_close());
        let path = self.path_on(instrument_id, plan).await?;
        if span % 60 != 0 {
            return Ok(intraday::candles(plan.day, path.trades(CORE_OPEN, until), span));
        }
        let minutes = minutes_until(&path, until);
        Ok(if span == 60 {
            minutes
        } else {
            intraday::roll_up(&minutes, span)
        })
    }

    /// `instrument`'s one-minute bars of New York `day`: today's so far, a past day's whole (its
    /// stored bar replayed, as the bars call does); none for a day it did not trade or one to come.
    pub async fn minutes_of(&self, instrument_id: i64, day: i32) -> Result<Option<Vec<Candle>>, StoreError> {
        let ny = NewYork::of(self.now_ms());
        if day == ny.day {
            return match self
                .plan_today(instrument_id)
                .filter(|p| p.day == day && p.volume > 0.0)
            {
                Some(plan) => Ok(Some(self.candles(instrument_id, &plan, 60, ny.second + 1).await?)),
                None => Ok(None),
            };
        }
        if day > ny.day {
            return Ok(None);
        }
        // The bar before gives the day its previous close.
        let bars = self.store.daily_bars(instrument_id, day - 14, day).await?;
        let plan = match bars.as_slice() {
            [.., before, bar] if bar.day == day => DayPlan::replay(day, before.close as f64 / 1e6, bar),
            [bar] if bar.day == day => DayPlan::replay(day, bar.open as f64 / 1e6, bar),
            _ => return Ok(None),
        };
        Ok(Some(self.candles(instrument_id, &plan, 60, plan.core_close()).await?))
    }

    /// `instrument`'s core session today up to `time_ms` as one bar: the day's open, high, low,
    /// last trade and volume so far (none before the open or on a day it does not trade).
    pub fn session(&self, instrument_id: i64, time_ms: i64) -> Option<Candle> {
        let plan = self.plan_today(instrument_id)?;
        let ny = NewYork::of(time_ms);
        if ny.day != plan.day {
            return None;
        }
        let until = (ny.second + 1).clamp(CORE_OPEN, plan.core_close());
        self.path(instrument_id, &plan).session(until)
    }

    /// `instrument`'s prints in the extended session under way at `time_ms`, so far (none in
    /// the core session, on a day it does not trade, or before its session's first print).
    pub fn extended_session(&self, instrument_id: i64, time_ms: i64) -> Option<Stretch> {
        let ny = NewYork::of(time_ms);
        let since = match ny.session() {
            Session::PreMarket => clock::PRE_OPEN,
            Session::AfterHours => clock::core_close(ny.day),
            Session::Overnight if ny.second < clock::PRE_OPEN => 0,
            Session::Overnight => clock::after_close(ny.day),
            Session::Core | Session::Closed => return None,
        };
        let path = self.path_today(instrument_id).filter(|p| p.day() == ny.day)?;
        path.extended_between(since, ny.second + 1)
    }

    /// The last price of an instrument at `time_ms` (within the day the plans are for): what
    /// the quote says, without the rest of the quote, for valuing positions.
    pub fn last_of(&self, instrument_id: i64, time_ms: i64) -> Option<Decimal> {
        // An option contract is valued at its mark: the middle of its bid and ask.
        if is_contract(instrument_id) {
            let quote = self.quote_of(instrument_id, time_ms)?;
            return Some(((quote.bid + quote.ask) / Decimal::TWO).round_dp(4).normalize());
        }
        let (plan, close, ny) = {
            let state = self.state();
            let listing = state.listings.get(&instrument_id)?;
            if let Some(pin) = state.pins.get(&instrument_id) {
                return Some(pin.last);
            }
            let held = self.held(&listing.symbol, time_ms);
            let ny = NewYork::of(held.map_or(time_ms, |(_, since)| since));
            let plan = state
                .plans
                .get(&instrument_id)
                .copied()
                .filter(|_| state.trading && ny.day == state.day);
            (plan, state.closes.get(&instrument_id).copied().unwrap_or(20.0), ny)
        };
        let cents = match plan {
            Some(plan) => self.path(instrument_id, &plan).price_at(ny.second),
            None => cents(close),
        };
        Some(Decimal::new(cents, 2))
    }

    /// Pins `symbol`'s quote until pinned again or released ([`Pin::new`]: bid and ask default
    /// to a cent around `last`, sizes to 10,000 shares, and all are bounded).
    pub fn pin(
        &self,
        symbol: &str,
        last: Decimal,
        bid: Option<Decimal>,
        ask: Option<Decimal>,
        size: Option<u64>,
    ) -> Result<Quote, MarketError> {
        let id = self
            .instrument_id(symbol)
            .ok_or_else(|| MarketError::UnknownSymbol(symbol.to_owned()))?;
        let pin = Pin::new(last, bid, ask, size)?;
        self.state_mut().pins.insert(id, pin);
        self.quote(symbol)
    }

    pub fn release(&self, symbol: &str) -> Result<Quote, MarketError> {
        let id = self
            .instrument_id(symbol)
            .ok_or_else(|| MarketError::UnknownSymbol(symbol.to_owned()))?;
        self.state_mut().pins.remove(&id);
        self.quote(symbol)
    }

    /// Moves a manual or running clock forward; the caller runs the engine's ticks.
    pub async fn advance(&self, by: Duration) -> Result<SimTime, MarketError> {
        if self.clock.mode() == ClockMode::Real {
            return Err(MarketError::RealClock);
        }
        let now = self.clock.step(by);
        self.sync().await?;
        Ok(SimTime(now))
    }
}
