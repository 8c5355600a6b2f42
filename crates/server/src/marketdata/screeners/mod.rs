//! The six screeners (catalog section 4, current v3 paths). Each ranking is a query over the
//! stored snapshot figures ([`signet_domain::marketdata::snapshot`]) at request time.
//!
//! | path | selects | orders by (default) |
//! |---|---|---|
//! | `gainers-losers/list` | the 200 that rose most (`direction` DESC) or fell most (ASC) over the `rank_type` period | `sort_by` (CHANGE_RATIO, over that period) |
//! | `top-actives/list` | the 200 highest by `rank_type` (VOLUME) | `sort_by` (VOLUME) |
//! | `market-sectors/list` | every sector, aggregated over `period` (D1) | `agg_type` (MARKET_VALUE), paginated |
//! | `market-sectors/get` | one sector's constituents | `sort_by` (CHANGE_RATIO), paginated |
//! | `high-dividend-ranks/list` | the 200 highest trailing yields | `sort_by` (YIELD) |
//! | `week52-high-low/list` | new or near 52-week highs or lows (`rank_type`, NEW_HIGH), 200 at most | `sort_by` (CHANGE_RATIO_52W) |
//!
//! Only equities are ranked (`category` US_STOCK). The intraday rank types of gainers/losers
//! (PRE_MARKET, AFTER_MARKET, MIN_3, MIN_5) rank the market simulator's prices (`intraday_list`).
//!
//! The retired paths under `/openapi/market-data/screener/` ([`legacy_routes`], served with
//! `--compat legacy`) run the same rankings: each legacy handler parses `page_index` and
//! `page_size` (before the other parameters), calls the function the current handler calls,
//! which validates the rest as for the current path, and slices and reshapes its answer.

pub mod params;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use signet_domain::marketdata::screeners::intraday::{self, Intraday};
use signet_domain::marketdata::screeners::{
    Direction, Filter, Metric, Period, ScreenQuery, ScreenRow, SectorRow, base_close, order_sectors, sector_id,
};
use signet_domain::marketdata::snapshot::ratio;
use signet_domain::marketdata::units::{format_day, from_micros};
use signet_model::screeners::{
    ActivesRank, AggType, Direction as Dir, GainersRank, LegacyScreenerItem, LegacyScreenerPage, LegacySectorDetail,
    ScreenerItem, Sector, SectorDetail, SectorMember, SectorPage, SectorPeriod, SortBy, Week52Rank,
};
use utoipa::IntoResponses;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use self::params::*;
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::pagination;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(gainers_losers))
        .routes(routes!(top_actives))
        .routes(routes!(market_sectors))
        .routes(routes!(market_sector))
        .routes(routes!(high_dividend))
        .routes(routes!(week52))
}

/// The legacy paths (`--compat legacy`, [`crate::generations::compat`]): the same rankings as [`routes()`],
/// paginated by `page_index` (from 1) and `page_size`, in the retired answers' shapes.
pub fn legacy_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(legacy_gainers_losers))
        .routes(routes!(legacy_top_actives))
        .routes(routes!(legacy_market_sectors))
        .routes(routes!(legacy_market_sector))
        .routes(routes!(legacy_high_dividend))
        .routes(routes!(legacy_week52))
}

/// NOT_FOUND: no sector has this id
#[derive(IntoResponses)]
#[response(status = 404)]
pub struct UnknownSector(pub signet_model::ErrorBody);

/// The length of the ranked lists.
const TOP: u64 = 200;
const PAGE: u32 = 20;
const MAX_PAGE: u32 = 100;

/// Every parameter any screener takes; each handler reads its own.
#[derive(Debug, Default, Deserialize)]
struct Params {
    category: Option<String>,
    rank_type: Option<String>,
    sort_by: Option<String>,
    direction: Option<String>,
    agg_type: Option<String>,
    period: Option<String>,
    sector_id: Option<String>,
    pagination_key: Option<String>,
    page_size: Option<String>,
    /// The legacy paths' page number, from 1.
    page_index: Option<String>,
}

