//! Stock market data from the simulator (catalog §11): snapshots and the depth of book, read from
//! the same quote the engine matches orders against, so that what a bot sees is what it fills at;
//! ticks, intraday bars and footprints, all made of the simulated day's trades (one a second of
//! the core session, `DayPlan::trade`); daily and longer bars from the stored history.

use axum::Json;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use signet_domain::simulator::clock::CORE_OPEN;
use signet_domain::simulator::intraday::{self, Footprint};
use signet_model::quotes::{BarsRequest, BarsResponse, Depth, Snapshot, SymbolFootprints, Ticks};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub mod data;

use self::data::{
    DEFAULT_BARS, MAX_BARS, MAX_FOOTPRINT_SYMBOLS, Params, Range, Sessions, bar_groups, check_category, depth_of, flag,
    footprint_row, quotes, snapshot_list, symbol_list, ticks_of, trading_days,
};
use super::bar_rows::{self};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, QueryParams, given};
use crate::openapi::InstrumentNotFound;
use crate::pagination;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(snapshots))
        .routes(routes!(depths))
        .routes(routes!(ticks))
        .routes(routes!(bars))
        .routes(routes!(footprints))
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
    Ok(Json(snapshot_list(&state, &p).await?))
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
    Ok(Json(depth_of(&state, &p).await?))
}

#[utoipa::path(
    get, path = "/market-data/stocks/ticks/list", tag = "market data",
    operation_id = "listStockTicks", summary = "Stock ticks",
    description = "The simulator's prints of the day so far, newest first: one a second in the core session (the \
        last price of that second and the shares traded in it), a thin tape around it (a print now and then in the \
        overnight session, the pre-market and the after hours), each with its session and whether the price rose \
        (`B`), fell (`S`) or held (`N`) from the print before.",
    params(
        ("symbol" = String, Query, description = "One symbol", example = "AAPL"),
        ("category" = Option<String>, Query, description = "US_STOCK (default) or US_ETF"),
        ("count" = Option<u32>, Query, description = "Ticks: 1 to 1000, default 30"),
        ("trading_sessions" = Option<String>, Query, description = "PRE, RTH, ATH, OVN, comma-separated: the sessions whose prints are listed; all when absent"),
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
    Ok(Json(ticks_of(&state, &p).await?))
}

#[utoipa::path(
    post, path = "/market-data/stocks/bars/list", tag = "market data",
    operation_id = "listStockBars", summary = "Stock bars",
    description = "Bars of up to 100 symbols, newest first. Intraday timespans (S5, S15, M1 to M240) are made of the \
        simulated days' trades, the same the ticks call lists, counted from the core session's open (an hour's bar \
        runs 09:30 to 10:30); they reach back 30 trading days. They are the core session's unless `trading_sessions` \
        names others (PRE, RTH, ATH, OVN, comma-separated): the bars of the thin tape before the open are counted \
        back from it, those after the close from the close. Daily and longer ones (D, W, M for a month, Y) are the \
        stored history and the simulated days since, today's bar so far included. The times are the simulator's: \
        a range outside its days is refused with the range it has. The day's bar so far is included unless \
        `real_time_required` is false.",
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
) -> Result<Response, ApiError> {
    let groups = bar_groups(&state, &request).await?;
    Ok(([(CONTENT_TYPE, "application/json")], bar_rows::answer(&groups)).into_response())
}

#[utoipa::path(
    get, path = "/market-data/stocks/footprints/list", tag = "market data",
    operation_id = "listStockFootprints", summary = "Stock footprints",
    description = "For each of up to 20 symbols, bars of the simulated days' trades (the ticks call's) with the \
        shares traded at each price split into bought and sold, newest first. A trade is bought when its price is \
        above the trade before it, sold when below, and at the same price it takes the side of the last move \
        (the tick rule); the day's first trade is compared with the previous close. They reach back 30 trading \
        days; the unfinished bar only with `real_time_required=true`.",
    params(
        ("symbols" = String, Query, description = "Up to 20 symbols, comma-separated", example = "AAPL"),
        ("category" = Option<String>, Query, description = "US_STOCK (default)"),
        ("timespan" = Option<String>, Query, description = "S5, S15, M1 (default), M5 or M30"),
        ("count" = Option<u32>, Query, description = "Bars a symbol: 1 to 1200, default 200"),
        ("real_time_required" = Option<String>, Query, description = "true: the unfinished bar too"),
        ("trading_sessions" = Option<String>, Query, description = "PRE, RTH, ATH, comma-separated or as a list; without RTH there are none"),
    ),
    responses(
        (status = 200, description = "Each symbol's footprints, newest first, in the order asked", body = Vec<SymbolFootprints>),
        InstrumentNotFound,
    )
)]
async fn footprints(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<SymbolFootprints>>, ApiError> {
    check_category(p.category.as_deref())?;
    let span = match given(p.timespan.as_deref()).unwrap_or("M1") {
        "S5" => 5,
        "S15" => 15,
        "M1" => 60,
        "M5" => 300,
        "M30" => 1800,
        _ => {
            return Err(ApiError::illegal_parameter(
                "timespan must be one of S5, S15, M1, M5, M30",
            ));
        }
    };
    let count = pagination::bounded("count", given(p.count.as_deref()), DEFAULT_BARS, MAX_BARS)? as usize;
    let range = Range {
        start_ms: None,
        end_ms: None,
        unfinished: flag("real_time_required", p.real_time_required.as_deref())?,
    };
    let core = Sessions::parse(p.trading_sessions.as_deref(), Sessions::ALL)?.core();
    let symbols = symbol_list(&p, MAX_FOOTPRINT_SYMBOLS)?;
    let quotes = quotes(&state, &symbols).await?;
    let mut result = Vec::with_capacity(quotes.len());
    for quote in &quotes {
        let id = quote.instrument_id;
        let mut rows = Vec::new();
        for plan in trading_days(&state, id, &range).await?.into_iter().filter(|_| core) {
            let until = range.until(&state, &plan);
            let path = state.simulator.path_on(id, &plan).await?;
            let sided = intraday::sides(path.trades(CORE_OPEN, until), path.prev_close());
            let prints = intraday::footprints(plan.day, sided, span);
            let finished = |f: &&Footprint| range.unfinished || f.start + span <= until;
            rows.extend(prints.iter().rev().filter(finished).map(footprint_row));
            if rows.len() >= count {
                break;
            }
        }
        rows.truncate(count);
        result.push(SymbolFootprints {
            symbol: quote.symbol.clone(),
            instrument_id: id.to_string(),
            result: rows,
        });
    }
    Ok(Json(result))
}
