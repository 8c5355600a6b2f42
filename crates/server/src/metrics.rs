//! Prometheus metrics: what an operator watches. Each server has its own registry (several
//! servers in one test process keep their counts apart), served at `GET /metrics` (by default
//! only on a loopback address: see [`crate::config::ServerConfig::metrics`]), or only on
//! `--metrics-listen` when that is set.
//!
//! Labels are bounded: routes are the router's path templates (every unknown path is
//! `unmatched`), codes and statuses come from closed enums.
//!
//! A route's counters and histogram are taken from their families once, at its first answer, and
//! kept with the route's layers: an answer then costs a few atomic operations and the histogram's
//! lock instead of three label-set lookups (`scripts/bench-metrics.sh` measures what the layers
//! cost; `docs/performance.md` has the numbers).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::http::{self, Method, StatusCode};
use parking_lot::Mutex;
use pin_project_lite::pin_project;
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use signet_model::ErrorCode;
use signet_store::Store;

use crate::config::ServerConfig;

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
    /// `x-version: v1`, the earlier SDK generation, on the v1 trade calls.
    VersionV1,
    /// An HMAC-SHA1 signature over an MD5 body digest.
    HmacSha1,
    /// A string to sign percent-encoded as Java's `URLEncoder` does (`*` kept, `~` encoded).
    JavaUrlEncoding,
    /// A retired path ([`crate::generations::compat::PATHS`]).
    Path,
}

impl Legacy {
    fn label(self) -> &'static str {
        match self {
            Legacy::VersionV2 => "x_version_v2",
            Legacy::VersionV1 => "x_version_v1",
            Legacy::HmacSha1 => "hmac_sha1",
            Legacy::JavaUrlEncoding => "java_url_encoding",
            Legacy::Path => "legacy_path",
        }
    }
}

/// The router's path template of a route (shared with the router, not copied), or `unmatched`.
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

