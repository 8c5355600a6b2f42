//! Accounts started over (`signet accounts reset`): a test run's known state for one account,
//! without a new account id or new app keys.

use axum::Json;
use axum::extract::State;
use rust_decimal::Decimal;
use signet_model::ErrorCode;
use signet_model::accounts::{ResetAccountRequest, ResetAccountView};
use signet_model::ids::AccountId;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{AdminOnly, require_admin};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;

/// The most cash an account may start over with.
const MAX_CASH: u64 = 10_000_000_000;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(reset))
}

#[utoipa::path(
    post, path = "/admin/accounts/reset", tag = "accounts",
    operation_id = "accountReset", summary = "Start an account over",
    description = "Removes the account's orders (open ones included) with their fills and events, its positions and \
        the splits and dividends applied to them, and sets its cash: to `cash`, or to its opening cash (its first \
        deposit). Its id, type and app, and the app's keys, stay. Other accounts are untouched. One transaction, in \
        the account's turn, on every node.",
    request_body = ResetAccountRequest,
    responses(
        (status = 200, description = "The account as it starts over", body = ResetAccountView),
        (status = 400, description = "ILLEGAL_PARAMETER: cash is not an amount from 0 to 10,000,000,000", body = signet_model::ErrorBody),
        (status = 404, description = "NOT_FOUND: no account has this id", body = signet_model::ErrorBody),
        AdminOnly,
    )
)]
async fn reset(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<ResetAccountRequest>,
) -> Result<Json<ResetAccountView>, ApiError> {
    require_admin(&caller)?;
    let account_id = AccountId::from(request.account_id);
    let not_found = || ApiError::new(ErrorCode::NotFound, format!("no account has the id {account_id:?}"));
    if state.accounts().find(&account_id).await?.is_none() {
        return Err(not_found());
    }
    let cash = match request.cash.as_deref() {
        Some(text) => text
            .parse::<Decimal>()
            .ok()
            .filter(|cash| !cash.is_sign_negative() && *cash <= Decimal::from(MAX_CASH))
            .ok_or_else(|| ApiError::illegal_parameter("cash is an amount from 0 to 10,000,000,000"))?,
        None => state.accounts().opening_cash(&account_id).await?,
    };
    if !state.orders().reset_account(&account_id, cash).await? {
        return Err(not_found());
    }
    tracing::info!(account_id = %account_id, cash = %cash, "account started over");
    Ok(Json(ResetAccountView {
        account_id: account_id.into_string(),
        cash: cash.normalize().to_string(),
    }))
}
