//! The v1 trading calls: the official client's `TradeClient.account` and `TradeClient.order`
//! (and the earlier SDK generation). Another door onto the same accounts and orders as the v3
//! calls: an order placed here is the order `/trading/orders/get`, the trade events and the
//! console show, and the v1 balance is the v3 balance in the v1 shape. Each handler parses,
//! maps onto the v3 call's code ([`crate::trading::orders`], [`crate::trading::assets`]) and maps the answer.

// utoipa expands a `responses(T)` of an `IntoResponses` type with a path the lint finds longer
// than needed.
#![allow(unused_qualifications)]

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::simulator::clock::wall_clock_ms;
use signet_domain::times::format_ms;
use signet_domain::trading::order::Order;
use signet_domain::trading::replace::{self, Repeated};
use signet_domain::trading::valuation;
use signet_model::ids::{AccountId, ClientOrderId};
use signet_model::orders::{CancelOrderRequest, ModifyOrder, NewOrder, TradingSession};
use signet_model::v1::{
    AccountProfile, Balance, CurrencyAsset, Holding, HoldingsPage, OrderAck, OrderItem, OrderPage, StockOrder,
    StockOrderRequest, Subscription,
};
use signet_model::{ErrorCode, v1};
use signet_store::AccountRecord;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, QueryParams, given};
use crate::pagination;
use crate::state::AppState;
use crate::trading::assets::{Holdings, amount, holdings_of};
use crate::trading::orders::{self, AccountDenied, AccountParam, DuplicateId, OrderNotFound};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(profile))
        .routes(routes!(balance))
        .routes(routes!(positions))
        .routes(routes!(place))
        .routes(routes!(replace))
        .routes(routes!(cancel))
        .routes(routes!(detail))
        .routes(routes!(open_orders))
        .routes(routes!(today_orders))
}

/// The earlier account list, which the specification retired (section 9): mounted only under
/// `--compat legacy`.
pub fn legacy_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(subscriptions))
}

#[derive(Debug, Deserialize)]
struct Params {
    account_id: Option<String>,
    client_order_id: Option<String>,
    subscription_id: Option<String>,
    page_size: Option<String>,
    last_instrument_id: Option<String>,
    last_client_order_id: Option<String>,
}

/// The pages of the v1 lists, as `Params` reads them: for the OpenAPI document.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct V1PageParams {
    /// Orders a page, 10 by default
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<u32>,
    /// The page after this order
    pub last_client_order_id: Option<String>,
}

const PAGE: u32 = 10;
const MAX_PAGE: u32 = 100;
/// Accounts a page of the subscription list, as the reference says.
const SUBSCRIPTIONS_PAGE: usize = 100;

async fn account(state: &AppState, caller: &Caller, p: &Params) -> Result<AccountRecord, ApiError> {
    crate::trading::account_of(state, caller, p.account_id.as_deref()).await
}

