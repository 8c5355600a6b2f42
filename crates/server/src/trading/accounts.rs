use axum::Json;
use axum::extract::State;
use signet_model::Account;
use signet_store::AccountRecord;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::Caller;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// The calling app's accounts, as a JSON array (spec section 4).
#[utoipa::path(
    get, path = "/trading/accounts/list", tag = "trading",
    operation_id = "listAccounts", summary = "List accounts",
    responses((status = 200, description = "The calling app's accounts", body = Vec<Account>))
)]
pub(crate) async fn list(State(state): State<AppState>, caller: Caller) -> Result<Json<Vec<Account>>, ApiError> {
    let accounts = state.accounts().of_app(&caller.app_key).await?;
    Ok(Json(accounts.iter().map(|a| to_wire(a, &caller.user_id)).collect()))
}

fn to_wire(a: &AccountRecord, user_id: &str) -> Account {
    Account {
        account_id: a.account_id.to_string(),
        account_type: a.account_type,
        account_class: a.account_type.class(),
        account_label: a.account_label.clone(),
        user_id: user_id.to_owned(),
    }
}
