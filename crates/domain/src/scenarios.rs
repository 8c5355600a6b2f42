//! Scenarios: rules that make the unhappy paths happen on purpose, the same way every run. A
//! rule says `when` (what a request or an order looks like) and `then` (what happens instead
//! of the normal path); a file of them is TOML:
//!
//! ```toml
//! seed = 7
//!
//! [[rule]]
//! name = "reject big MSFT buys"
//! when = { operation = "place", symbol = "MSFT", side = "BUY", min_quantity = 100 }
//! then = { reject = "ORDER_REJECTED_BY_SCENARIO", message = "exchange rejected the order" }
//! ```
//!
//! A rule that names anything of an order (its operation, account, symbol, side, type,
//! quantity or client order id) is decided when an order is placed, replaced or cancelled
//! ([`Stage::Order`]); a rule that names a `stream` when a trade-events subscription or a quotes
//! session opens ([`Stage::Stream`]); a halt, a freeze or a gap is a state of the market while
//! its window holds ([`Stage::Market`], [`MarketRules`]); the others are decided when a request
//! arrives ([`Stage::Request`]). The first rule of the file that matches, and whose `times` and
//! `probability` let it, decides. `times = N` limits a rule to its first N matches;
//! `probability = p` makes it apply to a match with that chance, drawn from the seed and the
//! match's number, so the same requests meet the same outcomes.
//!
//! A file with anything wrong is refused whole, naming the line and the reason.

use std::ops::Range;

use rust_decimal::Decimal;
use serde::Deserialize;
use signet_model::ids::{AccountId, AppKey, ClientOrderId};
use signet_model::orders::{OrderType, Side};
use signet_model::wire::WireEnum;

use crate::marketdata::units::parse_day;
use crate::simulator::Held;
use crate::simulator::clock::{CORE_OPEN, NewYork, utc_ms_of};
use crate::simulator::mix::Mix;
use crate::trading::fill_plan::{AfterPartial, FillPlan, Shape};

/// The most rules a file holds, and the largest file.
pub const MAX_RULES: usize = 100;
pub const MAX_FILE_BYTES: usize = 64 * 1024;
/// The longest delay a rule may add to an answer.
pub const MAX_DELAY_MS: u64 = 60_000;
/// The most slices a fill may come in, and the most slippage.
pub const MAX_SLICES: u32 = 1000;
pub const MAX_SLIPPAGE_BPS: f64 = 1000.0;

/// The operations on orders a rule may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    Place,
    Replace,
    Cancel,
}

impl Operation {
    pub const fn as_str(self) -> &'static str {
        match self {
            Operation::Place => "place",
            Operation::Replace => "replace",
            Operation::Cancel => "cancel",
        }
    }
}

/// The streams a rule may end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamKind {
    /// A gRPC trade-events subscription: ended with UNAVAILABLE.
    Events,
    /// An MQTT session of the quotes feed: its connection closed.
    Quotes,
}

/// When a rule is decided: as a request arrives (by its path and app), or as an order is
/// placed, replaced or cancelled (by what the order is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Request,
    Order,
    /// Not decided by a request: a state of the market while the rule's window holds.
    Market,
    /// As a stream opens (by its kind, app and accounts).
    Stream,
}

/// What a rule matches. Every condition given must hold.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct When {
    pub operation: Option<Operation>,
    /// A stream rather than a request: the trade-events subscriptions (`events`) or the quotes
    /// feed's MQTT sessions (`quotes`), decided when one opens.
    pub stream: Option<StreamKind>,
    /// The request's path, exactly, or its beginning.
    pub path: Option<String>,
    pub path_prefix: Option<String>,
    /// The app key that signed the request.
    pub app: Option<String>,
    /// The order's account.
    pub account: Option<String>,
    pub symbol: Option<String>,
    pub side: Option<String>,
    pub order_type: Option<String>,
    /// The order's quantity, bounds included.
    pub min_quantity: Option<f64>,
    pub max_quantity: Option<f64>,
    pub client_order_id_prefix: Option<String>,
    /// A window of the simulator's clock, New York time: `HH:MM` every day, or
    /// `YYYY-MM-DD HH:MM` once; from `from` (included) to `until` (excluded).
    pub from: Option<String>,
    pub until: Option<String>,
    /// Only the first `times` matches.
    pub times: Option<u64>,
    /// Each match with this chance (drawn from the seed).
    pub probability: Option<f64>,
}

/// What a rule does instead of the normal path.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The order is refused with this code and message, nothing stored.
    Reject {
        error_code: String,
        message: String,
        status: u16,
    },
    /// The call is answered with this status and does nothing.
    Status {
        status: u16,
        retry_after_seconds: Option<u32>,
    },
    /// The order is stored, then the connection closed without an answer.
    DropAnswer,
    /// The order is stored with this plan for its fills.
    Fill(FillPlan),
    /// The symbol's quotes stand still while the rule's window holds; halted, its orders are
    /// refused with this message and nothing fills.
    Hold { held: Held, message: String },
    /// The stream ends after this many events or messages: a trade-events subscription with
    /// UNAVAILABLE, a quotes session by closing its connection.
    EndStream { after: u64 },
    /// The symbol's days whose open falls in the rule's window (every day without one) open
    /// this many percent away from their previous close's course, and trade there.
    Gap { percent: f64 },
    /// Nothing but the delay.
    Delay,
}

/// A rule's `then`: its outcome, and how long the answer waits first.
#[derive(Debug, Clone, PartialEq)]
pub struct Then {
    pub outcome: Outcome,
    pub delay_ms: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub name: String,
    pub when: When,
    pub then: Then,
    pub enabled: bool,
    window: Option<Window>,
}

/// A loaded file of rules.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scenario {
    pub seed: u64,
    pub rules: Vec<Rule>,
}

/// Why a file of rules was refused: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ScenarioError {
    pub line: usize,
    pub reason: String,
}

/// A request or an order, as the rules see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Facts<'a> {
    pub path: &'a str,
    pub app: Option<&'a AppKey>,
    /// The simulator's clock.
    pub time_ms: i64,
    pub order: Option<OrderFacts<'a>>,
    pub stream: Option<StreamFacts<'a>>,
}

