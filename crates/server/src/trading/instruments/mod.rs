//! Instrument lookup (catalog 10.5), and under `--compat legacy` the retired instrument list
//! (10.6) and the earlier SDK generation's `/instrument/list` (a trading platform looks a symbol
//! up category by category, US_STOCK then US_ETF, and places by the id it finds): the stored
//! instruments, each with the id every other call uses. Every
//! instrument the simulator quotes trades (status OC), in every session, long or short, in whole
//! or fractional shares, with one margin requirement (Reg T, 50 %).

pub mod lookup;

use axum::Json;
use axum::extract::State;
use signet_model::assets::{InstrumentPage, StockInstrument};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use self::lookup::{KEY, LEGACY_PAGE, PAGE, Params, earlier_lookup, fetch, non_empty, row, wanted};
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::pagination;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(profiles))
}

/// The retired list and the earlier generation's, mounted only under `--compat legacy`.
pub fn legacy_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(legacy_list))
        .routes(routes!(earlier_list))
}

/// Instruments by id, 100 a page (or `page_size`); with `symbols` (up to 100, comma-separated), those of them
/// that exist. `sub_category` (COMMON_STOCK, ETF; the others have no instrument here) applies
/// only without `symbols`.
#[utoipa::path(
    get, path = "/trading/instruments/stocks/profiles/list", tag = "instruments",
    operation_id = "listInstruments", summary = "Instrument lookup",
    params(
        ("symbols" = Option<String>, Query, description = "Up to 100 symbols, comma-separated, e.g. AAPL,TSLA"),
        ("category" = Option<String>, Query, description = "US_STOCK (the default and the only value)"),
        ("status" = Option<String>, Query, description = "OC tradable, CO liquidate only, NT not tradable"),
        ("sub_category" = Option<String>, Query, description = "COMMON_STOCK, ETF, PREFERRED_STOCK, WARRANT, UNITS or RIGHT; only without symbols"),
        ("pagination_key" = Option<String>, Query, description = "The previous page's `pagination_key`"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Instruments a page, 100 by default (signet's addition: the official client never sends it)"),
    ),
    responses(
        (status = 200, description = "A page of instruments, by instrument id", body = InstrumentPage),
    )
)]
async fn profiles(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<InstrumentPage>, ApiError> {
    let wanted = wanted(&p, false)?;
    let after_id = pagination::decode(KEY, p.pagination_key.as_deref())?;
    let limit = pagination::page_size(p.page_size.as_deref(), PAGE, PAGE)?;
    let (rows, resume) = fetch(&state, &wanted, after_id, limit).await?;
    Ok(Json(InstrumentPage {
        data: rows.iter().map(|i| row(&state, i, false)).collect(),
        pagination_key: resume.map(|id| pagination::encode(KEY, id)),
    }))
}

/// The retired list: a bare array, paged with the last `instrument_id` seen. x-version v2 or v3.
#[utoipa::path(
    get, path = "/openapi/instrument/stock/list", tag = "legacy",
    operation_id = "legacyListInstruments", summary = "Instrument list (retired)",
    params(
        ("symbols" = Option<String>, Query, description = "Up to 100 symbols, comma-separated"),
        ("category" = Option<String>, Query, description = "US_STOCK or US_ETF"),
        ("status" = Option<String>, Query, description = "OC tradable, CO liquidate only, NT not tradable"),
        ("sub_category" = Option<String>, Query, description = "COMMON_STOCK or ETF; only without symbols"),
        ("last_instrument_id" = Option<String>, Query, description = "The page after this instrument"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 1000, description = "Instruments a page, 1000 by default"),
    ),
    responses(
        (status = 200, description = "Instruments by instrument id", body = Vec<StockInstrument>),
    )
)]
async fn legacy_list(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<StockInstrument>>, ApiError> {
    let wanted = wanted(&p, true)?;
    let after_id = match non_empty(p.last_instrument_id.as_deref()) {
        None => None,
        Some(v) => Some(
            v.parse::<i64>()
                .map_err(|_| ApiError::illegal_parameter("last_instrument_id must be an instrument_id"))?,
        ),
    };
    let limit = pagination::page_size(p.page_size.as_deref(), LEGACY_PAGE, LEGACY_PAGE)?;
    let (rows, _) = fetch(&state, &wanted, after_id, limit).await?;
    Ok(Json(rows.iter().map(|i| row(&state, i, true)).collect()))
}

/// The earlier generation's lookup: the instruments of `symbols` in `category` alone, so that an
/// ETF asked for as a US_STOCK is not found, and is under US_ETF.
#[utoipa::path(
    get, path = "/instrument/list", tag = "legacy",
    operation_id = "earlierListInstruments", summary = "Instrument lookup (earlier generation)",
    description = "The earlier SDK generation's instrument lookup (x-version v1): the instruments of `symbols` \
        that are of `category`, in the retired list's shape (it holds the earlier reference's `name`, `symbol`, \
        `instrument_id`, `exchange_code` and `currency`). A symbol of another category, or unknown, is left out.",
    params(
        ("symbols" = String, Query, description = "Up to 100 symbols, comma-separated", example = "AAPL,SPY"),
        ("category" = String, Query, description = "US_STOCK (common stocks) or US_ETF (funds)"),
    ),
    responses(
        (status = 200, description = "The instruments found, by instrument id", body = Vec<StockInstrument>),
    )
)]
async fn earlier_list(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<StockInstrument>>, ApiError> {
    Ok(Json(
        earlier_lookup(&state, p.symbols.as_deref(), p.category.as_deref()).await?,
    ))
}
