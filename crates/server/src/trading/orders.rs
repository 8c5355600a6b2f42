//! The order operations (catalog 3.2–3.13): place, preview, batch-place, replace, cancel, detail,
//! open orders and history. Fills happen later, on the engine's ticks.

// utoipa expands a `params(T)` or `responses(T)` of an `IntoParams` or `IntoResponses` type with
// a path the lint finds longer than needed; the attributes name each type once, plainly.
#![allow(unused_qualifications)]

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_core::orders::{OrderPageQuery, Preview};
use signet_domain::marketdata::units::{format_day, parse_day};
use signet_domain::options::{Contract, MULTIPLIER, is_contract};
use signet_domain::simulator::clock::{NewYork, wall_clock_ms};
use signet_domain::times::{format_ms, parse_ms};
use signet_domain::trading::order::Order;
use signet_domain::trading::replace;
use signet_model::ErrorBody;
use signet_model::ids::{AccountId, ClientOrderId};
use signet_model::orders::{
    BatchPlaceRequest, BatchPlaceResponse, CancelOrderRequest, OrderAck, OrderDetail, OrderLeg, OrderPage, OrderRecord,
    PlaceOrderRequest, PreviewResponse, ReplaceOrderRequest, TimeInForce,
};
use signet_store::AccountRecord;
use utoipa::{IntoParams, IntoResponses};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, QueryParams, given};
use crate::generations::compat::ApiVersion;
use crate::openapi::InstrumentNotFound;
use crate::pagination;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(place))
        .routes(routes!(preview))
        .routes(routes!(batch_place))
        .routes(routes!(replace))
        .routes(routes!(cancel))
        .routes(routes!(detail))
        .routes(routes!(open_orders))
        .routes(routes!(history))
}

/// ACCOUNT_NOT_FOUND_OR_DENIED: the account is not one of the calling app's
#[derive(IntoResponses)]
#[response(status = 403)]
pub struct AccountDenied(pub ErrorBody);

/// ORDER_NOT_FOUND: no order of the account has this client_order_id
#[derive(IntoResponses)]
#[response(status = 404)]
pub struct OrderNotFound(pub ErrorBody);

/// DUPLICATE_CLIENT_ORDER_ID or DUPLICATE_CLIENT_COMBO_ORDER_ID: used before in this account
#[derive(IntoResponses)]
#[response(status = 409)]
pub struct DuplicateId(pub ErrorBody);

/// The account of a listing, as `ListParams` reads it: for the OpenAPI document.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AccountParam {
    /// An account of the calling app
    pub account_id: String,
}

/// A page of a listing, as `ListParams` reads it: for the OpenAPI document.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListPageParams {
    /// Orders a page, 10 by default
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<u32>,
    /// The previous page's `pagination_key`
    pub pagination_key: Option<String>,
    /// x-version v2 only (`--compat legacy`): the page after this order
    #[deprecated]
    pub last_client_order_id: Option<String>,
}

const PAGE: u32 = 10;
const MAX_PAGE: u32 = 100;
/// The kind of the order listings' pagination keys: an order's sequence number.
const KEY: char = 's';
const HISTORY_DEFAULT_MS: i64 = 7 * 24 * 3600 * 1000;

fn ack(o: &Order) -> OrderAck {
    OrderAck {
        client_order_id: o.client_order_id.to_string(),
        order_id: o.order_id.to_string(),
        client_combo_order_id: o.client_combo_order_id.clone(),
        combo_order_id: o.combo.as_ref().map(|c| c.combo_order_id.to_string()),
        status: o.status,
        orders: Vec::new(),
    }
}

#[utoipa::path(
    post, path = "/trading/orders/place", tag = "trading",
    operation_id = "placeOrder", summary = "Place order", request_body = PlaceOrderRequest,
    responses(
        (status = 200, description = "The order (or combination) is stored, SUBMITTED", body = OrderAck),
        AccountDenied, InstrumentNotFound, DuplicateId,
    )
)]
pub(crate) async fn place(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<PlaceOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    let account = state
        .accounts()
        .owned_by(&caller.app_key, &AccountId::from(&request.account_id))
        .await?;
    let orders = state.orders();
    let placement = orders
        .placement(&request.new_orders, request.client_combo_order_id.as_deref())
        .await?;
    let orders = orders.place(&account, placement).await?;
    let mut answer = ack(&orders[0]);
    if orders.len() > 1 {
        answer.orders = orders.iter().map(ack).collect();
    }
    Ok(Json(answer))
}

