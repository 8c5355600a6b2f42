//! Stock market data from the simulator (catalog §11): snapshots and the depth of book, read from
//! the same quote the engine matches orders against, so that what a bot sees is what it fills at.

use axum::Json;
use axum::extract::State;
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::marketdata::Bar;
use signet_domain::marketdata::bars::{DaySpan, roll_up};
use signet_domain::marketdata::units::{format_day, from_micros, to_micros};
use signet_domain::simulator::clock::day_number_of;
use signet_domain::simulator::clock::{CORE_CLOSE, CORE_OPEN, NewYork, Session, utc_ms_of};
use signet_domain::simulator::{Level, Quote};
use signet_model::ErrorCode;
use signet_model::quotes::{
    BarRow, BarsRequest, BarsResponse, Depth, DepthLevel, DepthOrder, Snapshot, SymbolBars, Tick, Ticks,
};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::app::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, QueryParams, given};
use crate::openapi::InstrumentNotFound;
use crate::pagination;
use crate::simulator::MarketError;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(snapshots))
        .routes(routes!(depths))
        .routes(routes!(ticks))
        .routes(routes!(bars))
}

/// Symbols one snapshot call may ask for (catalog §11.1).
const MAX_SYMBOLS: usize = 100;
/// Levels of the book: by default and at most (catalog §11.4: level 2 shows 10, US up to 50).
const DEFAULT_DEPTH: u32 = 10;
const MAX_DEPTH: u32 = 50;
/// Ticks: by default and at most (catalog §11.3).
const DEFAULT_TICKS: u32 = 30;
const MAX_TICKS: u32 = 1000;
/// Bars a symbol: by default and at most (catalog §11.2).
const DEFAULT_BARS: u32 = 200;
const MAX_BARS: u32 = 1200;

/// Every parameter of the calls here; each reads its own. The official client sends a value it
/// was not given as `None`, and booleans as Python writes them (`True`).
#[derive(Debug, Deserialize)]
struct Params {
    symbols: Option<String>,
    symbol: Option<String>,
    category: Option<String>,
    extend_hour_required: Option<String>,
    overnight_required: Option<String>,
    depth: Option<String>,
    count: Option<String>,
    trading_sessions: Option<String>,
}

/// `US_STOCK` (the default) or `US_ETF`: the simulator quotes both alike.
fn check_category(category: Option<&str>) -> Result<(), ApiError> {
    match given(category) {
        None | Some("US_STOCK" | "US_ETF") => Ok(()),
        Some(other) => Err(ApiError::illegal_parameter(format!(
            "category {:?} is not served here: US_STOCK or US_ETF",
            other.chars().take(20).collect::<String>()
        ))),
    }
}

/// The one `symbol` of a depth or ticks call, upper-cased.
fn one_symbol(p: &Params) -> Result<String, ApiError> {
    let symbol = given(p.symbol.as_deref()).ok_or_else(|| ApiError::illegal_parameter("symbol is required"))?;
    if symbol.contains(',') {
        return Err(ApiError::illegal_parameter("one symbol at a time"));
    }
    Ok(symbol.to_ascii_uppercase())
}

fn flag(name: &str, value: Option<&str>) -> Result<bool, ApiError> {
    match given(value).map(str::to_ascii_lowercase).as_deref() {
        None | Some("false" | "0") => Ok(false),
        Some("true" | "1") => Ok(true),
        Some(_) => Err(ApiError::illegal_parameter(format!("{name} must be true or false"))),
    }
}

/// The quotes of `symbols` now, in the order asked; every unknown symbol named in one refusal.
async fn quotes(state: &AppState, symbols: &[String]) -> Result<Vec<Quote>, ApiError> {
    state.market.sync().await?;
    let mut found = Vec::with_capacity(symbols.len());
    let mut unknown = Vec::new();
    for symbol in symbols {
        match state.market.quote(symbol) {
            Ok(quote) => found.push(quote),
            Err(MarketError::UnknownSymbol(_)) => unknown.push(symbol.chars().take(16).collect::<String>()),
            Err(e) => return Err(e.into()),
        }
    }
    if unknown.is_empty() {
        Ok(found)
    } else {
        Err(ApiError::new(
            ErrorCode::InstrumentNotFound,
            format!("no instrument has the symbol(s) {}", unknown.join(", ")),
        ))
    }
}

/// Prices as the simulator quotes them and orders fill at: to the cent (`454.30`).
fn text(d: Decimal) -> String {
    d.to_string()
}

