//! What an account's open orders hold back: cash for buys and short sales, shares for sells.
//! The buying-power check ([`super::buying_power::check`]) weighs new orders against these
//! claims, so an account cannot promise the same cash or shares to two orders.
//!
//! [`OpenClaims`] keeps the claims of a set of open orders as they come and go, with a running
//! total of those whose claim never depends on the price, so that a placement costs the same
//! however many orders are open.

use std::collections::HashMap;

use rust_decimal::Decimal;
use signet_model::orders::Side;

use super::combo::{Part, part};
use super::order::{Order, is_open};

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

    /// Cash (buys, short sales) and shares (sells) it holds back, priced at its price or else
    /// `price_now`.
    fn claim(&self, price_now: impl Fn(i64) -> Decimal) -> (Decimal, Decimal) {
        match self.side {
            Side::Buy | Side::Short => (
                self.remaining * self.price.unwrap_or_else(|| price_now(self.instrument_id)),
                Decimal::ZERO,
            ),
            Side::Sell if self.waits => (Decimal::ZERO, Decimal::ZERO),
            Side::Sell => (Decimal::ZERO, self.remaining),
        }
    }

    /// Whether its claim is the same whatever the price and the other orders: a running total
    /// can hold it.
    fn fixed(&self) -> bool {
        self.oco.is_none() && (self.price.is_some() || self.side == Side::Sell)
    }
}

/// What open orders hold back: cash for buys and short sales, shares for sells.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Claims {
    pub cash: Decimal,
    pub selling: HashMap<i64, Decimal>,
}

impl Claims {
    fn add(&mut self, instrument_id: i64, (cash, shares): (Decimal, Decimal)) {
        self.cash += cash;
        if !shares.is_zero() {
            *self.selling.entry(instrument_id).or_default() += shares;
        }
    }

    /// These claims and `other`'s together.
    pub fn plus(mut self, other: &Claims) -> Claims {
        self.cash += other.cash;
        for (&instrument_id, &shares) in &other.selling {
            *self.selling.entry(instrument_id).or_default() += shares;
        }
        self
    }
}

/// The claims of `open`, buys and shorts priced at their price or else `price_now`.
pub fn claims<'a>(open: impl Iterator<Item = &'a Reserved>, price_now: impl Fn(i64) -> Decimal) -> Claims {
    let mut total = Claims::default();
    // Per OCO pair: (instrument, cash, shares), each the larger of the two legs'.
    let mut pairs: HashMap<&str, (i64, Decimal, Decimal)> = HashMap::new();
    for o in open {
        let (cash, shares) = o.claim(&price_now);
        match &o.oco {
            Some(pair) => {
                let claim = pairs
                    .entry(pair)
                    .or_insert((o.instrument_id, Decimal::ZERO, Decimal::ZERO));
                claim.1 = claim.1.max(cash);
                claim.2 = claim.2.max(shares);
            }
            None => total.add(o.instrument_id, (cash, shares)),
        }
    }
    for (instrument_id, cash, shares) in pairs.into_values() {
        total.add(instrument_id, (cash, shares));
    }
    total
}

/// The claims of a set of open orders, kept as orders are added, change and end: a running
/// total of the fixed claims, and the rest (market orders, OCO legs) reckoned when asked.
#[derive(Debug, Default, Clone)]
pub struct OpenClaims {
    orders: HashMap<String, Reserved>,
    fixed: Claims,
    /// Orders whose claim is reckoned each time.
    floating: Vec<String>,
}

impl OpenClaims {
    /// Adds an order's claim (once: an order already held is left as it is).
    pub fn add(&mut self, order: Reserved) {
        if self.orders.contains_key(&order.order_id) {
            return;
        }
        if order.fixed() {
            self.fixed.add(order.instrument_id, order.claim(|_| Decimal::ZERO));
        } else {
            self.floating.push(order.order_id.clone());
        }
        self.orders.insert(order.order_id.clone(), order);
    }

    pub fn remove(&mut self, order_id: &str) {
        let Some(order) = self.orders.remove(order_id) else {
            return;
        };
        if order.fixed() {
            let (cash, shares) = order.claim(|_| Decimal::ZERO);
            self.fixed.cash -= cash;
            if let Some(selling) = self.fixed.selling.get_mut(&order.instrument_id) {
                *selling -= shares;
                if selling.is_zero() {
                    self.fixed.selling.remove(&order.instrument_id);
                }
            }
        } else {
            self.floating.retain(|id| id != order_id);
        }
    }

