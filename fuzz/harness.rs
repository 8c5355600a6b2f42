//! The bodies of the fuzz targets, one function per target, shared by cargo-fuzz
//! (`fuzz/fuzz_targets/*.rs`, nightly) and the replay of the committed corpus on stable
//! (`crates/import/tests/fuzz_corpus.rs`). Each takes arbitrary bytes and panics only on a bug:
//! a parser that panics, or a property that does not hold. Errors are fine.

#![allow(dead_code)] // each fuzz target uses one of these functions

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use signet_domain::marketdata::fundamentals::layout::Record;
use signet_domain::marketdata::{Bar, CorporateAction, Fact, Instrument, MinuteBar, SymbolBar, SymbolMinute};
use signet_domain::simulator::Listing;
use signet_domain::simulator::clock::{CORE_OPEN, core_close};
use signet_domain::trading::spec;
use signet_import::{
    Chunk, Format, ImportCounts, ImportError, ImportMessage, ImportOptions, import_file, minutes, ohlcv,
};
use signet_model::orders::{BatchPlaceRequest, NewOrder, OrderType, PlaceOrderRequest, Side};
use signet_signing::{
    Algorithm, Request, SigningHeaders, StringToSign, decode_query, explain, format_timestamp, parse_timestamp,
    percent_encode, sign, verify,
};
use signet_store::{InstrumentQuery, MarketDataStatus, MarketDataStore, StoreError};

// ---------------------------------------------------------------------------------------------
// Query decoding and canonicalization (spec section 5.3, 5.4)

const PATH: &str = "/trade/place_order";
const SECRET: &str = "0c6ba3bb4ab8d8e4c3ef9ad1ba5bd9a5";

fn headers(algorithm: Algorithm) -> SigningHeaders<'static> {
    SigningHeaders {
        app_key: "776da210ab4a452795d74e726ebd74b6",
        algorithm,
        signature_version: "1.0",
        nonce: "48ef5afed43d4d91ae514aaeafbc29ba",
        timestamp: "2022-01-04T03:55:31Z",
        host: "api.example.test",
    }
}

/// Input: a raw query string as it arrives on the wire, then optionally `\n` and the body.
pub fn query(data: &[u8]) {
    let (raw, body) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let raw = String::from_utf8_lossy(raw);
    // Form decoding: one pair per non-empty `&`-separated piece.
    assert_eq!(
        decode_query(&raw).len(),
        raw.split('&').filter(|piece| !piece.is_empty()).count()
    );
    // The same pieces in another order: the pairs are sorted, so the string to sign is the same.
    let reversed = raw.split('&').rev().collect::<Vec<_>>().join("&");

    for algorithm in [Algorithm::HmacSha256, Algorithm::LegacyHmacSha1] {
        let request = Request::new(PATH, headers(algorithm))
            .with_raw_query(&raw)
            .with_body(body);
        let strings = StringToSign::new(&request);
        assert_eq!(strings, StringToSign::new(&request), "deterministic");

        // str2: the upper-case hex digest of the body, present exactly when there is a body.
        assert_eq!(strings.str2.is_some(), !body.is_empty());
        if let Some(digest) = &strings.str2 {
            let hex_len = if algorithm == Algorithm::HmacSha256 { 64 } else { 32 };
            assert_eq!(digest.len(), hex_len);
            assert!(
                digest.bytes().all(|b| matches!(b, b'0'..=b'9' | b'A'..=b'F')),
                "{digest}"
            );
        }
        // str3 = path & str1 [& str2]
        let str3 = match &strings.str2 {
            Some(digest) => format!("{PATH}&{}&{digest}", strings.str1),
            None => format!("{PATH}&{}", strings.str1),
        };
        assert_eq!(strings.str3, str3);

        let permuted = Request::new(PATH, headers(algorithm))
            .with_raw_query(&reversed)
            .with_body(body);
        assert_eq!(
            StringToSign::new(&permuted),
            strings,
            "query pieces reordered: {reversed:?}"
        );

        // Every step of explain is the step on its own; the encoding is reversible.
        let signature = sign(&request, SECRET);
        let explanation = explain(&request, SECRET);
        assert_eq!(explanation.str1, strings.str1);
        assert_eq!(explanation.str2, strings.str2);
        assert_eq!(explanation.str3, strings.str3);
        assert_eq!(explanation.encoded, percent_encode(&strings.str3));
        assert_eq!(percent_decode(&explanation.encoded), strings.str3.as_bytes());
        assert_eq!(explanation.signature, signature);

        assert!(verify(&request, SECRET, &signature));
        assert!(verify(&permuted, SECRET, &signature));
        assert!(!verify(&request, "another secret", &signature));
        // Whatever arrives as a signature is a mismatch, never a panic.
        let _ = verify(&request, SECRET, &String::from_utf8_lossy(body));
    }
}

