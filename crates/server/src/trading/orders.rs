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
use signet_domain::marketdata::units::{format_day, parse_day};
use signet_domain::options::market;
use signet_domain::options::secured::Rule;
use signet_domain::options::{Contract, MULTIPLIER, is_contract};
use signet_domain::scenarios::Operation;
use signet_domain::simulator::Quote;
use signet_domain::simulator::clock::{NewYork, wall_clock_ms};
use signet_domain::times::{SimTime, WallTime};
use signet_domain::times::{format_ms, parse_ms};
use signet_domain::trading::buying_power::{self, Headroom, PricedOrder};
use signet_domain::trading::combo::{self, Combo, ComboKind};
use signet_domain::trading::expiry;
use signet_domain::trading::multi_leg::{self, LegsClaim, MultiLeg, OrderLeg as LegOfOrder};
use signet_domain::trading::order::{self, Event, Order};
use signet_domain::trading::placement::{self, Placement};
use signet_domain::trading::replace;
use signet_domain::trading::spec;
use signet_model::orders::{
    BatchPlaceRequest, BatchPlaceResponse, CancelOrderRequest, ModifyOrder, NewOrder, OrderAck, OrderDetail, OrderLeg,
    OrderPage, OrderRecord, OrderStatus, PlaceOrderRequest, PreviewResponse, ReplaceOrderRequest, Side, TimeInForce,
};
use signet_model::{ErrorBody, ErrorCode};
use signet_store::{AccountRecord, OrderQuery};
use utoipa::{IntoParams, IntoResponses};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, QueryParams, given};
use crate::legacy::ApiVersion;
use crate::openapi::InstrumentNotFound;
use crate::pagination;
use crate::secrets::random_hex;
use crate::state::AppState;
use signet_core::placements::ToPlace;

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

/// Parses one new order, finds its instrument and prices it at the simulator's quote now
/// ([`placement::price`]).
async fn prepare(state: &AppState, order: &NewOrder) -> Result<PricedOrder, ApiError> {
    let spec = spec::parse(order)?;
    if spec.multi_leg.is_some() {
        return prepare_multi_leg(state, spec).await;
    }
    let instrument_id = match &spec.contract {
        // A contract listed today, at prices on its tick.
        Some(_) => {
            let (id, _, u) = state.options.contract(&spec.symbol).await?;
            for (field, price) in [("limit_price", spec.limit_price), ("stop_price", spec.stop_price)] {
                if let Some(price) = price {
                    market::check_tick(u.penny, field, price)?;
                }
            }
            id
        }
        None => state.simulator.instrument_id(&spec.symbol).ok_or_else(|| {
            ApiError::new(
                ErrorCode::InstrumentNotFound,
                format!("no instrument has the symbol {:?}", spec.symbol),
            )
        })?,
    };
    let now = state.simulator.now();
    let quote = state.simulator.quote_of(instrument_id, now.0);
    Ok(placement::price(spec, instrument_id, quote.as_ref(), now)?)
}

/// A multi-leg order: each leg's contract listed today (its net limit on the cent), priced at
/// the legs' quotes now ([`placement::price_multi_leg`]); its instrument is the underlying.
async fn prepare_multi_leg(state: &AppState, spec: spec::OrderSpec) -> Result<PricedOrder, ApiError> {
    let multi = spec.multi_leg.as_ref().expect("a multi-leg order");
    let underlying = state.simulator.instrument_id(&spec.symbol).ok_or_else(|| {
        ApiError::new(
            ErrorCode::InstrumentNotFound,
            format!("no instrument has the symbol {:?}", spec.symbol),
        )
    })?;
    let mut ids = Vec::with_capacity(multi.legs.len());
    for leg in &multi.legs {
        let id = match &leg.contract {
            Some(contract) => state.options.contract(&contract.occ_symbol()).await?.0,
            None => underlying,
        };
        ids.push(id);
    }
    // A combination's net price trades in cents, whatever its legs' ticks.
    if let Some(limit) = spec.limit_price.filter(|l| l.normalize().scale() > 2) {
        return Err(ApiError::new(
            ErrorCode::IllegalParameter,
            format!("limit_price {limit} is a multi-leg order's net price: in steps of 0.01"),
        ));
    }
    let now = state.simulator.now();
    state.simulator.prepare(ids.iter().copied()).await;
    let quotes: Vec<Option<Quote>> = ids.iter().map(|&id| state.simulator.quote_of(id, now.0)).collect();
    let legs: Vec<(i64, Option<&Quote>)> = ids.iter().copied().zip(quotes.iter().map(Option::as_ref)).collect();
    Ok(placement::price_multi_leg(spec, underlying, &legs)?)
}

