//! One node's fan-out of order events. The database's order events are the source: each is
//! written with its payload in the transaction that changes the order, and [`EventHub::follow`]
//! reads those committed on any node (on PostgreSQL, woken by its notifications) and publishes
//! them; every open subscription holds a receiver.
//!
//! The channel is a bounded ring (tokio's broadcast): publishing never waits, so a slow
//! subscriber never slows the engine; a subscriber that falls more than the ring's capacity
//! behind is told it lagged, and its stream is ended with `UNAVAILABLE` (the client reconnects).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use signet_domain::trading::events::with_request_id;
use signet_store::{ChangeCursor, Store, StoreError};
use tokio::sync::{Notify, broadcast};

/// An order event ready to send: its account (to pick the subscribers) and its JSON payload.
#[derive(Debug, Clone)]
pub struct OrderEvent {
    pub account_id: String,
    pub request_id: String,
    pub time_ms: i64,
    pub payload: String,
}

pub struct EventHub {
    /// `None` once the server is shutting down: every receiver then sees the channel closed.
    sender: Mutex<Option<broadcast::Sender<Arc<OrderEvent>>>>,
    /// Woken when this node committed order events.
    committed: Notify,
    /// Open streams per app key.
    streams: Mutex<HashMap<Arc<str>, usize>>,
}

/// One open stream of an app, counted until dropped.
pub struct StreamSlot {
    hub: Arc<EventHub>,
    app_key: Arc<str>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut streams = self.hub.streams.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = streams.get_mut(&self.app_key) {
            *n -= 1;
            if *n == 0 {
                streams.remove(&self.app_key);
            }
        }
    }
}

impl EventHub {
    /// A hub whose subscribers may fall at most `capacity` events behind.
    pub fn new(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity.max(1));
        EventHub {
            sender: Mutex::new(Some(sender)),
            committed: Notify::new(),
            streams: Mutex::default(),
        }
    }

    /// A slot for one more stream of `app_key`, or `None` when it has `max` open already.
    pub fn open_stream(self: &Arc<Self>, app_key: &Arc<str>, max: usize) -> Option<StreamSlot> {
        let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
        let open = streams.entry(app_key.clone()).or_insert(0);
        if *open >= max {
            return None;
        }
        *open += 1;
        Some(StreamSlot {
            hub: self.clone(),
            app_key: app_key.clone(),
        })
    }

    /// A receiver of the events published from now on (closed at once when shutting down).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<OrderEvent>> {
        match &*self.sender() {
            Some(sender) => sender.subscribe(),
            None => broadcast::channel(1).1,
        }
    }

    fn sender(&self) -> std::sync::MutexGuard<'_, Option<broadcast::Sender<Arc<OrderEvent>>>> {
        self.sender.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands `event` to every subscriber; never waits.
    pub fn publish(&self, event: OrderEvent) {
        if let Some(sender) = &*self.sender() {
            let _ = sender.send(Arc::new(event));
        }
    }

    /// Whether any stream is open on this node.
    fn followed(&self) -> bool {
        self.sender().as_ref().is_some_and(|s| s.receiver_count() > 0)
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
    /// it opened. Ends every stream when done.
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
        // Every receiver then sees the channel closed, once it has read what was sent.
        self.sender().take();
    }
}

/// Where the reader of the order events is, and which of the events it may read again it sent.
#[derive(Default)]
struct Reader {
    cursor: Option<ChangeCursor>,
    /// The ids sent that a read from `cursor` may return again, with where they stand.
    sent: HashMap<i64, u64>,
}

impl Reader {
    async fn read(&mut self, hub: &EventHub, store: &dyn Store) -> Result<(), StoreError> {
        loop {
            // The cursor is taken before the subscribers are counted: a stream that opens after
            // the count was taken opened after the events below the cursor committed.
            let batch = match self.cursor {
                Some(cursor) if hub.followed() => store.order_events(Some(cursor)).await?,
                _ => {
                    let now = store.order_events(None).await?;
                    if hub.followed() && self.cursor.is_some() {
                        continue;
                    }
                    self.cursor = Some(now.cursor);
                    self.sent.clear();
                    return Ok(());
                }
            };
            let full = batch.events.len() >= 10_000;
            for event in batch.events {
                if self.sent.insert(event.id, event.changed).is_some() {
                    continue;
                }
                if let Some(payload) = event.payload {
                    hub.publish(OrderEvent {
                        request_id: event.id.to_string(),
                        payload: with_request_id(&payload, &event.id.to_string()),
                        account_id: event.account_id,
                        time_ms: event.time_ms,
                    });
                }
            }
            self.cursor = Some(batch.cursor);
            self.sent.retain(|_, changed| *changed >= batch.cursor.0);
            if !full {
                return Ok(());
            }
        }
    }
}
