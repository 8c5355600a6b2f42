//! The sessions connected over MQTT on this node, what each subscribed to, and each one's
//! outbox: the messages waiting to be written to its connection.
//!
//! An outbox holds at most [`StreamingConfig::buffer_per_symbol`] messages of one symbol; a
//! new one beyond that pushes out the oldest of the same symbol, so that a session that does
//! not read costs a bounded amount of memory (QoS 0: nothing is owed to it).
//!
//! A connection is counted as unbound ([`UnboundSlot`]) from its accept until a signed
//! subscribe binds its session ([`Streams::bind`]); only bound sessions count against
//! [`StreamingConfig::max_sessions_per_app`]. The node's unbound places are shared fairly: when
//! they are all held, a new connection takes the place of the oldest one of the address that
//! holds the most, if that is at least two more than its own address holds; so strangers from
//! fewer addresses than there are places never keep a client from another address out.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bytes::Bytes;
use parking_lot::Mutex;
use prometheus_client::metrics::counter::Counter;
use sha2::{Digest, Sha256};
use signet_model::ids::AppKey;
use tokio::sync::Notify;

use super::StreamingConfig;

/// What a subscription receives, as a bit set.
pub mod kind {
    pub const QUOTE: u8 = 1;
    pub const SNAPSHOT: u8 = 2;
    pub const TICK: u8 = 4;
    pub const ALL: u8 = QUOTE | SNAPSHOT | TICK;

    /// The sub type's name as the client sends it.
    pub fn parse(name: &str) -> Option<u8> {
        match name.trim().to_ascii_uppercase().as_str() {
            "QUOTE" => Some(QUOTE),
            "SNAPSHOT" => Some(SNAPSHOT),
            "TICK" => Some(TICK),
            _ => None,
        }
    }

    pub fn names(kinds: u8) -> Vec<String> {
        [(QUOTE, "QUOTE"), (SNAPSHOT, "SNAPSHOT"), (TICK, "TICK")]
            .into_iter()
            .filter(|(k, _)| kinds & k != 0)
            .map(|(_, name)| name.to_owned())
            .collect()
    }
}

/// One symbol a session receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    pub symbol: String,
    /// [`kind`] bits.
    pub kinds: u8,
    /// Levels a side of its `quote` messages.
    pub depth: u32,
}

/// How a session's messages are named: chosen by the door of the signed call that binds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topics {
    /// The official client's (catalog §13.4): `snapshot`, `quote`, `tick`, `notice`.
    Current,
    /// The earlier generation's (`webull-python-sdk-quotes-core` 0.1.x, bound through its gRPC
    /// gateway): `{instrument_id}-{type}-0-{symbol}`, the type 0 for the book, 1 for a
    /// snapshot, 2 for a tick; its client decodes the first three parts and ignores the rest.
    /// It has no `notice`.
    Earlier,
}

impl Topics {
    /// The topic of `message` for a session of this kind; `None` when it has no such topic.
    pub fn of(self, message: &Message, symbol: &str) -> Option<String> {
        use signet_model::streaming::topic;
        match self {
            Topics::Current => Some(message.topic.to_owned()),
            Topics::Earlier => {
                let kind = match message.topic {
                    topic::QUOTE => 0,
                    topic::SNAPSHOT => 1,
                    topic::TICK => 2,
                    _ => return None,
                };
                Some(format!("{}-{kind}-0-{symbol}", message.instrument_id))
            }
        }
    }
}

/// A message ready to write: its topic and protobuf payload.
#[derive(Debug, Clone)]
pub struct Message {
    pub instrument_id: i64,
    pub topic: &'static str,
    pub payload: Bytes,
}

#[derive(Default)]
struct Outbox {
    queue: VecDeque<Message>,
    per_symbol: HashMap<i64, usize>,
}

