//! Watchlists (catalog section 5): an app's named lists of instruments, each listed by `sort`,
//! highest first. Another app's watchlist is 404, as if it did not exist.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use signet_domain::simulator::clock::wall_clock_ms;
use signet_domain::times::format_ms;
use signet_model::watchlists::{
    CreateWatchlist, InstrumentRef, MAX_SORT, UpdateWatchlist, Watchlist, WatchlistDeleted, WatchlistId,
    WatchlistInstrument, WatchlistInstruments, WatchlistInstrumentsChange,
};
use signet_model::{ErrorBody, ErrorCode};
use signet_store::{NewWatchlistItem, WatchlistRecord};
use utoipa::IntoResponses;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::Caller;
use crate::extract::{JsonBody, QueryParams};
use crate::secrets::random_hex;
use crate::state::AppState;

/// WATCHLIST_NOT_FOUND: no watchlist of the calling app has this id
#[derive(IntoResponses)]
#[response(status = 404)]
pub struct WatchlistNotFound(pub ErrorBody);

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(create))
        .routes(routes!(update))
        .routes(routes!(delete))
        .routes(routes!(instruments))
        .routes(routes!(add))
        .routes(routes!(remove))
        .routes(routes!(sort))
}

/// The categories a watchlist takes: US equities and funds.
const CATEGORIES: [&str; 2] = ["US_STOCK", "US_ETF"];

fn wire(w: &WatchlistRecord) -> Watchlist {
    Watchlist {
        watchlist_id: w.watchlist_id.clone(),
        name: w.name.clone(),
        sort: w.sort,
        create_time: format_ms(w.create_time),
        update_time: format_ms(w.update_time),
    }
}

/// 1 to 64 characters of any script, without control characters.
fn name(value: Option<&str>) -> Result<String, ApiError> {
    let name = value.map(str::trim).unwrap_or("");
    if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
        return Err(ApiError::illegal_parameter(
            "name must be 1 to 64 characters, without control characters",
        ));
    }
    Ok(name.to_owned())
}

/// A given `sort` within ±[`MAX_SORT`], so that "at the top" (the highest plus one) always fits,
/// and every client reads it back as it was given.
fn checked_sort(value: Option<i64>) -> Result<Option<i64>, ApiError> {
    match value {
        Some(sort) if !(-MAX_SORT..=MAX_SORT).contains(&sort) => Err(ApiError::illegal_parameter(format!(
            "sort must be from -{MAX_SORT} to {MAX_SORT}"
        ))),
        _ => Ok(value),
    }
}

fn not_found() -> ApiError {
    ApiError::new(
        ErrorCode::WatchlistNotFound,
        "no watchlist of the calling app has this watchlist_id",
    )
}

/// The caller's watchlist with this id, or 404.
async fn owned(state: &AppState, caller: &Caller, watchlist_id: &str) -> Result<WatchlistRecord, ApiError> {
    state
        .store
        .watchlist(&caller.app_key, watchlist_id.trim())
        .await?
        .ok_or_else(not_found)
}

#[utoipa::path(
    get, path = "/market-data/watchlists/list", tag = "watchlists",
    operation_id = "listWatchlists", summary = "Get watchlists",
    responses(
        (status = 200, description = "The calling app's watchlists, highest `sort` first", body = Vec<Watchlist>),
    )
)]
async fn list(State(state): State<AppState>, caller: Caller) -> Result<Json<Vec<Watchlist>>, ApiError> {
    Ok(Json(
        state
            .store
            .watchlists(&caller.app_key)
            .await?
            .iter()
            .map(wire)
            .collect(),
    ))
}

#[utoipa::path(
    post, path = "/market-data/watchlists/create", tag = "watchlists",
    operation_id = "createWatchlist", summary = "Create watchlist",
    request_body = CreateWatchlist,
    responses((status = 200, description = "The new watchlist", body = Watchlist))
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<CreateWatchlist>,
) -> Result<Json<Watchlist>, ApiError> {
    let name = name(request.name.as_deref())?;
    let sort = checked_sort(request.sort)?;
    let limit = state.config.watchlists.watchlists_per_app;
    let id = random_hex::<8>()?;
    let created = state
        .store
        .create_watchlist(&caller.app_key, &id, &name, sort, limit, wall_clock_ms())
        .await?
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::LimitExceeded,
                format!("an app keeps at most {limit} watchlists"),
            )
        })?;
    Ok(Json(wire(&created)))
}