#[utoipa::path(
    post, path = "/trading/orders/preview", tag = "trading",
    operation_id = "previewOrder", summary = "Preview order", request_body = PlaceOrderRequest,
    responses(
        (status = 200, description = "What the order would cost", body = PreviewResponse),
        AccountDenied, InstrumentNotFound, DuplicateId,
    )
)]
pub(crate) async fn preview(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<PlaceOrderRequest>,
) -> Result<Json<PreviewResponse>, ApiError> {
    let account = state
        .accounts()
        .owned_by(&caller.app_key, &AccountId::from(&request.account_id))
        .await?;
    let orders = state.orders();
    let placement = orders
        .placement(&request.new_orders, request.client_combo_order_id.as_deref())
        .await?;
    let Preview { estimate, headroom } = orders.preview(&account, &placement).await?;
    Ok(Json(PreviewResponse {
        estimated_cost: estimate.cost.round_dp(2).to_string(),
        estimated_commission: estimate.commission.to_string(),
        estimated_transaction_fee: "0".into(),
        estimated_exchange_fee: "0".into(),
        buying_power: headroom.before.round_dp(2).to_string(),
        buying_power_after: headroom.after.round_dp(2).to_string(),
        currency: account.currency.clone(),
    }))
}

#[utoipa::path(
    post, path = "/trading/orders/batch-place", tag = "trading",
    operation_id = "batchPlaceOrders", summary = "Batch place", request_body = BatchPlaceRequest,
    responses(
        (status = 200, description = "One acknowledgement per order, in order", body = BatchPlaceResponse),
        AccountDenied, InstrumentNotFound, DuplicateId,
    )
)]
async fn batch_place(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<BatchPlaceRequest>,
) -> Result<Json<BatchPlaceResponse>, ApiError> {
    let account = state
        .accounts()
        .owned_by(&caller.app_key, &AccountId::from(&request.account_id))
        .await?;
    let orders = state.orders().place_batch(&account, &request.batch_orders).await?;
    Ok(Json(BatchPlaceResponse {
        data: orders.iter().map(ack).collect(),
    }))
}

#[utoipa::path(
    post, path = "/trading/orders/cancel", tag = "trading",
    operation_id = "cancelOrder", summary = "Cancel order", request_body = CancelOrderRequest,
    responses(
        (status = 200, description = "The order, CANCELLED", body = OrderAck),
        AccountDenied, OrderNotFound,
    )
)]
pub(crate) async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<CancelOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    Ok(Json(ack(&cancel_requested(&state, &caller, &request).await?)))
}

/// Cancels the order a cancel request names, in an account of the caller's: the order as
/// cancelled. The current call and the v1 call send the same request.
pub(crate) async fn cancel_requested(
    state: &AppState,
    caller: &Caller,
    request: &CancelOrderRequest,
) -> Result<Order, ApiError> {
    let account = state
        .accounts()
        .owned_by(&caller.app_key, &AccountId::from(&request.account_id))
        .await?;
    Ok(state
        .orders()
        .cancel(&account, &ClientOrderId::from(&request.client_order_id))
        .await?)
}

#[utoipa::path(
    post, path = "/trading/orders/replace", tag = "trading",
    operation_id = "replaceOrder", summary = "Replace order", request_body = ReplaceOrderRequest,
    responses(
        (status = 200, description = "The order as replaced", body = OrderAck),
        AccountDenied, OrderNotFound,
    )
)]
pub(crate) async fn replace(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<ReplaceOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    let account = state
        .accounts()
        .owned_by(&caller.app_key, &AccountId::from(&request.account_id))
        .await?;
    let modify = replace::modification(&request.modify_orders)?;
    let orders = state.orders();
    let order = orders
        .find(&account, &ClientOrderId::from(&modify.client_order_id))
        .await?;
    let replaced = orders.replace(&account, &order, modify).await?;
    Ok(Json(ack(&replaced)))
}

#[derive(Debug, Deserialize)]
pub(crate) struct ListParams {
    account_id: Option<String>,
    client_order_id: Option<String>,
    start_time: Option<String>,
    end_time: Option<String>,
    pagination_key: Option<String>,
    page_size: Option<String>,
    /// x-version v2 (legacy mode): the page after this order.
    last_client_order_id: Option<String>,
    /// The earlier paths' other cursor (`/openapi/trade/order/open`), which signet does not
    /// page by: refused rather than ignored, so that a client does not read the first page again.
    last_order_id: Option<String>,
    /// x-version v2 history: UTC days, yyyy-MM-dd.
    start_date: Option<String>,
    end_date: Option<String>,
}

