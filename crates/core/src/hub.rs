//! One node's fan-out of order and position events. The database's order events are the
//! source: each is written with its payloads in the transaction that changes the order (a fill's
//! with the position it left), and [`EventHub::follow`] reads those committed on any node (on
//! PostgreSQL, woken by its notifications) and publishes them; every open subscription holds a
//! receiver.
//!
//! Each subscription has a bounded queue, listed under each of its accounts with the subscribe
//! types it asked for: publishing an event touches only the subscribers of its account and type
//! and never waits, so a slow subscriber never slows the engine, and subscriptions of quiet
//! accounts cost nothing. A subscriber whose queue is full is dropped and marked lagged, and its
//! stream is ended with `UNAVAILABLE` (the client reconnects).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use parking_lot::{Mutex, MutexGuard};
use signet_domain::trading::events::{position_request_id, with_request_id};
use signet_model::events::{SUBSCRIBE_ORDER, SUBSCRIBE_POSITION, SubscribeResponse, event_type};
use signet_model::ids::AccountId;
use signet_store::{ChangeCursor, Store, StoreError};
use tokio::sync::{Notify, mpsc};

/// An event ready to send: its account and subscribe type (to pick the subscribers) and its
/// `SubscribeResponse`, encoded once for every subscriber.
#[derive(Debug, Clone)]
pub struct TradeEvent {
    pub account_id: AccountId,
    /// [`SUBSCRIBE_ORDER`] or [`SUBSCRIBE_POSITION`].
    pub subscribe_type: u32,
    pub message: Bytes,
}

impl TradeEvent {
    /// `payload` (with its `request_id`) as an order event: `eventType` 1024, `subscribeType` 1.
    pub fn order(account_id: AccountId, request_id: String, time_ms: i64, payload: String) -> Self {
        Self::new(SUBSCRIBE_ORDER, account_id, request_id, time_ms, payload)
    }

    /// `payload` (with its `request_id`) as a position event: `eventType` 1028,
    /// `subscribeType` 2.
    pub fn position(account_id: AccountId, request_id: String, time_ms: i64, payload: String) -> Self {
        Self::new(SUBSCRIBE_POSITION, account_id, request_id, time_ms, payload)
    }

    fn new(subscribe_type: u32, account_id: AccountId, request_id: String, time_ms: i64, payload: String) -> Self {
        let event_type = match subscribe_type {
            SUBSCRIBE_POSITION => event_type::POSITION,
            _ => event_type::ORDER,
        };
        let response = SubscribeResponse {
            event_type,
            subscribe_type,
            content_type: "application/json".into(),
            payload,
            request_id,
            timestamp: time_ms,
        };
        TradeEvent {
            account_id,
            subscribe_type,
            message: Bytes::from(prost::Message::encode_to_vec(&response)),
        }
    }
}

pub struct EventHub {
    /// Each account's subscribers; `None` once the server is shutting down, which closes every
    /// subscription's queue.
    subscribers: Mutex<Option<HashMap<AccountId, Vec<Subscriber>>>>,
    /// Events a subscriber may fall behind.
    capacity: usize,
    /// Woken when this node committed order events.
    committed: Notify,
    /// Moved on by every [`EventHub::restart`]: the reader then starts again from now.
    restarts: AtomicU64,
}

/// A subscription's queue, as its accounts list it.
struct Subscriber {
    /// The subscribe types it asked for (a bit set of [`TradeEvent::subscribe_type`]).
    types: u32,
    sender: mpsc::Sender<Arc<TradeEvent>>,
    lagged: Arc<AtomicBool>,
    cut: Arc<Notify>,
}

/// What a subscription reads: its events, and whether it was dropped for falling behind (its
/// queue then closes).
pub struct Subscription {
    pub events: mpsc::Receiver<Arc<TradeEvent>>,
    pub lagged: Arc<AtomicBool>,
    /// Woken when it is marked lagged, for a stream that waits on its client meanwhile.
    pub cut: Arc<Notify>,
}