#[utoipa::path(
    post, path = "/market-data/watchlists/update", tag = "watchlists",
    operation_id = "updateWatchlist", summary = "Update watchlist",
    request_body = UpdateWatchlist,
    responses(
        (status = 200, description = "The watchlist as updated", body = Watchlist),
        WatchlistNotFound,
    )
)]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<UpdateWatchlist>,
) -> Result<Json<Watchlist>, ApiError> {
    let name = request.name.as_deref().map(|n| name(Some(n))).transpose()?;
    let sort = checked_sort(request.sort)?;
    let updated = state
        .store
        .update_watchlist(
            &caller.app_key,
            request.watchlist_id.trim(),
            name.as_deref(),
            sort,
            wall_clock_ms(),
        )
        .await?
        .ok_or_else(not_found)?;
    Ok(Json(wire(&updated)))
}

#[utoipa::path(
    post, path = "/market-data/watchlists/delete", tag = "watchlists",
    operation_id = "deleteWatchlist", summary = "Delete watchlist",
    request_body = WatchlistId,
    responses(
        (status = 200, description = "The watchlist is deleted", body = WatchlistDeleted),
        WatchlistNotFound,
    )
)]
async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<WatchlistId>,
) -> Result<Json<WatchlistDeleted>, ApiError> {
    if !state
        .store
        .delete_watchlist(&caller.app_key, request.watchlist_id.trim())
        .await?
    {
        return Err(not_found());
    }
    Ok(Json(WatchlistDeleted {
        watchlist_id: request.watchlist_id,
        deleted: true,
    }))
}

#[derive(Deserialize)]
struct WatchlistParam {
    watchlist_id: Option<String>,
}

#[utoipa::path(
    get, path = "/market-data/watchlists/instruments/list", tag = "watchlists",
    operation_id = "listWatchlistInstruments", summary = "Get watchlist instruments",
    params(("watchlist_id" = String, Query, description = "A watchlist of the calling app")),
    responses(
        (status = 200, description = "The watchlist's instruments, highest `sort` first", body = WatchlistInstruments),
        WatchlistNotFound,
    )
)]
async fn instruments(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<WatchlistParam>,
) -> Result<Json<WatchlistInstruments>, ApiError> {
    let id = p
        .watchlist_id
        .ok_or_else(|| ApiError::illegal_parameter("watchlist_id is required"))?;
    let watchlist = owned(&state, &caller, &id).await?;
    contents(&state, &watchlist).await
}

async fn contents(state: &AppState, watchlist: &WatchlistRecord) -> Result<Json<WatchlistInstruments>, ApiError> {
    let items = state.store.watchlist_items(&watchlist.watchlist_id).await?;
    Ok(Json(WatchlistInstruments {
        watchlist_id: watchlist.watchlist_id.clone(),
        instruments: items
            .into_iter()
            .map(|i| WatchlistInstrument {
                instrument_id: i.instrument_id.to_string(),
                symbol: i.symbol,
                name: i.name,
                exchange_code: i.exchange,
                category: i.category,
                sort: i.sort,
                added_time: format_ms(i.added_time),
            })
            .collect(),
    }))
}