async fn params_account(state: &AppState, caller: &Caller, p: &ListParams) -> Result<AccountRecord, ApiError> {
    super::account_of(state, caller, p.account_id.as_deref()).await
}

#[utoipa::path(
    get, path = "/trading/orders/get", tag = "trading",
    operation_id = "orderDetail", summary = "Order detail",
    params(AccountParam, ("client_order_id" = String, Query, description = "The order's client order id")),
    responses(
        (status = 200, description = "The order", body = OrderRecord),
        AccountDenied, OrderNotFound,
    )
)]
pub(crate) async fn detail(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<ListParams>,
) -> Result<Json<OrderRecord>, ApiError> {
    let account = params_account(&state, &caller, &p).await?;
    let client_order_id = p
        .client_order_id
        .as_deref()
        .ok_or_else(|| ApiError::illegal_parameter("client_order_id is required"))?;
    Ok(Json(record(
        &state
            .orders()
            .find(&account, &ClientOrderId::from(client_order_id))
            .await?,
    )))
}

/// With x-version v2 (legacy mode), the older protocol: a bare list, and the next page asked
/// for with the last `client_order_id` seen.
#[utoipa::path(
    get, path = "/trading/orders/open-orders/list", tag = "trading",
    operation_id = "openOrders", summary = "Open orders", params(AccountParam, ListPageParams),
    responses(
        (status = 200, description = "A page of orders, newest first (with x-version v2 under `--compat legacy`: a bare array of orders)", body = crate::openapi::OrderListAnswer),
        AccountDenied,
    )
)]
pub(crate) async fn open_orders(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<ListParams>,
) -> Result<Response, ApiError> {
    let account = params_account(&state, &caller, &p).await?;
    match caller.version {
        ApiVersion::V3 => Ok(page(&state, &account, &p, true, None, None).await?.into_response()),
        ApiVersion::V2 => legacy_page(&state, &account, &p, true, None, None).await,
    }
}

#[utoipa::path(
    get, path = "/trading/orders/historical-orders/list", tag = "trading",
    operation_id = "orderHistory", summary = "Order history",
    params(
        AccountParam,
        ("start_time" = Option<String>, Query, pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$", description = "UTC, yyyy-MM-ddTHH:mm:ss.SSSZ; 7 days before end_time by default"),
        ("end_time" = Option<String>, Query, pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$", description = "UTC, yyyy-MM-ddTHH:mm:ss.SSSZ; now by default"),
        ListPageParams,
        ("start_date" = Option<String>, Query, deprecated, format = Date, description = "x-version v2 only: the first UTC day, yyyy-MM-dd"),
        ("end_date" = Option<String>, Query, deprecated, format = Date, description = "x-version v2 only: the last UTC day, yyyy-MM-dd"),
    ),
    responses(
        (status = 200, description = "A page of orders, newest first (with x-version v2 under `--compat legacy`: a bare array of orders)", body = crate::openapi::OrderListAnswer),
        AccountDenied,
    )
)]
pub(crate) async fn history(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<ListParams>,
) -> Result<Response, ApiError> {
    let account = params_account(&state, &caller, &p).await?;
    if caller.version == ApiVersion::V2 {
        let (start, end) = legacy_days(&p)?;
        return legacy_page(&state, &account, &p, false, Some(start), Some(end)).await;
    }
    let time = |name: &str, value: Option<&str>| -> Result<Option<i64>, ApiError> {
        match value.map(str::trim).filter(|v| !v.is_empty()) {
            None => Ok(None),
            Some(v) => parse_ms(v).map(Some).ok_or_else(|| {
                ApiError::illegal_parameter(format!(
                    "{name} must be a UTC time yyyy-MM-ddTHH:mm:ss.SSSZ, e.g. 2026-10-01T00:00:00.000Z"
                ))
            }),
        }
    };
    let (start, end) = (
        time("start_time", p.start_time.as_deref())?,
        time("end_time", p.end_time.as_deref())?,
    );
    let end = end.unwrap_or_else(wall_clock_ms);
    let start = start.unwrap_or(end - HISTORY_DEFAULT_MS);
    if start > end {
        return Err(ApiError::illegal_parameter("start_time is after end_time"));
    }
    Ok(page(&state, &account, &p, false, Some(start), Some(end))
        .await?
        .into_response())
}