/// The calling app's accounts, 100 a page by account id, after `subscription_id`.
#[utoipa::path(
    get, path = "/app/subscriptions/list", tag = "legacy",
    operation_id = "v1Subscriptions", summary = "Account list (v1, retired)",
    params(("subscription_id" = Option<String>, Query, description = "The page after this subscription")),
    responses((status = 200, description = "The calling app's accounts", body = Vec<Subscription>))
)]
async fn subscriptions(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<Subscription>>, ApiError> {
    let mut accounts = state.accounts().of_app(&caller.app_key).await?;
    accounts.sort_by(|a, b| a.account_id.cmp(&b.account_id));
    let after = given(p.subscription_id.as_deref());
    Ok(Json(
        accounts
            .into_iter()
            .filter(|a| after.is_none_or(|after| a.account_id.as_str() > after))
            .take(SUBSCRIPTIONS_PAGE)
            .map(|a| Subscription {
                subscription_id: a.account_id.to_string(),
                user_id: caller.user_id.to_string(),
                account_number: a.account_id.to_string(),
                account_id: a.account_id.into_string(),
            })
            .collect(),
    ))
}

/// What does not change of an account: its number (signet's is its id), type and status.
#[utoipa::path(
    get, path = "/account/profile", tag = "trading (v1)",
    operation_id = "v1AccountProfile", summary = "Account profile (v1)",
    params(AccountParam),
    responses((status = 200, description = "The account", body = AccountProfile), AccountDenied)
)]
async fn profile(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<AccountProfile>, ApiError> {
    let account = account(&state, &caller, &p).await?;
    Ok(Json(AccountProfile {
        account_number: account.account_id.into_string(),
        account_type: account.account_type,
        account_status: "NORMAL".into(),
    }))
}

/// The v3 balance in the v1 shape: the same cash, market value and buying power.
#[utoipa::path(
    get, path = "/account/balance", tag = "trading (v1)",
    operation_id = "v1AccountBalance", summary = "Account balance (v1)",
    params(AccountParam, ("total_asset_currency" = Option<String>, Query, description = "USD, the only currency")),
    responses((status = 200, description = "The account's balance", body = Balance), AccountDenied)
)]
async fn balance(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Balance>, ApiError> {
    let account = account(&state, &caller, &p).await?;
    let h = holdings_of(&state, &account).await?;
    let totals = valuation::totals(h.cash, h.positions.iter().map(|(_, v)| v));
    let free_cash = (h.cash - h.reserved).max(Decimal::ZERO);
    Ok(Json(Balance {
        account_id: account.account_id.into_string(),
        total_asset_currency: h.account_currency.clone(),
        total_asset: amount(totals.net_liquidation),
        total_market_value: amount(totals.market_value),
        total_cash_balance: amount(totals.cash),
        margin_utilization_rate: "0".into(),
        account_currency_assets: vec![CurrencyAsset {
            currency: h.account_currency,
            net_liquidation_value: amount(totals.net_liquidation),
            positions_market_value: amount(totals.market_value),
            cash_balance: amount(totals.cash),
            margin_power: amount(h.buying_power),
            cash_power: amount(free_cash.min(h.buying_power)),
            pending_incoming: "0".into(),
            cash_frozen: amount(h.reserved),
            available_withdrawal: amount(free_cash),
        }],
    }))
}

/// The account's positions by instrument id, `page_size` a page after `last_instrument_id`.
#[utoipa::path(
    get, path = "/account/positions", tag = "trading (v1)",
    operation_id = "v1AccountPositions", summary = "Account positions (v1)",
    params(
        AccountParam,
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Positions a page, 10 by default"),
        ("last_instrument_id" = Option<String>, Query, description = "The page after this instrument"),
    ),
    responses((status = 200, description = "A page of the account's positions", body = HoldingsPage), AccountDenied)
)]
async fn positions(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<HoldingsPage>, ApiError> {
    let size = pagination::page_size(p.page_size.as_deref(), PAGE, MAX_PAGE)? as usize;
    let after = match given(p.last_instrument_id.as_deref()) {
        None => None,
        Some(id) => Some(id.parse::<i64>().map_err(|_| {
            ApiError::illegal_parameter("last_instrument_id is a number, as the positions list shows it")
        })?),
    };
    let account = account(&state, &caller, &p).await?;
    let Holdings {
        account_currency,
        mut positions,
        ..
    } = holdings_of(&state, &account).await?;
    let gross: Decimal = positions.iter().map(|(_, v)| v.market_value.abs()).sum();
    positions.sort_by_key(|(p, _)| p.instrument_id);
    let mut rest = positions
        .into_iter()
        .filter(|(p, _)| after.is_none_or(|after| p.instrument_id > after))
        .peekable();
    let holdings: Vec<Holding> = rest
        .by_ref()
        .take(size)
        .map(|(p, v)| Holding {
            instrument_id: p.instrument_id.to_string(),
            symbol: p.symbol,
            instrument_type: "STOCK".into(),
            currency: account_currency.clone(),
            unit_cost: amount(v.average_cost),
            qty: amount(v.quantity),
            total_cost: amount(v.average_cost * v.quantity),
            last_price: amount(v.price),
            market_value: amount(v.market_value),
            unrealized_profit_loss: amount(v.unrealized),
            unrealized_profit_loss_rate: amount(v.unrealized_rate),
            holding_proportion: amount(if gross.is_zero() {
                Decimal::ZERO
            } else {
                (v.market_value.abs() / gross).round_dp(4)
            }),
        })
        .collect();
    Ok(Json(HoldingsPage {
        has_next: rest.peek().is_some(),
        holdings,
    }))
}

/// The v3 new order that a v1 `stock_order` asks for: the instrument by id, `qty`, `tif`, and
/// the core session, or every session but the night with `extended_hours_trading`.
fn new_order(state: &AppState, o: &StockOrder) -> Result<NewOrder, ApiError> {
    let instrument_id = o
        .instrument_id
        .as_ref()
        .and_then(id_text)
        .ok_or_else(|| ApiError::illegal_parameter("stock_order.instrument_id is required"))?;
    let symbol = instrument_id
        .parse::<i64>()
        .ok()
        .and_then(|id| state.simulator.symbol_of(id))
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::InstrumentNotFound,
                format!("no instrument has the instrument_id {instrument_id:?} (see GET /trade/instrument/tradable/list or the v3 instrument list)"),
            )
        })?;
    let session = if o.extended_hours_trading == Some(true) {
        TradingSession::All
    } else {
        TradingSession::Core
    };
    Ok(NewOrder {
        client_order_id: Some(o.client_order_id.clone()),
        combo_type: Some("NORMAL".into()),
        instrument_type: Some("EQUITY".into()),
        market: Some("US".into()),
        symbol: Some(symbol),
        side: o.side.clone(),
        order_type: o.order_type.clone(),
        time_in_force: o.tif.clone(),
        expire_date: None,
        entrust_type: Some("QTY".into()),
        quantity: o.qty.clone(),
        total_cash_amount: None,
        limit_price: o.limit_price.clone(),
        stop_price: o.stop_price.clone(),
        trailing_type: o.trailing_type.clone(),
        trailing_stop_step: o.trailing_stop_step.clone(),
        support_trading_session: Some(signet_model::wire::WireEnum::as_str(session).to_owned()),
        extended_hours: None,
        option_strategy: None,
        legs: None,
        position_intent: None,
        other: o.other.clone(),
    })
}

