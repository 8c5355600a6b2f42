//! The earlier SDK generation's `account_v2` and `order_v2` calls (`webull-python-sdk-trade`
//! 0.1.x, x-version v1): `/openapi/account/{list,balance,positions,position/details}` and
//! `/openapi/account/orders/{preview,place,replace,cancel,detail,history}`, and its v1 position
//! detail `/account/position/details`. Mounted only under
//! `--compat legacy`, each the current call under its earlier path, in the current call's shape;
//! the history in the earlier protocol (a bare array after `last_client_order_id`), as the order
//! calls' next paths (`order_v2.rs`) answer it. That generation sends the account of an order call
//! in the query, not the body: the body takes it from there when it has none.

// utoipa expands a `responses(T)` of an `IntoResponses` type with a path the lint finds longer
// than needed.
#![allow(unused_qualifications)]

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use signet_model::Account;
use signet_model::assets::{AccountBalance, Position, PositionDetail};
use signet_model::orders::{
    CancelOrderRequest, OrderAck, OrderRecord, PlaceOrderRequest, PreviewResponse, ReplaceOrderRequest,
};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::order_v2::{EarlierPageParams, earlier};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, QueryParams, given};
use crate::openapi::InstrumentNotFound;
use crate::state::AppState;
use crate::trading::orders::{self, AccountDenied, AccountParam, DuplicateId, ListParams, OrderNotFound};
use crate::trading::{accounts, assets};

pub fn legacy_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(balance))
        .routes(routes!(positions))
        .routes(routes!(position_details))
        .routes(routes!(v1_position_details))
        .routes(routes!(preview))
        .routes(routes!(place))
        .routes(routes!(replace))
        .routes(routes!(cancel))
        .routes(routes!(detail))
        .routes(routes!(history))
}

#[derive(Debug, Deserialize)]
struct QueryAccount {
    account_id: Option<String>,
}

/// `body` with the query's `account_id` when it has none of its own, read as a `T`.
fn with_account<T: DeserializeOwned>(
    query: QueryAccount,
    mut body: serde_json::Value,
) -> Result<JsonBody<T>, ApiError> {
    if let (Some(fields), Some(account_id)) = (body.as_object_mut(), given(query.account_id.as_deref())) {
        fields
            .entry("account_id")
            .or_insert_with(|| serde_json::Value::from(account_id));
    }
    serde_json::from_value(body)
        .map(JsonBody)
        .map_err(|e| ApiError::illegal_parameter(format!("the request body does not fit the call: {e}")))
}

#[utoipa::path(
    get, path = "/openapi/account/list", tag = "legacy",
    operation_id = "earliestAccountList", summary = "Account list (earlier generation)",
    description = "`account_v2.get_account_list` of the 0.1.x SDK: the answer of `GET /trading/accounts/list`.",
    responses((status = 200, description = "The calling app's accounts", body = Vec<Account>))
)]
async fn list(state: State<AppState>, caller: Caller) -> Result<Json<Vec<Account>>, ApiError> {
    accounts::list(state, caller).await
}

#[utoipa::path(
    get, path = "/openapi/account/balance", tag = "legacy",
    operation_id = "earliestAccountBalance", summary = "Account balance (earlier generation)",
    description = "The answer of `GET /trading/assets/balances/get`.",
    params(AccountParam),
    responses((status = 200, description = "The account's balance", body = AccountBalance), AccountDenied)
)]
async fn balance(
    state: State<AppState>,
    caller: Caller,
    query: QueryParams<assets::Params>,
) -> Result<Json<AccountBalance>, ApiError> {
    assets::balance(state, caller, query).await
}

#[utoipa::path(
    get, path = "/openapi/account/positions", tag = "legacy",
    operation_id = "earliestAccountPositions", summary = "Account positions (earlier generation)",
    description = "The answer of `GET /trading/assets/positions/list`.",
    params(AccountParam),
    responses((status = 200, description = "The account's positions, by symbol", body = Vec<Position>), AccountDenied)
)]
async fn positions(
    state: State<AppState>,
    caller: Caller,
    query: QueryParams<assets::Params>,
) -> Result<Json<Vec<Position>>, ApiError> {
    assets::positions(state, caller, query).await
}

#[utoipa::path(
    get, path = "/openapi/account/position/details", tag = "legacy",
    operation_id = "earliestPositionDetails", summary = "Position detail (earlier generation)",
    description = "The answer of the retired `GET /openapi/assets/position/details`: a bare array (`size` and `last_instrument_id` are accepted; there is never a second page).",
    params(
        AccountParam,
        ("instrument_id" = String, Query, description = "An instrument id from the positions list", example = "3"),
    ),
    responses((status = 200, description = "The position's detail", body = Vec<PositionDetail>), AccountDenied)
)]
async fn position_details(
    state: State<AppState>,
    caller: Caller,
    query: QueryParams<assets::Params>,
) -> Result<Json<Vec<PositionDetail>>, ApiError> {
    assets::legacy_detail(state, caller, query).await
}

