//! Storage behind small traits, one per area, with one SQL implementation for SQLite and
//! PostgreSQL ([`sql`]), nonces and rate limits in Redis for several nodes ([`redis`]), and
//! nonces in memory for one ([`memory`]).
//!
//! Stores hold what they are given: secrets arrive sealed, tokens arrive hashed. Times are
//! milliseconds since the Unix epoch. A store loads what a rule of [`signet_domain`] needs, calls
//! it, and saves its effect: no rule is written in SQL.

pub mod batch;
pub mod memory;
pub mod redis;
mod rows;
mod seal;
mod snapshots;
pub mod sql;

use std::collections::HashMap;

use async_trait::async_trait;
use rust_decimal::Decimal;
use signet_domain::checkpoint::CheckpointName;
use signet_domain::marketdata::fundamentals::Peer;
use signet_domain::marketdata::fundamentals::layout::{DataSet, Record};
use signet_domain::marketdata::import::{ImportCounts, ImportMessage};
use signet_domain::marketdata::screeners::{Period, ScreenQuery, ScreenRow, SectorRow};
use signet_domain::marketdata::snapshot::{History, Snapshot, Summary};
use signet_domain::marketdata::{Bar, CorporateAction, Fact, Instrument, InstrumentType, MinuteBar};
use signet_domain::options::settlement::Settled;
use signet_domain::simulator::Listing;
use signet_domain::times::{SimTime, WallTime};
use signet_domain::trading::accounting::{Commission, Holding, Refusal};
use signet_domain::trading::corporate::Applied;
use signet_domain::trading::order::{Event, Order};
use signet_domain::trading::replace::Replacement;
use signet_model::ids::{AccountId, AppKey, ClientOrderId, OrderId};
use signet_model::orders::Side;
use signet_model::{AccountType, TokenStatus};
use tokio::sync::mpsc;

pub use self::seal::CheckpointKey;
pub use self::snapshots::refresh_snapshots;
pub use self::sql::placements::Written;
pub use self::sql::{Durability, SqlStore};

#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached in time (busy, locked, pool exhausted, I/O).
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// A row that must be unique already exists.
    #[error("already exists: {0}")]
    Conflict(String),
    #[error("database error: {0}")]
    Other(String),
    /// A checkpoint that does not read (damaged, made by a newer build, or sealed with another
    /// master key); nothing was changed.
    #[error("{0}")]
    Unusable(String),
    /// A multi-step write was abandoned by its caller and rolled back.
    #[error("the operation was abandoned and rolled back")]
    Aborted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppStatus {
    Active,
    Revoked,
}

