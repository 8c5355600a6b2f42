//! The console's view of the interface's traffic: the last few thousand requests in a bounded
//! ring in memory (never the database), and requests and refusals per second over the last
//! minutes. A refused signature keeps what the server computed beside the headers it received,
//! and an answer a scenario rule touched the rules' names (`x-signet-scenario`), for the
//! Requests page; nothing else of a request is kept.
//!
//! The ring has a fixed budget whatever the requests look like ([`BUDGET`]): an entry copies
//! what it shows, cut to a few hundred bytes (never a header value or URI as received, which
//! would keep the whole buffer of the request's head alive), and only the newest [`EXPLAINED`]
//! refused signatures keep their explanation, each string to sign cut to [`STR3_BYTES`].

use std::collections::{BTreeMap, VecDeque};
use std::mem::size_of;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use parking_lot::Mutex;
use signet_model::ErrorCode;
use signet_model::headers::SCENARIO;

use crate::error::Explanation;

/// Requests kept for the Requests page.
pub const KEPT: usize = 2_000;
/// Seconds of per-second counts kept for the overview.
pub const HISTORY_SECS: usize = 600;
/// Refused signatures whose explanation is kept (the newest); older ones keep their line only.
pub const EXPLAINED: usize = 200;
/// Bytes of each string to sign an explanation keeps; its encoding is made from them when shown.
pub const STR3_BYTES: usize = 2_048;
/// Bytes kept of a request's target (path and query), app key, scenario rules' names, and each
/// header or host value of an explanation: what the pages show.
const TEXT_BYTES: usize = 200;
/// Bytes kept of a method that is not a standard one.
const METHOD_BYTES: usize = 15;
/// What the ring's entries may hold at most, whatever the requests ([`Recorder::kept_bytes`]).
pub const BUDGET: usize = 4 * 1024 * 1024;

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
    /// The `x-app-key` header, when it is text, cut to [`TEXT_BYTES`].
    app_key: Option<Box<str>>,
    pub method: Method,
    /// The path and query, cut to [`TEXT_BYTES`].
    target: Box<str>,
    pub status: u16,
    pub error_code: Option<&'static str>,
    pub latency_us: u64,
    /// The names of the scenario rules that touched the answer, one a line, cut to
    /// [`TEXT_BYTES`].
    scenarios: Option<Box<str>>,
    /// For a refused signature only, while it is among the newest [`EXPLAINED`].
    pub signature: Option<Box<Refused>>,
}

/// A refused signature: the signing headers received, and what the server computed.
#[derive(Debug, Clone)]
pub struct Refused {
    pub received: Vec<(&'static str, Box<str>)>,
    pub computed: Vec<Computed>,
}

/// What the server signed for one host value it tried.
#[derive(Debug, Clone)]
pub struct Computed {
    pub host: Box<str>,
    /// The string to sign, cut to [`STR3_BYTES`].
    pub str3: Box<str>,
    /// The whole string's length, in bytes.
    pub str3_len: usize,
}

impl Computed {
    /// The percent-encoding of the kept string to sign (the encoding of a cut string is the cut
    /// encoding: each character is encoded alone).
    pub fn encoded(&self) -> String {
        signet_signing::percent_encode(&self.str3)
    }
}

impl Entry {
    /// The `x-app-key` header, when it is text.
    pub fn app_key(&self) -> Option<&str> {
        self.app_key.as_deref()
    }

    /// The path and query, at most 200 bytes.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The names of the scenario rules that touched the answer.
    pub fn scenarios(&self) -> impl Iterator<Item = &str> {
        self.scenarios
            .as_deref()
            .into_iter()
            .flat_map(|names| names.split('\n'))
    }

