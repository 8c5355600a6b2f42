//! The v1 instrument calls (`TradeClient.trade_instrument`): one instrument by id or by symbol,
//! and the instruments orders can name, from the same store and simulator as the v3 lookup.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use signet_domain::marketdata::{Instrument, InstrumentType};
use signet_model::ErrorCode;
use signet_model::v1::TradeInstrument;
use signet_store::InstrumentQuery;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::{Caller, QueryParams, given};
use crate::openapi::InstrumentNotFound;
use crate::pagination;
use crate::state::AppState;
use crate::trading::instruments::lookup::REG_T;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(instrument))
        .routes(routes!(security))
        .routes(routes!(tradable))
}

#[derive(Debug, Deserialize)]
struct Params {
    instrument_id: Option<String>,
    symbol: Option<String>,
    market: Option<String>,
    instrument_super_type: Option<String>,
    last_security_id: Option<String>,
    page_size: Option<String>,
}

const PAGE: u32 = 10;
const MAX_PAGE: u32 = 100;

fn to_wire(state: &AppState, i: Instrument) -> TradeInstrument {
    let trades = state.simulator.instrument_id(&i.symbol).is_some();
    TradeInstrument {
        instrument_id: i.instrument_id.to_string(),
        instrument_type: if i.instrument_type == InstrumentType::Etf {
            "ETF"
        } else {
            "STOCK"
        }
        .into(),
        trade_policy: if trades { "ALL" } else { "NONE" }.into(),
        margin_ratio: REG_T.into(),
        can_margin: "YES".into(),
        exchange_code: i.exchange.unwrap_or_default(),
        symbol: i.symbol,
        name: i.name,
    }
}

fn instrument_id(text: Option<&str>, name: &str) -> Result<Option<i64>, ApiError> {
    given(text)
        .map(|id| {
            id.parse::<i64>().map_err(|_| {
                ApiError::illegal_parameter(format!("{name} is a number, as the instrument lists show it"))
            })
        })
        .transpose()
}

fn not_found(what: String) -> ApiError {
    ApiError::new(ErrorCode::InstrumentNotFound, what)
}

/// One instrument by its id.
#[utoipa::path(
    get, path = "/trade/instrument", tag = "trading (v1)",
    operation_id = "v1TradeInstrument", summary = "Trade instrument (v1)",
    params(("instrument_id" = String, Query, description = "The instrument's id")),
    responses((status = 200, description = "The instrument", body = TradeInstrument), InstrumentNotFound)
)]
async fn instrument(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<TradeInstrument>, ApiError> {
    let id = instrument_id(p.instrument_id.as_deref(), "instrument_id")?
        .ok_or_else(|| ApiError::illegal_parameter("instrument_id is required"))?;
    let found = state
        .store
        .instrument_page(&InstrumentQuery {
            symbols: None,
            instrument_type: None,
            after_id: Some(id - 1),
            limit: 1,
        })
        .await?
        .into_iter()
        .find(|i| i.instrument_id == id)
        .ok_or_else(|| not_found(format!("no instrument has the instrument_id {id}")))?;
    Ok(Json(to_wire(&state, found)))
}

/// One instrument by its symbol (US equities: options are not offered).
#[utoipa::path(
    get, path = "/trade/security", tag = "trading (v1)",
    operation_id = "v1TradeSecurity", summary = "Trade security (v1)",
    params(
        ("symbol" = String, Query, description = "The symbol, e.g. AAPL"),
        ("market" = Option<String>, Query, description = "US, the only market"),
        ("instrument_super_type" = Option<String>, Query, description = "EQUITY (options are not offered)"),
        ("instrument_type" = Option<String>, Query, description = "Ignored for equities"),
    ),
    responses((status = 200, description = "The instrument", body = TradeInstrument), InstrumentNotFound)
)]
async fn security(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<TradeInstrument>, ApiError> {
    if given(p.market.as_deref()).is_some_and(|m| !m.eq_ignore_ascii_case("US")) {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMarket,
            "market must be US, the only market signet simulates",
        ));
    }
    if given(p.instrument_super_type.as_deref()).is_some_and(|t| !t.eq_ignore_ascii_case("EQUITY")) {
        return Err(ApiError::new(
            ErrorCode::UnsupportedInstrumentType,
            "instrument_super_type must be EQUITY: signet offers US stocks and ETFs",
        ));
    }
    let symbol = given(p.symbol.as_deref())
        .ok_or_else(|| ApiError::illegal_parameter("symbol is required"))?
        .to_ascii_uppercase();
    let found = state
        .store
        .instrument(&symbol)
        .await?
        .ok_or_else(|| not_found(format!("no instrument has the symbol {symbol:?}")))?;
    Ok(Json(to_wire(&state, found)))
}

/// The instruments orders can name (the simulator quotes them), by id: `page_size` (10, up to
/// 100) after `last_security_id`; an empty page after the last.
#[utoipa::path(
    get, path = "/trade/instrument/tradable/list", tag = "trading (v1)",
    operation_id = "v1TradableInstruments", summary = "Tradable instruments (v1)",
    params(
        ("last_security_id" = Option<String>, Query, description = "The page after this instrument id"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Instruments a page, 10 by default"),
    ),
    responses((status = 200, description = "A page of tradable instruments, by id", body = Vec<TradeInstrument>))
)]
async fn tradable(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<TradeInstrument>>, ApiError> {
    let size = pagination::page_size(p.page_size.as_deref(), PAGE, MAX_PAGE)?;
    let mut after = instrument_id(p.last_security_id.as_deref(), "last_security_id")?;
    let mut page = Vec::new();
    // Instruments the simulator does not quote are left out: read on until the page is full.
    loop {
        let rows = state
            .store
            .instrument_page(&InstrumentQuery {
                symbols: None,
                instrument_type: None,
                after_id: after,
                limit: size,
            })
            .await?;
        let read = rows.len();
        after = rows.last().map(|i| i.instrument_id).or(after);
        page.extend(
            rows.into_iter()
                .filter(|i| state.simulator.instrument_id(&i.symbol).is_some())
                .map(|i| to_wire(&state, i)),
        );
        if page.len() >= size as usize || read < size as usize {
            break;
        }
    }
    page.truncate(size as usize);
    Ok(Json(page))
}