#[utoipa::path(
    get, path = "/account/position/details", tag = "legacy",
    operation_id = "earliestV1PositionDetails", summary = "Position detail (earlier generation, v1)",
    description = "`account.get_account_position_details` of the 0.1.x SDK: as `GET /openapi/account/position/details`.",
    params(
        AccountParam,
        ("instrument_id" = String, Query, description = "An instrument id from the positions list", example = "3"),
    ),
    responses((status = 200, description = "The position's detail", body = Vec<PositionDetail>), AccountDenied)
)]
async fn v1_position_details(
    state: State<AppState>,
    caller: Caller,
    query: QueryParams<assets::Params>,
) -> Result<Json<Vec<PositionDetail>>, ApiError> {
    assets::legacy_detail(state, caller, query).await
}

#[utoipa::path(
    post, path = "/openapi/account/orders/preview", tag = "legacy",
    operation_id = "earliestPreviewOrder", summary = "Preview order (earlier generation)",
    params(("account_id" = Option<String>, Query, description = "The account, when the body names none")),
    request_body = PlaceOrderRequest,
    responses((status = 200, description = "What the order would cost", body = PreviewResponse), AccountDenied, InstrumentNotFound, DuplicateId)
)]
async fn preview(
    state: State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<QueryAccount>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<Json<PreviewResponse>, ApiError> {
    orders::preview(state, caller, with_account(query, body)?).await
}

#[utoipa::path(
    post, path = "/openapi/account/orders/place", tag = "legacy",
    operation_id = "earliestPlaceOrder", summary = "Place order (earlier generation)",
    params(("account_id" = Option<String>, Query, description = "The account, when the body names none")),
    request_body = PlaceOrderRequest,
    responses((status = 200, description = "The order (or combination) is stored, SUBMITTED", body = OrderAck), AccountDenied, InstrumentNotFound, DuplicateId)
)]
async fn place(
    state: State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<QueryAccount>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<Json<OrderAck>, ApiError> {
    orders::place(state, caller, with_account::<PlaceOrderRequest>(query, body)?).await
}

#[utoipa::path(
    post, path = "/openapi/account/orders/replace", tag = "legacy",
    operation_id = "earliestReplaceOrder", summary = "Replace order (earlier generation)",
    params(("account_id" = Option<String>, Query, description = "The account, when the body names none")),
    request_body = ReplaceOrderRequest,
    responses((status = 200, description = "The order as replaced", body = OrderAck), AccountDenied, OrderNotFound)
)]
async fn replace(
    state: State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<QueryAccount>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<Json<OrderAck>, ApiError> {
    orders::replace(state, caller, with_account::<ReplaceOrderRequest>(query, body)?).await
}

#[utoipa::path(
    post, path = "/openapi/account/orders/cancel", tag = "legacy",
    operation_id = "earliestCancelOrder", summary = "Cancel order (earlier generation)",
    params(("account_id" = Option<String>, Query, description = "The account, when the body names none")),
    request_body = CancelOrderRequest,
    responses((status = 200, description = "The order, CANCELLED", body = OrderAck), AccountDenied, OrderNotFound)
)]
async fn cancel(
    state: State<AppState>,
    caller: Caller,
    QueryParams(query): QueryParams<QueryAccount>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<Json<OrderAck>, ApiError> {
    orders::cancel(state, caller, with_account::<CancelOrderRequest>(query, body)?).await
}

#[utoipa::path(
    get, path = "/openapi/account/orders/detail", tag = "legacy",
    operation_id = "earliestOrderDetail", summary = "Order detail (earlier generation)",
    params(AccountParam, ("client_order_id" = String, Query, description = "The order's client order id")),
    responses((status = 200, description = "The order", body = OrderRecord), AccountDenied, OrderNotFound)
)]
async fn detail(
    state: State<AppState>,
    caller: Caller,
    query: QueryParams<ListParams>,
) -> Result<Json<OrderRecord>, ApiError> {
    orders::detail(state, caller, query).await
}

#[utoipa::path(
    get, path = "/openapi/account/orders/history", tag = "legacy",
    operation_id = "earliestOrderHistory", summary = "Order history (earlier generation)",
    params(
        AccountParam,
        EarlierPageParams,
        ("start_date" = Option<String>, Query, format = Date, description = "The first UTC day, yyyy-MM-dd (with end_date; the last 7 days otherwise)"),
        ("end_date" = Option<String>, Query, format = Date, description = "The last UTC day, yyyy-MM-dd"),
    ),
    responses((status = 200, description = "The orders placed in those days, newest first", body = Vec<OrderRecord>), AccountDenied)
)]
async fn history(state: State<AppState>, caller: Caller, query: QueryParams<ListParams>) -> Result<Response, ApiError> {
    orders::history(state, earlier(caller), query).await
}
