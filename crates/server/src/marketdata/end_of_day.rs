//! End-of-day data (the official client's `market_data.get_eod_bar` and `get_corp_action`):
//! the stored daily bars, the simulated days once over included, and the splits and dividends
//! derived at import, for the instruments the simulator quotes.

use axum::Json;
use axum::extract::State;
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::marketdata::units::{format_day, parse_day};
use signet_domain::marketdata::{ActionKind, Bar};
use signet_domain::simulator::clock::NewYork;
use signet_model::quotes::{CorpAction, EodBar, EodBars};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::{Caller, QueryParams, given};
use crate::pagination;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(eod_bars))
        .routes(routes!(corp_actions))
}

#[derive(Debug, Deserialize)]
struct Params {
    instrument_ids: Option<String>,
    date: Option<String>,
    count: Option<String>,
    event_types: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
    page_number: Option<String>,
    page_size: Option<String>,
    // `last_update_time` is accepted and not read: everything signet holds was written at
    // import or when a simulated day ended.
}

const MAX_EOD_IDS: usize = 200;
const MAX_ACTION_IDS: usize = 100;
const MAX_COUNT: u32 = 800;

/// The instruments of `instrument_ids` (comma-separated, at most `max`) that the simulator
/// quotes, with their symbols; unknown ids are left out, as the instrument lookup leaves out
/// unknown symbols.
fn instruments(state: &AppState, ids: Option<&str>, max: usize) -> Result<Vec<(i64, String)>, ApiError> {
    let ids: Vec<&str> = given(ids)
        .ok_or_else(|| ApiError::illegal_parameter("instrument_ids is required, comma-separated"))?
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .collect();
    if ids.len() > max {
        return Err(ApiError::illegal_parameter(format!(
            "at most {max} instrument_ids a call"
        )));
    }
    ids.into_iter()
        .map(|id| {
            id.parse::<i64>()
                .map_err(|_| ApiError::illegal_parameter(format!("instrument_id {id:?} is not a number")))
        })
        .filter_map(|id| match id {
            Ok(id) => state.simulator.symbol_of(id).map(|symbol| Ok((id, symbol))),
            Err(e) => Some(Err(e)),
        })
        .collect()
}

fn day(name: &str, value: Option<&str>) -> Result<Option<i32>, ApiError> {
    given(value)
        .map(|v| parse_day(v).ok_or_else(|| ApiError::illegal_parameter(format!("{name} is a day yyyy-MM-dd"))))
        .transpose()
}

fn price(micros: i64) -> String {
    Decimal::new(micros, 6).round_dp(4).normalize().to_string()
}

fn eod_bar(bar: &Bar) -> EodBar {
    EodBar {
        time: format_day(bar.day),
        open: price(bar.open),
        high: price(bar.high),
        low: price(bar.low),
        close: price(bar.close),
        volume: bar.volume.to_string(),
    }
}

