//! The scenario rules at the HTTP door ([`signet_core::scenarios`]): a layer behind the
//! authentication layer opens each signed request's [`RequestScope`], answers a request a rule
//! faults (`status`) instead of its handler, and marks every answer a rule touched
//! (`x-signet-scenario`, the metrics, the log). An answer a rule drops (`drop_answer`) is
//! marked [`DropAnswer`]; the connection's service closes the connection instead of sending it.
//! The admin API is never touched.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use signet_core::scenarios::RequestScope;
use signet_domain::scenarios::{Facts, Outcome, Stage};

use crate::error::ApiError;
use crate::extract::Caller;
use crate::state::AppState;

/// On an answer a rule drops: the order was stored, the connection is closed without it.
#[derive(Debug, Clone, Copy)]
pub struct DropAnswer;

pub async fn apply(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.uri().path().starts_with("/admin/") || state.scenarios.idle() {
        return next.run(request).await;
    }
    let path = request.uri().path().to_owned();
    let app = request.extensions().get::<Caller>().map(|c| c.app_key.clone());
    let scope = RequestScope {
        path: path.clone(),
        app: app.clone(),
        touched: Vec::new(),
    };
    let answer = async {
        let facts = Facts {
            path: &path,
            app: app.as_ref(),
            time_ms: state.simulator.now_ms(),
            order: None,
            stream: None,
        };
        match state.scenarios.decide(Stage::Request, &facts).await {
            Ok(Some(injected)) if matches!(injected.outcome, Outcome::Status { .. }) => {
                ApiError::injected(injected).into_response()
            }
            Ok(_) => next.run(request).await,
            Err(e) => ApiError::from(e).into_response(),
        }
    };
    let (mut response, scope) = scope.run(answer).await;
    if scope.touched.is_empty() {
        return response;
    }
    let delay = scope.touched.iter().map(|i| i.delay_ms).max().unwrap_or(0);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    for injected in &scope.touched {
        state.metrics.scenario_hit(&injected.rule);
        if let Ok(name) = HeaderValue::from_str(&injected.rule) {
            response.headers_mut().append(signet_model::headers::SCENARIO, name);
        }
    }
    let dropped = scope.touched.iter().any(|i| i.outcome == Outcome::DropAnswer);
    if dropped && response.status().is_success() {
        tracing::info!(path = %path, "a scenario rule drops this answer: the connection closes without it");
        response.extensions_mut().insert(DropAnswer);
    }
    response
}