/// Checks `orders` ([`buying_power::check`]) against the account as of now: its cash, its
/// positions at the last prices, and the claims of its open orders but `replacing`, whose claim
/// the new orders take over.
async fn check_account(
    state: &AppState,
    account: &AccountRecord,
    orders: &[&PricedOrder],
    kind: Option<ComboKind>,
    replacing: Option<&str>,
) -> Result<Headroom, ApiError> {
    let accounts = state.accounts();
    let (standing, _) = accounts.standing(&account.account_id, replacing).await?;
    let now = state.simulator.now_ms();
    Ok(buying_power::check(standing, orders, kind, &|id| {
        accounts.last_price(id, now)
    })?)
}

fn new_order(
    account: &AccountRecord,
    p: &PricedOrder,
    client_combo_order_id: Option<&str>,
    sim_now: SimTime,
    placed_at: WallTime,
) -> Result<Order, ApiError> {
    Ok(Order {
        seq: 0,
        order_id: random_hex::<8>()?.to_uppercase(),
        account_id: account.account_id.clone(),
        client_order_id: p.spec.client_order_id.clone(),
        client_combo_order_id: client_combo_order_id.map(str::to_owned),
        combo_type: p.spec.combo_type,
        combo: None,
        waits_for: None,
        instrument_id: p.instrument_id,
        symbol: p.spec.symbol.clone(),
        side: p.spec.side,
        order_type: p.spec.order_type,
        time_in_force: p.spec.time_in_force,
        quantity: p.spec.quantity,
        cash_amount: p.spec.cash_amount,
        limit_price: p.spec.limit_price,
        stop_price: p.spec.stop_price,
        trailing: p.spec.trailing,
        triggered_at: None,
        session: p.spec.session,
        status: OrderStatus::Submitted,
        filled_quantity: Decimal::ZERO,
        filled_amount: Decimal::ZERO,
        reason: None,
        expires_at_sim: expiry::expires_at(p.spec.time_in_force, p.spec.session, p.spec.expire_day, sim_now),
        place_time: placed_at.0,
        fill_time: None,
        update_time: placed_at.0,
        filled_at_sim: None,
        fill_plan: None,
        // As given; else found in the account's turn ([`signet_core::placements`]).
        position_intent: p.spec.intent,
        multi_leg: p.spec.multi_leg.as_ref().map(|m| MultiLeg {
            strategy: m.strategy,
            legs: m
                .legs
                .iter()
                .zip(&p.legs)
                .map(|(leg, priced)| LegOfOrder {
                    instrument_id: priced.instrument_id,
                    symbol: leg.symbol(&m.underlying),
                    side: leg.side,
                    ratio: leg.ratio,
                    filled_price: None,
                })
                .collect(),
            // Set in the account's turn, which knows the kind of account.
            claim: LegsClaim::default(),
        }),
    })
}

fn ack(o: &Order) -> OrderAck {
    OrderAck {
        client_order_id: o.client_order_id.clone(),
        order_id: o.order_id.clone(),
        client_combo_order_id: o.client_combo_order_id.clone(),
        combo_order_id: o.combo.as_ref().map(|c| c.combo_order_id.clone()),
        status: o.status,
        orders: Vec::new(),
    }
}

/// `new_orders` read and priced, as a [`Placement`].
pub(super) async fn placement(
    state: &AppState,
    new_orders: &[NewOrder],
    client_combo_order_id: Option<&str>,
) -> Result<Placement, ApiError> {
    combo::check_count(new_orders.len())?;
    let mut orders = Vec::with_capacity(new_orders.len());
    for (i, order) in new_orders.iter().enumerate() {
        let p = prepare(state, order).await.map_err(|mut e| {
            if new_orders.len() > 1 {
                e.message = format!("new_orders[{i}]: {}", e.message).into();
            }
            e
        })?;
        orders.push(p);
    }
    Ok(Placement::new(orders, client_combo_order_id)?)
}

