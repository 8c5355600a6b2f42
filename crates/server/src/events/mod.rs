//! The trade-events subscription of the official client (`TradeEventsClient`, catalog §12):
//! `grpc.trade.event.EventService/Subscribe`, server streaming, on the HTTP address
//! ([`crate::grpc`] sends it here).
//!
//! A subscription is authenticated before anything is sent: the metadata's headers (the HTTP
//! checks 1 to 6 but `x-version`), the app key, the signature over the request's bytes as
//! received ([`signet_signing::grpc_verify`]), the nonce (spent in the same store as HTTP), and
//! every requested account the app's own. A refusal is one `AuthError` message, whose payload
//! is the HTTP error body `{"error_code", "message"}`, then the status `UNAUTHENTICATED`
//! (`PERMISSION_DENIED` for an account that is not the app's, `INVALID_ARGUMENT` for a request
//! that does not decode), so that the client stops instead of retrying. Then: `SubscribeSuccess`,
//! a `Ping` every [`EventsConfig::ping_interval`], and every order event of the accounts, until
//! the client goes, falls behind, the server stops, or the app is revoked (on any node: an
//! `AuthError` then `UNAUTHENTICATED`, ahead of what the client had not read, so that it stops).
//!
//! Before that, a subscription passes what every request of the address passes (the request id,
//! the trace span, the panic catcher, the limits on the head) and the limit per client address;
//! its message is at most [`MAX_SUBSCRIBE_BYTES`] (refused from its declared length, unread) and
//! names at most [`MAX_ACCOUNTS`] accounts, each counted once.

pub mod config;
pub mod proto;
pub mod slots;

pub use config::EventsConfig;

use std::future::Future as _;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use bytes::Bytes;
use secrecy::ExposeSecret;
use signet_core::scenarios::EndStream;
use signet_domain::scenarios::StreamKind;
use signet_model::ErrorCode;
use signet_model::ids::{AccountId, AppKey};
use signet_signing::{GrpcSigningMetadata, grpc_verify};
use tokio::sync::{mpsc, oneshot};
use tonic::{Code, Status};

use self::proto::{SUBSCRIBE_PATH, SubscribeRequest, SubscribeResponse, event_type};
use crate::auth::NONCE_MARGIN_SECS;
use crate::error::ApiError;
use crate::state::AppState;

/// The largest subscribe message accepted (it is a few bytes): a larger one is refused from its
/// declared length, before it is read.
pub const MAX_SUBSCRIBE_BYTES: usize = 64 * 1024;
/// The most accounts a subscription may name, once duplicates are removed.
pub const MAX_ACCOUNTS: usize = 100;

/// Answers the subscription ([`crate::grpc`] sends it here).
pub async fn handle(state: AppState, request: Request) -> Response {
    // The message's 5-byte frame header, then the message: nothing more is read.
    let request = request.map(|body| Body::new(http_body_util::Limited::new(body, MAX_SUBSCRIBE_BYTES + 5)));
    let mut grpc =
        tonic::server::Grpc::new(crate::grpc::codec::RawCodec).max_decoding_message_size(MAX_SUBSCRIBE_BYTES);
    let service = tower::service_fn(move |request: tonic::Request<Bytes>| subscribe(state.clone(), request));
    grpc.server_streaming(service, request).await.map(Body::new)
}

/// What a refusal sends: the `AuthError` payload's error, and the status that ends the stream.
struct Refusal {
    error: ApiError,
    code: Code,
}

impl From<ApiError> for Refusal {
    fn from(error: ApiError) -> Self {
        let code = match error.code {
            ErrorCode::AccountNotFoundOrDenied => Code::PermissionDenied,
            ErrorCode::TooManyRequests => Code::ResourceExhausted,
            ErrorCode::InternalError | ErrorCode::ServiceNotAvailable => Code::Unavailable,
            _ => Code::Unauthenticated,
        };
        Refusal { error, code }
    }
}

impl From<signet_core::CoreError> for Refusal {
    fn from(error: signet_core::CoreError) -> Self {
        ApiError::from(error).into()
    }
}

