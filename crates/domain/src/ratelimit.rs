//! Rate limits per app key and endpoint group, with the interface's published defaults, by the
//! generic cell rate algorithm (GCRA): each key keeps one instant, the theoretical arrival time
//! of its next request, so a limit of N per window allows a burst of N and then one request each
//! window / N. Where the instants are kept (in process, or in Redis for several nodes) is the
//! server's and the store's business; the algorithm is [`admit`].

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::str::FromStr;
use std::time::Duration;

/// The endpoint groups the limits apply to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    Place,
    Preview,
    BatchPlace,
    OrderQueries,
    MarketData,
    Tokens,
    Other,
}

impl Group {
    pub const ALL: [Group; 7] = [
        Group::Place,
        Group::Preview,
        Group::BatchPlace,
        Group::OrderQueries,
        Group::MarketData,
        Group::Tokens,
        Group::Other,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Group::Place => "place",
            Group::Preview => "preview",
            Group::BatchPlace => "batch-place",
            Group::OrderQueries => "order-queries",
            Group::MarketData => "market-data",
            Group::Tokens => "tokens",
            Group::Other => "other",
        }
    }

    pub fn of(path: &str) -> Group {
        match path {
            "/trading/orders/place" => Group::Place,
            "/trading/orders/preview" => Group::Preview,
            "/trading/orders/batch-place" => Group::BatchPlace,
            "/trading/orders/get" | "/trading/orders/open-orders/list" | "/trading/orders/historical-orders/list" => {
                Group::OrderQueries
            }
            "/auth/tokens/create" | "/auth/tokens/check" => Group::Tokens,
            p if p.starts_with("/market-data/") || p.starts_with("/openapi/market-data/") => Group::MarketData,
            _ => Group::Other,
        }
    }

    /// The published limit: requests per window.
    pub const fn published(self) -> Limit {
        let (requests, seconds) = match self {
            Group::Place | Group::BatchPlace | Group::Other => (600, 60),
            Group::Preview => (150, 10),
            Group::OrderQueries | Group::Tokens => (10, 30),
            Group::MarketData => (300, 60),
        };
        Limit {
            requests,
            window: Duration::from_secs(seconds),
        }
    }
}

impl FromStr for Group {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Group::ALL.into_iter().find(|g| g.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = Group::ALL.iter().map(|g| g.as_str()).collect();
            format!("unknown group {s:?}: one of {}", names.join(", "))
        })
    }
}

/// N requests per window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub requests: u32,
    pub window: Duration,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.requests, self.window.as_secs())
    }
}

/// `GROUP=N/SECONDS`, as `--rate-limit` takes it.
pub fn parse_override(s: &str) -> Result<(Group, Limit), String> {
    let bad = || format!("{s:?}: expected GROUP=REQUESTS/SECONDS, e.g. order-queries=100/30");
    let (group, limit) = s.split_once('=').ok_or_else(bad)?;
    let (requests, seconds) = limit.split_once('/').ok_or_else(bad)?;
    let requests: u32 = requests.parse().map_err(|_| bad())?;
    let seconds: u64 = seconds.parse().map_err(|_| bad())?;
    if requests == 0 || seconds == 0 {
        return Err(bad());
    }
    Ok((
        group.parse()?,
        Limit {
            requests,
            window: Duration::from_secs(seconds),
        },
    ))
}

/// The limit of each group, and the limit per client address before authentication (which
/// bounds the signature work a flood can cause).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimits {
    limits: HashMap<Group, Limit>,
    pub per_address: Limit,
}

impl RateLimits {
    /// The interface's published defaults, and 2,000 requests a second per client address.
    pub fn published() -> Self {
        RateLimits {
            limits: Group::ALL.into_iter().map(|g| (g, g.published())).collect(),
            per_address: Limit {
                requests: 2_000,
                window: Duration::from_secs(1),
            },
        }
    }

