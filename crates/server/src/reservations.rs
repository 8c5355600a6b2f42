//! What each account's open orders hold back (cash for buys, shares for sells), with the
//! account's cash and positions, kept between placements so that a placement does not read them
//! from the database again.
//!
//! An entry is the list read from the database plus the orders placed since (by order id, so an
//! order the read saw and then reported placed counts once). Anything else that changes an open
//! order (a fill, a cancel, a replace, an expiry, a moved stop) forgets the account's entry and
//! bumps its generation; a list read from the database is kept only if no such change came
//! during the read.
//!
//! On a database several nodes share, the others' changes are not seen: each account is then
//! followed through the store's change feed instead ([`TradingStore::order_changes`]), and every
//! placement first reads what changed since the last one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rust_decimal::Decimal;
use signet_domain::trading::combo::{Part, part};
use signet_domain::trading::order::Order;
use signet_domain::trading::order::is_open;
use signet_model::orders::Side;
use signet_store::{AccountRecord, ChangeCursor, OrderQuery, PositionRecord, Store, StoreError};

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
#[derive(Debug, Default, PartialEq, Eq)]
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

/// An account as its orders see it: the account row (its cash), its positions and its open
/// orders, with the running total of their fixed claims, so that a placement costs the same
/// however many orders are open.
pub struct Known {
    pub account: AccountRecord,
    pub positions: Vec<PositionRecord>,
    orders: HashMap<String, Reserved>,
    fixed: Claims,
    /// Orders whose claim is reckoned each time (market orders, OCO legs).
    floating: Vec<String>,
}

impl Known {
    fn new(account: AccountRecord, positions: Vec<PositionRecord>) -> Self {
        Known {
            account,
            positions,
            orders: HashMap::new(),
            fixed: Claims::default(),
            floating: Vec::new(),
        }
    }

