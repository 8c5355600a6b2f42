//! The admin API under `/admin/`: signed calls, only for apps created with `--admin`, that drive
//! the sandbox itself rather than an account (the market simulator: [`market`]; the scenario
//! rules: [`scenarios`]; accounts started over: [`accounts`]; checkpoints of the whole sandbox:
//! [`checkpoints`]). `signet market`, `signet scenarios`, `signet accounts reset`, `signet
//! checkpoint` and the console call them.

pub mod accounts;
pub mod checkpoints;
pub mod market;
pub mod scenarios;

use signet_model::{ErrorBody, ErrorCode};
use utoipa::IntoResponses;
use utoipa_axum::router::OpenApiRouter;

use crate::error::ApiError;
use crate::extract::Caller;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(market::routes())
        .merge(scenarios::routes())
        .merge(accounts::routes())
        .merge(checkpoints::routes())
}

/// PERMISSION_DENIED: the calling app was not created with --admin
#[derive(IntoResponses)]
#[response(status = 403)]
pub struct AdminOnly(pub ErrorBody);

fn require_admin(caller: &Caller) -> Result<(), ApiError> {
    if caller.admin {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::PermissionDenied,
            "the sandbox's controls (/admin/) need an app created with --admin",
        ))
    }
}
