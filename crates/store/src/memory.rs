//! Nonces in this process's memory (`signet serve --nonces memory`): the fastest store, for one
//! node that accepts that a restart forgets what it saw. Like an emptied Redis, it refuses for
//! one retention after its start what was signed before it started, so that a restart does not
//! reopen the window for replays.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use parking_lot::Mutex;
use signet_domain::simulator::clock::wall_clock_ms;
use signet_model::ids::AppKey;

use crate::{NonceStore, StoreError};

pub struct MemoryNonces {
    started_ms: i64,
    /// What the authentication layer adds to a request's timestamp to get its nonce's expiry.
    retention_ms: i64,
    /// Expiry by (app key, nonce).
    seen: Mutex<HashMap<(String, String), i64>>,
}

impl MemoryNonces {
    /// A store that starts at the next whole second, returned once it is reached. Timestamps
    /// are whole seconds: a request of the second the store started in could have been signed
    /// before the start, and one signed after it must not be refused.
    pub async fn start(retention: Duration) -> Self {
        let now = wall_clock_ms();
        let started_ms = (now / 1000 + 1) * 1000;
        tokio::time::sleep(Duration::from_millis((started_ms - now) as u64)).await;
        MemoryNonces {
            started_ms,
            retention_ms: signet_domain::times::millis(retention),
            seen: Mutex::default(),
        }
    }
}

#[async_trait]
impl NonceStore for MemoryNonces {
    async fn remember(&self, app_key: &AppKey, nonce: &str, expires_at_ms: i64) -> Result<bool, StoreError> {
        let signed_at_ms = expires_at_ms - self.retention_ms;
        if signed_at_ms < self.started_ms && wall_clock_ms() - self.started_ms <= self.retention_ms {
            return Ok(false);
        }
        let mut seen = self.seen.lock();
        Ok(seen
            .insert((app_key.to_string(), nonce.to_owned()), expires_at_ms)
            .is_none())
    }

    async fn purge_expired(&self, now_ms: i64) -> Result<u64, StoreError> {
        let mut seen = self.seen.lock();
        let before = seen.len();
        seen.retain(|_, expires_at_ms| *expires_at_ms >= now_ms);
        Ok((before - seen.len()) as u64)
    }

    async fn count(&self) -> Result<u64, StoreError> {
        Ok(self.seen.lock().len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RETENTION: Duration = Duration::from_secs(305);

    fn expiry(signed_at_ms: i64) -> i64 {
        signed_at_ms + signet_domain::times::millis(RETENTION)
    }

    #[tokio::test]
    async fn a_nonce_is_new_once_until_it_expires() {
        let nonces = MemoryNonces::start(RETENTION).await;
        let now = wall_clock_ms() + 1_000;
        assert!(nonces.remember(&"app".into(), "n1", expiry(now)).await.unwrap());
        assert!(!nonces.remember(&"app".into(), "n1", expiry(now)).await.unwrap());
        assert!(nonces.remember(&"other".into(), "n1", expiry(now)).await.unwrap());
        assert_eq!(nonces.purge_expired(expiry(now)).await.unwrap(), 0);
        assert_eq!(nonces.purge_expired(expiry(now) + 1).await.unwrap(), 2);
        assert!(nonces.remember(&"app".into(), "n1", expiry(now)).await.unwrap());
    }

    #[tokio::test]
    async fn what_was_signed_before_the_start_is_refused_for_one_retention() {
        let nonces = MemoryNonces::start(RETENTION).await;
        assert_eq!(nonces.started_ms % 1000, 0);
        assert!(wall_clock_ms() >= nonces.started_ms, "ready once started");
        let before = nonces.started_ms - 1_000;
        assert!(!nonces.remember(&"app".into(), "early", expiry(before)).await.unwrap());
        assert!(
            nonces
                .remember(&"app".into(), "late", expiry(nonces.started_ms))
                .await
                .unwrap()
        );
    }
}
