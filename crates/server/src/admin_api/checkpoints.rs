//! `/admin/checkpoints/...`: save, restore, list and delete checkpoints of the whole sandbox
//! ([`signet_core::checkpoints`]). These calls pass the gate a restore closes.

use axum::Json;
use axum::extract::State;
use signet_domain::checkpoint::{CheckpointName, MarketState};
use signet_domain::times::format_ms;
use signet_model::ErrorCode;
use signet_model::checkpoints::{CheckpointList, CheckpointRequest, CheckpointView, RestoredView};
use signet_store::CheckpointInfo;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{AdminOnly, require_admin};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(save))
        .routes(routes!(restore))
        .routes(routes!(delete))
        .routes(routes!(adopt))
}

/// A checkpoint as the calls and the console show it.
pub fn view(info: &CheckpointInfo) -> CheckpointView {
    let market_time = MarketState::decode(&info.market).map_or_else(|_| String::new(), |m| format_ms(m.now_ms));
    CheckpointView {
        name: info.name.clone(),
        saved: format_ms(info.saved_at),
        market_time,
        schema_version: info.schema_version,
        accounts: info.accounts,
        orders: info.orders,
        bytes: info.bytes,
    }
}

pub fn name(text: &str) -> Result<CheckpointName, ApiError> {
    CheckpointName::parse(text).map_err(|e| ApiError::illegal_parameter(e.to_string()))
}

#[utoipa::path(
    get, path = "/admin/checkpoints/list", tag = "checkpoints",
    operation_id = "checkpointList", summary = "List the checkpoints",
    responses(
        (status = 200, description = "Every checkpoint, by name", body = CheckpointList),
        AdminOnly,
    )
)]
async fn list(State(state): State<AppState>, caller: Caller) -> Result<Json<CheckpointList>, ApiError> {
    require_admin(&caller)?;
    let checkpoints = state.checkpoints.list().await?;
    Ok(Json(CheckpointList {
        checkpoints: checkpoints.iter().map(view).collect(),
    }))
}

#[utoipa::path(
    post, path = "/admin/checkpoints/save", tag = "checkpoints",
    operation_id = "checkpointSave", summary = "Save the sandbox's state",
    description = "Saves the apps and their accounts and tokens, the cash, orders with their events, fills, positions, \
        watchlists, the scenario rules in force, and the simulator's clock, speed, seed and pinned quotes, as one \
        consistent copy, under `name` (replacing a checkpoint of that name). Not saved: the market data, the used \
        nonces and the console's sessions. The server goes on serving while it saves.",
    request_body = CheckpointRequest,
    responses(
        (status = 200, description = "The checkpoint as saved", body = CheckpointView),
        (status = 400, description = "ILLEGAL_PARAMETER: the name is not 1 to 48 letters, digits, - and _", body = signet_model::ErrorBody),
        AdminOnly,
    )
)]
async fn save(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<CheckpointRequest>,
) -> Result<Json<CheckpointView>, ApiError> {
    require_admin(&caller)?;
    let info = state.checkpoints.save(name(&request.name)?).await?;
    tracing::info!(checkpoint = %info.name, bytes = info.bytes, "checkpoint saved");
    Ok(Json(view(&info)))
}

#[utoipa::path(
    post, path = "/admin/checkpoints/restore", tag = "checkpoints",
    operation_id = "checkpointRestore", summary = "Return to a checkpoint",
    description = "Puts the checkpoint's state in place of the state now, in one transaction. Meanwhile every other \
        call is answered 503 RESTORING with Retry-After; then every cache starts from the restored state, and the \
        open trade-event streams and quotes sessions are ended so that their clients connect again. Other nodes on \
        the same PostgreSQL database close their gates before the state changes and do the same. Used nonces stay used.",
    request_body = CheckpointRequest,
    responses(
        (status = 200, description = "The checkpoint restored, and how long calls were refused", body = RestoredView),
        (status = 400, description = "ILLEGAL_PARAMETER: the name is not 1 to 48 letters, digits, - and _", body = signet_model::ErrorBody),
        (status = 404, description = "NOT_FOUND: no checkpoint has this name", body = signet_model::ErrorBody),
        (status = 409, description = "CHECKPOINT_UNUSABLE: damaged, made by a newer build, or sealed with another master key; nothing changed", body = signet_model::ErrorBody),
        AdminOnly,
    )
)]
async fn restore(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<CheckpointRequest>,
) -> Result<Json<RestoredView>, ApiError> {
    require_admin(&caller)?;
    let done = state.checkpoints.restore(name(&request.name)?).await?;
    Ok(Json(RestoredView {
        checkpoint: view(&done.restored.info),
        restoring_ms: u64::try_from(done.closed_for.as_millis()).unwrap_or(u64::MAX),
    }))
}

#[utoipa::path(
    post, path = "/admin/checkpoints/adopt", tag = "checkpoints",
    operation_id = "checkpointAdopt", summary = "Seal a checkpoint this server did not seal",
    description = "A checkpoint is sealed with a MAC under the server's master key when it is saved, and a restore \
        refuses one whose seal does not verify. This seals the checkpoint as it now is: one saved by a build before \
        checkpoints were sealed, or edited by hand on purpose. Everything else a restore checks is checked first, \
        the master key's fingerprint included.",
    request_body = CheckpointRequest,
    responses(
        (status = 200, description = "The checkpoint, sealed", body = CheckpointView),
        (status = 404, description = "NOT_FOUND: no checkpoint has this name", body = signet_model::ErrorBody),
        (status = 409, description = "CHECKPOINT_UNUSABLE: damaged, made by a newer build, or saved under another master key", body = signet_model::ErrorBody),
        AdminOnly,
    )
)]
async fn adopt(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<CheckpointRequest>,
) -> Result<Json<CheckpointView>, ApiError> {
    require_admin(&caller)?;
    let info = state.checkpoints.adopt(&name(&request.name)?).await?;
    tracing::warn!(checkpoint = %info.name, "checkpoint adopted: sealed as it now is");
    Ok(Json(view(&info)))
}

#[utoipa::path(
    post, path = "/admin/checkpoints/delete", tag = "checkpoints",
    operation_id = "checkpointDelete", summary = "Delete a checkpoint",
    request_body = CheckpointRequest,
    responses(
        (status = 200, description = "The checkpoint is gone", body = CheckpointRequest),
        (status = 404, description = "NOT_FOUND: no checkpoint has this name", body = signet_model::ErrorBody),
        AdminOnly,
    )
)]
async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<CheckpointRequest>,
) -> Result<Json<CheckpointRequest>, ApiError> {
    require_admin(&caller)?;
    let checkpoint = name(&request.name)?;
    if !state.checkpoints.delete(&checkpoint).await? {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no checkpoint is named {checkpoint}"),
        ));
    }
    Ok(Json(request))
}
