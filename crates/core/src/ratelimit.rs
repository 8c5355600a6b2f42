//! The rate limiter of a running server: the per-app limits kept in process, or in Redis when
//! several nodes must share them ([`signet_store::redis::RedisArrivals`], the same algorithm);
//! the limit per client address always in process, since it protects this node's own work.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Instant;

use parking_lot::Mutex;
use signet_domain::ratelimit::admit;
pub use signet_domain::ratelimit::{Decision, Group, Limit, RateLimits, parse_override};
use signet_model::ids::AppKey;
use signet_store::redis::RedisArrivals;

/// The keys' theoretical arrival times, in milliseconds since the limiter started.
pub struct Limiter {
    limits: RateLimits,
    started: Instant,
    arrivals: Mutex<HashMap<(String, Group), u64>>,
    addresses: Mutex<HashMap<IpAddr, u64>>,
    /// When set, the per-app arrival times live there instead of in `arrivals`.
    shared: Option<RedisArrivals>,
}

impl Limiter {
    pub fn new(limits: RateLimits) -> Self {
        Limiter {
            limits,
            started: Instant::now(),
            arrivals: Mutex::new(HashMap::new()),
            addresses: Mutex::new(HashMap::new()),
            shared: None,
        }
    }

    /// A limiter whose per-app limits are shared with the other nodes using the same Redis.
    pub fn shared(limits: RateLimits, arrivals: RedisArrivals) -> Self {
        Limiter {
            shared: Some(arrivals),
            ..Limiter::new(limits)
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Counts a request of `app_key` to the group of `path` now. `None` when the shared store
    /// does not answer: the request then passes unlimited (a limiter that is down must not stop
    /// the traffic), with a warning.
    pub async fn check_request(&self, app_key: &AppKey, path: &str) -> Option<Decision> {
        let group = Group::of(path);
        let Some(shared) = &self.shared else {
            return Some(self.check(app_key, group, self.now_ms()));
        };
        match shared.check(app_key, group, self.limits.limit(group)).await {
            Ok(decision) => Some(decision),
            Err(e) => {
                tracing::warn!(error = %e, "the shared rate limiter is unavailable: request not limited");
                None
            }
        }
    }

    /// Counts a request from `address` now, before authentication.
    pub fn check_address(&self, address: IpAddr) -> Decision {
        let mut addresses = self.addresses.lock();
        admit(&mut addresses, address, self.limits.per_address, self.now_ms())
    }

    /// Counts a request of `app_key` to `group` at `now_ms` (monotonic), if the limit allows it,
    /// in process.
    pub fn check(&self, app_key: &AppKey, group: Group, now_ms: u64) -> Decision {
        let mut arrivals = self.arrivals.lock();
        admit(
            &mut arrivals,
            (app_key.to_string(), group),
            self.limits.limit(group),
            now_ms,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_the_limit_then_one_per_interval() {
        let limiter = Limiter::new(RateLimits::published());
        // Order queries: 10 per 30 s, so a burst of 10 and then one each 3 s.
        for n in 0..10 {
            let d = limiter.check(&"A".into(), Group::OrderQueries, 1_000);
            assert!(d.allowed, "request {n}");
            assert_eq!((d.limit, d.remaining), (10, 9 - n));
        }
        let refused = limiter.check(&"A".into(), Group::OrderQueries, 1_000);
        assert!(!refused.allowed);
        assert_eq!(
            (refused.remaining, refused.retry_after_secs, refused.reset_secs),
            (0, 3, 30)
        );
        assert!(!limiter.check(&"A".into(), Group::OrderQueries, 3_999).allowed);
        assert!(limiter.check(&"A".into(), Group::OrderQueries, 4_000).allowed);
        // Other keys and groups have their own allowance.
        assert!(limiter.check(&"B".into(), Group::OrderQueries, 1_000).allowed);
        assert!(limiter.check(&"A".into(), Group::Place, 1_000).allowed);
        // A key that waited a whole window has its whole burst again.
        assert_eq!(limiter.check(&"A".into(), Group::OrderQueries, 40_000).remaining, 9);
    }
}