/// A stream as it opens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamFacts<'a> {
    pub kind: StreamKind,
    /// The accounts a trade-events subscription follows (none for the quotes feed).
    pub accounts: &'a [AccountId],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrderFacts<'a> {
    pub operation: Operation,
    pub account: &'a AccountId,
    pub symbol: &'a str,
    pub side: Side,
    pub order_type: OrderType,
    pub quantity: f64,
    pub client_order_id: &'a ClientOrderId,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    seed: Option<u64>,
    #[serde(default)]
    rule: Vec<toml::Spanned<RawRule>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    name: String,
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    when: When,
    then: RawThen,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawThen {
    reject: Option<String>,
    message: Option<String>,
    status: Option<u16>,
    retry_after_seconds: Option<u32>,
    drop_answer: Option<String>,
    delay_ms: Option<u64>,
    fill: Option<String>,
    slices: Option<u32>,
    every_seconds: Option<f64>,
    ratio: Option<f64>,
    then: Option<String>,
    slippage_bps: Option<f64>,
    halt: Option<bool>,
    freeze_quotes: Option<bool>,
    end_after: Option<u64>,
    gap_percent: Option<f64>,
}

/// The conditions that name something of an order: a rule naming one is decided on orders.
const ORDER_CONDITIONS: [&str; 8] = [
    "operation",
    "account",
    "symbol",
    "side",
    "order_type",
    "min_quantity",
    "max_quantity",
    "client_order_id_prefix",
];

impl When {
    /// The conditions this `when` names, in the file's terms.
    fn named(&self) -> impl Iterator<Item = &'static str> {
        [
            ("operation", self.operation.is_some()),
            ("stream", self.stream.is_some()),
            ("path", self.path.is_some()),
            ("path_prefix", self.path_prefix.is_some()),
            ("app", self.app.is_some()),
            ("account", self.account.is_some()),
            ("symbol", self.symbol.is_some()),
            ("side", self.side.is_some()),
            ("order_type", self.order_type.is_some()),
            ("min_quantity", self.min_quantity.is_some()),
            ("max_quantity", self.max_quantity.is_some()),
            ("client_order_id_prefix", self.client_order_id_prefix.is_some()),
            ("from", self.from.is_some()),
            ("until", self.until.is_some()),
            ("times", self.times.is_some()),
            ("probability", self.probability.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
    }

    /// The first condition named that is not `allowed`.
    fn beyond(&self, allowed: &[&str]) -> Option<&'static str> {
        self.named().find(|name| !allowed.contains(name))
    }
}

impl RawThen {
    /// The first field given that is not `allowed` (`halt` and `freeze_quotes` count when true).
    fn beyond(&self, allowed: &[&str]) -> Option<&'static str> {
        [
            ("reject", self.reject.is_some()),
            ("message", self.message.is_some()),
            ("status", self.status.is_some()),
            ("retry_after_seconds", self.retry_after_seconds.is_some()),
            ("drop_answer", self.drop_answer.is_some()),
            ("delay_ms", self.delay_ms.is_some()),
            ("fill", self.fill.is_some()),
            ("slices", self.slices.is_some()),
            ("every_seconds", self.every_seconds.is_some()),
            ("ratio", self.ratio.is_some()),
            ("then", self.then.is_some()),
            ("slippage_bps", self.slippage_bps.is_some()),
            ("halt", self.halt == Some(true)),
            ("freeze_quotes", self.freeze_quotes == Some(true)),
            ("end_after", self.end_after.is_some()),
            ("gap_percent", self.gap_percent.is_some()),
        ]
        .into_iter()
        .find_map(|(name, given)| (given && !allowed.contains(&name)).then_some(name))
    }
}

/// The statuses a rule may answer with instead of the call's.
const FAULT_STATUSES: [u16; 4] = [429, 500, 502, 503];

impl Scenario {
    /// Reads and checks a file of rules.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > MAX_FILE_BYTES {
            return Err(ScenarioError {
                line: 1,
                reason: format!("the file is larger than {MAX_FILE_BYTES} bytes"),
            });
        }
        let raw: RawFile = toml::from_str(text).map_err(|e| ScenarioError {
            line: line_of(text, e.span()),
            reason: e.message().to_owned(),
        })?;
        if raw.rule.len() > MAX_RULES {
            return Err(ScenarioError {
                line: line_of(text, Some(raw.rule[MAX_RULES].span())),
                reason: format!("at most {MAX_RULES} rules"),
            });
        }
        let mut rules: Vec<Rule> = Vec::with_capacity(raw.rule.len());
        for spanned in raw.rule {
            let line = line_of(text, Some(spanned.span()));
            let refuse = |reason: String| ScenarioError { line, reason };
            let raw = spanned.into_inner();
            // Printable ASCII: the name goes back in a header of every answer the rule touches.
            let printable = raw.name.bytes().all(|b| (b' '..=b'~').contains(&b));
            if raw.name.trim().is_empty() || raw.name.len() > 100 || !printable {
                return Err(refuse(
                    "a rule's name: 1 to 100 printable ASCII characters (it is sent back in x-signet-scenario)".into(),
                ));
            }
            if rules.iter().any(|r| r.name == raw.name) {
                return Err(refuse(format!("two rules are named {:?}", raw.name)));
            }
            let rule = Rule::check(raw).map_err(refuse)?;
            rules.push(rule);
        }
        Ok(Scenario {
            seed: raw.seed.unwrap_or(0),
            rules,
        })
    }

    /// The rules (their indices, in the file's order) whose conditions hold for `facts` at
    /// `stage`: each one's match is counted, and the first that [`Scenario::applies`] to its
    /// match decides.
    pub fn candidates(&self, stage: Stage, facts: &Facts<'_>) -> Vec<usize> {
        (0..self.rules.len())
            .filter(|&i| {
                let rule = &self.rules[i];
                rule.enabled && rule.stage() == stage && rule.matches(facts)
            })
            .collect()
    }

    /// Whether rule `index` applies to its `n`-th match (from 1): within its `times`, and drawn
    /// with its `probability` from the seed and `n`.
    pub fn applies(&self, index: usize, n: u64) -> bool {
        let when = &self.rules[index].when;
        when.times.is_none_or(|times| n <= times)
            && when.probability.is_none_or(|p| chance(self.seed, index as u64, n) < p)
    }
}

