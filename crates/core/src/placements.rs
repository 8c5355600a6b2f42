//! Placing new orders. Each account's placements take turns ([`super::turns`]): those that
//! arrive during a turn are checked together in the next, one after another against the account
//! as the turn read it ([`buying_power::check_turn`]), and stored in one transaction, which on
//! PostgreSQL holds the account's advisory lock so that every node takes the same turns.

use rust_decimal::Decimal;
use signet_domain::options::is_contract;
use signet_domain::options::secured::Rule;
use signet_domain::scenarios::Operation;
use signet_domain::trading::buying_power::{self, Placing, Standing, Verdict};
use signet_domain::trading::claims::Reserved;
use signet_domain::trading::multi_leg;
use signet_domain::trading::order::Order;
use signet_domain::trading::placement::{self, Taken};
use signet_model::ids::ClientOrderId;
use signet_store::{AccountRecord, StoreError, UsedIds, Written};
use tokio::sync::oneshot;

use crate::error::CoreError;
use crate::orders::{Orders, Queued, ToPlace};

impl ToPlace {
    /// Whether each option order opens or closes a position, found from the account's position
    /// in its turn when the order does not say (what it claims depends on it); one whose intent
    /// does not fit is left for the check to refuse. A multi-leg order's claim is set too.
    fn find_intents(&mut self, standing: &Standing, price_now: &dyn Fn(i64) -> Decimal) {
        for (priced, order) in self.priced.iter_mut().zip(&mut self.orders) {
            // A multi-leg order's claim depends on the kind of account, and on the prices now of
            // what it would write naked.
            if let Some(multi) = &mut order.multi_leg {
                multi.claim = multi_leg::claim(multi, priced.estimate, Rule::of(standing.account_type, price_now));
                continue;
            }
            if !is_contract(priced.instrument_id) {
                continue;
            }
            let held = standing
                .positions
                .iter()
                .find(|p| p.instrument_id == priced.instrument_id)
                .map_or(Decimal::ZERO, |p| p.quantity);
            if let Ok(intent) = buying_power::intent_for(held, priced) {
                priced.spec.intent = Some(intent);
                order.position_intent = Some(intent);
            }
        }
    }
}

/// Placing is one part of the order operations: the turns below work on [`Orders`]'s
/// parts (the store, the prices, the claims cache, the turns, the book and the event hub).
impl Orders {
    /// Checks new orders against the account in its turn and stores them if they fit; the orders
    /// as stored (with their `seq`). A client order id (or client combo order id) used before in
    /// the account is 409 and stores nothing.
    pub(crate) async fn place_in_turn(
        &self,
        account: &AccountRecord,
        mut orders: ToPlace,
    ) -> Result<Vec<Order>, CoreError> {
        // A scenario rule may refuse the placement (nothing stored), answer it with a fault, or
        // plan the order's fills.
        for order in &mut orders.orders {
            order.fill_plan = self
                .scenarios
                .check_order(Operation::Place, &account.account_id, order, self.simulator.now_ms())
                .await?;
        }
        let (answer, answered) = oneshot::channel();
        let (placements, turn_account) = (self.clone(), account.clone());
        self.turns
            .queue(&account.account_id, Queued { orders, answer }, move |queued| {
                placements.turn(turn_account, queued)
            });
        answered
            .await
            .map_err(|_| CoreError::Internal("a placement's turn ended without answering it"))?
    }

    /// One turn of an account's placements: checked and stored in the turn, then answered once
    /// what the turn wrote is on disk, beside the next turn.
    async fn turn(self, account: AccountRecord, queued: Vec<Queued>) -> impl Future<Output = ()> + Send {
        let (batch, answers): (Vec<ToPlace>, Vec<_>) = queued.into_iter().map(|q| (q.orders, q.answer)).unzip();
        let stored = self.check_and_store(&account, batch).await;
        async move {
            let answered = match stored {
                Ok((answered, written)) => match written.on_disk().await {
                    Ok(()) => answered,
                    Err(e) => vec![Err(e.into()); answers.len()],
                },
                Err(e) => vec![Err(e); answers.len()],
            };
            for (answer, result) in answers.into_iter().zip(answered) {
                let _ = answer.send(result);
            }
        }
    }

