//! The router: unsigned probes, then the authentication layer in front of every area, with
//! answers for unknown and retired paths.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use signet_model::ErrorCode;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use signet_core::checkpoints::Gate;

use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::state::AppState;

/// `/health` and `/openapi.json`: unsigned.
fn probes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(health))
        .routes(routes!(openapi_json))
}

/// `/metrics`: unsigned, on the main address or alone on `--metrics-listen`.
fn metrics() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(scrape))
}

/// The signed operations of the interface, area by area (the legacy paths are in
/// [`legacy`]).
fn signed() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(crate::tokens::routes())
        .merge(crate::trading::routes())
        .merge(crate::generations::routes())
        .merge(crate::marketdata::screeners::routes())
        .merge(crate::marketdata::watchlists::routes())
        .merge(crate::marketdata::fundamentals::routes())
        .merge(crate::marketdata::stocks::routes())
        .merge(crate::marketdata::options::routes())
        .merge(crate::marketdata::end_of_day::routes())
        .merge(crate::marketdata::streaming::routes())
        .merge(crate::admin_api::routes())
}

/// The legacy paths' routes ([`crate::generations::compat`]), mounted only in legacy mode (and documented,
/// as deprecated, always).
fn legacy() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(crate::marketdata::screeners::legacy_routes())
        .merge(crate::marketdata::fundamentals::legacy_routes())
        .merge(crate::generations::legacy_routes())
        .merge(crate::trading::instruments::legacy_routes())
        .merge(crate::trading::legacy_routes())
}

/// What a server started with a configuration mounts, each route with its OpenAPI entry.
pub struct Mounted {
    /// Served before authentication: the probes, and `/metrics` when it is served here (not off,
    /// and not on `--metrics-listen`'s own address).
    pub unsigned: OpenApiRouter<AppState>,
    /// Behind the authentication layer: the interface, and the legacy paths under
    /// `--compat legacy`.
    pub signed: OpenApiRouter<AppState>,
}

pub fn mounted(config: &ServerConfig) -> Mounted {
    let mut unsigned = probes();
    if config.metrics && config.metrics_listen.is_none() {
        unsigned = unsigned.merge(metrics());
    }
    let signed = match config.compat {
        crate::generations::compat::Compat::Legacy => signed().merge(legacy()),
        crate::generations::compat::Compat::Strict => signed(),
    };
    Mounted { unsigned, signed }
}

/// Every operation a server may mount, with its OpenAPI entry: what [`crate::openapi`]
/// describes. The legacy paths are among them although only `--compat legacy` mounts them.
pub fn documented_routes() -> utoipa::openapi::OpenApi {
    probes().merge(metrics()).merge(signed()).merge(legacy()).into_openapi()
}

/// The interface's OpenAPI document ([`crate::openapi`]), of every route a server may mount.
pub fn openapi_document() -> serde_json::Value {
    crate::openapi::document(documented_routes())
}

pub fn router(state: AppState) -> Router {
    let Mounted { unsigned, signed } = mounted(&state.config);
    let metrics = crate::metrics::layers(&state.metrics, &state.config);
    let signed = Router::from(signed)
        .fallback(unknown_path)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), crate::scenarios::apply))
        // After the signature, so that a caller that sends slowly holds no restore up.
        .layer(middleware::from_fn_with_state(state.gate.clone(), pass_gate))
        .layer(middleware::from_fn_with_state(state.clone(), crate::auth::authenticate))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::auth::limit_addresses,
        ))
        .layer(tower::util::option_layer(metrics.as_ref().map(|(_, tag)| tag.clone())))
        .layer(tower::util::option_layer(state.console.clone().map(|console| {
            middleware::from_fn_with_state(console.requests.clone(), crate::console::requests::record)
        })))
        .with_state(state.clone());

    let mut unsigned = Router::from(unsigned);
    if state.console.is_some() {
        // Its session is checked before a form is read, so a stranger holds the gate no time.
        unsigned = unsigned
            .merge(crate::console::router().layer(middleware::from_fn_with_state(state.gate.clone(), pass_gate)));
    }
    let http = unsigned.with_state(state.clone()).fallback_service(signed);
    // gRPC (the trade-events subscription) on the same address: told apart by its content type,
    // once past the guards every request passes.
    let events = state.clone();
    let split = Router::new().fallback_service(tower::service_fn(move |request: Request| {
        let (http, events) = (http.clone(), events.clone());
        async move {
            if crate::grpc::is_grpc(&request) {
                Ok(crate::grpc::handle(events, request).await)
            } else {
                tower::ServiceExt::oneshot(http, request).await
            }
        }
    }));
    guarded(&state, split)
}