/// The last `count` daily bars (1 by default, up to 800) of each instrument up to `date` (the
/// last finished day by default), oldest first.
#[utoipa::path(
    get, path = "/market-data/eod-bars", tag = "market data",
    operation_id = "eodBars", summary = "End-of-day bars",
    params(
        ("instrument_ids" = String, Query, description = "Up to 200 instrument ids, comma-separated"),
        ("date" = Option<String>, Query, format = Date, description = "The last day, yyyy-MM-dd; the last finished day by default"),
        ("count" = Option<u32>, Query, minimum = 1, maximum = 800, description = "Bars an instrument, 1 by default"),
    ),
    responses((status = 200, description = "Each known instrument's bars", body = Vec<EodBars>))
)]
async fn eod_bars(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<EodBars>>, ApiError> {
    let count = pagination::page_size(p.count.as_deref(), 1, MAX_COUNT)? as usize;
    let last_finished = NewYork::of(state.simulator.now_ms()).day - 1;
    let to = day("date", p.date.as_deref())?
        .unwrap_or(last_finished)
        .min(last_finished);
    // `count` trading days lie within count × 7/5 calendar days, and a few holidays more.
    let from = to - i32::try_from(count * 7 / 5 + 10).unwrap_or(i32::MAX / 2);
    let mut answer = Vec::new();
    for (id, symbol) in instruments(&state, p.instrument_ids.as_deref(), MAX_EOD_IDS)? {
        let bars = state.store.daily_bars(id, from, to).await?;
        let first = bars.len().saturating_sub(count);
        answer.push(EodBars {
            instrument_id: id.to_string(),
            symbol,
            bars: bars[first..].iter().map(eod_bar).collect(),
        });
    }
    Ok(Json(answer))
}

/// What `event_types` asks for (comma-separated): `SPLIT`, `REVERSE_SPLIT`, `DIVIDEND`.
fn event_types(value: Option<&str>) -> Result<Vec<&'static str>, ApiError> {
    let Some(value) = given(value) else {
        return Ok(vec!["SPLIT", "REVERSE_SPLIT", "DIVIDEND"]);
    };
    value
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            ["SPLIT", "REVERSE_SPLIT", "DIVIDEND"]
                .into_iter()
                .find(|known| known.eq_ignore_ascii_case(t))
                .ok_or_else(|| {
                    ApiError::illegal_parameter(format!(
                        "event type {t:?} is not offered: SPLIT, REVERSE_SPLIT or DIVIDEND"
                    ))
                })
        })
        .collect()
}

/// The splits and dividends of the instruments between `start_date` and `end_date` (ex-dates),
/// by instrument then date; pages of `page_size` (20, up to 200) numbered from 1.
#[utoipa::path(
    get, path = "/instrument/corp-action", tag = "market data",
    operation_id = "corpActions", summary = "Corporate actions",
    params(
        ("instrument_ids" = String, Query, description = "Up to 100 instrument ids, comma-separated"),
        ("event_types" = Option<String>, Query, description = "SPLIT, REVERSE_SPLIT and/or DIVIDEND, comma-separated; all by default"),
        ("start_date" = Option<String>, Query, format = Date, description = "The first ex-date, yyyy-MM-dd"),
        ("end_date" = Option<String>, Query, format = Date, description = "The last ex-date, yyyy-MM-dd"),
        ("page_number" = Option<u32>, Query, minimum = 1, description = "The page, from 1"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Events a page, 20 by default"),
        ("last_update_time" = Option<String>, Query, description = "Accepted; signet's events do not change after import"),
    ),
    responses((status = 200, description = "A page of events", body = Vec<CorpAction>))
)]
async fn corp_actions(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<CorpAction>>, ApiError> {
    let wanted = event_types(p.event_types.as_deref())?;
    let (start, end) = (
        day("start_date", p.start_date.as_deref())?,
        day("end_date", p.end_date.as_deref())?,
    );
    let size = pagination::page_size(p.page_size.as_deref(), 20, 200)? as usize;
    let page = match given(p.page_number.as_deref()) {
        None => 1,
        Some(n) => n
            .parse::<usize>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| ApiError::illegal_parameter("page_number is a whole number from 1"))?,
    };
    let mut events = Vec::new();
    for (id, symbol) in instruments(&state, p.instrument_ids.as_deref(), MAX_ACTION_IDS)? {
        for action in state.store.corporate_actions(id).await? {
            if start.is_some_and(|s| action.day < s) || end.is_some_and(|e| action.day > e) {
                continue;
            }
            let event_type = match action.kind {
                ActionKind::Split if action.value < Decimal::ONE => "REVERSE_SPLIT",
                ActionKind::Split => "SPLIT",
                ActionKind::Dividend => "DIVIDEND",
            };
            if !wanted.contains(&event_type) {
                continue;
            }
            let value = action.value.normalize().to_string();
            let split = action.kind == ActionKind::Split;
            events.push(CorpAction {
                instrument_id: id.to_string(),
                symbol: symbol.clone(),
                event_type: event_type.into(),
                ex_date: format_day(action.day),
                ratio: split.then(|| value.clone()),
                amount: (!split).then_some(value),
                source: action.source.as_str().into(),
            });
        }
    }
    Ok(Json(
        events
            .into_iter()
            .skip((page - 1).saturating_mul(size))
            .take(size)
            .collect(),
    ))
}
