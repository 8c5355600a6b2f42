//! Redis, for what several nodes behind one address must share: the nonces (a request replayed to
//! another node must be refused there too), the rate limits' arrival times, and each app's open
//! trade-events streams.
//!
//! Each operation is one Lua script, run atomically by Redis in one round trip (EVALSHA, loaded
//! again after a Redis restart emptied its script cache). Times inside the scripts are Redis's own
//! clock (`TIME`), one clock for every node. Redis must not evict keys (`maxmemory-policy
//! noeviction`, its default): an evicted nonce could be replayed.

use std::sync::Arc;
use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{Client, IntoConnectionInfo, RedisError, Script};
use async_trait::async_trait;
use signet_domain::ratelimit::{Decision, Group, Limit};
use signet_model::ids::AppKey;

use crate::{NonceStore, StoreError};

/// Each attempt to connect gives up after this long, so that a Redis that does not answer turns
/// into refusals (nonces) or unlimited requests (rate limits) instead of hanging requests.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// A command that gets no answer in this time fails.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(1);
/// Bound on one call, reconnection attempts included.
const CALL_TIMEOUT: Duration = Duration::from_secs(2);

/// A connection to one Redis, shared by the nonce store and the limiter. It reconnects by itself
/// after Redis went away; keys start with `prefix`.
#[derive(Clone)]
pub struct Redis {
    connection: ConnectionManager,
    prefix: Arc<str>,
}

impl Redis {
    /// Prepares the connection without making it (the first command does), so that a server
    /// starts while Redis is down, answering 503 until it is back.
    pub fn open(url: &str, prefix: &str) -> Result<Self, RedisError> {
        let client = Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(250));
        Ok(Redis {
            connection: ConnectionManager::new_lazy_with_config(client, config)?,
            prefix: prefix.into(),
        })
    }

    async fn invoke<T: ::redis::FromRedisValue>(&self, call: ::redis::ScriptInvocation<'_>) -> Result<T, StoreError> {
        let mut connection = self.connection.clone();
        bounded(call.invoke_async(&mut connection)).await
    }
}

/// Where a URL points, without its credentials, for the logs.
pub fn describe(url: &str) -> String {
    match url.into_connection_info() {
        Ok(info) => format!("{}/{}", info.addr(), info.redis_settings().db()),
        Err(_) => "an invalid URL".into(),
    }
}

/// A prefix taken literally in a `MATCH` pattern.
fn escape_glob(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

async fn bounded<T>(call: impl Future<Output = Result<T, RedisError>>) -> Result<T, StoreError> {
    match tokio::time::timeout(CALL_TIMEOUT, call).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(StoreError::Unavailable(format!("redis: {e}"))),
        Err(_) => Err(StoreError::Unavailable(format!(
            "redis did not answer within {} s",
            CALL_TIMEOUT.as_secs()
        ))),
    }
}

/// KEYS: the store's start marker, the nonce. ARGV: the request's timestamp, the nonce's expiry
/// (both ms since the epoch), how long a nonce is kept (ms).
///
/// A Redis that lost its keys (a restart without persistence, a flush) forgets the nonces of the
/// last window. The marker, created at the first call after that, holds when the store (re)started;
/// for one retention after it, a request signed before it may have been accepted already, so it
/// is refused (-1). Otherwise the nonce is set unless present: 1 when it was new, 0 when not.
const REMEMBER: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local start = tonumber(redis.call('GET', KEYS[1]))
if not start then
  start = now
  redis.call('SET', KEYS[1], start)
end
if tonumber(ARGV[1]) < start and now - start <= tonumber(ARGV[3]) then
  return -1
end
if redis.call('SET', KEYS[2], '1', 'NX', 'PXAT', ARGV[2]) then
  return 1
end
return 0
";

/// KEYS: the store's start marker. Unless it is set, sets it to the next whole second (the
/// precision of timestamps). Answers the milliseconds until the marker.
const MARK_START: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local start = tonumber(redis.call('GET', KEYS[1]))
if not start then
  start = (tonumber(t[1]) + 1) * 1000
  redis.call('SET', KEYS[1], start)