/// The v2 history's window: `start_date` 00:00 to `end_date` 24:00 UTC, the last 7 days when
/// either is missing.
fn legacy_days(p: &ListParams) -> Result<(i64, i64), ApiError> {
    const DAY_MS: i64 = 24 * 3600 * 1000;
    let day = |name: &str, value: Option<&str>| -> Result<Option<i64>, ApiError> {
        match value.map(str::trim).filter(|v| !v.is_empty()) {
            None => Ok(None),
            Some(v) => parse_day(v).map(|day| Some(i64::from(day) * DAY_MS)).ok_or_else(|| {
                ApiError::illegal_parameter(format!("{name} must be a day yyyy-MM-dd, e.g. 2026-10-01"))
            }),
        }
    };
    let (start, end) = (
        day("start_date", p.start_date.as_deref())?,
        day("end_date", p.end_date.as_deref())?,
    );
    let (start, end) = match (start, end) {
        (Some(start), Some(end)) => (start, end + DAY_MS - 1),
        _ => {
            let now = wall_clock_ms();
            (now - HISTORY_DEFAULT_MS, now)
        }
    };
    if start > end {
        return Err(ApiError::illegal_parameter("start_date is after end_date"));
    }
    Ok((start, end))
}

/// A v2 page: the orders after `last_client_order_id` (which must be an order of the account).
async fn legacy_page(
    state: &AppState,
    account: &AccountRecord,
    p: &ListParams,
    open_only: bool,
    from_ms: Option<i64>,
    to_ms: Option<i64>,
) -> Result<Response, ApiError> {
    if given(p.last_order_id.as_deref()).is_some() && given(p.last_client_order_id.as_deref()).is_none() {
        return Err(ApiError::illegal_parameter(
            "last_order_id is not supported: page with last_client_order_id, the last order's client_order_id",
        ));
    }
    let before_seq = seq_after(state, account, p.last_client_order_id.as_deref()).await?;
    let (orders, _) = fetch(
        state,
        account,
        p.page_size.as_deref(),
        open_only,
        from_ms,
        to_ms,
        before_seq,
    )
    .await?;
    Ok(Json(orders.iter().map(record).collect::<Vec<_>>()).into_response())
}

/// Where a page that follows `last_client_order_id` starts: that order's sequence number (it
/// must be an order of the account); the first page when none is given.
pub(crate) async fn seq_after(
    state: &AppState,
    account: &AccountRecord,
    last_client_order_id: Option<&str>,
) -> Result<Option<i64>, ApiError> {
    match last_client_order_id.map(str::trim).filter(|id| !id.is_empty()) {
        None => Ok(None),
        Some(id) => {
            let last = state
                .store
                .order(&account.account_id, &ClientOrderId::from(id))
                .await?
                .ok_or_else(|| ApiError::illegal_parameter("last_client_order_id is not an order of this account"))?;
            Ok(Some(last.seq))
        }
    }
}

async fn page(
    state: &AppState,
    account: &AccountRecord,
    p: &ListParams,
    open_only: bool,
    from_ms: Option<i64>,
    to_ms: Option<i64>,
) -> Result<Json<OrderPage>, ApiError> {
    let before_seq = pagination::decode(KEY, p.pagination_key.as_deref())?;
    let (orders, more) = fetch(
        state,
        account,
        p.page_size.as_deref(),
        open_only,
        from_ms,
        to_ms,
        before_seq,
    )
    .await?;
    let pagination_key = if more {
        orders.last().map(|o| pagination::encode(KEY, o.seq))
    } else {
        None
    };
    Ok(Json(OrderPage {
        data: orders.iter().map(record).collect(),
        pagination_key,
    }))
}

/// One page of `page_size` orders older than `before_seq`, and whether more follow.
pub(crate) async fn fetch(
    state: &AppState,
    account: &AccountRecord,
    page_size: Option<&str>,
    open_only: bool,
    from_ms: Option<i64>,
    to_ms: Option<i64>,
    before_seq: Option<i64>,
) -> Result<(Vec<Order>, bool), ApiError> {
    let limit = pagination::page_size(page_size, PAGE, MAX_PAGE)?;
    let query = OrderPageQuery {
        open_only,
        from_ms,
        to_ms,
        before_seq,
        limit,
    };
    Ok(state.orders().page(account, query).await?)
}

