//! An account's balance, positions and a position's detail (catalog 10.1 to 10.3), valued at the
//! simulator's last prices, the ones placement prices positions at.

// utoipa expands a `responses(T)` of an `IntoResponses` type with a path the lint finds longer
// than needed.
#![allow(unused_qualifications)]

use axum::Json;
use axum::extract::State;
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::marketdata::units::format_day;
use signet_domain::options::{Contract, MULTIPLIER, is_contract};
use signet_domain::trading::buying_power;
use signet_domain::trading::valuation::{self, Valued};
use signet_model::assets::{AccountBalance, CurrencyAssets, Position, PositionDetail, PositionDetailPage, PositionLeg};
use signet_store::{AccountRecord, PositionRecord};
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
        .routes(routes!(balance))
        .routes(routes!(positions))
        .routes(routes!(detail))
}

/// The retired detail path, mounted only under `--compat legacy`.
pub fn legacy_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(legacy_detail))
}

#[derive(Debug, Deserialize)]
pub(crate) struct Params {
    account_id: Option<String>,
    instrument_id: Option<String>,
    /// The detail's pages (v3: `pagination_key`; v2: `page_size` and `last_id`): with one row at
    /// most there is never a second page, but a malformed value is still refused.
    pagination_key: Option<String>,
    page_size: Option<String>,
}

/// The kind of the detail's pagination keys (none is ever issued).
const DETAIL_KEY: char = 'd';

/// The account's stored positions, each valued at the last price now.
pub(crate) struct Holdings {
    pub account_currency: String,
    pub cash: Decimal,
    pub buying_power: Decimal,
    /// The cash the account's open buys and short sales hold back.
    pub reserved: Decimal,
    pub positions: Vec<(PositionRecord, Valued)>,
}

async fn holdings(state: &AppState, caller: &Caller, p: &Params) -> Result<Holdings, ApiError> {
    holdings_of(state, &super::account_of(state, caller, p.account_id.as_deref()).await?).await
}

/// [`Holdings`] of an account already found (the console's, which has no caller).
pub(crate) async fn holdings_of(state: &AppState, account: &AccountRecord) -> Result<Holdings, ApiError> {
    let (standing, positions) = state.accounts().standing(&account.account_id, None).await?;
    let now = state.simulator.now_ms();
    let positions = positions
        .into_iter()
        .map(|p| {
            let valued = valuation::value(
                p.instrument_id,
                p.holding,
                state.accounts().last_price(p.instrument_id, now),
            );
            (p, valued)
        })
        .collect();
    let (cash, reserved) = (standing.cash, standing.reserved);
    // Before any new order: the buying power placement checks a buy against.
    let price_now = |id| state.accounts().last_price(id, now);
    let buying_power = buying_power::check(standing, &[], None, &price_now)?.before;
    Ok(Holdings {
        account_currency: account.currency.clone(),
        cash,
        buying_power,
        reserved,
        positions,
    })
}

pub(crate) fn amount(d: Decimal) -> String {
    d.normalize().to_string()
}

