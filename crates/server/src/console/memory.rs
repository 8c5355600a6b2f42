//! What the console keeps in memory, apart from its pages so that the server's state holds it
//! without depending on them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use signet_domain::ratelimit::{Limit, admit, peek};

use super::requests::Recorder;

/// What the console keeps in memory: the traffic it shows and the failed logins it limits.
#[derive(Default)]
pub struct Console {
    pub requests: Arc<Recorder>,
    pub logins: LoginLimiter,
}

/// Failed logins an address may make in a minute.
const FAILED_LOGINS: Limit = Limit {
    requests: 5,
    window: Duration::from_secs(60),
};

/// Failed logins per client address (GCRA, as the interface's rate limits).
pub struct LoginLimiter {
    started: Instant,
    failures: Mutex<HashMap<IpAddr, u64>>,
}

impl Default for LoginLimiter {
    fn default() -> Self {
        LoginLimiter {
            started: Instant::now(),
            failures: Mutex::new(HashMap::new()),
        }
    }
}

impl LoginLimiter {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Seconds until `address` may try again, when it has failed too often.
    pub(super) fn blocked(&self, address: IpAddr) -> Option<u64> {
        let failures = self.failures.lock();
        let decision = peek(&failures, &address, FAILED_LOGINS, self.now_ms());
        (!decision.allowed).then_some(decision.retry_after_secs)
    }

    pub(super) fn failed(&self, address: IpAddr) {
        let now = self.now_ms();
        admit(&mut self.failures.lock(), address, FAILED_LOGINS, now);
    }
}