/// Checks a placement in its account's turn and stores it if it fits.
pub(super) async fn place_orders(
    state: &AppState,
    account: &AccountRecord,
    placement: Placement,
) -> Result<Vec<Order>, ApiError> {
    let orders = to_store(&placement, account, state.simulator.now(), WallTime::now())?;
    let to_place = ToPlace {
        priced: placement.orders,
        kind: placement.kind,
        orders,
    };
    Ok(state.placements().place(account, to_place).await?)
}

/// The orders of a placement to store: a combination is named by its first order, and in OTO
/// and OTOCO the others wait for it.
fn to_store(
    placement: &Placement,
    account: &AccountRecord,
    sim_now: SimTime,
    placed_at: WallTime,
) -> Result<Vec<Order>, ApiError> {
    let mut orders = placement
        .orders
        .iter()
        .map(|p| {
            new_order(
                account,
                p,
                placement.client_combo_order_id.as_deref(),
                sim_now,
                placed_at,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(kind) = placement.kind {
        let first = orders[0].order_id.clone();
        for (i, o) in orders.iter_mut().enumerate() {
            o.combo = Some(Combo {
                combo_order_id: first.clone(),
                kind,
            });
            if i > 0 && kind != ComboKind::Oco {
                o.waits_for = Some(first.clone());
            }
        }
    }
    Ok(orders)
}

#[utoipa::path(
    post, path = "/trading/orders/place", tag = "trading",
    operation_id = "placeOrder", summary = "Place order", request_body = PlaceOrderRequest,
    responses(
        (status = 200, description = "The order (or combination) is stored, SUBMITTED", body = OrderAck),
        AccountDenied, InstrumentNotFound, DuplicateId,
    )
)]
pub(super) async fn place(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<PlaceOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    let account = state.accounts().owned_by(&caller.app_key, &request.account_id).await?;
    let placement = placement(&state, &request.new_orders, request.client_combo_order_id.as_deref()).await?;
    let orders = place_orders(&state, &account, placement).await?;
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
pub(super) async fn preview(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<PlaceOrderRequest>,
) -> Result<Json<PreviewResponse>, ApiError> {
    let account = state.accounts().owned_by(&caller.app_key, &request.account_id).await?;
    let placement = placement(&state, &request.new_orders, request.client_combo_order_id.as_deref()).await?;
    for p in &placement.orders {
        if state
            .store
            .order(&account.account_id, &p.spec.client_order_id)
            .await?
            .is_some()
        {
            return Err(ApiError::new(
                ErrorCode::DuplicateClientOrderId,
                "this client_order_id was used before in this account",
            ));
        }
    }
    let orders: Vec<&PricedOrder> = placement.orders.iter().collect();
    let headroom = check_account(&state, &account, &orders, placement.kind, None).await?;
    let estimate = placement.estimate(state.config.commission);
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
    let account = state.accounts().owned_by(&caller.app_key, &request.account_id).await?;
    placement::check_batch_size(request.batch_orders.len())?;
    let mut prepared = Vec::with_capacity(request.batch_orders.len());
    for (i, order) in request.batch_orders.iter().enumerate() {
        let p = prepare(&state, order).await.map_err(|mut e| {
            e.message = format!("batch_orders[{i}]: {}", e.message).into();
            e
        })?;
        placement::check_batch_order(i, &p.spec)?;
        prepared.push(p);
    }
    placement::check_batch_ids(&prepared)?;
    let (sim_now, placed_at) = (state.simulator.now(), WallTime::now());
    let orders = prepared
        .iter()
        .map(|p| new_order(&account, p, None, sim_now, placed_at))
        .collect::<Result<Vec<_>, _>>()?;
    let to_place = ToPlace {
        priced: prepared,
        kind: None,
        orders,
    };
    let orders = state.placements().place(&account, to_place).await?;
    Ok(Json(BatchPlaceResponse {
        data: orders.iter().map(ack).collect(),
    }))
}

/// An open order changed outside placements and the engine's ticks: the account's claims and
/// the engine's book are read again from the database.
fn forget_open_orders(state: &AppState, account_id: &str) {
    state.claims.forget(account_id);
    state.book.forget();
}

/// The caller's order with this client order id, or 404.
pub(super) async fn find(state: &AppState, account: &AccountRecord, client_order_id: &str) -> Result<Order, ApiError> {
    state
        .store
        .order(&account.account_id, client_order_id.trim())
        .await?
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::OrderNotFound,
                "no order of this account has this client_order_id",
            )
        })
}