    /// Checks each placement of a turn against the account as the turn found it and the placements
    /// accepted before it in the turn ([`buying_power::check_turn`]); stores those that fit
    /// together, and ends the turn once they are stored. The answer of each, to give once what the
    /// turn wrote is on disk.
    async fn check_and_store(
        &self,
        account: &AccountRecord,
        batch: Vec<ToPlace>,
    ) -> Result<(Vec<Result<Vec<Order>, CoreError>>, Written), CoreError> {
        let mut turn = self.store.begin_turn(&account.account_id).await?;
        let accounts = self.accounts();
        let (standing, _) = accounts.standing(&account.account_id, None).await?;
        let now = self.simulator.now_ms();
        let price_now = |instrument_id: i64| accounts.last_price(instrument_id, now);
        let mut batch = batch;
        for placement in &mut batch {
            placement.find_intents(&standing, &price_now);
        }
        let placings: Vec<Placing<'_>> = batch
            .iter()
            .map(|p| Placing {
                priced: p.priced.iter().collect(),
                kind: p.kind,
                claims: p.orders.iter().map(|o| Reserved::of(o, account.account_type)).collect(),
            })
            .collect();
        let mut verdicts = buying_power::check_turn(&standing, &placings, |_, _| false, price_now);
        // A placement whose client id is taken (used before, or by a placement the turn accepts
        // before it) is refused when stored: what it would claim must not refuse those after it (a
        // client resending an order beside new ones). Looked up only when it could matter; the turn
        // keeps other placements of the account out meanwhile.
        let mut taken = vec![None; batch.len()];
        if buying_power::refused_after_accepted(&verdicts) {
            let used = self.used_ids(account, &batch).await?;
            let taken_before = |i: usize, before: &[Verdict]| {
                let earlier = batch[..i]
                    .iter()
                    .zip(before)
                    .filter(|(_, verdict)| matches!(verdict, Some(Ok(_))))
                    .flat_map(|(earlier, _)| &earlier.orders);
                placement::taken(
                    &batch[i].orders,
                    &used.client_order_ids,
                    &used.client_combo_order_ids,
                    earlier,
                )
            };
            verdicts = buying_power::check_turn(
                &standing,
                &placings,
                |i, before| taken_before(i, before).is_some(),
                price_now,
            );
            for i in (0..batch.len()).filter(|&i| verdicts[i].is_none()) {
                taken[i] = taken_before(i, &verdicts[..i]);
            }
        }
        let mut answers: Vec<Result<Vec<Order>, CoreError>> = Vec::with_capacity(batch.len());
        let mut accepted: Vec<Vec<Order>> = Vec::new();
        for (n, (to_place, verdict)) in batch.into_iter().zip(verdicts).enumerate() {
            match verdict {
                Some(Ok(_)) => {
                    answers.push(Ok(Vec::new()));
                    accepted.push(to_place.orders);
                }
                Some(Err(refused)) => answers.push(Err(refused.into())),
                None => answers.push(Err(taken[n].unwrap_or(Taken::Order).rejection().into())),
            }
        }
        let placed = self.store.insert_placements(&mut turn, &accepted).await?;
        let written = turn.end().await?;
        let mut stored = accepted.into_iter().zip(placed);
        for answer in answers.iter_mut().filter(|a| a.is_ok()) {
            let (mut orders, placed) = stored.next().expect("an answer per accepted placement");
            *answer = match placed {
                Ok(seqs) => {
                    for (order, seq) in orders.iter_mut().zip(seqs) {
                        order.seq = seq;
                    }
                    self.claims.placed(
                        &account.account_id,
                        orders.iter().map(|o| Reserved::of(o, account.account_type)),
                    );
                    self.book.placed(&orders);
                    Ok(orders)
                }
                Err(StoreError::Conflict(constraint)) if constraint.contains("client_combo_order_id") => {
                    Err(Taken::Combination.rejection().into())
                }
                Err(StoreError::Conflict(_)) => Err(Taken::Order.rejection().into()),
                Err(other) => Err(other.into()),
            };
        }
        self.hub.wake();
        Ok((answers, written))
    }

    /// The client ids of a turn's placements that the account used before.
    async fn used_ids(&self, account: &AccountRecord, batch: &[ToPlace]) -> Result<UsedIds, CoreError> {
        let orders = || batch.iter().flat_map(|c| &c.orders);
        let ids: Vec<&ClientOrderId> = orders().map(|o| &o.client_order_id).collect();
        let combos: Vec<&str> = orders().filter_map(placement::combo_id).collect();
        Ok(self.store.used_client_ids(&account.account_id, &ids, &combos).await?)
    }
}