impl AppStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            AppStatus::Active => "ACTIVE",
            AppStatus::Revoked => "REVOKED",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "ACTIVE" => Some(AppStatus::Active),
            "REVOKED" => Some(AppStatus::Revoked),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct AppRecord {
    pub app_key: AppKey,
    pub name: String,
    pub sealed_secret: Vec<u8>,
    pub status: AppStatus,
    pub user_id: String,
    pub created_at: i64,
    /// May drive the market simulator.
    pub admin: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRecord {
    pub account_id: AccountId,
    pub app_key: AppKey,
    pub account_type: AccountType,
    pub account_label: String,
    pub currency: String,
    pub cash: Decimal,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRecord {
    pub token_hash: String,
    pub token_hint: String,
    pub app_key: AppKey,
    /// As stored: `Pending`, `Normal` or `Invalid`; expiry is judged against `expires_at` on read.
    pub status: TokenStatus,
    pub created_at: i64,
    pub expires_at: i64,
}

impl TokenRecord {
    /// The status a client sees at `now`: a stored status, or `Expired` once past `expires_at`.
    pub fn status_at(&self, now_ms: i64) -> TokenStatus {
        if self.status != TokenStatus::Invalid && now_ms >= self.expires_at {
            TokenStatus::Expired
        } else {
            self.status
        }
    }
}

/// Apps and their accounts.
#[async_trait]
pub trait AppStore: Send + Sync {
    /// Creates an app together with its first accounts, atomically.
    async fn create_app(&self, app: &AppRecord, accounts: &[AccountRecord]) -> Result<(), StoreError>;
    async fn app(&self, app_key: &AppKey) -> Result<Option<AppRecord>, StoreError>;
    async fn apps(&self) -> Result<Vec<AppRecord>, StoreError>;
    /// Returns false when no such app exists.
    async fn set_app_status(&self, app_key: &AppKey, status: AppStatus) -> Result<bool, StoreError>;
    async fn create_account(&self, account: &AccountRecord) -> Result<(), StoreError>;
    async fn account(&self, account_id: &AccountId) -> Result<Option<AccountRecord>, StoreError>;
    /// Accounts of one app, or of every app, oldest first.
    async fn accounts(&self, app_key: Option<&AppKey>) -> Result<Vec<AccountRecord>, StoreError>;
}

/// Tokens of the token mechanism.
#[async_trait]
pub trait TokenStore: Send + Sync {
    async fn create_token(&self, token: &TokenRecord) -> Result<(), StoreError>;
    async fn token(&self, token_hash: &str) -> Result<Option<TokenRecord>, StoreError>;
    async fn tokens(&self, app_key: Option<&AppKey>) -> Result<Vec<TokenRecord>, StoreError>;
    /// Moves tokens from one status to another and returns how many moved: all of `app_key`'s,
    /// or the one with `token_hash`.
    async fn set_token_status(
        &self,
        selector: TokenSelector<'_>,
        from: TokenStatus,
        to: TokenStatus,
    ) -> Result<u64, StoreError>;
}

#[derive(Debug, Clone, Copy)]
pub enum TokenSelector<'a> {
    Hash(&'a str),
    App(&'a str),
}

/// The operator console's one-time login links and sessions, stored as hashes. Shared by every
/// node, so that a link printed by one works on any.
#[async_trait]
pub trait ConsoleStore: Send + Sync {
    /// Records a login link's token until `expires_at`, and forgets the links expired by `now`.
    async fn create_console_login(&self, token_hash: &str, expires_at: i64, now: i64) -> Result<(), StoreError>;
    /// Spends a login link: true once for a token that exists and has not expired.
    async fn redeem_console_login(&self, token_hash: &str, now: i64) -> Result<bool, StoreError>;
    /// Opens a session, and forgets those idle since before `idle_since`.
    async fn create_console_session(&self, session_hash: &str, now: i64, idle_since: i64) -> Result<(), StoreError>;
    /// Whether a session was seen since `idle_since`; if so it counts as seen `now`.
    async fn touch_console_session(&self, session_hash: &str, now: i64, idle_since: i64) -> Result<bool, StoreError>;
    async fn delete_console_session(&self, session_hash: &str) -> Result<(), StoreError>;
    /// The events of these orders, each order's in order: the console's order timelines.
    async fn order_timelines(&self, order_ids: &[OrderId]) -> Result<Vec<TimelineEvent>, StoreError>;
    /// The account's last `limit` fills at or after `since` on the simulator's clock (of one
    /// instrument when given), oldest first, with their simulator time: the console's charts.
    async fn account_fills(
        &self,
        account_id: &AccountId,
        since: Option<i64>,
        instrument_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<signet_domain::trading::valuation::PastFill>, StoreError>;
}

/// One event of an order as its timeline shows it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct TimelineEvent {
    #[sqlx(try_from = "String")]
    pub order_id: OrderId,
    pub time: i64,
    pub from_status: Option<String>,
    pub to_status: String,
    pub event: String,
    pub reason: Option<String>,
    /// The event as the trade-events subscription sent it (fill quantity and price among it).
    pub payload: Option<String>,
}

/// Used nonces. Shared by every node that serves the same apps.
#[async_trait]
pub trait NonceStore: Send + Sync {
    /// Records a nonce until `expires_at_ms`. Returns false when it was already recorded; of any
    /// number of concurrent calls with the same nonce, exactly one returns true.
    async fn remember(&self, app_key: &AppKey, nonce: &str, expires_at_ms: i64) -> Result<bool, StoreError>;
    /// Forgets nonces that expired before `now_ms`; returns how many.
    async fn purge_expired(&self, now_ms: i64) -> Result<u64, StoreError>;
    /// How many nonces are held (expired ones not yet purged too), for the metrics.
    async fn count(&self) -> Result<u64, StoreError>;
}

/// Small facts about the database itself, such as which master key seals its secrets.
#[async_trait]
pub trait MetaStore: Send + Sync {
    async fn meta(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// Sets `key` unless it is set; returns the value now stored.
    async fn init_meta(&self, key: &str, value: &str) -> Result<String, StoreError>;
    /// A cheap round trip, for the readiness probe.
    async fn ping(&self) -> Result<(), StoreError>;
    /// Closes the connections, waiting for those in use to be returned.
    async fn close(&self);
    /// Other processes serving apps may change it (several nodes): rows must not be cached
    /// between requests.
    fn shared(&self) -> bool;
}

/// Instruments, daily and minute bars, corporate actions and facts.
#[async_trait]
pub trait MarketDataStore: Send + Sync {
    /// Applies the chunks of one file atomically, making them visible only on
    /// [`ImportMessage::Commit`]; when the stream ends without it, nothing changes and the
    /// answer is [`StoreError::Aborted`]. Corporate actions are derived again for instruments
    /// whose bars changed. On PostgreSQL, and for small files on SQLite, one transaction; a
    /// large file of bars on SQLite is staged in short transactions and swapped in at the end
    /// (`sql/staged_import.rs`), so that a server's writes beside it do not wait for it. A file
    /// of minutes sends its daily bars last, so on SQLite it keeps the one transaction.
    async fn import(&self, messages: mpsc::Receiver<ImportMessage>) -> Result<ImportCounts, StoreError>;
    async fn market_data_status(&self) -> Result<MarketDataStatus, StoreError>;
    async fn instrument(&self, symbol: &str) -> Result<Option<Instrument>, StoreError>;
    /// Every instrument, by id.
    async fn instruments(&self) -> Result<Vec<Instrument>, StoreError>;
    /// A page of instruments by id, after `after_id`: of `symbols` when given, of one type when
    /// given.
    async fn instrument_page(&self, query: &InstrumentQuery) -> Result<Vec<Instrument>, StoreError>;
    /// Each instrument's last close on a day before `day`, by instrument id.
    async fn closes_before(&self, day: i32) -> Result<HashMap<i64, i64>, StoreError>;
    /// Every bar from `from_day` to `to_day` inclusive, with its instrument id (one scan: the
    /// bars are keyed by instrument first).
    async fn bars_between(&self, from_day: i32, to_day: i32) -> Result<Vec<(i64, Bar)>, StoreError>;
    /// The instruments the market simulator quotes, with their recent volatility and volume.
    async fn listings(&self) -> Result<Vec<Listing>, StoreError>;
    /// Bars of an instrument from `from_day` to `to_day` inclusive, oldest first.
    async fn daily_bars(&self, instrument_id: i64, from_day: i32, to_day: i32) -> Result<Vec<Bar>, StoreError>;
    /// The imported minutes of an instrument's New York `day`, by minute; empty when none were
    /// imported (one read of the primary key's range).
    async fn minute_bars(&self, instrument_id: i64, day: i32) -> Result<Vec<MinuteBar>, StoreError>;
    /// Every instrument's imported minutes of New York `day`, by instrument id, each by minute;
    /// instruments without minutes that day are left out (one read of an index by day).
    async fn minutes_on(&self, day: i32) -> Result<Vec<(i64, Vec<MinuteBar>)>, StoreError>;
    async fn corporate_actions(&self, instrument_id: i64) -> Result<Vec<CorporateAction>, StoreError>;
    /// The splits whose ex-date is New York `day`: each instrument with its new shares for one.
    async fn splits_on(&self, day: i32) -> Result<Vec<(i64, Decimal)>, StoreError>;
    /// Facts of one company and concept (any taxonomy and unit), by period end then filing.
    async fn facts(&self, cik: &str, concept: &str) -> Result<Vec<Fact>, StoreError>;
}

/// Which instruments to list, by instrument id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstrumentQuery {
    /// Only these symbols (unknown ones are no error).
    pub symbols: Option<Vec<String>>,
    pub instrument_type: Option<InstrumentType>,
    /// Only instruments with a greater id (the page's cursor).
    pub after_id: Option<i64>,
    pub limit: u32,
}

/// What the market data holds, for `signet data status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct MarketDataStatus {
    pub instruments: u64,
    pub instruments_with_bars: u64,
    pub bars: u64,
    pub first_day: Option<String>,
    pub last_day: Option<String>,
    /// Imported one-minute bars, and the (instrument, day) pairs they cover.
    pub minute_bars: u64,
    pub days_with_minutes: u64,
    pub splits: u64,
    pub dividends: u64,
    pub facts: u64,
    pub companies_with_facts: u64,
    /// Records of signet's fundamentals layout, imported or generated.
    pub fundamentals_records: u64,
}

/// Snapshot figures and the screener queries over them.
#[async_trait]
pub trait ScreenerStore: Send + Sync {
    /// The last day any instrument has a bar: the market's "today" for snapshots.
    async fn latest_bar_day(&self) -> Result<Option<i32>, StoreError>;
    /// Summaries as of `as_of` of the instruments with a bar that day, computed in bulk over the
    /// `lookback_days` before it; instruments with a split in that time are left out and their
    /// ids returned, for [`signet_domain::marketdata::snapshot::summarize`] to adjust.
    async fn summaries(&self, as_of: i32, lookback_days: i32) -> Result<(Vec<Summary>, Vec<i64>), StoreError>;
    /// Histories of these instruments: bars from `from_day` to `to_day` and all corporate actions.
    async fn histories(&self, ids: &[i64], from_day: i32, to_day: i32) -> Result<Vec<History>, StoreError>;
    /// Replaces every snapshot by these, atomically.
    async fn replace_snapshots(&self, snapshots: &[Snapshot]) -> Result<(), StoreError>;
    async fn screen(&self, query: &ScreenQuery) -> Result<Vec<ScreenRow>, StoreError>;
    /// Every sector of the ranked equities, aggregated over `period`.
    async fn sectors(&self, period: Period) -> Result<Vec<SectorRow>, StoreError>;
}

/// Where a reader of [`TradingStore::order_changes`] left off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ChangeCursor(pub u64);

/// Orders changed since a cursor, and the cursor to read the next changes from (`None`: read
/// the open orders again).
#[derive(Debug)]
pub struct OrderChanges {
    pub orders: Vec<Order>,
    pub cursor: Option<ChangeCursor>,
    /// Read for one account since a cursor: its row (cash) changed since that cursor.
    pub account_changed: bool,
}

/// An order event as the trade-events subscription sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Unique, and increasing in commit order for the events of one order or of one account's
    /// fills.
    pub id: i64,
    pub account_id: AccountId,
    pub time_ms: i64,
    /// [`signet_domain::trading::events::payload`]; `None` for an event that is not sent.
    pub payload: Option<String>,
    /// A fill's: [`signet_domain::trading::events::position_payload`], sent after `payload`.
    pub position_payload: Option<String>,
    /// Where the event stands in the feed: it is read again by every read from a cursor at or
    /// below this, so a reader skips the ids it sent until its cursor passes it.
    pub changed: u64,
}

/// Order events read from a cursor, and the cursor of the next read.
#[derive(Debug)]
pub struct EventBatch {
    pub events: Vec<StoredEvent>,
    pub cursor: ChangeCursor,
    /// The read stopped at its cap: read again from `cursor` at once.
    pub more: bool,
}

/// Which orders of an account to list, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderQuery {
    pub account_id: AccountId,
    pub open_only: bool,
    /// Placed at or after (milliseconds).
    pub from_ms: Option<i64>,
    /// Placed at or before (milliseconds).
    pub to_ms: Option<i64>,
    /// Only orders older than this cursor (an order's `seq`).
    pub before_seq: Option<i64>,
    /// Only orders of this status (as stored, e.g. `FILLED`).
    pub status: Option<String>,
    /// Only orders of this symbol.
    pub symbol: Option<String>,
    pub limit: u32,
}

