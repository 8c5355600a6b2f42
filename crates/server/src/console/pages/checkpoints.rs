//! The checkpoints, as `/admin/checkpoints/list` lists them, and the forms that save, restore
//! and delete them. These pages pass the gate a restore closes.

use axum::Form;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::csrf_field;
use crate::admin_api::checkpoints::{name, view};
use crate::console::access::Session;
use crate::console::layout::{ConsoleError, Tab, page};
use crate::error::ApiError;
use crate::state::AppState;

/// `/console/checkpoints`: every checkpoint with its restore and delete buttons, and the save form.
pub async fn checkpoints(State(state): State<AppState>, session: Session) -> Result<Markup, ConsoleError> {
    let list = state.checkpoints.list().await?;
    let csrf = session.csrf();
    let body = html! {
        section #checkpoints aria-labelledby="checkpoints-title" {
            h2 #checkpoints-title { "Checkpoints" }
            p { "A checkpoint holds the apps, accounts, orders, fills, positions, watchlists, scenario rules and the simulator's clock, seed and pins. Restoring one returns every node to it; calls meanwhile are answered 503 RESTORING, and open streams end so that their clients reconnect." }
            @if list.is_empty() {
                p.empty { "No checkpoint has been saved." }
            } @else {
                table {
                    thead { tr {
                        th scope="col" { "Name" } th scope="col" { "Saved" } th scope="col" { "Market time" }
                        th.num scope="col" { "Accounts" } th.num scope="col" { "Orders" } th.num scope="col" { "Bytes" }
                        th scope="col" { "Actions" }
                    } }
                    tbody { @for info in &list {
                        @let shown = view(info);
                        tr {
                            td { (shown.name) }
                            td { (shown.saved) }
                            td { (shown.market_time) }
                            td.num { (shown.accounts) }
                            td.num { (shown.orders) }
                            td.num { (shown.bytes) }
                            td {
                                form.inline method="post" action="/console/checkpoints/restore" {
                                    (csrf_field(&csrf))
                                    input type="hidden" name="name" value=(shown.name);
                                    button type="submit" aria-label=(format!("Restore {}", shown.name)) { "Restore" }
                                }
                                form.inline method="post" action="/console/checkpoints/delete" {
                                    (csrf_field(&csrf))
                                    input type="hidden" name="name" value=(shown.name);
                                    button type="submit" aria-label=(format!("Delete {}", shown.name)) { "Delete" }
                                }
                            }
                        }
                    } }
                }
            }
        }
        section aria-labelledby="save-title" {
            h2 #save-title { "Save the sandbox's state" }
            form method="post" action="/console/checkpoints/save" {
                (csrf_field(&csrf))
                label for="checkpoint-name" { "Name (letters, digits, - and _; one of the same name is replaced)" }
                input #checkpoint-name type="text" name="name" maxlength="48" pattern="[A-Za-z0-9_-]{1,48}" required;
                button type="submit" { "Save" }
            }
        }
    };
    Ok(page("Checkpoints", Tab::Checkpoints, Some(&csrf), body))
}

#[derive(Deserialize)]
pub struct NameForm {
    csrf: Option<String>,
    name: String,
}

/// Saves a checkpoint, as `signet checkpoint save` does.
pub async fn checkpoint_save(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<NameForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let info = state
        .checkpoints
        .save(name(&form.name)?)
        .await
        .map_err(ApiError::from)?;
    tracing::info!(target: "console", session = %session.who, checkpoint = %info.name, "console: saved a checkpoint");
    Ok(Redirect::to("/console/checkpoints").into_response())
}

/// Restores a checkpoint, as `signet checkpoint restore` does.
pub async fn checkpoint_restore(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<NameForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let done = state
        .checkpoints
        .restore(name(&form.name)?)
        .await
        .map_err(ApiError::from)?;
    tracing::info!(target: "console", session = %session.who, checkpoint = %done.restored.info.name, "console: restored a checkpoint");
    Ok(Redirect::to("/console/checkpoints").into_response())
}

/// Deletes a checkpoint, as `signet checkpoint delete` does.
pub async fn checkpoint_delete(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<NameForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let checkpoint = name(&form.name)?;
    if !state.checkpoints.delete(&checkpoint).await? {
        return Err(ApiError::not_found(format!("no checkpoint is named {checkpoint}")).into());
    }
    tracing::info!(target: "console", session = %session.who, checkpoint = %checkpoint, "console: deleted a checkpoint");
    Ok(Redirect::to("/console/checkpoints").into_response())
}
