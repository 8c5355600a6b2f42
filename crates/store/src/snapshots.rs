//! The screeners' figures, recomputed from the stored history.

use signet_domain::marketdata::snapshot::{LOOKBACK_DAYS, compute, figures};

use crate::{ScreenerStore, StoreError};

/// Recomputes every snapshot as of `as_of`, or as of the last day with bars; returns that day
/// and how many instruments have a snapshot (those with a bar that day).
pub async fn refresh_snapshots(
    store: &dyn ScreenerStore,
    as_of: Option<i32>,
) -> Result<(Option<i32>, usize), StoreError> {
    let day = match as_of {
        Some(day) => Some(day),
        None => store.latest_bar_day().await?,
    };
    let mut snapshots = Vec::new();
    if let Some(day) = day {
        let (summaries, with_splits) = store.summaries(day, LOOKBACK_DAYS).await?;
        snapshots.extend(summaries.iter().map(figures));
        let histories = store.histories(&with_splits, day - LOOKBACK_DAYS, day).await?;
        snapshots.extend(histories.iter().filter_map(|h| compute(day, h)));
    }
    store.replace_snapshots(&snapshots).await?;
    Ok((day, snapshots.len()))
}
