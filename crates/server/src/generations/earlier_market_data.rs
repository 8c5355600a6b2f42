//! The earlier SDK generation's market-data paths (`webull-python-sdk-mdata` 0.1.x, x-version
//! v1), under `--compat legacy` only: `/market-data/snapshot`, `/market-data/quotes`,
//! `/market-data/tick`, `/market-data/bars` and `/market-data/batch-bars`. Trading platforms built
//! on that generation still call them; the interface replaced them with the
//! `/market-data/stocks/*` calls. Each is another door onto the same code as the current call
//! ([`crate::marketdata::stocks`]): the same parameters, the same quotes and bars, in the current call's shapes,
//! which hold every field the earlier generation's reference names (the single-symbol bars call
//! answers that symbol's bars alone, a bare array).

// utoipa expands a `responses(T)` of an `IntoResponses` type with a path the lint finds longer
// than needed.
#![allow(unused_qualifications)]

use axum::Json;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use signet_model::quotes::{BarRow, BarsRequest, BarsResponse, Depth, Snapshot, Ticks};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, QueryParams};
use crate::marketdata::bar_rows;
use crate::marketdata::stocks::data::{self as stocks, Params};
use crate::openapi::InstrumentNotFound;
use crate::state::AppState;

/// Mounted only under `--compat legacy` (`crate::generations::compat::PATHS` names the current calls).
pub fn legacy_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(snapshot))
        .routes(routes!(quotes))
        .routes(routes!(tick))
        .routes(routes!(bars))
        .routes(routes!(batch_bars))
}

#[utoipa::path(
    get, path = "/market-data/snapshot", tag = "legacy",
    operation_id = "earlierStockSnapshots", summary = "Stock snapshots (earlier generation)",
    description = "The earlier SDK generation's snapshot call: the answer of `GET /market-data/stocks/snapshots/list`.",
    params(
        ("symbols" = String, Query, description = "Up to 100 symbols, comma-separated", example = "AAPL,MSFT"),
        ("category" = Option<String>, Query, description = "US_STOCK (default) or US_ETF"),
    ),
    responses(
        (status = 200, description = "One snapshot per symbol, in the order asked", body = Vec<Snapshot>),
        InstrumentNotFound,
    )
)]
async fn snapshot(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<Snapshot>>, ApiError> {
    Ok(Json(stocks::snapshot_list(&state, &p).await?))
}

#[utoipa::path(
    get, path = "/market-data/quotes", tag = "legacy",
    operation_id = "earlierStockQuotes", summary = "Stock depth of book (earlier generation)",
    description = "The earlier SDK generation's quotes call: the answer of `GET /market-data/stocks/depths/list`.",
    params(
        ("symbol" = String, Query, description = "One symbol", example = "AAPL"),
        ("category" = Option<String>, Query, description = "US_STOCK (default) or US_ETF"),
        ("depth" = Option<u32>, Query, description = "Levels a side: 1 to 50, default 10"),
    ),
    responses(
        (status = 200, description = "The book of the symbol now", body = Depth),
        InstrumentNotFound,
    )
)]
async fn quotes(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Depth>, ApiError> {
    Ok(Json(stocks::depth_of(&state, &p).await?))
}

#[utoipa::path(
    get, path = "/market-data/tick", tag = "legacy",
    operation_id = "earlierStockTicks", summary = "Stock ticks (earlier generation)",
    description = "The earlier SDK generation's tick call: the answer of `GET /market-data/stocks/ticks/list`.",
    params(
        ("symbol" = String, Query, description = "One symbol", example = "AAPL"),
        ("category" = Option<String>, Query, description = "US_STOCK (default) or US_ETF"),
        ("count" = Option<u32>, Query, description = "Ticks: 1 to 1000, default 30"),
    ),
    responses(
        (status = 200, description = "The symbol's ticks, newest first", body = Ticks),
        InstrumentNotFound,
    )
)]
async fn tick(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Ticks>, ApiError> {
    Ok(Json(stocks::ticks_of(&state, &p).await?))
}

#[utoipa::path(
    get, path = "/market-data/bars", tag = "legacy",
    operation_id = "earlierStockBars", summary = "One stock's bars (earlier generation)",
    description = "The earlier SDK generation's bars call, one symbol in the query: that symbol's bars of \
        `POST /market-data/stocks/bars/list`, newest first, as a bare array.",
    params(
        ("symbol" = String, Query, description = "One symbol", example = "AAPL"),
        ("category" = Option<String>, Query, description = "US_STOCK (default) or US_ETF"),
        ("timespan" = String, Query, description = "S5, S15, M1, M5, M15, M30, M60, M120, M240, D, W, M or Y"),
        ("count" = Option<u32>, Query, description = "Bars: 1 to 1200, default 200"),
        ("real_time_required" = Option<String>, Query, description = "false: without today's unfinished bar"),
        ("trading_sessions" = Option<String>, Query, description = "PRE, RTH, ATH, OVN, comma-separated; without RTH there are no intraday bars"),
    ),
    responses(
        (status = 200, description = "The symbol's bars, newest first", body = Vec<BarRow>),
        InstrumentNotFound,
    )
)]
async fn bars(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Response, ApiError> {
    let request = stocks::one_symbol_bars(&p)?;
    let groups = stocks::bar_groups(&state, &request).await?;
    let rows = groups.first().map_or(&[][..], |(_, _, rows)| rows.as_slice());
    Ok(([(CONTENT_TYPE, "application/json")], bar_rows::bare(rows)).into_response())
}

#[utoipa::path(
    post, path = "/market-data/batch-bars", tag = "legacy",
    operation_id = "earlierStockBatchBars", summary = "Stock bars (earlier generation)",
    description = "The earlier SDK generation's batch bars call: the body and answer of `POST /market-data/stocks/bars/list`.",
    request_body = BarsRequest,
    responses(
        (status = 200, description = "Each symbol's bars, newest first, in the order asked", body = BarsResponse),
        InstrumentNotFound,
    )
)]
async fn batch_bars(
    State(state): State<AppState>,
    _caller: Caller,
    JsonBody(request): JsonBody<BarsRequest>,
) -> Result<Response, ApiError> {
    let groups = stocks::bar_groups(&state, &request).await?;
    Ok(([(CONTENT_TYPE, "application/json")], bar_rows::answer(&groups)).into_response())
}
