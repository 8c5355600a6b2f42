//! What subscribing a quotes session does, apart from the HTTP handlers ([`super`]), so that the
//! earlier generation's gRPC gateway subscribes its streams with the same code.

use signet_model::ErrorCode;
use signet_model::streaming::{StreamingSubscription, StreamingSubscriptions};

use super::super::stocks::data::{DEFAULT_DEPTH, MAX_DEPTH, check_category};
use crate::error::ApiError;
use crate::extract::Caller;
use crate::state::AppState;
use crate::streaming::feed;
use crate::streaming::sessions::{Session, kind};

/// Symbols one call may name (published: 50).
const MAX_SYMBOLS_PER_CALL: usize = 50;

/// The kinds named (`QUOTE`, `SNAPSHOT`, `TICK`), or `None` when none are.
pub(super) fn kinds(sub_types: Option<&[String]>) -> Result<Option<u8>, ApiError> {
    let Some(names) = sub_types.filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    let mut kinds = 0;
    for name in names {
        kinds |= kind::parse(name).ok_or_else(|| {
            ApiError::illegal_parameter(format!(
                "sub_types takes QUOTE, SNAPSHOT and TICK, not {:?}",
                name.chars().take(20).collect::<String>()
            ))
        })?;
    }
    Ok(Some(kinds))
}

/// The symbols named, upper-cased, each once, in the order given.
pub(super) fn symbols(symbols: Option<&[String]>) -> Result<Vec<String>, ApiError> {
    let mut out: Vec<String> = Vec::new();
    for symbol in symbols.unwrap_or_default() {
        let symbol = symbol.trim().to_ascii_uppercase();
        if !symbol.is_empty() && !out.contains(&symbol) {
            out.push(symbol);
        }
    }
    if out.len() > MAX_SYMBOLS_PER_CALL {
        return Err(ApiError::illegal_parameter(format!(
            "at most {MAX_SYMBOLS_PER_CALL} symbols a call, not {}",
            out.len()
        )));
    }
    Ok(out)
}

pub(super) fn session(
    state: &AppState,
    caller: &Caller,
    session_id: &str,
) -> Result<std::sync::Arc<Session>, ApiError> {
    if session_id.trim().is_empty() {
        return Err(ApiError::illegal_parameter("session_id is required"));
    }
    Ok(state.streams.session_of(session_id, &caller.app_key)?)
}

pub(super) fn answer(session: &Session) -> StreamingSubscriptions {
    let mut subscriptions: Vec<StreamingSubscription> = session
        .subscriptions()
        .into_values()
        .map(|s| StreamingSubscription {
            symbol: s.symbol,
            sub_types: kind::names(s.kinds),
            depth: s.depth,
        })
        .collect();
    subscriptions.sort_by(|a, b| a.symbol.cmp(&b.symbol));
    StreamingSubscriptions {
        session_id: session.id.clone(),
        subscriptions,
    }
}

/// What a subscribe or unsubscribe names, as sent.
pub(crate) struct Wanted<'a> {
    pub category: Option<&'a str>,
    pub sub_types: Option<&'a [String]>,
    pub symbols: Option<&'a [String]>,
}

/// Adds what `wanted` names to a bound `session`, and queues at once the snapshot, book and last
/// trade of what it did not receive before: the subscribe of HTTP and of the earlier
/// generation's gateway ([`crate::gateway`]).
pub(crate) async fn subscribe_session(
    state: &AppState,
    session: &Session,
    wanted: &Wanted<'_>,
    depth: Option<u32>,
) -> Result<(), ApiError> {
    check_category(wanted.category)?;
    let kinds = kinds(wanted.sub_types)?
        .ok_or_else(|| ApiError::illegal_parameter("sub_types is required: QUOTE, SNAPSHOT, TICK"))?;
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(ApiError::illegal_parameter(format!("depth must be 1 to {MAX_DEPTH}")));
    }
    let names = symbols(wanted.symbols)?;
    if names.is_empty() {
        return Err(ApiError::illegal_parameter("symbols is required"));
    }
    state.simulator.sync().await?;
    let mut found = Vec::with_capacity(names.len());
    let mut unknown = Vec::new();
    for name in names {
        match state.simulator.instrument_id(&name) {
            Some(id) => found.push((id, name)),
            None => unknown.push(name.chars().take(16).collect::<String>()),
        }
    }
    if !unknown.is_empty() {
        return Err(ApiError::new(
            ErrorCode::InstrumentNotFound,
            format!("no instrument has the symbol(s) {}", unknown.join(", ")),
        )
        .with_status(400));
    }
    let fresh = state.streams.subscribe(session, &found, kinds, depth)?;
    let first: Vec<_> = fresh
        .iter()
        .flat_map(|(id, subscription)| feed::current(&state.simulator, *id, subscription))
        .collect();
    if !first.is_empty() {
        state.streams.queue(session, first);
    }
    Ok(())
}

/// Removes what `wanted` names from `session`, or everything with `all`.
pub(crate) fn unsubscribe_session(
    state: &AppState,
    session: &Session,
    wanted: &Wanted<'_>,
    all: bool,
) -> Result<(), ApiError> {
    if all {
        state.streams.unsubscribe(session, None, kind::ALL);
        return Ok(());
    }
    check_category(wanted.category)?;
    let kinds = kinds(wanted.sub_types)?;
    let names = symbols(wanted.symbols)?;
    if kinds.is_none() && names.is_empty() {
        return Err(ApiError::illegal_parameter(
            "name the symbols, the sub_types, or both, or send unsubscribe_all: true",
        ));
    }
    let ids: Vec<i64> = names.iter().filter_map(|n| state.simulator.instrument_id(n)).collect();
    let instruments = (!names.is_empty()).then_some(ids.as_slice());
    state
        .streams
        .unsubscribe(session, instruments, kinds.unwrap_or(kind::ALL));
    Ok(())
}
