//! `/admin/scenarios/...`: load, list, switch and clear the scenario rules in force on every
//! node ([`signet_core::scenarios`]).

use axum::Json;
use axum::extract::State;
use signet_core::scenarios::LoadError;
use signet_domain::scenarios::{Outcome, Rule, Scenario, Stage};
use signet_domain::simulator::Held;
use signet_domain::times::format_ms;
use signet_model::ErrorCode;
use signet_model::scenarios::{LoadScenarioRequest, ScenarioRuleView, ScenarioView, SwitchRuleRequest};
use signet_store::{StoreError, StoredScenario};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{AdminOnly, require_admin};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(load))
        .routes(routes!(switch))
        .routes(routes!(clear))
}

/// The rules in force as the calls and the console show them.
pub async fn in_force(state: &AppState) -> Result<ScenarioView, StoreError> {
    Ok(view(state.scenarios.stored().await?))
}

/// The refusal of a switch of a rule that is not in force.
pub fn no_such_rule(name: &str) -> ApiError {
    ApiError::new(ErrorCode::NotFound, format!("no rule in force is named {name:?}"))
}

fn view(stored: Option<StoredScenario>) -> ScenarioView {
    let Some(stored) = stored else {
        return ScenarioView::default();
    };
    let scenario = Scenario::parse(&stored.text).unwrap_or_default();
    let rules = stored
        .rules
        .iter()
        .map(|r| {
            let rule = scenario.rules.iter().find(|rule| rule.name == r.name);
            ScenarioRuleView {
                name: r.name.clone(),
                enabled: r.enabled,
                hits: r.hits,
                stage: match rule.map(Rule::stage) {
                    Some(Stage::Order) => "ORDER",
                    Some(Stage::Market) => "MARKET",
                    Some(Stage::Stream) => "STREAM",
                    _ => "REQUEST",
                }
                .to_owned(),
                outcome: rule
                    .map(|rule| outcome(&rule.then.outcome, rule.then.delay_ms))
                    .unwrap_or_default(),
            }
        })
        .collect();
    ScenarioView {
        version: stored.version,
        changed: format_ms(stored.changed),
        seed: scenario.seed,
        rules,
        text: stored.text,
    }
}

fn outcome(outcome: &Outcome, delay_ms: u64) -> String {
    let what = match outcome {
        Outcome::Reject { error_code, status, .. } => format!("reject {error_code} ({status})"),
        Outcome::Status {
            status,
            retry_after_seconds: Some(s),
        } => format!("status {status}, retry after {s} s"),
        Outcome::Status { status, .. } => format!("status {status}"),
        Outcome::DropAnswer => "drop_answer after_commit".to_owned(),
        Outcome::Fill(plan) => plan.to_string(),
        Outcome::Hold {
            held: Held::Halted,
            message,
        } => format!("halt ({message})"),
        Outcome::Hold { held: Held::Frozen, .. } => "freeze quotes".to_owned(),
        Outcome::EndStream { after } => format!("end the stream after {after}"),
        Outcome::Gap { percent } => format!("gap {percent:+} % at the open"),
        Outcome::Delay => String::new(),
    };
    match (what.is_empty(), delay_ms) {
        (_, 0) => what,
        (true, ms) => format!("delay {ms} ms"),
        (false, ms) => format!("{what}, delay {ms} ms"),
    }
}

#[utoipa::path(
    get, path = "/admin/scenarios", tag = "scenarios",
    operation_id = "scenarioList", summary = "Scenario rules in force",
    responses(
        (status = 200, description = "The rules in force, with their matches", body = ScenarioView),
        AdminOnly,
    )
)]
async fn list(State(state): State<AppState>, caller: Caller) -> Result<Json<ScenarioView>, ApiError> {
    require_admin(&caller)?;
    Ok(Json(in_force(&state).await?))
}

#[utoipa::path(
    post, path = "/admin/scenarios/load", tag = "scenarios",
    operation_id = "scenarioLoad", summary = "Load scenario rules",
    description = "Puts a file of rules (TOML, at most 64 KiB and 100 rules) in force on every node, replacing the \
        rules in force and their counts. A file with anything wrong is refused whole (ILLEGAL_PARAMETER, naming the \
        line and the reason) and the rules in force stay.",
    request_body = LoadScenarioRequest,
    responses(
        (status = 200, description = "The rules now in force", body = ScenarioView),
        (status = 400, description = "ILLEGAL_PARAMETER: the file's line and what is wrong there", body = signet_model::ErrorBody),
        AdminOnly,
    )
)]
async fn load(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<LoadScenarioRequest>,
) -> Result<Json<ScenarioView>, ApiError> {
    require_admin(&caller)?;
    match state.scenarios.load(&request.text).await {
        Ok(stored) => Ok(Json(view(Some(stored)))),
        Err(LoadError::Invalid(e)) => Err(ApiError::illegal_parameter(format!("the rules are refused: {e}"))),
        Err(LoadError::Store(e)) => Err(e.into()),
    }
}

#[utoipa::path(
    post, path = "/admin/scenarios/switch", tag = "scenarios",
    operation_id = "scenarioSwitch", summary = "Switch a scenario rule on or off",
    request_body = SwitchRuleRequest,
    responses(
        (status = 200, description = "The rules in force", body = ScenarioView),
        (status = 404, description = "NOT_FOUND: no rule in force has this name", body = signet_model::ErrorBody),
        AdminOnly,
    )
)]
async fn switch(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<SwitchRuleRequest>,
) -> Result<Json<ScenarioView>, ApiError> {
    require_admin(&caller)?;
    if !state.scenarios.switch(&request.name, request.enabled).await? {
        return Err(no_such_rule(&request.name));
    }
    Ok(Json(in_force(&state).await?))
}

#[utoipa::path(
    post, path = "/admin/scenarios/clear", tag = "scenarios",
    operation_id = "scenarioClear", summary = "Clear the scenario rules",
    responses(
        (status = 200, description = "No rules in force", body = ScenarioView),
        AdminOnly,
    )
)]
async fn clear(State(state): State<AppState>, caller: Caller) -> Result<Json<ScenarioView>, ApiError> {
    require_admin(&caller)?;
    state.scenarios.clear().await?;
    Ok(Json(in_force(&state).await?))
}
