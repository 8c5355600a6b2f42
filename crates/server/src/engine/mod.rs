//! The paper-trading engine: on every tick of the market simulator it moves and triggers the
//! stops of stop orders, and matches open orders against the simulator's quotes.

pub mod book;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use signet_domain::simulator::Quote;
use signet_domain::simulator::clock::wall_clock_ms;
use signet_domain::trading::matching;
use signet_domain::trading::order::{Event, Order};
use signet_model::orders::TimeInForce;
use signet_store::{FillOutcome, FillRequest};

use crate::app::AppState;
use crate::error::ApiError;

/// Ticks one call to [`step`] may run at most; longer steps take longer ticks.
const MAX_TICKS_PER_STEP: u32 = 10_000;

/// One tick at simulated time `now_ms`: the plans follow the clock's day, then every open
/// order is expired, matched against its quote, or left as it is. Ticks never overlap.
pub async fn tick(state: &AppState, now_ms: i64) -> Result<(), ApiError> {
    let _one_at_a_time = state.ticks.lock().await;
    state.market.sync().await?;
    let open = state.book.open(&*state.store).await?;
    let mut quotes: HashMap<i64, Option<Quote>> = HashMap::new();
    for order in open {
        if order.expires_at_sim.is_some_and(|at| now_ms >= at) {
            let reason = match order.time_in_force {
                TimeInForce::Gtd => "a GTD order is cancelled at the close of its expire_date",
                _ => "a DAY order is cancelled at the close of its session",
            };
            end(state, &order, Event::Expire, reason).await?;
            continue;
        }
        let quote = quotes
            .entry(order.instrument_id)
            .or_insert_with(|| state.market.quote_of(order.instrument_id, now_ms));
        let Some(quote) = quote.as_ref() else { continue };
        let mut order = order;
        if let Some(stop) = matching::watch(&order, quote) {
            let triggered_at = stop.triggered.then_some(now_ms);
            let moved = state
                .store
                .move_stop(&order.order_id, stop.stop_price, triggered_at, wall_clock_ms())
                .await;
            state.reservations.forget(&order.account_id);
            moved?;
            let changed = Arc::make_mut(&mut order);
            changed.stop_price = Some(stop.stop_price);
            changed.triggered_at = triggered_at;
            state.book.update(changed.clone());
        }
        if let Some((quantity, price)) = matching::fill(&order, quote) {
            let fill = FillRequest {
                order_id: order.order_id.clone(),
                quantity,
                price,
                commission: state.config.commission,
                time_ms: wall_clock_ms(),
            };
            let outcome = state.store.apply_fill(&fill).await;
            state.reservations.forget(&order.account_id);
            let outcome = outcome?;
            if matches!(outcome, FillOutcome::Applied(_)) {
                state.metrics.fill();
            }
            match outcome {
                // What a fill does to the rest of a combination is not in the returned order.
                FillOutcome::Applied(updated) if updated.combo.is_none() => state.book.update(*updated),
                FillOutcome::Applied(_) | FillOutcome::Stale => state.book.forget(),
                FillOutcome::Refused(refusal) => {
                    end(state, &order, Event::Fail, refusal.reason()).await?;
                    continue;
                }
            }
        }
        // An IOC order has had its one chance, or none at all outside its sessions.
        if order.time_in_force == TimeInForce::Ioc {
            let (event, reason) = if matching::trades_in(order.session, quote.session) {
                (Event::Expire, "IOC: what could not fill at once is cancelled")
            } else {
                (
                    Event::Fail,
                    "IOC: the market is closed for the order's sessions (support_trading_session)",
                )
            };
            end(state, &order, event, reason).await?;
        }
    }
    Ok(())
}

/// Ends an open order with `event` (no-op when it ended meanwhile).
async fn end(state: &AppState, order: &Order, event: Event, reason: &str) -> Result<(), ApiError> {
    let ended = state
        .store
        .update_open_order(&order.order_id, event, Some(reason), None, wall_clock_ms())
        .await;
    state.reservations.forget(&order.account_id);
    match ended? {
        Some(ended) if ended.combo.is_none() => state.book.update(ended),
        _ => state.book.forget(),
    }
    Ok(())
}

/// Moves a manual clock forward by `by`, ticking on the way as the running clock would.
pub async fn step(state: &AppState, by: Duration) -> Result<(), ApiError> {
    // Whole milliseconds, which is what the clock counts in.
    let per_tick =
        Duration::from_millis(u64::try_from((by / MAX_TICKS_PER_STEP).as_millis()).unwrap_or(u64::MAX - 1) + 1);
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

/// Ticks four times a second of real time (a clock that is not manual) until `stop`, which a
/// tick under way finishes first.
pub async fn run_ticker(state: AppState, stop: tokio::sync::oneshot::Receiver<()>) {
    let mut ticker = tokio::time::interval(Duration::from_millis(250));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut stop = std::pin::pin!(stop);
    loop {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = &mut stop => return,
        }
        let now = state.market.now_ms();
        if let Err(e) = tick(&state, now).await {
            tracing::warn!(error = %e, "market tick failed");
        }
    }
}
