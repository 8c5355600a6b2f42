//! Prometheus metrics: what an operator watches. Each server has its own registry (several
//! servers in one test process keep their counts apart), served at `GET /metrics`, or only on
//! `--metrics-listen` when that is set.
//!
//! Labels are bounded: routes are the router's path templates (every unknown path is
//! `unmatched`), codes and statuses come from closed enums.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use signet_model::ErrorCode;

use crate::app::AppState;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: Route,
    method: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: Route,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CodeLabels {
    error_code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatusLabels {
    status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ScopeLabels {
    scope: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LegacyLabels {
    kind: &'static str,
}

/// What a request used of `--compat legacy`, counted so that an operator sees who still needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legacy {
    /// `x-version: v2` on a call the spec retired.
    VersionV2,
    /// An HMAC-SHA1 signature over an MD5 body digest.
    HmacSha1,
    /// A string to sign percent-encoded as Java's `URLEncoder` does (`*` kept, `~` encoded).
    JavaUrlEncoding,
    /// A retired path ([`crate::legacy::PATHS`]).
    Path,
}

impl Legacy {
    fn label(self) -> &'static str {
        match self {
            Legacy::VersionV2 => "x_version_v2",
            Legacy::HmacSha1 => "hmac_sha1",
            Legacy::JavaUrlEncoding => "java_url_encoding",
            Legacy::Path => "legacy_path",
        }
    }
}

/// The router's path template of the route that answered (shared, not copied: this is done for
/// every request), carried out to [`record`] in the response, since the signed routes are routed
/// inside a fallback, where the outer layer cannot see.
#[derive(Clone, Debug)]
enum Route {
    Matched(MatchedPath),
    Unmatched,
}

impl Route {
    fn as_str(&self) -> &str {
        match self {
            Route::Matched(path) => path.as_str(),
            Route::Unmatched => "unmatched",
        }
    }
}

impl PartialEq for Route {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Route {}

impl std::hash::Hash for Route {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl EncodeLabelValue for Route {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        std::fmt::Write::write_str(encoder, self.as_str())
    }
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram>,
    rejections: Family<CodeLabels, Counter>,
    rate_limited: Family<ScopeLabels, Counter>,
    legacy: Family<LegacyLabels, Counter>,
    fills: Counter,
    orders: Family<StatusLabels, Gauge>,
    nonces: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let requests = Family::default();
        // 0.25 ms to about 8 s.
        let latency = Family::<RouteLabels, Histogram>::new_with_constructor(latency_histogram as fn() -> Histogram);
        let rejections = Family::default();
        let rate_limited = Family::default();
        let legacy = Family::default();
        let fills = Counter::default();
        let orders = Family::default();
        let nonces = Gauge::default();
        let mut registry = Registry::with_prefix("signet");
        registry.register(
            "requests",
            "HTTP requests answered, by route, method and status",
            requests.clone(),
        );
        registry.register(
            "request_duration_seconds",
            "Time from a request's head to its answer, by route",
            latency.clone(),
        );
        registry.register("rejections", "Requests refused, by error_code", rejections.clone());
        registry.register(
            "rate_limit_refusals",
            "Requests refused by a rate limit: per app key (app) or per client address (address)",
            rate_limited.clone(),
        );
        registry.register(
            "legacy_acceptances",
            "Requests accepted only because of --compat legacy, by what they needed",
            legacy.clone(),
        );
        registry.register(
            "fills",
            "Fills the paper-trading engine of this node applied",
            fills.clone(),
        );
        registry.register(
            "orders",
            "Orders in the database by status, read when the metrics are scraped",
            orders.clone(),
        );
        registry.register(
            "nonces_stored",
            "Nonces the nonce store holds, read at each purge (--nonce-purge-interval)",
            nonces.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            rejections,
            rate_limited,
            legacy,
            fills,
            orders,
            nonces,
        }
    }
}

fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

impl Metrics {
    pub fn fill(&self) {
        self.fills.inc();
    }

    pub fn legacy(&self, what: Legacy) {
        self.legacy.get_or_create(&LegacyLabels { kind: what.label() }).inc();
    }

    /// A refusal by the per-app limit (`app`) or the per-address one (`address`).
    pub fn rate_limited(&self, scope: &'static str) {
        self.rate_limited.get_or_create(&ScopeLabels { scope }).inc();
    }

    pub fn set_nonces_stored(&self, count: u64) {
        self.nonces.set(count as i64);
    }

    fn answered(
        &self,
        route: Route,
        method: &'static str,
        status: StatusCode,
        code: Option<ErrorCode>,
        took: Duration,
    ) {
        self.latency
            .get_or_create(&RouteLabels { route: route.clone() })
            .observe(took.as_secs_f64());
        self.requests
            .get_or_create(&RequestLabels {
                route,
                method,
                status: status.as_u16(),
            })
            .inc();
        if let Some(code) = code {
            self.rejections
                .get_or_create(&CodeLabels {
                    error_code: code.as_str(),
                })
                .inc();
        }
    }

    /// The text exposition format (OpenMetrics).
    pub fn encode(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry).expect("writing to a String");
        text
    }
}

/// The outermost layer: counts and times every answer, the refusals of the layers inside it too.
pub async fn record(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_label(request.method());
    let matched = request.extensions().get::<MatchedPath>().cloned().map(Route::Matched);
    let response = next.run(request).await;
    let route = response
        .extensions()
        .get::<Route>()
        .cloned()
        .or(matched)
        .unwrap_or(Route::Unmatched);
    let code = response.extensions().get::<ErrorCode>().copied();
    metrics.answered(route, method, response.status(), code, started.elapsed());
    response
}

/// The methods the interface uses; any other is `OTHER`, so that clients cannot add labels.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        _ => "OTHER",
    }
}

/// Inside the signed router, where the route is known: hands its template out to [`record`].
pub async fn tag_route(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().cloned().map(Route::Matched);
    let mut response = next.run(request).await;
    if let Some(route) = route {
        response.extensions_mut().insert(route);
    }
    response
}

/// `GET /metrics`: unsigned, like `/health`. Counts that need the database are read now.
#[utoipa::path(
    get,
    path = "/metrics",
    operation_id = "metrics",
    summary = "Prometheus metrics",
    tag = "service",
    description = "Prometheus metrics in the OpenMetrics text format, unsigned. Served here only when the server runs without `--metrics-listen` (with it, on that address only).",
    responses((status = 200, description = "The metrics", content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8", body = String))
)]
pub async fn scrape(State(state): State<AppState>) -> Response {
    let counted = tokio::time::timeout(Duration::from_secs(2), state.store.order_counts()).await;
    match counted {
        Ok(Ok(counts)) => {
            for (status, count) in counts {
                state.metrics.orders.get_or_create(&StatusLabels { status }).set(count);
            }
        }
        Ok(Err(e)) => tracing::warn!(error = %e, "counting orders for the metrics failed"),
        Err(_) => tracing::warn!("counting orders for the metrics took over 2 s"),
    }
    let mut response = state.metrics.encode().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    response
}
