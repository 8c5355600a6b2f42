//! Instrument lookup (catalog 10.5), and under `--compat legacy` the retired instrument list
//! (10.6) and the earlier SDK generation's `/instrument/list` (a trading platform looks a symbol
//! up category by category, US_STOCK then US_ETF, and places by the id it finds): the stored
//! instruments, each with the id every other call uses. Every
//! instrument the simulator quotes trades (status OC), in every session, long or short, in whole
//! or fractional shares, with one margin requirement (Reg T, 50 %).

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use signet_domain::marketdata::{Instrument, InstrumentType};
use signet_model::assets::{InstrumentPage, StockInstrument};
use signet_store::InstrumentQuery;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

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

const MAX_SYMBOLS: usize = 100;
const PAGE: u32 = 100;
const LEGACY_PAGE: u32 = 1000;
/// The kind of this listing's pagination keys: an instrument id.
const KEY: char = 'i';
pub(super) const REG_T: &str = "0.5";

#[derive(Debug, Default, Deserialize)]
struct Params {
    symbols: Option<String>,
    category: Option<String>,
    status: Option<String>,
    sub_category: Option<String>,
    pagination_key: Option<String>,
    /// The retired list's cursor and page size.
    last_instrument_id: Option<String>,
    page_size: Option<String>,
}

/// Which instrument types a listing asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Types {
    All,
    Only(InstrumentType),
    /// A sub-category signet has no instrument of.
    None,
}

impl Types {
    /// These and `other`.
    fn and(self, other: Types) -> Types {
        match (self, other) {
            (Types::All, t) | (t, Types::All) => t,
            (Types::Only(a), Types::Only(b)) if a == b => Types::Only(a),
            _ => Types::None,
        }
    }
}

/// What a listing asks for, once its parameters are read.
struct Wanted {
    symbols: Option<Vec<String>>,
    types: Types,
    /// Only tradable (`Some(true)`), only not tradable (`Some(false)`), or all.
    tradable: Option<bool>,
}

fn non_empty(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

fn wanted(p: &Params, legacy: bool) -> Result<Wanted, ApiError> {
    let mut types = match non_empty(p.category.as_deref()) {
        None | Some("US_STOCK") => Types::All,
        Some("US_ETF") if legacy => Types::Only(InstrumentType::Etf),
        Some(other) => {
            let supported = if legacy { "US_STOCK or US_ETF" } else { "US_STOCK" };
            return Err(ApiError::illegal_parameter(format!(
                "category {other:?} is not offered: signet lists US stocks and ETFs only ({supported})"
            )));
        }
    };
    let symbols = match non_empty(p.symbols.as_deref()) {
        None => None,
        Some(list) => {
            let symbols: Vec<String> = list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_uppercase)
                .collect();
            if symbols.len() > MAX_SYMBOLS {
                return Err(ApiError::illegal_parameter(format!(
                    "symbols names {} symbols; at most {MAX_SYMBOLS} are accepted",
                    symbols.len()
                )));
            }
            Some(symbols)
        }
    };
    // A sub-category applies only without symbols (catalog 10.5).
    if symbols.is_none()
        && let Some(sub) = non_empty(p.sub_category.as_deref())
    {
        let of = match sub {
            "COMMON_STOCK" => Types::Only(InstrumentType::Equity),
            "ETF" => Types::Only(InstrumentType::Etf),
            "PREFERRED_STOCK" | "WARRANT" | "UNITS" | "RIGHT" => Types::None,
            other => {
                return Err(ApiError::illegal_parameter(format!(
                    "sub_category {other:?} is not one of COMMON_STOCK, ETF, PREFERRED_STOCK, WARRANT, UNITS, RIGHT"
                )));
            }
        };
        types = types.and(of);
    }
    let tradable = match non_empty(p.status.as_deref()) {
        None => None,
        Some("OC") => Some(true),
        Some("CO" | "NT") => Some(false),
        Some(other) => {
            return Err(ApiError::illegal_parameter(format!(
                "status {other:?} is not one of OC, CO, NT"
            )));
        }
    };
    Ok(Wanted {
        symbols,
        types,
        tradable,
    })
}