/// The subscription alone, for `--events-listen`: anything but gRPC is answered 404.
pub fn events_router(state: AppState) -> Router {
    let events = state.clone();
    let only = Router::new().fallback_service(tower::service_fn(move |request: Request| {
        let state = events.clone();
        async move {
            Ok::<_, std::convert::Infallible>(if crate::grpc::is_grpc(&request) {
                crate::grpc::handle(state, request).await
            } else {
                ApiError::not_found("this address serves the trade-events subscription (gRPC) only").into_response()
            })
        }
    }));
    guarded(&state, only)
}

/// What every request passes first, HTTP or gRPC: the metrics, a request id (answered in
/// `x-request-id`), a trace span, the panic catcher, and the limits on the head's size.
fn guarded(state: &AppState, inner: Router) -> Router {
    let request_id = HeaderName::from_static(signet_model::headers::REQUEST_ID);
    inner.layer(
        ServiceBuilder::new()
            .option_layer(crate::metrics::layers(&state.metrics, &state.config).map(|(record, _)| record))
            .layer(SetRequestIdLayer::new(request_id.clone(), MakeRequestUuid))
            .layer(TraceLayer::new_for_http().make_span_with(|request: &Request| {
                let id = request.headers().get(signet_model::headers::REQUEST_ID).and_then(|v| v.to_str().ok());
                tracing::info_span!("request", method = %request.method(), path = %request.uri().path(), request_id = id, app_key = tracing::field::Empty)
            }))
            .layer(PropagateRequestIdLayer::new(request_id))
            .layer(CatchPanicLayer::custom(|_| {
                ApiError::internal("a handler panicked").into_response()
            }))
            .layer(middleware::from_fn_with_state(
                HeadLimits {
                    target: state.config.max_uri_bytes,
                    headers: state.config.max_header_bytes,
                },
                limit_head,
            )),
    )
}

/// Paths served while a checkpoint is restored: the checkpoints' own calls (a restore holds the
/// gate closed) and the health check.
fn served_while_restoring(path: &str) -> bool {
    path == "/health" || path.starts_with("/admin/checkpoints/") || path.starts_with("/console/checkpoints")
}

/// Refuses every call with 503 `RESTORING` while a checkpoint is restored; otherwise holds the
/// gate open until the call's answer (its head, for a stream) is ready, so that a restore waits
/// for the calls under way, or cuts them short after [`signet_core::checkpoints::GRACE`].
async fn pass_gate(State(gate): State<Gate>, request: Request, next: middleware::Next) -> Response {
    if served_while_restoring(request.uri().path()) {
        return next.run(request).await;
    }
    let Some(mut pass) = gate.enter() else {
        return restoring("a checkpoint is being restored; retry in a moment");
    };
    tokio::select! {
        answer = next.run(request) => answer,
        () = pass.cut_off() => restoring(
            "a checkpoint restore cut this call short: what it did may or may not have been kept; check, then retry",
        ),
    }
}

/// 503 `RESTORING`, to be retried after a second.
fn restoring(message: &'static str) -> Response {
    let mut refused = ApiError::new(ErrorCode::Restoring, message).into_response();
    refused.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(1));
    refused
}

/// The sizes of a request's head that [`limit_head`] holds it to.
#[derive(Debug, Clone, Copy)]
struct HeadLimits {
    /// The request target (path and query), in bytes.
    target: usize,
    /// Header names and values together, in bytes.
    headers: usize,
}