/// Cash, market value of the positions at the last prices, buying power, open profit and loss
/// and net liquidation value, in total and per currency (one: USD).
#[utoipa::path(
    get, path = "/trading/assets/balances/get", tag = "trading",
    operation_id = "accountBalance", summary = "Account balance",
    params(AccountParam),
    responses(
        (status = 200, description = "The account's balance", body = AccountBalance),
        AccountDenied,
    )
)]
pub(crate) async fn balance(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<AccountBalance>, ApiError> {
    let h = holdings(&state, &caller, &p).await?;
    let totals = valuation::totals(h.cash, h.positions.iter().map(|(_, v)| v));
    Ok(Json(AccountBalance {
        total_asset_currency: h.account_currency.clone(),
        total_cash_balance: amount(totals.cash),
        total_market_value: amount(totals.market_value),
        total_unrealized_profit_loss: amount(totals.unrealized),
        total_net_liquidation_value: amount(totals.net_liquidation),
        account_currency_assets: vec![CurrencyAssets {
            currency: h.account_currency,
            cash_balance: amount(totals.cash),
            market_value: amount(totals.market_value),
            buying_power: amount(h.buying_power),
            unrealized_profit_loss: amount(totals.unrealized),
            net_liquidation_value: amount(totals.net_liquidation),
        }],
    }))
}

/// The account's positions, by symbol: a bare array, not paginated.
#[utoipa::path(
    get, path = "/trading/assets/positions/list", tag = "trading",
    operation_id = "accountPositions", summary = "Account positions",
    params(AccountParam),
    responses(
        (status = 200, description = "The account's positions, by symbol", body = Vec<Position>),
        AccountDenied,
    )
)]
pub(crate) async fn positions(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<Position>>, ApiError> {
    let h = holdings(&state, &caller, &p).await?;
    let currency = h.account_currency;
    Ok(Json(
        h.positions
            .into_iter()
            .map(|(p, v)| Position {
                position_id: position_id(&p),
                legs: option_leg(&p, &v).into_iter().collect(),
                symbol: Contract::parse_occ(&p.symbol)
                    .ok()
                    .filter(|_| is_contract(p.instrument_id))
                    .map_or(p.symbol, |c| c.underlying),
                quantity: amount(v.quantity),
                currency: currency.clone(),
                instrument_type: if is_contract(p.instrument_id) {
                    "OPTION"
                } else {
                    "EQUITY"
                }
                .into(),
                option_strategy: "SINGLE".into(),
                cost_price: amount(v.average_cost),
                last_price: amount(v.price),
                market_value: amount(v.market_value),
                unrealized_profit_loss: amount(v.unrealized),
                unrealized_profit_loss_rate: amount(v.unrealized_rate),
                instrument_id: p.instrument_id.to_string(),
            })
            .collect(),
    ))
}

/// The contract of an option position, as its one leg (quantity in contracts, cost and price
/// per share).
fn option_leg(p: &PositionRecord, v: &Valued) -> Option<PositionLeg> {
    let contract = Contract::parse_occ(&p.symbol)
        .ok()
        .filter(|_| is_contract(p.instrument_id))?;
    Some(PositionLeg {
        leg_id: position_id(p),
        symbol: p.symbol.clone(),
        quantity: amount(v.quantity),
        option_type: contract.right.as_str().into(),
        option_expire_date: format_day(contract.expiry),
        option_exercise_price: contract.strike.to_string(),
        strike_price: contract.strike.to_string(),
        option_contract_multiplier: MULTIPLIER.to_string(),
        option_contract_deliverable: "1".into(),
    })
}

/// The detail rows of the account's position in `instrument_id`: none when it holds none.
async fn detail_rows(state: &AppState, caller: &Caller, p: &Params) -> Result<Vec<PositionDetail>, ApiError> {
    let instrument_id: i64 = given(p.instrument_id.as_deref())
        .ok_or_else(|| ApiError::illegal_parameter("instrument_id is required (see the positions list)"))?
        .parse()
        .map_err(|_| ApiError::illegal_parameter("instrument_id is a number, as the positions list shows it"))?;
    pagination::page_size(p.page_size.as_deref(), 10, 100)?;
    let h = holdings(state, caller, p).await?;
    let Some((position, v)) = h.positions.into_iter().find(|(r, _)| r.instrument_id == instrument_id) else {
        return Ok(Vec::new());
    };
    let instrument = state.store.instrument(&position.symbol).await?;
    Ok(vec![PositionDetail {
        id: position_id(&position),
        account_id: position.account_id.to_string(),
        symbol: position.symbol.clone(),
        symbol_name: instrument
            .as_ref()
            .map_or_else(|| position.symbol.clone(), |i| i.name.clone()),
        exchange_code: instrument.and_then(|i| i.exchange),
        instrument_id: instrument_id.to_string(),
        quantity: amount(v.quantity),
        average_price: amount(v.average_cost),
        market_value: amount(v.market_value),
        unrealized_pl: amount(v.unrealized),
        currency: h.account_currency.clone(),
        base_currency: h.account_currency,
        fx_rate: "1".into(),
        base_currency_market_value: amount(v.market_value),
    }])
}

/// The answer: a page with x-version v3; a bare array with x-version v2 (`--compat legacy`).
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum PositionDetailAnswer {
    Page(PositionDetailPage),
    Legacy(Vec<PositionDetail>),
}

/// The account's position in one instrument: one row, or none when it holds none.
#[utoipa::path(
    get, path = "/trading/assets/positions/get", tag = "trading",
    operation_id = "accountPositionDetail", summary = "Position detail",
    params(
        AccountParam,
        ("instrument_id" = String, Query, description = "An instrument id from the positions list", example = "3"),
        ("pagination_key" = Option<String>, Query, description = "The previous page's `pagination_key` (there is never a second page)"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 100, deprecated, description = "x-version v2 only (`--compat legacy`)"),
        ("last_id" = Option<String>, Query, deprecated, description = "x-version v2 only (`--compat legacy`): ignored, there is never a second page"),
    ),
    responses(
        (status = 200, description = "The position's detail (with x-version v2 under `--compat legacy`: a bare array)", body = PositionDetailAnswer),
        AccountDenied,
    )
)]
async fn detail(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<PositionDetailAnswer>, ApiError> {
    if caller.version == ApiVersion::V3 {
        pagination::decode(DETAIL_KEY, p.pagination_key.as_deref())?;
    }
    let data = detail_rows(&state, &caller, &p).await?;
    Ok(Json(match caller.version {
        ApiVersion::V2 => PositionDetailAnswer::Legacy(data),
        ApiVersion::V3 => PositionDetailAnswer::Page(PositionDetailPage {
            data,
            pagination_key: None,
        }),
    }))
}

/// The retired detail call: a bare array.
#[utoipa::path(
    get, path = "/openapi/assets/position/details", tag = "legacy",
    operation_id = "legacyPositionDetail", summary = "Position detail (retired)",
    params(
        AccountParam,
        ("instrument_id" = String, Query, description = "An instrument id from the positions list", example = "3"),
        ("page_size" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Rows a page, 10 by default"),
        ("last_id" = Option<String>, Query, description = "Ignored: there is never a second page"),
    ),
    responses(
        (status = 200, description = "The position's detail", body = Vec<PositionDetail>),
        AccountDenied,
    )
)]
pub(crate) async fn legacy_detail(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<PositionDetail>>, ApiError> {
    Ok(Json(detail_rows(&state, &caller, &p).await?))
}

/// A position is the account's holding of one instrument: named by both.
pub(super) fn position_id(p: &PositionRecord) -> String {
    format!("{}-{}", p.account_id, p.instrument_id)
}
