use async_trait::async_trait;
use signet_model::ids::AppKey;
use signet_model::watchlists::MAX_SORT;

use super::SqlStore;
use super::query::{Dialect, Tx, query};
use crate::{NewWatchlistItem, StoreError, WatchlistItem, WatchlistRecord, WatchlistStore};

const WATCHLIST_COLUMNS: &str = "watchlist_id, app_key, name, sort, create_time, update_time";

/// Locks the row `key_column = key` of `table` until the transaction ends, so that changes
/// counted against a limit happen one after the other (PostgreSQL; SQLite's single writer
/// serializes them already).
async fn lock(tx: &mut Tx, table: &str, key_column: &str, key: &str) -> Result<(), StoreError> {
    if tx.dialect() == Dialect::Postgres {
        query(format!("SELECT 1 FROM {table} WHERE {key_column} = $1 FOR UPDATE"))
            .bind(key)
            .execute(tx)
            .await?;
    }
    Ok(())
}

/// Marks a watchlist changed (its instruments count as part of it).
async fn touch(tx: &mut Tx, watchlist_id: &str, now_ms: i64) -> Result<(), StoreError> {
    query("UPDATE watchlists SET update_time = $1 WHERE watchlist_id = $2")
        .bind(now_ms)
        .bind(watchlist_id)
        .execute(tx)
        .await?;
    Ok(())
}

#[async_trait]
impl WatchlistStore for SqlStore {
    async fn watchlists(&self, app_key: &AppKey) -> Result<Vec<WatchlistRecord>, StoreError> {
        query(format!(
            "SELECT {WATCHLIST_COLUMNS} FROM watchlists
             WHERE app_key = $1 ORDER BY sort DESC, create_time DESC, watchlist_id"
        ))
        .bind(app_key)
        .fetch_all(&self.reader)
        .await
    }

    async fn watchlist(&self, app_key: &AppKey, watchlist_id: &str) -> Result<Option<WatchlistRecord>, StoreError> {
        query(format!(
            "SELECT {WATCHLIST_COLUMNS} FROM watchlists WHERE app_key = $1 AND watchlist_id = $2"
        ))
        .bind(app_key)
        .bind(watchlist_id)
        .fetch_optional(&self.reader)
        .await
    }

    async fn create_watchlist(
        &self,
        app_key: &AppKey,
        watchlist_id: &str,
        name: &str,
        sort: Option<i64>,
        max: u32,
        now_ms: i64,
    ) -> Result<Option<WatchlistRecord>, StoreError> {
        let mut tx = self.writer.begin().await?;
        // The app's row serializes its watchlist creations, so that concurrent ones cannot pass
        // `max` together.
        lock(&mut tx, "apps", "app_key", app_key).await?;
        // At the top: the highest sort plus one, or the highest a sort takes (a tie, the newest
        // listed first), so that the sum never overflows.
        let row = query(format!(
            "INSERT INTO watchlists ({WATCHLIST_COLUMNS})
             SELECT $1, $2, $3, COALESCE($4, (SELECT CASE WHEN MAX(sort) >= $7 THEN $7 ELSE COALESCE(MAX(sort), 0) + 1 END
                                              FROM watchlists WHERE app_key = $2)), $5, $5
             WHERE (SELECT COUNT(*) FROM watchlists WHERE app_key = $2) < $6
             RETURNING {WATCHLIST_COLUMNS}"
        ))
        .bind(watchlist_id)
        .bind(app_key)
        .bind(name)
        .bind(sort)
        .bind(now_ms)
        .bind(i64::from(max))
        .bind(MAX_SORT)
        .fetch_optional(&mut tx)
        .await?;
        tx.commit().await?;
        Ok(row)
    }

    async fn update_watchlist(
        &self,
        app_key: &AppKey,
        watchlist_id: &str,
        name: Option<&str>,
        sort: Option<i64>,
        now_ms: i64,
    ) -> Result<Option<WatchlistRecord>, StoreError> {
        query(format!(
            "UPDATE watchlists SET name = COALESCE($1, name), sort = COALESCE($2, sort), update_time = $3
             WHERE app_key = $4 AND watchlist_id = $5
             RETURNING {WATCHLIST_COLUMNS}"
        ))
        .bind(name)
        .bind(sort)
        .bind(now_ms)
        .bind(app_key)
        .bind(watchlist_id)
        .fetch_optional(&self.writer)
        .await
    }