#[utoipa::path(
    post, path = "/trading/orders/cancel", tag = "trading",
    operation_id = "cancelOrder", summary = "Cancel order", request_body = CancelOrderRequest,
    responses(
        (status = 200, description = "The order, CANCELLED", body = OrderAck),
        AccountDenied, OrderNotFound,
    )
)]
pub(super) async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<CancelOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    let account = state.accounts().owned_by(&caller.app_key, &request.account_id).await?;
    let cancelled = cancel_order(&state, &account, &request.client_order_id).await?;
    Ok(Json(ack(&cancelled)))
}

/// Cancels the account's open order with this client order id: the order as cancelled.
pub(super) async fn cancel_order(
    state: &AppState,
    account: &AccountRecord,
    client_order_id: &str,
) -> Result<Order, ApiError> {
    let order = find(state, account, client_order_id).await?;
    state
        .scenarios
        .check_order(Operation::Cancel, &account.account_id, &order, state.simulator.now_ms())
        .await?;
    let now = WallTime::now();
    let cancelled = state
        .store
        .update_open_order(
            &order.order_id,
            Event::Cancel,
            Some("cancelled by the account holder"),
            None,
            now,
        )
        .await;
    forget_open_orders(state, &account.account_id);
    let cancelled = cancelled?.ok_or_else(|| order::not_open(&order))?;
    state.events.wake();
    Ok(cancelled)
}

#[utoipa::path(
    post, path = "/trading/orders/replace", tag = "trading",
    operation_id = "replaceOrder", summary = "Replace order", request_body = ReplaceOrderRequest,
    responses(
        (status = 200, description = "The order as replaced", body = OrderAck),
        AccountDenied, OrderNotFound,
    )
)]
pub(super) async fn replace(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<ReplaceOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    let account = state.accounts().owned_by(&caller.app_key, &request.account_id).await?;
    let modify = replace::modification(&request.modify_orders)?;
    let order = find(&state, &account, &modify.client_order_id).await?;
    let replaced = replace_order(&state, &account, &order, modify).await?;
    Ok(Json(ack(&replaced)))
}

/// Replaces `order`, an order of `account`, as `modify` asks: the order as replaced.
pub(super) async fn replace_order(
    state: &AppState,
    account: &AccountRecord,
    order: &Order,
    modify: &ModifyOrder,
) -> Result<Order, ApiError> {
    state
        .scenarios
        .check_order(Operation::Replace, &account.account_id, order, state.simulator.now_ms())
        .await?;
    let mut replacement = replace::apply(order, modify)?;
    state.simulator.prepare([order.instrument_id]).await;
    if is_contract(order.instrument_id) {
        let (_, _, u) = state.options.contract(&order.symbol).await?;
        for (field, price) in [
            ("limit_price", replacement.limit_price),
            ("stop_price", replacement.stop_price),
        ] {
            if let Some(price) = price {
                market::check_tick(u.penny, field, price)?;
            }
        }
    }
    // The replaced order must still fit the account, counting its unfilled part anew.
    let remaining = match &order.multi_leg {
        // A multi-leg order's legs at their quotes now, and what a unit claims at its new limit.
        Some(multi) => {
            state
                .simulator
                .prepare(multi.legs.iter().map(|l| l.instrument_id))
                .await;
            let now = state.simulator.now_ms();
            let prices: Vec<Decimal> = multi
                .legs
                .iter()
                .map(|l| {
                    state
                        .simulator
                        .quote_of(l.instrument_id, now)
                        .map(|q| if l.side == Side::Buy { q.ask } else { q.bid })
                        .unwrap_or_default()
                })
                .collect();
            let remaining = replacement.remaining_legs(order, multi, &prices);
            let accounts = state.accounts();
            let price_now = |id| accounts.last_price(id, now);
            replacement.legs_claim = Some(multi_leg::claim(
                multi,
                remaining.estimate,
                Rule::of(account.account_type, &price_now),
            ));
            remaining
        }
        None => replacement.remaining(order, || {
            state
                .simulator
                .quote_of(order.instrument_id, state.simulator.now_ms())
                .map(|q| q.ask)
                .unwrap_or_default()
        }),
    };
    // Checked and stored in the account's turn, as placements are: a replacement may raise
    // the order's claim.
    let _turn_here = state.turns.take(&account.account_id).await;
    let turn = state.store.begin_turn(&account.account_id).await?;
    check_account(state, account, &[&remaining], None, Some(&order.order_id)).await?;
    let now = WallTime::now();
    let replaced = state
        .store
        .update_open_order(&order.order_id, Event::Replace, None, Some(replacement), now)
        .await;
    forget_open_orders(state, &account.account_id);
    // Nothing was written in the turn: ending it only lets the next change of the account go
    // (the replacement's own commit waited for the disk, and for what it saw before it).
    if let Err(e) = turn.end().await {
        tracing::warn!(error = %e, "ending an account's turn after a replacement");
    }
    let replaced = replaced?.ok_or_else(|| order::not_open(order))?;
    state.events.wake();
    Ok(replaced)
}

