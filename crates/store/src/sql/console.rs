use async_trait::async_trait;

use super::SqlStore;
use super::query::query;
use crate::{ConsoleStore, StoreError, TimelineEvent};

/// A session's `last_seen` is written again only when it is older than this, so that a page
/// polling every few seconds does not write each time.
const TOUCH_EVERY_MS: i64 = 60_000;

#[async_trait]
impl ConsoleStore for SqlStore {
    async fn create_console_login(&self, token_hash: &str, expires_at: i64, now: i64) -> Result<(), StoreError> {
        query("DELETE FROM console_logins WHERE expires_at < $1")
            .bind(now)
            .execute(&self.writer)
            .await?;
        query("INSERT INTO console_logins (token_hash, expires_at) VALUES ($1, $2)")
            .bind(token_hash)
            .bind(expires_at)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    async fn redeem_console_login(&self, token_hash: &str, now: i64) -> Result<bool, StoreError> {
        let spent = query(
            "UPDATE console_logins SET used_at = $1
             WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1",
        )
        .bind(now)
        .bind(token_hash)
        .execute(&self.writer)
        .await?;
        Ok(spent == 1)
    }

    async fn create_console_session(&self, session_hash: &str, now: i64, idle_since: i64) -> Result<(), StoreError> {
        query("DELETE FROM console_sessions WHERE last_seen < $1")
            .bind(idle_since)
            .execute(&self.writer)
            .await?;
        query("INSERT INTO console_sessions (session_hash, created_at, last_seen) VALUES ($1, $2, $2)")
            .bind(session_hash)
            .bind(now)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    async fn touch_console_session(&self, session_hash: &str, now: i64, idle_since: i64) -> Result<bool, StoreError> {
        let row: Option<(i64,)> = query("SELECT last_seen FROM console_sessions WHERE session_hash = $1")
            .bind(session_hash)
            .fetch_optional(&self.reader)
            .await?;
        match row {
            Some((last_seen,)) if last_seen >= idle_since => {
                if now - last_seen >= TOUCH_EVERY_MS {
                    query("UPDATE console_sessions SET last_seen = $1 WHERE session_hash = $2")
                        .bind(now)
                        .bind(session_hash)
                        .execute(&self.writer)
                        .await?;
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn delete_console_session(&self, session_hash: &str) -> Result<(), StoreError> {
        query("DELETE FROM console_sessions WHERE session_hash = $1")
            .bind(session_hash)
            .execute(&self.writer)
            .await?;
        Ok(())
    }

    async fn order_timelines(&self, order_ids: &[String]) -> Result<Vec<TimelineEvent>, StoreError> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (1..=order_ids.len()).map(|i| format!("${i}")).collect();
        let mut events = query(format!(
            "SELECT order_id, time, from_status, to_status, event, reason, payload FROM order_events
             WHERE order_id IN ({}) ORDER BY order_id, n",
            marks.join(", ")
        ));
        for id in order_ids {
            events = events.bind(id);
        }
        events.fetch_all(&self.reader).await
    }
}