async fn subscribe(state: AppState, request: tonic::Request<Bytes>) -> Result<tonic::Response<EventStream>, Status> {
    let (metadata, _, bytes) = request.into_parts();
    let (app_key, accounts, subscribe_type) = match authenticate(&state, metadata.into_headers(), &bytes).await {
        Ok(subscription) => subscription,
        Err(refusal) => return Ok(refused(event_type::AUTH_ERROR, refusal)),
    };
    // The gate, once the subscription is read and authenticated (as HTTP's calls pass it).
    // UNAVAILABLE alone, which the official client retries: no AuthError, which it logs as
    // fatal.
    let restoring = || {
        let body = serde_json::json!({"error_code": ErrorCode::Restoring.as_str(),
            "message": "a checkpoint is being restored; subscribe again in a moment"});
        Ok(ended(Cut::status(Status::unavailable(body.to_string()))))
    };
    let Some(mut pass) = state.gate.enter() else {
        return restoring();
    };
    tokio::select! {
        opened = open(state.clone(), app_key, accounts, subscribe_type) => Ok(opened),
        () = pass.cut_off() => restoring(),
    }
}

/// The stream of an authenticated subscription, or its refusal (too many streams, a scenario's).
async fn open(
    state: AppState,
    app_key: AppKey,
    accounts: Vec<AccountId>,
    subscribe_type: u32,
) -> tonic::Response<EventStream> {
    let max = state.config.events.max_streams_per_app;
    let slot = match state.event_slots.open(&app_key, max).await {
        Ok(Some(slot)) => slot,
        Ok(None) => {
            let error = ApiError::new(
                ErrorCode::TooManyRequests,
                format!("this app has {max} open trade-events streams, the most allowed: close one first"),
            );
            let code = Code::ResourceExhausted;
            return refused(event_type::NUM_OF_CONN_EXCEED, Refusal { error, code });
        }
        Err(e) => return refused(event_type::AUTH_ERROR, ApiError::from(e).into()),
    };
    // A scenario rule may end the stream after some events.
    let now_ms = state.simulator.now_ms();
    let end = match state
        .scenarios
        .decide_stream(StreamKind::Events, &app_key, &accounts, now_ms)
        .await
    {
        Ok(end) => end,
        Err(e) => return refused(event_type::AUTH_ERROR, ApiError::from(e).into()),
    };
    if let Some(end) = &end {
        state.metrics.scenario_hit(&end.rule);
    }
    let (sender, receiver) = mpsc::channel(OUTGOING);
    let (cut, cut_off) = oneshot::channel();
    // Subscribed before SubscribeSuccess is sent, so that no later commit is missed.
    let events = state.events.subscribe(&accounts, subscribe_type);
    let config = state.config.events;
    let metrics = state.metrics.clone();
    let mut app = state.apps.hold(&app_key);
    metrics.event_stream(true, false);
    tokio::spawn(async move {
        let cut_off = stream(config, events, sender, cut, app.revoked(), end).await;
        metrics.event_stream(false, cut_off);
        drop(slot);
    });
    tonic::Response::new(EventStream {
        receiver,
        cut_off: Some(cut_off),
        last: None,
        ended: false,
    })
}

/// How the server ends a stream, ahead of what its client has not read: a last message (the
/// `AuthError` of a revoked app) if any, then the status.
struct Cut {
    last: Option<Bytes>,
    status: Status,
}

impl Cut {
    fn status(status: Status) -> Self {
        Cut { last: None, status }
    }

    /// A refusal's message (`AuthError`, `NumOfConnExceed`) with the HTTP error body, then its
    /// status.
    fn refusal(event_type: i32, Refusal { error, code }: Refusal) -> Self {
        let body = serde_json::json!({"error_code": error.code.as_str(), "message": error.message});
        Cut {
            last: Some(message(event_type, 0, body.to_string())),
            status: Status::new(code, error.message),
        }
    }
}

