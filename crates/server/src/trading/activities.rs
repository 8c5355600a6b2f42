//! An account's activities (`TradeClient.activity`): its cash movements
//! ([`signet_domain::trading::ledger`]: the opening deposit, each fill's trade amount and fee),
//! and its transfers between the broker and other institutions. signet's accounts are funded when
//! they are made and move nothing in or out: the transfer list is empty and no transfer id is
//! known, after the account's ownership is checked as every account call checks it.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use signet_domain::marketdata::units::parse_day;
use signet_domain::simulator::clock::wall_clock_ms;
use signet_domain::times::{format_ms, parse_ms};
use signet_domain::trading::ledger::Activity;
use signet_model::ErrorCode;
use signet_model::assets::{CashActivity, CashActivityPage, Transfer, TransferPage};
use signet_model::ids::ClientOrderId;
use signet_store::AccountRecord;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::orders::{AccountDenied, AccountParam};
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams, given};
use crate::generations::compat::ApiVersion;
use crate::pagination;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(cash_activities))
        .routes(routes!(list))
        .routes(routes!(get))
}

/// The cash activities' answer: a page with x-version v3; a bare array with x-version v2 (only
/// under `--compat legacy`).
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum CashActivityAnswer {
    Page(CashActivityPage),
    Legacy(Vec<CashActivity>),
}

/// The cash activities' earlier path, mounted only under `--compat legacy`.
pub fn legacy_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(legacy_cash_activities))
}

#[derive(Debug, Deserialize)]
struct Params {
    account_id: Option<String>,
    transfer_id: Option<String>,
    activity_types: Option<String>,
    start_time: Option<String>,
    end_time: Option<String>,
    pagination_key: Option<String>,
    /// The earlier protocol (x-version v2): the page after this activity, `page_size` a page.
    last_activity_id: Option<String>,
    page_size: Option<String>,
}

async fn account(state: &AppState, caller: &Caller, p: &Params) -> Result<AccountRecord, ApiError> {
    super::account_of(state, caller, p.account_id.as_deref()).await
}

async fn check_account(state: &AppState, caller: &Caller, p: &Params) -> Result<(), ApiError> {
    account(state, caller, p).await.map(|_| ())
}