/// Reverses rule 6, checking that only `A-Z a-z 0-9 - . _ ~` and `%XX` (upper-case hex) occur.
fn percent_decode(encoded: &str) -> Vec<u8> {
    let hex = |b: u8| match b {
        b'0'..=b'9' => b - b'0',
        b'A'..=b'F' => b - b'A' + 10,
        _ => panic!("{:?} is not upper-case hex in {encoded:?}", b as char),
    };
    let bytes = encoded.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let escape = bytes.get(i + 1..i + 3).expect("a complete %XX escape");
                out.push(hex(escape[0]) << 4 | hex(escape[1]));
                i += 3;
            }
            b if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') => {
                out.push(b);
                i += 1;
            }
            b => panic!("{:?} left unencoded in {encoded:?}", b as char),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The x-timestamp parser

/// Input: a candidate `x-timestamp`; its first 8 bytes also pick an instant of years 0000-9999.
pub fn timestamp(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(seconds) = parse_timestamp(&text) {
        // The format is strict: an instant has one spelling, so formatting gives the input back.
        assert_eq!(format_timestamp(seconds), text);
        assert_eq!(parse_timestamp(&format_timestamp(seconds)), Ok(seconds));
    }
    if let Some(bytes) = data.first_chunk::<8>() {
        let first = parse_timestamp("0000-01-01T00:00:00Z").expect("year 0000");
        let last = parse_timestamp("9999-12-31T23:59:59Z").expect("year 9999");
        let seconds = first + i64::from_le_bytes(*bytes).rem_euclid(last - first + 1);
        let text = format_timestamp(seconds);
        assert_eq!(parse_timestamp(&text), Ok(seconds), "{text}");
    }
}

// ---------------------------------------------------------------------------------------------
// The order body: what /trading/orders/place, /preview and /batch-place parse

/// Input: a request body. It is read as the place request (`new_orders`) and as the batch
/// request (`batch_orders`), like the handlers do, and every order goes through `spec::parse`
/// and, when it parses, through what `prepare` does next with a few quotes.
pub fn order_body(data: &[u8]) {
    if let Ok(request) = serde_json::from_slice::<PlaceOrderRequest>(data) {
        request.new_orders.iter().for_each(order);
    }
    if let Ok(request) = serde_json::from_slice::<BatchPlaceRequest>(data) {
        request.batch_orders.iter().for_each(order);
    }
}