/// One MQTT connection's session.
pub struct Session {
    pub id: String,
    pub app_key: AppKey,
    /// Which connection holds the session: a newer one with the same id replaces it.
    pub connection: u64,
    /// SHA-256 of the CONNECT's password: the client makes one at random and reconnects with
    /// it, so only the same client takes its session id over.
    password: [u8; 32],
    subscriptions: Mutex<BTreeMap<i64, Subscription>>,
    outbox: Mutex<Outbox>,
    /// Wakes the connection's writer when its outbox has something.
    pub ready: Notify,
    /// Tells the connection to close (replaced by a newer one, or the server stops).
    pub kicked: Notify,
    /// Set before `kicked` when a newer connection took the session over.
    taken_over: AtomicBool,
    /// Whether a signed subscribe bound it (set under the sessions' lock, with its app's count).
    bound: AtomicBool,
    /// Set when it is bound.
    topics: Mutex<Topics>,
    /// The connection's place among the unbound ones, given up when it is bound.
    unbound: Mutex<Option<UnboundSlot>>,
    /// Told when the connection lost its unbound place to a newer one ([`UnboundSlot::evicted`]).
    pub evicted: Arc<Notify>,
}

impl Session {
    pub fn subscriptions(&self) -> BTreeMap<i64, Subscription> {
        self.subscriptions.lock().clone()
    }

    /// Whether a newer connection took the session over (rather than the server stopping).
    pub fn taken_over(&self) -> bool {
        self.taken_over.load(Ordering::Acquire)
    }

    /// Whether a signed subscribe bound the session to its app.
    pub fn bound(&self) -> bool {
        self.bound.load(Ordering::Acquire)
    }

    /// How its messages are named.
    pub fn topics(&self) -> Topics {
        *self.topics.lock()
    }

    /// The topic of `message` for this session (see [`Topics`]).
    pub fn topic_of(&self, message: &Message) -> Option<String> {
        let topics = self.topics();
        if topics == Topics::Current {
            return topics.of(message, "");
        }
        let symbol = self
            .subscriptions
            .lock()
            .get(&message.instrument_id)
            .map(|s| s.symbol.clone())
            .unwrap_or_default();
        topics.of(message, &symbol)
    }

    /// Takes every message waiting, oldest first.
    pub fn take(&self) -> Vec<Message> {
        let mut outbox = self.outbox.lock();
        outbox.per_symbol.clear();
        outbox.queue.drain(..).collect()
    }
}

/// Why a subscription is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No session has this id on this node.
    NotConnected,
    /// The session is another app's.
    OtherApp,
    /// The session would receive more than `max` symbols.
    TooManySymbols { max: usize },
    /// Binding the session would give its app more than `max` sessions on this node (another of
    /// its connections was bound first): the connection is closed.
    TooManySessions { max: usize },
}

/// Why a connection is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectRefusal {
    /// The session id is connected under another app key.
    OtherApp,
    /// The session id is connected with another password (another client of the same app).
    OtherClient,
    /// The app already has its most sessions bound on this node.
    TooManySessions,
}

/// Why a new connection is closed at once, before it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnboundRefusal {
    /// Its address has [`StreamingConfig::max_unbound_per_address`] unbound connections.
    Address,
    /// The node has [`StreamingConfig::max_unbound`] unbound connections.
    Node,
}

/// The unbound connections, per client address (oldest first) and in all.
#[derive(Default)]
struct UnboundCount {
    per_address: HashMap<IpAddr, VecDeque<Place>>,
    total: usize,
    next: u64,
}

/// One unbound connection's entry: its number, and how it is told that it lost its place.
struct Place {
    id: u64,
    evicted: Arc<Notify>,
}

impl UnboundCount {
    /// Forgets the place `id` of `address`; false if it was no longer counted (evicted).
    fn remove(&mut self, address: IpAddr, id: u64) -> bool {
        let Some(places) = self.per_address.get_mut(&address) else {
            return false;
        };
        let Some(at) = places.iter().position(|p| p.id == id) else {
            return false;
        };
        places.remove(at);
        if places.is_empty() {
            self.per_address.remove(&address);
        }
        self.total -= 1;
        true
    }

