//! The frame of every console page, and its one error type mapped in one place to a status and
//! a page that says what to do.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};
use signet_store::StoreError;

use crate::error::ApiError;

/// Where a page sits in the navigation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Overview,
    Market,
    Scenarios,
    Checkpoints,
    Options,
    Requests,
    Apps,
    None,
}

const TABS: [(Tab, &str, &str); 7] = [
    (Tab::Overview, "/console/", "Overview"),
    (Tab::Market, "/console/market", "Market"),
    (Tab::Options, "/console/options", "Options"),
    (Tab::Scenarios, "/console/scenarios", "Scenarios"),
    (Tab::Checkpoints, "/console/checkpoints", "Checkpoints"),
    (Tab::Requests, "/console/requests", "Requests"),
    (Tab::Apps, "/console/apps", "Apps and tokens"),
];

/// A whole page: `csrf` is the session's, for the sign-out form (none on the pages shown
/// before signing in).
pub fn page(title: &str, tab: Tab, csrf: Option<&str>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · signet console" }
                link rel="stylesheet" href="/console/static/console.css";
                script src="/console/static/console.js" defer {}
            }
            body {
                a.skip href="#main" { "Skip to content" }
                header {
                    span.brand { "signet" }
                    @if csrf.is_some() {
                        nav aria-label="Console" {
                            @for (t, href, label) in TABS {
                                a href=(href) aria-current=[(t == tab).then_some("page")] { (label) }
                            }
                        }
                    }
                    @if let Some(csrf) = csrf {
                        form.logout method="post" action="/console/logout" {
                            input type="hidden" name="csrf" value=(csrf);
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main #main { h1 { (title) } (body) }
            }
        }
    }
}

/// Why a console request failed.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    #[error("sign in with a login link: `signet admin console-link --url URL` prints one")]
    SignIn,
    #[error("this login link is unknown, expired or already used: print a new one with `signet admin console-link`")]
    LinkRefused,
    #[error("too many failed logins from this address: try again in {retry_after} s")]
    TooManyLogins { retry_after: u64 },
    #[error("the form's CSRF token is missing or wrong: reload the page and try again")]
    Csrf,
    #[error("no such page")]
    NotFound,
    #[error("{0}")]
    Invalid(String),
    #[error("{}", .0.message)]
    Api(ApiError),
}

impl ConsoleError {
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        ConsoleError::Api(ApiError::internal(detail))
    }

    fn status(&self) -> StatusCode {
        match self {
            ConsoleError::SignIn | ConsoleError::LinkRefused => StatusCode::UNAUTHORIZED,
            ConsoleError::TooManyLogins { .. } => StatusCode::TOO_MANY_REQUESTS,
            ConsoleError::Csrf => StatusCode::FORBIDDEN,
            ConsoleError::NotFound => StatusCode::NOT_FOUND,
            ConsoleError::Invalid(_) => StatusCode::BAD_REQUEST,
            ConsoleError::Api(e) => {
                StatusCode::from_u16(e.status.unwrap_or(e.code.status())).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
            }
        }
    }
}

impl From<StoreError> for ConsoleError {
    fn from(e: StoreError) -> Self {
        ConsoleError::Api(e.into())
    }
}

impl From<signet_core::simulator::MarketError> for ConsoleError {
    fn from(e: signet_core::simulator::MarketError) -> Self {
        ConsoleError::Api(e.into())
    }
}

impl From<ApiError> for ConsoleError {
    fn from(e: ApiError) -> Self {
        ConsoleError::Api(e)
    }
}

impl From<crate::operator::OperatorError> for ConsoleError {
    fn from(e: crate::operator::OperatorError) -> Self {
        use crate::operator::OperatorError;
        match e {
            OperatorError::Store(e) => e.into(),
            OperatorError::Key(e) => ConsoleError::internal(e),
            other => ConsoleError::Invalid(other.to_string()),
        }
    }
}

impl IntoResponse for ConsoleError {
    fn into_response(self) -> Response {
        let title = match self.status() {
            StatusCode::UNAUTHORIZED => "Sign in",
            StatusCode::NOT_FOUND => "Not found",
            _ => "Refused",
        };
        let body = html! { p.error role="alert" { (self.to_string()) } };
        (self.status(), page(title, Tab::None, None, body)).into_response()
    }
}
