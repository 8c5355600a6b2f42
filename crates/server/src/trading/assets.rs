//! An account's balance and positions (catalog 10.1 and 10.2), valued at the simulator's last
//! prices, the ones placement prices positions at.

// utoipa expands a `responses(T)` of an `IntoResponses` type with a path the lint finds longer
// than needed.
#![allow(unused_qualifications)]

use axum::Json;
use axum::extract::State;
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::trading::buying_power;
use signet_domain::trading::valuation::{self, Valued};
use signet_model::assets::{AccountBalance, CurrencyAssets, Position};
use signet_store::PositionRecord;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::orders::{AccountDenied, AccountParam, account, last_price, standing};
use crate::app::AppState;
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(balance)).routes(routes!(positions))
}

#[derive(Debug, Deserialize)]
struct Params {
    account_id: Option<String>,
}

/// The account's stored positions, each valued at the last price now.
struct Holdings {
    account_currency: String,
    cash: Decimal,
    buying_power: Decimal,
    positions: Vec<(PositionRecord, Valued)>,
}

async fn holdings(state: &AppState, caller: &Caller, p: &Params) -> Result<Holdings, ApiError> {
    let id = p
        .account_id
        .as_deref()
        .ok_or_else(|| ApiError::illegal_parameter("account_id is required"))?;
    let account = account(state, caller, id).await?;
    let (standing, positions) = standing(state, &account.account_id, None).await?;
    let now = state.market.now_ms();
    let positions = positions
        .into_iter()
        .map(|p| {
            let valued = valuation::value(p.holding, last_price(state, p.instrument_id, now));
            (p, valued)
        })
        .collect();
    let cash = standing.cash;
    // Before any new order: the buying power placement checks a buy against.
    let buying_power = buying_power::check(standing, &[], None)?.before;
    Ok(Holdings {
        account_currency: account.currency,
        cash,
        buying_power,
        positions,
    })
}

fn amount(d: Decimal) -> String {
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
async fn balance(
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
async fn positions(
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
                symbol: p.symbol,
                quantity: amount(v.quantity),
                currency: currency.clone(),
                instrument_type: "EQUITY".into(),
                option_strategy: "SINGLE".into(),
                cost_price: amount(v.average_cost),
                last_price: amount(v.price),
                market_value: amount(v.market_value),
                unrealized_profit_loss: amount(v.unrealized),
                unrealized_profit_loss_rate: amount(v.unrealized_rate),
                instrument_id: p.instrument_id.to_string(),
                legs: Vec::new(),
            })
            .collect(),
    ))
}

/// A position is the account's holding of one instrument: named by both.
fn position_id(p: &PositionRecord) -> String {
    format!("{}-{}", p.account_id, p.instrument_id)
}