    /// Frees the place of the oldest connection of the address holding the most, if it holds at
    /// least two more than `newcomer` does (so that the move evens the shares out): that
    /// connection is told to close.
    fn evict_for(&mut self, newcomer: IpAddr) -> bool {
        let own = self.per_address.get(&newcomer).map_or(0, VecDeque::len);
        let Some((&address, places)) = self.per_address.iter().max_by_key(|(_, places)| places.len()) else {
            return false;
        };
        let Some(oldest) = places.front().filter(|_| places.len() > own + 1) else {
            return false;
        };
        let (id, evicted) = (oldest.id, oldest.evicted.clone());
        self.remove(address, id);
        evicted.notify_one();
        true
    }
}

/// One unbound connection, counted until it is bound, dropped or evicted.
pub struct UnboundSlot {
    count: Arc<Mutex<UnboundCount>>,
    address: IpAddr,
    id: u64,
    evicted: Arc<Notify>,
}

impl UnboundSlot {
    /// Resolves when a newer connection from an address holding fewer took this one's place:
    /// the connection then closes.
    pub async fn evicted(&self) {
        self.evicted.notified().await;
    }
}

impl Drop for UnboundSlot {
    fn drop(&mut self) {
        self.count.lock().remove(self.address, self.id);
    }
}

pub struct Streams {
    pub config: StreamingConfig,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    unbound: Arc<Mutex<UnboundCount>>,
    next_connection: AtomicU64,
    /// Messages pushed out of outboxes by newer ones (shared with the metrics).
    dropped: Counter,
}

/// The sessions of `app_key` a signed call bound.
fn bound_of(sessions: &HashMap<String, Arc<Session>>, app_key: &str) -> usize {
    sessions
        .values()
        .filter(|s| &*s.app_key == app_key && s.bound())
        .count()
}

impl Streams {
    pub fn new(config: StreamingConfig, dropped: Counter) -> Self {
        Streams {
            config,
            sessions: Mutex::default(),
            unbound: Arc::default(),
            next_connection: AtomicU64::new(1),
            dropped,
        }
    }

    /// A place for one more unbound connection from `address` (perhaps another address's
    /// oldest, see the module's documentation), or why there is none.
    pub fn unbound_slot(&self, address: IpAddr) -> Result<UnboundSlot, UnboundRefusal> {
        let mut count = self.unbound.lock();
        if count.per_address.get(&address).map_or(0, VecDeque::len) >= self.config.max_unbound_per_address {
            return Err(UnboundRefusal::Address);
        }
        if count.total >= self.config.max_unbound && !count.evict_for(address) {
            return Err(UnboundRefusal::Node);
        }
        let id = count.next;
        count.next += 1;
        let evicted = Arc::new(Notify::new());
        count.per_address.entry(address).or_default().push_back(Place {
            id,
            evicted: evicted.clone(),
        });
        count.total += 1;
        Ok(UnboundSlot {
            count: self.unbound.clone(),
            address,
            id,
            evicted,
        })
    }

    /// Opens session `id` for `app_key`, unbound (in `slot`): a connection of the same app with
    /// the same id and password is told to close and replaced, with nothing subscribed. Refused
    /// when the app holds [`StreamingConfig::max_sessions_per_app`] bound sessions already (the
    /// one replaced is not counted).
    pub fn connect(
        &self,
        id: &str,
        app_key: AppKey,
        password: &[u8],
        slot: UnboundSlot,
    ) -> Result<Arc<Session>, ConnectRefusal> {
        let password: [u8; 32] = Sha256::digest(password).into();
        let mut sessions = self.sessions.lock();
        let old = sessions.get(id);
        if let Some(old) = old {
            if old.app_key != app_key {
                return Err(ConnectRefusal::OtherApp);
            }
            if old.password != password {
                return Err(ConnectRefusal::OtherClient);
            }
        }
        let replaced = old.is_some_and(|old| old.bound());
        let held = bound_of(&sessions, &app_key) - usize::from(replaced);
        if held >= self.config.max_sessions_per_app {
            return Err(ConnectRefusal::TooManySessions);
        }
        if let Some(old) = old {
            old.taken_over.store(true, Ordering::Release);
            old.kicked.notify_one();
        }
        let session = Arc::new(Session {
            id: id.to_owned(),
            app_key,
            connection: self.next_connection.fetch_add(1, Ordering::Relaxed),
            password,
            subscriptions: Mutex::default(),
            outbox: Mutex::default(),
            ready: Notify::new(),
            kicked: Notify::new(),
            taken_over: AtomicBool::new(false),
            bound: AtomicBool::new(false),
            topics: Mutex::new(Topics::Current),
            evicted: slot.evicted.clone(),
            unbound: Mutex::new(Some(slot)),
        });
        sessions.insert(id.to_owned(), session.clone());
        Ok(session)
    }