/// An instrument id as the client sent it: a string or a number.
fn id_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn ack(o: &Order) -> OrderAck {
    OrderAck {
        client_order_id: o.client_order_id.to_string(),
        order_id: o.order_id.to_string(),
    }
}

/// Places one order: the same checks, turn and store as `POST /trading/orders/place`.
#[utoipa::path(
    post, path = "/trade/order/place", tag = "trading (v1)",
    operation_id = "v1PlaceOrder", summary = "Place order (v1)", request_body = StockOrderRequest,
    responses(
        (status = 200, description = "The order is stored, SUBMITTED", body = OrderAck),
        AccountDenied, DuplicateId,
    )
)]
async fn place(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<StockOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    let account = state
        .accounts()
        .owned_by(&caller.app_key, &AccountId::from(&request.account_id))
        .await?;
    let order = new_order(&state, &request.stock_order)?;
    let orders = state.orders();
    let placement = orders.placement(std::slice::from_ref(&order), None).await?;
    let placed = orders.place(&account, placement).await?;
    Ok(Json(ack(&placed[0])))
}

/// Replaces an open order's `qty`, `limit_price` or `stop_price`; what else the request repeats
/// of the order must be the order's own.
#[utoipa::path(
    post, path = "/trade/order/replace", tag = "trading (v1)",
    operation_id = "v1ReplaceOrder", summary = "Replace order (v1)", request_body = StockOrderRequest,
    responses(
        (status = 200, description = "The order as replaced", body = OrderAck),
        AccountDenied, OrderNotFound,
    )
)]
async fn replace(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<StockOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    let account = state
        .accounts()
        .owned_by(&caller.app_key, &AccountId::from(&request.account_id))
        .await?;
    let o = &request.stock_order;
    let orders = state.orders();
    let order = orders.find(&account, &ClientOrderId::from(&o.client_order_id)).await?;
    let instrument_id = o.instrument_id.as_ref().and_then(id_text);
    replace::check_repeated(
        &order,
        &Repeated {
            instrument_id: instrument_id.as_deref(),
            side: o.side.as_deref(),
            order_type: o.order_type.as_deref(),
            time_in_force: o.tif.as_deref(),
            extended_hours: o.extended_hours_trading,
        },
    )?;
    let modify = ModifyOrder {
        client_order_id: o.client_order_id.to_string(),
        quantity: o.qty.clone(),
        limit_price: o.limit_price.clone(),
        stop_price: o.stop_price.clone(),
        time_in_force: None,
        order_type: None,
        other: BTreeMap::new(),
    };
    let replaced = orders.replace(&account, &order, &modify).await?;
    Ok(Json(ack(&replaced)))
}

/// Cancels an open order, as `POST /trading/orders/cancel` does.
#[utoipa::path(
    post, path = "/trade/order/cancel", tag = "trading (v1)",
    operation_id = "v1CancelOrder", summary = "Cancel order (v1)", request_body = CancelOrderRequest,
    responses(
        (status = 200, description = "The order, CANCELLED", body = OrderAck),
        AccountDenied, OrderNotFound,
    )
)]
async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<CancelOrderRequest>,
) -> Result<Json<OrderAck>, ApiError> {
    let cancelled = crate::trading::orders::cancel_requested(&state, &caller, &request).await?;
    Ok(Json(ack(&cancelled)))
}

