//! What each account's open orders hold back (cash for buys, shares for sells), kept between
//! placements so that a placement does not read every open order of its account again.
//!
//! An entry is the list read from the database plus the orders placed since (by order id, so an
//! order the read saw and then reported placed counts once). Anything else that changes an open
//! order (a fill, a cancel, a replace, an expiry, a moved stop) forgets the account's entry and
//! bumps its generation; a list read from the database is kept only if no such change came
//! during the read. The cache is per process: several nodes on one database need the database
//! to serialize an account's placements instead.

use std::collections::HashMap;
use std::sync::Mutex;

use rust_decimal::Decimal;
use signet_model::orders::Side;

use crate::engine::order::Order;

/// An open order's claim on its account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reserved {
    pub order_id: String,
    pub side: Side,
    pub instrument_id: i64,
    pub remaining: Decimal,
    /// The limit or stop it is priced at; a market order is priced at the quote.
    pub price: Option<Decimal>,
}

impl Reserved {
    pub fn of(order: &Order) -> Self {
        Reserved {
            order_id: order.order_id.clone(),
            side: order.side,
            instrument_id: order.instrument_id,
            remaining: order.remaining(),
            price: order.limit_price.or(order.stop_price),
        }
    }
}

#[derive(Default)]
struct Entry {
    /// Bumped by every [`Reservations::forget`].
    generation: u64,
    /// By order id, when known.
    orders: Option<HashMap<String, Reserved>>,
    /// Orders placed while the list is not known, for the read under way to add.
    placed_meanwhile: Vec<Reserved>,
}

#[derive(Default)]
pub struct Reservations {
    accounts: Mutex<HashMap<String, Entry>>,
}

impl Reservations {
    /// `f` of the account's open orders when they are known; otherwise the generation to hand
    /// to [`Self::keep`] with a list read from the database.
    pub fn with<R>(&self, account_id: &str, f: impl FnOnce(&HashMap<String, Reserved>) -> R) -> Result<R, u64> {
        let accounts = self.accounts.lock().expect("reservations lock");
        match accounts.get(account_id) {
            Some(Entry {
                orders: Some(orders), ..
            }) => Ok(f(orders)),
            Some(entry) => Err(entry.generation),
            None => Err(0),
        }
    }

    /// Keeps a list read from the database (with what was placed during the read), unless an
    /// order changed since the read began.
    pub fn keep(&self, account_id: &str, generation: u64, orders: Vec<Reserved>) {
        let mut accounts = self.accounts.lock().expect("reservations lock");
        let entry = accounts.entry(account_id.to_owned()).or_default();
        if entry.generation != generation || entry.orders.is_some() {
            return;
        }
        let mut known: HashMap<String, Reserved> = orders.into_iter().map(|o| (o.order_id.clone(), o)).collect();
        for o in entry.placed_meanwhile.drain(..) {
            known.entry(o.order_id.clone()).or_insert(o);
        }
        entry.orders = Some(known);
    }

    /// Orders just stored.
    pub fn placed(&self, account_id: &str, orders: impl IntoIterator<Item = Reserved>) {
        let mut accounts = self.accounts.lock().expect("reservations lock");
        let entry = accounts.entry(account_id.to_owned()).or_default();
        match &mut entry.orders {
            Some(known) => known.extend(orders.into_iter().map(|o| (o.order_id.clone(), o))),
            None => entry.placed_meanwhile.extend(orders),
        }
    }

    /// An open order of the account changed: read them again next time.
    pub fn forget(&self, account_id: &str) {
        let mut accounts = self.accounts.lock().expect("reservations lock");
        let entry = accounts.entry(account_id.to_owned()).or_default();
        entry.generation += 1;
        entry.orders = None;
        entry.placed_meanwhile.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reserved(n: i64) -> Reserved {
        Reserved {
            order_id: n.to_string(),
            side: Side::Buy,
            instrument_id: n,
            remaining: Decimal::ONE,
            price: None,
        }
    }

    fn count(r: &Reservations) -> Option<usize> {
        r.with("A", |orders| orders.len()).ok()
    }

    #[test]
    fn reads_changes_and_placements_interleave_safely() {
        let r = Reservations::default();
        let generation = r.with("A", |_| ()).unwrap_err();
        r.keep("A", generation, vec![reserved(1)]);
        assert_eq!(count(&r), Some(1));

        // A read starts, an order changes meanwhile: the read is stale and not kept.
        r.forget("A");
        let generation = r.with("A", |_| ()).unwrap_err();
        r.forget("A");
        r.keep("A", generation, vec![reserved(1), reserved(2)]);
        assert_eq!(count(&r), None);

        // Orders placed during a read join the list it brings, once each.
        let generation = r.with("A", |_| ()).unwrap_err();
        r.placed("A", [reserved(3), reserved(2)]);
        r.keep("A", generation, vec![reserved(1), reserved(2)]);
        assert_eq!(count(&r), Some(3));
        r.placed("A", [reserved(3), reserved(4)]);
        assert_eq!(count(&r), Some(4));
    }
}