    /// Binds `session` to its app, which a signed call of the app asks for: from now on it counts
    /// against the app's sessions and is no longer closed for staying unbound. When the app
    /// already holds its most bound sessions, the connection is told to close (the official
    /// client then reconnects in 10 s, and is refused with 105 if the app still holds them).
    /// `topics` names its messages from then on (the first bind's door decides).
    pub fn bind(&self, session: &Session, topics: Topics) -> Result<(), Refusal> {
        if session.bound() {
            return Ok(());
        }
        let sessions = self.sessions.lock();
        if sessions
            .get(&session.id)
            .is_none_or(|s| s.connection != session.connection)
        {
            return Err(Refusal::NotConnected);
        }
        if session.bound() {
            return Ok(());
        }
        let max = self.config.max_sessions_per_app;
        if bound_of(&sessions, &session.app_key) >= max {
            session.kicked.notify_one();
            return Err(Refusal::TooManySessions { max });
        }
        *session.topics.lock() = topics;
        session.bound.store(true, Ordering::Release);
        drop(session.unbound.lock().take());
        Ok(())
    }

    /// Forgets `session` and what it subscribed to, unless a newer connection took its id.
    pub fn disconnect(&self, session: &Session) {
        drop(session.unbound.lock().take());
        let mut sessions = self.sessions.lock();
        if sessions
            .get(&session.id)
            .is_some_and(|s| s.connection == session.connection)
        {
            sessions.remove(&session.id);
        }
    }

    pub fn connected(&self) -> usize {
        self.sessions.lock().len()
    }

    /// Messages pushed out of outboxes by newer ones, since the start.
    pub fn dropped(&self) -> u64 {
        self.dropped.get()
    }

    /// Tells every connection to close.
    pub fn close_all(&self) {
        for session in self.sessions.lock().values() {
            session.kicked.notify_one();
        }
    }

    /// The session `id` if it is `app_key`'s.
    pub fn session_of(&self, id: &str, app_key: &str) -> Result<Arc<Session>, Refusal> {
        let session = self.sessions.lock().get(id).cloned().ok_or(Refusal::NotConnected)?;
        if &*session.app_key != app_key {
            return Err(Refusal::OtherApp);
        }
        Ok(session)
    }

    /// The session of `app_key` whose CONNECT's password was `password`: the earlier
    /// generation's client connects with the token of its gRPC gateway as password and names the
    /// token, not the client id, when it subscribes. Several (one client reconnecting under a new
    /// id with the same token): the newest connection.
    pub fn session_with_password(&self, app_key: &str, password: &[u8]) -> Result<Arc<Session>, Refusal> {
        let password: [u8; 32] = Sha256::digest(password).into();
        self.sessions
            .lock()
            .values()
            .filter(|s| &*s.app_key == app_key && s.password == password)
            .max_by_key(|s| s.connection)
            .cloned()
            .ok_or(Refusal::NotConnected)
    }