/// Refuses a request target (path and query) or headers over their limits, before any other
/// work: the console's ring, the trace span and the string to sign would otherwise hold or copy
/// them.
async fn limit_head(State(limits): State<HeadLimits>, request: Request, next: middleware::Next) -> Response {
    let target = request.uri().path_and_query().map_or(0, |target| target.as_str().len());
    if target > limits.target {
        return ApiError::new(
            ErrorCode::UriTooLong,
            format!(
                "the request's path and query are {target} bytes long; at most {} are accepted",
                limits.target
            ),
        )
        .into_response();
    }
    let headers: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if headers > limits.headers {
        return ApiError::new(
            ErrorCode::HeadersTooLarge,
            format!(
                "the request's headers add up to {headers} bytes; at most {} are accepted",
                limits.headers
            ),
        )
        .into_response();
    }
    next.run(request).await
}

/// What `--metrics-listen` serves: the metrics alone.
pub fn metrics_router(state: AppState) -> Router {
    Router::from(metrics()).with_state(state)
}

/// Unsigned readiness probe: 200 when the database answers.
#[utoipa::path(
    get, path = "/health", tag = "service",
    operation_id = "health", summary = "Readiness probe",
    responses(
        (status = 200, description = "The database answers", body = inline(crate::openapi::Health)),
        (status = 503, description = "SERVICE_NOT_AVAILABLE: the database does not answer within 2 s", body = signet_model::ErrorBody),
    )
)]
async fn health(State(state): State<AppState>) -> Response {
    match tokio::time::timeout(Duration::from_secs(2), state.store.ping()).await {
        Ok(Ok(())) => (StatusCode::OK, Json(serde_json::json!({"status": "ok"}))).into_response(),
        _ => ApiError::new(ErrorCode::ServiceNotAvailable, "the database does not answer").into_response(),
    }
}

/// Unsigned: this interface's OpenAPI document (the same as `docs/openapi.json`).
#[utoipa::path(
    get, path = "/openapi.json", tag = "service",
    operation_id = "openapi", summary = "This OpenAPI document",
    responses(
        (status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json", body = Object),
    )
)]
async fn openapi_json() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        crate::openapi::json(documented_routes),
    )
        .into_response()
}

/// `GET /metrics`: unsigned, like `/health`. Counts that need the database are read now, unless a
/// scrape read them less than a second ago.
#[utoipa::path(
    get,
    path = "/metrics",
    operation_id = "metrics",
    summary = "Prometheus metrics",
    tag = "service",
    description = "Prometheus metrics in the OpenMetrics text format, unsigned. Served here when the server listens on a loopback address (`--metrics auto`, the default) or runs with `--metrics on`, and never with `--metrics-listen`, which serves them on its own address only.",
    responses((status = 200, description = "The metrics", content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8", body = String))
)]
pub async fn scrape(State(state): State<AppState>) -> Response {
    state.metrics.count_orders(state.store.as_ref()).await;
    let mut response = state.metrics.encode().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    response
}

/// Areas the interface no longer offers (spec section 1; catalog section 10).
const RETIRED: [(&str, &str); 9] = [
    ("/market-data/futures/", "futures market data"),
    ("/market-data/crypto/", "crypto market data"),
    ("/market-data/event-contracts/", "event market data"),
    ("/openapi/instrument/futures/", "futures instruments"),
    ("/openapi/instrument/crypto/", "crypto instruments"),
    ("/openapi/instrument/event/", "event instruments"),
    ("/trading/instruments/futures/", "futures instruments"),
    ("/trading/instruments/crypto/", "crypto instruments"),
    ("/trading/instruments/event-contracts/", "event instruments"),
];

async fn unknown_path(method: Method, request: Request) -> ApiError {
    let path = request.uri().path();
    if let Some((_, what)) = RETIRED.iter().find(|(prefix, _)| path.starts_with(prefix)) {
        return ApiError::new(
            ErrorCode::NoLongerOffered,
            format!(
                "{what} are no longer offered: futures, crypto and event market data were removed from the interface"
            ),
        );
    }
    if let Some(retired) = crate::generations::compat::replacement(path) {
        return ApiError::not_found(format!(
            "{path} is a retired path, served only by a server started with --compat legacy; the current call is {} {}",
            retired.current_method, retired.current
        ));
    }
    let shown: String = path.chars().take(100).collect();
    ApiError::not_found(format!("no operation {method} {shown}"))
}

async fn method_not_allowed(method: Method) -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("this path does not accept {method}"),
    )
}
