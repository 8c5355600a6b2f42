//! An order's whole life at the account holder's request: parsed and priced, previewed,
//! placed (one order, a combination, a batch, a multi-leg order), found, replaced and
//! cancelled. Every door (the current interface, each earlier generation's paths, the CLI's
//! admin paths) parses its request into the model's `NewOrder`/`ModifyOrder`, calls
//! [`Orders`], and maps the orders it answers; none of them builds or changes an order itself.
//!
//! After a change outside the engine's ticks (a cancel, a replacement, an administrator's
//! reset) the account's claims and the book are read again (`forget_open_orders`, whatever the
//! change's outcome), and the event hub is woken for what the change recorded.

use std::sync::Arc;

use rust_decimal::Decimal;
use signet_domain::Rejection;
use signet_domain::options::is_contract;
use signet_domain::options::market;
use signet_domain::options::secured::Rule;
use signet_domain::scenarios::Operation;
use signet_domain::simulator::Quote;
use signet_domain::times::{SimTime, WallTime};
use signet_domain::trading::accounting::Commission;
use signet_domain::trading::buying_power::{self, Headroom, PricedOrder};
use signet_domain::trading::combo::{self, Combo, ComboKind};
use signet_domain::trading::expiry;
use signet_domain::trading::multi_leg::{self, LegsClaim, MultiLeg, OrderLeg};
use signet_domain::trading::order::{self, Event, Order};
use signet_domain::trading::placement::{self, Estimate, Placement};
use signet_domain::trading::replace;
use signet_domain::trading::spec::{self, OrderSpec};
use signet_model::ErrorCode;
use signet_model::ids::{AccountId, ClientOrderId, OrderId};
use signet_model::orders::{ModifyOrder, NewOrder, OrderStatus, Side};
use signet_store::{AccountRecord, ExecutionQuery, ExecutionRecord, OrderQuery, Store};
use tokio::sync::oneshot;

use crate::accounts::Accounts;
use crate::claims::ClaimsCache;
use crate::engine::book::Book;
use crate::error::CoreError;
use crate::hub::EventHub;
use crate::options::Options;
use crate::scenarios::Scenarios;
use crate::simulator::Simulator;
use crate::turns::Turns;

/// The order operations, over the parts of the broker they read and write.
#[derive(Clone)]
pub struct Orders {
    pub store: Arc<dyn Store>,
    pub simulator: Arc<Simulator>,
    pub options: Arc<Options>,
    pub claims: Arc<ClaimsCache>,
    pub turns: Arc<Turns<Queued>>,
    pub book: Arc<Book>,
    pub hub: Arc<EventHub>,
    pub scenarios: Arc<Scenarios>,
    /// What a fill costs, for the preview's estimate.
    pub commission: Commission,
}

/// A placement waiting for its account's turn ([`crate::turns`]; what is done in it is in
/// [`crate::placements`]).
pub struct Queued {
    pub(crate) orders: ToPlace,
    pub(crate) answer: oneshot::Sender<Result<Vec<Order>, CoreError>>,
}

/// New orders of one account, priced for the buying-power check, and as they will be stored.
pub struct ToPlace {
    pub priced: Vec<PricedOrder>,
    /// The combination they form, if any (a batch's orders are independent).
    pub kind: Option<ComboKind>,
    pub orders: Vec<Order>,
}

/// What a placement would cost, and the account's buying power before and after it.
#[derive(Debug, Clone)]
pub struct Preview {
    pub estimate: Estimate,
    pub headroom: Headroom,
}

/// One page of an account's orders, newest first.
#[derive(Debug, Clone, Copy)]
pub struct OrderPageQuery {
    pub open_only: bool,
    pub from_ms: Option<i64>,
    pub to_ms: Option<i64>,
    /// Orders older than this sequence number (the previous page's last); for fills, older than
    /// this fill id.
    pub before_seq: Option<i64>,
    pub limit: u32,
}

