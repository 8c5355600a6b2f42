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

use crate::engine::combo::{Part, part};
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
    /// The combination of an OCO leg: of a pair, only one trades, so the larger claim counts.
    pub oco: Option<String>,
    /// It waits for its master: a sell then sells what the master buys, not what is held.
    pub waits: bool,
}

impl Reserved {
    pub fn of(order: &Order) -> Self {
        Reserved {
            order_id: order.order_id.clone(),
            side: order.side,
            instrument_id: order.instrument_id,
            remaining: order.remaining(),
            price: order.limit_price.or(order.stop_price),
            oco: order
                .combo
                .as_ref()
                .filter(|_| part(order.combo_type) == Part::Leg)
                .map(|c| c.combo_order_id.clone()),
            waits: order.waits_for.is_some(),
        }
    }
}

/// What open orders hold back: cash for buys and short sales, shares for sells.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Claims {
    pub cash: Decimal,
    pub selling: HashMap<i64, Decimal>,
}

/// The claims of `open`, buys and shorts priced at their price or else `price_now`.
pub fn claims<'a>(open: impl Iterator<Item = &'a Reserved>, price_now: impl Fn(i64) -> Decimal) -> Claims {
    let mut total = Claims::default();
    // Per OCO pair: (cash, instrument, shares), each the larger of the two legs'.
    let mut pairs: HashMap<&str, (Decimal, i64, Decimal)> = HashMap::new();
    for o in open {
        let (cash, shares) = match o.side {
            Side::Buy | Side::Short => (
                o.remaining * o.price.unwrap_or_else(|| price_now(o.instrument_id)),
                Decimal::ZERO,
            ),
            Side::Sell if o.waits => (Decimal::ZERO, Decimal::ZERO),
            Side::Sell => (Decimal::ZERO, o.remaining),
        };
        match &o.oco {
            Some(pair) => {
                let claim = pairs
                    .entry(pair)
                    .or_insert((Decimal::ZERO, o.instrument_id, Decimal::ZERO));
                claim.0 = claim.0.max(cash);
                claim.2 = claim.2.max(shares);
            }
            None => {
                total.cash += cash;
                *total.selling.entry(o.instrument_id).or_default() += shares;
            }
        }
    }
    for (cash, instrument_id, shares) in pairs.into_values() {
        total.cash += cash;
        *total.selling.entry(instrument_id).or_default() += shares;
    }
    total
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
            oco: None,
            waits: false,
        }
    }

    fn count(r: &Reservations) -> Option<usize> {
        r.with("A", |orders| orders.len()).ok()
    }

    #[test]
    fn an_oco_pair_claims_its_larger_leg_and_a_waiting_sell_claims_no_shares() {
        let order = |side: Side, remaining: i64, price: i64, oco: Option<&str>, waits: bool| Reserved {
            order_id: String::new(),
            side,
            instrument_id: 7,
            remaining: Decimal::from(remaining),
            price: Some(Decimal::from(price)),
            oco: oco.map(str::to_owned),
            waits,
        };
        let open = [
            order(Side::Buy, 10, 5, None, false),
            order(Side::Sell, 3, 9, Some("P"), false),
            order(Side::Sell, 4, 2, Some("P"), false),
            order(Side::Buy, 2, 5, Some("Q"), true),
            order(Side::Buy, 1, 20, Some("Q"), true),
            order(Side::Sell, 6, 1, None, true),
            order(Side::Sell, 1, 1, None, false),
        ];
        let claims = claims(open.iter(), |_| Decimal::ZERO);
        assert_eq!(claims.cash, Decimal::from(50 + 20));
        assert_eq!(claims.selling[&7], Decimal::from(4 + 1));
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