/// An order in the v1 shape: the order, then its one item.
fn v1_order(account: &AccountRecord, o: &Order) -> v1::Order {
    v1::Order {
        account_id: o.account_id.to_string(),
        combo_type: o.combo.as_ref().map_or("NORMAL", |c| c.kind.as_str()).to_owned(),
        combo_ticker_type: "STOCK".into(),
        client_order_id: o.client_order_id.to_string(),
        extended_hours_trading: o.session != TradingSession::Core,
        order_id: o.order_id.to_string(),
        tif: o.time_in_force,
        items: vec![OrderItem {
            category: "US_STOCK".into(),
            currency: account.currency.clone(),
            filled_price: o.average_price().map(|p| p.to_string()),
            filled_qty: o.filled_quantity.normalize().to_string(),
            instrument_id: o.instrument_id.to_string(),
            last_filled_time: o.fill_time.map(|t| format_ms(t.0)),
            limit_price: o.limit_price.map(|p| p.to_string()),
            order_status: o.status,
            order_type: o.order_type,
            place_time: format_ms(o.place_time.0),
            qty: o.quantity.normalize().to_string(),
            side: o.side,
            stop_price: o.stop_price.map(|p| p.to_string()),
            symbol: o.symbol.clone(),
            trailing_stop_step: o.trailing.map(|t| t.step.to_string()),
            trailing_type: o.trailing.map(|t| t.kind),
        }],
    }
}

#[utoipa::path(
    get, path = "/trade/order/detail", tag = "trading (v1)",
    operation_id = "v1OrderDetail", summary = "Order detail (v1)",
    params(AccountParam, ("client_order_id" = String, Query, description = "The order's client order id")),
    responses((status = 200, description = "The order", body = v1::Order), AccountDenied, OrderNotFound)
)]
async fn detail(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<v1::Order>, ApiError> {
    let account = account(&state, &caller, &p).await?;
    let client_order_id = given(p.client_order_id.as_deref())
        .ok_or_else(|| ApiError::illegal_parameter("client_order_id is required"))?;
    let order = state
        .orders()
        .find(&account, &ClientOrderId::from(client_order_id))
        .await?;
    Ok(Json(v1_order(&account, &order)))
}

/// A page of the account's orders, newest first, after `last_client_order_id`: the open ones,
/// or those placed since `from_ms`.
async fn order_page(
    state: &AppState,
    caller: &Caller,
    p: &Params,
    open_only: bool,
    from_ms: Option<i64>,
) -> Result<Json<OrderPage>, ApiError> {
    let account = account(state, caller, p).await?;
    let before_seq = orders::seq_after(state, &account, p.last_client_order_id.as_deref()).await?;
    let (found, has_next) = orders::fetch(
        state,
        &account,
        p.page_size.as_deref(),
        open_only,
        from_ms,
        None,
        before_seq,
    )
    .await?;
    Ok(Json(OrderPage {
        has_next,
        orders: found.iter().map(|o| v1_order(&account, o)).collect(),
    }))
}

#[utoipa::path(
    get, path = "/trade/orders/list-open", tag = "trading (v1)",
    operation_id = "v1OpenOrders", summary = "Open orders (v1)",
    params(AccountParam, V1PageParams),
    responses((status = 200, description = "A page of the open orders, newest first", body = OrderPage), AccountDenied)
)]
async fn open_orders(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<OrderPage>, ApiError> {
    order_page(&state, &caller, &p, true, None).await
}

/// The orders placed since 00:00 UTC today (wall-clock time, as every order time), open or not.
#[utoipa::path(
    get, path = "/trade/orders/list-today", tag = "trading (v1)",
    operation_id = "v1TodayOrders", summary = "Today's orders (v1)",
    params(AccountParam, V1PageParams),
    responses((status = 200, description = "A page of today's orders, newest first", body = OrderPage), AccountDenied)
)]
async fn today_orders(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<OrderPage>, ApiError> {
    const DAY_MS: i64 = 24 * 3600 * 1000;
    let today = wall_clock_ms().div_euclid(DAY_MS) * DAY_MS;
    order_page(&state, &caller, &p, false, Some(today)).await
}