    /// Adds `kinds` of `symbols` (instrument id, symbol) to the session's subscriptions, with
    /// `depth` levels for their books. Answers the subscriptions that are new or receive a new
    /// kind, with the kinds they did not receive before.
    pub fn subscribe(
        &self,
        session: &Session,
        symbols: &[(i64, String)],
        kinds: u8,
        depth: u32,
    ) -> Result<Vec<(i64, Subscription)>, Refusal> {
        let mut subscriptions = session.subscriptions.lock();
        let added = symbols.iter().filter(|(id, _)| !subscriptions.contains_key(id)).count();
        if subscriptions.len() + added > self.config.max_symbols_per_session {
            return Err(Refusal::TooManySymbols {
                max: self.config.max_symbols_per_session,
            });
        }
        let mut fresh = Vec::new();
        for (id, symbol) in symbols {
            let entry = subscriptions.entry(*id).or_insert_with(|| Subscription {
                symbol: symbol.clone(),
                kinds: 0,
                depth,
            });
            let new = kinds & !entry.kinds;
            entry.kinds |= kinds;
            if kinds & kind::QUOTE != 0 {
                entry.depth = depth;
            }
            if new != 0 {
                fresh.push((
                    *id,
                    Subscription {
                        kinds: new,
                        ..entry.clone()
                    },
                ));
            }
        }
        Ok(fresh)
    }

    /// Removes `kinds` of `instruments` (every one the session has when `None`).
    pub fn unsubscribe(&self, session: &Session, instruments: Option<&[i64]>, kinds: u8) {
        let mut subscriptions = session.subscriptions.lock();
        subscriptions.retain(|id, s| {
            if instruments.is_none_or(|wanted| wanted.contains(id)) {
                s.kinds &= !kinds;
            }
            s.kinds != 0
        });
    }

    /// Every instrument some session receives, with the kinds and book depths wanted of it.
    pub fn wanted(&self) -> HashMap<i64, (String, u8, Vec<u32>)> {
        let sessions: Vec<Arc<Session>> = self.sessions.lock().values().cloned().collect();
        let mut wanted: HashMap<i64, (String, u8, Vec<u32>)> = HashMap::new();
        for session in sessions {
            for (id, s) in session.subscriptions.lock().iter() {
                let entry = wanted.entry(*id).or_insert_with(|| (s.symbol.clone(), 0, Vec::new()));
                entry.1 |= s.kinds;
                if s.kinds & kind::QUOTE != 0 && !entry.2.contains(&s.depth) {
                    entry.2.push(s.depth);
                }
            }
        }
        wanted
    }

    /// Hands every session the messages it subscribed to: `messages(instrument, subscription)`
    /// gives them. Answers how many were queued.
    pub fn deliver(&self, mut messages: impl FnMut(i64, &Subscription) -> Vec<Message>) -> u64 {
        let sessions: Vec<Arc<Session>> = self.sessions.lock().values().cloned().collect();
        let mut queued = 0;
        for session in sessions {
            let batch: Vec<Message> = session
                .subscriptions
                .lock()
                .iter()
                .flat_map(|(id, s)| messages(*id, s))
                .collect();
            if !batch.is_empty() {
                queued += batch.len() as u64;
                self.queue(&session, batch);
            }
        }
        queued
    }

    /// Puts `messages` in `session`'s outbox, pushing out the oldest of a symbol beyond its
    /// bound, and wakes its writer.
    pub fn queue(&self, session: &Session, messages: Vec<Message>) {
        let bound = self.config.buffer_per_symbol.max(1);
        let mut dropped = 0;
        {
            let mut outbox = session.outbox.lock();
            for message in messages {
                let id = message.instrument_id;
                let count = outbox.per_symbol.entry(id).or_insert(0);
                if *count >= bound {
                    if let Some(oldest) = outbox.queue.iter().position(|m| m.instrument_id == id) {
                        outbox.queue.remove(oldest);
                        dropped += 1;
                    }
                } else {
                    *count += 1;
                }
                outbox.queue.push_back(message);
            }
        }
        if dropped > 0 {
            self.dropped.inc_by(dropped);
        }
        session.ready.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: i64, n: u8) -> Message {
        Message {
            instrument_id: id,
            topic: "snapshot",
            payload: Bytes::from(vec![n]),
        }
    }