/// Which fills of an account to list, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionQuery {
    pub account_id: AccountId,
    /// Only the fills of this order.
    pub client_order_id: Option<ClientOrderId>,
    /// Filled at or after (milliseconds).
    pub from_ms: Option<i64>,
    /// Filled at or before (milliseconds).
    pub to_ms: Option<i64>,
    /// Only fills older than this cursor (a fill's id).
    pub before_fill_id: Option<i64>,
    pub limit: u32,
}

/// A fill with its order as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionRecord {
    /// Increasing with the time fills are applied: the listing's cursor.
    pub fill_id: i64,
    pub time_ms: i64,
    pub quantity: Decimal,
    pub price: Decimal,
    pub commission: Decimal,
    /// What the order had filled once this fill was applied (units of a multi-leg order).
    pub filled_after: Decimal,
    /// What traded: the order's instrument, symbol and side, or those of a multi-leg order's
    /// leg.
    pub instrument_id: i64,
    pub symbol: String,
    pub side: Side,
    pub order: Order,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionRecord {
    pub account_id: AccountId,
    pub instrument_id: i64,
    pub symbol: String,
    pub holding: Holding,
}

/// A fill the engine found, to apply atomically with its effects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillRequest {
    pub order_id: OrderId,
    pub quantity: Decimal,
    pub price: Decimal,
    pub commission: Commission,
    /// When the engine found it.
    pub time: WallTime,
    /// The simulator's time of the tick that found the fill, which priced it.
    pub market_time: SimTime,
    /// The order's filled quantity the fill was computed from: when the order has filled more
    /// or less meanwhile (another node's tick applied the same fill), nothing changes (`Stale`).
    pub filled_before: Option<Decimal>,
    /// A multi-leg order's: each leg's price per share, in leg order (`quantity` counts units
    /// and `price` is the net of one); empty for any other order.
    pub leg_prices: Vec<Decimal>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FillOutcome {
    /// Applied: the order as it is now.
    Applied(Box<Order>),
    /// The order is no longer open, or has less left than the fill: nothing changed.
    Stale,
    /// The account cannot take the fill: nothing changed.
    Refused(Refusal),
}