    /// The heap bytes this entry holds beside its place in the ring (its method is inline).
    fn heap_bytes(&self) -> usize {
        self.app_key.as_ref().map_or(0, |k| k.len())
            + self.target.len()
            + self.scenarios.as_ref().map_or(0, |s| s.len())
            + self.signature.as_ref().map_or(0, |s| s.heap_bytes())
    }
}

impl Refused {
    fn heap_bytes(&self) -> usize {
        size_of::<Refused>()
            + self.received.capacity() * size_of::<(&str, Box<str>)>()
            + self.received.iter().map(|(_, value)| value.len()).sum::<usize>()
            + self.computed.capacity() * size_of::<Computed>()
            + self.computed.iter().map(|c| c.host.len() + c.str3.len()).sum::<usize>()
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut(text: &str, max: usize) -> Box<str> {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].into()
}

/// A header value as text, cut.
fn value_text(value: &HeaderValue) -> Box<str> {
    cut(&String::from_utf8_lossy(value.as_bytes()), TEXT_BYTES)
}

/// The names in the answer's `x-signet-scenario` headers, each once, one a line, cut.
fn rules_of(response: &Response) -> Option<Box<str>> {
    let mut names: Vec<&str> = Vec::new();
    for name in response
        .headers()
        .get_all(SCENARIO)
        .iter()
        .filter_map(|v| v.to_str().ok())
    {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    (!names.is_empty()).then(|| cut(&names.join("\n"), TEXT_BYTES))
}

/// The method, or the start of a long non-standard one: either is kept inline, without a heap
/// allocation.
fn kept_method(method: &Method) -> Method {
    let name = method.as_str();
    if name.len() <= METHOD_BYTES {
        return method.clone();
    }
    Method::from_bytes(&name.as_bytes()[..METHOD_BYTES]).expect("the start of a method is a method")
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
    /// The ids of the entries that hold an explanation, oldest first.
    explained: VecDeque<u64>,
    seconds: VecDeque<Second>,
}

impl Kept {
    /// Where the entry `id` is, if the ring still holds it (ids follow each other in the ring).
    fn index(&self, id: u64) -> Option<usize> {
        let first = self.entries.front()?.id;
        usize::try_from(id.checked_sub(first)?)
            .ok()
            .filter(|&i| i < self.entries.len())
    }
}

/// The ring and the per-second counts, behind one lock held only to push or copy.
#[derive(Default)]
pub struct Recorder {
    kept: Mutex<Kept>,
}

impl Recorder {
    fn push(&self, mut entry: Entry) {
        let second = entry.time_ms.div_euclid(1000);
        let mut kept = self.kept.lock();
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
        if entry.signature.is_some() {
            kept.explained.push_back(entry.id);
        }
        kept.entries.push_back(entry);
        while kept.explained.len() > EXPLAINED {
            let oldest = kept.explained.pop_front().expect("longer than the limit");
            if let Some(i) = kept.index(oldest) {
                kept.entries[i].signature = None;
            }
        }
    }

    /// The kept requests, newest first, that `keep` accepts, at most `limit` of them.
    pub fn entries(&self, limit: usize, keep: impl Fn(&Entry) -> bool) -> Vec<Entry> {
        let kept = self.kept.lock();
        kept.entries
            .iter()
            .rev()
            .filter(|e| keep(e))
            .take(limit)
            .cloned()
            .collect()
    }

    pub fn entry(&self, id: u64) -> Option<Entry> {
        let kept = self.kept.lock();
        kept.index(id).map(|i| kept.entries[i].clone())
    }

    /// The seconds with requests since `since` (a Unix second), oldest first.
    pub fn seconds(&self, since: i64) -> Vec<Second> {
        let kept = self.kept.lock();
        kept.seconds.iter().filter(|s| s.second >= since).cloned().collect()
    }

    /// The requests kept, and the bytes their entries hold (the ring's slots and what each entry
    /// holds on the heap): at most [`BUDGET`].
    pub fn kept_bytes(&self) -> (usize, usize) {
        let kept = self.kept.lock();
        let slots = kept.entries.capacity() * size_of::<Entry>() + kept.explained.capacity() * size_of::<u64>();
        let held: usize = kept.entries.iter().map(Entry::heap_bytes).sum();
        (kept.entries.len(), slots + held)
    }
}

/// The layer in front of the signed interface: records each request once its answer is known.
pub async fn record(State(recorder): State<Arc<Recorder>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let arrived = Arrived::of(&request);
    let response = next.run(request).await;
    let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    recorder.push(arrived.answered(&response, latency_us));
    response
}

/// What is kept of a request when it arrives: copies, cut, of what the page shows (nothing that
/// holds the buffers the request was read into), and its signing headers until the answer.
struct Arrived {
    time_ms: i64,
    method: Method,
    target: Box<str>,
    app_key: Option<Box<str>>,
    /// Header values are shared buffers: cloning them costs no copy, and only a refused
    /// signature's are turned into text. They are let go with the answer.
    received: Vec<(&'static str, HeaderValue)>,
}

impl Arrived {
    fn of(request: &Request) -> Self {
        let headers = request.headers();
        Arrived {
            time_ms: signet_domain::simulator::clock::wall_clock_ms(),
            method: kept_method(request.method()),
            target: cut(request.uri().path_and_query().map_or("", |p| p.as_str()), TEXT_BYTES),
            app_key: headers
                .get("x-app-key")
                .and_then(|v| v.to_str().ok())
                .map(|key| cut(key, TEXT_BYTES)),
            received: SIGNING_HEADERS
                .iter()
                .filter_map(|name| Some((*name, headers.get(*name)?.clone())))
                .collect(),
        }
    }

    fn answered(self, response: &Response, latency_us: u64) -> Entry {
        let signature = response.extensions().get::<Explanation>().map(|e| {
            Box::new(Refused {
                received: self
                    .received
                    .iter()
                    .map(|(name, value)| (*name, value_text(value)))
                    .collect(),
                computed: e
                    .0
                    .iter()
                    .map(|d| Computed {
                        host: cut(&d.host, TEXT_BYTES),
                        str3: cut(&d.str3, STR3_BYTES),
                        str3_len: d.str3.len(),
                    })
                    .collect(),
            })
        });
        Entry {
            id: 0,
            time_ms: self.time_ms,
            app_key: self.app_key,
            method: self.method,
            target: self.target,
            status: response.status().as_u16(),
            error_code: response.extensions().get::<ErrorCode>().map(|c| c.as_str()),
            latency_us,
            scenarios: rules_of(response),
            signature,
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::response::IntoResponse;
    use signet_model::error::SignatureDebug;

    use super::*;

    /// A request as large as the HTTP layer lets through, in every part the ring looks at, and
    /// its refusal with an explanation per host value tried, which many scenario rules touched.
    fn worst_case() -> (Request, Response) {
        let long = "é".repeat(30_000);
        let mut request = Request::builder()
            .method(Method::from_bytes("A".repeat(1_000).as_bytes()).unwrap())
            .uri(format!("/trading/accounts/list?q={}", "a".repeat(60_000)));
        for name in SIGNING_HEADERS {
            request = request.header(name, "x".repeat(8_000));
        }
        let request = request.body(Body::empty()).unwrap();
        let mut error = crate::ApiError::new(ErrorCode::IncorrectSign, "no");
        error.explanation = Some(
            (0..4)
                .map(|_| SignatureDebug {
                    host: long.clone(),
                    str3: long.clone(),
                    encoded: long.clone(),
                })
                .collect(),
        );
        let mut response = error.into_response();
        for i in 0..20 {
            let name = HeaderValue::from_str(&format!("{i:02}{}", "r".repeat(98))).unwrap();
            response.headers_mut().append(SCENARIO, name);
        }
        (request, response)
    }

    #[test]
    fn the_ring_keeps_its_budget_whatever_the_requests() {
        let recorder = Recorder::default();
        let (request, response) = worst_case();
        for _ in 0..KEPT + 10 {
            recorder.push(Arrived::of(&request).answered(&response, 1));
        }
        let (count, bytes) = recorder.kept_bytes();
        assert_eq!(count, KEPT);
        assert!(bytes <= BUDGET, "{bytes} bytes");
        let entries = recorder.entries(KEPT, |_| true);
        let explained = entries.iter().filter(|e| e.signature.is_some()).count();
        assert_eq!(explained, EXPLAINED, "only the newest keep their explanation");
        assert!(entries[..EXPLAINED].iter().all(|e| e.signature.is_some()));

        let newest = recorder.entry(entries[0].id).unwrap();
        assert_eq!(newest.method.as_str().len(), METHOD_BYTES);
        assert!(newest.target().starts_with("/trading/accounts/list?q=aaa"));
        assert_eq!(newest.target().len(), TEXT_BYTES);
        let rules: Vec<&str> = newest.scenarios().collect();
        assert_eq!(rules.len(), 2, "the first rules' names, cut: {rules:?}");
        assert!(rules[0].starts_with("00rrr") && rules[1].starts_with("01rrr"));
        assert_eq!(rules.iter().map(|r| r.len() + 1).sum::<usize>() - 1, TEXT_BYTES);
        let signature = newest.signature.unwrap();
        assert!(signature.received.iter().all(|(_, v)| v.len() == TEXT_BYTES));
        let computed = &signature.computed[0];
        assert_eq!((computed.str3.len(), computed.str3_len), (STR3_BYTES, 60_000));
        assert_eq!(computed.encoded(), "%C3%A9".repeat(STR3_BYTES / 2));
        assert!(computed.host.len() <= TEXT_BYTES);
    }

    #[test]
    fn an_answer_names_each_rule_that_touched_it_once() {
        let request = Request::builder()
            .uri("/trading/orders/place")
            .body(Body::empty())
            .unwrap();
        let mut response = Response::new(Body::empty());
        assert_eq!(Arrived::of(&request).answered(&response, 1).scenarios().count(), 0);
        for name in ["slow", "half then cancelled", "slow"] {
            response.headers_mut().append(SCENARIO, HeaderValue::from_static(name));
        }
        let entry = Arrived::of(&request).answered(&response, 1);
        assert_eq!(entry.scenarios().collect::<Vec<_>>(), ["slow", "half then cancelled"]);
    }

    #[test]
    fn text_is_cut_at_a_character_boundary() {
        assert_eq!(&*cut("aé", 2), "a");
        assert_eq!(&*cut("aé", 3), "aé");
        assert_eq!(&*cut("", 3), "");
    }
}