impl EventHub {
    /// A hub whose subscribers may fall at most `capacity` events behind.
    pub fn new(capacity: usize) -> Self {
        EventHub {
            subscribers: Mutex::new(Some(HashMap::new())),
            capacity: capacity.max(1),
            committed: Notify::new(),
            restarts: AtomicU64::new(0),
        }
    }

    /// The events of `accounts` and of the subscribe types `types` (a bit set) published from
    /// now on (closed at once when shutting down).
    pub fn subscribe(&self, accounts: &[AccountId], types: u32) -> Subscription {
        let (sender, events) = mpsc::channel(self.capacity);
        let lagged = Arc::new(AtomicBool::new(false));
        let cut = Arc::new(Notify::new());
        if let Some(all) = &mut *self.subscribers() {
            // Forget the subscriptions that ended since.
            all.retain(|_, list| {
                list.retain(|s| !s.sender.is_closed());
                !list.is_empty()
            });
            for account in accounts {
                all.entry(account.clone()).or_default().push(Subscriber {
                    types,
                    sender: sender.clone(),
                    lagged: lagged.clone(),
                    cut: cut.clone(),
                });
            }
        }
        Subscription { events, lagged, cut }
    }

    fn subscribers(&self) -> MutexGuard<'_, Option<HashMap<AccountId, Vec<Subscriber>>>> {
        self.subscribers.lock()
    }

    /// Hands `event` to the subscribers of its account and type; never waits.
    pub fn publish(&self, event: TradeEvent) {
        let mut subscribers = self.subscribers();
        let Some(list) = subscribers.as_mut().and_then(|all| all.get_mut(&event.account_id)) else {
            return;
        };
        let event = Arc::new(event);
        list.retain(|s| {
            if s.types & event.subscribe_type == 0 {
                return true;
            }
            match s.sender.try_send(event.clone()) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    s.lagged.store(true, Ordering::Relaxed);
                    s.cut.notify_one();
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
    }

    /// Whether any stream is open on this node.
    fn followed(&self) -> bool {
        self.subscribers()
            .as_ref()
            .is_some_and(|all| all.values().flatten().any(|s| !s.sender.is_closed()))
    }

    /// After a checkpoint's restore: ends every stream (its client subscribes again and sees the
    /// restored state), and reads the database's events from now on, not from where it was.
    pub fn restart(&self) {
        self.restarts.fetch_add(1, Ordering::SeqCst);
        if let Some(all) = &mut *self.subscribers() {
            all.clear();
        }
        self.committed.notify_one();
    }

    /// Tells the reader of the database's order events that some may have committed on this
    /// node (a write that commits them calls it after its commit).
    pub fn wake(&self) {
        self.committed.notify_one();
    }

    /// Follows the database's order events until `shutdown`, and publishes them: this node's
    /// at once ([`Self::wake`]), other nodes' when PostgreSQL notifies of them, and at the
    /// latest a second after their commit (a notification may be lost to a reconnection).
    /// Without subscribers it only keeps its place, so a stream sees the events committed after
    /// it opened (and at most those of the moment before). Ends every stream when done.
    pub async fn follow(self: Arc<Self>, store: Arc<dyn Store>, shutdown: impl Future<Output = ()> + Send) {
        let notifications = {
            let (hub, store) = (self.clone(), store.clone());
            tokio::spawn(async move {
                loop {
                    if let Err(e) = store.notify_order_events(&hub.committed).await {
                        tracing::warn!(error = %e, "order event notifications lost; listening again in 1 s");
                    } else {
                        return;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            })
        };
        let mut reader = Reader::default();
        tokio::pin!(shutdown);
        loop {
            if let Err(e) = reader.read(&self, store.as_ref()).await {
                tracing::warn!(error = %e, "reading the order events failed; trying again");
            }
            tokio::select! {
                () = &mut shutdown => break,
                () = self.committed.notified() => {}
                () = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
        }
        notifications.abort();
        // Every subscription then sees its queue closed, once it has read what was sent.
        self.subscribers().take();
    }
}

/// Where the reader of the order events is, and which of the events it may read again it sent.
#[derive(Default)]
struct Reader {
    /// The hub's restarts this reader has seen.
    restarts: u64,
    cursor: Option<ChangeCursor>,
    /// The ids sent that a read from `cursor` may return again, with where they stand.
    sent: HashMap<i64, u64>,
}

impl Reader {
    async fn read(&mut self, hub: &EventHub, store: &dyn Store) -> Result<(), StoreError> {
        let restarts = hub.restarts.load(Ordering::SeqCst);
        if restarts != self.restarts {
            *self = Reader {
                restarts,
                ..Reader::default()
            };
        }
        let cursor = match self.cursor {
            Some(cursor) => cursor,
            None => store.order_events(None).await?.cursor,
        };
        self.cursor = Some(cursor);
        loop {
            let cursor = self.cursor.unwrap_or(cursor);
            let batch = store.order_events(Some(cursor)).await?;
            // Counted after the read: an event read while nobody followed committed before any
            // stream opened, and is only marked as seen (PostgreSQL's cursor may return events
            // committed long before); a stream that opens later reads what commits after it.
            let followed = hub.followed();
            for event in batch.events {
                if self.sent.insert(event.id, event.changed).is_some() || !followed {
                    continue;
                }
                // A fill's position event follows its order event.
                if let Some(payload) = event.payload {
                    let id = event.id.to_string();
                    let payload = with_request_id(&payload, &id);
                    hub.publish(TradeEvent::order(event.account_id.clone(), id, event.time_ms, payload));
                }
                if let Some(payload) = event.position_payload {
                    let id = position_request_id(event.id);
                    let payload = with_request_id(&payload, &id);
                    hub.publish(TradeEvent::position(event.account_id, id, event.time_ms, payload));
                }
            }
            self.cursor = Some(batch.cursor);
            self.sent.retain(|_, changed| *changed >= batch.cursor.0);
            if !batch.more {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(account: &str) -> TradeEvent {
        TradeEvent::order(account.into(), String::new(), 0, "{}".into())
    }

    const ALL: u32 = SUBSCRIBE_ORDER | SUBSCRIBE_POSITION;

    #[test]
    fn a_full_queue_drops_its_subscriber_and_marks_it_lagged() {
        let hub = EventHub::new(2);
        let mut slow = hub.subscribe(&["A".into(), "B".into()], ALL);
        let mut other = hub.subscribe(&["B".into()], ALL);
        for _ in 0..3 {
            hub.publish(event("A"));
        }
        assert!(slow.lagged.load(Ordering::Relaxed));
        assert!(slow.events.try_recv().is_ok(), "what it had queued stays readable");
        // Events of another account reach only that account's subscribers.
        hub.publish(event("B"));
        assert_eq!(other.events.try_recv().unwrap().account_id, "B");
        assert!(!other.lagged.load(Ordering::Relaxed));
    }

    #[test]
    fn position_events_reach_only_the_subscribers_that_asked_for_them() {
        let hub = EventHub::new(8);
        let mut orders = hub.subscribe(&["A".into()], SUBSCRIBE_ORDER);
        let mut both = hub.subscribe(&["A".into()], ALL);
        hub.publish(event("A"));
        hub.publish(TradeEvent::position("A".into(), "1-position".into(), 0, "{}".into()));
        let types = |s: &mut Subscription| {
            std::iter::from_fn(|| s.events.try_recv().ok())
                .map(|e| e.subscribe_type)
                .collect::<Vec<_>>()
        };
        assert_eq!(types(&mut orders), [SUBSCRIBE_ORDER]);
        assert_eq!(types(&mut both), [SUBSCRIBE_ORDER, SUBSCRIBE_POSITION]);
    }
}
