//! The signed calls of the quotes feed over MQTT (catalog §13.3): a session connected to
//! `--mqtt-listen` under the calling app is told which symbols and which messages to receive.
//! The first subscribe binds the session to the app ([`crate::streaming::Streams::bind`]):
//! until then its connection holds none of the app's sessions, and is closed after the bind
//! timeout.
//! The session receives at once the snapshot, book and last trade of what it newly subscribed
//! to, then what changes at each tick ([`crate::streaming::feed`]).

use axum::Json;
use axum::extract::State;
use signet_model::ErrorCode;
use signet_model::streaming::{
    StreamingSubscribeRequest, StreamingSubscription, StreamingSubscriptions, StreamingUnsubscribeRequest,
};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::stocks::{DEFAULT_DEPTH, MAX_DEPTH, check_category};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use crate::streaming::feed;
use crate::streaming::sessions::{Session, Topics, kind};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(subscribe))
        .routes(routes!(unsubscribe))
}

/// Symbols one call may name (published: 50).
const MAX_SYMBOLS_PER_CALL: usize = 50;

/// The kinds named (`QUOTE`, `SNAPSHOT`, `TICK`), or `None` when none are.
fn kinds(sub_types: Option<&[String]>) -> Result<Option<u8>, ApiError> {
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
fn symbols(symbols: Option<&[String]>) -> Result<Vec<String>, ApiError> {
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

fn session(state: &AppState, caller: &Caller, session_id: &str) -> Result<std::sync::Arc<Session>, ApiError> {
    if session_id.trim().is_empty() {
        return Err(ApiError::illegal_parameter("session_id is required"));
    }
    Ok(state.streams.session_of(session_id, &caller.app_key)?)
}

fn answer(session: &Session) -> StreamingSubscriptions {
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

#[utoipa::path(
    post, path = "/market-data/streaming/subscribe", tag = "market data",
    operation_id = "streamingSubscribe", summary = "Subscribe an MQTT session to quotes",
    description = "The session (the client id of a connection to the server's MQTT endpoint, `--mqtt-listen`, made \
        with the calling app's key as user name) receives, for each symbol, the messages of each `sub_types`: \
        `snapshot` (the snapshot call's numbers), `quote` (the depth call's book, `depth` levels a side) and `tick` \
        (the ticks call's trades), as protobuf on those topics, QoS 0. It receives at once the snapshot, book and \
        last trade now, then what changes at each tick of the simulator. A session receives at most 100 symbols \
        (`TOO_MANY_SYMBOLS`; the server's `--mqtt-max-symbols`). The first subscribe binds the session to the \
        app: until then its connection holds none of the app's sessions and is closed 30 s after it connected \
        (`--mqtt-bind-timeout`). An app binds at most 5 sessions on a node (`--mqtt-max-sessions`): a CONNECT \
        when it holds them is refused with code 105, and a subscribe that would bind one more (two connections \
        racing for the last) is answered `LIMIT_EXCEEDED` and its connection closed. A session lives on the node \
        it is connected to, and a disconnect forgets its subscriptions.",
    request_body = StreamingSubscribeRequest,
    responses(
        (status = 200, description = "What the session receives now", body = StreamingSubscriptions),
        (status = 400, description = "SESSION_NOT_CONNECTED: no connection of the app has this session id; \
            INSTRUMENT_NOT_FOUND naming every unknown symbol; TOO_MANY_SYMBOLS; LIMIT_EXCEEDED: the app holds its \
            most sessions already (the connection is closed); ILLEGAL_PARAMETER", body = signet_model::ErrorBody),
        (status = 403, description = "PERMISSION_DENIED: the session is connected under another app key", body = signet_model::ErrorBody),
    )
)]
async fn subscribe(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<StreamingSubscribeRequest>,
) -> Result<Json<StreamingSubscriptions>, ApiError> {
    let session = session(&state, &caller, &request.session_id)?;
    state.streams.bind(&session, Topics::Current)?;
    let wanted = Wanted {
        category: request.category.as_deref(),
        sub_types: request.sub_types.as_deref(),
        symbols: request.symbols.as_deref(),
    };
    subscribe_session(&state, &session, &wanted, request.depth).await?;
    Ok(Json(answer(&session)))
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

#[utoipa::path(
    post, path = "/market-data/streaming/unsubscribe", tag = "market data",
    operation_id = "streamingUnsubscribe", summary = "Unsubscribe an MQTT session",
    description = "Stops the `sub_types` named (all when none) of the `symbols` named (all when none), or \
        everything with `unsubscribe_all: true`. Symbols the session does not receive are ignored.",
    request_body = StreamingUnsubscribeRequest,
    responses(
        (status = 200, description = "What the session still receives", body = StreamingSubscriptions),
        (status = 400, description = "SESSION_NOT_CONNECTED: no connection of the app has this session id; ILLEGAL_PARAMETER", body = signet_model::ErrorBody),
        (status = 403, description = "PERMISSION_DENIED: the session is connected under another app key", body = signet_model::ErrorBody),
    )
)]
async fn unsubscribe(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(request): JsonBody<StreamingUnsubscribeRequest>,
) -> Result<Json<StreamingSubscriptions>, ApiError> {
    let session = session(&state, &caller, &request.session_id)?;
    let wanted = Wanted {
        category: request.category.as_deref(),
        sub_types: request.sub_types.as_deref(),
        symbols: request.symbols.as_deref(),
    };
    unsubscribe_session(&state, &session, &wanted, request.unsubscribe_all == Some(true))?;
    Ok(Json(answer(&session)))
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
