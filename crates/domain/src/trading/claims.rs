//! What an account's open orders hold back: cash for buys and short sales, shares for sells.
//! The buying-power check ([`super::buying_power::check`]) weighs new orders against these
//! claims, so an account cannot promise the same cash or shares to two orders.
//!
//! [`OpenClaims`] keeps the claims of a set of open orders as they come and go, with a running
//! total of those whose claim never depends on the price, so that a placement costs the same
//! however many orders are open.

use std::collections::HashMap;

use rust_decimal::Decimal;
use signet_model::AccountType;
use signet_model::ids::OrderId;
use signet_model::orders::{PositionIntent, Side};

use super::combo::{Part, part};
use super::multi_leg::LegsClaim;
use super::order::{Order, is_open};
use crate::options::secured::written_alone;
use crate::options::{Contract, Right, is_contract, multiplier};

/// An open order's claim on its account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reserved {
    pub order_id: OrderId,
    pub side: Side,
    pub instrument_id: i64,
    pub remaining: Decimal,
    /// The limit or stop it is priced at; a market order is priced at the quote.
    pub price: Option<Decimal>,
    /// The combination of an OCO leg: of a pair, only one trades, so the larger claim counts.
    pub oco: Option<OrderId>,
    /// It waits for its master: a sell then sells what the master buys, not what is held.
    pub waits: bool,
    /// An option sale that writes contracts (SELL_TO_OPEN): it holds back what secures them.
    pub writes: bool,
    /// Its account is a MARGIN account: contracts it writes hold back their naked requirement.
    pub margin: bool,
    /// A multi-leg order's underlying and what each unit claims ([`LegsClaim`]).
    pub legs: Option<(i64, LegsClaim)>,
}

impl Reserved {
    /// The claim of `order`, of an account of `account_type`.
    pub fn of(order: &Order, account_type: AccountType) -> Self {
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
            writes: order.position_intent == Some(PositionIntent::SellToOpen),
            margin: account_type == AccountType::Margin,
            legs: order
                .multi_leg
                .as_ref()
                .and_then(|m| Some((m.underlying_id()?, m.claim))),
        }
    }

    /// Whether its cash is held for option contracts, in full even in a margin account.
    fn premium(&self) -> bool {
        is_contract(self.instrument_id) || self.legs.is_some()
    }

    /// The instrument it claims of, with the cash (buys, short sales, puts written) and shares
    /// (sells, calls written: their underlying's) it holds back, priced at its price or else
    /// `price_now`.
    fn claim(&self, price_now: impl Fn(i64) -> Decimal) -> (i64, (Decimal, Decimal)) {
        // A multi-leg order: its cash, and the shares under its calls, of its underlying.
        if let Some((underlying, per_unit)) = self.legs {
            return (
                underlying,
                (self.remaining * per_unit.cash, self.remaining * per_unit.shares),
            );
        }
        let of_contract = Contract::of_id(self.instrument_id).filter(|_| self.writes);
        match (self.side, of_contract) {
            (Side::Buy | Side::Short, _) => (
                self.instrument_id,
                (
                    self.remaining
                        * self.price.unwrap_or_else(|| price_now(self.instrument_id))
                        * multiplier(self.instrument_id),
                    Decimal::ZERO,
                ),
            ),
            // Until it fills, what it writes is naked ([`written_alone`]), at the underlying's
            // price now: its claim floats.
            (Side::Sell, Some(parts)) if self.margin => {
                let premium = self.price.unwrap_or_else(|| price_now(self.instrument_id));
                let spot = price_now(parts.underlying_id);
                (
                    self.instrument_id,
                    (
                        self.remaining * written_alone(parts.right, parts.strike, premium, spot),
                        Decimal::ZERO,
                    ),
                )
            }
            (Side::Sell, Some(parts)) => {
                let shares = self.remaining * multiplier(self.instrument_id);
                match parts.right {
                    Right::Call => (parts.underlying_id, (Decimal::ZERO, shares)),
                    Right::Put => (self.instrument_id, (parts.strike * shares, Decimal::ZERO)),
                }
            }
            (Side::Sell, None) if self.waits => (self.instrument_id, (Decimal::ZERO, Decimal::ZERO)),
            (Side::Sell, None) => (self.instrument_id, (Decimal::ZERO, self.remaining)),
        }
    }

    /// Whether its claim is the same whatever the price and the other orders: a running total
    /// can hold it.
    fn fixed(&self) -> bool {
        self.oco.is_none()
            && !(self.writes && self.margin)
            && (self.price.is_some() || self.side == Side::Sell || self.legs.is_some())
    }

    fn add_to(&self, claims: &mut Claims, price_now: impl Fn(i64) -> Decimal) {
        let (of, claim) = self.claim(price_now);
        claims.add(of, claim, self.premium());
    }
}