    /// An order as it is now: its claim while open, none once ended.
    pub fn follow(&mut self, order: &Order) {
        self.remove(&order.order_id);
        if is_open(order.status) {
            self.add(Reserved::of(order));
        }
    }

    pub fn len(&self) -> usize {
        self.orders.len()
    }

    pub fn is_empty(&self) -> bool {
        self.orders.is_empty()
    }

    /// The claims of the open orders but `except`.
    pub fn claims(&self, except: Option<&str>, price_now: impl Fn(i64) -> Decimal) -> Claims {
        let except = except.and_then(|id| self.orders.get(id));
        let floating = self
            .floating
            .iter()
            .filter_map(|id| self.orders.get(id))
            .filter(|o| except.is_none_or(|e| e.order_id != o.order_id));
        let mut total = claims(floating, &price_now).plus(&self.fixed);
        if let Some(e) = except.filter(|e| e.fixed()) {
            let (cash, shares) = e.claim(|_| Decimal::ZERO);
            total.cash -= cash;
            *total.selling.entry(e.instrument_id).or_default() -= shares;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    proptest::proptest! {
        /// The running totals equal the claims reckoned afresh, with or without an order left out.
        #[test]
        fn running_totals_equal_the_claims_reckoned_afresh(
            orders in proptest::collection::vec(
                (0u8..3, 1i64..100, proptest::option::of(1i64..50), proptest::option::of(0u8..2), proptest::bool::ANY, 0i64..3),
                0..40,
            ),
            except in proptest::option::of(0usize..40),
        ) {
            let open: Vec<Reserved> = orders
                .iter()
                .enumerate()
                .map(|(n, &(side, remaining, price, oco, waits, instrument_id))| Reserved {
                    order_id: n.to_string(),
                    side: [Side::Buy, Side::Sell, Side::Short][usize::from(side)],
                    instrument_id,
                    remaining: Decimal::from(remaining),
                    price: price.map(Decimal::from),
                    oco: oco.map(|o| o.to_string()),
                    waits,
                })
                .collect();
            let except = except.map(|n| n.to_string());
            let price_now = |instrument_id: i64| Decimal::from(7 + instrument_id);
            let mut kept = OpenClaims::default();
            open.iter().cloned().for_each(|o| kept.add(o));
            let mut kept = kept.claims(except.as_deref(), price_now);
            kept.selling.retain(|_, shares| !shares.is_zero());
            let afresh = claims(open.iter().filter(|o| Some(&o.order_id) != except.as_ref()), price_now);
            proptest::prop_assert_eq!(kept, afresh);
        }
    }

    proptest::proptest! {
        /// Orders followed through their changes (a partial fill, an end) keep the running
        /// totals equal to the claims of the orders open now.
        #[test]
        fn following_changes_keeps_the_totals(
            orders in proptest::collection::vec(
                (0u8..3, 1i64..100, proptest::option::of(1i64..50), proptest::option::of(0u8..2), 0i64..3),
                0..30,
            ),
            changes in proptest::collection::vec((0usize..30, proptest::option::of(1i64..100)), 0..30),
        ) {
            let mut open: Vec<Reserved> = orders
                .iter()
                .enumerate()
                .map(|(n, &(side, remaining, price, oco, instrument_id))| Reserved {
                    order_id: n.to_string(),
                    side: [Side::Buy, Side::Sell, Side::Short][usize::from(side)],
                    // The legs of an OCO pair trade one symbol (the placement checks it).
                    instrument_id: oco.map_or(instrument_id, i64::from),
                    remaining: Decimal::from(remaining),
                    price: price.map(Decimal::from),
                    oco: oco.map(|o| o.to_string()),
                    waits: false,
                })
                .collect();
            let mut kept = OpenClaims::default();
            open.iter().cloned().for_each(|o| kept.add(o));
            // Each change: what is left of an order, or its end.
            for (n, left) in changes {
                let id = n.to_string();
                kept.remove(&id);
                let at = open.iter().position(|o| o.order_id == id);
                match (at, left) {
                    (Some(at), Some(left)) => {
                        open[at].remaining = Decimal::from(left);
                        kept.add(open[at].clone());
                    }
                    (Some(at), None) => {
                        open.remove(at);
                    }
                    (None, _) => {}
                }
            }
            let price_now = |instrument_id: i64| Decimal::from(7 + instrument_id);
            let mut totals = kept.claims(None, price_now);
            totals.selling.retain(|_, shares| !shares.is_zero());
            proptest::prop_assert_eq!(kept.len(), open.len());
            proptest::prop_assert_eq!(totals, claims(open.iter(), price_now));
        }
    }
}