/// A page of `limit` instruments after `after_id`, and whether more follow (the last id read,
/// to resume from).
async fn fetch(
    state: &AppState,
    wanted: &Wanted,
    after_id: Option<i64>,
    limit: u32,
) -> Result<(Vec<Instrument>, Option<i64>), ApiError> {
    let instrument_type = match wanted.types {
        Types::All => None,
        Types::Only(t) => Some(t),
        Types::None => return Ok((Vec::new(), None)),
    };
    let mut rows = state
        .store
        .instrument_page(&InstrumentQuery {
            symbols: wanted.symbols.clone(),
            instrument_type,
            after_id,
            limit: limit + 1,
        })
        .await?;
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let resume = rows.last().filter(|_| more).map(|i| i.instrument_id);
    if let Some(tradable) = wanted.tradable {
        rows.retain(|i| trades(state, i) == tradable);
    }
    Ok((rows, resume))
}

/// Whether the simulator quotes it: then orders for it are taken and filled.
fn trades(state: &AppState, instrument: &Instrument) -> bool {
    state.simulator.instrument_id(&instrument.symbol).is_some()
}

fn row(state: &AppState, i: &Instrument, legacy: bool) -> StockInstrument {
    let etf = i.instrument_type == InstrumentType::Etf;
    let current = |value: &str| (!legacy).then(|| value.to_owned());
    StockInstrument {
        symbol: i.symbol.clone(),
        name: i.name.clone(),
        instrument_id: i.instrument_id.to_string(),
        exchange_code: i.exchange.clone().unwrap_or_default(),
        category: if legacy && etf { "US_ETF" } else { "US_STOCK" }.into(),
        sub_category: current(if etf { "ETF" } else { "COMMON_STOCK" }),
        status: if trades(state, i) { "OC" } else { "NT" }.into(),
        currency: i.currency.clone(),
        lot_size: "1".into(),
        shortable: true,
        fractionable: true,
        marginable: true,
        overnight_trading_supported: true,
        easy_to_borrow: true,
        margin_requirement_long: REG_T.into(),
        margin_requirement_short: REG_T.into(),
        intraday_margin_long: current(REG_T),
        intraday_margin_short: current(REG_T),
        maintenance_margin_long: current(REG_T),
        maintenance_margin_short: current(REG_T),
    }
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

/// The earlier generation's lookup of `symbols` (comma-separated) in `category`: over HTTP
/// (`/instrument/list`) and over its quotes gateway ([`crate::gateway`]).
pub(crate) async fn earlier_lookup(
    state: &AppState,
    symbols: Option<&str>,
    category: Option<&str>,
) -> Result<Vec<StockInstrument>, ApiError> {
    let types = match non_empty(category) {
        Some("US_STOCK") => Types::Only(InstrumentType::Equity),
        Some("US_ETF") => Types::Only(InstrumentType::Etf),
        None => return Err(ApiError::illegal_parameter("category is required: US_STOCK or US_ETF")),
        Some(other) => {
            return Err(ApiError::illegal_parameter(format!(
                "category {:?} is not offered: signet lists US stocks and ETFs only (US_STOCK or US_ETF)",
                other.chars().take(20).collect::<String>()
            )));
        }
    };
    if non_empty(symbols).is_none() {
        return Err(ApiError::illegal_parameter("symbols is required, comma-separated"));
    }
    let p = Params {
        symbols: symbols.map(str::to_owned),
        category: category.map(str::to_owned),
        ..Params::default()
    };
    let wanted = Wanted {
        types,
        ..wanted(&p, true)?
    };
    // At most 100 symbols, so one page of 100 holds every instrument they name.
    let (rows, _) = fetch(state, &wanted, None, PAGE).await?;
    Ok(rows.iter().map(|i| row(state, i, true)).collect())
}