fn to_snapshot(q: &Quote, extended: bool, overnight: bool) -> Snapshot {
    let traded = q.volume > 0;
    let day = |value: String| traded.then_some(value);
    let change = text(q.change());
    let ratio = q.change_ratio().map(text);
    let mut snapshot = Snapshot {
        symbol: q.symbol.clone(),
        instrument_id: q.instrument_id.to_string(),
        price: text(q.last),
        pre_close: text(q.pre_close),
        change: day(change.clone()),
        change_ratio: ratio.clone().filter(|_| traded),
        open: day(text(q.open)),
        high: day(text(q.high)),
        low: day(text(q.low)),
        close: text(q.last),
        volume: day(q.volume.to_string()),
        bid: text(q.bid),
        bid_size: q.bid_size.to_string(),
        ask: text(q.ask),
        ask_size: q.ask_size.to_string(),
        last_trade_time: q.time_ms,
        trading_session: q.session.as_str().to_owned(),
        ..Snapshot::default()
    };
    if extended && matches!(q.session, Session::PreMarket | Session::AfterHours) {
        snapshot.extend_hour_last_price = Some(text(q.last));
        snapshot.extend_hour_change = Some(change.clone());
        snapshot.extend_hour_change_ratio = ratio.clone();
        snapshot.extend_hour_last_trade_time = Some(q.time_ms);
    }
    if overnight && q.session == Session::Overnight {
        snapshot.ovn_price = Some(text(q.last));
        snapshot.ovn_change = Some(change);
        snapshot.ovn_change_ratio = ratio;
        snapshot.ovn_bid = Some(text(q.bid));
        snapshot.ovn_bid_size = Some(q.bid_size.to_string());
        snapshot.ovn_ask = Some(text(q.ask));
        snapshot.ovn_ask_size = Some(q.ask_size.to_string());
        snapshot.ovn_last_trade_time = Some(q.time_ms);
    }
    snapshot
}

