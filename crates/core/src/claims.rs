//! What each account's open orders hold back (cash for buys, shares for sells: the domain's
//! [`claims`](signet_domain::trading::claims)), with the account's cash and positions, kept
//! between placements so that a placement does not read them from the database again.
//!
//! An entry is the list read from the database plus the orders placed since (by order id, so an
//! order the read saw and then reported placed counts once). Anything else that changes an open
//! order (a fill, a cancel, a replace, an expiry, a moved stop) forgets the account's entry and
//! bumps its generation; a list read from the database is kept only if no such change came
//! during the read.
//!
//! On a database several nodes share, the others' changes are not seen: each account is then
//! followed through the store's change feed instead ([`signet_store::TradingStore::order_changes`]), and every
//! placement first reads what changed since the last one.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use rust_decimal::Decimal;
use signet_domain::trading::claims::{Claims, OpenClaims, Reserved, claims};
use signet_model::ids::{AccountId, OrderId};
use signet_store::{AccountRecord, ChangeCursor, OrderQuery, PositionRecord, Store, StoreError};

/// An account as its orders see it: the account row (its cash), its positions and the claims of
/// its open orders.
pub struct Known {
    pub account: AccountRecord,
    pub positions: Vec<PositionRecord>,
    open: OpenClaims,
}

impl Known {
    fn new(account: AccountRecord, positions: Vec<PositionRecord>) -> Self {
        Known {
            account,
            positions,
            open: OpenClaims::default(),
        }
    }

    /// The claims of the open orders but `except`.
    pub fn claims(&self, except: Option<&OrderId>, price_now: impl Fn(i64) -> Decimal) -> Claims {
        self.open.claims(except, price_now)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.open.len()
    }
}

