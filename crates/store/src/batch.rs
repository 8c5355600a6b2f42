//! Group commit: the writes of concurrent requests are made in one transaction (a commit costs
//! far more than a row), each request waiting for its own answer.

use std::fmt;
use std::future::Future;

use tokio::sync::{mpsc, oneshot};

use crate::StoreError;

type Reply<R> = oneshot::Sender<Result<R, StoreError>>;

/// A writer task and the queue in front of it. The task stops when the last `Batcher` is
/// dropped.
pub struct Batcher<T, R> {
    queue: mpsc::Sender<(T, Reply<R>)>,
    what: &'static str,
}

impl<T: Send + 'static, R: Send + 'static> Batcher<T, R> {
    /// Starts a task that hands `write` up to `max_batch` queued items at a time; `write`
    /// answers one result per item, in order, or one error for all of them.
    pub fn spawn<F, Fut>(what: &'static str, max_batch: usize, write: F) -> Self
    where
        F: Fn(Vec<T>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Vec<R>, StoreError>> + Send,
    {
        let (queue, mut rx) = mpsc::channel::<(T, Reply<R>)>(4 * max_batch);
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(max_batch);
            while rx.recv_many(&mut batch, max_batch).await > 0 {
                let (items, replies): (Vec<T>, Vec<Reply<R>>) = batch.drain(..).unzip();
                match write(items).await {
                    Ok(answers) => {
                        for (reply, answer) in replies.into_iter().zip(answers) {
                            let _ = reply.send(Ok(answer));
                        }
                    }
                    Err(e) => {
                        for reply in replies {
                            let _ = reply.send(Err(e.clone()));
                        }
                    }
                }
            }
        });
        Batcher { queue, what }
    }

    /// Queues `item` and waits for its answer.
    pub async fn submit(&self, item: T) -> Result<R, StoreError> {
        let mut answers = self.submit_all([item]).await?;
        answers.pop().expect("one answer per item")
    }

    /// Queues `items` together (so that they share a transaction when the queue allows) and
    /// waits for the answer of each, in order.
    pub async fn submit_all(
        &self,
        items: impl IntoIterator<Item = T>,
    ) -> Result<Vec<Result<R, StoreError>>, StoreError> {
        let stopped = || StoreError::Unavailable(format!("the {} writer stopped", self.what));
        let mut answers = Vec::new();
        for item in items {
            let (reply, answer) = oneshot::channel();
            self.queue.send((item, reply)).await.map_err(|_| stopped())?;
            answers.push(answer);
        }
        let mut results = Vec::with_capacity(answers.len());
        for answer in answers {
            results.push(answer.await.map_err(|_| stopped())?);
        }
        Ok(results)
    }
}

impl<T, R> Clone for Batcher<T, R> {
    fn clone(&self) -> Self {
        Batcher {
            queue: self.queue.clone(),
            what: self.what,
        }
    }
}

impl<T, R> fmt::Debug for Batcher<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batcher")
            .field("what", &self.what)
            .finish_non_exhaustive()
    }
}