    fn streams() -> Streams {
        Streams::new(
            StreamingConfig {
                buffer_per_symbol: 4,
                max_symbols_per_session: 2,
                max_sessions_per_app: 1,
                max_unbound_per_address: 2,
                max_unbound: 3,
                ..StreamingConfig::default()
            },
            Counter::default(),
        )
    }

    const HERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    impl Streams {
        /// Connects from [`HERE`].
        fn open(&self, id: &str, app_key: &str, password: &[u8]) -> Result<Arc<Session>, ConnectRefusal> {
            let slot = self.unbound_slot(HERE).expect("a place for an unbound connection");
            self.connect(id, app_key.into(), password, slot)
        }

        /// Connects from [`HERE`] and binds.
        fn bound(&self, id: &str, app_key: &str, password: &[u8]) -> Result<Arc<Session>, ConnectRefusal> {
            let session = self.open(id, app_key, password)?;
            self.bind(&session, Topics::Current).expect("bound");
            Ok(session)
        }

        fn unbound(&self) -> usize {
            self.unbound.lock().total
        }
    }

    #[test]
    fn an_outbox_keeps_the_newest_messages_of_each_symbol() {
        let streams = streams();
        let session = streams.bound("s", "app", b"pw").unwrap();
        for n in 0..10 {
            streams.queue(&session, vec![message(1, n), message(2, n)]);
        }
        streams.queue(&session, vec![message(3, 0)]);
        let left: Vec<(i64, u8)> = session.take().iter().map(|m| (m.instrument_id, m.payload[0])).collect();
        let of = |id| {
            left.iter()
                .filter(|(i, _)| *i == id)
                .map(|(_, n)| *n)
                .collect::<Vec<_>>()
        };
        assert_eq!(of(1), vec![6, 7, 8, 9]);
        assert_eq!(of(2), vec![6, 7, 8, 9]);
        assert_eq!(of(3), vec![0]);
        assert_eq!(streams.dropped(), 12);
        assert!(session.take().is_empty());
    }

    #[test]
    fn sessions_belong_to_their_app_and_limits_hold() {
        let streams = streams();
        let a = streams.bound("a", "app", b"pw").unwrap();
        assert_eq!(streams.open("a", "other", b"pw").err(), Some(ConnectRefusal::OtherApp));
        assert_eq!(
            streams.open("a", "app", b"another").err(),
            Some(ConnectRefusal::OtherClient)
        );
        assert_eq!(streams.session_of("a", "other").err(), Some(Refusal::OtherApp));
        assert_eq!(streams.session_of("b", "app").err(), Some(Refusal::NotConnected));
        let symbols = [(1, "A".to_owned()), (2, "B".to_owned()), (3, "C".to_owned())];
        assert_eq!(
            streams.subscribe(&a, &symbols, kind::ALL, 10).err(),
            Some(Refusal::TooManySymbols { max: 2 })
        );
        let fresh = streams.subscribe(&a, &symbols[..2], kind::SNAPSHOT, 10).unwrap();
        assert_eq!(fresh.len(), 2);
        let fresh = streams
            .subscribe(&a, &symbols[..1], kind::SNAPSHOT | kind::TICK, 5)
            .unwrap();
        assert_eq!(fresh[0].1.kinds, kind::TICK, "only what is new");
        // One session per app: a second id is refused, the same client reconnecting is not.
        assert_eq!(
            streams.open("b", "app", b"pw").err(),
            Some(ConnectRefusal::TooManySessions)
        );
        assert!(streams.bound("c", "other", b"pw").is_ok(), "each app is counted apart");
        streams.unsubscribe(&a, Some(&[1]), kind::SNAPSHOT);
        assert_eq!(a.subscriptions()[&1].kinds, kind::TICK);
        streams.unsubscribe(&a, None, kind::ALL);
        assert!(a.subscriptions().is_empty());
        let a2 = streams.open("a", "app", b"pw").unwrap();
        streams.disconnect(&a);
        streams.disconnect(&a2);
        let b = streams.bound("b", "app", b"pw").unwrap();
        streams.subscribe(&b, &symbols[2..], kind::ALL, 10).unwrap();
        // A newer connection of the same app takes the id, with nothing subscribed.
        let b2 = streams.open("b", "app", b"pw").unwrap();
        assert!(b2.subscriptions().is_empty());
        assert!(b.taken_over() && !b2.taken_over());
        streams.disconnect(&b);
        assert!(
            streams.session_of("b", "app").is_ok(),
            "the old connection leaves the new one"
        );
        streams.disconnect(&b2);
        assert_eq!(streams.session_of("b", "app").err(), Some(Refusal::NotConnected));
    }

