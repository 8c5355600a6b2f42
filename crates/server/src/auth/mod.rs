//! The authentication layer: every request except the unsigned probes passes it before routing.
//!
//! Checks run cheapest first and stop at the first failure:
//! 1-6 headers, versions, algorithm, timestamp format and window, nonce format ([`headers`]);
//! 7 the app key; 8 the body's method, media type and size; 9 the signature; 10 the nonce is
//! new (stored only now, so forged requests cannot fill the store); then, when required, the
//! access token. A request that passes carries a [`Caller`] to its handler.

pub mod apps;
#[cfg(feature = "benchmark-no-auth")]
mod benchmark;
pub mod headers;

use std::cell::OnceCell;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use secrecy::ExposeSecret;
use signet_model::ErrorCode;
use signet_model::error::SignatureDebug;
use signet_model::ids::AppKey;
use signet_signing::{Encoding, SigningHeaders, StringToSign, decode_query, percent_encode};

use self::apps::ActiveApp;
use self::headers::AuthHeaders;
use crate::error::ApiError;
use crate::extract::Caller;
use crate::generations::compat::{ApiVersion, Compat};
use crate::metrics::Legacy;
use crate::state::AppState;

/// Kept past the request's window so that a nonce is remembered as long as its request could
/// still be accepted, plus a margin for clocks of several nodes.
pub const NONCE_MARGIN_SECS: i64 = 5;

pub async fn authenticate(State(state): State<AppState>, request: Request, next: Next) -> Result<Response, ApiError> {
    #[cfg(feature = "benchmark-no-auth")]
    if state.config.benchmark_no_auth {
        return benchmark::unverified(state, request, next).await;
    }
    let config = &state.config;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let now_secs = now.as_secs() as i64;
    let window_secs = config.timestamp_window.as_secs() as i64;
    let (mut parts, body) = request.into_parts();

    let headers = AuthHeaders::parse(&parts.headers, now_secs, window_secs, config.compat)?;
    if headers.earlier_generation && !crate::generations::compat::accepts_v1(parts.uri.path()) {
        return Err(ApiError::new(
            ErrorCode::UnsupportedApiVersion,
            "x-version v1 is accepted only on the v1 trade calls (/account/*, /trade/*, /app/subscriptions/list), the earlier generation's account and order calls (/openapi/account/*) and market-data calls (/instrument/list, /market-data/snapshot, quotes, tick, bars, batch-bars, eod-bars, /instrument/corp-action), and the order calls' earlier paths: send v3",
        ));
    }
    if headers.version == ApiVersion::V2 && !crate::generations::compat::accepts_v2(parts.uri.path()) {
        return Err(ApiError::new(
            ErrorCode::UnsupportedApiVersion,
            "x-version v2 is accepted only on the legacy calls (open orders, order history, executions, the legacy screeners, fund dividends and instrument list): send v3",
        ));
    }
    let app = state
        .apps
        .active(headers.app_key)
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::Unauthorized, "unknown or revoked x-app-key"))?;
    let body = read_body(&parts, body, config.max_body_bytes).await?;
    refuse_unusable_text(parts.uri.query().unwrap_or(""), &body)?;
    let encoding = verify_signature(&state, &parts, &headers, &app, &body)?;

    let expires_at_ms = (headers.timestamp_secs + window_secs + NONCE_MARGIN_SECS) * 1000;
    if !state
        .nonces
        .remember(&app.app_key, headers.nonce, expires_at_ms)
        .await?
    {
        return Err(ApiError::new(
            ErrorCode::DuplicatedRequest,
            "this x-signature-nonce was already used; every request needs a new nonce",
        ));
    }
    if config.require_token && !crate::tokens::is_exempt(parts.uri.path()) {
        crate::tokens::require_token(&state, &app.app_key, &parts.headers, signet_domain::times::millis(now)).await?;
    }

    tracing::Span::current().record("app_key", &*app.app_key);
    if config.compat == Compat::Legacy {
        count_legacy(&state, &parts, &headers, encoding);
    }
    // Only authenticated requests spend an app's quota; the nonce is spent first, so that a
    // refused request cannot be replayed once the limit allows.
    let decision = match &state.limiter {
        Some(limiter) => limiter.check_request(&app.app_key, parts.uri.path()).await,
        None => None,
    };
    if let Some(d) = decision.filter(|d| !d.allowed) {
        state.metrics.rate_limited("app");
        let mut refused = ApiError::new(
            ErrorCode::TooManyRequests,
            format!(
                "the rate limit of {} requests for this kind of call is spent: retry in {} s",
                d.limit, d.retry_after_secs
            ),
        )
        .into_response();
        rate_limit_headers(refused.headers_mut(), &d);
        return Ok(refused);
    }
    parts.extensions.insert(Caller {
        app_key: app.app_key.clone(),
        user_id: app.user_id.clone(),
        admin: app.admin,
        version: headers.version,
    });
    let mut response = next.run(Request::from_parts(parts, Body::from(body))).await;
    if let Some(d) = &decision {
        rate_limit_headers(response.headers_mut(), d);
    }
    Ok(response)
}