end
return math.max(start - now, 0)
";

/// Nonces in Redis: `<prefix>nonce:<app key>:<nonce>`, expiring with the request's window. A
/// nonce never contains ':' (checked before it gets here), so the key splits back into the pair
/// from the right whatever the app key holds: two pairs never share a key.
pub struct RedisNonces {
    redis: Redis,
    script: Script,
    /// What the authentication layer adds to a request's timestamp to get its nonce's expiry.
    retention_ms: i64,
}

impl RedisNonces {
    pub fn new(redis: Redis, retention: Duration) -> Self {
        RedisNonces {
            redis,
            script: Script::new(REMEMBER),
            retention_ms: signet_domain::times::millis(retention),
        }
    }

    /// Marks an empty store as started, at a node's start-up rather than at its first request,
    /// and answers how long until that start: timestamps are whole seconds, so the store starts
    /// at the next one, and a node that waits for it before serving refuses nothing signed after
    /// it started (without the wait, a benchmark saw 2,449 refusals in the first second).
    pub async fn mark_start(&self) -> Result<Duration, StoreError> {
        let wait_ms = self
            .redis
            .invoke::<i64>(Script::new(MARK_START).key(self.started_key()))
            .await?;
        Ok(Duration::from_millis(wait_ms.clamp(0, 1_000) as u64))
    }

    fn started_key(&self) -> String {
        format!("{}nonces-started", self.redis.prefix)
    }
}

#[async_trait]
impl NonceStore for RedisNonces {
    async fn remember(&self, app_key: &AppKey, nonce: &str, expires_at_ms: i64) -> Result<bool, StoreError> {
        let key = format!("{}nonce:{app_key}:{nonce}", self.redis.prefix);
        let mut call = self.script.key(self.started_key());
        call.key(key)
            .arg(expires_at_ms - self.retention_ms)
            .arg(expires_at_ms)
            .arg(self.retention_ms);
        match self.redis.invoke::<i64>(call).await? {
            1 => Ok(true),
            -1 => {
                tracing::info!(
                    "a request signed before the nonce store (re)started was refused: its nonce cannot be checked"
                );
                Ok(false)
            }
            _ => Ok(false),
        }
    }

    /// Redis expires the keys itself.
    async fn purge_expired(&self, _now_ms: i64) -> Result<u64, StoreError> {
        Ok(0)
    }

    /// `SCAN`s this deployment's nonce keys, a thousand at a time, so that Redis is never held
    /// for long.
    async fn count(&self) -> Result<u64, StoreError> {
        let pattern = format!("{}nonce:*", escape_glob(&self.redis.prefix));
        let mut connection = self.redis.connection.clone();
        let (mut cursor, mut count) = (0u64, 0u64);
        loop {
            let mut scan = ::redis::cmd("SCAN");
            scan.cursor_arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(1000);
            let (next, keys) = bounded(scan.query_async::<(u64, Vec<::redis::Value>)>(&mut connection)).await?;
            count += keys.len() as u64;
            if next == 0 {
                return Ok(count);
            }
            cursor = next;
        }
    }
}

/// GCRA, exactly as [`crate::ratelimit`] computes it in process, on a key's theoretical arrival
/// time (ms since the epoch, Redis's clock). KEYS: the arrival time. ARGV: window, interval (ms).
/// Returns allowed (1/0), remaining, reset and retry-after (s). The key expires when the
/// allowance is whole again, when it holds nothing worth keeping.
const ADMIT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local nxt = tat + interval
if nxt - now > window then
  local retry = math.ceil((nxt - window - now) / 1000)
  if retry < 1 then retry = 1 end
  return {0, 0, math.ceil((tat - now) / 1000), retry}
end
redis.call('SET', KEYS[1], nxt, 'PX', nxt - now)
return {1, math.floor((window - (nxt - now)) / interval), math.ceil((nxt - now) / 1000), 0}
";