#[utoipa::path(
    get, path = "/market-data/screeners/gainers-losers/list", tag = "screeners",
    operation_id = "screenersGainersLosers", summary = "Top gainers/losers",
    params(CategoryParam, GainersParams, DirectionParam),
    responses((status = 200, description = "The ranking", body = Vec<ScreenerItem>))
)]
async fn gainers_losers(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<ScreenerItem>>, ApiError> {
    gainers_losers_list(&state, &p).await.map(Json)
}

#[utoipa::path(
    get, path = "/openapi/market-data/screener/gainers-losers", tag = "legacy",
    operation_id = "legacyGainersLosers", summary = "Top gainers/losers (legacy)",
    params(CategoryParam, GainersParams, DirectionParam, LegacyPageParams),
    responses((status = 200, description = "The ranking", body = LegacyScreenerPage))
)]
async fn legacy_gainers_losers(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<LegacyScreenerPage>, ApiError> {
    let page = legacy_page(&p)?;
    Ok(legacy_list(page, gainers_losers_list(&state, &p).await?))
}

/// The list of gainers/losers, for the current path and the legacy one.
async fn gainers_losers_list(state: &AppState, p: &Params) -> Result<Vec<ScreenerItem>, ApiError> {
    let rank = param("rank_type", p.rank_type.as_deref(), GainersRank::Day1, None)?;
    require_category(p.category.as_deref())?;
    let sort_by = param("sort_by", p.sort_by.as_deref(), SortBy::ChangeRatio, SORT_11)?;
    let direction = direction(param("direction", p.direction.as_deref(), Dir::Desc, None)?);
    let period = match rank {
        GainersRank::Day1 => Period::Day1,
        GainersRank::Day5 => Period::Day5,
        GainersRank::Month1 => Period::Month1,
        GainersRank::Month3 => Period::Month3,
        GainersRank::Week52 => Period::Week52,
        GainersRank::PreMarket => return intraday_list(state, Intraday::PreMarket, sort_by, direction).await,
        GainersRank::AfterMarket => return intraday_list(state, Intraday::AfterMarket, sort_by, direction).await,
        GainersRank::Min3 => return intraday_list(state, Intraday::Min3, sort_by, direction).await,
        GainersRank::Min5 => return intraday_list(state, Intraday::Min5, sort_by, direction).await,
    };
    let query = ScreenQuery {
        filter: Filter {
            moved: Some((period, direction)),
            ..Filter::default()
        },
        rank: Some((Metric::ChangeRatio(period), direction)),
        rank_limit: TOP,
        order: (sort_metric(sort_by, period), direction),
        offset: 0,
        limit: TOP,
    };
    list(state, &query, period).await
}

/// An intraday ranking ([`intraday`]): the simulator's moves over the window, then the
/// store's rows of those instruments in the order asked, with the price and the change of the
/// window. The other figures are the day's snapshot.
async fn intraday_list(
    state: &AppState,
    rank: Intraday,
    sort_by: SortBy,
    direction: Direction,
) -> Result<Vec<ScreenerItem>, ApiError> {
    let Some(window) = intraday::window(rank, state.simulator.now_ms()) else {
        return Ok(Vec::new());
    };
    let prices = state.simulator.moves(window.from.unwrap_or(window.to), window.to);
    // Twice the list: the funds among them are not ranked.
    let moves = intraday::rank(window, prices, direction, index(2 * TOP));
    let rows = state
        .store
        .screen(&ScreenQuery {
            filter: Filter {
                ids: Some(moves.iter().map(|m| m.quote.instrument_id).collect()),
                ..Filter::default()
            },
            rank: None,
            rank_limit: 2 * TOP,
            order: (sort_metric(sort_by, Period::Day1), direction),
            offset: 0,
            limit: 2 * TOP,
        })
        .await?;
    let listed = intraday::list(&rows, &moves, sort_by == SortBy::ChangeRatio, direction, index(TOP));
    Ok(listed
        .into_iter()
        .map(|(row, m)| ScreenerItem {
            price: m.quote.last.to_string(),
            change: m.change().to_string(),
            change_ratio: m.ratio().round_dp(6).normalize().to_string(),
            ..item(row, Period::Day1)
        })
        .collect())
}

#[utoipa::path(
    get, path = "/market-data/screeners/top-actives/list", tag = "screeners",
    operation_id = "screenersTopActives", summary = "Most active", params(CategoryParam, ActivesParams, DirectionParam),
    responses((status = 200, description = "The ranking", body = Vec<ScreenerItem>))
)]
async fn top_actives(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<ScreenerItem>>, ApiError> {
    top_actives_list(&state, &p).await.map(Json)
}

#[utoipa::path(
    get, path = "/openapi/market-data/screener/top-active", tag = "legacy",
    operation_id = "legacyTopActives", summary = "Most active (legacy)",
    params(CategoryParam, ActivesParams, DirectionParam, LegacyPageParams),
    responses((status = 200, description = "The ranking", body = LegacyScreenerPage))
)]
async fn legacy_top_actives(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<LegacyScreenerPage>, ApiError> {
    let page = legacy_page(&p)?;
    Ok(legacy_list(page, top_actives_list(&state, &p).await?))
}

/// The list of the most active, for the current path and the legacy one.
async fn top_actives_list(state: &AppState, p: &Params) -> Result<Vec<ScreenerItem>, ApiError> {
    require_category(p.category.as_deref())?;
    let rank = param("rank_type", p.rank_type.as_deref(), ActivesRank::Volume, None)?;
    let sort_by = param("sort_by", p.sort_by.as_deref(), SortBy::Volume, SORT_11)?;
    let direction = direction(param("direction", p.direction.as_deref(), Dir::Desc, None)?);
    let query = ScreenQuery {
        filter: Filter::default(),
        rank: Some((actives_metric(rank), Direction::Desc)),
        rank_limit: TOP,
        order: (sort_metric(sort_by, Period::Day1), direction),
        offset: 0,
        limit: TOP,
    };
    list(state, &query, Period::Day1).await
}

#[utoipa::path(
    get, path = "/market-data/screeners/high-dividend-ranks/list", tag = "screeners",
    operation_id = "screenersHighDividend", summary = "High dividend",
    params(CategoryParam, HighDividendParams, DirectionParam),
    responses((status = 200, description = "The ranking", body = Vec<ScreenerItem>))
)]
async fn high_dividend(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<ScreenerItem>>, ApiError> {
    high_dividend_list(&state, &p).await.map(Json)
}

#[utoipa::path(
    get, path = "/openapi/market-data/screener/high-dividend", tag = "legacy",
    operation_id = "legacyHighDividend", summary = "High dividend (legacy)",
    params(CategoryParam, HighDividendParams, DirectionParam, LegacyPageParams),
    responses((status = 200, description = "The ranking", body = LegacyScreenerPage))
)]
async fn legacy_high_dividend(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<LegacyScreenerPage>, ApiError> {
    let page = legacy_page(&p)?;
    Ok(legacy_list(page, high_dividend_list(&state, &p).await?))
}

/// The list of the highest yields, for the current path and the legacy one.
async fn high_dividend_list(state: &AppState, p: &Params) -> Result<Vec<ScreenerItem>, ApiError> {
    require_category(p.category.as_deref())?;
    let sort_by = param("sort_by", p.sort_by.as_deref(), SortBy::Yield, SORT_13)?;
    let direction = direction(param("direction", p.direction.as_deref(), Dir::Desc, None)?);
    let query = ScreenQuery {
        filter: Filter {
            dividend_payers: true,
            ..Filter::default()
        },
        rank: Some((Metric::DividendYield, Direction::Desc)),
        rank_limit: TOP,
        order: (sort_metric(sort_by, Period::Day1), direction),
        offset: 0,
        limit: TOP,
    };
    list(state, &query, Period::Day1).await
}

#[utoipa::path(
    get, path = "/market-data/screeners/week52-high-low/list", tag = "screeners",
    operation_id = "screenersWeek52HighLow", summary = "52-week high/low",
    params(CategoryParam, Week52Params, DirectionParam),
    responses((status = 200, description = "The ranking", body = Vec<ScreenerItem>))
)]
async fn week52(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<ScreenerItem>>, ApiError> {
    week52_list(&state, &p).await.map(Json)
}

#[utoipa::path(
    get, path = "/openapi/market-data/screener/52whl", tag = "legacy",
    operation_id = "legacyWeek52HighLow", summary = "52-week high/low (legacy)",
    params(CategoryParam, Week52Params, DirectionParam, LegacyPageParams),
    responses((status = 200, description = "The ranking", body = LegacyScreenerPage))
)]
async fn legacy_week52(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<LegacyScreenerPage>, ApiError> {
    let page = legacy_page(&p)?;
    Ok(legacy_list(page, week52_list(&state, &p).await?))
}

/// The list of 52-week highs or lows, for the current path and the legacy one.
async fn week52_list(state: &AppState, p: &Params) -> Result<Vec<ScreenerItem>, ApiError> {
    let rank = week52_rank(param("rank_type", p.rank_type.as_deref(), Week52Rank::NewHigh, None)?);
    require_category(p.category.as_deref())?;
    let sort_by = param("sort_by", p.sort_by.as_deref(), SortBy::ChangeRatio52w, None)?;
    let direction = direction(param("direction", p.direction.as_deref(), Dir::Desc, None)?);
    let query = ScreenQuery {
        filter: Filter {
            week52: Some(rank),
            ..Filter::default()
        },
        rank: None,
        rank_limit: TOP,
        order: (sort_metric(sort_by, Period::Day1), direction),
        offset: 0,
        limit: TOP,
    };
    list(state, &query, Period::Day1).await
}

async fn list(state: &AppState, query: &ScreenQuery, period: Period) -> Result<Vec<ScreenerItem>, ApiError> {
    let rows = state.store.screen(query).await?;
    Ok(rows.iter().map(|r| item(r, period)).collect())
}

/// `page_index` and `page_size` of the legacy paths: the page size and its maximum are those of
/// the current sector calls.
fn legacy_page(p: &Params) -> Result<LegacyPage, ApiError> {
    LegacyPage::parse(p.page_index.as_deref(), p.page_size.as_deref(), PAGE, MAX_PAGE)
}

/// A legacy page of a ranked list (at most [`TOP`] long, as the current call answers it).
fn legacy_list(page: LegacyPage, items: Vec<ScreenerItem>) -> Json<LegacyScreenerPage> {
    let (items, has_more) = page.slice(items);
    Json(LegacyScreenerPage {
        has_more,
        data: items.into_iter().map(LegacyScreenerItem::from).collect(),
    })
}

/// How the sector list is ordered, from the parameters of both sector-list paths.
struct SectorOrder {
    agg: AggType,
    period: Period,
    direction: Direction,
}

fn sector_order(p: &Params) -> Result<SectorOrder, ApiError> {
    require_category(p.category.as_deref())?;
    Ok(SectorOrder {
        agg: param("agg_type", p.agg_type.as_deref(), AggType::MarketValue, None)?,
        period: period(param("period", p.period.as_deref(), SectorPeriod::D1, None)?),
        direction: direction(param("direction", p.direction.as_deref(), Dir::Desc, None)?),
    })
}

/// Every sector, aggregated over the period and in the order asked: what both sector-list paths
/// page through.
async fn ranked_sectors(state: &AppState, order: &SectorOrder) -> Result<Vec<SectorRow>, ApiError> {
    let mut sectors = state.store.sectors(order.period).await?;
    order_sectors(&mut sectors, order.agg, order.direction);
    Ok(sectors)
}

#[utoipa::path(
    get, path = "/market-data/screeners/market-sectors/list", tag = "screeners",
    operation_id = "screenersMarketSectors", summary = "Market sectors",
    params(CategoryParam, SectorsParams, DirectionParam, PageParams),
    responses((status = 200, description = "The ranking", body = SectorPage))
)]
async fn market_sectors(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<SectorPage>, ApiError> {
    let order = sector_order(&p)?;
    let (offset, limit) = page(&p)?;
    let sectors = ranked_sectors(&state, &order).await?;
    let total = sectors.len() as u64;
    let data = sectors
        .iter()
        .skip(index(offset))
        .take(index(limit))
        .map(sector)
        .collect();
    Ok(Json(SectorPage {
        data,
        pagination_key: next_key(offset, limit, total),
    }))
}

/// The legacy sector list: a bare array of the page's sectors (no `has_more`: an array has no
/// room for it; the client asks until a page comes back short). Each sector's `data` is the one
/// the current call answers, its three largest constituents by market value: the retired answer
/// gave a few members as examples (the MCP prints their symbols beside the sector), and three
/// keep the two paths' sectors identical and the list short; the full, ordered membership is
/// what market-sectors-detail pages through.
#[utoipa::path(
    get, path = "/openapi/market-data/screener/market-sectors", tag = "legacy",
    operation_id = "legacyMarketSectors", summary = "Market sectors (legacy)",
    params(CategoryParam, SectorsParams, DirectionParam, LegacyPageParams),
    responses((status = 200, description = "The ranking", body = Vec<Sector>))
)]
async fn legacy_market_sectors(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<Sector>>, ApiError> {
    let page = legacy_page(&p)?;
    let order = sector_order(&p)?;
    let (sectors, _) = page.slice(ranked_sectors(&state, &order).await?);
    Ok(Json(sectors.iter().map(sector).collect()))
}

/// Which sector's constituents, in which order, from the parameters of both sector-detail paths.
struct SectorQuery {
    sector_id: String,
    period: Period,
    sort_by: SortBy,
    direction: Direction,
}

fn sector_query(p: &Params) -> Result<SectorQuery, ApiError> {
    let sector_id = p
        .sector_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            ApiError::illegal_parameter("sector_id is required: the id of a sector from market-sectors/list")
        })?;
    require_category(p.category.as_deref())?;
    Ok(SectorQuery {
        sector_id: sector_id.to_owned(),
        period: period(param("period", p.period.as_deref(), SectorPeriod::D1, None)?),
        sort_by: param("sort_by", p.sort_by.as_deref(), SortBy::ChangeRatio, SORT_13)?,
        direction: direction(param("direction", p.direction.as_deref(), Dir::Desc, None)?),
    })
}