#[derive(Default)]
struct Entry {
    /// Bumped by every [`ClaimsCache::forget`].
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
    accounts: Mutex<HashMap<AccountId, Arc<tokio::sync::Mutex<Option<Followed>>>>>,
    /// Each followed account's row as last read, for the checks of its owner and type, which
    /// never change (not for its cash).
    rows: Mutex<HashMap<AccountId, AccountRecord>>,
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
pub struct ClaimsCache {
    accounts: Mutex<HashMap<AccountId, Entry>>,
    /// On a database other nodes change too: the accounts followed through its change feed.
    followers: Option<Followers>,
}

impl ClaimsCache {
    /// ClaimsCache for a database several nodes share, which follow its change feed.
    pub fn shared() -> Self {
        ClaimsCache {
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
        account_id: &AccountId,
        except: Option<&OrderId>,
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
        let open: Vec<Reserved> = orders.iter().map(|o| Reserved::of(o, account.account_type)).collect();
        let claims = claims(open.iter().filter(|o| Some(&o.order_id) != except), price_now);
        self.keep(generation, account.clone(), positions.clone(), open);
        Ok(View {
            account,
            positions,
            claims,
        })
    }

    /// `f` of the account's open orders when they are known; otherwise the generation to hand
    /// to `keep` with a list read from the database.
    pub fn with<R>(&self, account_id: &AccountId, f: impl FnOnce(&Known) -> R) -> Result<R, u64> {
        let accounts = self.accounts.lock();
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
    pub fn account(&self, account_id: &AccountId) -> Option<AccountRecord> {
        match &self.followers {
            Some(followers) => followers.rows.lock().get(account_id).cloned(),
            None => self.with(account_id, |known| known.account.clone()).ok(),
        }
    }

    /// Keeps what was read from the database after [`Self::with`] answered `generation` (with
    /// the orders placed during the read), unless an order changed since.
    fn keep(&self, generation: u64, account: AccountRecord, positions: Vec<PositionRecord>, orders: Vec<Reserved>) {
        if self.followers.is_some() {
            return;
        }
        let mut accounts = self.accounts.lock();
        let entry = accounts.entry(account.account_id.clone()).or_default();
        if entry.generation != generation || entry.orders.is_some() {
            return;
        }
        let mut known = Known::new(account, positions);
        for o in orders.into_iter().chain(entry.placed_meanwhile.drain(..)) {
            known.open.add(o);
        }
        entry.orders = Some(known);
    }

    /// Orders just stored.
    pub fn placed(&self, account_id: &AccountId, orders: impl IntoIterator<Item = Reserved>) {
        if self.followers.is_some() {
            return;
        }
        let mut accounts = self.accounts.lock();
        let entry = accounts.entry(account_id.to_owned()).or_default();
        match &mut entry.orders {
            Some(known) => orders.into_iter().for_each(|o| known.open.add(o)),
            None => entry.placed_meanwhile.extend(orders),
        }
    }

    /// Forgets every account (after a checkpoint's restore): each is read again when next used.
    pub fn clear(&self) {
        let mut accounts = self.accounts.lock();
        for entry in accounts.values_mut() {
            entry.generation += 1;
            entry.orders = None;
            entry.placed_meanwhile.clear();
        }
        drop(accounts);
        if let Some(followers) = &self.followers {
            followers.accounts.lock().clear();
            followers.rows.lock().clear();
        }
    }

    /// An open order of the account changed: read them again next time (followed accounts read
    /// their changes anyway).
    pub fn forget(&self, account_id: &AccountId) {
        if self.followers.is_some() {
            return;
        }
        let mut accounts = self.accounts.lock();
        let entry = accounts.entry(account_id.to_owned()).or_default();
        entry.generation += 1;
        entry.orders = None;
        entry.placed_meanwhile.clear();
    }
}

fn gone() -> StoreError {
    StoreError::Other("an account disappeared".into())
}

/// [`ClaimsCache::view`] of a followed account: its changes since the last read applied, or
/// its open orders read when it was not followed yet.
async fn follow(
    followers: &Followers,
    store: &dyn Store,
    account_id: &AccountId,
    except: Option<&OrderId>,
    price_now: impl Fn(i64) -> Decimal,
) -> Result<View, StoreError> {
    let follower = followers
        .accounts
        .lock()
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
    let since = follower.as_ref().and_then(|f| f.cursor);
    let changes = store.order_changes(Some(account_id), since).await?;
    // Cash and positions change by fills, each of which changes its order, and by splits and
    // dividends, which change the account's row: unless an order may have filled or the row
    // changed since the last read of the changes, they are as that read left them. (A read
    // without a cursor lists only the open orders, and says nothing of fills. Read after the
    // orders, as here, cash and positions are never older than the claims.)
    let orders_unchanged = since.is_some()
        && follower
            .as_ref()
            .is_some_and(|f| !changes.orders.iter().any(|o| f.known.open.may_have_filled(o)));
    let unchanged = orders_unchanged && !changes.account_changed;
    let rows = match unchanged {
        true => None,
        false => {
            let positions = store.positions(account_id).await?;
            let account = store.account(account_id).await?.ok_or_else(gone)?;
            followers.rows.lock().insert(account_id.to_owned(), account.clone());
            Some((account, positions))
        }
    };
    let followed = match (follower.as_mut(), rows) {
        (Some(followed), rows) => {
            if let Some((account, positions)) = rows {
                followed.known.account = account;
                followed.known.positions = positions;
            }
            followed.cursor = changes.cursor;
            followed.read_ticket = read_ticket;
            followed
        }
        (None, rows) => {
            let (account, positions) = rows.expect("a first read reads the rows");
            follower.insert(Followed {
                known: Known::new(account, positions),
                cursor: changes.cursor,
                read_ticket,
            })
        }
    };
    for order in &changes.orders {
        followed.known.open.follow(order, followed.known.account.account_type);
    }
    Ok(view_of(&followed.known, except, price_now))
}

fn view_of(known: &Known, except: Option<&OrderId>, price_now: impl Fn(i64) -> Decimal) -> View {
    View {
        account: known.account.clone(),
        positions: known.positions.clone(),
        claims: known.claims(except, price_now),
    }
}

#[cfg(test)]
mod tests {
    use signet_model::orders::Side;

    use super::*;

    fn reserved(n: i64) -> Reserved {
        Reserved {
            order_id: n.to_string().into(),
            side: Side::Buy,
            instrument_id: n,
            remaining: Decimal::ONE,
            price: None,
            oco: None,
            waits: false,
            writes: false,
            margin: false,
            legs: None,
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

    fn count(r: &ClaimsCache) -> Option<usize> {
        r.with(&"A".into(), Known::len).ok()
    }

    #[test]
    fn reads_changes_and_placements_interleave_safely() {
        let r = ClaimsCache::default();
        let generation = r.with(&"A".into(), |_| ()).unwrap_err();
        r.keep(generation, account(), Vec::new(), vec![reserved(1)]);
        assert_eq!(count(&r), Some(1));

        // A read starts, an order changes meanwhile: the read is stale and not kept.
        r.forget(&"A".into());
        let generation = r.with(&"A".into(), |_| ()).unwrap_err();
        r.forget(&"A".into());
        r.keep(generation, account(), Vec::new(), vec![reserved(1), reserved(2)]);
        assert_eq!(count(&r), None);

        // Orders placed during a read join the list it brings, once each.
        let generation = r.with(&"A".into(), |_| ()).unwrap_err();
        r.placed(&"A".into(), [reserved(3), reserved(2)]);
        r.keep(generation, account(), Vec::new(), vec![reserved(1), reserved(2)]);
        assert_eq!(count(&r), Some(3));
        r.placed(&"A".into(), [reserved(3), reserved(4)]);
        assert_eq!(count(&r), Some(4));
    }
}