/// The instruments of a change, each with its instrument id (`None` when no instrument has the
/// symbol) and category.
async fn resolve<'a>(
    state: &AppState,
    instruments: &'a [InstrumentRef],
) -> Result<Vec<(Option<i64>, String, &'a InstrumentRef)>, ApiError> {
    let limit = state.config.watchlists.instruments_per_watchlist as usize;
    if instruments.is_empty() || instruments.len() > limit {
        return Err(ApiError::illegal_parameter(format!(
            "instruments must hold 1 to {limit} instruments"
        )));
    }
    let mut resolved = Vec::with_capacity(instruments.len());
    for i in instruments {
        let category = i
            .category
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .unwrap_or("US_STOCK");
        if !CATEGORIES.contains(&category) {
            return Err(ApiError::illegal_parameter(format!(
                "category {category:?} is not supported: use {}",
                CATEGORIES.join(" or ")
            )));
        }
        let symbol = i.symbol.trim().to_ascii_uppercase();
        let id = state.store.instrument(&symbol).await?.map(|found| found.instrument_id);
        resolved.push((id, category.to_owned(), i));
    }
    Ok(resolved)
}

#[utoipa::path(
    post, path = "/market-data/watchlists/instruments/add", tag = "watchlists",
    operation_id = "addWatchlistInstruments", summary = "Add instruments",
    request_body = WatchlistInstrumentsChange,
    responses(
        (status = 200, description = "The watchlist's instruments after the change", body = WatchlistInstruments),
        WatchlistNotFound,
    )
)]
async fn add(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<WatchlistInstrumentsChange>,
) -> Result<Json<WatchlistInstruments>, ApiError> {
    let watchlist = owned(&state, &caller, &request.watchlist_id).await?;
    let mut items = Vec::new();
    for (id, category, i) in resolve(&state, &request.instruments).await? {
        let instrument_id = id.ok_or_else(|| {
            ApiError::new(
                ErrorCode::InstrumentNotFound,
                format!("no instrument has the symbol {:?}", i.symbol),
            )
            .with_status(400)
        })?;
        items.push(NewWatchlistItem {
            instrument_id,
            category,
            sort: checked_sort(i.sort)?,
        });
    }
    let limit = state.config.watchlists.instruments_per_watchlist;
    if !state
        .store
        .add_watchlist_items(&watchlist.watchlist_id, &items, limit, wall_clock_ms())
        .await?
    {
        return Err(ApiError::new(
            ErrorCode::LimitExceeded,
            format!("a watchlist holds at most {limit} instruments"),
        ));
    }
    contents(&state, &watchlist).await
}

#[utoipa::path(
    post, path = "/market-data/watchlists/instruments/remove", tag = "watchlists",
    operation_id = "removeWatchlistInstruments", summary = "Remove instruments",
    request_body = WatchlistInstrumentsChange,
    responses(
        (status = 200, description = "The watchlist's instruments after the change", body = WatchlistInstruments),
        WatchlistNotFound,
    )
)]
async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<WatchlistInstrumentsChange>,
) -> Result<Json<WatchlistInstruments>, ApiError> {
    let watchlist = owned(&state, &caller, &request.watchlist_id).await?;
    let ids: Vec<i64> = resolve(&state, &request.instruments)
        .await?
        .into_iter()
        .filter_map(|(id, _, _)| id)
        .collect();
    state
        .store
        .remove_watchlist_items(&watchlist.watchlist_id, &ids, wall_clock_ms())
        .await?;
    contents(&state, &watchlist).await
}

#[utoipa::path(
    post, path = "/market-data/watchlists/instruments/update", tag = "watchlists",
    operation_id = "sortWatchlistInstruments", summary = "Update instruments sort order",
    request_body = WatchlistInstrumentsChange,
    responses(
        (status = 200, description = "The watchlist's instruments after the change", body = WatchlistInstruments),
        WatchlistNotFound,
    )
)]
async fn sort(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<WatchlistInstrumentsChange>,
) -> Result<Json<WatchlistInstruments>, ApiError> {
    let watchlist = owned(&state, &caller, &request.watchlist_id).await?;
    let mut sorts = Vec::new();
    for (id, _, i) in resolve(&state, &request.instruments).await? {
        let sort =
            checked_sort(i.sort)?.ok_or_else(|| ApiError::illegal_parameter("every instrument needs its new sort"))?;
        sorts.extend(id.map(|id| (id, sort)));
    }
    state
        .store
        .sort_watchlist_items(&watchlist.watchlist_id, &sorts, wall_clock_ms())
        .await?;
    contents(&state, &watchlist).await
}
