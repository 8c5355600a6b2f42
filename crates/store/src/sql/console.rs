use async_trait::async_trait;
use rust_decimal::Decimal;
use signet_domain::trading::valuation::PastFill;
use signet_model::ids::{AccountId, OrderId};
use signet_model::orders::Side;
use signet_model::wire::WireEnum;

use super::SqlStore;
use super::query::query;
use crate::rows::parse_column;
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

    async fn order_timelines(&self, order_ids: &[OrderId]) -> Result<Vec<TimelineEvent>, StoreError> {
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

    async fn account_fills(
        &self,
        account_id: &AccountId,
        since: Option<i64>,
        instrument_id: Option<i64>,
        limit: u32,
    ) -> Result<Vec<PastFill>, StoreError> {
        // Fills made before their simulator time was kept count at their wall-clock time. An
        // option order's instrument is its contract (`rows::stored_instrument`); a multi-leg
        // order's fills name each leg's.
        let rows: Vec<(i64, i64, String, String, String, String)> = query(
            "SELECT COALESCE(f.market_time, f.time), COALESCE(f.instrument_id, o.option_contract_id, o.instrument_id),
                    COALESCE(f.side, o.side), f.quantity, f.price, f.commission
             FROM fills f JOIN orders o ON o.order_id = f.order_id
             WHERE o.account_id = $1
               AND ($2 IS NULL OR COALESCE(f.instrument_id, o.option_contract_id, o.instrument_id) = $2)
               AND ($3 IS NULL OR COALESCE(f.market_time, f.time) >= $3)
             ORDER BY f.fill_id DESC LIMIT $4",
        )
        .bind(account_id)
        .bind(instrument_id)
        .bind(since)
        .bind(i64::from(limit))
        .fetch_all(&self.reader)
        .await?;
        let decimal = |name: &str, text: &str| parse_column(name, text, |t| t.parse::<Decimal>().ok());
        rows.into_iter()
            .rev()
            .map(|(time_ms, instrument_id, side, quantity, price, commission)| {
                Ok(PastFill {
                    time_ms,
                    instrument_id,
                    side: parse_column("side", &side, Side::parse)?,
                    quantity: decimal("quantity", &quantity)?,
                    price: decimal("price", &price)?,
                    commission: decimal("commission", &commission)?,
                })
            })
            .collect()
    }
}