impl Orders {
    /// The questions about accounts ([`Accounts`]), over the same store, claims and prices.
    pub fn accounts(&self) -> Accounts<'_> {
        Accounts {
            store: &*self.store,
            claims: &self.claims,
            simulator: &self.simulator,
        }
    }

    /// Parses one new order, finds its instrument and prices it at the simulator's quote now
    /// ([`placement::price`]).
    pub async fn price(&self, order: &NewOrder) -> Result<PricedOrder, CoreError> {
        let spec = spec::parse(order)?;
        if spec.multi_leg.is_some() {
            return self.price_multi_leg(spec).await;
        }
        let instrument_id = match &spec.contract {
            // A contract listed today, at prices on its tick.
            Some(_) => {
                let (id, _, u) = self.options.contract(&spec.symbol).await?;
                for (field, price) in [("limit_price", spec.limit_price), ("stop_price", spec.stop_price)] {
                    if let Some(price) = price {
                        market::check_tick(u.penny, field, price)?;
                    }
                }
                id
            }
            None => self.instrument_id(&spec.symbol)?,
        };
        let now = self.simulator.now();
        let quote = self.simulator.quote_of(instrument_id, now.0);
        Ok(placement::price(spec, instrument_id, quote.as_ref(), now)?)
    }

    fn instrument_id(&self, symbol: &str) -> Result<i64, Rejection> {
        self.simulator.instrument_id(symbol).ok_or_else(|| {
            Rejection::new(
                ErrorCode::InstrumentNotFound,
                format!("no instrument has the symbol {symbol:?}"),
            )
        })
    }

    /// A multi-leg order: each leg's contract listed today (its net limit on the cent), priced
    /// at the legs' quotes now ([`placement::price_multi_leg`]); its instrument is the
    /// underlying.
    async fn price_multi_leg(&self, spec: OrderSpec) -> Result<PricedOrder, CoreError> {
        let multi = spec
            .multi_leg
            .as_ref()
            .ok_or(CoreError::Internal("a multi-leg order without legs"))?;
        let underlying = self.instrument_id(&spec.symbol)?;
        let mut ids = Vec::with_capacity(multi.legs.len());
        for leg in &multi.legs {
            let id = match &leg.contract {
                Some(contract) => self.options.contract(&contract.occ_symbol()).await?.0,
                None => underlying,
            };
            ids.push(id);
        }
        // A combination's net price trades in cents, whatever its legs' ticks.
        if let Some(limit) = spec.limit_price.filter(|l| l.normalize().scale() > 2) {
            return Err(Rejection::new(
                ErrorCode::IllegalParameter,
                format!("limit_price {limit} is a multi-leg order's net price: in steps of 0.01"),
            )
            .into());
        }
        let now = self.simulator.now();
        self.simulator.prepare(ids.iter().copied()).await;
        let quotes: Vec<Option<Quote>> = ids.iter().map(|&id| self.simulator.quote_of(id, now.0)).collect();
        let legs: Vec<(i64, Option<&Quote>)> = ids.iter().copied().zip(quotes.iter().map(Option::as_ref)).collect();
        Ok(placement::price_multi_leg(spec, underlying, &legs)?)
    }

    /// `new_orders` read and priced, as a [`Placement`]; a refusal of one of several names it
    /// (`new_orders[1]: ...`).
    pub async fn placement(
        &self,
        new_orders: &[NewOrder],
        client_combo_order_id: Option<&str>,
    ) -> Result<Placement, CoreError> {
        combo::check_count(new_orders.len())?;
        let mut orders = Vec::with_capacity(new_orders.len());
        for (i, order) in new_orders.iter().enumerate() {
            let priced = self.price(order).await;
            orders.push(if new_orders.len() > 1 {
                priced.map_err(|e| e.said_of(&format!("new_orders[{i}]")))?
            } else {
                priced?
            });
        }
        Ok(Placement::new(orders, client_combo_order_id)?)
    }

    /// Checks a placement in its account's turn and stores it if it fits: its orders as stored.
    pub async fn place(&self, account: &AccountRecord, placement: Placement) -> Result<Vec<Order>, CoreError> {
        let orders = to_store(&placement, account, self.simulator.now(), WallTime::now())?;
        let to_place = ToPlace {
            priced: placement.orders,
            kind: placement.kind,
            orders,
        };
        self.place_in_turn(account, to_place).await
    }

    /// Places independent orders at once (`batch_orders`), each checked as if alone, all or
    /// none stored.
    pub async fn place_batch(&self, account: &AccountRecord, batch: &[NewOrder]) -> Result<Vec<Order>, CoreError> {
        placement::check_batch_size(batch.len())?;
        let mut priced = Vec::with_capacity(batch.len());
        for (i, order) in batch.iter().enumerate() {
            let p = self
                .price(order)
                .await
                .map_err(|e| e.said_of(&format!("batch_orders[{i}]")))?;
            placement::check_batch_order(i, &p.spec)?;
            priced.push(p);
        }
        placement::check_batch_ids(&priced)?;
        let (sim_now, placed_at) = (self.simulator.now(), WallTime::now());
        let orders = priced
            .iter()
            .map(|p| new_order(account, p, None, sim_now, placed_at))
            .collect::<Result<Vec<_>, _>>()?;
        let to_place = ToPlace {
            priced,
            kind: None,
            orders,
        };
        self.place_in_turn(account, to_place).await
    }

    /// What a placement would cost and leave of the account's buying power; nothing is stored.
    /// A client order id used before in the account is refused, as placing it would be.
    pub async fn preview(&self, account: &AccountRecord, placement: &Placement) -> Result<Preview, CoreError> {
        for p in &placement.orders {
            if self
                .store
                .order(&account.account_id, &p.spec.client_order_id)
                .await?
                .is_some()
            {
                return Err(Rejection::new(
                    ErrorCode::DuplicateClientOrderId,
                    "this client_order_id was used before in this account",
                )
                .into());
            }
        }
        let orders: Vec<&PricedOrder> = placement.orders.iter().collect();
        let headroom = self.check_account(account, &orders, placement.kind, None).await?;
        Ok(Preview {
            estimate: placement.estimate(self.commission),
            headroom,
        })
    }

    /// Checks `orders` ([`buying_power::check`]) against the account as of now: its cash, its
    /// positions at the last prices, and the claims of its open orders but `replacing`, whose
    /// claim the new orders take over.
    async fn check_account(
        &self,
        account: &AccountRecord,
        orders: &[&PricedOrder],
        kind: Option<ComboKind>,
        replacing: Option<&OrderId>,
    ) -> Result<Headroom, CoreError> {
        let accounts = self.accounts();
        let (standing, _) = accounts.standing(&account.account_id, replacing).await?;
        let now = self.simulator.now_ms();
        Ok(buying_power::check(standing, orders, kind, &|id| {
            accounts.last_price(id, now)
        })?)
    }

    /// The account's order with this client order id, or `ORDER_NOT_FOUND`.
    pub async fn find(&self, account: &AccountRecord, client_order_id: &ClientOrderId) -> Result<Order, CoreError> {
        self.store
            .order(&account.account_id, &ClientOrderId::from(client_order_id.trim()))
            .await?
            .ok_or_else(|| {
                Rejection::new(
                    ErrorCode::OrderNotFound,
                    "no order of this account has this client_order_id",
                )
                .into()
            })
    }

    /// One page of the account's orders, newest first, and whether more follow.
    pub async fn page(&self, account: &AccountRecord, q: OrderPageQuery) -> Result<(Vec<Order>, bool), CoreError> {
        let mut orders = self
            .store
            .orders(&OrderQuery {
                account_id: account.account_id.clone(),
                open_only: q.open_only,
                from_ms: q.from_ms,
                to_ms: q.to_ms,
                before_seq: q.before_seq,
                status: None,
                symbol: None,
                limit: q.limit + 1,
            })
            .await?;
        let more = orders.len() > q.limit as usize;
        orders.truncate(q.limit as usize);
        Ok((orders, more))
    }

    /// One page of the account's fills, newest first (of one order when `client_order_id` is
    /// given), and whether more follow.
    pub async fn executions(
        &self,
        account: &AccountRecord,
        client_order_id: Option<ClientOrderId>,
        q: OrderPageQuery,
    ) -> Result<(Vec<ExecutionRecord>, bool), CoreError> {
        let mut fills = self
            .store
            .executions(&ExecutionQuery {
                account_id: account.account_id.clone(),
                client_order_id,
                from_ms: q.from_ms,
                to_ms: q.to_ms,
                before_fill_id: q.before_seq,
                limit: q.limit + 1,
            })
            .await?;
        let more = fills.len() > q.limit as usize;
        fills.truncate(q.limit as usize);
        Ok((fills, more))
    }

    /// Cancels the account's open order with this client order id: the order as cancelled.
    pub async fn cancel(&self, account: &AccountRecord, client_order_id: &ClientOrderId) -> Result<Order, CoreError> {
        let order = self.find(account, client_order_id).await?;
        self.scenarios
            .check_order(Operation::Cancel, &account.account_id, &order, self.simulator.now_ms())
            .await?;
        let cancelled = self
            .store
            .update_open_order(
                &order.order_id,
                Event::Cancel,
                Some("cancelled by the account holder"),
                None,
                WallTime::now(),
            )
            .await;
        self.forget_open_orders(&account.account_id);
        let cancelled = cancelled?.ok_or_else(|| order::not_open(&order))?;
        self.hub.wake();
        Ok(cancelled)
    }

    /// Replaces `order`, an order of `account`, as `modify` asks: the order as replaced.
    pub async fn replace(
        &self,
        account: &AccountRecord,
        order: &Order,
        modify: &ModifyOrder,
    ) -> Result<Order, CoreError> {
        self.scenarios
            .check_order(Operation::Replace, &account.account_id, order, self.simulator.now_ms())
            .await?;
        let mut replacement = replace::apply(order, modify)?;
        self.simulator.prepare([order.instrument_id]).await;
        if is_contract(order.instrument_id) {
            let (_, _, u) = self.options.contract(&order.symbol).await?;
            for (field, price) in [
                ("limit_price", replacement.limit_price),
                ("stop_price", replacement.stop_price),
            ] {
                if let Some(price) = price {
                    market::check_tick(u.penny, field, price)?;
                }
            }
        }
        // The replaced order must still fit the account, counting its unfilled part anew.
        let remaining = match &order.multi_leg {
            // A multi-leg order's legs at their quotes now, and what a unit claims at its new
            // limit.
            Some(multi) => {
                self.simulator.prepare(multi.legs.iter().map(|l| l.instrument_id)).await;
                let now = self.simulator.now_ms();
                let prices: Vec<Decimal> = multi
                    .legs
                    .iter()
                    .map(|l| {
                        self.simulator
                            .quote_of(l.instrument_id, now)
                            .map(|q| if l.side == Side::Buy { q.ask } else { q.bid })
                            .unwrap_or_default()
                    })
                    .collect();
                let remaining = replacement.remaining_legs(order, multi, &prices);
                let accounts = self.accounts();
                let price_now = |id| accounts.last_price(id, now);
                replacement.legs_claim = Some(multi_leg::claim(
                    multi,
                    remaining.estimate,
                    Rule::of(account.account_type, &price_now),
                ));
                remaining
            }
            None => replacement.remaining(order, || {
                self.simulator
                    .quote_of(order.instrument_id, self.simulator.now_ms())
                    .map(|q| q.ask)
                    .unwrap_or_default()
            }),
        };
        // Checked and stored in the account's turn, as placements are: a replacement may raise
        // the order's claim.
        let _turn_here = self.turns.take(&account.account_id).await;
        let turn = self.store.begin_turn(&account.account_id).await?;
        self.check_account(account, &[&remaining], None, Some(&order.order_id))
            .await?;
        let replaced = self
            .store
            .update_open_order(
                &order.order_id,
                Event::Replace,
                None,
                Some(replacement),
                WallTime::now(),
            )
            .await;
        self.forget_open_orders(&account.account_id);
        // Nothing was written in the turn: ending it only lets the next change of the account go
        // (the replacement's own commit waited for the disk, and for what it saw before it).
        if let Err(e) = turn.end().await {
            tracing::warn!(error = %e, "ending an account's turn after a replacement");
        }
        let replaced = replaced?.ok_or_else(|| order::not_open(order))?;
        self.hub.wake();
        Ok(replaced)
    }

    /// Starts an account over with `cash` (an administrator's reset): its orders, fills and
    /// positions removed. Done in the account's turn on this node, as a placement is checked
    /// and stored, so that none checked before the reset is stored after it. `false` when there
    /// is no such account.
    pub async fn reset_account(&self, account_id: &AccountId, cash: Decimal) -> Result<bool, CoreError> {
        let turn = self.turns.take(account_id).await;
        let reset = self.store.reset_account(account_id, cash).await;
        drop(turn);
        // What the claims, the book and the event hub held of the account is stale, whatever
        // happened.
        self.forget_open_orders(account_id);
        self.hub.wake();
        Ok(reset?)
    }

    /// An open order changed outside placements and the engine's ticks: the account's claims and
    /// the engine's book are read again from the database.
    fn forget_open_orders(&self, account_id: &AccountId) {
        self.claims.forget(account_id);
        self.book.forget();
    }
}