/// An account's turn to raise what its open orders claim ([`TradingStore::begin_turn`]), held
/// from the buying-power check until the placements it allowed are stored, so that two
/// placements never both pass a check that only one of them would pass. End it with
/// [`AccountTurn::end`], and answer what it accepted once [`Written::on_disk`] returns; dropped,
/// it gives the turn up and keeps nothing written in it.
#[must_use = "a turn holds back every other placement on the account until it ends"]
pub struct AccountTurn {
    /// PostgreSQL: the transaction holding the account's advisory lock, which every node
    /// respects (the placements are written in it, so its commit stores them and ends the turn
    /// at once), and the pool it came from. SQLite: none, as one server serves a SQLite file and
    /// takes turns in its memory. See `sql/placements.rs`.
    locked: Option<(sql::query::Tx, sql::query::Pool)>,
}

/// The answer to one placement of [`TradingStore::insert_placements`]: each order's `seq`, or
/// [`StoreError::Conflict`] when a client order id or a client combo order id is taken in its
/// account (then none of its orders is stored; the message names `client_combo_order_id` for
/// the latter).
pub type Placed = Result<Vec<i64>, StoreError>;

/// Client ids an account has used ([`TradingStore::used_client_ids`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsedIds {
    pub client_order_ids: Vec<ClientOrderId>,
    pub client_combo_order_ids: Vec<String>,
}