    pub fn with(mut self, group: Group, limit: Limit) -> Self {
        self.limits.insert(group, limit);
        self
    }

    pub fn limit(&self, group: Group) -> Limit {
        self.limits.get(&group).copied().unwrap_or(group.published())
    }
}

/// What the limiter decided for one request, and the `X-RateLimit-*` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Seconds until the key's allowance is whole again.
    pub reset_secs: u64,
    /// Seconds until a refused request would be allowed.
    pub retry_after_secs: u64,
}

/// GCRA for one key of `arrivals`: the decision, and counted when allowed.
pub fn admit<K: Eq + Hash>(arrivals: &mut HashMap<K, u64>, key: K, limit: Limit, now_ms: u64) -> Decision {
    if arrivals.len() > 100_000 {
        // Keys whose allowance is whole again hold nothing worth keeping.
        arrivals.retain(|_, tat| *tat > now_ms);
    }
    let (decision, next) = decide(arrivals.get(&key).copied(), limit, now_ms);
    if decision.allowed {
        arrivals.insert(key, next);
    }
    decision
}

/// What [`admit`] would decide for `key` now, without counting anything.
pub fn peek<K: Eq + Hash>(arrivals: &HashMap<K, u64>, key: &K, limit: Limit, now_ms: u64) -> Decision {
    decide(arrivals.get(key).copied(), limit, now_ms).0
}

/// The decision for a key whose theoretical arrival time is `tat`, and its next one if allowed.
fn decide(tat: Option<u64>, limit: Limit, now_ms: u64) -> (Decision, u64) {
    let window = u64::try_from(limit.window.as_millis()).unwrap_or(u64::MAX);
    let interval = (window / u64::from(limit.requests)).max(1);
    let tat = tat.unwrap_or(now_ms).max(now_ms);
    let next = tat + interval;
    let ceil_secs = |ms: u64| ms.div_ceil(1000);
    if next - now_ms > window {
        let refused = Decision {
            allowed: false,
            limit: limit.requests,
            remaining: 0,
            reset_secs: ceil_secs(tat - now_ms),
            retry_after_secs: ceil_secs(next - window - now_ms).max(1),
        };
        return (refused, tat);
    }
    let allowed = Decision {
        allowed: true,
        limit: limit.requests,
        remaining: u32::try_from((window - (next - now_ms)) / interval).unwrap_or(limit.requests),
        reset_secs: ceil_secs(next - now_ms),
        retry_after_secs: 0,
    };
    (allowed, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_overrides() {
        assert_eq!(Group::of("/trading/orders/open-orders/list"), Group::OrderQueries);
        assert_eq!(Group::of("/market-data/screeners/top-actives/list"), Group::MarketData);
        assert_eq!(Group::of("/trading/accounts/list"), Group::Other);
        assert_eq!(Group::of("/auth/tokens/create"), Group::Tokens);
        let (group, limit) = parse_override("place=5/1").unwrap();
        assert_eq!((group, limit.to_string()), (Group::Place, "5/1".to_owned()));
        for bad in ["place", "place=5", "place=0/1", "nope=1/1", "place=1/x"] {
            assert!(parse_override(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn peeking_counts_nothing_and_tells_what_admit_would() {
        let limit = Limit {
            requests: 2,
            window: Duration::from_secs(1),
        };
        let mut arrivals = HashMap::new();
        assert!(peek(&arrivals, &"k", limit, 0).allowed);
        assert!(arrivals.is_empty(), "a peek counts nothing");
        assert!(admit(&mut arrivals, "k", limit, 0).allowed);
        assert!(admit(&mut arrivals, "k", limit, 0).allowed);
        let peeked = peek(&arrivals, &"k", limit, 0);
        assert_eq!(peeked, admit(&mut arrivals, "k", limit, 0));
        assert!(!peeked.allowed);
        assert_eq!(peeked.retry_after_secs, 1);
    }
}
