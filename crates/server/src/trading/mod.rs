//! The trading area: accounts, orders (the engine that fills them is the `engine` module), the
//! account's balance, positions and executions, and the instrument lookup.

pub(crate) mod accounts;
pub mod activities;
pub(crate) mod assets;
mod calendar;
mod executions;
pub(crate) mod instruments;
mod option_orders;
pub mod orders;

use signet_model::ids::AccountId;
use signet_store::AccountRecord;
use utoipa_axum::router::OpenApiRouter;

use crate::error::ApiError;
use crate::extract::Caller;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    accounts::routes()
        .merge(orders::routes())
        .merge(option_orders::routes())
        .merge(assets::routes())
        .merge(executions::routes())
        .merge(instruments::routes())
        .merge(calendar::routes())
        .merge(activities::routes())
}

/// The retired trading paths, mounted only under `--compat legacy`.
pub fn legacy_routes() -> OpenApiRouter<AppState> {
    assets::legacy_routes().merge(activities::legacy_routes())
}

/// The account a call's `account_id` names, if it is the calling app's: 400 when absent,
/// 403 `ACCOUNT_NOT_FOUND_OR_DENIED` otherwise (whether it exists or not).
pub(crate) async fn account_of(
    state: &AppState,
    caller: &Caller,
    account_id: Option<&str>,
) -> Result<AccountRecord, ApiError> {
    let id = account_id.ok_or_else(|| ApiError::illegal_parameter("account_id is required"))?;
    Ok(state.accounts().owned_by(&caller.app_key, &AccountId::from(id)).await?)
}