/// Orders, fills and positions.
#[async_trait]
pub trait TradingStore: Send + Sync {
    /// Takes the account's turn to raise its claims, waiting while another holds it (on any
    /// node sharing the database); a wait beyond a few seconds is [`StoreError::Unavailable`].
    async fn begin_turn(&self, account_id: &AccountId) -> Result<AccountTurn, StoreError>;
    /// Inserts the orders of placements of the turn's account, each placement all or nothing,
    /// stored once the turn ends (SQLite: once this answers); the answer of each.
    async fn insert_placements(
        &self,
        turn: &mut AccountTurn,
        placements: &[Vec<Order>],
    ) -> Result<Vec<Placed>, StoreError>;
    /// Which of these client order ids, and which of these client combo order ids, the account
    /// has used already.
    async fn used_client_ids(
        &self,
        account_id: &AccountId,
        client_order_ids: &[&ClientOrderId],
        client_combo_order_ids: &[&str],
    ) -> Result<UsedIds, StoreError>;
    async fn order(&self, account_id: &AccountId, client_order_id: &ClientOrderId)
    -> Result<Option<Order>, StoreError>;
    async fn orders(&self, query: &OrderQuery) -> Result<Vec<Order>, StoreError>;
    /// Every open order of every account, oldest first: what the engine matches.
    async fn open_orders(&self) -> Result<Vec<Order>, StoreError>;
    /// How many orders are in each status, for the metrics.
    async fn order_counts(&self) -> Result<Vec<(String, i64)>, StoreError>;
    /// The change feed of a store several nodes share ([`MetaStore::shared`]), so that a node
    /// follows the open orders without reading them all again: with `since` `None`, the open
    /// orders (of `account_id`, or of every account); with a cursor, every order changed since
    /// that read, whatever its status now (some of them again). Oldest first. With both, in the
    /// same statement: whether the account's row changed since (a split or dividend changes no
    /// order).
    async fn order_changes(
        &self,
        account_id: Option<&AccountId>,
        since: Option<ChangeCursor>,
    ) -> Result<OrderChanges, StoreError> {
        let _ = (account_id, since);
        Err(StoreError::Other(
            "this store is not shared by several nodes and keeps no change feed".into(),
        ))
    }
    /// The order events every node sends to its subscribers: with `since` `None`, none, only the
    /// cursor of events committed from now on; with a cursor, every event at or above it (some
    /// of them again: [`StoredEvent::changed`]), oldest first.
    async fn order_events(&self, since: Option<ChangeCursor>) -> Result<EventBatch, StoreError>;
    /// Wakes `wake` each time order events commit on any node (PostgreSQL's notifications),
    /// until the connection fails; on a store no other node writes, returns at once.
    async fn notify_order_events(&self, wake: &tokio::sync::Notify) -> Result<(), StoreError> {
        let _ = wake;
        Ok(())
    }
    async fn positions(&self, account_id: &AccountId) -> Result<Vec<PositionRecord>, StoreError>;
    /// Fills of an account's orders, newest first.
    async fn executions(&self, query: &ExecutionQuery) -> Result<Vec<ExecutionRecord>, StoreError>;
    /// Applies a fill with its effect on the order, the position, the cash and the rest of the
    /// order's combination ([`signet_domain::trading::combo::consequence`]), in one transaction.
    /// `marks` prices the account's other positions (their last price; `None` when the market
    /// quotes none, then their average cost) for the margin check of
    /// [`signet_domain::trading::accounting::within_margin`].
    async fn apply_fill(
        &self,
        fill: &FillRequest,
        marks: &(dyn Fn(i64) -> Option<Decimal> + Sync),
    ) -> Result<FillOutcome, StoreError>;
    /// Moves a waiting stop order's stop, and marks it triggered at simulated time
    /// `triggered_at`; false when the order is not open or triggered already.
    async fn move_stop(
        &self,
        order_id: &OrderId,
        stop_price: Decimal,
        triggered_at: Option<SimTime>,
        time: WallTime,
    ) -> Result<bool, StoreError>;
    /// Applies a non-fill event to an open order (cancel, expire, fail, or replace with
    /// `replacement`); `None` when the order is not open any more. Like a fill, an order's end
    /// carries on to the rest of its combination in the same transaction.
    async fn update_open_order(
        &self,
        order_id: &OrderId,
        event: Event,
        reason: Option<&str>,
        replacement: Option<Replacement>,
        time: WallTime,
    ) -> Result<Option<Order>, StoreError>;
    /// Brings the market's crossing of ex-dates to New York day `today`, once for all nodes:
    /// when the days crossed so far (a mark in the database) end before it, the splits and cash
    /// dividends whose ex-date lies after the mark and on or before `today` are applied to every
    /// position held ([`signet_domain::trading::corporate::apply`]; a fraction of a share paid at
    /// the last close before the split, divided by its ratio), each at most once per account, and
    /// a split cancels the open orders of its instrument, whose prices it changed; then the mark
    /// moves to `today` (back too, when the clock went back: what was applied stays applied). The
    /// first call on a database only sets the mark. One transaction.
    async fn cross_ex_dates(&self, today: i32, time: WallTime) -> Result<Crossed, StoreError>;
    /// The splits and dividends applied to the account's positions, in the order they were.
    async fn applied_actions(&self, account_id: &AccountId) -> Result<Vec<Applied>, StoreError>;
    /// Settles every option contract held that expired before New York day `today`, at its
    /// underlying's close of its expiry day ([`signet_domain::options::settlement::settle`]),
    /// each once per account and contract (a contract whose close is not stored yet waits for
    /// the next call), and cancels the open orders of expired contracts. One transaction.
    async fn settle_expired_options(&self, today: i32, time: WallTime) -> Result<SettledOptions, StoreError>;
    /// The option contracts settled in the account, in the order they were.
    async fn option_settlements(&self, account_id: &AccountId) -> Result<Vec<Settled>, StoreError>;
    /// Starts the account over: its orders are removed with their events and fills, its
    /// positions and applied splits and dividends too, and its cash set to `cash`; its id, type
    /// and app stay. One transaction, in the account's turn and under its lock, so that no
    /// placement or fill of the account is half before and half after it. False when there is
    /// no such account.
    async fn reset_account(&self, account_id: &AccountId, cash: Decimal) -> Result<bool, StoreError>;
}