/// The arrival times of the per-app limits, shared by every node using the same Redis:
/// `<prefix>rate:<group>:<app key>` (a group's name has no ':').
pub struct RedisArrivals {
    redis: Redis,
    script: Script,
}

impl RedisArrivals {
    pub fn new(redis: Redis) -> Self {
        RedisArrivals {
            redis,
            script: Script::new(ADMIT),
        }
    }

    /// Counts a request of `app_key` to `group` now, if `limit` allows it.
    pub async fn check(&self, app_key: &AppKey, group: Group, limit: Limit) -> Result<Decision, StoreError> {
        let window = u64::try_from(limit.window.as_millis()).unwrap_or(u64::MAX);
        let interval = (window / u64::from(limit.requests)).max(1);
        let mut call = self
            .script
            .key(format!("{}rate:{}:{app_key}", self.redis.prefix, group.as_str()));
        call.arg(window).arg(interval);
        let (allowed, remaining, reset_secs, retry_after_secs) = self.redis.invoke::<(u8, u32, u64, u64)>(call).await?;
        Ok(Decision {
            allowed: allowed == 1,
            limit: limit.requests,
            remaining,
            reset_secs,
            retry_after_secs,
        })
    }
}

/// KEYS: an app's open streams, a sorted set of stream ids scored by when each expires (ms,
/// Redis's clock). ARGV: the stream's id, the cap, the time to live (ms). Drops the expired
/// (those of a node that died), then adds the stream unless the app has `cap` open: 1 added,
/// 0 refused. The set itself expires with its last stream.
const OPEN_STREAM: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
";

/// KEYS: an app's open streams. ARGV: a stream's id, the time to live (ms). Keeps the stream
/// counted for another time to live (again, if a stall let it expire: it is still open).
const REFRESH_STREAM: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
";

/// Each app's open streams of one kind (`streams` for the trade events, `gateway-streams` for
/// the earlier generation's quotes gateway), counted for every node using the same Redis:
/// `<prefix><kind>:<app key>`. An open stream refreshes its entry; the entries of a node that
/// died expire after one time to live.
pub struct RedisStreams {
    redis: Redis,
    kind: &'static str,
    open: Script,
    refresh: Script,
}

impl RedisStreams {
    pub fn new(redis: Redis, kind: &'static str) -> Self {
        RedisStreams {
            redis,
            kind,
            open: Script::new(OPEN_STREAM),
            refresh: Script::new(REFRESH_STREAM),
        }
    }

    fn key(&self, app_key: &AppKey) -> String {
        format!("{}{}:{app_key}", self.redis.prefix, self.kind)
    }

    /// Counts stream `id` of `app_key` for `ttl`, unless the app has `cap` open: false then.
    pub async fn open(&self, app_key: &AppKey, id: &str, cap: usize, ttl: Duration) -> Result<bool, StoreError> {
        let mut call = self.open.key(self.key(app_key));
        call.arg(id).arg(cap).arg(signet_domain::times::millis(ttl));
        Ok(self.redis.invoke::<i64>(call).await? == 1)
    }

    /// Keeps stream `id` counted for another `ttl`.
    pub async fn refresh(&self, app_key: &AppKey, id: &str, ttl: Duration) -> Result<(), StoreError> {
        let mut call = self.refresh.key(self.key(app_key));
        call.arg(id).arg(signet_domain::times::millis(ttl));
        self.redis.invoke::<i64>(call).await.map(drop)
    }

    /// Stops counting stream `id`.
    pub async fn close(&self, app_key: &AppKey, id: &str) -> Result<(), StoreError> {
        let mut connection = self.redis.connection.clone();
        let mut zrem = ::redis::cmd("ZREM");
        zrem.arg(self.key(app_key)).arg(id);
        bounded(zrem.query_async::<i64>(&mut connection)).await.map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_logged_form_of_a_url_has_no_credentials() {
        assert_eq!(describe("redis://user:hunter2@10.0.0.7:6380/3"), "10.0.0.7:6380/3");
        assert_eq!(describe("redis://:hunter2@localhost"), "localhost:6379/0");
        assert_eq!(describe("not a url"), "an invalid URL");
    }
}