/// One sector, and `limit` of its constituents from `offset` in the order asked, with whether
/// more follow: what both sector-detail paths answer.
async fn sector_members(
    state: &AppState,
    q: &SectorQuery,
    offset: u64,
    limit: u64,
) -> Result<(SectorRow, Vec<ScreenRow>, bool), ApiError> {
    let sectors = state.store.sectors(q.period).await?;
    let found = sectors
        .into_iter()
        .find(|s| sector_id(&s.name) == q.sector_id)
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "no sector has the id {:?}: see market-sectors/list",
                q.sector_id
            ))
        })?;
    let query = ScreenQuery {
        filter: Filter {
            sector: Some(found.name.clone()),
            ..Filter::default()
        },
        rank: None,
        rank_limit: u64::MAX,
        order: (sort_metric(q.sort_by, q.period), q.direction),
        offset,
        limit: limit + 1,
    };
    let mut rows = state.store.screen(&query).await?;
    let more = rows.len() as u64 > limit;
    rows.truncate(index(limit));
    Ok((found, rows, more))
}

#[utoipa::path(
    get, path = "/market-data/screeners/market-sectors/get", tag = "screeners",
    operation_id = "screenersMarketSector", summary = "Market sector detail",
    params(CategoryParam, SectorParams, DirectionParam, PageParams),
    responses((status = 200, description = "The ranking", body = SectorDetail), UnknownSector)
)]
async fn market_sector(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<SectorDetail>, ApiError> {
    let q = sector_query(&p)?;
    let (offset, limit) = page(&p)?;
    let (found, rows, more) = sector_members(&state, &q, offset, limit).await?;
    Ok(Json(SectorDetail {
        id: q.sector_id,
        name: found.name,
        change_ratio: ratio_text(found.change_ratio),
        advanced: found.advanced,
        declined: found.declined,
        flat: found.flat,
        data: rows.iter().map(|r| item(r, q.period)).collect(),
        pagination_key: more.then(|| encode_key(offset + limit)),
    }))
}

#[utoipa::path(
    get, path = "/openapi/market-data/screener/market-sectors-detail", tag = "legacy",
    operation_id = "legacyMarketSector", summary = "Market sector detail (legacy)",
    params(CategoryParam, SectorParams, DirectionParam, LegacyPageParams),
    responses(
        (status = 200, description = "The ranking", body = LegacySectorDetail),
        UnknownSector,
    )
)]
async fn legacy_market_sector(
    State(state): State<AppState>,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<LegacySectorDetail>, ApiError> {
    let page = legacy_page(&p)?;
    let q = sector_query(&p)?;
    let (found, rows, has_more) = sector_members(&state, &q, page.offset, page.size).await?;
    Ok(Json(LegacySectorDetail {
        id: q.sector_id,
        name: found.name,
        change_ratio: ratio_text(found.change_ratio),
        advanced: found.advanced,
        declined: found.declined,
        flat: found.flat,
        data: rows.iter().map(|r| item(r, q.period).into()).collect(),
        has_more,
    }))
}

fn sector(s: &SectorRow) -> Sector {
    Sector {
        id: sector_id(&s.name),
        name: s.name.clone(),
        change_ratio: ratio_text(s.change_ratio),
        volume: s.volume.to_string(),
        market_value: format!("{:.0}", s.market_value),
        advanced: s.advanced,
        declined: s.declined,
        flat: s.flat,
        data: s
            .leaders
            .iter()
            .map(|(id, symbol, name)| SectorMember {
                instrument_id: id.to_string(),
                symbol: symbol.clone(),
                name: name.clone(),
            })
            .collect(),
    }
}

/// The answer's view of a row; change and change ratio are over `period`.
fn item(row: &ScreenRow, period: Period) -> ScreenerItem {
    let s = &row.snapshot;
    let price = |micros: i64| from_micros(micros).to_string();
    let base = base_close(s, period).unwrap_or(s.pre_close);
    ScreenerItem {
        instrument_id: row.instrument_id.to_string(),
        symbol: row.symbol.clone(),
        name: row.name.clone(),
        category: "US_STOCK".to_owned(),
        exchange_code: row.exchange.clone(),
        currency_code: row.currency.clone(),
        date: format_day(s.day),
        pre_close: price(s.pre_close),
        open: price(s.open),
        high: price(s.high),
        low: price(s.low),
        close: price(s.close),
        price: price(s.price),
        change: price(s.price - base),
        change_ratio: ratio_text(ratio(s.price, base)),
        volume: s.volume.to_string(),
        turnover: format!("{:.2}", s.turnover),
        amplitude: ratio_text(s.amplitude),
        turnover_rate: s.turnover_rate.map(ratio_text),
        market_value: s.market_value.map(|v| format!("{v:.0}")),
        relative_volume_10d: s.relative_volume_10d.map(ratio_text),
        pe_ttm: s.pe_ttm.map(|v| format!("{v:.2}")),
        dividend: s.dividend.map(price),
        dividend_yield: s.dividend_yield.map(ratio_text),
        ex_date: s.ex_day.map(format_day),
        high_52w: price(s.high_52w),
        low_52w: price(s.low_52w),
        price_1w: s.close_5d.map(price),
        price_52w: s.close_52w.map(price),
        change_ratio_52w: s.close_52w.map(|c| ratio_text(ratio(s.price, c))),
    }
}

/// A ratio with six decimals, trailing zeros dropped ("0.0123", "-0.5").
fn ratio_text(x: f64) -> String {
    let text = format!("{x:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0".to_owned() } else { text.to_owned() }
}

/// Offset and page size from `pagination_key` and `page_size`.
fn page(p: &Params) -> Result<(u64, u64), ApiError> {
    let offset = pagination::decode(KEY, p.pagination_key.as_deref())?
        .unwrap_or(0)
        .max(0) as u64;
    let size = pagination::page_size(p.page_size.as_deref(), PAGE, MAX_PAGE)?;
    Ok((offset, u64::from(size)))
}

/// The kind of the screeners' pagination keys: an offset.
const KEY: char = 'o';

fn encode_key(offset: u64) -> String {
    pagination::encode(KEY, offset as i64)
}

fn next_key(offset: u64, limit: u64, total: u64) -> Option<String> {
    (offset + limit < total).then(|| encode_key(offset + limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_and_keys() {
        assert_eq!(ratio_text(0.0123), "0.0123");
        assert_eq!(ratio_text(-0.5), "-0.5");
        assert_eq!(ratio_text(-0.0000001), "0");
        assert_eq!(ratio_text(2.0), "2");
        assert_eq!(next_key(0, 20, 20), None);
        assert_eq!(next_key(0, 20, 21), Some(encode_key(20)));
    }
}
