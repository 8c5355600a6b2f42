//! Apps, their accounts and tokens, and the forms that change them.

use axum::Form;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::times::format_ms;
use signet_model::AccountType;
use signet_model::ids::AppKey;
use signet_store::TokenSelector;

use super::csrf_field;
use crate::console::access::Session;
use crate::console::layout::{ConsoleError, Tab, page};
use crate::operator::Operator;
use crate::state::AppState;

/// `/console/apps`: apps, their accounts and tokens, and the forms that change them.
pub async fn apps(State(state): State<AppState>, session: Session) -> Result<Markup, ConsoleError> {
    let csrf = session.csrf();
    let apps = state.store.apps().await?;
    let accounts = state.store.accounts(None).await?;
    let tokens = state.store.tokens(None).await?;
    let now = signet_domain::simulator::clock::wall_clock_ms();
    let body = html! {
        section aria-labelledby="apps-title" {
            h2 #apps-title { "Apps" }
            table {
                thead { tr {
                    th scope="col" { "Name" } th scope="col" { "App key" } th scope="col" { "Status" }
                    th scope="col" { "Admin" } th scope="col" { "Accounts" } th scope="col" { "Actions" }
                } }
                tbody { @for app in &apps {
                    tr {
                        td { (app.name) }
                        td { code { (app.app_key) } }
                        td { (app.status.as_str()) }
                        td { @if app.admin { "yes" } @else { "no" } }
                        td { @for a in accounts.iter().filter(|a| a.app_key == app.app_key) {
                            a href=(format!("/console/accounts/{}", a.account_id)) { (a.account_id) } " "
                        } }
                        td {
                            form.inline method="post" action="/console/apps/revoke" {
                                (csrf_field(&csrf))
                                input type="hidden" name="app_key" value=(app.app_key);
                                button type="submit" aria-label=(format!("Revoke {}", app.name)) { "Revoke" }
                            }
                            form.inline method="post" action="/console/apps/approve" {
                                (csrf_field(&csrf))
                                input type="hidden" name="app_key" value=(app.app_key);
                                button type="submit" aria-label=(format!("Approve pending tokens of {}", app.name)) { "Approve pending tokens" }
                            }
                        }
                    }
                } }
            }
        }
        section aria-labelledby="create-title" {
            h2 #create-title { "Create an app" }
            form method="post" action="/console/apps/create" {
                (csrf_field(&csrf))
                label for="name" { "Name" }
                input #name name="name" required maxlength="64";
                label for="cash" { "Starting cash of each account" }
                input #cash name="cash" inputmode="decimal" value="100000";
                label for="admin" { "May drive the market" }
                input #admin name="admin" type="checkbox" value="true";
                button type="submit" { "Create" }
            }
        }
        section aria-labelledby="account-title" {
            h2 #account-title { "Add an account" }
            form method="post" action="/console/apps/account" {
                (csrf_field(&csrf))
                label for="account-app" { "App" }
                select #account-app name="app_key" { @for app in &apps { option value=(app.app_key) { (app.name) } } }
                label for="account-type" { "Type" }
                select #account-type name="account_type" { option value="CASH" { "CASH" } option value="MARGIN" { "MARGIN" } }
                label for="account-cash" { "Starting cash" }
                input #account-cash name="cash" inputmode="decimal" value="100000";
                button type="submit" { "Add" }
            }
        }
        section aria-labelledby="tokens-title" {
            h2 #tokens-title { "Tokens" }
            @if tokens.is_empty() { p { "No tokens." } } @else {
                table {
                    thead { tr { th scope="col" { "Token" } th scope="col" { "App key" } th scope="col" { "Status" } th scope="col" { "Expires" } } }
                    tbody { @for t in &tokens {
                        tr { td { code { (t.token_hint) "…" } } td { code { (t.app_key) } } td { (t.status_at(now).as_str()) } td { (format_ms(t.expires_at)) } }
                    } }
                }
            }
        }
    };
    Ok(page("Apps and tokens", Tab::Apps, Some(&csrf), body))
}

fn operator(state: &AppState) -> Operator {
    Operator::new(state.store.clone(), state.key.clone())
}

fn cash(value: Option<&str>) -> Result<Decimal, ConsoleError> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map_or(Ok(Decimal::from(100_000)), |v| {
            v.parse()
                .map_err(|_| ConsoleError::Invalid(format!("starting cash {v:?} is not a decimal number")))
        })
}

#[derive(Deserialize)]
pub struct CreateForm {
    csrf: Option<String>,
    name: String,
    cash: Option<String>,
    admin: Option<String>,
}

/// Creates an app and shows its secret, once.
pub async fn create_app(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<CreateForm>,
) -> Result<Markup, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let credentials = operator(&state)
        .create_app_with_role(form.name.trim(), cash(form.cash.as_deref())?, form.admin.is_some())
        .await?;
    tracing::info!(target: "console", session = %session.who, app_key = %credentials.app_key, "console: created an app");
    let body = html! {
        p role="status" { "The app is created. Its secret is shown this once: keep it now." }
        dl.figures {
            div { dt { "App key" } dd { code #new-app-key { (credentials.app_key) } } }
            div { dt { "App secret" } dd { code #new-app-secret { (secrecy::ExposeSecret::expose_secret(&credentials.app_secret)) } } }
            div { dt { "Accounts" } dd { (credentials.account_ids.join(", ")) } }
        }
        p { a href="/console/apps" { "Back to the apps" } }
    };
    Ok(page("App created", Tab::Apps, Some(&session.csrf()), body))
}

#[derive(Deserialize)]
pub struct AppForm {
    csrf: Option<String>,
    app_key: String,
    account_type: Option<String>,
    cash: Option<String>,
}

/// Revokes an app.
pub async fn revoke_app(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<AppForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    operator(&state).revoke_app(&AppKey::from(&form.app_key)).await?;
    tracing::info!(target: "console", session = %session.who, app_key = %form.app_key, "console: revoked an app");
    Ok(Redirect::to("/console/apps").into_response())
}

/// Approves an app's pending tokens.
pub async fn approve_tokens(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<AppForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let approved = operator(&state)
        .approve_tokens(TokenSelector::App(&form.app_key))
        .await?;
    tracing::info!(target: "console", session = %session.who, app_key = %form.app_key, approved, "console: approved tokens");
    Ok(Redirect::to("/console/apps").into_response())
}

/// Adds a paper account to an app.
pub async fn add_account(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<AppForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let account_type = match form.account_type.as_deref() {
        Some("MARGIN") => AccountType::Margin,
        _ => AccountType::Cash,
    };
    let account = operator(&state)
        .create_account(
            &AppKey::from(&form.app_key),
            account_type,
            cash(form.cash.as_deref())?,
            None,
        )
        .await?;
    tracing::info!(target: "console", session = %session.who, app_key = %form.app_key, account_id = %account.account_id, "console: added an account");
    Ok(Redirect::to("/console/apps").into_response())
}
