//! The option order calls of the official client's `TradeClient.order_v2` (`preview_option`,
//! `place_option`, `replace_option`, `cancel_option`): the order calls under the paths it sends
//! option orders to, with the same body (`new_orders` whose one order carries its contract in
//! `legs`).

// utoipa expands a `responses(T)` of an `IntoResponses` type with a path the lint finds longer
// than needed.
#![allow(unused_qualifications)]

use axum::Json;
use axum::extract::State;
use signet_model::orders::{CancelOrderRequest, OrderAck, PlaceOrderRequest, PreviewResponse, ReplaceOrderRequest};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::orders::{self, AccountDenied, DuplicateId, OrderNotFound};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody};
use crate::openapi::InstrumentNotFound;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(preview))
        .routes(routes!(place))
        .routes(routes!(replace))
        .routes(routes!(cancel))
}

#[utoipa::path(
    post, path = "/openapi/trade/option/order/preview", tag = "options",
    operation_id = "previewOptionOrder", summary = "Preview option order", request_body = PlaceOrderRequest,
    responses(
        (status = 200, description = "What the order would cost (premium × 100 a contract)", body = PreviewResponse),
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
    post, path = "/openapi/trade/option/order/place", tag = "options",
    operation_id = "placeOptionOrder", summary = "Place option order", request_body = PlaceOrderRequest,
    responses(
        (status = 200, description = "The order is stored, SUBMITTED", body = OrderAck),
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
    post, path = "/openapi/trade/option/order/replace", tag = "options",
    operation_id = "replaceOptionOrder", summary = "Replace option order", request_body = ReplaceOrderRequest,
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
    post, path = "/openapi/trade/option/order/cancel", tag = "options",
    operation_id = "cancelOptionOrder", summary = "Cancel option order", request_body = CancelOrderRequest,
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