/// What [`TradingStore::settle_expired_options`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettledOptions {
    pub settled: Vec<Settled>,
    /// The open orders of expired contracts, cancelled, as they are now.
    pub cancelled: Vec<Order>,
}

/// What a crossing of ex-dates did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Crossed {
    pub applied: Vec<Applied>,
    /// The open orders that splits cancelled, as they are now.
    pub cancelled: Vec<Order>,
}

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct WatchlistRecord {
    pub watchlist_id: String,
    #[sqlx(try_from = "String")]
    pub app_key: AppKey,
    pub name: String,
    pub sort: i64,
    pub create_time: i64,
    pub update_time: i64,
}

/// An instrument of a watchlist, with what the answers show of it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct WatchlistItem {
    pub instrument_id: i64,
    pub symbol: String,
    pub name: String,
    pub exchange: Option<String>,
    pub category: String,
    pub sort: i64,
    pub added_time: i64,
}

/// An instrument to add: its id, category and sort (the top of the list when `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWatchlistItem {
    pub instrument_id: i64,
    pub category: String,
    pub sort: Option<i64>,
}

/// Watchlists, owned by apps. Every change is committed before the call returns; limits are
/// checked inside the change's transaction, so concurrent changes cannot pass them.
#[async_trait]
pub trait WatchlistStore: Send + Sync {
    /// An app's watchlists, by `sort` descending (then newest first).
    async fn watchlists(&self, app_key: &AppKey) -> Result<Vec<WatchlistRecord>, StoreError>;
    async fn watchlist(&self, app_key: &AppKey, watchlist_id: &str) -> Result<Option<WatchlistRecord>, StoreError>;
    /// Creates a watchlist (at the top when `sort` is `None`); `None` when the app has `max`.
    async fn create_watchlist(
        &self,
        app_key: &AppKey,
        watchlist_id: &str,
        name: &str,
        sort: Option<i64>,
        max: u32,
        now_ms: i64,
    ) -> Result<Option<WatchlistRecord>, StoreError>;
    /// Changes the fields given; `None` when the app has no such watchlist.
    async fn update_watchlist(
        &self,
        app_key: &AppKey,
        watchlist_id: &str,
        name: Option<&str>,
        sort: Option<i64>,
        now_ms: i64,
    ) -> Result<Option<WatchlistRecord>, StoreError>;
    /// Deletes a watchlist and its instruments; false when the app has no such watchlist.
    async fn delete_watchlist(&self, app_key: &AppKey, watchlist_id: &str) -> Result<bool, StoreError>;
    /// A watchlist's instruments, by `sort` descending (then last added first).
    async fn watchlist_items(&self, watchlist_id: &str) -> Result<Vec<WatchlistItem>, StoreError>;
    /// Adds the instruments not there yet (those present stay as they are); false, changing
    /// nothing, when the watchlist would then hold more than `max`.
    async fn add_watchlist_items(
        &self,
        watchlist_id: &str,
        items: &[NewWatchlistItem],
        max: u32,
        now_ms: i64,
    ) -> Result<bool, StoreError>;
    /// Removes these instruments (absent ones are no error).
    async fn remove_watchlist_items(
        &self,
        watchlist_id: &str,
        instrument_ids: &[i64],
        now_ms: i64,
    ) -> Result<(), StoreError>;
    /// Sets the sort of instruments present (absent ones are ignored).
    async fn sort_watchlist_items(
        &self,
        watchlist_id: &str,
        sorts: &[(i64, i64)],
        now_ms: i64,
    ) -> Result<(), StoreError>;
}