/// The activity types the interface names, of which signet's accounts have the first three, and
/// signet's own for what the interface's list has no type for (splits, dividends, and option
/// contracts settled at their expiry).
const TYPES: [&str; 14] = [
    "DEPOSIT",
    "TRADE",
    "FEES",
    "DIVIDEND",
    "SPLIT",
    "OPTION_EXERCISE",
    "OPTION_ASSIGNMENT",
    "OPTION_CASH_SETTLEMENT",
    "OPTION_EXPIRE",
    "WITHDRAW",
    "JOURNAL",
    "TRANSFER",
    "INTERESTS",
    "EC_STATEMENT",
];
/// The default window, as the reference documents it.
const DEFAULT_DAYS: i64 = 7;
const DAY_MS: i64 = 24 * 3600 * 1000;
const PAGE: u32 = 10;
const MAX_PAGE: u32 = 100;
/// The kind of the cash activities' pagination keys: a position in the ledger.
const KEY: char = 'c';
/// The account's ledger, newest first, of the types and window asked for.
async fn activities(state: &AppState, account: &AccountRecord, p: &Params) -> Result<Vec<Activity>, ApiError> {
    let types: Vec<&str> = match given(p.activity_types.as_deref()) {
        None => TYPES.to_vec(),
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| {
                TYPES
                    .into_iter()
                    .find(|known| known.eq_ignore_ascii_case(t))
                    .ok_or_else(|| {
                        ApiError::illegal_parameter(format!("activity type {t:?} is not one of {}", TYPES.join(", ")))
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    let time = |name: &str, value: Option<&str>, end_of_day: bool| -> Result<Option<i64>, ApiError> {
        let Some(v) = given(value) else { return Ok(None) };
        parse_ms(v)
            .or_else(|| parse_day(v).map(|day| i64::from(day) * DAY_MS + if end_of_day { DAY_MS - 1 } else { 0 }))
            .map(Some)
            .ok_or_else(|| {
                ApiError::illegal_parameter(format!(
                    "{name} is a UTC time yyyy-MM-ddTHH:mm:ss.SSSZ or a day yyyy-MM-dd"
                ))
            })
    };
    let (start, end) = (
        time("start_time", p.start_time.as_deref(), false)?,
        time("end_time", p.end_time.as_deref(), true)?,
    );
    let end = end.unwrap_or_else(wall_clock_ms);
    let start = start.unwrap_or(end - DEFAULT_DAYS * DAY_MS);
    if start > end {
        return Err(ApiError::illegal_parameter("start_time is after end_time"));
    }
    let changes = state.accounts().cash_changes(&account.account_id).await?;
    let mut ledger: Vec<Activity> = changes
        .ledger()
        .into_iter()
        .filter(|a| types.contains(&a.kind.as_str()) && (start..=end).contains(&a.time_ms))
        .collect();
    ledger.reverse();
    Ok(ledger)
}

fn to_wire(account: &AccountRecord, a: Activity) -> CashActivity {
    let (symbol, client_order_id) = a.fill.unzip();
    let client_order_id = client_order_id.flatten();
    CashActivity {
        activity_id: a.id,
        account_id: account.account_id.to_string(),
        activity_type: a.kind.as_str().into(),
        amount: a.amount.normalize().to_string(),
        currency: account.currency.clone(),
        time: format_ms(a.time_ms),
        symbol,
        client_order_id: client_order_id.map(ClientOrderId::into_string),
        description: a.description,
    }
}

/// The account's cash movements, newest first: its opening deposit, then each fill's trade
/// amount (paid by a buy, received by a sale or short sale) and its commission, and each dividend
/// and split applied to a position held across its ex-date, which add up to its cash.
/// `activity_types` filters (DEPOSIT, TRADE, FEES, and signet's DIVIDEND and SPLIT, for which the
/// interface's list has no type; its other types have none in signet); `start_time`/`end_time` (UTC, or days) the last 7 days by default; pages of
/// 10 with `pagination_key`. With x-version v2 under `--compat legacy`, the earlier protocol.
#[utoipa::path(
    get, path = "/trading/activities/cash-activities/list", tag = "trading",
    operation_id = "cashActivities", summary = "Cash activities",
    params(
        AccountParam,
        ("activity_types" = Option<String>, Query, description = "DEPOSIT, TRADE, FEES, DIVIDEND, SPLIT, WITHDRAW, JOURNAL, TRANSFER, INTERESTS or EC_STATEMENT, comma-separated; all by default"),
        ("start_time" = Option<String>, Query, description = "UTC, yyyy-MM-ddTHH:mm:ss.SSSZ or yyyy-MM-dd; 7 days before end_time by default"),
        ("end_time" = Option<String>, Query, description = "UTC, yyyy-MM-ddTHH:mm:ss.SSSZ or yyyy-MM-dd; now by default"),
        ("pagination_key" = Option<String>, Query, description = "The previous page's `pagination_key`"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Activities a page, 10 by default"),
    ),
    responses((status = 200, description = "A page of the account's cash activities, newest first (with x-version v2 under `--compat legacy`: a bare array)", body = CashActivityAnswer), AccountDenied)
)]
async fn cash_activities(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<CashActivityAnswer>, ApiError> {
    if caller.version == ApiVersion::V2 {
        return Ok(Json(CashActivityAnswer::Legacy(
            legacy_page(&state, &caller, &p).await?,
        )));
    }
    let size = pagination::page_size(p.page_size.as_deref(), PAGE, MAX_PAGE)? as usize;
    let from = pagination::decode(KEY, p.pagination_key.as_deref())?.unwrap_or(0);
    let from = usize::try_from(from).unwrap_or(usize::MAX);
    let account = account(&state, &caller, &p).await?;
    let all = activities(&state, &account, &p).await?;
    let more = all.len() > from.saturating_add(size);
    let data: Vec<CashActivity> = all
        .into_iter()
        .skip(from)
        .take(size)
        .map(|a| to_wire(&account, a))
        .collect();
    let pagination_key = more.then(|| pagination::encode(KEY, i64::try_from(from + size).unwrap_or(i64::MAX)));
    Ok(Json(CashActivityAnswer::Page(CashActivityPage {
        data,
        pagination_key,
    })))
}

/// The earlier protocol: a bare array, `page_size` (10) after `last_activity_id`.
async fn legacy_page(state: &AppState, caller: &Caller, p: &Params) -> Result<Vec<CashActivity>, ApiError> {
    let size = pagination::page_size(p.page_size.as_deref(), PAGE, MAX_PAGE)? as usize;
    let account = account(state, caller, p).await?;
    let all = activities(state, &account, p).await?;
    let from = match given(p.last_activity_id.as_deref()) {
        None => 0,
        Some(last) => all.iter().position(|a| a.id == last).map(|i| i + 1).ok_or_else(|| {
            ApiError::illegal_parameter("last_activity_id is not an activity of this account in the window asked for")
        })?,
    };
    Ok(all
        .into_iter()
        .skip(from)
        .take(size)
        .map(|a| to_wire(&account, a))
        .collect())
}

/// The cash activities' earlier path (`TradeClient.activity.get_activities`, x-version v2): the
/// earlier protocol whatever `x-version` says.
#[utoipa::path(
    get, path = "/openapi/trade/activities/cash", tag = "legacy",
    operation_id = "legacyCashActivities", summary = "Cash activities (earlier path)",
    params(
        AccountParam,
        ("activity_types" = Option<String>, Query, description = "As the current call"),
        ("start_time" = Option<String>, Query, description = "As the current call"),
        ("end_time" = Option<String>, Query, description = "As the current call"),
        ("last_activity_id" = Option<String>, Query, description = "The page after this activity"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Activities a page, 10 by default"),
    ),
    responses((status = 200, description = "The account's cash activities, newest first", body = Vec<CashActivity>), AccountDenied)
)]
async fn legacy_cash_activities(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<CashActivity>>, ApiError> {
    Ok(Json(legacy_page(&state, &caller, &p).await?))
}

/// The account's transfers, newest first: none in signet. The filters the client sends
/// (`transfer_method`, `direction`, `status`, `acats_transfer_types`, times, `pagination_key`)
/// are accepted.
#[utoipa::path(
    get, path = "/trading/activities/transfer-activities/list", tag = "trading",
    operation_id = "transferActivities", summary = "Transfer activities",
    params(AccountParam),
    responses((status = 200, description = "The account's transfers (none)", body = TransferPage), AccountDenied)
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<TransferPage>, ApiError> {
    check_account(&state, &caller, &p).await?;
    Ok(Json(TransferPage {
        data: Vec::new(),
        pagination_key: None,
    }))
}

/// TRANSFER_NOT_FOUND: no transfer of the account has this id
#[derive(utoipa::IntoResponses)]
#[response(status = 404)]
pub struct TransferNotFound(pub signet_model::ErrorBody);

/// One transfer of the account: signet has none, so every id is 404 `TRANSFER_NOT_FOUND`.
#[utoipa::path(
    get, path = "/trading/activities/transfer-activities/get", tag = "trading",
    operation_id = "transferActivity", summary = "Transfer activity",
    params(AccountParam, ("transfer_id" = String, Query, description = "The transfer's id")),
    responses((status = 200, description = "The transfer", body = Transfer), AccountDenied, TransferNotFound)
)]
async fn get(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Transfer>, ApiError> {
    check_account(&state, &caller, &p).await?;
    let id = given(p.transfer_id.as_deref()).ok_or_else(|| ApiError::illegal_parameter("transfer_id is required"))?;
    Err(ApiError::new(
        ErrorCode::TransferNotFound,
        format!("no transfer of this account has the transfer_id {id:?}: signet moves no money between institutions"),
    ))
}