fn order(order: &NewOrder) {
    let Ok(parsed) = spec::parse(order) else { return };
    // What parse promises.
    let id = &parsed.client_order_id;
    assert!((1..=32).contains(&id.len()), "{id:?}");
    assert!(
        id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
        "{id:?}"
    );
    assert!(!parsed.symbol.is_empty() && parsed.symbol == parsed.symbol.trim());
    assert_eq!(parsed.symbol, parsed.symbol.to_ascii_uppercase());
    match parsed.cash_amount {
        Some(amount) => assert!(amount.is_sign_positive() && !amount.is_zero() && parsed.quantity.is_zero()),
        None => assert!(parsed.quantity.is_sign_positive() && !parsed.quantity.is_zero()),
    }
    let limit = matches!(parsed.order_type, OrderType::Limit | OrderType::StopLossLimit);
    let stop = matches!(parsed.order_type, OrderType::StopLoss | OrderType::StopLossLimit);
    assert_eq!(parsed.limit_price.is_some(), limit);
    assert_eq!(parsed.stop_price.is_some(), stop);
    assert_eq!(
        parsed.trailing.is_some(),
        parsed.order_type == OrderType::TrailingStopLoss
    );
    for price in [parsed.limit_price, parsed.stop_price].into_iter().flatten() {
        assert!(
            price.is_sign_positive() && !price.is_zero() && price.scale() <= 4,
            "{price}"
        );
    }

    // What trading::orders::prepare and check_account do next, with a few last prices: a
    // trailing stop starts from the last price, an AMOUNT order's quantity comes from the
    // expected price, and a purchase costs quantity times that price.
    for quote in ["0.0001", "187.25", "250000"] {
        let quote = quote.parse().expect("a decimal");
        let mut spec = parsed.clone();
        if let Some(trailing) = spec.trailing {
            spec.stop_price = Some(trailing.stop_for(spec.side, quote));
        }
        let estimate = spec.limit_price.or(spec.stop_price).unwrap_or(quote);
        if spec.quantity_for(estimate).is_err() {
            continue;
        }
        assert!(spec.quantity.is_sign_positive() && !spec.quantity.is_zero(), "{spec:?}");
        // check_account: what a purchase or a short sale costs.
        if spec.side != Side::Sell {
            let _cost = spec.quantity * estimate;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The import formats

/// Input: a file in the SEC company tickers layout.
pub fn import_tickers(data: &[u8]) {
    import(data, Format::SecTickers);
}

/// Input: `nasdaqlisted.txt`, or `otherlisted.txt` when its header says so.
pub fn import_nasdaq(data: &[u8]) {
    let format = match Format::detect(data) {
        Some(Format::OtherListed) => Format::OtherListed,
        _ => Format::NasdaqListed,
    };
    import(data, format);
}

/// Input: daily prices; the layout is the detected one (Quandl WIKI when none is).
pub fn import_ohlcv(data: &[u8]) {
    let format = match Format::detect(data) {
        Some(format @ Format::Ohlcv(_)) => format,
        _ => Format::Ohlcv(ohlcv::Layout::Wiki),
    };
    import(data, format);
}

/// Input: one-minute bars; the layout is the detected one (signet's when none is). The minutes
/// sent are minutes of the core session, to the cent, their high and low bounding their open and
/// close, each once; the daily bars sent after them are their roll-up.
pub fn import_minutes(data: &[u8]) {
    let format = match Format::detect(data) {
        Some(format @ Format::Minutes(_)) => format,
        _ => Format::Minutes(minutes::Layout::Signet),
    };
    let Some(store) = import(data, format) else {
        return;
    };
    let (minutes, bars) = std::mem::take(&mut *store.minutes.lock().expect("not poisoned"));
    // (symbol, day) → (first minute, last minute, daily bar)
    let mut days: BTreeMap<(String, i32), (u16, u16, Bar)> = BTreeMap::new();
    let mut seen = HashSet::new();
    for SymbolMinute { symbol, day, bar: m } in minutes {
        assert!(seen.insert((symbol.clone(), day, m.minute)), "a minute sent twice");
        assert!(
            CORE_OPEN + 60 * i64::from(m.minute) < core_close(day),
            "{symbol} {day} {m:?}"
        );
        let prices = [m.open, m.high, m.low, m.close];
        assert!(prices.iter().all(|&p| p > 0 && p % 10_000 == 0), "{m:?}");
        assert!(m.low <= m.open.min(m.close) && m.high >= m.open.max(m.close), "{m:?}");
        let day_bar = Bar {
            day,
            open: m.open,
            high: m.high,
            low: m.low,
            close: m.close,
            volume: m.volume,
            adj_close: None,
        };
        match days.entry((symbol, day)) {
            std::collections::btree_map::Entry::Vacant(entry) => {
                entry.insert((m.minute, m.minute, day_bar));
            }
            std::collections::btree_map::Entry::Occupied(mut entry) => {
                let (first, last, bar) = entry.get_mut();
                if m.minute < *first {
                    (*first, bar.open) = (m.minute, m.open);
                }
                if m.minute > *last {
                    (*last, bar.close) = (m.minute, m.close);
                }
                bar.high = bar.high.max(m.high);
                bar.low = bar.low.min(m.low);
                bar.volume += m.volume;
            }
        }
    }
    let rollups: Vec<SymbolBar> = days
        .into_iter()
        .map(|((symbol, _), (_, _, bar))| SymbolBar { symbol, bar })
        .collect();
    assert_eq!(bars, rollups, "the daily bars are the minutes' roll-up");
}

/// Input: signet's sector CSV.
pub fn import_sectors(data: &[u8]) {
    import(data, Format::Sectors);
}

/// Input: signet's fundamentals JSON Lines.
pub fn import_fundamentals(data: &[u8]) {
    import(data, Format::Fundamentals);
}

/// Input: SEC XBRL companyfacts JSON.
pub fn import_companyfacts(data: &[u8]) {
    import(data, Format::CompanyFacts);
}

/// Detects the layout (which must not panic), then imports `data` as `format` into a store that
/// only counts what it is sent; the store, when the import succeeded. The parsers are private to
/// signet-import: `import_file` is the way in, so the bytes go through a scratch file.
fn import(data: &[u8], format: Format) -> Option<Arc<Counting>> {
    let _ = Format::detect(data);

    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "signet-fuzz-{}-{}.dat",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _remove = Scratch(path.clone());
    std::fs::write(&path, data).expect("writing the scratch file");

    let store = Arc::new(Counting::default());
    let options = ImportOptions {
        format: Some(format),
        symbol: Some("FUZZ".to_owned()),
    };
    let result = RUNTIME.with(|runtime| runtime.block_on(import_file(store.clone(), &path, &options, Arc::default())));
    match result {
        Ok(summary) => {
            assert_eq!(summary.format, format.name());
            // Every row read is either sent to the store or skipped.
            let items = store.items.load(Ordering::Relaxed);
            assert_eq!(items + summary.skipped, summary.rows, "{summary:?}");
            Some(store)
        }
        // The parser runs on a blocking task: a panic there comes back as a join error.
        Err(ImportError::File { problem, .. }) => {
            assert!(!problem.contains("panicked"), "{problem}");
            None
        }
        Err(_) => None,
    }
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a tokio runtime");
}

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A store that drains an import, counting the rows it is sent; it commits nothing.
#[derive(Default)]
struct Counting {
    items: AtomicU64,
    /// What a file of minutes sent: its minutes, and the daily bars rolled up from them (which
    /// are no rows of the file, and not counted).
    minutes: Mutex<(Vec<SymbolMinute>, Vec<SymbolBar>)>,
}

#[async_trait::async_trait]
impl MarketDataStore for Counting {
    async fn import(
        &self,
        mut messages: tokio::sync::mpsc::Receiver<ImportMessage>,
    ) -> Result<ImportCounts, StoreError> {
        while let Some(message) = messages.recv().await {
            let chunk = match message {
                ImportMessage::Commit => return Ok(ImportCounts::default()),
                ImportMessage::Chunk(chunk) => chunk,
            };
            let items = match chunk {
                Chunk::Instruments(items) => items.len(),
                Chunk::Bars { bars, .. } => {
                    let mut minutes = self.minutes.lock().expect("not poisoned");
                    if minutes.0.is_empty() {
                        bars.len()
                    } else {
                        minutes.1.extend(bars);
                        0
                    }
                }
                Chunk::Minutes(items) => {
                    let n = items.len();
                    self.minutes.lock().expect("not poisoned").0.extend(items);
                    n
                }
                Chunk::Actions(items) => items.len(),
                Chunk::Facts(items) => items.len(),
                Chunk::Records(items) => {
                    // What a store writes is the payload, and it must read back as the record.
                    for item in &items {
                        let record = &item.record;
                        let payload = record.payload();
                        assert_eq!(
                            Record::from_payload(record.data_set(), &payload).as_ref(),
                            Ok(record),
                            "{payload}"
                        );
                    }
                    items.len()
                }
                Chunk::Reported { .. } => 0,
            };
            self.items.fetch_add(items as u64, Ordering::Relaxed);
        }
        Err(StoreError::Aborted)
    }

    async fn market_data_status(&self) -> Result<MarketDataStatus, StoreError> {
        unreachable!("an import only imports")
    }
    async fn instrument(&self, _: &str) -> Result<Option<Instrument>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn instruments(&self) -> Result<Vec<Instrument>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn instrument_page(&self, _: &InstrumentQuery) -> Result<Vec<Instrument>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn closes_before(&self, _: i32) -> Result<HashMap<i64, i64>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn bars_between(&self, _: i32, _: i32) -> Result<Vec<(i64, Bar)>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn listings(&self) -> Result<Vec<Listing>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn daily_bars(&self, _: i64, _: i32, _: i32) -> Result<Vec<Bar>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn minute_bars(&self, _: i64, _: i32) -> Result<Vec<MinuteBar>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn minutes_on(&self, _: i32) -> Result<Vec<(i64, Vec<MinuteBar>)>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn corporate_actions(&self, _: i64) -> Result<Vec<CorporateAction>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn splits_on(&self, _: i32) -> Result<Vec<(i64, rust_decimal::Decimal)>, StoreError> {
        unreachable!("an import only imports")
    }
    async fn facts(&self, _: &str, _: &str) -> Result<Vec<Fact>, StoreError> {
        unreachable!("an import only imports")
    }
}
