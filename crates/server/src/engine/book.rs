//! The open orders the ticks match, kept in memory between ticks so that a tick does not read
//! every open order from the database again.
//!
//! The list is read when unknown, then extended by placements and updated with the tick's own
//! changes (fills, moved stops, expiries). Any other change (a cancel, a replace, what a fill or
//! an end does to the rest of a combination) drops it and bumps the generation; a list read
//! while such a change happened is not kept. The same protocol as
//! [`crate::trading::reservations`]. Like it, the book is per process: on a database several
//! nodes share, it is read again at every tick ([`Book::uncached`]).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::order::{Order, is_open};

#[derive(Default)]
pub struct Book {
    state: Mutex<State>,
    /// Nothing is kept: other nodes place and change orders too (a database they share).
    uncached: bool,
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
    /// A book read from the database at every tick.
    pub fn uncached() -> Self {
        Book {
            uncached: true,
            ..Self::default()
        }
    }

    /// The open orders in the order placed, when known; otherwise the generation to hand to
    /// [`Self::keep`] with a list read from the database.
    pub fn snapshot(&self) -> Result<Vec<Arc<Order>>, u64> {
        let state = self.state.lock().expect("book lock");
        match &state.orders {
            Some(orders) => Ok(orders.values().cloned().collect()),
            None => Err(state.generation),
        }
    }

    /// Keeps a list read from the database, unless an order changed since the read began.
    pub fn keep(&self, generation: u64, orders: &[Arc<Order>]) {
        let mut state = self.state.lock().expect("book lock");
        if self.uncached || state.generation != generation || state.orders.is_some() {
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
        if self.uncached {
            return;
        }
        let mut state = self.state.lock().expect("book lock");
        let orders = orders.iter().map(|o| Arc::new(o.clone()));
        match &mut state.orders {
            Some(known) => known.extend(orders.map(|o| (o.seq, o))),
            None => state.placed_meanwhile.extend(orders),
        }
    }

    /// An order the tick changed, as stored now: kept while open, dropped once it has ended.
    pub fn update(&self, order: Order) {
        let mut state = self.state.lock().expect("book lock");
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
        let mut state = self.state.lock().expect("book lock");
        state.generation += 1;
        state.orders = None;
        state.placed_meanwhile.clear();
    }
}
