//! The console's view of the interface's traffic: the last few thousand requests in a bounded
//! ring in memory (never the database), and requests and refusals per second over the last
//! minutes. A refused signature keeps what the server computed beside the headers it received,
//! for the Requests page; nothing else of a request is kept.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, Uri};
use axum::middleware::Next;
use axum::response::Response;
use signet_model::ErrorCode;
use signet_model::error::SignatureDebug;

use crate::app::AppState;
use crate::error::Explanation;

/// Requests kept for the Requests page.
pub const KEPT: usize = 2_000;
/// Seconds of per-second counts kept for the overview.
pub const HISTORY_SECS: usize = 600;

/// The headers a signature is made of, as received: what a refused signature's explanation shows
/// beside the server's own strings.
const SIGNING_HEADERS: [&str; 7] = [
    "host",
    "x-app-key",
    "x-timestamp",
    "x-signature-nonce",
    "x-signature-algorithm",
    "x-signature-version",
    "x-signature",
];

/// One request as the Requests page lists it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: u64,
    pub time_ms: i64,
    /// What came in, kept as received (cheap to keep; turned into text only to show).
    app_key: Option<HeaderValue>,
    pub method: Method,
    target: Uri,
    pub status: u16,
    pub error_code: Option<&'static str>,
    pub latency_us: u64,
    /// For a refused signature only.
    pub signature: Option<Box<Refused>>,
}

/// A refused signature: the signing headers received, and what the server computed.
#[derive(Debug, Clone)]
pub struct Refused {
    pub received: Vec<(String, String)>,
    pub computed: Vec<SignatureDebug>,
}

impl Entry {
    /// The `x-app-key` header, when it is text.
    pub fn app_key(&self) -> Option<&str> {
        self.app_key.as_ref().and_then(|v| v.to_str().ok())
    }

    /// The path and query, at most 200 characters.
    pub fn target(&self) -> String {
        self.target
            .path_and_query()
            .map_or("", |p| p.as_str())
            .chars()
            .take(200)
            .collect()
    }
}

/// Requests and refusals in one second.
#[derive(Debug, Clone, Default)]
pub struct Second {
    pub second: i64,
    pub requests: u64,
    pub refusals: BTreeMap<&'static str, u64>,
}

#[derive(Default)]
struct Kept {
    next_id: u64,
    entries: VecDeque<Entry>,
    seconds: VecDeque<Second>,
}

/// The ring and the per-second counts, behind one lock held only to push or copy.
#[derive(Default)]
pub struct Recorder {
    kept: Mutex<Kept>,
}

impl Recorder {
    fn push(&self, mut entry: Entry) {
        let second = entry.time_ms.div_euclid(1000);
        let mut kept = self.kept.lock().expect("request ring");
        entry.id = kept.next_id;
        kept.next_id += 1;
        if kept.seconds.back().is_none_or(|s| s.second != second) {
            kept.seconds.push_back(Second {
                second,
                ..Second::default()
            });
            while kept.seconds.len() > HISTORY_SECS {
                kept.seconds.pop_front();
            }
        }
        let counts = kept.seconds.back_mut().expect("pushed above");
        counts.requests += 1;
        if let Some(code) = entry.error_code {
            *counts.refusals.entry(code).or_default() += 1;
        }
        if kept.entries.len() == KEPT {
            kept.entries.pop_front();
        }
        kept.entries.push_back(entry);
    }

    /// The kept requests, newest first, that `keep` accepts, at most `limit` of them.
    pub fn entries(&self, limit: usize, keep: impl Fn(&Entry) -> bool) -> Vec<Entry> {
        let kept = self.kept.lock().expect("request ring");
        kept.entries
            .iter()
            .rev()
            .filter(|e| keep(e))
            .take(limit)
            .cloned()
            .collect()
    }

    pub fn entry(&self, id: u64) -> Option<Entry> {
        let kept = self.kept.lock().expect("request ring");
        kept.entries.iter().rev().find(|e| e.id == id).cloned()
    }

    /// The seconds with requests since `since` (a Unix second), oldest first.
    pub fn seconds(&self, since: i64) -> Vec<Second> {
        let kept = self.kept.lock().expect("request ring");
        kept.seconds.iter().filter(|s| s.second >= since).cloned().collect()
    }
}

/// The layer in front of the signed interface: records each request once its answer is known.
pub async fn record(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let Some(console) = state.console.clone() else {
        return next.run(request).await;
    };
    let started = Instant::now();
    let time_ms = signet_domain::simulator::clock::wall_clock_ms();
    let method = request.method().clone();
    let target = request.uri().clone();
    let headers = request.headers();
    let app_key = headers.get("x-app-key").cloned();
    // Header values are shared buffers: keeping them costs no copy, and only a refused
    // signature's are turned into text.
    let received: Vec<(&'static str, HeaderValue)> = SIGNING_HEADERS
        .iter()
        .filter_map(|name| Some((*name, headers.get(*name)?.clone())))
        .collect();
    let response = next.run(request).await;
    let signature = response.extensions().get::<Explanation>().map(|e| {
        Box::new(Refused {
            received: received
                .iter()
                .map(|(name, value)| {
                    let text = String::from_utf8_lossy(value.as_bytes());
                    ((*name).to_owned(), text.chars().take(200).collect())
                })
                .collect(),
            computed: e.0.clone(),
        })
    });
    console.requests.push(Entry {
        id: 0,
        time_ms,
        app_key,
        method,
        target,
        status: response.status().as_u16(),
        error_code: response.extensions().get::<ErrorCode>().map(|c| c.as_str()),
        latency_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        signature,
    });
    response
}