    async fn delete_watchlist(&self, app_key: &AppKey, watchlist_id: &str) -> Result<bool, StoreError> {
        let mut tx = self.writer.begin().await?;
        query(
            "DELETE FROM watchlist_instruments
             WHERE watchlist_id = (SELECT watchlist_id FROM watchlists WHERE app_key = $1 AND watchlist_id = $2)",
        )
        .bind(app_key)
        .bind(watchlist_id)
        .execute(&mut tx)
        .await?;
        let deleted = query("DELETE FROM watchlists WHERE app_key = $1 AND watchlist_id = $2")
            .bind(app_key)
            .bind(watchlist_id)
            .execute(&mut tx)
            .await?;
        tx.commit().await?;
        Ok(deleted == 1)
    }

    async fn watchlist_items(&self, watchlist_id: &str) -> Result<Vec<WatchlistItem>, StoreError> {
        query(
            "SELECT w.instrument_id, i.symbol, i.name, i.exchange, w.category, w.sort, w.added_time
             FROM watchlist_instruments w JOIN instruments i ON i.instrument_id = w.instrument_id
             WHERE w.watchlist_id = $1 ORDER BY w.sort DESC, w.added_time DESC, i.symbol",
        )
        .bind(watchlist_id)
        .fetch_all(&self.reader)
        .await
    }

    async fn add_watchlist_items(
        &self,
        watchlist_id: &str,
        items: &[NewWatchlistItem],
        max: u32,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let mut tx = self.writer.begin().await?;
        // The watchlist's row serializes changes to its instruments (the count against `max`).
        lock(&mut tx, "watchlists", "watchlist_id", watchlist_id).await?;
        let present: Vec<(i64,)> = query("SELECT instrument_id FROM watchlist_instruments WHERE watchlist_id = $1")
            .bind(watchlist_id)
            .fetch_all(&mut tx)
            .await?;
        let mut new: Vec<&NewWatchlistItem> = Vec::new();
        for item in items {
            let id = item.instrument_id;
            if !present.contains(&(id,)) && !new.iter().any(|n| n.instrument_id == id) {
                new.push(item);
            }
        }
        if present.len() + new.len() > max as usize {
            return Ok(false);
        }
        let (mut top,): (i64,) =
            query("SELECT CAST(COALESCE(MAX(sort), 0) AS BIGINT) FROM watchlist_instruments WHERE watchlist_id = $1")
                .bind(watchlist_id)
                .fetch_one(&mut tx)
                .await?;
        for item in new {
            let sort = item.sort.unwrap_or_else(|| {
                top = top.saturating_add(1).min(MAX_SORT);
                top
            });
            query(
                "INSERT INTO watchlist_instruments (watchlist_id, instrument_id, category, sort, added_time)
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(watchlist_id)
            .bind(item.instrument_id)
            .bind(&item.category)
            .bind(sort)
            .bind(now_ms)
            .execute(&mut tx)
            .await?;
        }
        touch(&mut tx, watchlist_id, now_ms).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn remove_watchlist_items(
        &self,
        watchlist_id: &str,
        instrument_ids: &[i64],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        let mut delete = query("DELETE FROM watchlist_instruments WHERE watchlist_id = $1 AND ").bind(watchlist_id);
        delete.push_in("instrument_id", instrument_ids.iter().copied());
        delete.execute(&mut tx).await?;
        touch(&mut tx, watchlist_id, now_ms).await?;
        tx.commit().await
    }

    async fn sort_watchlist_items(
        &self,
        watchlist_id: &str,
        sorts: &[(i64, i64)],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        for &(id, sort) in sorts {
            query("UPDATE watchlist_instruments SET sort = $1 WHERE watchlist_id = $2 AND instrument_id = $3")
                .bind(sort)
                .bind(watchlist_id)
                .bind(id)
                .execute(&mut tx)
                .await?;
        }
        touch(&mut tx, watchlist_id, now_ms).await?;
        tx.commit().await
    }
}