/// The stream of a refused subscription: one message of `event_type` (`AuthError` or
/// `NumOfConnExceed`) whose payload is the HTTP error body, then the refusal's status.
fn refused(event_type: i32, refusal: Refusal) -> tonic::Response<EventStream> {
    tracing::info!(
        error_code = refusal.error.code.as_str(),
        "trade-events subscription refused"
    );
    ended(Cut::refusal(event_type, refusal))
}

/// A stream that ends at once as `cut` says.
fn ended(cut: Cut) -> tonic::Response<EventStream> {
    let (_, receiver) = mpsc::channel(1);
    let (cutting, cut_off) = oneshot::channel();
    let _ = cutting.send(cut);
    tonic::Response::new(EventStream {
        receiver,
        cut_off: Some(cut_off),
        last: None,
        ended: false,
    })
}

/// The subscription's checks, cheapest first as for HTTP. Answers the app, the accounts
/// subscribed to (all the app's accounts when the request names none) and the requested
/// subscribe type.
async fn authenticate(
    state: &AppState,
    headers: axum::http::HeaderMap,
    bytes: &[u8],
) -> Result<(AppKey, Vec<AccountId>, u32), Refusal> {
    let (h, app, window_secs) =
        crate::auth::stream_caller(state, &headers, crate::generations::compat::Compat::Strict).await?;
    let signed = GrpcSigningMetadata {
        app_key: h.app_key,
        algorithm: h.algorithm.name(),
        signature_version: h.signature_version,
        nonce: h.nonce,
        timestamp: h.timestamp,
    };
    if !grpc_verify(&signed, bytes, app.secret.expose_secret(), h.signature) {
        return Err(ApiError::new(
            ErrorCode::IncorrectSign,
            "the signature does not match: check the secret and the string to sign of the subscription",
        )
        .into());
    }
    let expires_at_ms = (h.timestamp_secs + window_secs + NONCE_MARGIN_SECS) * 1000;
    if !state
        .nonces
        .remember(&app.app_key, h.nonce, expires_at_ms)
        .await
        .map_err(ApiError::from)?
    {
        return Err(ApiError::new(
            ErrorCode::DuplicatedRequest,
            "this x-signature-nonce was already used; every subscription needs a new nonce",
        )
        .into());
    }
    // A subscription spends the app's quota of other calls, as HTTP does, once its nonce is spent.
    crate::auth::spend_quota(state, &app.app_key, SUBSCRIBE_PATH).await?;
    let request = <SubscribeRequest as prost::Message>::decode(bytes).map_err(|_| Refusal {
        error: ApiError::illegal_parameter("the SubscribeRequest does not decode"),
        code: Code::InvalidArgument,
    })?;
    let requested = distinct(request.accounts);
    if requested.len() > MAX_ACCOUNTS {
        return Err(Refusal {
            error: ApiError::illegal_parameter(format!(
                "a subscription names at most {MAX_ACCOUNTS} accounts; this one names {} (none means all the app's accounts)",
                requested.len()
            )),
            code: Code::InvalidArgument,
        });
    }
    let accounts = if requested.is_empty() {
        state
            .accounts()
            .of_app(&app.app_key)
            .await
            .map_err(ApiError::from)?
            .into_iter()
            .map(|a| a.account_id)
            .collect()
    } else {
        let mut accounts = Vec::with_capacity(requested.len());
        for id in &requested {
            accounts.push(
                state
                    .accounts()
                    .owned_by(&app.app_key, &AccountId::from(id))
                    .await?
                    .account_id,
            );
        }
        accounts
    };
    Ok((app.app_key.clone(), accounts, request.subscribe_type))
}

/// `accounts` without their repetitions, in their order.
fn distinct(accounts: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::with_capacity(accounts.len());
    accounts.into_iter().filter(|id| seen.insert(id.clone())).collect()
}

/// Responses a subscription holds that its client has not taken yet.
const OUTGOING: usize = 16;