/// Checks 1 to 6 of a gRPC stream's metadata (which has no `x-version`; `compat` says whether
/// HMAC-SHA1 passes) and finds its app: what both streams' doors check first. Answers the
/// headers, the app and the timestamp window in seconds.
pub(crate) async fn stream_caller<'h>(
    state: &AppState,
    headers: &'h HeaderMap,
    compat: Compat,
) -> Result<(AuthHeaders<'h>, std::sync::Arc<ActiveApp>, i64), ApiError> {
    let now_secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs() as i64;
    let window_secs = state.config.timestamp_window.as_secs() as i64;
    let h = AuthHeaders::parse_without_version(headers, now_secs, window_secs, compat)?;
    let app = state
        .apps
        .active(h.app_key)
        .await?
        .ok_or_else(|| ApiError::new(ErrorCode::Unauthorized, "unknown or revoked x-app-key"))?;
    tracing::Span::current().record("app_key", &*app.app_key);
    Ok((h, app, window_secs))
}

/// Spends one call of `path` from the app's rate limit, for the gRPC streams and their
/// requests (HTTP answers the decision's headers too): the refusal when it is spent.
pub(crate) async fn spend_quota(state: &AppState, app_key: &AppKey, path: &str) -> Result<(), ApiError> {
    if let Some(limiter) = &state.limiter
        && let Some(d) = limiter.check_request(app_key, path).await.filter(|d| !d.allowed)
    {
        state.metrics.rate_limited("app");
        return Err(ApiError::new(
            ErrorCode::TooManyRequests,
            format!(
                "the rate limit of {} requests for this kind of call is spent: retry in {} s",
                d.limit, d.retry_after_secs
            ),
        ));
    }
    Ok(())
}

/// Counts what an accepted request needed of `--compat legacy`.
fn count_legacy(state: &AppState, parts: &Parts, headers: &AuthHeaders<'_>, encoding: Encoding) {
    let metrics = &state.metrics;
    if headers.version == ApiVersion::V2 {
        metrics.legacy(Legacy::VersionV2);
    }
    if headers.earlier_generation {
        metrics.legacy(Legacy::VersionV1);
    }
    if headers.algorithm == signet_signing::Algorithm::LegacyHmacSha1 {
        metrics.legacy(Legacy::HmacSha1);
    }
    if encoding == Encoding::JavaUrlEncoder {
        metrics.legacy(Legacy::JavaUrlEncoding);
    }
    if crate::generations::compat::is_legacy_path(parts.uri.path()) {
        metrics.legacy(Legacy::Path);
    }
}

/// Before any signature work: the limit per client address, so that a flood of requests (signed
/// or not) costs little.
pub async fn limit_addresses(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if let Some(d) = address_refused(&state, &request) {
        let mut refused = ApiError::new(
            ErrorCode::TooManyRequests,
            format!("too many requests from this address: retry in {} s", d.retry_after_secs),
        )
        .into_response();
        refused
            .headers_mut()
            .insert(header::RETRY_AFTER, d.retry_after_secs.into());
        return refused;
    }
    next.run(request).await
}

/// Counts `request` against its address's limit: the refusal's decision when the limit is spent.
pub fn address_refused(state: &AppState, request: &Request) -> Option<signet_core::ratelimit::Decision> {
    let address = request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()?
        .0
        .ip();
    let d = state.limiter.as_ref()?.check_address(address);
    if d.allowed {
        return None;
    }
    state.metrics.rate_limited("address");
    Some(d)
}

/// `X-RateLimit-Limit`, `-Remaining`, `-Reset` (seconds), and `Retry-After` on a refusal.
fn rate_limit_headers(headers: &mut HeaderMap, d: &signet_core::ratelimit::Decision) {
    headers.insert("x-ratelimit-limit", d.limit.into());
    headers.insert("x-ratelimit-remaining", d.remaining.into());
    headers.insert("x-ratelimit-reset", d.reset_secs.into());
    if !d.allowed {
        headers.insert(header::RETRY_AFTER, d.retry_after_secs.into());
    }
}

