use async_trait::async_trait;
use sqlx::PgConnection;

use super::{PgStore, map_err};
use crate::store::rows::{WatchlistRow, watchlist_from_row};
use crate::store::{NewWatchlistItem, StoreError, WatchlistItem, WatchlistRecord, WatchlistStore};

/// Marks a watchlist changed (its instruments count as part of it).
async fn touch(tx: &mut PgConnection, watchlist_id: &str, now_ms: i64) -> Result<(), StoreError> {
    sqlx::query("UPDATE watchlists SET update_time = $1 WHERE watchlist_id = $2")
        .bind(now_ms)
        .bind(watchlist_id)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
    Ok(())
}

#[async_trait]
impl WatchlistStore for PgStore {
    async fn watchlists(&self, app_key: &str) -> Result<Vec<WatchlistRecord>, StoreError> {
        let rows: Vec<WatchlistRow> = sqlx::query_as(
            "SELECT watchlist_id, app_key, name, sort, create_time, update_time FROM watchlists
             WHERE app_key = $1 ORDER BY sort DESC, create_time DESC, watchlist_id",
        )
        .bind(app_key)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(rows.into_iter().map(watchlist_from_row).collect())
    }

    async fn watchlist(&self, app_key: &str, watchlist_id: &str) -> Result<Option<WatchlistRecord>, StoreError> {
        let row: Option<WatchlistRow> = sqlx::query_as(
            "SELECT watchlist_id, app_key, name, sort, create_time, update_time FROM watchlists
             WHERE app_key = $1 AND watchlist_id = $2",
        )
        .bind(app_key)
        .bind(watchlist_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(row.map(watchlist_from_row))
    }

    async fn create_watchlist(
        &self,
        app_key: &str,
        watchlist_id: &str,
        name: &str,
        sort: Option<i64>,
        max: u32,
        now_ms: i64,
    ) -> Result<Option<WatchlistRecord>, StoreError> {
        // The app's row serializes its watchlist creations, so that concurrent ones cannot pass
        // `max` together.
        let mut tx = self.pool.begin().await.map_err(map_err)?;
        sqlx::query("SELECT 1 FROM apps WHERE app_key = $1 FOR UPDATE")
            .bind(app_key)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        let done = sqlx::query(
            "INSERT INTO watchlists (watchlist_id, app_key, name, sort, create_time, update_time)
             SELECT $1, $2, $3, COALESCE($4, (SELECT COALESCE(MAX(sort), 0) + 1 FROM watchlists WHERE app_key = $2)), $5, $5
             WHERE (SELECT COUNT(*) FROM watchlists WHERE app_key = $2) < $6",
        )
        .bind(watchlist_id)
        .bind(app_key)
        .bind(name)
        .bind(sort)
        .bind(now_ms)
        .bind(i64::from(max))
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        if done.rows_affected() == 0 {
            return Ok(None);
        }
        let row: WatchlistRow = sqlx::query_as(
            "SELECT watchlist_id, app_key, name, sort, create_time, update_time FROM watchlists WHERE watchlist_id = $1",
        )
        .bind(watchlist_id)
        .fetch_one(&mut *tx)
        .await
        .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(Some(watchlist_from_row(row)))
    }

    async fn update_watchlist(
        &self,
        app_key: &str,
        watchlist_id: &str,
        name: Option<&str>,
        sort: Option<i64>,
        now_ms: i64,
    ) -> Result<Option<WatchlistRecord>, StoreError> {
        let row: Option<WatchlistRow> = sqlx::query_as(
            "UPDATE watchlists SET name = COALESCE($1, name), sort = COALESCE($2, sort), update_time = $3
             WHERE app_key = $4 AND watchlist_id = $5
             RETURNING watchlist_id, app_key, name, sort, create_time, update_time",
        )
        .bind(name)
        .bind(sort)
        .bind(now_ms)
        .bind(app_key)
        .bind(watchlist_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(row.map(watchlist_from_row))
    }

    async fn delete_watchlist(&self, app_key: &str, watchlist_id: &str) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await.map_err(map_err)?;
        let owned: Option<String> =
            sqlx::query_scalar("SELECT watchlist_id FROM watchlists WHERE app_key = $1 AND watchlist_id = $2")
                .bind(app_key)
                .bind(watchlist_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(map_err)?;
        if owned.is_none() {
            return Ok(false);
        }
        sqlx::query("DELETE FROM watchlist_instruments WHERE watchlist_id = $1")
            .bind(watchlist_id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        sqlx::query("DELETE FROM watchlists WHERE watchlist_id = $1")
            .bind(watchlist_id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        tx.commit().await.map_err(map_err)?;
        Ok(true)
    }

    async fn watchlist_items(&self, watchlist_id: &str) -> Result<Vec<WatchlistItem>, StoreError> {
        let rows: Vec<(i64, String, String, Option<String>, String, i64, i64)> = sqlx::query_as(
            "SELECT w.instrument_id, i.symbol, i.name, i.exchange, w.category, w.sort, w.added_time
             FROM watchlist_instruments w JOIN instruments i ON i.instrument_id = w.instrument_id
             WHERE w.watchlist_id = $1 ORDER BY w.sort DESC, w.added_time DESC, i.symbol",
        )
        .bind(watchlist_id)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        Ok(rows
            .into_iter()
            .map(
                |(instrument_id, symbol, name, exchange, category, sort, added_time)| WatchlistItem {
                    instrument_id,
                    symbol,
                    name,
                    exchange,
                    category,
                    sort,
                    added_time,
                },
            )
            .collect())
    }

    async fn add_watchlist_items(
        &self,
        watchlist_id: &str,
        items: &[NewWatchlistItem],
        max: u32,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await.map_err(map_err)?;
        // The watchlist's row serializes changes to its instruments (the count against `max`).
        sqlx::query("SELECT 1 FROM watchlists WHERE watchlist_id = $1 FOR UPDATE")
            .bind(watchlist_id)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        let present: Vec<i64> =
            sqlx::query_scalar("SELECT instrument_id FROM watchlist_instruments WHERE watchlist_id = $1")
                .bind(watchlist_id)
                .fetch_all(&mut *tx)
                .await
                .map_err(map_err)?;
        let mut new: Vec<&NewWatchlistItem> = Vec::new();
        for item in items {
            if !present.contains(&item.instrument_id) && !new.iter().any(|n| n.instrument_id == item.instrument_id) {
                new.push(item);
            }
        }
        if present.len() + new.len() > max as usize {
            return Ok(false);
        }
        let mut top: i64 =
            sqlx::query_scalar("SELECT COALESCE(MAX(sort), 0) FROM watchlist_instruments WHERE watchlist_id = $1")
                .bind(watchlist_id)
                .fetch_one(&mut *tx)
                .await
                .map_err(map_err)?;
        for item in new {
            let sort = item.sort.unwrap_or_else(|| {
                top += 1;
                top
            });
            sqlx::query(
                "INSERT INTO watchlist_instruments (watchlist_id, instrument_id, category, sort, added_time)
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(watchlist_id)
            .bind(item.instrument_id)
            .bind(&item.category)
            .bind(sort)
            .bind(now_ms)
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        }
        touch(&mut tx, watchlist_id, now_ms).await?;
        tx.commit().await.map_err(map_err)?;
        Ok(true)
    }

    async fn remove_watchlist_items(
        &self,
        watchlist_id: &str,
        instrument_ids: &[i64],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await.map_err(map_err)?;
        for id in instrument_ids {
            sqlx::query("DELETE FROM watchlist_instruments WHERE watchlist_id = $1 AND instrument_id = $2")
                .bind(watchlist_id)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
        }
        touch(&mut tx, watchlist_id, now_ms).await?;
        tx.commit().await.map_err(map_err)
    }

    async fn sort_watchlist_items(
        &self,
        watchlist_id: &str,
        sorts: &[(i64, i64)],
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await.map_err(map_err)?;
        for (id, sort) in sorts {
            sqlx::query("UPDATE watchlist_instruments SET sort = $1 WHERE watchlist_id = $2 AND instrument_id = $3")
                .bind(sort)
                .bind(watchlist_id)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(map_err)?;
        }
        touch(&mut tx, watchlist_id, now_ms).await?;
        tx.commit().await.map_err(map_err)
    }
}