/// Feeds one subscription until its client goes away: `SubscribeSuccess`, pings, and the events
/// of its accounts and subscribe types. Only this task waits for its client: a subscriber
/// that fell more than the hub's capacity behind, or whose hub closed, is cut off through `cut`
/// with `UNAVAILABLE`, ahead of what it had not read; once `revoked` completes (its app was
/// revoked), with an `AuthError` and `UNAUTHENTICATED`. Once it carried the events a scenario
/// rule lets it (`end`), it ends after them with `UNAVAILABLE` naming the rule. Answers whether
/// it was cut off for falling behind.
async fn stream(
    config: EventsConfig,
    mut subscription: signet_core::hub::Subscription,
    sender: mpsc::Sender<Result<Bytes, Status>>,
    cut: oneshot::Sender<Cut>,
    revoked: impl Future<Output = ()>,
    end: Option<EndStream>,
) -> bool {
    let mut revoked = std::pin::pin!(revoked);
    if sender
        .send(Ok(message(event_type::SUBSCRIBE_SUCCESS, 0, String::new())))
        .await
        .is_err()
    {
        return false;
    }
    let mut sent = 0;
    let ended = |end: &EndStream| {
        tracing::info!(rule = %end.rule, events = end.after, "a scenario rule ends a trade-events stream");
        let mut status = Status::unavailable(format!(
            "ended by the scenario rule {:?} after {} events; subscribe again",
            end.rule, end.after
        ));
        if let Ok(name) = end.rule.parse() {
            status.metadata_mut().insert(signet_model::headers::SCENARIO, name);
        }
        // After what was sent, unlike a cut.
        Err(status)
    };
    if let Some(end) = end.as_ref().filter(|end| end.due(sent)) {
        let _ = sender.send(ended(end)).await;
        return false;
    }
    let period = config.ping_interval.max(Duration::from_millis(10));
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    let status = loop {
        tokio::select! {
            () = sender.closed() => return false,
            () = &mut revoked => {
                tracing::info!("a trade-events stream ends: its app was revoked");
                let error = ApiError::new(ErrorCode::Unauthorized, "this app key was revoked");
                let _ = cut.send(Cut::refusal(event_type::AUTH_ERROR, error.into()));
                return false;
            }
            _ = ping.tick() => {
                // A ping that finds the buffer full is not needed: the stream is not idle.
                if let Err(mpsc::error::TrySendError::Closed(_)) =
                    sender.try_send(Ok(message(event_type::PING, 0, String::new())))
                {
                    return false;
                }
            }
            received = subscription.events.recv() => match received {
                // Dropped from one of its accounts' lists, maybe still on another's.
                Some(_) | None if subscription.lagged.load(std::sync::atomic::Ordering::Relaxed) => {
                    break lagged(config);
                }
                // Waits for its client (a burst of fills may outrun it for a moment), never
                // longer than the hub lets it fall behind.
                Some(event) => {
                    tokio::select! {
                        permit = sender.reserve() => match permit {
                            Ok(permit) => permit.send(Ok(event.message.clone())),
                            Err(_) => return false,
                        },
                        () = subscription.cut.notified() => break lagged(config),
                    }
                    sent += 1;
                    if let Some(end) = end.as_ref().filter(|end| end.due(sent)) {
                        let _ = sender.send(ended(end)).await;
                        return false;
                    }
                }
                None => {
                    let _ = cut.send(Cut::status(Status::unavailable("the server ended the stream (shutting down, or restoring a checkpoint); subscribe again")));
                    return false;
                }
            },
        }
    };
    tracing::info!(reason = status.message(), "a trade-events subscriber is cut off");
    let _ = cut.send(Cut::status(status));
    true
}

fn lagged(config: EventsConfig) -> Status {
    Status::unavailable(format!(
        "this subscriber fell more than {} events behind and was cut off; subscribe again",
        config.buffer
    ))
}

/// A `SubscribeResponse` of the stream itself (success, ping, refusals), encoded.
fn message(event_type: i32, subscribe_type: u32, payload: String) -> Bytes {
    let response = SubscribeResponse {
        event_type,
        subscribe_type,
        content_type: String::new(),
        payload,
        request_id: String::new(),
        timestamp: signet_domain::simulator::clock::wall_clock_ms(),
    };
    Bytes::from(prost::Message::encode_to_vec(&response))
}

