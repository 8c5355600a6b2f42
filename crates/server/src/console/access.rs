//! Getting into the console: one-time login links, the session cookie they become, the CSRF
//! token of every state-changing action, and the limit on failed logins per address (which
//! never refuses a valid link).
//!
//! Links ([`crate::Operator::console_link`] makes them) and sessions are stored as SHA-256 hashes
//! ([`signet_store::ConsoleStore`]), so a copy of the database lets nobody in, and any node of a
//! deployment accepts them. A session's CSRF token is an HMAC of its cookie value: nothing more
//! is stored, and a page of another site, which cannot read the cookie, cannot make it.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{ConnectInfo, FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use hmac::{KeyInit, Mac};
use serde::Deserialize;
use sha2::Sha256;
use signet_domain::simulator::clock::wall_clock_ms;

use super::layout::ConsoleError;
use crate::secrets::random_hex;
use crate::state::AppState;
use crate::tokens::hash_token;

const COOKIE: &str = "signet_console";

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

#[derive(Deserialize)]
pub struct LoginParams {
    token: Option<String>,
}

/// `GET /console/login?token=…`: spends the link and opens a session.
pub async fn login(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Query(params): Query<LoginParams>,
) -> Result<Response, ConsoleError> {
    let console = state.console.as_ref().ok_or(ConsoleError::NotFound)?;
    let address = peer.ip();
    let now = wall_clock_ms();
    let token = params.token.unwrap_or_default();
    let valid = token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit());
    // A valid link always opens a session: failures counted against an address (a proxy's, a
    // shared host's, a stranger's spoofing a neighbour) must not lock its operator out. A link
    // is 256 random bits, so the limit slows no guess that could succeed; it only answers a
    // caller who keeps failing with a wait.
    if !valid || !state.store.redeem_console_login(&hash_token(&token), now).await? {
        if let Some(retry_after) = console.logins.blocked(address) {
            tracing::debug!(target: "console", %address, "console login refused: too many failed logins");
            return Err(ConsoleError::TooManyLogins { retry_after });
        }
        console.logins.failed(address);
        tracing::warn!(target: "console", %address, "console login refused: unknown, expired or used link");
        return Err(ConsoleError::LinkRefused);
    }
    let session = random_hex::<32>().map_err(|e| ConsoleError::internal(e.to_string()))?;
    let session_hash = hash_token(&session);
    state
        .store
        .create_console_session(&session_hash, now, now - millis(super::IDLE))
        .await?;
    tracing::info!(target: "console", %address, session = &session_hash[..8], "console login");
    let secure = if is_https(&state, &headers) { "; Secure" } else { "" };
    let cookie = format!("{COOKIE}={session}; Path=/console; HttpOnly; SameSite=Strict{secure}");
    let mut response = Redirect::to("/console/").into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&cookie).map_err(|e| ConsoleError::internal(e.to_string()))?,
    );
    Ok(response)
}

/// Whether the person reached this server over TLS: its own (`--tls-cert`, `--tls
/// self-signed`: the console's listener speaks nothing else), through a proxy that says so, or
/// a public host configured with `https://`.
fn is_https(state: &AppState, headers: &HeaderMap) -> bool {
    if state.config.tls.is_some() {
        return true;
    }
    let forwarded = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("https"));
    forwarded
        || state
            .config
            .public_host
            .as_deref()
            .is_some_and(|h| h.starts_with("https://"))
}

/// A person signed in: the extractor of every page and action.
pub struct Session {
    token: String,
    /// The first characters of the session's hash: who did what, in the log.
    pub who: String,
}

impl Session {
    /// The token every form of this session carries.
    pub fn csrf(&self) -> String {
        hex::encode(self.mac().finalize().into_bytes())
    }

    fn mac(&self) -> hmac::Hmac<Sha256> {
        let mut mac = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(self.token.as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(b"signet console csrf");
        mac
    }

    /// Checks a form's CSRF token, in constant time.
    pub fn verify(&self, csrf: Option<&str>) -> Result<(), ConsoleError> {
        let given = csrf.and_then(|c| hex::decode(c).ok()).ok_or(ConsoleError::Csrf)?;
        self.mac().verify_slice(&given).map_err(|_| ConsoleError::Csrf)
    }
}

impl FromRequestParts<AppState> for Session {
    type Rejection = ConsoleError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        if state.console.is_none() {
            return Err(ConsoleError::NotFound);
        }
        let token = parts
            .headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == COOKIE)
            .map(|(_, value)| value.to_owned())
            .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or(ConsoleError::SignIn)?;
        let now = wall_clock_ms();
        let session_hash = hash_token(&token);
        if !state
            .store
            .touch_console_session(&session_hash, now, now - millis(super::IDLE))
            .await?
        {
            return Err(ConsoleError::SignIn);
        }
        Ok(Session {
            who: session_hash[..8].to_owned(),
            token,
        })
    }
}

#[derive(Deserialize)]
pub struct CsrfOnly {
    pub(super) csrf: Option<String>,
}

/// `POST /console/logout`: ends the session.
pub async fn logout(
    State(state): State<AppState>,
    session: Session,
    axum::Form(form): axum::Form<CsrfOnly>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    state.store.delete_console_session(&hash_token(&session.token)).await?;
    tracing::info!(target: "console", session = %session.who, "console logout");
    let mut response = Redirect::to("/console/").into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static("signet_console=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0"),
    );
    Ok(response)
}