    fn add(&mut self, order: Reserved) {
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

    fn remove(&mut self, order_id: &str) {
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
    fn follow(&mut self, order: &Order) {
        self.remove(&order.order_id);
        if is_open(order.status) {
            self.add(Reserved::of(order));
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.orders.len()
    }

    /// The claims of the open orders but `except`.
    pub fn claims(&self, except: Option<&str>, price_now: impl Fn(i64) -> Decimal) -> Claims {
        let except = except.and_then(|id| self.orders.get(id));
        let floating = self
            .floating
            .iter()
            .filter_map(|id| self.orders.get(id))
            .filter(|o| except.is_none_or(|e| e.order_id != o.order_id));
        let mut total = claims(floating, &price_now);
        total.cash += self.fixed.cash;
        for (&instrument_id, &shares) in &self.fixed.selling {
            *total.selling.entry(instrument_id).or_default() += shares;
        }
        if let Some(e) = except.filter(|e| e.fixed()) {
            let (cash, shares) = e.claim(|_| Decimal::ZERO);
            total.cash -= cash;
            *total.selling.entry(e.instrument_id).or_default() -= shares;
        }
        total
    }
}

#[derive(Default)]
struct Entry {
    /// Bumped by every [`Reservations::forget`].
    generation: u64,
    /// When known.
    orders: Option<Known>,
    /// Orders placed while the list is not known, for the read under way to add.
    placed_meanwhile: Vec<Reserved>,
}

/// An account followed through the change feed, with where its reads left off.
struct Followed {
    known: Known,
    cursor: Option<ChangeCursor>,
    /// The ticket taken when the last read began ([`Followers::tickets`]).
    read_ticket: u64,
}

/// The accounts followed through the change feed.
#[derive(Default)]
struct Followers {
    /// Each account's follower, behind a lock of its own: reads of its changes are applied in
    /// the order they were made.
    accounts: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Followed>>>>>,
    /// Each followed account's row as last read, for the checks of its owner and type, which
    /// never change (not for its cash).
    rows: Mutex<HashMap<String, AccountRecord>>,
    /// Taken by each placement on arrival and by each read as it begins: a read with a later
    /// ticket than a placement's began after the placement arrived, so the placement may use
    /// what it found instead of reading again. Placements waiting for one account's lock then
    /// share one read, rather than reading one after the other.
    tickets: std::sync::atomic::AtomicU64,
}

/// An account as a placement checks it.
pub struct View {
    pub account: AccountRecord,
    pub positions: Vec<PositionRecord>,
    pub claims: Claims,
}

#[derive(Default)]
pub struct Reservations {
    accounts: Mutex<HashMap<String, Entry>>,
    /// On a database other nodes change too: the accounts followed through its change feed.
    followers: Option<Followers>,
}

impl Reservations {
    /// Reservations for a database several nodes share, which follow its change feed.
    pub fn shared() -> Self {
        Reservations {
            followers: Some(Followers::default()),
            ..Self::default()
        }
    }

    /// The account as it is now: its row, its positions and the claims of its open orders but
    /// `except` (an order being replaced), buys and shorts priced at their price or else
    /// `price_now`. Read from the database only as far as needed.
    pub async fn view(
        &self,
        store: &dyn Store,
        account_id: &str,
        except: Option<&str>,
        price_now: impl Fn(i64) -> Decimal,
    ) -> Result<View, StoreError> {
        if let Some(followers) = &self.followers {
            return follow(followers, store, account_id, except, price_now).await;
        }
        let known = self.with(account_id, |known| view_of(known, except, &price_now));
        let generation = match known {
            Ok(view) => return Ok(view),
            Err(generation) => generation,
        };
        let orders = store
            .orders(&OrderQuery {
                account_id: account_id.to_owned(),
                open_only: true,
                from_ms: None,
                to_ms: None,
                before_seq: None,
                status: None,
                symbol: None,
                limit: u32::MAX,
            })
            .await?;
        let positions = store.positions(account_id).await?;
        // Read after the generation: a row the caller had may predate a fill.
        let account = store.account(account_id).await?.ok_or_else(gone)?;
        let open: Vec<Reserved> = orders.iter().map(Reserved::of).collect();
        let claims = claims(open.iter().filter(|o| Some(o.order_id.as_str()) != except), price_now);
        self.keep(generation, account.clone(), positions.clone(), open);
        Ok(View {
            account,
            positions,
            claims,
        })
    }

    /// `f` of the account's open orders when they are known; otherwise the generation to hand
    /// to [`Self::keep`] with a list read from the database.
    pub fn with<R>(&self, account_id: &str, f: impl FnOnce(&Known) -> R) -> Result<R, u64> {
        let accounts = self.accounts.lock().expect("reservations lock");
        match accounts.get(account_id) {
            Some(Entry {
                orders: Some(orders), ..
            }) => Ok(f(orders)),
            Some(entry) => Err(entry.generation),
            None => Err(0),
        }
    }

    /// The account row when known: its owner and type, and, but on a shared database, its cash
    /// as of the last change.
    pub fn account(&self, account_id: &str) -> Option<AccountRecord> {
        match &self.followers {
            Some(followers) => followers.rows.lock().expect("followers lock").get(account_id).cloned(),
            None => self.with(account_id, |known| known.account.clone()).ok(),
        }
    }

    /// Keeps what was read from the database after [`Self::with`] answered `generation` (with
    /// the orders placed during the read), unless an order changed since.
    fn keep(&self, generation: u64, account: AccountRecord, positions: Vec<PositionRecord>, orders: Vec<Reserved>) {
        if self.followers.is_some() {
            return;
        }
        let mut accounts = self.accounts.lock().expect("reservations lock");
        let entry = accounts.entry(account.account_id.clone()).or_default();
        if entry.generation != generation || entry.orders.is_some() {
            return;
        }
        let mut known = Known::new(account, positions);
        for o in orders.into_iter().chain(entry.placed_meanwhile.drain(..)) {
            known.add(o);
        }
        entry.orders = Some(known);
    }

    /// Orders just stored.
    pub fn placed(&self, account_id: &str, orders: impl IntoIterator<Item = Reserved>) {
        if self.followers.is_some() {
            return;
        }
        let mut accounts = self.accounts.lock().expect("reservations lock");
        let entry = accounts.entry(account_id.to_owned()).or_default();
        match &mut entry.orders {
            Some(known) => orders.into_iter().for_each(|o| known.add(o)),
            None => entry.placed_meanwhile.extend(orders),
        }
    }

    /// An open order of the account changed: read them again next time (followed accounts read
    /// their changes anyway).
    pub fn forget(&self, account_id: &str) {
        if self.followers.is_some() {
            return;
        }
        let mut accounts = self.accounts.lock().expect("reservations lock");
        let entry = accounts.entry(account_id.to_owned()).or_default();
        entry.generation += 1;
        entry.orders = None;
        entry.placed_meanwhile.clear();
    }
}

fn gone() -> StoreError {
    StoreError::Other("an account disappeared".into())
}

/// [`Reservations::view`] of a followed account: its changes since the last read applied, or
/// its open orders read when it was not followed yet.
async fn follow(
    followers: &Followers,
    store: &dyn Store,
    account_id: &str,
    except: Option<&str>,
    price_now: impl Fn(i64) -> Decimal,
) -> Result<View, StoreError> {
    let follower = followers
        .accounts
        .lock()
        .expect("followers lock")
        .entry(account_id.to_owned())
        .or_default()
        .clone();
    let ticket = || followers.tickets.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let arrived = ticket();
    let mut follower = follower.lock().await;
    if let Some(followed) = follower.as_ref().filter(|f| f.read_ticket > arrived) {
        return Ok(view_of(&followed.known, except, price_now));
    }
    let read_ticket = ticket();
    let changes = store
        .order_changes(Some(account_id), follower.as_ref().and_then(|f| f.cursor))
        .await?;
    let positions = store.positions(account_id).await?;
    let account = store.account(account_id).await?.ok_or_else(gone)?;
    followers
        .rows
        .lock()
        .expect("followers lock")
        .insert(account_id.to_owned(), account.clone());
    let followed = match follower.as_mut() {
        Some(followed) => {
            followed.known.account = account;
            followed.known.positions = positions;
            followed.cursor = changes.cursor;
            followed.read_ticket = read_ticket;
            followed
        }
        None => follower.insert(Followed {
            known: Known::new(account, positions),
            cursor: changes.cursor,
            read_ticket,
        }),
    };
    for order in &changes.orders {
        followed.known.follow(order);
    }
    Ok(view_of(&followed.known, except, price_now))
}

fn view_of(known: &Known, except: Option<&str>, price_now: impl Fn(i64) -> Decimal) -> View {
    View {
        account: known.account.clone(),
        positions: known.positions.clone(),
        claims: known.claims(except, price_now),
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

    fn account() -> AccountRecord {
        AccountRecord {
            account_id: "A".into(),
            app_key: "K".into(),
            account_type: signet_model::AccountType::Cash,
            account_label: String::new(),
            currency: "USD".into(),
            cash: Decimal::ZERO,
            created_at: 0,
        }
    }

    fn count(r: &Reservations) -> Option<usize> {
        r.with("A", Known::len).ok()
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
            let r = Reservations::default();
            r.keep(0, account(), Vec::new(), open.clone());
            let mut kept = r.with("A", |known| known.claims(except.as_deref(), price_now)).unwrap();
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
            let mut known = Known::new(account(), Vec::new());
            open.iter().cloned().for_each(|o| known.add(o));
            // Each change: what is left of an order, or its end.
            for (n, left) in changes {
                let id = n.to_string();
                known.remove(&id);
                let at = open.iter().position(|o| o.order_id == id);
                match (at, left) {
                    (Some(at), Some(left)) => {
                        open[at].remaining = Decimal::from(left);
                        known.add(open[at].clone());
                    }
                    (Some(at), None) => {
                        open.remove(at);
                    }
                    (None, _) => {}
                }
            }
            let price_now = |instrument_id: i64| Decimal::from(7 + instrument_id);
            let mut kept = known.claims(None, price_now);
            kept.selling.retain(|_, shares| !shares.is_zero());
            proptest::prop_assert_eq!(known.len(), open.len());
            proptest::prop_assert_eq!(kept, claims(open.iter(), price_now));
        }
    }

    #[test]
    fn reads_changes_and_placements_interleave_safely() {
        let r = Reservations::default();
        let generation = r.with("A", |_| ()).unwrap_err();
        r.keep(generation, account(), Vec::new(), vec![reserved(1)]);
        assert_eq!(count(&r), Some(1));

        // A read starts, an order changes meanwhile: the read is stale and not kept.
        r.forget("A");
        let generation = r.with("A", |_| ()).unwrap_err();
        r.forget("A");
        r.keep(generation, account(), Vec::new(), vec![reserved(1), reserved(2)]);
        assert_eq!(count(&r), None);

        // Orders placed during a read join the list it brings, once each.
        let generation = r.with("A", |_| ()).unwrap_err();
        r.placed("A", [reserved(3), reserved(2)]);
        r.keep(generation, account(), Vec::new(), vec![reserved(1), reserved(2)]);
        assert_eq!(count(&r), Some(3));
        r.placed("A", [reserved(3), reserved(4)]);
        assert_eq!(count(&r), Some(4));
    }
}