/// A filing, as the facts it reported show it.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct FilingRow {
    pub accn: String,
    pub form: String,
    /// `YYYY-MM-DD`.
    pub filed: String,
    /// The latest period end it reported, `YYYY-MM-DD`.
    pub period_end: String,
}

#[async_trait]
pub trait FundamentalsStore: Send + Sync {
    /// An instrument's records of one data set, in key order.
    async fn records(&self, instrument_id: i64, data_set: DataSet) -> Result<Vec<Record>, StoreError>;
    /// A company's facts of the given concepts.
    async fn company_facts(&self, cik: &str, concepts: &[&str]) -> Result<Vec<Fact>, StoreError>;
    /// A company's filings, newest first.
    async fn filings(&self, cik: &str) -> Result<Vec<FilingRow>, StoreError>;
    /// The equities of `industry` (of `sector` when no industry is known).
    async fn peers(&self, industry: Option<&str>, sector: Option<&str>) -> Result<Vec<Peer>, StoreError>;
    /// The companies that have facts.
    async fn ciks_with_facts(&self) -> Result<Vec<String>, StoreError>;
}

/// The scenario rules in force, shared by every node ([`signet_domain::scenarios`]).
#[async_trait]
pub trait ScenarioStore: Send + Sync {
    /// Puts a file of rules (already checked) in force, its rules switched on and their counts
    /// at zero; returns the new version.
    async fn load_scenario(&self, text: &str, rule_names: &[String], now: i64) -> Result<i64, StoreError>;
    /// Takes every rule out of force; returns the new version.
    async fn clear_scenario(&self, now: i64) -> Result<i64, StoreError>;
    /// The rules in force: the file, its version and each rule's state (none before a first load).
    async fn scenario(&self) -> Result<Option<StoredScenario>, StoreError>;
    /// The version of the rules in force, which the nodes poll (0 before a first load).
    async fn scenario_version(&self) -> Result<i64, StoreError>;
    /// Switches a rule on or off; false when no rule in force has that name.
    async fn switch_scenario_rule(&self, name: &str, enabled: bool, now: i64) -> Result<bool, StoreError>;
    /// Counts a match of a rule; the match's number, from 1 (none for a rule no longer in force).
    async fn hit_scenario_rule(&self, name: &str) -> Result<Option<i64>, StoreError>;
}