/// Check 8: only a POST carries a body, as JSON, no larger than the limit.
async fn read_body(parts: &Parts, body: Body, limit: usize) -> Result<Bytes, ApiError> {
    let declared = match parts.headers.get(header::CONTENT_LENGTH) {
        Some(v) => Some(
            v.to_str()
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .ok_or_else(|| ApiError::illegal_parameter("the Content-Length header is not a number"))?,
        ),
        None => None,
    };
    let has_body = match declared {
        Some(n) => n > 0,
        None => parts.headers.contains_key(header::TRANSFER_ENCODING),
    };
    if !has_body {
        return Ok(Bytes::new());
    }
    if parts.method != Method::POST || !is_json(&parts.headers) {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "a request with a body must be a POST with Content-Type: application/json",
        ));
    }
    let too_large = || {
        ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("the body is larger than the limit of {limit} bytes"),
        )
    };
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Err(e) if crate::serve::is_body_timeout(&*e) => Err(ApiError::new(
            ErrorCode::RequestTimeout,
            "the body did not arrive in time: send it whole without pausing",
        )),
        Err(_) => Err(ApiError::illegal_parameter(
            "the request body could not be read completely",
        )),
    }
}

/// Refuses what no parameter may hold, before it reaches a handler or the database (which
/// would store it, or fail on it): a query that is not UTF-8 once decoded, and NUL characters,
/// in the query or as `\u0000` in a JSON string of the body.
fn refuse_unusable_text(raw_query: &str, body: &[u8]) -> Result<(), ApiError> {
    let query: Vec<u8> = percent_encoding::percent_decode_str(raw_query).collect();
    match std::str::from_utf8(&query) {
        Err(_) => Err(ApiError::illegal_parameter(
            "the query string is not UTF-8 once percent-decoded",
        )),
        Ok(query) if query.contains('\0') => {
            Err(ApiError::illegal_parameter("a query parameter holds a NUL character"))
        }
        Ok(_) if has_escaped_nul(body) => Err(ApiError::illegal_parameter(
            "a string of the body holds a NUL character (\\u0000)",
        )),
        Ok(_) => Ok(()),
    }
}

/// Whether JSON text holds the escape `\u0000` (and not an escaped backslash followed by
/// `u0000`). A raw NUL byte is invalid JSON, which the parser refuses anyway.
fn has_escaped_nul(json: &[u8]) -> bool {
    let mut i = 0;
    while i < json.len() {
        if json[i] == b'\\' {
            if json[i + 1..].starts_with(b"u0000") {
                return true;
            }
            // The escaped character is skipped, whatever it is.
            i += 1;
        }
        i += 1;
    }
    false
}

/// `application/json`, with or without parameters such as `; charset=utf-8`.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// Check 9, over the path as it appears in the request line, the form-decoded query, the raw
/// body and the host. The host tried is the configured public host, or else the received
/// `Host`, the same without its port, and the same with `http://` or `https://` in front (the
/// official client signs its configured endpoint name, which may leave the port out, and which
/// its streaming client needs written with its scheme to reach a plain-HTTP server:
/// `http_host="http://HOST:PORT"`, catalog §1.1). In legacy mode, a string to sign holding `*`
/// or `~` is also tried as Java's `URLEncoder` encodes it. Answers the encoding that matched.
pub(crate) fn verify_signature(
    state: &AppState,
    parts: &Parts,
    headers: &AuthHeaders<'_>,
    app: &ActiveApp,
    body: &[u8],
) -> Result<Encoding, ApiError> {
    let received_host = received_host(parts)?;
    let public = state.config.public_host.as_deref();
    let schemed = OnceCell::new();
    let secret = app.secret.expose_secret();
    let mut request = signet_signing::Request {
        path: parts.uri.path(),
        query: decode_query(parts.uri.query().unwrap_or("")),
        headers: SigningHeaders {
            app_key: headers.app_key,
            algorithm: headers.algorithm,
            signature_version: headers.signature_version,
            nonce: headers.nonce,
            timestamp: headers.timestamp,
            host: "",
        },
        body: Some(body),
    };
    let legacy = state.config.compat == Compat::Legacy;
    for host in host_candidates(public, received_host, &schemed) {
        request.headers.host = host;
        if signet_signing::verify(&request, secret, headers.signature) {
            return Ok(Encoding::Standard);
        }
        let java = Encoding::JavaUrlEncoder;
        if legacy
            && java.differs_for(&StringToSign::new(&request).str3)
            && signet_signing::verify_with(&request, secret, headers.signature, java)
        {
            return Ok(java);
        }
    }
    let mut error = ApiError::new(
        ErrorCode::IncorrectSign,
        "the signature does not match: check the secret, the string to sign (section 5) and the host value signed",
    );
    // What the server computed, for `--debug-signatures` (in the body) and for the console's
    // Requests page (beside the response): never the secret.
    if state.config.debug_signatures || state.console.is_some() {
        let explanation: Vec<SignatureDebug> = host_candidates(public, received_host, &schemed)
            .map(|host| {
                request.headers.host = host;
                let str3 = StringToSign::new(&request).str3;
                SignatureDebug {
                    host: host.to_string(),
                    encoded: percent_encode(&str3),
                    str3,
                }
            })
            .collect();
        if state.config.debug_signatures {
            error.debug = Some(explanation.clone());
        }
        error.explanation = Some(explanation);
    }
    Err(error)
}

