//! What the stock market-data calls compute, apart from their HTTP handlers ([`super`]), so that
//! the earlier generation's gRPC gateway asks the same code without reaching into a handler
//! module: parameters, quotes, snapshots, depth, ticks, bars and the days they cover.

use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::marketdata::Bar;
use signet_domain::marketdata::bars::{DaySpan, Timespan, roll_up};
use signet_domain::marketdata::units::format_day;
use signet_domain::simulator::clock::day_number_of;
use signet_domain::simulator::clock::{CORE_OPEN, NewYork, utc_ms_of};
use signet_domain::simulator::intraday::{self, Candle, Footprint};
use signet_domain::simulator::path::{DayPlan, Trade};
use signet_domain::simulator::{Level, Quote};
use signet_domain::times::format_ms_utc_offset;
use signet_model::ErrorCode;
use signet_model::quotes::{BarsRequest, Depth, DepthLevel, DepthOrder, FootprintRow, Snapshot, Ticks};

use super::super::bar_rows::BarRow;
use crate::error::ApiError;
use crate::extract::given;
use crate::pagination;
use crate::state::AppState;
use signet_core::quotes::{tape_session, text, ticks_before, to_snapshot};
use signet_core::simulator::MarketError;

/// Symbols one snapshot call may ask for (catalog §11.1).
pub(super) const MAX_SYMBOLS: usize = 100;
/// Levels of the book: by default and at most (catalog §11.4: level 2 shows 10, US up to 50).
pub(crate) const DEFAULT_DEPTH: u32 = 10;
pub(crate) const MAX_DEPTH: u32 = 50;
/// Ticks: by default and at most (catalog §11.3).
pub(super) const DEFAULT_TICKS: u32 = 30;
pub(super) const MAX_TICKS: u32 = 1000;
/// Bars a symbol: by default and at most (catalog §11.2).
pub(super) const DEFAULT_BARS: u32 = 200;
pub(super) const MAX_BARS: u32 = 1200;
/// Symbols one footprints call may ask for (catalog §11.5).
pub(super) const MAX_FOOTPRINT_SYMBOLS: usize = 20;
/// Trading days back that intraday bars and footprints reach (today's included).
const INTRADAY_DAYS: usize = 30;

/// Every parameter of the calls here; each reads its own. The official client sends a value it
/// was not given as `None`, and booleans as Python writes them (`True`). The earlier SDK
/// generation's calls (`crate::generations::earlier_market_data`) send the same names.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Params {
    pub symbols: Option<String>,
    pub symbol: Option<String>,
    pub category: Option<String>,
    pub extend_hour_required: Option<String>,
    pub overnight_required: Option<String>,
    pub depth: Option<String>,
    pub count: Option<String>,
    pub trading_sessions: Option<String>,
    pub timespan: Option<String>,
    pub real_time_required: Option<String>,
}

/// `US_STOCK` (the default) or `US_ETF`: the simulator quotes both alike.
pub(crate) fn check_category(category: Option<&str>) -> Result<(), ApiError> {
    match given(category) {
        None | Some("US_STOCK" | "US_ETF") => Ok(()),
        Some(other) => Err(ApiError::illegal_parameter(format!(
            "category {:?} is not served here: US_STOCK or US_ETF",
            other.chars().take(20).collect::<String>()
        ))),
    }
}

/// The comma-separated `symbols` of a call, upper-cased: at least one, at most `max`.
pub(super) fn symbol_list(p: &Params, max: usize) -> Result<Vec<String>, ApiError> {
    let symbols: Vec<String> = given(p.symbols.as_deref())
        .ok_or_else(|| ApiError::illegal_parameter("symbols is required"))?
        .split(',')
        .map(|s| s.trim().to_ascii_uppercase())
        .filter(|s| !s.is_empty())
        .collect();
    if symbols.len() > max {
        return Err(ApiError::illegal_parameter(format!(
            "at most {max} symbols a call, not {}",
            symbols.len()
        )));
    }
    Ok(symbols)
}

