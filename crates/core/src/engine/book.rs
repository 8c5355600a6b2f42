//! The open orders the ticks match, kept in memory between ticks so that a tick does not read
//! every open order from the database again.
//!
//! The list is read when unknown, then extended by placements and updated with the tick's own
//! changes (fills, moved stops, expiries). Any other change (a cancel, a replace, what a fill or
//! an end does to the rest of a combination) drops it and bumps the generation; a list read
//! while such a change happened is not kept. The same protocol as
//! the claims cache ([`crate::claims`]). Like it, on a database several nodes share the book follows
//! the store's change feed instead: each tick reads what changed since the last
//! ([`Book::shared`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;
use signet_domain::trading::order::{Order, is_open};
use signet_store::{ChangeCursor, StoreError, TradingStore};

#[derive(Default)]
pub struct Book {
    state: Mutex<State>,
    /// On a database other nodes change too: the book as of the change feed's last read, and
    /// where that read left off.
    shared: Option<Mutex<Followed>>,
}

/// The open orders by placement (`seq`), as of the change feed's last read.
#[derive(Default)]
struct Followed {
    orders: BTreeMap<i64, Arc<Order>>,
    cursor: Option<ChangeCursor>,
}

#[derive(Default)]
struct State {
    generation: u64,
    /// By placement (`seq`), when known.
    orders: Option<BTreeMap<i64, Arc<Order>>>,
    /// Placed while the list is not known, for the read under way to add.
    placed_meanwhile: Vec<Arc<Order>>,
}

impl Book {
    /// A book for a database several nodes share, which follows its change feed.
    pub fn shared() -> Self {
        Book {
            shared: Some(Mutex::default()),
            ..Self::default()
        }
    }

    /// The open orders in the order placed, read from the database as far as needed. One
    /// caller at a time (the ticks take turns).
    pub async fn open(&self, store: &dyn TradingStore) -> Result<Vec<Arc<Order>>, StoreError> {
        if let Some(shared) = &self.shared {
            let since = shared.lock().cursor;
            let changes = store.order_changes(None, since).await?;
            let mut followed = shared.lock();
            for order in changes.orders {
                match is_open(order.status) {
                    true => followed.orders.insert(order.seq, Arc::new(order)),
                    false => followed.orders.remove(&order.seq),
                };
            }
            followed.cursor = changes.cursor;
            return Ok(followed.orders.values().cloned().collect());
        }
        match self.snapshot() {
            Ok(open) => Ok(open),
            Err(generation) => {
                let open: Vec<Arc<Order>> = store.open_orders().await?.into_iter().map(Arc::new).collect();
                self.keep(generation, &open);
                Ok(open)
            }
        }
    }

    /// The open orders in the order placed, when known; otherwise the generation to hand to
    /// [`Self::keep`] with a list read from the database.
    fn snapshot(&self) -> Result<Vec<Arc<Order>>, u64> {
        let state = self.state.lock();
        match &state.orders {
            Some(orders) => Ok(orders.values().cloned().collect()),
            None => Err(state.generation),
        }
    }

    /// Keeps a list read from the database, unless an order changed since the read began.
    fn keep(&self, generation: u64, orders: &[Arc<Order>]) {
        let mut state = self.state.lock();
        if state.generation != generation || state.orders.is_some() {
            return;
        }
        let mut known: BTreeMap<i64, Arc<Order>> = orders.iter().map(|o| (o.seq, o.clone())).collect();
        for o in state.placed_meanwhile.drain(..) {
            known.entry(o.seq).or_insert(o);
        }
        state.orders = Some(known);
    }

    /// Orders just stored (with their `seq`).
    pub fn placed(&self, orders: &[Order]) {
        // A shared book learns of them from the change feed.
        if self.shared.is_some() {
            return;
        }
        let mut state = self.state.lock();
        let orders = orders.iter().map(|o| Arc::new(o.clone()));
        match &mut state.orders {
            Some(known) => known.extend(orders.map(|o| (o.seq, o))),
            None => state.placed_meanwhile.extend(orders),
        }
    }

    /// An order the tick changed, as stored now: kept while open, dropped once it has ended.
    pub fn update(&self, order: Order) {
        let mut state = self.state.lock();
        if let Some(known) = &mut state.orders {
            if is_open(order.status) {
                known.insert(order.seq, Arc::new(order));
            } else {
                known.remove(&order.seq);
            }
        }
    }

    /// Open orders changed otherwise: read them again at the next tick.
    pub fn forget(&self) {
        let mut state = self.state.lock();
        state.generation += 1;
        state.orders = None;
        state.placed_meanwhile.clear();
    }
}