#[utoipa::path(
    get, path = "/market-data/stocks/snapshots/list", tag = "market data",
    operation_id = "listStockSnapshots", summary = "Stock snapshots",
    description = "The simulator's quote of each symbol now, with the day's open, high, low and volume so far. \
        `price` is the last price and `bid`/`ask` the prices a sell or buy order meets now.",
    params(
        ("symbols" = String, Query, description = "Up to 100 symbols, comma-separated", example = "AAPL,MSFT"),
        ("category" = Option<String>, Query, description = "US_STOCK (default) or US_ETF"),
        ("extend_hour_required" = Option<String>, Query, description = "true: the extended-hours fields, in the pre-market and after hours"),
        ("overnight_required" = Option<String>, Query, description = "true: the overnight fields, in the overnight session"),
    ),
    responses(
        (status = 200, description = "One snapshot per symbol, in the order asked", body = Vec<Snapshot>),
        InstrumentNotFound,
    )
)]
async fn snapshots(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<Snapshot>>, ApiError> {
    check_category(p.category.as_deref())?;
    let extended = flag("extend_hour_required", p.extend_hour_required.as_deref())?;
    let overnight = flag("overnight_required", p.overnight_required.as_deref())?;
    let symbols: Vec<String> = given(p.symbols.as_deref())
        .ok_or_else(|| ApiError::illegal_parameter("symbols is required"))?
        .split(',')
        .map(|s| s.trim().to_ascii_uppercase())
        .filter(|s| !s.is_empty())
        .collect();
    if symbols.len() > MAX_SYMBOLS {
        return Err(ApiError::illegal_parameter(format!(
            "at most {MAX_SYMBOLS} symbols a call, not {}",
            symbols.len()
        )));
    }
    let quotes = quotes(&state, &symbols).await?;
    Ok(Json(
        quotes.iter().map(|q| to_snapshot(q, extended, overnight)).collect(),
    ))
}

fn to_levels(levels: &[Level]) -> Vec<DepthLevel> {
    levels
        .iter()
        .map(|l| DepthLevel {
            price: text(l.price),
            size: l.size.to_string(),
            order: vec![DepthOrder {
                mpid: "SIGNET".into(),
                size: l.size.to_string(),
            }],
        })
        .collect()
}

#[utoipa::path(
    get, path = "/market-data/stocks/depths/list", tag = "market data",
    operation_id = "getStockDepth", summary = "Stock depth of book",
    description = "Price levels around the simulator's quote. The best bid and ask are the quote an order meets \
        (the engine fills at them, up to their sizes); each further level is a cent away.",
    params(
        ("symbol" = String, Query, description = "One symbol", example = "AAPL"),
        ("category" = Option<String>, Query, description = "US_STOCK (default) or US_ETF"),
        ("depth" = Option<u32>, Query, description = "Levels a side: 1 to 50, default 10"),
        ("overnight_required" = Option<String>, Query, description = "Accepted; the book is the same in every session"),
    ),
    responses(
        (status = 200, description = "The book of the symbol now", body = Depth),
        InstrumentNotFound,
    )
)]
async fn depths(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Depth>, ApiError> {
    check_category(p.category.as_deref())?;
    flag("overnight_required", p.overnight_required.as_deref())?;
    let symbol = one_symbol(&p)?;
    let levels = pagination::bounded("depth", given(p.depth.as_deref()), DEFAULT_DEPTH, MAX_DEPTH)?;
    let quote = quotes(&state, &[symbol]).await?.remove(0);
    let (bids, asks) = quote.book(levels as usize);
    Ok(Json(Depth {
        symbol: quote.symbol.clone(),
        instrument_id: quote.instrument_id.to_string(),
        quote_time: quote.time_ms.to_string(),
        trading_session: quote.session.as_str().to_owned(),
        asks: to_levels(&asks),
        bids: to_levels(&bids),
    }))
}

/// Whether `trading_sessions` (PRE, RTH, ATH, OVN, comma-separated; all when absent) includes the
/// core session, the only one the simulator trades in.
fn wants_core(p: &Params) -> Result<bool, ApiError> {
    let Some(sessions) = given(p.trading_sessions.as_deref()) else {
        return Ok(true);
    };
    let mut core = false;
    for session in sessions.split(',').map(str::trim) {
        match session {
            "RTH" => core = true,
            "PRE" | "ATH" | "OVN" => {}
            _ => {
                return Err(ApiError::illegal_parameter(
                    "trading_sessions takes PRE, RTH, ATH and OVN, comma-separated",
                ));
            }
        }
    }
    Ok(core)
}

#[utoipa::path(
    get, path = "/market-data/stocks/ticks/list", tag = "market data",
    operation_id = "listStockTicks", summary = "Stock ticks",
    description = "The simulator's trading of the day so far, one tick a second of the core session (the only one \
        it trades in), newest first: the last price of that second, the shares traded in it, and whether the price \
        rose (`B`), fell (`S`) or held (`N`).",
    params(
        ("symbol" = String, Query, description = "One symbol", example = "AAPL"),
        ("category" = Option<String>, Query, description = "US_STOCK (default) or US_ETF"),
        ("count" = Option<u32>, Query, description = "Ticks: 1 to 1000, default 30"),
        ("trading_sessions" = Option<String>, Query, description = "PRE, RTH, ATH, OVN, comma-separated; without RTH there are none"),
    ),
    responses(
        (status = 200, description = "The symbol's ticks, newest first", body = Ticks),
        InstrumentNotFound,
    )
)]
async fn ticks(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Ticks>, ApiError> {
    check_category(p.category.as_deref())?;
    let symbol = one_symbol(&p)?;
    let count = pagination::bounded("count", given(p.count.as_deref()), DEFAULT_TICKS, MAX_TICKS)? as usize;
    let core = wants_core(&p)?;
    let now = quotes(&state, &[symbol]).await?.remove(0);
    let mut result = Vec::new();
    if core {
        // The seconds of today's core session up to now, newest first; each tick is a second's
        // move of the same quote the engine reads.
        let day = NewYork::of(now.time_ms).day;
        let (open, close) = (utc_ms_of(day, CORE_OPEN), utc_ms_of(day, CORE_CLOSE));
        let mut t = (now.time_ms - now.time_ms.rem_euclid(1000)).min(close - 1000);
        let quote = |t| {
            state
                .market
                .quote_of(now.instrument_id, t)
                .filter(|q| q.session == Session::Core)
        };
        let mut this = quote(t);
        while let Some(q) = this.take().filter(|_| result.len() < count && t >= open) {
            let before = quote(t - 1000);
            let (volume, side) = match &before {
                Some(b) => (q.volume.saturating_sub(b.volume), tick_side(b.last, q.last)),
                None => (q.volume, "N"),
            };
            result.push(Tick {
                time: t.to_string(),
                price: text(q.last),
                volume: volume.to_string(),
                side: side.to_owned(),
                trading_session: "RTH".to_owned(),
            });
            t -= 1000;
            this = before;
        }
    }
    Ok(Json(Ticks {
        symbol: now.symbol,
        instrument_id: now.instrument_id.to_string(),
        result,
    }))
}

/// A tick's side from its price against the second before.
fn tick_side(before: Decimal, price: Decimal) -> &'static str {
    match price.cmp(&before) {
        std::cmp::Ordering::Greater => "B",
        std::cmp::Ordering::Less => "S",
        std::cmp::Ordering::Equal => "N",
    }
}