/// The one `symbol` of a depth or ticks call, upper-cased.
fn one_symbol(p: &Params) -> Result<String, ApiError> {
    let symbol = given(p.symbol.as_deref()).ok_or_else(|| ApiError::illegal_parameter("symbol is required"))?;
    if symbol.contains(',') {
        return Err(ApiError::illegal_parameter("one symbol at a time"));
    }
    Ok(symbol.to_ascii_uppercase())
}

pub(super) fn flag(name: &str, value: Option<&str>) -> Result<bool, ApiError> {
    match given(value).map(str::to_ascii_lowercase).as_deref() {
        None | Some("false" | "0") => Ok(false),
        Some("true" | "1") => Ok(true),
        Some(_) => Err(ApiError::illegal_parameter(format!("{name} must be true or false"))),
    }
}

/// The quotes of `symbols` now, in the order asked; every unknown symbol named in one refusal.
pub(crate) async fn quotes(state: &AppState, symbols: &[String]) -> Result<Vec<Quote>, ApiError> {
    state.simulator.sync().await?;
    let mut found = Vec::with_capacity(symbols.len());
    let mut unknown = Vec::new();
    for symbol in symbols {
        match state.simulator.quote(symbol) {
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

/// The snapshots a call asks for, in the order asked: this call's answer and the earlier
/// generation's `/market-data/snapshot`.
pub(crate) async fn snapshot_list(state: &AppState, p: &Params) -> Result<Vec<Snapshot>, ApiError> {
    check_category(p.category.as_deref())?;
    let extended = flag("extend_hour_required", p.extend_hour_required.as_deref())?;
    let overnight = flag("overnight_required", p.overnight_required.as_deref())?;
    let symbols = symbol_list(p, MAX_SYMBOLS)?;
    let quotes = quotes(state, &symbols).await?;
    Ok(quotes
        .iter()
        .map(|q| {
            to_snapshot(
                q,
                state.simulator.session(q.instrument_id, q.time_ms),
                state.simulator.extended_session(q.instrument_id, q.time_ms),
                extended,
                overnight,
            )
        })
        .collect())
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

/// The book of the call's one symbol now: this call's answer and the earlier generation's
/// `/market-data/quotes`.
pub(crate) async fn depth_of(state: &AppState, p: &Params) -> Result<Depth, ApiError> {
    check_category(p.category.as_deref())?;
    flag("overnight_required", p.overnight_required.as_deref())?;
    let symbol = one_symbol(p)?;
    let levels = pagination::bounded("depth", given(p.depth.as_deref()), DEFAULT_DEPTH, MAX_DEPTH)?;
    let quote = quotes(state, &[symbol]).await?.remove(0);
    let (bids, asks) = quote.book(levels as usize);
    Ok(Depth {
        symbol: quote.symbol.clone(),
        instrument_id: quote.instrument_id.to_string(),
        quote_time: quote.time_ms.to_string(),
        trading_session: quote.session.as_str().to_owned(),
        asks: to_levels(&asks),
        bids: to_levels(&bids),
    })
}

/// The sessions a `trading_sessions` parameter names: `PRE`, `RTH`, `ATH`, `OVN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Sessions([bool; 4]);

impl Sessions {
    const CODES: [&str; 4] = ["PRE", "RTH", "ATH", "OVN"];

    /// The sessions named (comma-separated), `absent` when the parameter is not given.
    pub(super) fn parse(given_sessions: Option<&str>, absent: Sessions) -> Result<Self, ApiError> {
        let Some(sessions) = given(given_sessions) else {
            return Ok(absent);
        };
        let mut named = [false; 4];
        // Footprints' sessions arrive as the Python list the client was given: `['PRE', 'RTH']`.
        let sessions = sessions.trim_start_matches('[').trim_end_matches(']');
        for session in sessions.split(',').map(|s| s.trim().trim_matches(['\'', '"'])) {
            let i = Self::CODES.iter().position(|c| *c == session).ok_or_else(|| {
                ApiError::illegal_parameter("trading_sessions takes PRE, RTH, ATH and OVN, comma-separated")
            })?;
            named[i] = true;
        }
        Ok(Sessions(named))
    }

    pub(super) const ALL: Sessions = Sessions([true; 4]);
    const CORE: Sessions = Sessions([false, true, false, false]);

    /// Whether a print of this session ([`tape_session`]) is wanted.
    fn has(self, code: &str) -> bool {
        Self::CODES.iter().position(|c| *c == code).is_some_and(|i| self.0[i])
    }

    pub(super) fn core(self) -> bool {
        self.0[1]
    }

    fn around_core(self) -> bool {
        self.0[0] || self.0[2] || self.0[3]
    }
}

/// The call's one symbol's ticks of the day so far, newest first: this call's answer and the
/// earlier generation's `/market-data/tick`.
pub(crate) async fn ticks_of(state: &AppState, p: &Params) -> Result<Ticks, ApiError> {
    check_category(p.category.as_deref())?;
    let symbol = one_symbol(p)?;
    let count = pagination::bounded("count", given(p.count.as_deref()), DEFAULT_TICKS, MAX_TICKS)? as usize;
    let sessions = Sessions::parse(p.trading_sessions.as_deref(), Sessions::ALL)?;
    let now = quotes(state, &[symbol]).await?.remove(0);
    let ny = NewYork::of(now.time_ms);
    let mut result = Vec::new();
    if let Some(path) = state
        .simulator
        .path_today(now.instrument_id)
        .filter(|p| p.day() == ny.day)
    {
        result = ticks_before(&path, ny.second + 1, count, |session| sessions.has(session));
    }
    Ok(Ticks {
        symbol: now.symbol,
        instrument_id: now.instrument_id.to_string(),
        result,
    })
}

/// Each symbol's bars a bars call asks for (symbol, instrument id, bars newest first), in the
/// order asked: this call's answer and the earlier generation's `/market-data/bars` and
/// `/market-data/batch-bars`.
pub(crate) async fn bar_groups(
    state: &AppState,
    request: &BarsRequest,
) -> Result<Vec<(String, i64, Vec<BarRow>)>, ApiError> {
    check_category(request.category.as_deref())?;
    let timespan = Timespan::parse(request.timespan.trim())
        .ok_or_else(|| ApiError::illegal_parameter(format!("timespan must be one of {}", Timespan::CODES)))?;
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
    if let (Some(from), Some(to)) = (request.start_time, request.end_time)
        && from > to
    {
        return Err(ApiError::illegal_parameter("start_time is after end_time"));
    }
    let range = Range {
        start_ms: request.start_time,
        end_ms: request.end_time,
        unfinished: request.real_time_required != Some(false),
    };
    let sessions = Sessions::parse(request.trading_sessions.as_deref(), Sessions::CORE)?;
    let symbols: Vec<String> = request.symbols.iter().map(|s| s.trim().to_ascii_uppercase()).collect();
    let quotes = quotes(state, &symbols).await?;
    let mut result = Vec::with_capacity(quotes.len());
    for quote in &quotes {
        let id = quote.instrument_id;
        let rows = match timespan {
            Timespan::Days(span) => day_bars(state, quote, span, &range, count).await?,
            Timespan::Seconds(span) => {
                let mut rows = Vec::new();
                for plan in trading_days(state, id, &range).await? {
                    let until = range.until(state, &plan);
                    let mut candles = Vec::new();
                    if sessions.core() {
                        let core = state.simulator.candles(id, &plan, span, until).await?;
                        let finished = |c: &Candle| range.unfinished || c.start + span <= until;
                        candles.extend(core.into_iter().filter(finished));
                    }
                    if sessions.around_core() {
                        candles.extend(extended_candles(state, id, &plan, span, &range, sessions).await?);
                        candles.sort_by_key(|c| c.start);
                    }
                    rows.extend(
                        candles
                            .iter()
                            .rev()
                            .map(|c| (c, utc_ms_of(plan.day, c.start)))
                            .filter(|&(_, ms)| range.holds(ms))
                            .map(|(c, ms)| BarRow::Intraday(*c, ms)),
                    );
                    if rows.len() >= count {
                        break;
                    }
                }
                rows.truncate(count);
                rows
            }
        };
        if rows.is_empty() && (range.start_ms.is_some() || range.end_ms.is_some()) {
            return Err(out_of_range(state, quote).await?);
        }
        result.push((quote.symbol.clone(), id, rows));
    }
    Ok(result)
}

/// The bars request of a call that names one `symbol` in its query (the earlier generation's
/// `/market-data/bars`), as the bars call's body would carry it.
pub(crate) fn one_symbol_bars(p: &Params) -> Result<BarsRequest, ApiError> {
    Ok(BarsRequest {
        symbols: vec![one_symbol(p)?],
        category: p.category.clone(),
        timespan: given(p.timespan.as_deref())
            .ok_or_else(|| ApiError::illegal_parameter("timespan is required"))?
            .to_owned(),
        count: p.count.clone().map(serde_json::Value::String),
        // Absent, as the bars call takes it: today's unfinished bar included.
        real_time_required: given(p.real_time_required.as_deref())
            .map(|v| flag("real_time_required", Some(v)))
            .transpose()?,
        trading_sessions: p.trading_sessions.clone(),
        start_time: None,
        end_time: None,
    })
}

/// The time a bars or footprints call asks about: bars starting in `[start_ms, end_ms]`, and
/// whether today's unfinished bar is wanted.
pub(crate) struct Range {
    pub(crate) start_ms: Option<i64>,
    pub(crate) end_ms: Option<i64>,
    pub(crate) unfinished: bool,
}

impl Range {
    fn holds(&self, ms: i64) -> bool {
        self.start_ms.is_none_or(|s| ms >= s) && self.end_ms.is_none_or(|e| ms <= e)
    }

    /// Where `plan`'s trades stop for this call: at the simulator's second now (this second
    /// included), or at the close of a day that is over.
    pub(super) fn until(&self, state: &AppState, plan: &DayPlan) -> i64 {
        let now = NewYork::of(state.simulator.now_ms());
        if plan.day == now.day {
            now.second + 1
        } else {
            plan.core_close()
        }
    }
}

/// `plan`'s bars of `span` seconds outside the core session, in the `sessions` asked for: the
/// morning's counted back from the open, the evening's from the close, as far as the day has gone.
async fn extended_candles(
    state: &AppState,
    instrument_id: i64,
    plan: &DayPlan,
    span: i64,
    range: &Range,
    sessions: Sessions,
) -> Result<Vec<Candle>, ApiError> {
    let now = NewYork::of(state.simulator.now_ms());
    let until = if plan.day == now.day { now.second + 1 } else { 86_400 };
    let path = state.simulator.path_on(instrument_id, plan).await?;
    let kept = |t: &Trade| sessions.has(tape_session(plan.day, t.second));
    let morning = path.tape(0, until.min(CORE_OPEN)).filter(kept);
    let evening = path.tape(path.core_close(), until).filter(kept);
    let finished = |c: &Candle| range.unfinished || c.start + span <= until;
    // Counted from the open, a morning bar ends by it.
    let mut candles = intraday::candles(plan.day, morning, span);
    candles.extend(intraday::candles_since(plan.day, evening, span, path.core_close()));
    candles.retain(finished);
    Ok(candles)
}

/// The trading days, newest first, that intraday bars and footprints of `instrument_id` are
/// made of: today if it trades and has begun, then the stored days before it (each replayed
/// from its daily bar, so a day the simulator drew is rebuilt from the bar it stored), up to
/// [`INTRADAY_DAYS`] in all and none after `range`'s end.
pub(crate) async fn trading_days(
    state: &AppState,
    instrument_id: i64,
    range: &Range,
) -> Result<Vec<DayPlan>, ApiError> {
    let today = NewYork::of(state.simulator.now_ms()).day;
    let last = range.end_ms.map_or(today, |e| NewYork::of(e).day.min(today));
    let first = range.start_ms.map_or(i32::MIN, |s| NewYork::of(s).day);
    let mut plans = Vec::with_capacity(INTRADAY_DAYS);
    if last == today
        // An instrument that has no bar on a day of the history does not trade that day.
        && let Some(plan) = state.simulator.plan_today(instrument_id).filter(|p| p.day == today && p.volume > 0.0)
    {
        plans.push(plan);
    }
    // Thirty trading days lie within about six weeks; one more bar gives the first its previous close.
    let window = i32::try_from(INTRADAY_DAYS * 7 / 5 + 14).unwrap_or(i32::MAX);
    let from = first.max(last.min(today - 1) - window).saturating_sub(7);
    let bars = state.store.daily_bars(instrument_id, from, last.min(today - 1)).await?;
    for pair in bars.windows(2).rev() {
        if plans.len() == INTRADAY_DAYS || pair[1].day < first {
            break;
        }
        plans.push(DayPlan::replay(pair[1].day, pair[0].close as f64 / 1e6, &pair[1]));
    }
    Ok(plans)
}

/// The 400 for a range in which a symbol has no bars, naming the simulator's days.
async fn out_of_range(state: &AppState, quote: &Quote) -> Result<ApiError, ApiError> {
    let today = NewYork::of(state.simulator.now_ms()).day;
    let history = state.store.daily_bars(quote.instrument_id, i32::MIN, today - 1).await?;
    let first = history.first().map_or_else(|| "none".to_owned(), |b| format_day(b.day));
    Ok(ApiError::illegal_parameter(format!(
        "no bars of {} in that range: the simulator's days run from {first} to {} (its today); \
         intraday bars reach back {INTRADAY_DAYS} trading days",
        quote.symbol,
        format_day(today)
    )))
}

/// Daily bars rolled up by `span`, newest first: the stored history and, when the range reaches
/// today, today's bar so far.
async fn day_bars(
    state: &AppState,
    quote: &Quote,
    span: DaySpan,
    range: &Range,
    count: usize,
) -> Result<Vec<BarRow>, ApiError> {
    let today = NewYork::of(state.simulator.now_ms()).day;
    let (from, to) = (
        range.start_ms.map_or(i32::MIN, day_number_of),
        range.end_ms.map_or(today, |t| day_number_of(t).min(today)),
    );
    let mut days = state
        .store
        .daily_bars(quote.instrument_id, from, to.min(today - 1))
        .await?;
    if from <= today
        && to == today
        && range.unfinished
        && let Some(c) = state
            .simulator
            .session(quote.instrument_id, quote.time_ms)
            .filter(|c| c.volume > 0)
    {
        days.push(Bar {
            day: today,
            open: c.open * 10_000,
            high: c.high * 10_000,
            low: c.low * 10_000,
            close: c.close * 10_000,
            volume: i64::try_from(c.volume).unwrap_or(i64::MAX),
            adj_close: None,
        });
    }
    Ok(roll_up(&days, span)
        .into_iter()
        .rev()
        .take(count)
        .map(BarRow::Days)
        .collect())
}

/// To the cent, as the quotes and fills print (`461.10`, not `461.1`).
fn cents_text(cents: i64) -> String {
    text(Decimal::new(cents, 2))
}

pub(super) fn footprint_row(f: &Footprint) -> FootprintRow {
    let (buy, sell) = (f.buy_total(), f.sell_total());
    let detail = |side: &std::collections::BTreeMap<i64, u64>| {
        side.iter()
            .map(|(&price, shares)| (cents_text(price), shares.to_string()))
            .collect()
    };
    FootprintRow {
        time: format_ms_utc_offset(utc_ms_of(f.day, f.start)),
        trading_session: "RTH".to_owned(),
        total: (buy + sell).to_string(),
        delta: (i128::from(buy) - i128::from(sell)).to_string(),
        buy_total: buy.to_string(),
        sell_total: sell.to_string(),
        buy_detail: detail(&f.buy),
        sell_detail: detail(&f.sell),
    }
}