/// An option order's legs (catalog 3.13): a single-leg order's contract, read back from its OCC
/// symbol (the leg's id is the order's, which a replacement names), or a multi-leg order's legs
/// (ids `ORDER_ID-1`, `-2`, ...). Empty for an order of shares.
fn option_legs(o: &Order) -> Vec<OrderLeg> {
    let leg = |id: String,
               instrument_id: i64,
               symbol: &str,
               side,
               ratio: Decimal,
               filled_price: Option<Decimal>,
               strategy: &str| {
        let quantity = (o.quantity * ratio).normalize().to_string();
        // A leg of shares is the underlying's, without a contract's terms.
        let contract = if is_contract(instrument_id) {
            Some(Contract::parse_occ(symbol).ok()?)
        } else {
            None
        };
        Some(OrderLeg {
            id,
            instrument_id: instrument_id.to_string(),
            symbol: contract.as_ref().map_or(symbol, |c| c.underlying.as_str()).to_owned(),
            option_symbol: contract.as_ref().map(|_| symbol.to_owned()),
            instrument_type: if contract.is_some() { "OPTION" } else { "EQUITY" }.into(),
            market: "US".into(),
            side,
            total_quantity: quantity.clone(),
            quantity,
            filled_quantity: (o.filled_quantity * ratio).normalize().to_string(),
            filled_price: filled_price.map(|p| p.to_string()),
            status: o.status,
            option_strategy: strategy.into(),
            option_type: contract.as_ref().map(|c| c.right.as_str().into()),
            strike_price: contract.as_ref().map(|c| c.strike.to_string()),
            option_expire_date: contract.as_ref().map(|c| format_day(c.expiry)),
            option_contract_multiplier: contract.as_ref().map(|_| MULTIPLIER.to_string()),
            option_contract_deliverable: contract.as_ref().map(|_| "1".into()),
        })
    };
    if let Some(multi) = &o.multi_leg {
        return multi
            .legs
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                leg(
                    format!("{}-{}", o.order_id, i + 1),
                    l.instrument_id,
                    &l.symbol,
                    l.side,
                    Decimal::from(l.ratio),
                    l.filled_price,
                    multi.strategy.as_str(),
                )
            })
            .collect();
    }
    if !is_contract(o.instrument_id) {
        return Vec::new();
    }
    leg(
        o.order_id.to_string(),
        o.instrument_id,
        &o.symbol,
        o.side,
        Decimal::ONE,
        o.average_price(),
        "SINGLE",
    )
    .into_iter()
    .collect()
}

/// The record clients read (catalog 3.13): an option order names its underlying and shows its
/// contract as a leg.
pub fn record(o: &Order) -> OrderRecord {
    let legs = option_legs(o);
    let strategy = o.multi_leg.as_ref().map_or("SINGLE", |m| m.strategy.as_str());
    OrderRecord {
        client_order_id: o.client_order_id.to_string(),
        client_combo_order_id: o.client_combo_order_id.clone(),
        combo_order_id: o.combo.as_ref().map(|c| c.combo_order_id.to_string()),
        combo_type: o.combo.as_ref().map_or("NORMAL", |c| c.kind.as_str()).to_owned(),
        orders: vec![OrderDetail {
            order_id: o.order_id.to_string(),
            client_order_id: o.client_order_id.to_string(),
            symbol: legs.first().map_or_else(|| o.symbol.clone(), |l| l.symbol.clone()),
            instrument_id: o.instrument_id.to_string(),
            instrument_type: if legs.is_empty() { "EQUITY" } else { "OPTION" }.into(),
            market: "US".into(),
            side: o.side,
            order_type: o.order_type,
            status: o.status,
            combo_type: o.combo_type,
            entrust_type: o.entrust_type(),
            total_cash_amount: o.cash_amount.map(|a| a.to_string()),
            total_quantity: o.quantity.normalize().to_string(),
            filled_quantity: o.filled_quantity.normalize().to_string(),
            limit_price: o.limit_price.map(|p| p.to_string()),
            stop_price: o.stop_price.map(|p| p.to_string()),
            trailing_type: o.trailing.map(|t| t.kind),
            trailing_stop_step: o.trailing.map(|t| t.step.to_string()),
            expire_date: (o.time_in_force == TimeInForce::Gtd)
                .then(|| o.expires_at_sim.map(|at| format_day(NewYork::of(at.0).day)))
                .flatten(),
            filled_price: o.average_price().map(|p| p.to_string()),
            time_in_force: o.time_in_force,
            support_trading_session: o.session,
            place_time: format_ms(o.place_time.0),
            fill_time: o.fill_time.map(|t| format_ms(t.0)),
            update_time: format_ms(o.update_time.0),
            reason: o.reason.clone(),
            option_strategy: (!legs.is_empty()).then(|| strategy.into()),
            position_intent: o.position_intent,
            legs,
        }],
    }
}