#[utoipa::path(
    post, path = "/market-data/stocks/bars/list", tag = "market data",
    operation_id = "listStockBars", summary = "Stock bars",
    description = "Daily, weekly, monthly or yearly bars (`timespan` D, W, M, Y) of up to 100 symbols, newest \
        first: the stored history, and the simulated days since, today's bar so far included (the day's open, \
        high, low and last price of the quote orders fill at). The times are the simulator's: a range outside \
        its history is refused with the range it has. Intraday timespans (S5 to M240) are not served yet.",
    request_body = BarsRequest,
    responses(
        (status = 200, description = "Each symbol's bars, newest first, in the order asked", body = BarsResponse),
        InstrumentNotFound,
    )
)]
async fn bars(
    State(state): State<AppState>,
    _caller: Caller,
    JsonBody(request): JsonBody<BarsRequest>,
) -> Result<Json<BarsResponse>, ApiError> {
    check_category(request.category.as_deref())?;
    let span = DaySpan::parse(request.timespan.trim()).ok_or_else(|| {
        let intraday = ["S5", "S15", "M1", "M5", "M15", "M30", "M60", "M120", "M240"];
        if intraday.contains(&request.timespan.trim()) {
            ApiError::illegal_parameter(format!(
                "timespan {} is not served yet: D, W, M (a month) and Y are",
                request.timespan.trim()
            ))
        } else {
            ApiError::illegal_parameter(
                "timespan must be one of S5, S15, M1, M5, M15, M30, M60, M120, M240, D, W, M, Y",
            )
        }
    })?;
    let count = match &request.count {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        Some(_) => return Err(ApiError::illegal_parameter("count must be a whole number")),
    };
    let count = pagination::bounded("count", given(count.as_deref()), DEFAULT_BARS, MAX_BARS)? as usize;
    if request.symbols.is_empty() || request.symbols.len() > MAX_SYMBOLS {
        return Err(ApiError::illegal_parameter(format!(
            "symbols: 1 to {MAX_SYMBOLS} of them"
        )));
    }
    let symbols: Vec<String> = request.symbols.iter().map(|s| s.trim().to_ascii_uppercase()).collect();
    let quotes = quotes(&state, &symbols).await?;
    let today = NewYork::of(state.market.now_ms()).day;
    let (from, to) = (
        request.start_time.map_or(i32::MIN, day_number_of),
        request.end_time.map_or(today, |t| day_number_of(t).min(today)),
    );
    if from > to {
        return Err(ApiError::illegal_parameter(
            "start_time is after end_time (or after the simulator's today)",
        ));
    }
    let mut result = Vec::with_capacity(quotes.len());
    for quote in &quotes {
        let mut days = state
            .store
            .daily_bars(quote.instrument_id, from, to.min(today - 1))
            .await?;
        if to == today && quote.volume > 0 {
            days.push(today_bar(quote, today));
        }
        if days.is_empty() && (request.start_time.is_some() || request.end_time.is_some()) {
            let history = state.store.daily_bars(quote.instrument_id, i32::MIN, today - 1).await?;
            let first = history.first().map_or_else(|| "none".to_owned(), |b| format_day(b.day));
            return Err(ApiError::illegal_parameter(format!(
                "no bars of {} in that range: the simulator's days run from {first} to {} (its today)",
                quote.symbol,
                format_day(today)
            )));
        }
        let rolled = roll_up(&days, span);
        result.push(SymbolBars {
            symbol: quote.symbol.clone(),
            instrument_id: quote.instrument_id.to_string(),
            result: rolled.iter().rev().take(count).map(bar_row).collect(),
        });
    }
    Ok(Json(BarsResponse { result }))
}

/// Today's bar so far, from the quote: the day's open, high and low, and the last price.
fn today_bar(q: &Quote, day: i32) -> Bar {
    let micros = |d: Decimal| to_micros(d).unwrap_or_default();
    Bar {
        day,
        open: micros(q.open),
        high: micros(q.high),
        low: micros(q.low),
        close: micros(q.last),
        volume: i64::try_from(q.volume).unwrap_or(i64::MAX),
        adj_close: None,
    }
}

fn bar_row(b: &Bar) -> BarRow {
    // To the cent, as the quotes and fills print (`461.10`, not `461.1`).
    let price = |micros: i64| {
        let mut cents = from_micros(micros).round_dp(2);
        cents.rescale(2);
        text(cents)
    };
    BarRow {
        time: format!("{}T00:00:00.000+0000", format_day(b.day)),
        open: price(b.open),
        close: price(b.close),
        high: price(b.high),
        low: price(b.low),
        volume: b.volume.to_string(),
    }
}
