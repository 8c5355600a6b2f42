//! Each account's turns: what raises an account's claims (a placement, a replacement) is checked
//! against its buying power and stored before the next such change of the account is checked,
//! so that changes which each fit alone but not together are not all accepted.
//!
//! On this node an account's turns follow one another through an asynchronous lock; the store
//! adds the lock every node respects ([`signet_store::AccountTurn`]). Placements arriving while
//! a turn is under way do not each wait for a turn of their own: the next turn takes all of them
//! at once (checked one after the other, written in one transaction), so that an account keeps
//! the throughput of group commit however many placements it receives at the same moment.

use signet_model::ids::AccountId;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::OwnedMutexGuard;

/// One account's turn, and what waits for the next.
struct Turn<T> {
    /// Held by the turn under way.
    held: Arc<tokio::sync::Mutex<()>>,
    /// Queued for the next turn.
    waiting: Mutex<Vec<T>>,
}

/// The accounts' turns on this node; `T` is what a queued placement carries.
pub struct Turns<T> {
    accounts: Mutex<HashMap<AccountId, Arc<Turn<T>>>>,
}

impl<T> Default for Turns<T> {
    fn default() -> Self {
        Turns {
            accounts: Mutex::default(),
        }
    }
}

impl<T: Send + 'static> Turns<T> {
    fn turn(&self, account_id: &AccountId) -> Arc<Turn<T>> {
        let mut accounts = self.accounts.lock();
        accounts
            .entry(account_id.to_owned())
            .or_insert_with(|| {
                Arc::new(Turn {
                    held: Arc::default(),
                    waiting: Mutex::default(),
                })
            })
            .clone()
    }

    /// Waits for the account's turn and holds it until the guard is dropped.
    pub async fn take(&self, account_id: &AccountId) -> OwnedMutexGuard<()> {
        self.turn(account_id).held.clone().lock_owned().await
    }

    /// Queues `item` for the account's next turn, in which `run` receives every item queued
    /// by then, in the order they came. `run` answers what finishes after the turn: the turn
    /// ends when `run` does, and what it answered then runs beside the next turn (waiting for
    /// the disk before the answers go out, say). The turn runs in a task of its own, so that a
    /// caller who goes away abandons neither its placement half-done nor the others queued with
    /// it; `item` carries what `run` answers it with.
    pub fn queue<F, Fut, After>(&self, account_id: &AccountId, item: T, run: F)
    where
        F: FnOnce(Vec<T>) -> Fut + Send + 'static,
        Fut: Future<Output = After> + Send,
        After: Future<Output = ()> + Send,
    {
        let turn = self.turn(account_id);
        turn.waiting.lock().push(item);
        tokio::spawn(async move {
            let after = {
                let _held = turn.held.lock().await;
                let items = std::mem::take(&mut *turn.waiting.lock());
                // Empty when an earlier turn took this item with its own.
                if items.is_empty() {
                    return;
                }
                run(items).await
            };
            after.await;
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use tokio::sync::oneshot;

    use super::*;

    type Item = (u32, oneshot::Sender<usize>);

    /// A turn of 20 ms, which fails if another is under way, and whose items are answered
    /// (with the turn's size) 20 ms after it, beside the next turn.
    async fn a_turn(items: Vec<Item>, running: Arc<AtomicBool>) -> impl Future<Output = ()> + Send {
        assert!(!running.swap(true, Ordering::SeqCst), "turns overlap");
        tokio::time::sleep(Duration::from_millis(20)).await;
        running.store(false, Ordering::SeqCst);
        async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let size = items.len();
            for (_, answer) in items {
                let _ = answer.send(size);
            }
        }
    }

    #[tokio::test]
    async fn items_queued_during_a_turn_share_the_next_one_and_turns_never_overlap() {
        let turns: Arc<Turns<Item>> = Arc::default();
        let running = Arc::new(AtomicBool::new(false));
        let mut answers = Vec::new();
        for n in 0..20 {
            let (tx, rx) = oneshot::channel();
            let running = running.clone();
            turns.queue(&"A".into(), (n, tx), move |items| a_turn(items, running));
            answers.push(rx);
        }
        let mut sizes = Vec::new();
        for answer in answers {
            sizes.push(answer.await.expect("every item is answered"));
        }
        // The first turn takes what was queued when it began; the rest wait and go together.
        assert!(sizes.iter().any(|&size| size > 1), "{sizes:?}");
        let turns_taken = sizes.iter().map(|&size| 1.0 / size as f64).sum::<f64>().round();
        assert!(turns_taken < 20.0, "{sizes:?}");
    }

    /// A turn of 50 ms that says when it starts and answers its items as it ends.
    async fn a_long_turn(
        items: Vec<oneshot::Sender<()>>,
        started: oneshot::Sender<()>,
    ) -> impl Future<Output = ()> + Send {
        let _ = started.send(());
        tokio::time::sleep(Duration::from_millis(50)).await;
        items.into_iter().for_each(|answer| {
            let _ = answer.send(());
        });
        std::future::ready(())
    }

    #[tokio::test]
    async fn an_exclusive_turn_waits_for_the_turn_under_way() {
        let turns: Arc<Turns<oneshot::Sender<()>>> = Arc::default();
        let (tx, mut rx) = oneshot::channel();
        let (started_tx, started) = oneshot::channel::<()>();
        turns.queue(&"A".into(), tx, move |items| a_long_turn(items, started_tx));
        started.await.unwrap();
        let _held = turns.take(&"A".into()).await;
        assert!(
            rx.try_recv().is_ok(),
            "the queued turn ended before the exclusive one began"
        );
        // Another account's turn does not wait.
        let other = tokio::time::timeout(Duration::from_millis(10), turns.take(&"B".into())).await;
        assert!(other.is_ok());
    }
}
