//! Transfer activities (`TradeClient.activity`'s transfer calls): money and shares moved between
//! the broker and other institutions. signet's accounts are funded when they are made and move
//! nothing in or out: the list is empty and no transfer id is known, after the account's
//! ownership is checked as every account call checks it.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use signet_model::ErrorCode;
use signet_model::assets::{Transfer, TransferPage};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::orders::{AccountDenied, AccountParam};
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams, given};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list)).routes(routes!(get))
}

#[derive(Debug, Deserialize)]
struct Params {
    account_id: Option<String>,
    transfer_id: Option<String>,
}

async fn check_account(state: &AppState, caller: &Caller, p: &Params) -> Result<(), ApiError> {
    let id = given(p.account_id.as_deref()).ok_or_else(|| ApiError::illegal_parameter("account_id is required"))?;
    state.accounts().owned_by(&caller.app_key, id).await?;
    Ok(())
}

/// The account's transfers, newest first: none in signet. The filters the client sends
/// (`transfer_method`, `direction`, `status`, `acats_transfer_types`, times, `pagination_key`)
/// are accepted.
#[utoipa::path(
    get, path = "/trading/activities/transfer-activities/list", tag = "trading",
    operation_id = "transferActivities", summary = "Transfer activities",
    params(AccountParam),
    responses((status = 200, description = "The account's transfers (none)", body = TransferPage), AccountDenied)
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<TransferPage>, ApiError> {
    check_account(&state, &caller, &p).await?;
    Ok(Json(TransferPage {
        data: Vec::new(),
        pagination_key: None,
    }))
}

/// TRANSFER_NOT_FOUND: no transfer of the account has this id
#[derive(utoipa::IntoResponses)]
#[response(status = 404)]
pub struct TransferNotFound(pub signet_model::ErrorBody);

/// One transfer of the account: signet has none, so every id is 404 `TRANSFER_NOT_FOUND`.
#[utoipa::path(
    get, path = "/trading/activities/transfer-activities/get", tag = "trading",
    operation_id = "transferActivity", summary = "Transfer activity",
    params(AccountParam, ("transfer_id" = String, Query, description = "The transfer's id")),
    responses((status = 200, description = "The transfer", body = Transfer), AccountDenied, TransferNotFound)
)]
async fn get(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Transfer>, ApiError> {
    check_account(&state, &caller, &p).await?;
    let id = given(p.transfer_id.as_deref()).ok_or_else(|| ApiError::illegal_parameter("transfer_id is required"))?;
    Err(ApiError::new(
        ErrorCode::TransferNotFound,
        format!("no transfer of this account has the transfer_id {id:?}: signet moves no money between institutions"),
    ))
}
