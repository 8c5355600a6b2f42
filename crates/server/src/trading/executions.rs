//! Order executions (catalog 10.4): one row per fill, newest first. x-version v3 pages with a
//! `pagination_key`; v2 (under `--compat legacy`) answers a bare array and pages with the last
//! `execution_id` seen.

// utoipa expands a `responses(T)` of an `IntoResponses` type with a path the lint finds longer
// than needed.
#![allow(unused_qualifications)]

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use signet_core::orders::OrderPageQuery;
use signet_domain::marketdata::units::parse_day;
use signet_domain::times::format_ms;
use signet_model::assets::{Execution, ExecutionPage};
use signet_model::ids::ClientOrderId;
use signet_store::ExecutionRecord;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::orders::{AccountDenied, AccountParam};
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams};
use crate::generations::compat::ApiVersion;
use crate::pagination;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

const PAGE: u32 = 10;
const MAX_PAGE: u32 = 100;
/// The kind of this listing's pagination keys: a fill's id.
const KEY: char = 'x';
const DAY_MS: i64 = 24 * 3600 * 1000;

#[derive(Debug, Deserialize)]
struct Params {
    account_id: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
    client_order_id: Option<String>,
    pagination_key: Option<String>,
    page_size: Option<String>,
    /// x-version v2: the page after this execution.
    last_execution_id: Option<String>,
}

/// The answer: a page with x-version v3; a bare array with x-version v2 (`--compat legacy`).
#[derive(serde::Serialize, ToSchema)]
#[serde(untagged)]
pub enum ExecutionListAnswer {
    Page(ExecutionPage),
    Legacy(Vec<Execution>),
}

/// Fills of the account's orders, newest first, of the UTC days `start_date` to `end_date` (each
/// optional) and of one order when `client_order_id` is given.
#[utoipa::path(
    get, path = "/trading/orders/executions/list", tag = "trading",
    operation_id = "orderExecutions", summary = "Order executions",
    params(
        AccountParam,
        ("start_date" = Option<String>, Query, format = Date, description = "The first UTC day of the fills, yyyy-MM-dd"),
        ("end_date" = Option<String>, Query, format = Date, description = "The last UTC day of the fills, yyyy-MM-dd"),
        ("client_order_id" = Option<String>, Query, description = "Only this order's fills"),
        ("pagination_key" = Option<String>, Query, description = "The previous page's `pagination_key`"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Executions a page, 10 by default"),
        ("last_execution_id" = Option<String>, Query, deprecated, description = "x-version v2 only (`--compat legacy`): the page after this execution"),
    ),
    responses(
        (status = 200, description = "A page of executions, newest first (with x-version v2 under `--compat legacy`: a bare array)", body = ExecutionListAnswer),
        AccountDenied,
    )
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<ExecutionListAnswer>, ApiError> {
    let account = super::account_of(&state, &caller, p.account_id.as_deref()).await?;
    let day = |name: &str, value: Option<&str>| -> Result<Option<i64>, ApiError> {
        match value.map(str::trim).filter(|v| !v.is_empty()) {
            None => Ok(None),
            Some(v) => parse_day(v).map(|day| Some(i64::from(day) * DAY_MS)).ok_or_else(|| {
                ApiError::illegal_parameter(format!("{name} must be a day yyyy-MM-dd, e.g. 2026-10-01"))
            }),
        }
    };
    let from_ms = day("start_date", p.start_date.as_deref())?;
    let to_ms = day("end_date", p.end_date.as_deref())?.map(|end| end + DAY_MS - 1);
    if let (Some(from), Some(to)) = (from_ms, to_ms)
        && from > to
    {
        return Err(ApiError::illegal_parameter("start_date is after end_date"));
    }
    let before_fill_id = match caller.version {
        ApiVersion::V3 => pagination::decode(KEY, p.pagination_key.as_deref())?,
        ApiVersion::V2 => match p.last_execution_id.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            None => None,
            Some(v) => Some(v.parse::<i64>().map_err(|_| {
                ApiError::illegal_parameter("last_execution_id is not an execution_id this server issued")
            })?),
        },
    };
    let limit = pagination::page_size(p.page_size.as_deref(), PAGE, MAX_PAGE)?;
    let client_order_id = p
        .client_order_id
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(ClientOrderId::from);
    let (rows, more) = state
        .orders()
        .executions(
            &account,
            client_order_id,
            OrderPageQuery {
                open_only: false,
                from_ms,
                to_ms,
                before_seq: before_fill_id,
                limit,
            },
        )
        .await?;
    let data: Vec<Execution> = rows.iter().map(execution).collect();
    Ok(Json(match caller.version {
        ApiVersion::V2 => ExecutionListAnswer::Legacy(data),
        ApiVersion::V3 => {
            let pagination_key = rows.last().filter(|_| more).map(|r| pagination::encode(KEY, r.fill_id));
            ExecutionListAnswer::Page(ExecutionPage { data, pagination_key })
        }
    }))
}

fn execution(r: &ExecutionRecord) -> Execution {
    let o = &r.order;
    let leaves = (o.quantity - r.filled_after).max(rust_decimal::Decimal::ZERO);
    Execution {
        execution_id: r.fill_id.to_string(),
        order_id: o.order_id.to_string(),
        client_order_id: o.client_order_id.to_string(),
        symbol: r.symbol.clone(),
        execution_time: format_ms(r.time_ms),
        status: o.status,
        execution_type: if leaves.is_zero() { "FILL" } else { "PARTIAL_FILL" }.into(),
        side: r.side,
        order_type: o.order_type,
        total_quantity: o.quantity.normalize().to_string(),
        limit_price: o.limit_price.map(|p| p.to_string()),
        filled_quantity: r.quantity.normalize().to_string(),
        filled_price: r.price.to_string(),
        total_filled_qty: r.filled_after.normalize().to_string(),
        leaves_qty: leaves.normalize().to_string(),
        commission: r.commission.to_string(),
    }
}
