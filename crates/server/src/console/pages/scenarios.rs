//! The scenario rules in force, as `/admin/scenarios` lists them, and the forms that load,
//! switch and clear them.

use axum::Form;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;
use signet_core::scenarios::LoadError;
use signet_domain::scenarios::{MAX_FILE_BYTES, ScenarioError};
use signet_model::scenarios::ScenarioView;

use super::csrf_field;
use crate::admin_api::scenarios::{in_force, no_such_rule};
use crate::console::access::{CsrfOnly, Session};
use crate::console::layout::{ConsoleError, Tab, page};
use crate::state::AppState;

/// The largest load form: the file percent-encoded (3 bytes a byte at most), and the token.
pub const LOAD_FORM_BYTES: usize = 3 * MAX_FILE_BYTES + 1024;

/// A file sent with the load form and refused: shown again with its error, to be fixed.
struct Refused<'a> {
    text: &'a str,
    error: ScenarioError,
}

/// `/console/scenarios`: the rules in force, their switches, and the load and clear forms.
pub async fn scenarios(State(state): State<AppState>, session: Session) -> Result<Markup, ConsoleError> {
    let view = in_force(&state).await?;
    Ok(scenarios_page(&view, &session.csrf(), None))
}

fn scenarios_page(view: &ScenarioView, csrf: &str, refused: Option<Refused<'_>>) -> Markup {
    // Refreshing fetches the page's own address again: a refused load's is a POST's.
    let live = refused.is_none();
    let body = html! {
        section #rules data-live[live] aria-labelledby="rules-title" {
            h2 #rules-title { "Rules in force" }
            @if view.version == 0 {
                p.empty { "No rules have been loaded." }
            } @else {
                dl.figures {
                    div { dt { "Seed" } dd { (view.seed) } }
                    div { dt { "Version" } dd { (view.version) } }
                    div { dt { "Changed" } dd { (view.changed) } }
                }
            }
            @if view.rules.is_empty() {
                p.empty { "No rule is in force." }
            } @else {
                table {
                    thead { tr {
                        th scope="col" { "Name" } th scope="col" { "Stage" } th scope="col" { "Outcome" }
                        th.num scope="col" { "Hits" } th scope="col" { "Enabled" } th scope="col" { "Switch" }
                    } }
                    tbody { @for rule in &view.rules {
                        tr {
                            td { (rule.name) }
                            td { (rule.stage) }
                            td { (rule.outcome) }
                            td.num { (rule.hits) }
                            td { @if rule.enabled { "yes" } @else { "no" } }
                            td {
                                form.inline method="post" action="/console/scenarios/switch" {
                                    (csrf_field(csrf))
                                    input type="hidden" name="name" value=(rule.name);
                                    input type="hidden" name="enabled" value=(!rule.enabled);
                                    @let label = if rule.enabled { "Switch off" } else { "Switch on" };
                                    button type="submit" aria-label=(format!("{label} {}", rule.name)) { (label) }
                                }
                            }
                        }
                    } }
                }
                form method="post" action="/console/scenarios/clear" {
                    (csrf_field(csrf))
                    button type="submit" { "Clear all rules" }
                }
            }
        }
        section aria-labelledby="load-title" {
            h2 #load-title { "Load a file of rules" }
            p { "The file (TOML, at most " (MAX_FILE_BYTES / 1024) " KiB) replaces the rules in force and their counts on every node. A file with anything wrong is refused whole, and the rules in force stay." }
            @if let Some(refused) = &refused {
                p.error role="alert" { "The file is refused, nothing changed: " (refused.error) }
            }
            form method="post" action="/console/scenarios/load" {
                (csrf_field(csrf))
                label for="rules-text" { "Rules" }
                textarea #rules-text name="text" rows="16" maxlength=(MAX_FILE_BYTES) spellcheck="false" required {
                    (refused.as_ref().map_or(view.text.as_str(), |r| r.text))
                }
                button type="submit" { "Load" }
            }
        }
    };
    page("Scenarios", Tab::Scenarios, Some(csrf), body)
}

#[derive(Deserialize)]
pub struct LoadForm {
    csrf: Option<String>,
    text: String,
}

/// Loads a file of rules, as `signet scenarios load` does; a refused file comes back on
/// the page with its line and reason.
pub async fn scenarios_load(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<LoadForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    match state.scenarios.load(&form.text).await {
        Ok(stored) => {
            tracing::info!(target: "console", session = %session.who, version = stored.version, rules = stored.rules.len(), "console: loaded scenario rules");
            Ok(Redirect::to("/console/scenarios").into_response())
        }
        Err(LoadError::Invalid(error)) => {
            let view = in_force(&state).await?;
            let refused = Refused {
                text: &form.text,
                error,
            };
            Ok((
                StatusCode::BAD_REQUEST,
                scenarios_page(&view, &session.csrf(), Some(refused)),
            )
                .into_response())
        }
        Err(LoadError::Store(e)) => Err(e.into()),
    }
}

#[derive(Deserialize)]
pub struct SwitchForm {
    csrf: Option<String>,
    name: String,
    enabled: bool,
}

/// Switches a rule on or off, as `signet scenarios on` and `off` do.
pub async fn scenarios_switch(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<SwitchForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    if !state.scenarios.switch(&form.name, form.enabled).await? {
        return Err(no_such_rule(&form.name).into());
    }
    tracing::info!(target: "console", session = %session.who, rule = %form.name, enabled = form.enabled, "console: switched a scenario rule");
    Ok(Redirect::to("/console/scenarios").into_response())
}

/// Takes every rule out of force, as `signet scenarios clear` does.
pub async fn scenarios_clear(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<CsrfOnly>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    state.scenarios.clear().await?;
    tracing::info!(target: "console", session = %session.who, "console: cleared the scenario rules");
    Ok(Redirect::to("/console/scenarios").into_response())
}
