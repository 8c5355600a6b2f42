//! The scenario rules' control surface (`/admin/scenarios/...`, apps created with `--admin`):
//! rules that make unhappy paths happen on purpose.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /admin/scenarios/load`: a file of rules (TOML), which replaces the rules in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LoadScenarioRequest {
    pub text: String,
}

/// `POST /admin/scenarios/switch`: switch a rule in force on or off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SwitchRuleRequest {
    pub name: String,
    pub enabled: bool,
}

/// The rules in force (none before a first load or after a clear).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ScenarioView {
    /// Moves on with every load, clear and switch.
    pub version: i64,
    /// When the rules last changed, `yyyy-MM-ddTHH:mm:ss.SSSZ` (wall clock); empty before a load.
    pub changed: String,
    pub seed: u64,
    pub rules: Vec<ScenarioRuleView>,
    /// The file as loaded.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ScenarioRuleView {
    pub name: String,
    pub enabled: bool,
    /// Matches since the file was loaded (those `times` and `probability` let through or not).
    pub hits: i64,
    /// REQUEST (decided by path and app), ORDER (decided when an order is placed, replaced or
    /// cancelled), MARKET (a halt or a freeze, in force while its window holds) or STREAM
    /// (decided as a trade-events subscription or a quotes session opens).
    pub stage: String,
    /// What it does: `reject CODE`, `status 503`, `drop_answer`, `delay 300 ms`.
    pub outcome: String,
}