/// For the tests: what the core's `Scenarios` does with the store's counts, with counts of their own.
#[cfg(test)]
impl Scenario {
    /// The rule that decides `facts` at `stage`, counting each candidate's match with `hit`
    /// (which returns the match's number, from 1).
    fn decide(&self, stage: Stage, facts: &Facts<'_>, mut hit: impl FnMut(&Rule) -> u64) -> Option<&Rule> {
        self.candidates(stage, facts)
            .into_iter()
            .find(|&index| self.applies(index, hit(&self.rules[index])))
            .map(|index| &self.rules[index])
    }
}

impl Rule {
    fn check(raw: RawRule) -> Result<Rule, String> {
        let when = raw.when;
        if let Some(p) = when.probability
            && !(p > 0.0 && p <= 1.0)
        {
            return Err(format!("probability {p}: above 0, at most 1"));
        }
        if when.times == Some(0) {
            return Err("times: at least 1".into());
        }
        for (name, value) in [("path", &when.path), ("path_prefix", &when.path_prefix)] {
            if value.as_deref().is_some_and(|p| !p.starts_with('/')) {
                return Err(format!("{name} begins with /"));
            }
        }
        if let Some(side) = &when.side
            && Side::parse(side).is_none()
        {
            return Err(format!("side {side:?}: one of {}", Side::VALUES.join(", ")));
        }
        if let Some(kind) = &when.order_type
            && OrderType::parse(kind).is_none()
        {
            return Err(format!("order_type {kind:?}: one of {}", OrderType::VALUES.join(", ")));
        }
        if let (Some(min), Some(max)) = (when.min_quantity, when.max_quantity)
            && min > max
        {
            return Err(format!("min_quantity {min} is above max_quantity {max}"));
        }
        let window = match (&when.from, &when.until) {
            (None, None) => None,
            (from, until) => Some(Window::parse(from.as_deref(), until.as_deref())?),
        };
        let then = raw.then;
        if then.halt == Some(true) || then.freeze_quotes == Some(true) || then.gap_percent.is_some() {
            let outcome = hold(&when, &then)?;
            return Ok(Rule {
                name: raw.name,
                when,
                then: Then { outcome, delay_ms: 0 },
                enabled: raw.enabled.unwrap_or(true),
                window,
            });
        }
        if when.stream.is_some() || then.end_after.is_some() {
            let outcome = end_stream(&when, &then)?;
            return Ok(Rule {
                name: raw.name,
                when,
                then: Then { outcome, delay_ms: 0 },
                enabled: raw.enabled.unwrap_or(true),
                window,
            });
        }
        let delay_ms = then.delay_ms.unwrap_or(0);
        if delay_ms > MAX_DELAY_MS {
            return Err(format!("delay_ms: at most {MAX_DELAY_MS}"));
        }
        let fill = fill_plan(&raw.name, &then)?;
        let outcome = match (&then.reject, then.status, &then.drop_answer) {
            (None, None, None) if let Some(plan) = fill => Outcome::Fill(plan),
            _ if fill.is_some() => return Err("then: one of reject, status, drop_answer and a fill".into()),
            (Some(code), status, None) => {
                let status = status.unwrap_or(400);
                if !(400..500).contains(&status) {
                    return Err(format!("a rejection's status is a 4xx, not {status}"));
                }
                if code.is_empty() || code.len() > 64 || !code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
                    return Err(format!("reject {code:?}: an error code, capitals and underscores"));
                }
                Outcome::Reject {
                    error_code: code.clone(),
                    message: then
                        .message
                        .clone()
                        .unwrap_or_else(|| "refused by a scenario rule".into()),
                    status,
                }
            }
            (None, Some(status), None) => {
                if !FAULT_STATUSES.contains(&status) {
                    return Err(format!("status {status}: one of 429, 500, 502, 503"));
                }
                Outcome::Status {
                    status,
                    retry_after_seconds: then.retry_after_seconds,
                }
            }
            (None, None, Some(when_dropped)) => {
                if when_dropped != "after_commit" {
                    return Err(format!("drop_answer {when_dropped:?}: only \"after_commit\""));
                }
                Outcome::DropAnswer
            }
            (None, None, None) if delay_ms > 0 => Outcome::Delay,
            (None, None, None) => {
                return Err("then: reject, status, drop_answer, fill, slippage_bps or delay_ms".into());
            }
            _ => return Err("then: one of reject, status and drop_answer".into()),
        };
        if then.retry_after_seconds.is_some() && !matches!(outcome, Outcome::Status { .. }) {
            return Err("retry_after_seconds goes with a status".into());
        }
        if then.message.is_some() && !matches!(outcome, Outcome::Reject { .. }) {
            return Err("message goes with reject".into());
        }
        let rule = Rule {
            name: raw.name,
            when,
            then: Then { outcome, delay_ms },
            enabled: raw.enabled.unwrap_or(true),
            window,
        };
        let orders_only = matches!(
            rule.then.outcome,
            Outcome::Reject { .. } | Outcome::DropAnswer | Outcome::Fill(_)
        );
        if orders_only && rule.stage() != Stage::Order {
            return Err("reject, drop_answer and fills need an order to act on: name an operation (place, replace or cancel) or something of the order".into());
        }
        if rule.when.operation.is_some_and(|o| o != Operation::Place)
            && matches!(rule.then.outcome, Outcome::DropAnswer | Outcome::Fill(_))
        {
            return Err("drop_answer and fills act on placements only".into());
        }
        Ok(rule)
    }

    /// When the rule is decided: a rule that names anything of an order, when one is.
    pub fn stage(&self) -> Stage {
        if matches!(self.then.outcome, Outcome::Hold { .. } | Outcome::Gap { .. }) {
            return Stage::Market;
        }
        if self.when.stream.is_some() {
            return Stage::Stream;
        }
        let of_an_order = self.when.named().any(|name| ORDER_CONDITIONS.contains(&name));
        if of_an_order { Stage::Order } else { Stage::Request }
    }

    /// Whether every condition of `when` holds for `facts` (the counts aside).
    pub fn matches(&self, facts: &Facts<'_>) -> bool {
        let w = &self.when;
        let path = w.path.as_deref().is_none_or(|p| facts.path == p)
            && w.path_prefix.as_deref().is_none_or(|p| facts.path.starts_with(p));
        let app = w.app.as_deref().is_none_or(|a| facts.app.is_some_and(|f| f == a));
        let window = self.window.as_ref().is_none_or(|window| window.holds(facts.time_ms));
        let order = match (self.stage(), facts.order) {
            (Stage::Request, _) => true,
            (Stage::Stream, _) => facts.stream.is_some_and(|stream| {
                w.stream == Some(stream.kind)
                    && w.account
                        .as_deref()
                        .is_none_or(|a| stream.accounts.iter().any(|s| s == a))
            }),
            (Stage::Order | Stage::Market, None) => false,
            (Stage::Market, Some(_)) => false,
            (Stage::Order, Some(o)) => {
                w.operation.unwrap_or(Operation::Place) == o.operation
                    && w.account.as_deref().is_none_or(|a| a == o.account)
                    && w.symbol.as_deref().is_none_or(|s| s.eq_ignore_ascii_case(o.symbol))
                    && w.side.as_deref().is_none_or(|s| Side::parse(s) == Some(o.side))
                    && w.order_type
                        .as_deref()
                        .is_none_or(|t| OrderType::parse(t) == Some(o.order_type))
                    && w.min_quantity.is_none_or(|min| o.quantity >= min)
                    && w.max_quantity.is_none_or(|max| o.quantity <= max)
                    && w.client_order_id_prefix
                        .as_deref()
                        .is_none_or(|p| o.client_order_id.starts_with(p))
            }
        };
        path && app && window && order
    }
}