/// A new order's id: 16 upper-case hex digits, random.
fn new_order_id() -> Result<String, CoreError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|_| CoreError::Internal("the system's randomness failed"))?;
    Ok(hex::encode_upper(bytes))
}

/// The order a priced new order becomes, SUBMITTED.
fn new_order(
    account: &AccountRecord,
    p: &PricedOrder,
    client_combo_order_id: Option<&str>,
    sim_now: SimTime,
    placed_at: WallTime,
) -> Result<Order, CoreError> {
    Ok(Order {
        seq: 0,
        order_id: new_order_id()?.into(),
        account_id: account.account_id.clone(),
        client_order_id: p.spec.client_order_id.clone(),
        client_combo_order_id: client_combo_order_id.map(str::to_owned),
        combo_type: p.spec.combo_type,
        combo: None,
        waits_for: None,
        instrument_id: p.instrument_id,
        symbol: p.spec.symbol.clone(),
        side: p.spec.side,
        order_type: p.spec.order_type,
        time_in_force: p.spec.time_in_force,
        quantity: p.spec.quantity,
        cash_amount: p.spec.cash_amount,
        limit_price: p.spec.limit_price,
        stop_price: p.spec.stop_price,
        trailing: p.spec.trailing,
        triggered_at: None,
        session: p.spec.session,
        status: OrderStatus::Submitted,
        filled_quantity: Decimal::ZERO,
        filled_amount: Decimal::ZERO,
        reason: None,
        expires_at_sim: expiry::expires_at(p.spec.time_in_force, p.spec.session, p.spec.expire_day, sim_now),
        place_time: placed_at,
        fill_time: None,
        update_time: placed_at,
        filled_at_sim: None,
        fill_plan: None,
        // As given; else found in the account's turn ([`crate::placements`]).
        position_intent: p.spec.intent,
        multi_leg: p.spec.multi_leg.as_ref().map(|m| MultiLeg {
            strategy: m.strategy,
            legs: m
                .legs
                .iter()
                .zip(&p.legs)
                .map(|(leg, priced)| OrderLeg {
                    instrument_id: priced.instrument_id,
                    symbol: leg.symbol(&m.underlying),
                    side: leg.side,
                    ratio: leg.ratio,
                    filled_price: None,
                })
                .collect(),
            // Set in the account's turn, which knows the kind of account.
            claim: LegsClaim::default(),
        }),
    })
}

/// The orders of a placement to store: a combination is named by its first order, and in OTO
/// and OTOCO the others wait for it.
fn to_store(
    placement: &Placement,
    account: &AccountRecord,
    sim_now: SimTime,
    placed_at: WallTime,
) -> Result<Vec<Order>, CoreError> {
    let mut orders = placement
        .orders
        .iter()
        .map(|p| {
            new_order(
                account,
                p,
                placement.client_combo_order_id.as_deref(),
                sim_now,
                placed_at,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(kind) = placement.kind {
        let first = orders[0].order_id.clone();
        for (i, o) in orders.iter_mut().enumerate() {
            o.combo = Some(Combo {
                combo_order_id: first.clone(),
                kind,
            });
            if i > 0 && kind != ComboKind::Oco {
                o.waits_for = Some(first.clone());
            }
        }
    }
    Ok(orders)
}
