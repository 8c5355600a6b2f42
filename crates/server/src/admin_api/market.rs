//! `/admin/market/...`: read and drive the market simulator.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::marketdata::units::format_day;
use signet_domain::marketdata::units::parse_day;
use signet_domain::simulator::Quote;
use signet_domain::simulator::clock::{ClockMode, NewYork};
use signet_domain::simulator::stats::DayStats;
use signet_domain::times::format_ms;
use signet_model::market::{MarketClock, MarketFigure, MarketQuote, MarketStats, SetQuoteRequest, StepRequest};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::AdminOnly;
use super::require_admin;
use crate::error::ApiError;
use crate::extract::Caller;
use crate::extract::{JsonBody, QueryParams};
use crate::openapi::InstrumentNotFound;
use crate::state::AppState;
use signet_core::simulator::Simulator;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(quote))
        .routes(routes!(set))
        .routes(routes!(step))
        .routes(routes!(clock))
        .routes(routes!(stats))
}

/// The longest step one call may take: a week.
const MAX_STEP_SECONDS: u64 = 7 * 24 * 3600;

/// The quote as the market controls show it, with the day's high and low so far.
pub fn to_wire(market: &Simulator, q: &Quote) -> MarketQuote {
    let session = market.session(q.instrument_id, q.time_ms);
    let price = |c: Option<i64>| c.map_or(q.last, |c| Decimal::new(c, 2));
    MarketQuote {
        symbol: q.symbol.clone(),
        instrument_id: q.instrument_id.to_string(),
        time: format_ms(q.time_ms),
        session: q.session.as_str().to_owned(),
        last: q.last.to_string(),
        bid: q.bid.to_string(),
        ask: q.ask.to_string(),
        bid_size: q.bid_size,
        ask_size: q.ask_size,
        open: q.open.to_string(),
        high: price(session.map(|s| s.high)).max(q.last).to_string(),
        low: price(session.map(|s| s.low)).min(q.last).to_string(),
        pre_close: q.pre_close.to_string(),
        volume: q.volume,
        pinned: q.pinned,
    }
}

#[derive(Deserialize)]
struct SymbolParam {
    symbol: Option<String>,
}

#[utoipa::path(
    get, path = "/admin/market/quote", tag = "market simulator",
    operation_id = "marketQuote", summary = "Simulator quote",
    params(("symbol" = String, Query, description = "One symbol, e.g. AAPL (case-insensitive)", example = "AAPL")),
    responses(
        (status = 200, description = "The simulator's quote now", body = MarketQuote),
        AdminOnly, InstrumentNotFound,
    )
)]
async fn quote(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<SymbolParam>,
) -> Result<Json<MarketQuote>, ApiError> {
    require_admin(&caller)?;
    let symbol = p
        .symbol
        .ok_or_else(|| ApiError::illegal_parameter("symbol is required"))?;
    state.simulator.sync().await?;
    Ok(Json(to_wire(
        &state.simulator,
        &state.simulator.quote(&symbol.to_ascii_uppercase())?,
    )))
}

fn decimal(name: &str, value: Option<&str>) -> Result<Option<Decimal>, ApiError> {
    value
        .map(|v| {
            v.trim()
                .parse::<Decimal>()
                .map_err(|_| ApiError::illegal_parameter(format!("{name} {v:?} is not a decimal")))
        })
        .transpose()
}

#[utoipa::path(
    post, path = "/admin/market/set", tag = "market simulator",
    operation_id = "marketSetQuote", summary = "Pin or release a quote",
    request_body = SetQuoteRequest,
    responses(
        (status = 200, description = "The quote as pinned or released", body = MarketQuote),
        AdminOnly, InstrumentNotFound,
    )
)]
async fn set(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<SetQuoteRequest>,
) -> Result<Json<MarketQuote>, ApiError> {
    require_admin(&caller)?;
    let symbol = request.symbol.trim().to_ascii_uppercase();
    let quote = if request.release {
        state.simulator.release(&symbol)?
    } else {
        let price = decimal("price", request.price.as_deref())?
            .ok_or_else(|| ApiError::illegal_parameter("price is required (or release: true)"))?;
        let (bid, ask) = (
            decimal("bid", request.bid.as_deref())?,
            decimal("ask", request.ask.as_deref())?,
        );
        state.simulator.pin(&symbol, price, bid, ask, request.size)?
    };
    // Pushed at once to the sessions that receive it, without waiting for a tick.
    state.engine.announce(state.simulator.now_ms());
    Ok(Json(to_wire(&state.simulator, &quote)))
}