/// What open orders hold back: cash for buys and short sales, shares for sells.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Claims {
    pub cash: Decimal,
    /// The part of `cash` held for option contracts (bought, or puts written), taken in full
    /// even in a margin account ([`super::accounting::buying_power`]).
    pub premiums: Decimal,
    pub selling: HashMap<i64, Decimal>,
}

impl Claims {
    fn add(&mut self, instrument_id: i64, (cash, shares): (Decimal, Decimal), premium: bool) {
        self.cash += cash;
        if premium {
            self.premiums += cash;
        }
        if !shares.is_zero() {
            *self.selling.entry(instrument_id).or_default() += shares;
        }
    }

    /// Takes back what [`Claims::add`] added.
    fn take(&mut self, instrument_id: i64, (cash, shares): (Decimal, Decimal), premium: bool) {
        self.add(instrument_id, (-cash, -shares), premium);
        if self.selling.get(&instrument_id).is_some_and(Decimal::is_zero) {
            self.selling.remove(&instrument_id);
        }
    }

    /// These claims and `other`'s together.
    pub fn plus(mut self, other: &Claims) -> Claims {
        self.cash += other.cash;
        self.premiums += other.premiums;
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
        let (of, (cash, shares)) = o.claim(&price_now);
        match &o.oco {
            Some(pair) => {
                let claim = pairs.entry(pair).or_insert((of, Decimal::ZERO, Decimal::ZERO));
                claim.1 = claim.1.max(cash);
                claim.2 = claim.2.max(shares);
            }
            None => total.add(of, (cash, shares), o.premium()),
        }
    }
    for (instrument_id, cash, shares) in pairs.into_values() {
        total.add(instrument_id, (cash, shares), is_contract(instrument_id));
    }
    total
}

/// The claims of a set of open orders, kept as orders are added, change and end: a running
/// total of the fixed claims, and the rest (market orders, OCO legs) reckoned when asked.
#[derive(Debug, Default, Clone)]
pub struct OpenClaims {
    orders: HashMap<OrderId, Reserved>,
    fixed: Claims,
    /// Orders whose claim is reckoned each time.
    floating: Vec<OrderId>,
}

impl OpenClaims {
    /// Adds an order's claim (once: an order already held is left as it is).
    pub fn add(&mut self, order: Reserved) {
        if self.orders.contains_key(&order.order_id) {
            return;
        }
        if order.fixed() {
            order.add_to(&mut self.fixed, |_| Decimal::ZERO);
        } else {
            self.floating.push(order.order_id.clone());
        }
        self.orders.insert(order.order_id.clone(), order);
    }

    pub fn remove(&mut self, order_id: &OrderId) {
        let Some(order) = self.orders.remove(order_id) else {
            return;
        };
        if order.fixed() {
            let (of, claim) = order.claim(|_| Decimal::ZERO);
            self.fixed.take(of, claim, order.premium());
        } else {
            self.floating.retain(|id| id != order_id);
        }
    }

    /// An order of an account of `account_type` as it is now: its claim while open, none once
    /// ended.
    pub fn follow(&mut self, order: &Order, account_type: AccountType) {
        self.remove(&order.order_id);
        if is_open(order.status) {
            self.add(Reserved::of(order, account_type));
        }
    }

    /// Whether `order`, as it is now, may have filled since it was last followed here: it is
    /// known open with more left than now or no longer open, or unknown and filled in part.
    /// (A cancel or a replacement answers yes too: asking again costs a read, never a fill.)
    pub fn may_have_filled(&self, order: &Order) -> bool {
        match self.orders.get(&order.order_id) {
            Some(known) => known.remaining != order.remaining() || !is_open(order.status),
            None => !order.filled_quantity.is_zero(),
        }
    }