/// The host values a signature is checked against, in order: only `public` when it is set;
/// otherwise `received`, the same without its port, then with `http://` and `https://` in front
/// (made only when the ones before did not match).
fn host_candidates<'a>(
    public: Option<&'a str>,
    received: &'a str,
    schemed: &'a OnceCell<[String; 2]>,
) -> impl Iterator<Item = &'a str> {
    let plain = match public {
        Some(public) => [Some(public), None],
        None => [Some(received), strip_port(received)],
    };
    let with_schemes = public.is_none().then_some(()).into_iter().flat_map(move |()| {
        schemed
            .get_or_init(|| [format!("http://{received}"), format!("https://{received}")])
            .iter()
            .map(String::as_str)
    });
    plain.into_iter().flatten().chain(with_schemes)
}

/// The `Host` header (HTTP/1) or the URI's authority (HTTP/2), exactly as received.
fn received_host(parts: &Parts) -> Result<&str, ApiError> {
    let mut hosts = parts.headers.get_all(header::HOST).iter();
    match (hosts.next(), hosts.next()) {
        (Some(host), None) => host
            .to_str()
            .map_err(|_| ApiError::illegal_parameter("the Host header must be printable ASCII")),
        (Some(_), Some(_)) => Err(ApiError::illegal_parameter("the Host header was sent more than once")),
        (None, _) => Ok(parts
            .uri
            .authority()
            .map(axum::http::uri::Authority::as_str)
            .unwrap_or("")),
    }
}

/// `host:port` without `:port`; `None` when there is no port (IPv6 literals keep their brackets).
fn strip_port(host: &str) -> Option<&str> {
    let (name, port) = host.rsplit_once(':')?;
    let is_port = !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit());
    let whole_name = !name.contains(':') || (name.starts_with('[') && name.ends_with(']'));
    (is_port && whole_name && !name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_escaped_nul_is_told_from_an_escaped_backslash() {
        assert!(has_escaped_nul(br#"{"a":"x\u0000"}"#));
        assert!(has_escaped_nul(br#"{"a":"\\\u0000"}"#));
        assert!(!has_escaped_nul(br#"{"a":"\\u0000"}"#));
        assert!(!has_escaped_nul(br#"{"a":"u0000\"}"#));
        assert!(refuse_unusable_text("a=%00", b"").is_err());
        assert!(refuse_unusable_text("a=%FF", b"").is_err());
        assert!(refuse_unusable_text("a=%C3%A9&b=%2B", br#"{"b":"\\u0000"}"#).is_ok());
    }

    #[test]
    fn ports_are_stripped_only_from_host_port_forms() {
        assert_eq!(strip_port("127.0.0.1:8080"), Some("127.0.0.1"));
        assert_eq!(strip_port("localhost:1"), Some("localhost"));
        assert_eq!(strip_port("[::1]:8080"), Some("[::1]"));
        assert_eq!(strip_port("api.example.com"), None);
        assert_eq!(strip_port("[::1]"), None);
        assert_eq!(strip_port("::1"), None);
        assert_eq!(strip_port("host:"), None);
        assert_eq!(strip_port(":80"), None);
        assert_eq!(strip_port("host:8o"), None);
    }

    #[test]
    fn json_media_types() {
        let with = |v: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, v.parse().unwrap());
            is_json(&h)
        };
        assert!(with("application/json"));
        assert!(with("application/json; charset=utf-8"));
        assert!(with("Application/JSON"));
        assert!(!with("text/plain"));
        assert!(!with("application/jsonx"));
        assert!(!with("application/x-www-form-urlencoded"));
        assert!(!is_json(&HeaderMap::new()));
    }
}
