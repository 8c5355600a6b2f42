//! The baseline of the authentication benchmark (B0), compiled only with the
//! `benchmark-no-auth` feature: the caller is the app named by `x-app-key`, unverified, so that
//! what is left is the server's cost without section 5's checks.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use signet_model::ErrorCode;

use crate::error::ApiError;
use crate::extract::Caller;
use crate::state::AppState;

pub async fn unverified(state: AppState, mut request: Request, next: Next) -> Result<Response, ApiError> {
    let app_key = request
        .headers()
        .get("x-app-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let app = state
        .apps
        .active(&app_key)
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::Unauthorized, "unknown or revoked x-app-key"))?;
    request.extensions_mut().insert(Caller {
        app_key: app.app_key.clone(),
        user_id: app.user_id.clone(),
        admin: app.admin,
        version: Default::default(),
    });
    Ok(next.run(request).await)
}