/// The message a halted symbol's orders are refused with, unless the rule gives one.
pub const HALTED: &str = "trading in the symbol is halted";

/// A `then` that holds a symbol still (`halt = true` or `freeze_quotes = true`): it names the
/// symbol and when the hold begins (`from`), and nothing else of a request or an order, since
/// it is a state of the market rather than an answer to one.
fn hold(when: &When, then: &RawThen) -> Result<Outcome, String> {
    let kinds = [
        then.halt == Some(true),
        then.freeze_quotes == Some(true),
        then.gap_percent.is_some(),
    ];
    if kinds.iter().filter(|&&k| k).count() > 1 {
        return Err("one of halt, freeze_quotes and gap_percent (a halt freezes the quotes too)".into());
    }
    if let Some(percent) = then.gap_percent {
        if when.symbol.is_none() {
            return Err("gap_percent names a symbol".into());
        }
        if !(percent > -90.0 && percent <= 100.0) || percent == 0.0 {
            return Err(format!("gap_percent {percent}: above -90, at most 100, not 0"));
        }
    } else if when.symbol.is_none() || when.from.is_none() {
        return Err("halt and freeze_quotes name a symbol and when the hold begins (from)".into());
    }
    if let Some(name) = when.beyond(&["symbol", "from", "until"]) {
        return Err(format!(
            "{name} does not go with a halt, a freeze or a gap: they move the whole symbol"
        ));
    }
    let allowed: &[&str] = if then.halt == Some(true) {
        &["halt", "message"]
    } else {
        &["freeze_quotes", "gap_percent"]
    };
    if then.beyond(allowed).is_some() {
        return Err("a halt takes a message, a freeze or a gap nothing else".into());
    }
    Ok(if let Some(percent) = then.gap_percent {
        Outcome::Gap { percent }
    } else if then.halt == Some(true) {
        Outcome::Hold {
            held: Held::Halted,
            message: then.message.clone().unwrap_or_else(|| HALTED.to_owned()),
        }
    } else {
        Outcome::Hold {
            held: Held::Frozen,
            message: String::new(),
        }
    })
}

/// The most events or messages a rule lets a stream carry before it ends.
pub const MAX_END_AFTER: u64 = 1_000_000;

/// A `then` that ends streams (`end_after`), for a `when` that names the kind of stream and
/// nothing of a request or an order but its app, its account (trade events), its time, `times`
/// and `probability`.
fn end_stream(when: &When, then: &RawThen) -> Result<Outcome, String> {
    let Some(kind) = when.stream else {
        return Err("end_after ends streams: name one with stream = \"events\" or \"quotes\"".into());
    };
    let Some(after) = then.end_after else {
        return Err("a rule on a stream ends it: then = { end_after = N }".into());
    };
    if after > MAX_END_AFTER {
        return Err(format!("end_after {after}: at most {MAX_END_AFTER}"));
    }
    let mut allowed = vec!["stream", "app", "from", "until", "times", "probability"];
    if kind == StreamKind::Events {
        allowed.push("account");
    }
    if let Some(name) = when.beyond(&allowed) {
        return Err(format!("{name} does not go with a stream rule"));
    }
    if then.beyond(&["end_after"]).is_some() {
        return Err("a stream rule's then is end_after alone".into());
    }
    Ok(Outcome::EndStream { after })
}

/// A symbol held still by a rule, as the simulator needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hold {
    pub rule: String,
    pub symbol: String,
    pub held: Held,
    window: Window,
}

impl Hold {
    /// When the hold under way at `time_ms` began, if one is.
    pub fn since(&self, time_ms: i64) -> Option<i64> {
        self.window.began(time_ms)
    }
}

/// A symbol's days moved by a rule's gap, as the simulator needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Gap {
    pub rule: String,
    pub symbol: String,
    /// The share of the price the days move by (-0.08 for `gap_percent = -8`).
    pub ratio: f64,
    window: Option<Window>,
}

impl Gap {
    /// Whether New York `day` opens gapped: its core open falls in the rule's window.
    pub fn on(&self, day: i32) -> bool {
        self.window.is_none_or(|w| w.holds(utc_ms_of(day, CORE_OPEN)))
    }
}

/// What the rules switched on do to the market: the symbols held still, and the days gapped.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MarketRules {
    pub holds: Vec<Hold>,
    pub gaps: Vec<Gap>,
}

impl Scenario {
    /// The rules switched on that act on the market.
    pub fn market_rules(&self) -> MarketRules {
        let gaps = self
            .rules
            .iter()
            .filter(|rule| rule.enabled)
            .filter_map(|rule| match (&rule.then.outcome, &rule.when.symbol) {
                (Outcome::Gap { percent }, Some(symbol)) => Some(Gap {
                    rule: rule.name.clone(),
                    symbol: symbol.to_ascii_uppercase(),
                    ratio: percent / 100.0,
                    window: rule.window,
                }),
                _ => None,
            })
            .collect();
        MarketRules {
            holds: self.holds(),
            gaps,
        }
    }

    /// The holds of the rules switched on.
    pub fn holds(&self) -> Vec<Hold> {
        self.rules
            .iter()
            .filter(|rule| rule.enabled)
            .filter_map(|rule| match (&rule.then.outcome, &rule.when.symbol, rule.window) {
                (Outcome::Hold { held, .. }, Some(symbol), Some(window)) => Some(Hold {
                    rule: rule.name.clone(),
                    symbol: symbol.to_ascii_uppercase(),
                    held: *held,
                    window,
                }),
                _ => None,
            })
            .collect()
    }

