//! The signed calls of the quotes feed over MQTT (catalog §13.3): a session connected to
//! `--mqtt-listen` under the calling app is told which symbols and which messages to receive.
//! The first subscribe binds the session to the app ([`crate::streaming::Streams::bind`]):
//! until then its connection holds none of the app's sessions, and is closed after the bind
//! timeout.
//! The session receives at once the snapshot, book and last trade of what it newly subscribed
//! to, then what changes at each tick ([`crate::streaming::feed`]).

pub mod subscriptions;

use axum::Json;
use axum::extract::State;
use signet_model::streaming::{StreamingSubscribeRequest, StreamingSubscriptions, StreamingUnsubscribeRequest};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use self::subscriptions::{Wanted, answer, session, subscribe_session, unsubscribe_session};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use crate::streaming::sessions::Topics;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(subscribe))
        .routes(routes!(unsubscribe))
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