    pub fn len(&self) -> usize {
        self.orders.len()
    }

    pub fn is_empty(&self) -> bool {
        self.orders.is_empty()
    }

    /// The claims of the open orders but `except`.
    pub fn claims(&self, except: Option<&OrderId>, price_now: impl Fn(i64) -> Decimal) -> Claims {
        let except = except.and_then(|id| self.orders.get(id));
        let floating = self
            .floating
            .iter()
            .filter_map(|id| self.orders.get(id))
            .filter(|o| except.is_none_or(|e| e.order_id != o.order_id));
        let mut total = claims(floating, &price_now).plus(&self.fixed);
        if let Some(e) = except.filter(|e| e.fixed()) {
            let (of, claim) = e.claim(|_| Decimal::ZERO);
            total.take(of, claim, e.premium());
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
            order_id: OrderId::default(),
            side,
            instrument_id: 7,
            remaining: Decimal::from(remaining),
            price: Some(Decimal::from(price)),
            oco: oco.map(OrderId::from),
            waits,
            writes: false,
            margin: false,
            legs: None,
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
    fn contracts_being_written_claim_what_secures_them() {
        let contract = |right| {
            Contract {
                underlying: "AAPL".into(),
                expiry: 15_779,
                right,
                strike: Decimal::from(450),
            }
            .instrument_id(7)
            .unwrap()
        };
        let writing = |right, remaining: i64| Reserved {
            order_id: OrderId::default(),
            side: Side::Sell,
            instrument_id: contract(right),
            remaining: Decimal::from(remaining),
            price: Some(Decimal::from(10)),
            oco: None,
            waits: false,
            writes: true,
            margin: false,
            legs: None,
        };
        let claims = claims([writing(Right::Call, 2), writing(Right::Put, 1)].iter(), |_| {
            Decimal::ZERO
        });
        assert_eq!(
            claims.selling,
            HashMap::from([(7, Decimal::from(200))]),
            "the underlying's shares"
        );
        assert_eq!(
            (claims.cash, claims.premiums),
            (Decimal::from(45_000), Decimal::from(45_000))
        );
        // Kept as they come and go.
        let mut open = OpenClaims::default();
        open.add(Reserved {
            order_id: "c".into(),
            ..writing(Right::Call, 2)
        });
        open.add(Reserved {
            order_id: "p".into(),
            ..writing(Right::Put, 1)
        });
        assert_eq!(open.claims(Some(&"p".into()), |_| Decimal::ZERO).cash, Decimal::ZERO);
        open.remove(&"c".into());
        assert!(open.claims(None, |_| Decimal::ZERO).selling.is_empty());
    }

    #[test]
    fn an_order_may_have_filled_when_less_is_left_or_it_ended() {
        use crate::trading::order::Order;
        use signet_model::orders::{OrderStatus, OrderType};
        let open = Order::sample("A", Side::Buy, OrderType::Limit);
        let mut claims = OpenClaims::default();
        claims.add(Reserved::of(&open, AccountType::Cash));
        assert!(!claims.may_have_filled(&open), "as known");
        let part = Order {
            filled_quantity: Decimal::ONE,
            status: OrderStatus::PartialFilled,
            ..open.clone()
        };
        assert!(claims.may_have_filled(&part));
        let ended = Order {
            status: OrderStatus::Cancelled,
            ..open.clone()
        };
        assert!(claims.may_have_filled(&ended), "a cancel asks again too");
        let placed_elsewhere = Order::sample("B", Side::Buy, OrderType::Limit);
        assert!(!claims.may_have_filled(&placed_elsewhere), "new, nothing filled");
        let filled_elsewhere = Order {
            filled_quantity: Decimal::TEN,
            status: OrderStatus::Filled,
            ..placed_elsewhere
        };
        assert!(claims.may_have_filled(&filled_elsewhere));
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
                    order_id: n.to_string().into(),
                    side: [Side::Buy, Side::Sell, Side::Short][usize::from(side)],
                    instrument_id,
                    remaining: Decimal::from(remaining),
                    price: price.map(Decimal::from),
                    oco: oco.map(|o| OrderId::from(o.to_string())),
                    waits,
                    writes: false,
                    margin: false,
                    legs: None,
                })
                .collect();
            let except = except.map(|n| OrderId::from(n.to_string()));
            let price_now = |instrument_id: i64| Decimal::from(7 + instrument_id);
            let mut kept = OpenClaims::default();
            open.iter().cloned().for_each(|o| kept.add(o));
            let mut kept = kept.claims(except.as_ref(), price_now);
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
                    order_id: n.to_string().into(),
                    side: [Side::Buy, Side::Sell, Side::Short][usize::from(side)],
                    // The legs of an OCO pair trade one symbol (the placement checks it).
                    instrument_id: oco.map_or(instrument_id, i64::from),
                    remaining: Decimal::from(remaining),
                    price: price.map(Decimal::from),
                    oco: oco.map(|o| OrderId::from(o.to_string())),
                    waits: false,
                    writes: false,
                    margin: false,
                    legs: None,
                })
                .collect();
            let mut kept = OpenClaims::default();
            open.iter().cloned().for_each(|o| kept.add(o));
            // Each change: what is left of an order, or its end.
            for (n, left) in changes {
                let id = OrderId::from(n.to_string());
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

    /// Accounts driven through random interleavings of placements (in turns, as the server
    /// takes them), replacements, cancels and fills, every change checked as the server checks
    /// it.
    mod interleavings {
        use proptest::prelude::*;
        use signet_model::AccountType;
        use signet_model::orders::{ComboType, OrderType, TimeInForce, TradingSession};

        use super::*;
        use crate::trading::accounting::{Commission, Execution, Exposure, Holding, buying_power, fill_order};
        use crate::trading::buying_power::{Position, PricedOrder, Standing, check};
        use crate::trading::spec::OrderSpec;

        /// A new order: side (0 buy, 1 sell, 2 short), instrument, quantity, and its limit in
        /// percent of the mark (0: a market order).
        type New = (u8, i64, u32, u32);

        #[derive(Debug, Clone)]
        enum Step {
            /// Placements arriving together: one turn.
            Turn(Vec<New>),
            /// An open order (by position) to a new quantity and limit (percent of the mark).
            Replace(usize, u32, u32),
            Cancel(usize),
            /// An open order filled by up to this many shares, at the mark, if marketable.
            Fill(usize, u32),
            /// An instrument's price moves to this percent of what it was.
            Move(i64, u32),
        }

        fn new_order() -> impl Strategy<Value = New> {
            (0u8..3, 0i64..3, 1u32..400, prop_oneof![Just(0u32), 80u32..120])
        }

        fn step() -> impl Strategy<Value = Step> {
            prop_oneof![
                3 => proptest::collection::vec(new_order(), 1..8).prop_map(Step::Turn),
                1 => (0usize..20, 1u32..400, 80u32..120).prop_map(|(n, q, l)| Step::Replace(n, q, l)),
                1 => (0usize..20).prop_map(Step::Cancel),
                2 => (0usize..20, 1u32..400).prop_map(|(n, q)| Step::Fill(n, q)),
                1 => (0i64..3, 70u32..140).prop_map(|(i, p)| Step::Move(i, p)),
            ]
        }

        #[derive(Clone)]
        struct Account {
            account_type: AccountType,
            cash: Decimal,
            holdings: HashMap<i64, Holding>,
            open: Vec<Order>,
            claims: OpenClaims,
            /// Each instrument's price: what placement prices market orders and positions at,
            /// and what marketable orders fill at.
            marks: [Decimal; 3],
        }

        impl Account {
            fn mark(&self, instrument_id: i64) -> Decimal {
                self.marks[usize::try_from(instrument_id).unwrap()]
            }

            fn standing(&self, except: Option<&OrderId>) -> Standing {
                let claims = self.claims.claims(except, |id| self.mark(id));
                Standing {
                    account_type: self.account_type,
                    cash: self.cash,
                    positions: self
                        .holdings
                        .iter()
                        .map(|(&instrument_id, h)| Position {
                            instrument_id,
                            quantity: h.quantity,
                            price: self.mark(instrument_id),
                        })
                        .collect(),
                    reserved: claims.cash,
                    reserved_premiums: claims.premiums,
                    selling: claims.selling,
                }
            }

            /// Buying power less the cash claimed, and whether every instrument's sells fit
            /// the shares held.
            fn headroom(&self) -> (Decimal, bool) {
                let positions = self
                    .holdings
                    .iter()
                    .map(|(&id, h)| Exposure::of(id, h.quantity, self.mark(id)))
                    .fold(Exposure::default(), Exposure::plus);
                let claims = self.claims.claims(None, |id| self.mark(id));
                let power = buying_power(self.account_type, self.cash, positions, Decimal::ZERO, Decimal::ZERO);
                let shares = claims.selling.iter().all(|(id, selling)| {
                    *selling
                        <= self
                            .holdings
                            .get(id)
                            .map_or(Decimal::ZERO, |h| h.quantity.max(Decimal::ZERO))
                });
                (power - claims.cash, shares)
            }

            fn add(&mut self, order: Order) {
                self.claims.add(Reserved::of(&order, self.account_type));
                self.open.push(order);
            }
        }

        fn order(account: &Account, n: usize, (side, instrument_id, quantity, limit): New) -> Order {
            let side = [Side::Buy, Side::Sell, Side::Short][usize::from(side)];
            let order_type = if limit == 0 {
                OrderType::Market
            } else {
                OrderType::Limit
            };
            Order {
                instrument_id,
                quantity: Decimal::from(quantity),
                limit_price: (limit > 0)
                    .then(|| account.mark(instrument_id) * Decimal::from(limit) / Decimal::ONE_HUNDRED),
                ..Order::sample(&n.to_string(), side, order_type)
            }
        }

        /// An order's unfilled part as the buying-power check weighs it.
        fn priced(account: &Account, o: &Order) -> PricedOrder {
            PricedOrder {
                spec: OrderSpec {
                    client_order_id: o.client_order_id.clone(),
                    combo_type: ComboType::Normal,
                    symbol: o.symbol.clone(),
                    side: o.side,
                    order_type: o.order_type,
                    time_in_force: TimeInForce::Gtc,
                    quantity: o.remaining(),
                    cash_amount: None,
                    limit_price: o.limit_price,
                    stop_price: None,
                    trailing: None,
                    expire_day: None,
                    session: TradingSession::Core,
                    contract: None,
                    multi_leg: None,
                    intent: None,
                },
                instrument_id: o.instrument_id,
                estimate: o.limit_price.unwrap_or_else(|| account.mark(o.instrument_id)),
                legs: Vec::new(),
            }
        }

        /// Whether an accepted change that claims cash left the claims within the power.
        fn fits_after(account: &Account, claims_cash: bool) -> Result<(), TestCaseError> {
            let (left, shares) = account.headroom();
            prop_assert!(shares, "sells claim more shares than held");
            if claims_cash {
                prop_assert!(left >= Decimal::ZERO, "claims exceed the buying power by {}", -left);
            }
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            /// Whatever the interleaving and the prices, an accepted change never leaves the open
            /// orders claiming more cash than the buying power or more shares than held; the
            /// placements a turn accepts are exactly those that checked one at a time would
            /// be; a CASH account's cash never goes below zero; and a MARGIN fill that grows a
            /// position stays within Reg T.
            #[test]
            fn no_interleaving_claims_beyond_the_buying_power(
                account_type in prop_oneof![Just(AccountType::Cash), Just(AccountType::Margin)],
                steps in proptest::collection::vec(step(), 1..40),
            ) {
                let mut account = Account {
                    account_type,
                    cash: Decimal::from(10_000),
                    holdings: HashMap::new(),
                    open: Vec::new(),
                    claims: OpenClaims::default(),
                    marks: [10, 20, 50].map(Decimal::from),
                };
                let mut next = 0;
                for step in steps {
                    match step {
                        Step::Turn(placements) => {
                            // As the server's turn: the account read once, then each placement
                            // against it and those accepted before it in the turn.
                            let standing = account.standing(None);
                            let mut claimed = OpenClaims::default();
                            let mut one_by_one = account.clone();
                            for new in placements {
                                next += 1;
                                let o = order(&account, next, new);
                                let p = priced(&account, &o);
                                let mark = |id| account.mark(id);
                                let in_turn = check(standing.clone().claiming(&claimed.claims(None, mark)), &[&p], None, &mark);
                                let alone = check(one_by_one.standing(None), &[&p], None, &mark);
                                prop_assert_eq!(in_turn.is_ok(), alone.is_ok(), "order {:?}", o);
                                if in_turn.is_ok() {
                                    claimed.add(Reserved::of(&o, account.account_type));
                                    one_by_one.add(o.clone());
                                    let claims_cash = o.side != Side::Sell;
                                    account.add(o);
                                    fits_after(&account, claims_cash)?;
                                }
                            }
                        }
                        Step::Replace(n, quantity, limit) if !account.open.is_empty() => {
                            let at = n % account.open.len();
                            let before = &account.open[at];
                            let quantity = Decimal::from(quantity);
                            if quantity <= before.filled_quantity {
                                continue;
                            }
                            let replaced = Order {
                                quantity,
                                limit_price: before
                                    .limit_price
                                    .map(|_| account.mark(before.instrument_id) * Decimal::from(limit) / Decimal::ONE_HUNDRED),
                                ..before.clone()
                            };
                            let standing = account.standing(Some(&before.order_id));
                            if check(standing, &[&priced(&account, &replaced)], None, &|id| account.mark(id)).is_ok() {
                                let claims_cash = replaced.side != Side::Sell;
                                account.claims.follow(&replaced, account.account_type);
                                account.open[at] = replaced;
                                fits_after(&account, claims_cash)?;
                            }
                        }
                        Step::Cancel(n) if !account.open.is_empty() => {
                            let gone = account.open.remove(n % account.open.len());
                            account.claims.remove(&gone.order_id);
                        }
                        Step::Fill(n, most) if !account.open.is_empty() => {
                            let at = n % account.open.len();
                            let o = account.open[at].clone();
                            let price = account.mark(o.instrument_id);
                            let marketable = match (o.side, o.limit_price) {
                                (_, None) => true,
                                (Side::Buy, Some(limit)) => limit >= price,
                                (_, Some(limit)) => limit <= price,
                            };
                            if !marketable {
                                continue;
                            }
                            let held = account.holdings.get(&o.instrument_id).copied().unwrap_or_default();
                            let others = account
                                .holdings
                                .iter()
                                .filter(|(id, _)| **id != o.instrument_id)
                                .map(|(&id, h)| Exposure::of(id, h.quantity, account.mark(id)))
                                .fold(Exposure::default(), Exposure::plus);
                            let execution = Execution {
                                quantity: o.remaining().min(Decimal::from(most)),
                                price,
                                commission: Commission::default(),
                            };
                            match fill_order(&o, account_type, account.cash, held, others, execution) {
                                Ok(fill) => {
                                    account.cash = fill.account.cash;
                                    account.holdings.insert(o.instrument_id, fill.account.holding);
                                    let filled = Order {
                                        status: fill.status,
                                        filled_quantity: fill.filled_quantity,
                                        filled_amount: fill.filled_amount,
                                        ..o
                                    };
                                    account.claims.follow(&filled, account.account_type);
                                    if is_open(filled.status) {
                                        account.open[at] = filled;
                                    } else {
                                        account.open.remove(at);
                                    }
                                    if account_type == AccountType::Cash {
                                        prop_assert!(account.cash >= Decimal::ZERO);
                                    }
                                    if fill.account.holding.quantity.abs() > held.quantity.abs() {
                                        let all = others.plus(Exposure::of(o.instrument_id, fill.account.holding.quantity, price));
                                        let equity = account.cash + all.long - all.short;
                                        prop_assert!(account_type == AccountType::Cash || equity * Decimal::TWO >= all.long + all.short);
                                    }
                                }
                                // Refused: the engine fails the order, which frees its claim.
                                Err(_) => {
                                    account.open.remove(at);
                                    account.claims.remove(&o.order_id);
                                }
                            }
                        }
                        Step::Move(instrument_id, percent) => {
                            let at = usize::try_from(instrument_id).unwrap();
                            account.marks[at] = (account.marks[at] * Decimal::from(percent) / Decimal::ONE_HUNDRED).round_dp(2);
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}
