//! The order calls' earlier paths (`/openapi/trade/stock/order/*`, `/openapi/trade/order/*`),
//! which the official client's `TradeClient.order_v2` still sends. The specification's change of
//! 2026-08-22 moved them to `/trading/orders/*`: mounted only under `--compat legacy`, each the
//! current call under its earlier path, the lists in their earlier protocol (`page_size` and
//! `last_client_order_id`; history by `start_date`/`end_date` days; a bare array).

// utoipa expands a `responses(T)` of an `IntoResponses` type with a path the lint finds longer
// than needed.
#![allow(unused_qualifications)]

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use signet_model::orders::{
    CancelOrderRequest, OrderAck, OrderRecord, PlaceOrderRequest, PreviewResponse, ReplaceOrderRequest,
};
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, QueryParams};
use crate::generations::compat::ApiVersion;
use crate::openapi::InstrumentNotFound;
use crate::state::AppState;
use crate::trading::orders::{self, AccountDenied, AccountParam, DuplicateId, ListParams, OrderNotFound};

pub fn legacy_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(preview))
        .routes(routes!(place))
        .routes(routes!(replace))
        .routes(routes!(cancel))
        .routes(routes!(detail))
        .routes(routes!(open_orders))
        .routes(routes!(history))
}

/// The earlier lists' pages, as `ListParams` reads them: for the OpenAPI document.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EarlierPageParams {
    /// Orders a page, 10 by default
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<u32>,
    /// The page after this order
    pub last_client_order_id: Option<String>,
    /// Not supported (refused when given alone): page with `last_client_order_id`
    pub last_order_id: Option<String>,
}

#[utoipa::path(
    post, path = "/openapi/trade/stock/order/preview", tag = "legacy",
    operation_id = "v2PreviewOrder", summary = "Preview order (earlier path)", request_body = PlaceOrderRequest,
    responses(
        (status = 200, description = "What the order would cost", body = PreviewResponse),
        AccountDenied, InstrumentNotFound, DuplicateId,
    )
)]
async fn preview(
    state: State<AppState>,
    caller: Caller,
    body: JsonBody<PlaceOrderRequest>,
) -> Result<Json<PreviewResponse>, ApiError> {
    orders::preview(state, caller, body).await
}

#[utoipa::path(
    post, path = "/openapi/trade/stock/order/place", tag = "legacy",
    operation_id = "v2PlaceOrder", summary = "Place order (earlier path)", request_body = PlaceOrderRequest,
    responses(
        (status = 200, description = "The order (or combination) is stored, SUBMITTED", body = OrderAck),
        AccountDenied, InstrumentNotFound, DuplicateId,
    )
)]
async fn place(
    state: State<AppState>,
    caller: Caller,
    body: JsonBody<PlaceOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    orders::place(state, caller, body).await
}

#[utoipa::path(
    post, path = "/openapi/trade/stock/order/replace", tag = "legacy",
    operation_id = "v2ReplaceOrder", summary = "Replace order (earlier path)", request_body = ReplaceOrderRequest,
    responses(
        (status = 200, description = "The order as replaced", body = OrderAck),
        AccountDenied, OrderNotFound,
    )
)]
async fn replace(
    state: State<AppState>,
    caller: Caller,
    body: JsonBody<ReplaceOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    orders::replace(state, caller, body).await
}

#[utoipa::path(
    post, path = "/openapi/trade/stock/order/cancel", tag = "legacy",
    operation_id = "v2CancelOrder", summary = "Cancel order (earlier path)", request_body = CancelOrderRequest,
    responses(
        (status = 200, description = "The order, CANCELLED", body = OrderAck),
        AccountDenied, OrderNotFound,
    )
)]
async fn cancel(
    state: State<AppState>,
    caller: Caller,
    body: JsonBody<CancelOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    orders::cancel(state, caller, body).await
}

#[utoipa::path(
    get, path = "/openapi/trade/order/detail", tag = "legacy",
    operation_id = "v2OrderDetail", summary = "Order detail (earlier path)",
    params(AccountParam, ("client_order_id" = String, Query, description = "The order's client order id")),
    responses(
        (status = 200, description = "The order", body = OrderRecord),
        AccountDenied, OrderNotFound,
    )
)]
async fn detail(
    state: State<AppState>,
    caller: Caller,
    query: QueryParams<ListParams>,
) -> Result<Json<OrderRecord>, ApiError> {
    orders::detail(state, caller, query).await
}

#[utoipa::path(
    get, path = "/openapi/trade/order/open", tag = "legacy",
    operation_id = "v2OpenOrders", summary = "Open orders (earlier path)",
    params(AccountParam, EarlierPageParams),
    responses(
        (status = 200, description = "The open orders, newest first", body = Vec<OrderRecord>),
        AccountDenied,
    )
)]
async fn open_orders(
    state: State<AppState>,
    caller: Caller,
    query: QueryParams<ListParams>,
) -> Result<Response, ApiError> {
    orders::open_orders(state, earlier(caller), query).await
}

#[utoipa::path(
    get, path = "/openapi/trade/order/history", tag = "legacy",
    operation_id = "v2OrderHistory", summary = "Order history (earlier path)",
    params(
        AccountParam,
        EarlierPageParams,
        ("start_date" = Option<String>, Query, format = Date, description = "The first UTC day, yyyy-MM-dd (with end_date; the last 7 days otherwise)"),
        ("end_date" = Option<String>, Query, format = Date, description = "The last UTC day, yyyy-MM-dd"),
    ),
    responses(
        (status = 200, description = "The orders placed in those days, newest first", body = Vec<OrderRecord>),
        AccountDenied,
    )
)]
async fn history(state: State<AppState>, caller: Caller, query: QueryParams<ListParams>) -> Result<Response, ApiError> {
    orders::history(state, earlier(caller), query).await
}

/// The caller, asking for the earlier pagination whatever `x-version` it sent.
pub(super) fn earlier(mut caller: Caller) -> Caller {
    caller.version = ApiVersion::V2;
    caller
}