/// The methods the interface uses, as labelled; any other is `OTHER`, so that clients cannot add
/// labels.
const METHODS: [&str; 7] = ["GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "OTHER"];

fn method_index(method: &Method) -> usize {
    match *method {
        Method::GET => 0,
        Method::POST => 1,
        Method::HEAD => 2,
        Method::OPTIONS => 3,
        Method::PUT => 4,
        Method::DELETE => 5,
        _ => 6,
    }
}

/// The statuses the server answers with (its error codes' and axum's own), each with a slot in a
/// route's table; a request answered with another is counted through the family, as before.
const STATUSES: [u16; 18] = [
    200, 201, 204, 400, 401, 403, 404, 405, 408, 409, 410, 413, 415, 422, 429, 431, 500, 503,
];

/// One route's metrics, each taken from its family at the first answer that needs it and kept,
/// so that an answer looks nothing up and `/metrics` shows the same series, appearing when they
/// did when every answer looked them up.
struct RouteMetrics {
    route: Route,
    latency: OnceLock<Histogram>,
    /// By method, then status (the indexes of [`METHODS`] and [`STATUSES`]).
    requests: [[OnceLock<Counter>; STATUSES.len()]; METHODS.len()],
}

impl RouteMetrics {
    fn new(route: Route) -> Self {
        RouteMetrics {
            route,
            latency: OnceLock::new(),
            requests: [const { [const { OnceLock::new() }; STATUSES.len()] }; METHODS.len()],
        }
    }
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram>,
    rejections: Family<CodeLabels, Counter>,
    /// Each route's metrics by template, where a route's layers find them at its first request.
    routes: Mutex<HashMap<String, Arc<RouteMetrics>>>,
    unmatched: Arc<RouteMetrics>,
    /// The rejection counters by error code, in the order of [`ErrorCode::ALL`].
    rejected: [OnceLock<Counter>; ErrorCode::ALL.len()],
    rate_limited: Family<ScopeLabels, Counter>,
    legacy: Family<LegacyLabels, Counter>,
    fills: Counter,
    tick_panics: Counter,
    event_streams: Gauge,
    event_streams_cut_off: Counter,
    orders: Family<StatusLabels, Gauge>,
    /// When the orders were last counted, held by the scrape that counts them: the orders table
    /// is read at most once a [`ORDER_COUNT_INTERVAL`], however many scrapes arrive.
    orders_counted_at: tokio::sync::Mutex<Option<Instant>>,
    order_counts: Counter,
    nonces: Gauge,
    mqtt_sessions: Gauge,
    mqtt_refused: Family<ConnackLabels, Counter>,
    mqtt_sent: Counter,
    /// Messages a slow MQTT session lost to newer ones of the same symbol (its outbox's bound).
    pub mqtt_dropped: Counter,
    mqtt_unbound_closed: Family<ReasonLabels, Counter>,
    /// Answers a scenario rule touched, by rule (the rules an admin loaded: a bounded set).
    scenario_hits: Family<RuleLabels, Counter>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RuleLabels {
    rule: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ConnackLabels {
    code: u8,
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
        let tick_panics = Counter::default();
        let event_streams = Gauge::default();
        let event_streams_cut_off = Counter::default();
        let orders = Family::default();
        let order_counts = Counter::default();
        let nonces = Gauge::default();
        let (mqtt_sessions, mqtt_refused, mqtt_sent, mqtt_dropped) = (
            Gauge::default(),
            Family::default(),
            Counter::default(),
            Counter::default(),
        );
        let mqtt_unbound_closed = Family::default();
        let scenario_hits = Family::default();
        let mut registry = Registry::with_prefix("signet");
        registry.register(
            "scenario_hits",
            "Answers a scenario rule touched, by rule",
            scenario_hits.clone(),
        );
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
            "tick_panics",
            "Ticks of the market engine that panicked (a bug, logged): the next tick runs",
            tick_panics.clone(),
        );
        registry.register(
            "event_streams",
            "Order-events subscriptions (gRPC) open on this node",
            event_streams.clone(),
        );
        registry.register(
            "event_streams_cut_off",
            "Order-events subscriptions ended with UNAVAILABLE because their client fell behind",
            event_streams_cut_off.clone(),
        );
        registry.register(
            "orders",
            "Orders in the database by status, read when the metrics are scraped, at most once a second",
            orders.clone(),
        );
        registry.register(
            "order_counts",
            "Times the orders were counted by status for signet_orders",
            order_counts.clone(),
        );
        registry.register(
            "nonces_stored",
            "Nonces the nonce store holds, read at each purge of expired nonces (every minute)",
            nonces.clone(),
        );
        registry.register(
            "mqtt_sessions",
            "Sessions connected to the quotes feed (--mqtt-listen, --mqtt-ws-listen) of this node",
            mqtt_sessions.clone(),
        );
        registry.register(
            "mqtt_refusals",
            "MQTT connections refused, by CONNACK code",
            mqtt_refused.clone(),
        );
        registry.register(
            "mqtt_messages",
            "Quotes feed messages written to MQTT connections",
            mqtt_sent.clone(),
        );
        registry.register(
            "mqtt_dropped_messages",
            "Quotes feed messages dropped for sessions that did not read them in time (a newer one of the same symbol took their place)",
            mqtt_dropped.clone(),
        );
        registry.register(
            "mqtt_unbound_closures",
            "MQTT connections closed before a signed subscribe bound them: at accept (address_limit, node_limit) or after the bind timeout (bind_timeout)",
            mqtt_unbound_closed.clone(),
        );
        Metrics {
            registry,
            requests,
            latency,
            rejections,
            routes: Mutex::default(),
            unmatched: Arc::new(RouteMetrics::new(Route::Unmatched)),
            rejected: [const { OnceLock::new() }; ErrorCode::ALL.len()],
            rate_limited,
            legacy,
            fills,
            tick_panics,
            event_streams,
            event_streams_cut_off,
            orders,
            orders_counted_at: tokio::sync::Mutex::default(),
            order_counts,
            nonces,
            mqtt_sessions,
            mqtt_refused,
            mqtt_sent,
            mqtt_dropped,
            mqtt_unbound_closed,
            scenario_hits,
        }
    }
}

/// How long a count of the orders by status serves the scrapes that follow it.
const ORDER_COUNT_INTERVAL: Duration = Duration::from_secs(1);

fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

impl Metrics {
    pub fn fill(&self) {
        self.fills.inc();
    }

    pub fn tick_panicked(&self) {
        self.tick_panics.inc();
    }

    /// An order-events stream opened (`open`) or ended; `cut_off` when it ended because its
    /// client fell behind.
    pub fn event_stream(&self, open: bool, cut_off: bool) {
        if open {
            self.event_streams.inc();
        } else {
            self.event_streams.dec();
        }
        if cut_off {
            self.event_streams_cut_off.inc();
        }
    }

    pub fn legacy(&self, what: Legacy) {
        self.legacy.get_or_create(&LegacyLabels { kind: what.label() }).inc();
    }

    /// A refusal by the per-app limit (`app`) or the per-address one (`address`).
    pub fn rate_limited(&self, scope: &'static str) {
        self.rate_limited.get_or_create(&ScopeLabels { scope }).inc();
    }

    /// A session connected (1) or closed (-1).
    pub fn mqtt_connected(&self, change: i64) {
        self.mqtt_sessions.inc_by(change);
    }

    pub fn mqtt_refused(&self, code: u8) {
        self.mqtt_refused.get_or_create(&ConnackLabels { code }).inc();
    }

    /// An MQTT connection closed unbound: `address_limit`, `node_limit` or `bind_timeout`.
    pub fn mqtt_unbound_closed(&self, reason: &'static str) {
        self.mqtt_unbound_closed.get_or_create(&ReasonLabels { reason }).inc();
    }

    /// An answer the scenario rule `rule` touched.
    pub fn scenario_hit(&self, rule: &str) {
        self.scenario_hits
            .get_or_create(&RuleLabels { rule: rule.to_owned() })
            .inc();
    }

    pub fn mqtt_sent(&self, messages: u64) {
        self.mqtt_sent.inc_by(messages);
    }

    pub fn set_nonces_stored(&self, count: u64) {
        self.nonces.set(count as i64);
    }

    /// The metrics of the route whose template is `path`.
    fn of_route(&self, path: &MatchedPath) -> Arc<RouteMetrics> {
        let mut routes = self.routes.lock();
        routes
            .entry(path.as_str().to_owned())
            .or_insert_with(|| Arc::new(RouteMetrics::new(Route::Matched(path.clone()))))
            .clone()
    }

    fn answered(
        &self,
        route: &RouteMetrics,
        method: usize,
        status: StatusCode,
        code: Option<ErrorCode>,
        took: Duration,
    ) {
        route
            .latency
            .get_or_init(|| {
                self.latency.get_or_create_owned(&RouteLabels {
                    route: route.route.clone(),
                })
            })
            .observe(took.as_secs_f64());
        let labels = || RequestLabels {
            route: route.route.clone(),
            method: METHODS[method],
            status: status.as_u16(),
        };
        match STATUSES.iter().position(|&s| s == status.as_u16()) {
            Some(s) => route.requests[method][s]
                .get_or_init(|| self.requests.get_or_create_owned(&labels()))
                .inc(),
            None => self.requests.get_or_create(&labels()).inc(),
        };
        if let Some(code) = code {
            // The variants in declaration order, as ErrorCode::ALL lists them.
            self.rejected[code as usize]
                .get_or_init(|| {
                    self.rejections.get_or_create_owned(&CodeLabels {
                        error_code: code.as_str(),
                    })
                })
                .inc();
        }
    }

    /// Sets `signet_orders` from the database, unless it was read less than
    /// `ORDER_COUNT_INTERVAL` ago: a scrape that arrives while another counts waits for that
    /// count instead of scanning the table again.
    pub async fn count_orders(&self, store: &dyn Store) {
        let mut counted_at = self.orders_counted_at.lock().await;
        if counted_at.is_some_and(|at| at.elapsed() < ORDER_COUNT_INTERVAL) {
            return;
        }
        match tokio::time::timeout(Duration::from_secs(2), store.order_counts()).await {
            Ok(Ok(counts)) => {
                for (status, count) in counts {
                    self.orders.get_or_create(&StatusLabels { status }).set(count);
                }
            }
            Ok(Err(e)) => tracing::warn!(error = %e, "counting orders for the metrics failed"),
            Err(_) => tracing::warn!("counting orders for the metrics took over 2 s"),
        }
        self.order_counts.inc();
        // A failed count waits its turn too: a database in trouble is not asked at every scrape.
        *counted_at = Some(Instant::now());
    }

    /// The text exposition format (OpenMetrics).
    pub fn encode(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry).expect("writing to a String");
        text
    }
}

