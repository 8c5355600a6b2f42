//! The paper-trading engine: on every tick of the market simulator it matches open orders
//! against the simulator's quotes.

use std::time::Duration;

use crate::app::AppState;
use crate::error::ApiError;

/// Ticks one call to [`step`] may run at most; longer steps take longer ticks.
const MAX_TICKS_PER_STEP: u32 = 10_000;

/// One tick at simulated time `now_ms`: the plans follow the clock's day, then orders match.
pub async fn tick(state: &AppState, _now_ms: i64) -> Result<(), ApiError> {
    state.market.sync().await?;
    Ok(())
}

/// Moves a manual clock forward by `by`, ticking on the way as the running clock would.
pub async fn step(state: &AppState, by: Duration) -> Result<(), ApiError> {
    // Whole milliseconds, which is what the clock counts in.
    let per_tick = Duration::from_millis((by / MAX_TICKS_PER_STEP).as_millis() as u64 + 1);
    let tick_length = state.market.tick().max(per_tick);
    let mut left = by;
    while !left.is_zero() {
        let this = left.min(tick_length);
        let now = state.market.advance(this).await?;
        tick(state, now).await?;
        left -= this;
    }
    Ok(())
}

/// Ticks four times a second of real time while the server runs (a clock that is not manual).
pub async fn run_ticker(state: AppState) {
    let mut ticker = tokio::time::interval(Duration::from_millis(250));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        ticker.tick().await;
        let now = state.market.now_ms();
        if let Err(e) = tick(&state, now).await {
            tracing::warn!(error = %e, "market tick failed");
        }
    }
}
