//! The operator console under `/console/`: server-rendered pages for a person to see and drive a
//! running server (accounts, the market simulator, the scenario rules, the interface's traffic,
//! apps and tokens).
//!
//! Access ([`access`]): a one-time login link (`signet admin console-link`, or the one `serve
//! --demo` prints) becomes a session cookie; every state-changing action is a POST carrying the
//! session's CSRF token. Pages are [maud] templates compiled into the binary; one small script
//! of our own refreshes their live regions; charts are SVG drawn on the server by plotters. No
//! file is fetched from anywhere at run time.

pub mod access;
mod charts;
mod layout;
pub mod memory;
mod pages;
pub mod requests;

use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use crate::state::AppState;

pub use memory::Console;

/// A session ends after this long without a page.
pub const IDLE: Duration = Duration::from_secs(12 * 3600);
/// How long a login link works unless told otherwise.
pub const LINK_TTL: Duration = Duration::from_secs(600);

/// Every page and action of the console.
pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/console",
            get(|| async { axum::response::Redirect::permanent("/console/") }),
        )
        .route("/console/login", get(access::login))
        .route("/console/logout", post(access::logout))
        .route("/console/", get(pages::overview))
        .route("/console/accounts/{account_id}", get(pages::account))
        .route("/console/market", get(pages::market))
        .route("/console/market/set", post(pages::market_set))
        .route("/console/market/step", post(pages::market_step))
        .route("/console/options", get(pages::options))
        .route("/console/scenarios", get(pages::scenarios))
        .route(
            "/console/scenarios/load",
            post(pages::scenarios_load).layer(DefaultBodyLimit::max(pages::LOAD_FORM_BYTES)),
        )
        .route("/console/scenarios/switch", post(pages::scenarios_switch))
        .route("/console/scenarios/clear", post(pages::scenarios_clear))
        .route("/console/checkpoints", get(pages::checkpoints))
        .route("/console/checkpoints/save", post(pages::checkpoint_save))
        .route("/console/checkpoints/restore", post(pages::checkpoint_restore))
        .route("/console/checkpoints/delete", post(pages::checkpoint_delete))
        .route("/console/requests", get(pages::requests))
        .route("/console/requests/{id}", get(pages::request))
        .route("/console/apps", get(pages::apps))
        .route("/console/apps/create", post(pages::create_app))
        .route("/console/apps/revoke", post(pages::revoke_app))
        .route("/console/apps/account", post(pages::add_account))
        .route("/console/apps/approve", post(pages::approve_tokens))
        .route(
            "/console/static/console.css",
            get(|| static_file(CSS, "text/css; charset=utf-8")),
        )
        .route(
            "/console/static/console.js",
            get(|| static_file(JS, "text/javascript; charset=utf-8")),
        )
        .layer(axum::middleware::map_response(secure_headers))
}

const CSS: &str = include_str!("../../assets/console/console.css");
const JS: &str = include_str!("../../assets/console/console.js");

/// The static files change only with the binary: cached for a day.
async fn static_file(body: &'static str, content_type: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        body,
    )
        .into_response()
}

/// Every console answer: scripts, styles and forms only from this server, never in a frame,
/// and no page cached (they show live state and a CSRF token).
async fn secure_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}