/// The two layers that count requests, or none in a benchmark build run with
/// `--benchmark-no-metrics` (the baseline of what they cost).
pub fn layers(metrics: &Arc<Metrics>, config: &ServerConfig) -> Option<(RecordLayer, TagLayer)> {
    #[cfg(feature = "benchmark-no-auth")]
    if config.benchmark_no_metrics {
        return None;
    }
    #[cfg(not(feature = "benchmark-no-auth"))]
    let _ = config;
    Some((RecordLayer(metrics.clone()), TagLayer(metrics.clone())))
}

/// What a layer keeps for one endpoint: axum's `Router::layer` wraps each route (and each
/// fallback) in a service of its own when the router is built, so a route's metrics are found
/// at its first request and kept with it.
struct Endpoint {
    metrics: Arc<Metrics>,
    route: OnceLock<(MatchedPath, Arc<RouteMetrics>)>,
}

impl Endpoint {
    fn new(metrics: &Arc<Metrics>) -> Arc<Self> {
        Arc::new(Endpoint {
            metrics: metrics.clone(),
            route: OnceLock::new(),
        })
    }

    /// The metrics of the route `request` was matched to, if it was.
    fn route_of(&self, request: &Request) -> Option<Arc<RouteMetrics>> {
        let matched = request.extensions().get::<MatchedPath>()?;
        // The router hands every request of a route the same template.
        if let Some((path, route)) = self.route.get()
            && std::ptr::addr_eq(path.as_str(), matched.as_str())
        {
            return Some(route.clone());
        }
        let route = self.metrics.of_route(matched);
        let _ = self.route.set((matched.clone(), route.clone()));
        Some(route)
    }
}