    #[tokio::test]
    async fn a_full_node_gives_a_newcomer_the_oldest_place_of_the_address_holding_most() {
        let streams = streams();
        let (b, c, d): (IpAddr, IpAddr, IpAddr) = (
            "127.0.0.2".parse().unwrap(),
            "127.0.0.3".parse().unwrap(),
            "127.0.0.4".parse().unwrap(),
        );
        let oldest = streams.unbound_slot(HERE).unwrap();
        let _newer = streams.unbound_slot(HERE).unwrap();
        let _of_b = streams.unbound_slot(b).unwrap();
        // Full: c takes the oldest place of HERE, which holds two.
        let of_c = streams.unbound_slot(c).unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(5), oldest.evicted())
            .await
            .expect("the oldest connection is told to close");
        assert_eq!(streams.unbound(), 3);
        // Every address holds one now: a fourth address finds no one holding more.
        assert_eq!(streams.unbound_slot(d).err(), Some(UnboundRefusal::Node));
        // The evicted slot, dropped, frees nothing twice.
        drop(oldest);
        assert_eq!(streams.unbound(), 3);
        drop(of_c);
        assert_eq!(streams.unbound(), 2);
        let _of_d = streams.unbound_slot(d).unwrap();
    }

    #[test]
    fn only_bound_sessions_count_against_their_app_and_the_unbound_are_few() {
        let streams = streams();
        // Unbound connections of an app hold none of its sessions...
        let first = streams.open("a", "app", b"pw").unwrap();
        let second = streams.open("b", "app", b"pw").unwrap();
        assert!(!first.bound() && !second.bound());
        // ...two an address, three in all: one more from the same address is refused before it
        // is read.
        assert_eq!(streams.unbound_slot(HERE).err(), Some(UnboundRefusal::Address));
        let elsewhere: IpAddr = "127.0.0.2".parse().unwrap();
        let third = streams.unbound_slot(elsewhere).unwrap();
        assert_eq!(streams.unbound(), 3);
        drop(third);
        // The first bound takes the app's one session; the second loses the race and is told to
        // close, and a third CONNECT is refused as the app holds its most.
        streams.bind(&first, Topics::Current).unwrap();
        assert!(first.bound());
        assert_eq!(
            streams.unbound(),
            1,
            "a bound connection is no longer counted as unbound"
        );
        assert_eq!(
            streams.bind(&second, Topics::Current).err(),
            Some(Refusal::TooManySessions { max: 1 })
        );
        assert!(!second.bound());
        assert_eq!(
            streams.open("c", "app", b"pw").err(),
            Some(ConnectRefusal::TooManySessions)
        );
        assert_eq!(streams.unbound(), 1, "a refused CONNECT gives its place back");
        streams.disconnect(&second);
        assert_eq!(streams.unbound(), 0);
        // The same client reconnecting while the app holds its most is let in, and replaces its
        // bound session (which no longer counts).
        let again = streams.open("a", "app", b"pw").unwrap();
        assert!(first.taken_over() && !again.bound());
        // A connection replaced by a newer one cannot be bound.
        let replaced = streams.open("c", "other", b"pw").unwrap();
        let slot = streams.unbound_slot(elsewhere).unwrap();
        let newer = streams.connect("c", "other".into(), b"pw", slot).unwrap();
        assert_eq!(
            streams.bind(&replaced, Topics::Current).err(),
            Some(Refusal::NotConnected)
        );
        streams.bind(&newer, Topics::Current).unwrap();
        streams.bind(&again, Topics::Current).unwrap();
    }
}
