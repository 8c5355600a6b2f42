//! The loop that drives the engine's ticks, apart from what a tick does: a tick that panics (a
//! bug, such as an arithmetic overflow) ends that tick only, and the market goes on.

use std::future::Future;
use std::time::Duration;

use crate::simulator::MarketError;

/// Real time between two ticks.
const TICK_INTERVAL: Duration = Duration::from_millis(250);

/// Runs `tick` every [`TICK_INTERVAL`] until `stop`, which a tick under way finishes first. Each
/// tick is a task of its own, so that a panic in it is caught there: it is logged, `on_panic` is
/// called (the metrics count it), and the next tick runs.
pub async fn run<T>(tick: impl Fn() -> T, on_panic: impl Fn(), stop: tokio::sync::oneshot::Receiver<()>)
where
    T: Future<Output = Result<(), MarketError>> + Send + 'static,
{
    let mut ticker = tokio::time::interval(TICK_INTERVAL);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut stop = std::pin::pin!(stop);
    loop {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = &mut stop => return,
        }
        match tokio::spawn(tick()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "market tick failed"),
            Err(e) if e.is_panic() => {
                on_panic();
                let panic = e.into_panic();
                let message = panic
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("(not text)");
                tracing::error!(panic = message, "a market tick panicked; the next tick runs");
            }
            // Cancelled: the runtime is shutting down.
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_tick_that_panics_is_counted_and_the_next_tick_runs() {
        let ticks = Arc::new(AtomicUsize::new(0));
        let panics = Arc::new(AtomicUsize::new(0));
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let tick = {
            let ticks = ticks.clone();
            move || {
                let n = ticks.fetch_add(1, Ordering::SeqCst);
                async move {
                    assert!(n != 0, "the first tick panics");
                    Ok(())
                }
            }
        };
        let on_panic = {
            let panics = panics.clone();
            move || {
                panics.fetch_add(1, Ordering::SeqCst);
            }
        };
        let running = tokio::spawn(run(tick, on_panic, stopped));
        while ticks.load(Ordering::SeqCst) < 3 {
            assert!(!running.is_finished(), "the loop ended after a panic");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(panics.load(Ordering::SeqCst), 1);
        stop.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), running)
            .await
            .expect("the loop stops when told")
            .unwrap();
    }
}