#[utoipa::path(
    post, path = "/admin/market/step", tag = "market simulator",
    operation_id = "marketStep", summary = "Step the simulated clock", request_body = StepRequest,
    responses(
        (status = 200, description = "The clock after the step", body = MarketClock),
        AdminOnly,
    )
)]
async fn step(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<StepRequest>,
) -> Result<Json<MarketClock>, ApiError> {
    require_admin(&caller)?;
    if request.seconds == 0 || request.seconds > MAX_STEP_SECONDS {
        return Err(ApiError::illegal_parameter(format!(
            "seconds must be from 1 to {MAX_STEP_SECONDS}"
        )));
    }
    state.engine.step(Duration::from_secs(request.seconds)).await?;
    Ok(Json(clock_view(&state)))
}

#[utoipa::path(
    get, path = "/admin/market/clock", tag = "market simulator",
    operation_id = "marketClock", summary = "Simulator clock",
    responses(
        (status = 200, description = "The simulator's clock", body = MarketClock),
        AdminOnly,
    )
)]
async fn clock(State(state): State<AppState>, caller: Caller) -> Result<Json<MarketClock>, ApiError> {
    require_admin(&caller)?;
    Ok(Json(clock_view(&state)))
}

pub(crate) fn clock_view(state: &AppState) -> MarketClock {
    let now = state.simulator.now_ms();
    let ny = NewYork::of(now);
    MarketClock {
        time: format_ms(now),
        date: format_day(ny.day),
        session: ny.session().as_str().to_owned(),
        mode: match state.simulator.clock_mode() {
            ClockMode::Real => "REAL",
            ClockMode::Running { .. } => "RUNNING",
            ClockMode::Manual => "MANUAL",
        }
        .to_owned(),
    }
}

#[derive(Deserialize)]
struct StatsParams {
    symbol: Option<String>,
    date: Option<String>,
}

#[utoipa::path(
    get, path = "/admin/market/stats", tag = "market simulator",
    operation_id = "marketStats", summary = "How the simulated market behaved on a day",
    description = "The figures that tell a market from a drawing of one, from the symbol's one-minute bars of the \
        day (today: the minutes so far): bars sharing the most common volume, the volume of the first and last \
        half hours against the middle one, bars at the day's low and high, the kurtosis of one-minute returns and \
        the autocorrelation of their sizes; each beside the range real US large-cap minute data shows.",
    params(
        ("symbol" = String, Query, description = "One symbol, e.g. AAPL (case-insensitive)", example = "AAPL"),
        ("date" = Option<String>, Query, description = "The New York day, yyyy-MM-dd; today by default", example = "2013-02-28"),
    ),
    responses(
        (status = 200, description = "The day's figures", body = MarketStats),
        AdminOnly, InstrumentNotFound,
    )
)]
async fn stats(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<StatsParams>,
) -> Result<Json<MarketStats>, ApiError> {
    require_admin(&caller)?;
    let symbol = p
        .symbol
        .ok_or_else(|| ApiError::illegal_parameter("symbol is required"))?;
    Ok(Json(day_stats(&state, &symbol, p.date.as_deref()).await?))
}

/// How `symbol`'s market behaved on `date` (`yyyy-MM-dd`, today when `None`): the API's answer
/// and the console's table.
pub(crate) async fn day_stats(state: &AppState, symbol: &str, date: Option<&str>) -> Result<MarketStats, ApiError> {
    let symbol = symbol.trim().to_ascii_uppercase();
    state.simulator.sync().await?;
    let quote = state.simulator.quote(&symbol)?;
    let day = match date {
        Some(date) => parse_day(date.trim())
            .ok_or_else(|| ApiError::illegal_parameter(format!("date {date:?} is not a yyyy-MM-dd day")))?,
        None => NewYork::of(quote.time_ms).day,
    };
    let minutes = state.simulator.minutes_of(quote.instrument_id, day).await?;
    let stats = minutes.as_deref().and_then(DayStats::of).ok_or_else(|| {
        ApiError::illegal_parameter(format!(
            "{symbol} has no minutes on {}: a day it traded, up to today, is needed",
            format_day(day)
        ))
    })?;
    Ok(MarketStats {
        symbol,
        date: format_day(day),
        minutes: stats.minutes,
        figures: stats
            .figures()
            .into_iter()
            .map(|f| MarketFigure {
                name: f.name.to_owned(),
                value: f.value,
                real_low: f.real.0,
                real_high: f.real.1,
                within: f.within(),
            })
            .collect(),
    })
}