#[derive(Debug, Deserialize)]
pub(super) struct ListParams {
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
pub(super) async fn detail(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<ListParams>,
) -> Result<Json<OrderRecord>, ApiError> {
    let account = params_account(&state, &caller, &p).await?;
    let client_order_id = p
        .client_order_id
        .as_deref()
        .ok_or_else(|| ApiError::illegal_parameter("client_order_id is required"))?;
    Ok(Json(record(&find(&state, &account, client_order_id).await?)))
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
pub(super) async fn open_orders(
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
pub(super) async fn history(
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
pub(super) async fn seq_after(
    state: &AppState,
    account: &AccountRecord,
    last_client_order_id: Option<&str>,
) -> Result<Option<i64>, ApiError> {
    match last_client_order_id.map(str::trim).filter(|id| !id.is_empty()) {
        None => Ok(None),
        Some(id) => {
            let last =
                state.store.order(&account.account_id, id).await?.ok_or_else(|| {
                    ApiError::illegal_parameter("last_client_order_id is not an order of this account")
                })?;
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
pub(super) async fn fetch(
    state: &AppState,
    account: &AccountRecord,
    page_size: Option<&str>,
    open_only: bool,
    from_ms: Option<i64>,
    to_ms: Option<i64>,
    before_seq: Option<i64>,
) -> Result<(Vec<Order>, bool), ApiError> {
    let limit = pagination::page_size(page_size, PAGE, MAX_PAGE)?;
    let mut orders = state
        .store
        .orders(&OrderQuery {
            account_id: account.account_id.clone(),
            open_only,
            from_ms,
            to_ms,
            before_seq,
            status: None,
            symbol: None,
            limit: limit + 1,
        })
        .await?;
    let more = orders.len() > limit as usize;
    orders.truncate(limit as usize);
    Ok((orders, more))
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
        o.order_id.clone(),
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
        client_order_id: o.client_order_id.clone(),
        client_combo_order_id: o.client_combo_order_id.clone(),
        combo_order_id: o.combo.as_ref().map(|c| c.combo_order_id.clone()),
        combo_type: o.combo.as_ref().map_or("NORMAL", |c| c.kind.as_str()).to_owned(),
        orders: vec![OrderDetail {
            order_id: o.order_id.clone(),
            client_order_id: o.client_order_id.clone(),
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
                .then(|| o.expires_at_sim.map(|at| format_day(NewYork::of(at).day)))
                .flatten(),
            filled_price: o.average_price().map(|p| p.to_string()),
            time_in_force: o.time_in_force,
            support_trading_session: o.session,
            place_time: format_ms(o.place_time),
            fill_time: o.fill_time.map(format_ms),
            update_time: format_ms(o.update_time),
            reason: o.reason.clone(),
            option_strategy: (!legs.is_empty()).then(|| strategy.into()),
            position_intent: o.position_intent,
            legs,
        }],
    }
}
