//! The start-up calls of the official clients (catalog section 2): the config call, and the
//! token mechanism that `--require-token` switches on.
//!
//! A created token stays `PENDING` until the account holder approves it, which here is
//! `signet admin tokens approve`. Tokens are stored only as their SHA-256.

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use sha2::{Digest, Sha256};
use signet_model::headers::ACCESS_TOKEN;
use signet_model::{ConfigResponse, ErrorCode, TokenRequest, TokenResponse, TokenStatus};
use signet_store::TokenRecord;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::Caller;
use crate::extract::JsonBody;
use crate::secrets::random_hex;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(config))
        .routes(routes!(create))
        .routes(routes!(check))
}

const CONFIG: &str = "/openapi/config";
const CREATE: &str = "/auth/tokens/create";
const CHECK: &str = "/auth/tokens/check";

/// Longer tokens are refused without a database read.
const MAX_TOKEN_LEN: usize = 256;

/// The calls a client makes before it has a token.
pub(crate) fn is_exempt(path: &str) -> bool {
    matches!(path, CONFIG | CREATE | CHECK)
}

pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

fn now_ms() -> i64 {
    signet_domain::simulator::clock::wall_clock_ms()
}

#[utoipa::path(
    get, path = CONFIG, tag = "start-up",
    operation_id = "getConfig", summary = "Get config",
    responses((status = 200, description = "Whether calls need a token", body = ConfigResponse))
)]
async fn config(State(state): State<AppState>) -> Json<ConfigResponse> {
    Json(ConfigResponse {
        token_check_enabled: state.config.require_token,
    })
}

/// Returns the client's saved token while it is still pending or approved, else a new one.
#[utoipa::path(
    post, path = CREATE, tag = "start-up",
    operation_id = "createToken", summary = "Create token", request_body = TokenRequest,
    responses(
        (status = 200, description = "The saved token while pending or approved, else a new PENDING one", body = TokenResponse),
    )
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<TokenRequest>,
) -> Result<Json<TokenResponse>, ApiError> {
    let now = now_ms();
    if let Some(token) = request.token.filter(|t| !t.is_empty() && t.len() <= MAX_TOKEN_LEN)
        && let Some(record) = state.store.token(&hash_token(&token)).await?
        && record.app_key == *caller.app_key
    {
        let status = record.status_at(now);
        if matches!(status, TokenStatus::Pending | TokenStatus::Normal) {
            return Ok(Json(TokenResponse {
                token,
                expires: record.expires_at,
                status,
            }));
        }
    }
    let token = random_hex::<16>()?;
    let record = TokenRecord {
        token_hash: hash_token(&token),
        token_hint: token[..6].to_owned(),
        app_key: caller.app_key.clone(),
        status: TokenStatus::Pending,
        created_at: now,
        expires_at: now + signet_domain::times::millis(state.config.token_ttl),
    };
    state.store.create_token(&record).await?;
    tracing::info!(app_key = %caller.app_key, "token created, pending approval (signet admin tokens approve --app)");
    Ok(Json(TokenResponse {
        token,
        expires: record.expires_at,
        status: TokenStatus::Pending,
    }))
}

/// The status of a token; unknown tokens and other apps' tokens are `INVALID`.
#[utoipa::path(
    post, path = CHECK, tag = "start-up",
    operation_id = "checkToken", summary = "Check token", request_body = TokenRequest,
    responses((status = 200, description = "The token's status", body = TokenResponse))
)]
async fn check(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<TokenRequest>,
) -> Result<Json<TokenResponse>, ApiError> {
    let token = request
        .token
        .filter(|t| !t.is_empty() && t.len() <= MAX_TOKEN_LEN)
        .ok_or_else(|| ApiError::illegal_parameter(r#"the body must carry the token to check: {"token": "..."}"#))?;
    let record = state
        .store
        .token(&hash_token(&token))
        .await?
        .filter(|r| r.app_key == *caller.app_key);
    let (expires, status) = match record {
        Some(r) => (r.expires_at, r.status_at(now_ms())),
        None => (0, TokenStatus::Invalid),
    };
    Ok(Json(TokenResponse { token, expires, status }))
}

/// With `--require-token`: the request carries an approved, unexpired token of its own app.
pub(crate) async fn require_token(
    state: &AppState,
    app_key: &str,
    headers: &HeaderMap,
    now_ms: i64,
) -> Result<(), ApiError> {
    let refused = || {
        ApiError::new(
            ErrorCode::InvalidToken,
            "x-access-token is missing or not an approved token of this app: create one with POST /auth/tokens/create and have it approved",
        )
    };
    let token = headers
        .get(ACCESS_TOKEN)
        .and_then(|v| v.to_str().ok())
        .filter(|t| !t.is_empty() && t.len() <= MAX_TOKEN_LEN)
        .ok_or_else(refused)?;
    match state.store.token(&hash_token(token)).await? {
        Some(r) if r.app_key == app_key && r.status_at(now_ms) == TokenStatus::Normal => Ok(()),
        _ => Err(refused()),
    }
}