    /// The rule that halts `symbol` at `time_ms`, if one does.
    pub fn halting(&self, symbol: &str, time_ms: i64) -> Option<&Rule> {
        self.rules.iter().find(|rule| {
            rule.enabled
                && matches!(rule.then.outcome, Outcome::Hold { held: Held::Halted, .. })
                && rule
                    .when
                    .symbol
                    .as_deref()
                    .is_some_and(|s| s.eq_ignore_ascii_case(symbol))
                && rule.window.is_some_and(|w| w.holds(time_ms))
        })
    }
}

/// The fill plan a rule's `then` asks for (`fill`, with its `slices`, `every_seconds`, `ratio`
/// and `then`, and `slippage_bps`), if any.
fn fill_plan(rule: &str, then: &RawThen) -> Result<Option<FillPlan>, String> {
    let decimal = |name: &str, x: f64| Decimal::try_from(x).map_err(|_| format!("{name} {x}: not a number"));
    let slippage_bps = match then.slippage_bps {
        Some(bps) if !(bps > 0.0 && bps <= MAX_SLIPPAGE_BPS) => {
            return Err(format!("slippage_bps {bps}: above 0, at most {MAX_SLIPPAGE_BPS}"));
        }
        Some(bps) => decimal("slippage_bps", bps)?,
        None => Decimal::ZERO,
    };
    let given = |name: &'static str, present: bool| present.then_some(name);
    let extras = [
        given("slices", then.slices.is_some()),
        given("every_seconds", then.every_seconds.is_some()),
        given("ratio", then.ratio.is_some()),
        given("then", then.then.is_some()),
    ];
    let allowed: &[&str] = match then.fill.as_deref() {
        Some("slices") => &["slices", "every_seconds"],
        Some("partial") => &["ratio", "then"],
        _ => &[],
    };
    if let Some(extra) = extras.into_iter().flatten().find(|e| !allowed.contains(e)) {
        return Err(format!(
            "{extra} does not go with fill = {:?}",
            then.fill.as_deref().unwrap_or("")
        ));
    }
    let shape = match then.fill.as_deref() {
        None if then.slippage_bps.is_some() => Shape::Market,
        None => return Ok(None),
        Some("slices") => {
            let slices = then.slices.ok_or("fill = \"slices\" needs slices")?;
            if !(2..=MAX_SLICES).contains(&slices) {
                return Err(format!("slices {slices}: 2 to {MAX_SLICES}"));
            }
            let every = then.every_seconds.unwrap_or(1.0);
            if !(0.0..=3600.0).contains(&every) {
                return Err(format!("every_seconds {every}: 0 to 3600"));
            }
            Shape::Slices {
                slices,
                every_ms: i64::try_from((decimal("every_seconds", every)? * Decimal::ONE_THOUSAND).round())
                    .map_err(|_| format!("every_seconds {every}: 0 to 3600"))?,
            }
        }
        Some("partial") => {
            let ratio = then.ratio.ok_or("fill = \"partial\" needs a ratio")?;
            if !(ratio > 0.0 && ratio < 1.0) {
                return Err(format!("ratio {ratio}: above 0, below 1"));
            }
            let after = match then.then.as_deref() {
                Some("cancel") => AfterPartial::Cancel,
                Some("rest") => AfterPartial::Rest,
                other => return Err(format!("then {:?}: \"cancel\" or \"rest\"", other.unwrap_or(""))),
            };
            Shape::Partial {
                ratio: decimal("ratio", ratio)?,
                then: after,
            }
        }
        Some("never") => Shape::Never,
        Some(other) => return Err(format!("fill {other:?}: \"slices\", \"partial\" or \"never\"")),
    };
    Ok(Some(FillPlan {
        rule: rule.to_owned(),
        shape,
        slippage_bps,
    }))
}

/// A window of the simulator's clock: seconds of each New York day, or New York moments.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Window {
    Daily {
        from: i64,
        until: i64,
    },
    Once {
        from: Option<(i32, i64)>,
        until: Option<(i32, i64)>,
    },
}

impl Window {
    fn parse(from: Option<&str>, until: Option<&str>) -> Result<Window, String> {
        let daily = |text: &str| -> Option<i64> {
            let (h, m) = text.split_once(':')?;
            let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
            ((0..24).contains(&h) && (0..60).contains(&m) && text.len() == 5).then_some(h * 3600 + m * 60)
        };
        let once = |text: &str| -> Option<(i32, i64)> {
            let (day, time) = text.split_once(' ')?;
            Some((parse_day(day)?, daily(time)?))
        };
        let bad = |text: &str| format!("{text:?} is not HH:MM nor YYYY-MM-DD HH:MM (New York time)");
        match (from.map(daily), until.map(daily)) {
            (Some(Some(f)), Some(Some(u))) => return Ok(Window::Daily { from: f, until: u }),
            (Some(Some(f)), None) => return Ok(Window::Daily { from: f, until: 86_400 }),
            (None, Some(Some(u))) => return Ok(Window::Daily { from: 0, until: u }),
            _ => {}
        }
        let moment = |text: Option<&str>| text.map(|t| once(t).ok_or_else(|| bad(t))).transpose();
        Ok(Window::Once {
            from: moment(from)?,
            until: moment(until)?,
        })
    }

    /// When the stretch of the window under way at `time_ms` began (none outside the window, or
    /// in one open at its start).
    fn began(&self, time_ms: i64) -> Option<i64> {
        if !self.holds(time_ms) {
            return None;
        }
        let ny = NewYork::of(time_ms);
        match *self {
            Window::Daily { from, until } if from > until && ny.second < until => Some(utc_ms_of(ny.day - 1, from)),
            Window::Daily { from, .. } => Some(utc_ms_of(ny.day, from)),
            Window::Once { from, .. } => from.map(|(day, second)| utc_ms_of(day, second)),
        }
    }

    fn holds(&self, time_ms: i64) -> bool {
        let ny = NewYork::of(time_ms);
        match *self {
            Window::Daily { from, until } if from <= until => (from..until).contains(&ny.second),
            // Across midnight.
            Window::Daily { from, until } => ny.second >= from || ny.second < until,
            Window::Once { from, until } => {
                let at = (ny.day, ny.second);
                from.is_none_or(|f| at >= f) && until.is_none_or(|u| at < u)
            }
        }
    }
}

