//! `/admin/market/...`: read and drive the simulator, for apps created with `--admin`.

use std::time::Duration;

use axum::extract::{Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_model::ErrorCode;
use signet_model::market::{MarketClock, MarketQuote, SetQuoteRequest, StepRequest};

use super::clock::{ClockMode, NewYork};
use super::{MarketError, Quote};
use crate::app::AppState;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::marketdata::units::format_day;
use crate::times::format_ms;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/admin/market/quote", get(quote))
        .route("/admin/market/set", post(set))
        .route("/admin/market/step", post(step))
        .route("/admin/market/clock", get(clock))
}

/// The longest step one call may take: a week.
const MAX_STEP_SECONDS: u64 = 7 * 24 * 3600;

fn require_admin(caller: &Caller) -> Result<(), ApiError> {
    if caller.admin {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::PermissionDenied,
            "the market controls need an app created with --admin",
        ))
    }
}

impl From<MarketError> for ApiError {
    fn from(e: MarketError) -> Self {
        match e {
            MarketError::UnknownSymbol(symbol) => ApiError::new(
                ErrorCode::InstrumentNotFound,
                format!("no instrument has the symbol {symbol:?}"),
            ),
            MarketError::RealClock | MarketError::BadQuote => ApiError::illegal_parameter(e.to_string()),
            MarketError::Store(e) => e.into(),
        }
    }
}

pub fn to_wire(q: &Quote) -> MarketQuote {
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
        high: q.high.to_string(),
        low: q.low.to_string(),
        pre_close: q.pre_close.to_string(),
        volume: q.volume,
        pinned: q.pinned,
    }
}

#[derive(Deserialize)]
struct SymbolParam {
    symbol: Option<String>,
}

async fn quote(
    State(state): State<AppState>,
    caller: Caller,
    Query(p): Query<SymbolParam>,
) -> Result<Json<MarketQuote>, ApiError> {
    require_admin(&caller)?;
    let symbol = p
        .symbol
        .ok_or_else(|| ApiError::illegal_parameter("symbol is required"))?;
    state.market.sync().await?;
    Ok(Json(to_wire(&state.market.quote(&symbol.to_ascii_uppercase())?)))
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

async fn set(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<SetQuoteRequest>,
) -> Result<Json<MarketQuote>, ApiError> {
    require_admin(&caller)?;
    let symbol = request.symbol.trim().to_ascii_uppercase();
    let quote = if request.release {
        state.market.release(&symbol)?
    } else {
        let price = decimal("price", request.price.as_deref())?
            .ok_or_else(|| ApiError::illegal_parameter("price is required (or release: true)"))?;
        let (bid, ask) = (
            decimal("bid", request.bid.as_deref())?,
            decimal("ask", request.ask.as_deref())?,
        );
        state.market.pin(&symbol, price, bid, ask, request.size)?
    };
    Ok(Json(to_wire(&quote)))
}

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
    crate::engine::step(&state, Duration::from_secs(request.seconds)).await?;
    Ok(Json(clock_view(&state)))
}

async fn clock(State(state): State<AppState>, caller: Caller) -> Result<Json<MarketClock>, ApiError> {
    require_admin(&caller)?;
    Ok(Json(clock_view(&state)))
}

fn clock_view(state: &AppState) -> MarketClock {
    let now = state.market.now_ms();
    let ny = NewYork::of(now);
    MarketClock {
        time: format_ms(now),
        date: format_day(ny.day),
        session: ny.session().as_str().to_owned(),
        mode: match state.market.clock_mode() {
            ClockMode::Real => "REAL",
            ClockMode::Running { .. } => "RUNNING",
            ClockMode::Manual => "MANUAL",
        }
        .to_owned(),
    }
}