/// The responses of one subscription, as its task sends them; a cut-off comes first.
pub struct EventStream {
    receiver: mpsc::Receiver<Result<Bytes, Status>>,
    /// `None` once its task ended without cutting the stream off.
    cut_off: Option<oneshot::Receiver<Cut>>,
    /// The status that ends the stream after a cut-off's last message.
    last: Option<Status>,
    ended: bool,
}

impl futures_core::Stream for EventStream {
    type Item = Result<Bytes, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        if let Some(status) = self.last.take() {
            self.ended = true;
            return Poll::Ready(Some(Err(status)));
        }
        if let Some(cut_off) = self.cut_off.as_mut()
            && let Poll::Ready(cut) = Pin::new(cut_off).poll(cx)
        {
            self.cut_off = None;
            if let Ok(Cut { last, status }) = cut {
                let Some(last) = last else {
                    self.ended = true;
                    return Poll::Ready(Some(Err(status)));
                };
                self.last = Some(status);
                return Poll::Ready(Some(Ok(last)));
            }
        }
        self.receiver.poll_recv(cx)
    }
}

#[cfg(test)]
mod tests {
    use futures_core::Stream as _;

    use super::*;

    fn event(account: &str, n: usize) -> signet_core::hub::TradeEvent {
        signet_core::hub::TradeEvent::order(account.into(), n.to_string(), 0, format!("{{\"n\":\"{n}\"}}"))
    }

    fn open(hub: &signet_core::hub::EventHub) -> EventStream {
        let (sender, receiver) = mpsc::channel(OUTGOING);
        let (cut, cut_off) = oneshot::channel();
        let config = EventsConfig {
            ping_interval: Duration::from_secs(3600),
            ..EventsConfig::default()
        };
        tokio::spawn(stream(
            config,
            hub.subscribe(&["A".into()], proto::SUBSCRIBE_ORDER),
            sender,
            cut,
            std::future::pending(),
            None,
        ));
        EventStream {
            receiver,
            cut_off: Some(cut_off),
            last: None,
            ended: false,
        }
    }

    /// The next response, decoded as the client decodes it.
    async fn next(stream: &mut EventStream) -> Option<Result<SubscribeResponse, Status>> {
        let next = std::future::poll_fn(|cx| Pin::new(&mut *stream).poll_next(cx)).await;
        next.map(|r| r.map(|bytes| <SubscribeResponse as prost::Message>::decode(bytes).unwrap()))
    }

    #[test]
    fn accounts_named_twice_count_once_in_their_order() {
        let named = |ids: &[&str]| ids.iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(distinct(named(&["B", "A", "B", "C", "A"])), named(&["B", "A", "C"]));
        assert!(distinct(Vec::new()).is_empty());
    }

    #[tokio::test]
    async fn a_subscriber_that_does_not_read_is_cut_off_and_the_others_get_every_event() {
        let hub = signet_core::hub::EventHub::new(8);
        let mut reader = open(&hub);
        let mut sleeper = open(&hub);
        assert_eq!(
            next(&mut reader).await.unwrap().unwrap().event_type,
            event_type::SUBSCRIBE_SUCCESS
        );
        let total = OUTGOING * 3;
        let mut seen = Vec::new();
        for n in 0..total {
            hub.publish(event("A", n));
            hub.publish(event("B", n));
            while seen.len() <= n {
                let m = next(&mut reader).await.unwrap().unwrap();
                assert_eq!(m.event_type, event_type::ORDER);
                seen.push(m.request_id);
            }
        }
        let expected: Vec<String> = (0..total).map(|n| n.to_string()).collect();
        assert_eq!(seen, expected, "every event of account A, in order, once");
        // The sleeper's first read is the cut-off, then the end.
        let status = next(&mut sleeper).await.unwrap().unwrap_err();
        assert_eq!(status.code(), Code::Unavailable);
        assert!(next(&mut sleeper).await.is_none());
    }
}