/// A uniform number in [0, 1) for match `n` of rule `index`: the simulator's mixer, keyed by
/// the seed and the rule.
fn chance(seed: u64, index: u64, n: u64) -> f64 {
    Mix::new(seed, i64::try_from(index).unwrap_or(i64::MAX), 0).at(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The line (from 1) a byte offset of `text` falls on.
fn line_of(text: &str, span: Option<Range<usize>>) -> usize {
    let at = span.map_or(0, |s| s.start).min(text.len());
    text[..at].bytes().filter(|&b| b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    static APP: std::sync::LazyLock<AppKey> = std::sync::LazyLock::new(|| AppKey::from("app"));
    static ACCOUNT: std::sync::LazyLock<AccountId> = std::sync::LazyLock::new(|| AccountId::from("acct"));

    /// docs/scenarios.md's example: issue 28's, as written.
    const EXAMPLE: &str = include_str!("../../../testdata/scenarios/unhappy-paths.toml");

    fn order<'a>(symbol: &'a str, side: Side, quantity: f64, client_order_id: &'a str) -> Facts<'a> {
        Facts {
            path: "/openapi/trade/stock/order/place",
            app: Some(&APP),
            time_ms: 1_361_802_600_000,
            order: Some(OrderFacts {
                operation: Operation::Place,
                account: &ACCOUNT,
                symbol,
                side,
                order_type: OrderType::Market,
                quantity,
                // Leaked: a test's few ids live as long as the facts that name them.
                client_order_id: Box::leak(Box::new(ClientOrderId::from(client_order_id))),
            }),
            stream: None,
        }
    }

    fn decided<'a>(scenario: &'a Scenario, stage: Stage, facts: &Facts<'_>, hits: &mut [u64]) -> Option<&'a str> {
        let names: Vec<String> = scenario.rules.iter().map(|r| r.name.clone()).collect();
        scenario
            .decide(stage, facts, |rule| {
                let i = names.iter().position(|n| *n == rule.name).unwrap();
                hits[i] += 1;
                hits[i]
            })
            .map(|r| r.name.as_str())
    }

    #[test]
    fn the_example_reads_as_the_issue_means_it() {
        let scenario = Scenario::parse(EXAMPLE).unwrap();
        assert_eq!(scenario.seed, 7);
        assert_eq!(
            scenario.rules[0].then.outcome,
            Outcome::Reject {
                error_code: "ORDER_REJECTED_BY_SCENARIO".into(),
                message: "exchange rejected the order".into(),
                status: 400
            }
        );
        let stages: Vec<Stage> = scenario.rules.iter().map(Rule::stage).collect();
        assert_eq!(
            stages,
            [
                Stage::Order,
                Stage::Order,
                Stage::Order,
                Stage::Order,
                Stage::Order,
                Stage::Request
            ]
        );
        assert_eq!(
            scenario.rules[1].then.outcome,
            Outcome::Fill(FillPlan {
                rule: "AAPL in three slices".into(),
                shape: Shape::Slices {
                    slices: 3,
                    every_ms: 1000
                },
                slippage_bps: Decimal::ZERO,
            })
        );
        assert_eq!(
            scenario.rules[2].then.outcome,
            Outcome::Fill(FillPlan {
                rule: "half then cancelled".into(),
                shape: Shape::Partial {
                    ratio: Decimal::new(5, 1),
                    then: AfterPartial::Cancel
                },
                slippage_bps: Decimal::ZERO,
            })
        );
        assert_eq!(
            scenario.rules[5].then,
            Then {
                outcome: Outcome::Delay,
                delay_ms: 300
            }
        );

        let mut hits = vec![0; 6];
        let mut decide = |facts: &Facts<'_>| decided(&scenario, Stage::Order, facts, &mut hits);
        assert_eq!(
            decide(&order("MSFT", Side::Buy, 100.0, "a")),
            Some("reject big MSFT buys")
        );
        assert_eq!(decide(&order("msft", Side::Buy, 99.0, "a")), None, "below the quantity");
        assert_eq!(decide(&order("MSFT", Side::Sell, 500.0, "a")), None, "a sell");
        assert_eq!(decide(&order("AAPL", Side::Buy, 1.0, "flaky-1")), Some("flaky gateway"));
        assert_eq!(decide(&order("AAPL", Side::Buy, 1.0, "flaky-1")), None, "times = 1");
        assert_eq!(decide(&order("AAPL", Side::Buy, 1.0, "lost-1")), Some("lost answer"));
        assert_eq!(
            decide(&order("AAPL", Side::Sell, 9.0, "slices-1")),
            Some("AAPL in three slices")
        );
        assert_eq!(decide(&order("MSFT", Side::Sell, 9.0, "slices-1")), None, "AAPL only");
        assert_eq!(
            decide(&order("MSFT", Side::Sell, 9.0, "half-1")),
            Some("half then cancelled")
        );
        let market_data = Facts {
            path: "/market-data/stocks/snapshots/list",
            order: None,
            ..order("AAPL", Side::Buy, 1.0, "x")
        };
        assert_eq!(
            decided(&scenario, Stage::Request, &market_data, &mut hits),
            Some("slow market data")
        );
        assert_eq!(decided(&scenario, Stage::Order, &market_data, &mut hits), None);
        let trading = Facts {
            path: "/trading/accounts",
            ..market_data
        };
        assert_eq!(decided(&scenario, Stage::Request, &trading, &mut hits), None);
    }

    /// That `text` is refused, for `reason`.
    fn assert_refused(text: &str, reason: &str) {
        let e = Scenario::parse(text).unwrap_err();
        assert!(e.reason.contains(reason), "{text}: {e}");
    }

    #[test]
    fn a_probability_draws_the_same_matches_from_the_same_seed() {
        let text = |seed: u64| {
            format!(
                "seed = {seed}\n[[rule]]\nname = \"flaky\"\nwhen = {{ path_prefix = \"/\", probability = 0.3 }}\nthen = {{ status = 500 }}\n"
            )
        };
        let run = |seed: u64| {
            let scenario = Scenario::parse(&text(seed)).unwrap();
            let facts = Facts {
                path: "/trading/accounts",
                app: None,
                time_ms: 0,
                order: None,
                stream: None,
            };
            let mut n = 0;
            (0..1000)
                .map(|_| {
                    scenario
                        .decide(Stage::Request, &facts, |_| {
                            n += 1;
                            n
                        })
                        .is_some()
                })
                .collect::<Vec<bool>>()
        };
        let first = run(7);
        assert_eq!(first, run(7), "the same seed, the same outcomes");
        assert_ne!(first, run(8));
        let applied = first.iter().filter(|&&a| a).count();
        assert!((250..350).contains(&applied), "{applied} of 1000 at 0.3");
    }

    #[test]
    fn a_bad_file_is_refused_whole_with_its_line() {
        let cases = [
            (
                "[[rule]]\nname = \"x\"\nwhen = { sidee = \"BUY\" }\nthen = { status = 503 }\n",
                3,
                "sidee",
            ),
            ("[[rule]]\nname = \"x\"\nthen = { status = 404 }\n", 1, "one of 429"),
            (
                "[[rule]]\nname = \"x\"\nthen = { reject = \"NO\" }\n",
                1,
                "name an operation",
            ),
            ("seed = 1\n\n[[rule]]\nname = \"x\"\nthen = {}\n", 3, "then:"),
            (
                "[[rule]]\nname = \"x\"\nwhen = { probability = 1.5, path = \"/a\" }\nthen = { status = 500 }\n",
                1,
                "probability",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { side = \"UP\", operation = \"place\" }\nthen = { status = 500 }\n",
                1,
                "side",
            ),
            (
                "[[rule]]\nname = \"x\"\nthen = { delay_ms = 5 }\n[[rule]]\nname = \"x\"\nthen = { delay_ms = 5 }\n",
                4,
                "two rules",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { from = \"25:00\" }\nthen = { delay_ms = 5 }\n",
                1,
                "HH:MM",
            ),
            (
                "[[rule]]\nname = \"x\"\nthen = { drop_answer = \"after_commit\", reject = \"A\" }\n",
                1,
                "one of reject",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { operation = \"place\" }\nthen = { status = 503, reject = \"A\" }\n",
                1,
                "4xx",
            ),
            ("seed = \"seven\"\n", 1, "invalid type"),
            (
                "[[rule]]\nname = \"caf\u{e9}\"\nthen = { delay_ms = 5 }\n",
                1,
                "printable ASCII",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { operation = \"cancel\" }\nthen = { drop_answer = \"after_commit\" }\n",
                1,
                "placements only",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { operation = \"replace\" }\nthen = { fill = \"never\" }\n",
                1,
                "placements only",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { path = \"/a\" }\nthen = { fill = \"never\" }\n",
                1,
                "an order to act on",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { symbol = \"A\" }\nthen = { fill = \"slices\", ratio = 0.5 }\n",
                1,
                "ratio does not go",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { symbol = \"A\" }\nthen = { fill = \"slices\", slices = 1 }\n",
                1,
                "slices 1",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { symbol = \"A\" }\nthen = { fill = \"partial\", ratio = 1.0, then = \"cancel\" }\n",
                1,
                "below 1",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { symbol = \"A\" }\nthen = { fill = \"partial\", ratio = 0.2 }\n",
                1,
                "\"cancel\" or \"rest\"",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { symbol = \"A\" }\nthen = { fill = \"sometimes\" }\n",
                1,
                "fill \"sometimes\"",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { symbol = \"A\" }\nthen = { slippage_bps = 5000 }\n",
                1,
                "slippage_bps",
            ),
            (
                "[[rule]]\nname = \"x\"\nwhen = { symbol = \"A\" }\nthen = { fill = \"never\", reject = \"NO\" }\n",
                1,
                "and a fill",
            ),
        ];
        for (text, line, reason) in cases {
            let e = Scenario::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.reason.contains(reason), "{text}: {e}");
        }
        let big = "#".repeat(MAX_FILE_BYTES + 1);
        assert!(Scenario::parse(&big).is_err());
    }

    #[test]
    fn a_halt_and_a_freeze_hold_their_symbol_from_their_window_s_start() {
        let scenario = Scenario::parse(
            "[[rule]]\nname = \"halt\"\nwhen = { symbol = \"aapl\", from = \"10:00\", until = \"10:15\" }\nthen = { halt = true, message = \"LULD pause\" }\n\
             [[rule]]\nname = \"freeze\"\nwhen = { symbol = \"MSFT\", from = \"2013-02-25 11:00\" }\nthen = { freeze_quotes = true }\n",
        )
        .unwrap();
        assert_eq!(scenario.rules[0].stage(), Stage::Market);
        assert_eq!(
            scenario.rules[0].then.outcome,
            Outcome::Hold {
                held: Held::Halted,
                message: "LULD pause".into()
            }
        );
        let open = 1_361_802_600_000; // 2013-02-25 09:30 New York
        let ten = open + 1_800_000;
        let holds = scenario.holds();
        assert_eq!(holds.len(), 2);
        let (halt, freeze) = (&holds[0], &holds[1]);
        assert_eq!((halt.symbol.as_str(), halt.held), ("AAPL", Held::Halted));
        assert_eq!(halt.since(ten - 1), None);
        assert_eq!(halt.since(ten + 60_000), Some(ten));
        assert_eq!(halt.since(ten + 900_000), None, "until is excluded");
        assert_eq!(halt.since(ten + 86_400_000 + 5), Some(ten + 86_400_000), "every day");
        assert_eq!(
            freeze.since(ten + 3_600_000 * 30),
            Some(ten + 3_600_000),
            "from then on"
        );
        assert_eq!(scenario.halting("AAPL", ten + 1).map(|r| r.name.as_str()), Some("halt"));
        assert_eq!(scenario.halting("MSFT", ten + 3_600_000), None, "frozen, not halted");
        assert_eq!(scenario.halting("AAPL", open), None);
        // Never a candidate for a request or an order.
        let placing = order("AAPL", Side::Buy, 1.0, "x");
        let placing = Facts {
            time_ms: ten + 1,
            ..placing
        };
        assert!(scenario.candidates(Stage::Order, &placing).is_empty());
        assert!(scenario.candidates(Stage::Request, &placing).is_empty());

        for (then, when, reason) in [
            ("{ halt = true }", "{ symbol = \"A\" }", "when the hold begins"),
            ("{ halt = true }", "{ from = \"10:00\" }", "name a symbol"),
            (
                "{ halt = true, freeze_quotes = true }",
                "{ symbol = \"A\", from = \"10:00\" }",
                "one of halt",
            ),
            ("{ gap_percent = -95 }", "{ symbol = \"A\" }", "above -90"),
            ("{ gap_percent = 5 }", "{ path = \"/a\" }", "names a symbol"),
            (
                "{ gap_percent = 5, delay_ms = 1 }",
                "{ symbol = \"A\" }",
                "a gap nothing else",
            ),
            (
                "{ halt = true }",
                "{ symbol = \"A\", from = \"10:00\", side = \"BUY\" }",
                "side does not go",
            ),
            (
                "{ freeze_quotes = true, message = \"m\" }",
                "{ symbol = \"A\", from = \"10:00\" }",
                "a freeze or a gap nothing else",
            ),
            (
                "{ halt = true, delay_ms = 5 }",
                "{ symbol = \"A\", from = \"10:00\" }",
                "a halt takes",
            ),
        ] {
            assert_refused(
                &format!("[[rule]]\nname = \"x\"\nwhen = {when}\nthen = {then}\n"),
                reason,
            );
        }
    }

    #[test]
    fn a_gap_moves_the_days_whose_open_falls_in_its_window() {
        let scenario = Scenario::parse(
            "[[rule]]\nname = \"every day\"\nwhen = { symbol = \"aapl\" }\nthen = { gap_percent = -8 }\n\
             [[rule]]\nname = \"one day\"\nwhen = { symbol = \"MSFT\", from = \"2013-02-26 00:00\", until = \"2013-02-27 00:00\" }\nthen = { gap_percent = 5 }\n",
        )
        .unwrap();
        assert_eq!(scenario.rules[0].stage(), Stage::Market);
        let rules = scenario.market_rules();
        assert!(rules.holds.is_empty());
        let (every, one) = (&rules.gaps[0], &rules.gaps[1]);
        assert_eq!((every.symbol.as_str(), every.ratio), ("AAPL", -0.08));
        let monday = parse_day("2013-02-25").unwrap();
        assert!(every.on(monday) && every.on(monday + 1));
        assert!(!one.on(monday) && one.on(monday + 1) && !one.on(monday + 2));
    }

    #[test]
    fn a_stream_rule_is_decided_as_its_kind_of_stream_opens() {
        let scenario = Scenario::parse(
            "[[rule]]\nname = \"events\"\nwhen = { stream = \"events\", account = \"A2\", times = 1 }\nthen = { end_after = 3 }\n\
             [[rule]]\nname = \"quotes\"\nwhen = { stream = \"quotes\", app = \"k\" }\nthen = { end_after = 0 }\n",
        )
        .unwrap();
        assert_eq!(scenario.rules[0].stage(), Stage::Stream);
        assert_eq!(scenario.rules[0].then.outcome, Outcome::EndStream { after: 3 });
        fn opening<'a>(kind: StreamKind, app: &'a AppKey, accounts: &'a [AccountId]) -> Facts<'a> {
            Facts {
                path: "",
                app: Some(app),
                time_ms: 0,
                order: None,
                stream: Some(StreamFacts { kind, accounts }),
            }
        }
        let accounts = &[AccountId::from("A1"), AccountId::from("A2")];
        let (x, k) = (AppKey::from("x"), AppKey::from("k"));
        let mut hits = vec![0; 2];
        let mut decide = |facts: &Facts<'_>| decided(&scenario, Stage::Stream, facts, &mut hits);
        assert_eq!(decide(&opening(StreamKind::Events, &x, accounts)), Some("events"));
        assert_eq!(decide(&opening(StreamKind::Events, &x, accounts)), None, "times = 1");
        assert_eq!(
            decide(&opening(StreamKind::Events, &x, &accounts[..1])),
            None,
            "not A2's"
        );
        assert_eq!(decide(&opening(StreamKind::Quotes, &x, &[])), None, "another app");
        assert_eq!(decide(&opening(StreamKind::Quotes, &k, &[])), Some("quotes"));
        let request = Facts {
            stream: None,
            ..opening(StreamKind::Quotes, &k, &[])
        };
        assert_eq!(decide(&request), None, "a request is no stream");

        for (text, reason) in [
            ("when = { stream = \"events\" }\nthen = { status = 503 }", "ends it"),
            (
                "when = { path = \"/a\" }\nthen = { end_after = 1 }",
                "name one with stream",
            ),
            (
                "when = { stream = \"events\", symbol = \"A\" }\nthen = { end_after = 1 }",
                "symbol does not go",
            ),
            (
                "when = { stream = \"quotes\", account = \"A\" }\nthen = { end_after = 1 }",
                "account does not go",
            ),
            (
                "when = { stream = \"events\" }\nthen = { end_after = 1, delay_ms = 5 }",
                "end_after alone",
            ),
            (
                "when = { stream = \"rivers\" }\nthen = { end_after = 1 }",
                "unknown variant",
            ),
        ] {
            assert_refused(&format!("[[rule]]\nname = \"x\"\n{text}\n"), reason);
        }
    }

    #[test]
    fn a_window_of_the_clock_bounds_a_rule() {
        let scenario = Scenario::parse(
            "[[rule]]\nname = \"open\"\nwhen = { from = \"09:30\", until = \"09:35\", path = \"/a\" }\nthen = { status = 503 }\n\
             [[rule]]\nname = \"once\"\nwhen = { from = \"2013-02-25 10:00\", path = \"/b\" }\nthen = { status = 502 }\n",
        )
        .unwrap();
        let at = |path: &'static str, ms: i64| Facts {
            path,
            app: None,
            time_ms: ms,
            order: None,
            stream: None,
        };
        let open = 1_361_802_600_000; // 2013-02-25 09:30 New York
        let decide = |facts: &Facts<'_>| scenario.decide(Stage::Request, facts, |_| 1).map(|r| r.name.clone());
        assert_eq!(decide(&at("/a", open)).as_deref(), Some("open"));
        assert_eq!(decide(&at("/a", open + 299_999)).as_deref(), Some("open"));
        assert_eq!(decide(&at("/a", open + 300_000)), None);
        assert_eq!(
            decide(&at("/a", open + 86_400_000)).as_deref(),
            Some("open"),
            "every day"
        );
        assert_eq!(decide(&at("/b", open)), None);
        assert_eq!(decide(&at("/b", open + 1_800_000)).as_deref(), Some("once"));
    }
}