/// The outermost layer: times and counts every answer, the refusals of the layers inside it too.
#[derive(Clone)]
pub struct RecordLayer(Arc<Metrics>);

impl<S> tower::Layer<S> for RecordLayer {
    type Service = Record<S>;

    fn layer(&self, inner: S) -> Record<S> {
        Record {
            inner,
            endpoint: Endpoint::new(&self.0),
        }
    }
}

/// [`RecordLayer`] around one endpoint.
#[derive(Clone)]
pub struct Record<S> {
    inner: S,
    endpoint: Arc<Endpoint>,
}

impl<S, B> tower::Service<Request> for Record<S>
where
    S: tower::Service<Request, Response = http::Response<B>>,
{
    type Response = http::Response<B>;
    type Error = S::Error;
    type Future = Recorded<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        Recorded {
            started: Instant::now(),
            method: method_index(request.method()),
            route: self.endpoint.route_of(&request),
            endpoint: self.endpoint.clone(),
            inner: self.inner.call(request),
        }
    }
}

pin_project! {
    /// The answer of a [`Record`], counted when it is ready.
    pub struct Recorded<F> {
        #[pin]
        inner: F,
        started: Instant,
        method: usize,
        route: Option<Arc<RouteMetrics>>,
        endpoint: Arc<Endpoint>,
    }
}

impl<F: Future<Output = Result<http::Response<B>, E>>, B, E> Future for Recorded<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        let metrics = &this.endpoint.metrics;
        // The signed routes are routed inside a fallback, where this layer cannot see: their
        // [`Tag`] hands the route out.
        let route = match response.extensions().get::<RouteTag>() {
            Some(RouteTag(route)) => route,
            None => this.route.as_ref().unwrap_or(&metrics.unmatched),
        };
        let code = response.extensions().get::<ErrorCode>().copied();
        metrics.answered(route, *this.method, response.status(), code, this.started.elapsed());
        Poll::Ready(Ok(response))
    }
}

/// The route's metrics, carried out to [`Record`] in the response.
#[derive(Clone)]
struct RouteTag(Arc<RouteMetrics>);

/// Inside the signed router, where the route is known: hands its metrics out to [`Record`].
#[derive(Clone)]
pub struct TagLayer(Arc<Metrics>);

impl<S> tower::Layer<S> for TagLayer {
    type Service = Tag<S>;

    fn layer(&self, inner: S) -> Tag<S> {
        Tag {
            inner,
            endpoint: Endpoint::new(&self.0),
        }
    }
}

/// [`TagLayer`] around one endpoint.
#[derive(Clone)]
pub struct Tag<S> {
    inner: S,
    endpoint: Arc<Endpoint>,
}

impl<S, B> tower::Service<Request> for Tag<S>
where
    S: tower::Service<Request, Response = http::Response<B>>,
{
    type Response = http::Response<B>;
    type Error = S::Error;
    type Future = Tagged<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        Tagged {
            route: self.endpoint.route_of(&request),
            inner: self.inner.call(request),
        }
    }
}

pin_project! {
    /// The answer of a [`Tag`], tagged with its route when it is ready.
    pub struct Tagged<F> {
        #[pin]
        inner: F,
        route: Option<Arc<RouteMetrics>>,
    }
}

impl<F: Future<Output = Result<http::Response<B>, E>>, B, E> Future for Tagged<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let mut response = ready!(this.inner.poll(cx))?;
        if let Some(route) = this.route.take() {
            response.extensions_mut().insert(RouteTag(route));
        }
        Poll::Ready(Ok(response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_appears_with_its_first_answer_whatever_the_status() {
        let metrics = Metrics::default();
        assert!(!metrics.encode().contains("signet_requests_total{"));
        let route = &metrics.unmatched;
        let took = Duration::from_millis(1);
        metrics.answered(route, method_index(&Method::PATCH), StatusCode::IM_A_TEAPOT, None, took);
        for _ in 0..2 {
            let refused = Some(ErrorCode::Unauthorized);
            metrics.answered(
                route,
                method_index(&Method::GET),
                StatusCode::UNAUTHORIZED,
                refused,
                took,
            );
        }
        let text = metrics.encode();
        for line in [
            r#"signet_requests_total{route="unmatched",method="OTHER",status="418"} 1"#,
            r#"signet_requests_total{route="unmatched",method="GET",status="401"} 2"#,
            r#"signet_request_duration_seconds_count{route="unmatched"} 3"#,
            r#"signet_rejections_total{error_code="UNAUTHORIZED"} 2"#,
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
        }
    }

    #[test]
    fn an_error_code_is_its_place_in_the_list_of_all() {
        for (i, code) in ErrorCode::ALL.iter().enumerate() {
            assert_eq!(*code as usize, i, "{code:?}");
        }
    }
}