/// The rules in force as stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredScenario {
    pub text: String,
    pub version: i64,
    /// Milliseconds since the epoch of the last change.
    pub changed: i64,
    pub rules: Vec<StoredRule>,
}

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredRule {
    pub name: String,
    pub enabled: bool,
    pub hits: i64,
}

/// Checkpoints of the sandbox's state: its apps, accounts, orders, fills, positions,
/// watchlists and scenario rules (not its market data, nonces or console sessions), saved
/// apart and put back in one transaction ([`sql`]'s `checkpoints` module says where).
#[async_trait]
pub trait CheckpointStore: Send + Sync {
    /// Saves the state with `market` (the simulator's, encoded) as `name`, replacing any
    /// checkpoint of that name; all or nothing.
    async fn save_checkpoint(
        &self,
        name: &CheckpointName,
        market: &str,
        saved_at: i64,
    ) -> Result<CheckpointInfo, StoreError>;
    /// Puts the state saved as `name` in place of the state now, in one transaction that also
    /// moves the restore epoch on; `None` when no checkpoint has that name.
    async fn restore_checkpoint(&self, name: &CheckpointName) -> Result<Option<Restored>, StoreError>;
    /// Every checkpoint that reads, by name.
    async fn checkpoints(&self) -> Result<Vec<CheckpointInfo>, StoreError>;
    /// Seals the checkpoint `name` as it now is with this store's key, after checking all but
    /// its seal (a checkpoint of a build before checkpoints were sealed, or edited on purpose);
    /// `None` when no checkpoint has that name.
    async fn adopt_checkpoint(&self, name: &CheckpointName) -> Result<Option<CheckpointInfo>, StoreError>;
    /// False when no checkpoint has that name.
    async fn delete_checkpoint(&self, name: &CheckpointName) -> Result<bool, StoreError>;
    /// Where the restores stand, as every node sharing the database follows them.
    async fn restores(&self) -> Result<Restores, StoreError>;
    /// Tells every node that a restore is about to begin (`Some(wall-clock ms)`), or that it
    /// will not after all (`None`); a restore's commit clears it.
    async fn announce_restore(&self, at: Option<i64>) -> Result<(), StoreError>;
}

/// A checkpoint as saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointInfo {
    pub name: String,
    /// Wall clock, milliseconds since the epoch.
    pub saved_at: i64,
    /// The simulator's state ([`signet_domain::checkpoint::MarketState`], encoded).
    pub market: String,
    /// The last migration step of the build that saved it.
    pub schema_version: i64,
    pub accounts: u64,
    pub orders: u64,
    pub bytes: u64,
}

/// Where the restores stand ([`CheckpointStore::restores`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restores {
    /// Moves on with every restore.
    pub epoch: i64,
    /// The market state of the last checkpoint restored.
    pub market: Option<String>,
    /// When a node announced the restore it is about to make (wall clock, ms).
    pub announced: Option<i64>,
}

/// What a restore put back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    pub info: CheckpointInfo,
    /// The epoch the restore moved to.
    pub epoch: i64,
    /// Bars of simulated days after the checkpoint that it dropped (the screeners' figures
    /// are then computed again).
    pub dropped_bars: u64,
}

/// Everything the server stores.
pub trait Store:
    std::fmt::Debug
    + AppStore
    + TokenStore
    + ConsoleStore
    + NonceStore
    + MetaStore
    + MarketDataStore
    + ScreenerStore
    + TradingStore
    + WatchlistStore
    + FundamentalsStore
    + ScenarioStore
    + CheckpointStore
{
}

impl<T> Store for T where
    T: std::fmt::Debug
        + AppStore
        + TokenStore
        + ConsoleStore
        + NonceStore
        + MetaStore
        + MarketDataStore
        + ScreenerStore
        + TradingStore
        + WatchlistStore
        + FundamentalsStore
        + ScenarioStore
        + CheckpointStore
{
}
