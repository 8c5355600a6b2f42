//! One-minute bars in four CSV layouts, kept for the days' core sessions, and the daily bars
//! they roll up into.
//!
//! **Timestamps** give a minute's start. An integer is a time since the Unix epoch whose unit
//! its magnitude tells: below 10^11 seconds, below 10^14 milliseconds, below 10^17
//! microseconds, nanoseconds above (so any moment from 1973 on reads right). Text is
//! `YYYY-MM-DD[T ]HH:MM[:SS[.fff]]`, followed by `Z` or an offset `±HH:MM` or `±HHMM` (then
//! the time is read in UTC less that offset) or by nothing: a time without an offset is New
//! York's local time, the exchange's. A timestamp that is not a whole minute is an error. Only
//! the minutes of the core session are kept (09:30 to 16:00 New York, to 13:00 on an
//! early-close day, as [`signet_domain::simulator::clock`] reckons them): the simulator draws
//! the thin tape around it, so the others are read, checked and counted as skipped. So are rows
//! without prices (each empty, `null` or `NaN`).
//!
//! **Prices** are kept to the cent, rounded half away from zero from the decimal text (as the
//! simulator quotes them, and as [`MinuteBar`] holds them): a price that is not positive is an
//! error, and so is a bar whose high and low do not bound its open and close. A minute with a
//! price that rounds to 0.00 (a sub-penny stock's, which a market quoted in cents cannot show)
//! is skipped and counted, as a whole day of them leaves no bar. A minute that appears twice for one symbol and day is an
//! error.
//!
//! **Daily bars**: after its minutes, a file sends the daily bar of each symbol and day it
//! holds minutes of, rolled up from them (the first minute's open, the last one's close, the
//! highest high, the lowest low, the volumes' sum; no adjusted close), so that a day's bar
//! and the minutes the simulator replays of it agree. They replace the bar of that day that
//! another import stored (a daily file's, with its adjusted close); the corporate actions
//! derived before are kept. A day of which the file holds only some minutes gets the roll-up
//! of those. The roll-ups are held until the end of the file, one per symbol and day: a file of
//! more than [`MAX_SYMBOL_DAYS`] is refused (split it by date or by symbol).

use std::collections::HashMap;
use std::io::BufRead;

use rust_decimal::{Decimal, RoundingStrategy};
use signet_domain::marketdata::units::{format_day, parse_day, to_micros};
use signet_domain::marketdata::{Bar, MinuteBar, SymbolBar, SymbolMinute};
use signet_domain::simulator::clock::{CORE_OPEN, NewYork, core_close};

use super::ohlcv::{check_range, volume_of};
use super::tickers::symbol as ticker;
use super::{Batcher, Chunk, Columns, Emitter, ParseStats, RowError, csv_error, field, line_of};

/// The layouts, recognised by their header (column names in any case and order; extra columns
/// are ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// signet's own: `symbol,timestamp,open,high,low,close,volume`, many symbols per file.
    Signet,
    /// Polygon.io (Massive) flat files of minute aggregates:
    /// `ticker,volume,open,close,high,low,window_start,transactions`, many symbols per file,
    /// `window_start` in nanoseconds since the epoch.
    Polygon,
    /// A yfinance one-minute download written with `to_csv`:
    /// `Datetime,Open,High,Low,Close,Adj Close,Volume` (times like `2024-01-02
    /// 09:30:00-05:00`), one symbol per file, with a single header row.
    Yfinance,
    /// Alpaca's bars export: `timestamp,open,high,low,close,volume,trade_count,vwap` (times like
    /// `2024-01-02T14:30:00Z`), one symbol per file.
    Alpaca,
}

/// Symbol-days a file may hold: their roll-ups stay in memory until its end (about 100 bytes
/// each).
pub const MAX_SYMBOL_DAYS: usize = 1_000_000;

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Signet => "minutes-signet",
            Layout::Polygon => "minutes-polygon",
            Layout::Yfinance => "minutes-yfinance",
            Layout::Alpaca => "minutes-alpaca",
        }
    }

    /// From lower-cased header columns. A header with a `date` column is a daily layout's
    /// ([`super::ohlcv::Layout`]), never one of these.
    pub fn detect(columns: &[&str]) -> Option<Layout> {
        let has = |name: &str| columns.contains(&name);
        let ohlcv = ["open", "high", "low", "close", "volume"].into_iter().all(has);
        if !ohlcv || has("date") {
            return None;
        }
        let named = has("symbol") || has("ticker");
        if has("symbol") && has("timestamp") {
            Some(Layout::Signet)
        } else if has("ticker") && has("window_start") {
            Some(Layout::Polygon)
        } else if !named && has("datetime") {
            Some(Layout::Yfinance)
        } else if !named && has("timestamp") {
            Some(Layout::Alpaca)
        } else {
            None
        }
    }

    /// Whether the symbol comes from outside the file (`--symbol` or the file's name).
    pub fn single_symbol(self) -> bool {
        matches!(self, Layout::Yfinance | Layout::Alpaca)
    }

    /// The columns of the symbol (none in a single-symbol layout) and of the time.
    fn key_columns(self) -> (Option<&'static str>, &'static str) {
        match self {
            Layout::Signet => (Some("symbol"), "timestamp"),
            Layout::Polygon => (Some("ticker"), "window_start"),
            Layout::Yfinance => (None, "datetime"),
            Layout::Alpaca => (None, "timestamp"),
        }
    }
}

/// Parses minutes, then sends the daily bars rolled up from them; `symbol` is the symbol of a
/// single-symbol layout. Rows outside the core session, and rows without prices (empty, `null`
/// or `NaN`, as pandas writes a minute without trades), are skipped and counted.
pub fn parse(
    reader: impl BufRead,
    layout: Layout,
    symbol: Option<&str>,
    emitter: &Emitter,
) -> Result<ParseStats, RowError> {
    let mut csv = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
    let columns = Columns::new(csv.headers().map_err(csv_error)?);
    let (symbol_name, time_name) = layout.key_columns();
    let symbol_column = match symbol_name {
        Some(name) => Some((columns.require(name)?, name)),
        None => None,
    };
    let fixed_symbol = match (symbol_column, symbol) {
        (None, Some(s)) => Some(ticker(s, 0, 0)?),
        (None, None) => return Err(RowError::new(0, 0, "symbol", "a single-symbol layout needs a symbol")),
        (Some(_), _) => None,
    };
    let time = columns.require(time_name)?;
    let prices = [
        (columns.require("open")?, "open"),
        (columns.require("high")?, "high"),
        (columns.require("low")?, "low"),
        (columns.require("close")?, "close"),
    ];
    let volume = columns.require("volume")?;

    let mut stats = ParseStats::default();
    let mut days = Days::new(MAX_SYMBOL_DAYS);
    let mut out = Batcher::new(emitter, Chunk::Minutes);
    for record in csv.records() {
        let record = record.map_err(csv_error)?;
        let line = line_of(&record);
        stats.rows += 1;
        let symbol = match (&fixed_symbol, symbol_column) {
            (Some(s), _) => s.clone(),
            (None, Some((i, name))) => ticker(field(&record, i, name)?, line, i)?,
            (None, None) => unreachable!("a single-symbol layout has a symbol"),
        };
        let missing = |&(i, _): &(usize, &str)| {
            record
                .get(i)
                .map(str::trim)
                .is_none_or(|v| v.is_empty() || v.eq_ignore_ascii_case("null") || v.eq_ignore_ascii_case("nan"))
        };
        if prices.iter().all(missing) {
            stats.skipped += 1;
            continue;
        }
        let time_text = field(&record, time, time_name)?;
        let at = parse_time(time_text).map_err(|e| RowError::new(line, time + 1, time_name, e.message(time_text)))?;
        let [open, high, low, close] = prices.map(|(index, name)| {
            let text = field(&record, index, name)?;
            match text.parse::<Decimal>() {
                Ok(price) if price > Decimal::ZERO => Ok((price, index, name)),
                _ => Err(RowError::new(
                    line,
                    index + 1,
                    name,
                    format!("{text:?} is not a positive price"),
                )),
            }
        });
        let [open, high, low, close] = [open?, high?, low?, close?];
        check_range(line, high.1, [open.0, high.0, low.0, close.0])?;
        let volume_value = volume_of(&record, line, volume)?;
        let Some(minute) = core_minute(at) else {
            stats.skipped += 1;
            continue;
        };
        if [open, high, low, close]
            .iter()
            .any(|&(price, ..)| to_cent(price) == Some(0))
        {
            stats.skipped += 1;
            continue;
        }
        let cents = |(price, index, name): (Decimal, usize, &str)| match to_cent(price) {
            Some(micros) => Ok(micros),
            None => Err(RowError::new(
                line,
                index + 1,
                name,
                format!("{price} is too large a price"),
            )),
        };
        let bar = MinuteBar {
            minute,
            open: cents(open)?,
            high: cents(high)?,
            low: cents(low)?,
            close: cents(close)?,
            volume: volume_value,
        };
        days.add(&symbol, at.day, bar).map_err(|problem| {
            let (column, name) = match problem {
                Problem::Twice => (time + 1, time_name),
                Problem::TooManyDays => (0, ""),
                Problem::Volume => (volume + 1, "volume"),
            };
            RowError::new(line, column, name, problem.message(&symbol, at.day, minute))
        })?;
        out.push(SymbolMinute {
            symbol,
            day: at.day,
            bar,
        })?;
    }
    out.finish()?;
    let mut bars = Batcher::new(emitter, |bars| Chunk::Bars { bars, generated: false });
    for bar in days.bars() {
        bars.push(bar)?;
    }
    bars.finish()?;
    Ok(stats)
}

/// The minute of the core session that starts at `at`, if it is one.
fn core_minute(at: NewYork) -> Option<u16> {
    if (CORE_OPEN..core_close(at.day)).contains(&at.second) {
        u16::try_from((at.second - CORE_OPEN) / 60).ok()
    } else {
        None
    }
}

/// In millionths, rounded to the cent half away from zero.
fn to_cent(price: Decimal) -> Option<i64> {
    to_micros(price.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero))
}

/// What is wrong with a timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeError {
    /// Neither an integer nor `YYYY-MM-DD[T ]HH:MM[:SS[.fff]][Z|±HH:MM|±HHMM]`.
    Unreadable,
    /// Seconds or a fraction of one: a bar's timestamp is its minute's start.
    NotWholeMinute,
}

impl TimeError {
    fn message(self, text: &str) -> String {
        match self {
            TimeError::Unreadable => format!(
                "{text:?} is not a timestamp (seconds, milliseconds, microseconds or nanoseconds \
                 since the epoch, or YYYY-MM-DD HH:MM[:SS] with Z, an offset or New York time)"
            ),
            TimeError::NotWholeMinute => format!("{text:?} is not the start of a minute"),
        }
    }
}

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 86_400_000;

/// The New York moment of a timestamp (see the module's documentation), a whole minute.
fn parse_time(text: &str) -> Result<NewYork, TimeError> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        let value: i64 = text.parse().map_err(|_| TimeError::Unreadable)?;
        // (milliseconds, what is left below a millisecond)
        let (ms, below) = match value {
            v if v < 100_000_000_000 => (v * 1000, 0),
            v if v < 100_000_000_000_000 => (v, 0),
            v if v < 100_000_000_000_000_000 => (v / 1000, v % 1000),
            v => (v / 1_000_000, v % 1_000_000),
        };
        if below != 0 || ms % MINUTE_MS != 0 {
            return Err(TimeError::NotWholeMinute);
        }
        return Ok(NewYork::of(ms));
    }
    let b = text.as_bytes();
    if b.len() < 16 || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' {
        return Err(TimeError::Unreadable);
    }
    let day = parse_day(&text[..10]).ok_or(TimeError::Unreadable)?;
    let (hour, minute) = (
        digits(b[11], b[12]).ok_or(TimeError::Unreadable)?,
        digits(b[14], b[15]).ok_or(TimeError::Unreadable)?,
    );
    let mut rest = &text[16..];
    let mut whole = true;
    if let Some(after) = rest.strip_prefix(':') {
        let second = match after.as_bytes() {
            [x, y, ..] => digits(*x, *y).ok_or(TimeError::Unreadable)?,
            _ => return Err(TimeError::Unreadable),
        };
        whole &= second == 0;
        rest = &after[2..];
        if let Some(fraction) = rest.strip_prefix('.') {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return Err(TimeError::Unreadable);
            }
            whole &= fraction[..digits].bytes().all(|d| d == b'0');
            rest = &fraction[digits..];
        }
    }
    let offset_minutes = match rest.as_bytes() {
        [] => None,
        [b'Z' | b'z'] => Some(0),
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] | [sign @ (b'+' | b'-'), h1, h2, m1, m2] => {
            let (h, m) = (
                digits(*h1, *h2).ok_or(TimeError::Unreadable)?,
                digits(*m1, *m2).ok_or(TimeError::Unreadable)?,
            );
            if h > 23 || m > 59 {
                return Err(TimeError::Unreadable);
            }
            Some(if *sign == b'-' { -(h * 60 + m) } else { h * 60 + m })
        }
        _ => return Err(TimeError::Unreadable),
    };
    if hour > 23 || minute > 59 {
        return Err(TimeError::Unreadable);
    }
    if !whole {
        return Err(TimeError::NotWholeMinute);
    }
    let second = hour * 3600 + minute * 60;
    Ok(match offset_minutes {
        None => NewYork { day, second },
        Some(offset) => NewYork::of(i64::from(day) * DAY_MS + second * 1000 - offset * MINUTE_MS),
    })
}

/// Two decimal digits' value.
fn digits(tens: u8, ones: u8) -> Option<i64> {
    (tens.is_ascii_digit() && ones.is_ascii_digit()).then(|| i64::from((tens - b'0') * 10 + (ones - b'0')))
}

/// Why a minute cannot be added to its day's roll-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Problem {
    /// The symbol's day has this minute already.
    Twice,
    /// The file holds more than [`MAX_SYMBOL_DAYS`].
    TooManyDays,
    /// The day's volume does not fit.
    Volume,
}

impl Problem {
    fn message(self, symbol: &str, day: i32, minute: u16) -> String {
        match self {
            Problem::Twice => {
                let start = CORE_OPEN / 60 + i64::from(minute);
                format!(
                    "a second bar of {symbol} for {} {:02}:{:02} New York",
                    format_day(day),
                    start / 60,
                    start % 60
                )
            }
            Problem::TooManyDays => format!(
                "more than {MAX_SYMBOL_DAYS} symbol-days (days of one symbol) in one file: split it by date or by symbol"
            ),
            Problem::Volume => format!("the volume of {symbol} on {} does not fit", format_day(day)),
        }
    }
}

/// The daily bar of a symbol's day so far, and which of its minutes were seen.
#[derive(Debug, Clone, Copy)]
struct Rollup {
    /// Bit `m % 64` of word `m / 64` for minute `m` (390 minutes at most).
    seen: [u64; 7],
    first: u16,
    open: i64,
    last: u16,
    close: i64,
    high: i64,
    low: i64,
    volume: i64,
}

/// The roll-ups of a file, by symbol (numbered in order of appearance) and day.
#[derive(Debug)]
struct Days {
    symbols: HashMap<String, usize>,
    names: Vec<String>,
    rollups: HashMap<(usize, i32), Rollup>,
    /// How many symbol-days it takes: [`MAX_SYMBOL_DAYS`] (fewer in tests).
    limit: usize,
}

impl Days {
    fn new(limit: usize) -> Self {
        Days {
            symbols: HashMap::new(),
            names: Vec::new(),
            rollups: HashMap::new(),
            limit,
        }
    }

    fn add(&mut self, symbol: &str, day: i32, bar: MinuteBar) -> Result<(), Problem> {
        let number = match self.symbols.get(symbol) {
            Some(&n) => n,
            None => {
                self.symbols.insert(symbol.to_owned(), self.names.len());
                self.names.push(symbol.to_owned());
                self.names.len() - 1
            }
        };
        let (word, bit) = (usize::from(bar.minute / 64), 1u64 << (bar.minute % 64));
        let room = self.rollups.len() < self.limit;
        match self.rollups.entry((number, day)) {
            std::collections::hash_map::Entry::Vacant(_) if !room => Err(Problem::TooManyDays),
            std::collections::hash_map::Entry::Vacant(entry) => {
                let mut seen = [0; 7];
                seen[word] = bit;
                entry.insert(Rollup {
                    seen,
                    first: bar.minute,
                    open: bar.open,
                    last: bar.minute,
                    close: bar.close,
                    high: bar.high,
                    low: bar.low,
                    volume: bar.volume,
                });
                Ok(())
            }
            std::collections::hash_map::Entry::Occupied(mut entry) => {
                let r = entry.get_mut();
                if r.seen[word] & bit != 0 {
                    return Err(Problem::Twice);
                }
                r.volume = r.volume.checked_add(bar.volume).ok_or(Problem::Volume)?;
                r.seen[word] |= bit;
                if bar.minute < r.first {
                    (r.first, r.open) = (bar.minute, bar.open);
                }
                if bar.minute > r.last {
                    (r.last, r.close) = (bar.minute, bar.close);
                }
                r.high = r.high.max(bar.high);
                r.low = r.low.min(bar.low);
                Ok(())
            }
        }
    }

    /// The daily bars, by symbol then day.
    fn bars(self) -> impl Iterator<Item = SymbolBar> {
        let mut rollups: Vec<((usize, i32), Rollup)> = self.rollups.into_iter().collect();
        let names = self.names;
        rollups.sort_unstable_by(|((a, day_a), _), ((b, day_b), _)| names[*a].cmp(&names[*b]).then(day_a.cmp(day_b)));
        rollups.into_iter().map(move |((number, day), r)| SymbolBar {
            symbol: names[number].clone(),
            bar: Bar {
                day,
                open: r.open,
                high: r.high,
                low: r.low,
                close: r.close,
                volume: r.volume,
                adj_close: None,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::sync::mpsc;

    use super::*;
    use crate::ImportMessage;

    /// What a file sends: its stats, minutes and daily bars, or its row error.
    type Sent = (ParseStats, Vec<SymbolMinute>, Vec<SymbolBar>);

    fn run(layout: Layout, symbol: Option<&str>, text: &str) -> Result<Sent, RowError> {
        let (tx, mut rx) = mpsc::channel(1024);
        let emitter = Emitter {
            tx,
            progress: Arc::default(),
        };
        let stats = parse(text.as_bytes(), layout, symbol, &emitter);
        drop(emitter);
        let (mut minutes, mut bars) = (Vec::new(), Vec::new());
        let mut bars_seen = false;
        while let Ok(message) = rx.try_recv() {
            match message {
                ImportMessage::Chunk(Chunk::Minutes(m)) => {
                    assert!(!bars_seen, "every minute before the first bar");
                    minutes.extend(m);
                }
                ImportMessage::Chunk(Chunk::Bars { bars: b, generated }) => {
                    assert!(!generated);
                    bars_seen = true;
                    bars.extend(b);
                }
                other => panic!("{other:?}"),
            }
        }
        stats.map(|stats| (stats, minutes, bars))
    }

    fn minute(symbol: &str, day: &str, minute: u16, [open, high, low, close]: [i64; 4], volume: i64) -> SymbolMinute {
        SymbolMinute {
            symbol: symbol.into(),
            day: parse_day(day).unwrap(),
            bar: MinuteBar {
                minute,
                open: open * 10_000,
                high: high * 10_000,
                low: low * 10_000,
                close: close * 10_000,
                volume,
            },
        }
    }

    fn daily(symbol: &str, day: &str, [open, high, low, close]: [i64; 4], volume: i64) -> SymbolBar {
        SymbolBar {
            symbol: symbol.into(),
            bar: Bar {
                day: parse_day(day).unwrap(),
                open: open * 10_000,
                high: high * 10_000,
                low: low * 10_000,
                close: close * 10_000,
                volume,
                adj_close: None,
            },
        }
    }

    #[test]
    fn signets_layout_keeps_the_core_session_of_many_symbols() {
        // Prices in cents below. Out of order, with an extra column, a pre-market and an
        // after-hours row, times in New York's and in UTC, and a price to round.
        let text = "\
Volume,Symbol,Timestamp,Open,High,Low,Close,VWAP
100,aapl,2024-01-02 09:31,185.10,185.30,185.00,185.20,1
50,AAPL,2024-01-02 09:29,184.00,184.00,184.00,184.00,1
200,AAPL,2024-01-02T14:30:00Z,185.005,185.40,184.90,185.10,1
300,MSFT,1704229140,370.00,370.50,369.50,370.25,1
70,MSFT,2024-01-02 16:00:00,371.00,371.00,371.00,371.00,1
";
        let (stats, minutes, bars) = run(Layout::Signet, None, text).unwrap();
        assert_eq!((stats.rows, stats.skipped), (5, 2));
        assert_eq!(
            minutes,
            [
                minute("AAPL", "2024-01-02", 1, [18510, 18530, 18500, 18520], 100),
                minute("AAPL", "2024-01-02", 0, [18501, 18540, 18490, 18510], 200),
                minute("MSFT", "2024-01-02", 389, [37000, 37050, 36950, 37025], 300),
            ]
        );
        assert_eq!(
            bars,
            [
                daily("AAPL", "2024-01-02", [18501, 18540, 18490, 18520], 300),
                daily("MSFT", "2024-01-02", [37000, 37050, 36950, 37025], 300),
            ]
        );
    }

    #[test]
    fn polygon_flat_files_in_nanoseconds() {
        // 2024-07-01 (EDT): 13:30 UTC is the open; 12:00 UTC is pre-market.
        let text = "\
ticker,volume,open,close,high,low,window_start,transactions
A,1200,130.1,130.2,130.25,130.05,1719840600000000000,12
A,800,130.2,130.0,130.2,129.95,1719840660000000000,9
AA,5000,40.1,40.3,40.35,40.1,1719840600000000000,30
AA,10,40,40,40,40,1719835200000000000,1
";
        let (stats, minutes, bars) = run(Layout::Polygon, None, text).unwrap();
        assert_eq!((stats.rows, stats.skipped), (4, 1));
        assert_eq!(
            minutes,
            [
                minute("A", "2024-07-01", 0, [13010, 13025, 13005, 13020], 1200),
                minute("A", "2024-07-01", 1, [13020, 13020, 12995, 13000], 800),
                minute("AA", "2024-07-01", 0, [4010, 4035, 4010, 4030], 5000),
            ]
        );
        assert_eq!(
            bars,
            [
                daily("A", "2024-07-01", [13010, 13025, 12995, 13000], 2000),
                daily("AA", "2024-07-01", [4010, 4035, 4010, 4030], 5000),
            ]
        );
    }

    #[test]
    fn yfinance_downloads_take_the_symbol_given() {
        let text = "\
Datetime,Open,High,Low,Close,Adj Close,Volume
2024-01-02 09:30:00-05:00,187.14999389648438,188.44000244140625,187.0,188.3699951171875,188.3699951171875,2618335
2024-01-02 09:31:00-05:00,188.3800048828125,188.5,187.92999267578125,188.0,188.0,350211
2024-01-03 09:30:00-05:00,184.22000122070312,184.88999938964844,184.11000061035156,184.5,184.5,1000000
";
        let (stats, minutes, bars) = run(Layout::Yfinance, Some("aapl"), text).unwrap();
        assert_eq!((stats.rows, stats.skipped), (3, 0));
        assert_eq!(
            minutes,
            [
                minute("AAPL", "2024-01-02", 0, [18715, 18844, 18700, 18837], 2_618_335),
                minute("AAPL", "2024-01-02", 1, [18838, 18850, 18793, 18800], 350_211),
                minute("AAPL", "2024-01-03", 0, [18422, 18489, 18411, 18450], 1_000_000),
            ]
        );
        assert_eq!(
            bars,
            [
                daily("AAPL", "2024-01-02", [18715, 18850, 18700, 18800], 2_968_546),
                daily("AAPL", "2024-01-03", [18422, 18489, 18411, 18450], 1_000_000),
            ]
        );
    }

    #[test]
    fn alpaca_exports_end_early_on_an_early_close_day() {
        // 2024-11-29, the day after Thanksgiving, closes at 13:00 New York (18:00 UTC).
        let text = "\
timestamp,open,high,low,close,volume,trade_count,vwap
2024-11-29T17:59:00Z,10.00,10.10,9.90,10.05,500,5,10.01
2024-11-29T18:00:00Z,10.05,10.05,10.05,10.05,100,1,10.05
";
        let (stats, minutes, bars) = run(Layout::Alpaca, Some("XYZ"), text).unwrap();
        assert_eq!((stats.rows, stats.skipped), (2, 1));
        assert_eq!(
            minutes,
            [minute("XYZ", "2024-11-29", 209, [1000, 1010, 990, 1005], 500)]
        );
        assert_eq!(bars, [daily("XYZ", "2024-11-29", [1000, 1010, 990, 1005], 500)]);
    }

    #[test]
    fn bad_rows_are_named_by_line_and_column() {
        let header = "symbol,timestamp,open,high,low,close,volume\n";
        let good = "AAPL,2024-01-02 09:30,10,11,9,10.5,100\n";
        let cases = [
            (
                "AAPL,2024-01-02 09:30,10,11,9,10.5,7\n",
                3,
                2,
                "timestamp",
                "a second bar",
            ),
            (
                "AAPL,2024-01-02 09:31:30,10,11,9,10.5,7\n",
                3,
                2,
                "timestamp",
                "start of a minute",
            ),
            (
                "AAPL,Jan 2 2024 09:31,10,11,9,10.5,7\n",
                3,
                2,
                "timestamp",
                "not a timestamp",
            ),
            ("AAPL,2024-01-02 09:31,10,10.4,9,10.5,7\n", 3, 4, "high", "do not bound"),
            ("AAPL,2024-01-02 09:31,0,11,9,10.5,7\n", 3, 3, "open", "positive"),
            ("AAPL,2024-01-02 09:31,10,11,-9,10.5,7\n", 3, 5, "low", "positive"),
            (
                "AAPL,2024-01-02 09:31,10,11,9,10.5,1.5\n",
                3,
                7,
                "volume",
                "share count",
            ),
            ("A A,2024-01-02 09:31,10,11,9,10.5,7\n", 3, 1, "symbol", "ticker"),
        ];
        for (row, line, column, field, problem) in cases {
            let error = run(Layout::Signet, None, &format!("{header}{good}{row}")).unwrap_err();
            assert_eq!(
                (error.line, error.column, error.field.as_str()),
                (line, column, field),
                "{row}"
            );
            assert!(error.problem.contains(problem), "{row}: {}", error.problem);
        }
        // A price that rounds to nothing, outside the core session or in it, is no error: a
        // sub-penny minute is skipped (a close of 0.006 rounds to 0.01 and is kept).
        let premarket = "AAPL,2024-01-02 08:00,0.004,0.004,0.004,0.004,7\n";
        let (stats, ..) = run(Layout::Signet, None, &format!("{header}{good}{premarket}")).unwrap();
        assert_eq!((stats.rows, stats.skipped), (2, 1));
        let penny =
            "AAPL,2024-01-02 09:31,0.0061,0.0065,0.0042,0.006,7\nAAPL,2024-01-02 09:32,0.006,0.0065,0.006,0.0061,7\n";
        let (stats, minutes, _) = run(Layout::Signet, None, &format!("{header}{good}{penny}")).unwrap();
        assert_eq!((stats.rows, stats.skipped, minutes.len()), (3, 1, 2));
        assert_eq!(minutes[1].bar.open, 10_000, "0.006 kept as 0.01");
        // Nor is a row without prices.
        let empty = "AAPL,2024-01-02 09:31,,NaN,null,,\n";
        let (stats, minutes, _) = run(Layout::Signet, None, &format!("{header}{good}{empty}")).unwrap();
        assert_eq!((stats.rows, stats.skipped, minutes.len()), (2, 1, 1));
        // The same minute of another symbol or day is no duplicate.
        let others = "MSFT,2024-01-02 09:30,10,11,9,10.5,7\nAAPL,2024-01-03 09:30,10,11,9,10.5,7\n";
        assert!(run(Layout::Signet, None, &format!("{header}{good}{others}")).is_ok());
        let missing = run(Layout::Signet, None, "symbol,open,high,low,close,volume\n").unwrap_err();
        assert_eq!((missing.line, missing.field.as_str()), (1, "timestamp"));
        assert!(run(Layout::Alpaca, None, "timestamp,open,high,low,close,volume\n").is_err());
    }

    #[test]
    fn a_file_of_too_many_symbol_days_is_refused() {
        let bar = MinuteBar {
            minute: 0,
            open: 1,
            high: 1,
            low: 1,
            close: 1,
            volume: 1,
        };
        let mut days = Days::new(2);
        days.add("A", 1, bar).unwrap();
        days.add("A", 2, bar).unwrap();
        days.add("A", 2, MinuteBar { minute: 389, ..bar }).unwrap();
        assert_eq!(days.add("A", 2, bar), Err(Problem::Twice));
        assert_eq!(days.add("B", 1, bar), Err(Problem::TooManyDays));
        assert!(Problem::TooManyDays.message("B", 1, 0).contains("1000000 symbol-days"));
        let volume = MinuteBar {
            minute: 1,
            volume: i64::MAX,
            ..bar
        };
        assert_eq!(days.add("A", 1, volume), Err(Problem::Volume));
    }

    #[test]
    fn layouts_are_told_apart_by_their_headers() {
        let detect = |header: &str| {
            let header = header.to_ascii_lowercase();
            let columns: Vec<&str> = header.split(',').collect();
            Layout::detect(&columns)
        };
        assert_eq!(
            detect("symbol,timestamp,open,high,low,close,volume"),
            Some(Layout::Signet)
        );
        assert_eq!(
            detect("Symbol,Timestamp,Open,High,Low,Close,Volume,VWAP"),
            Some(Layout::Signet)
        );
        assert_eq!(
            detect("ticker,volume,open,close,high,low,window_start,transactions"),
            Some(Layout::Polygon)
        );
        assert_eq!(
            detect("Datetime,Open,High,Low,Close,Adj Close,Volume"),
            Some(Layout::Yfinance)
        );
        assert_eq!(
            detect("timestamp,open,high,low,close,volume,trade_count,vwap"),
            Some(Layout::Alpaca)
        );
        // The daily layouts, and files that are neither.
        assert_eq!(detect("Date,Open,High,Low,Close,Adj Close,Volume"), None);
        assert_eq!(detect("Ticker,Date,Open,High,Low,Close,Volume,Adj Close"), None);
        assert_eq!(detect("symbol,timestamp,open,high,low,close"), None);
        assert_eq!(detect("ticker,timestamp,open,high,low,close,volume"), None);
    }

    fn ny(day: &str, hour: i64, minute: i64) -> NewYork {
        NewYork {
            day: parse_day(day).unwrap(),
            second: hour * 3600 + minute * 60,
        }
    }

    #[test]
    fn timestamps_in_every_form() {
        // 2024-01-02 09:30 New York is 14:30 UTC (EST); 2024-07-01 09:30 is 13:30 UTC (EDT).
        let open = ny("2024-01-02", 9, 30);
        for text in [
            "1704205800",
            "1704205800000",
            "1704205800000000",
            "1704205800000000000",
            "2024-01-02T14:30:00Z",
            "2024-01-02T14:30Z",
            "2024-01-02 14:30:00.000z",
            "2024-01-02 09:30:00-05:00",
            "2024-01-02T09:30:00-0500",
            "2024-01-02T15:30:00+01:00",
            "2024-01-02 09:30",
            "2024-01-02 09:30:00",
            "2024-01-02T09:30:00.000000",
        ] {
            assert_eq!(parse_time(text), Ok(open), "{text}");
        }
        assert_eq!(parse_time("2024-07-01T13:30:00Z"), Ok(ny("2024-07-01", 9, 30)));
        assert_eq!(parse_time("2024-07-01 09:30:00-04:00"), Ok(ny("2024-07-01", 9, 30)));
        // A UTC time late in the day is the New York day before.
        assert_eq!(parse_time("2024-01-03T01:00:00Z"), Ok(ny("2024-01-02", 20, 0)));
        for text in [
            "1704205801",
            "1704205800001",
            "1704205800000000001",
            "2024-01-02 09:30:01",
            "2024-01-02T09:30:00.5Z",
        ] {
            assert_eq!(parse_time(text), Err(TimeError::NotWholeMinute), "{text}");
        }
        for text in [
            "",
            "-1704205800",
            "2024-01-02",
            "2024-01-02T9:30",
            "2024-01-02T09:30:00+5",
            "2024-01-02T09:30:00+05:00:00",
            "2024-01-02T09:30:00 EST",
            "2024-01-02T24:00",
            "2024-02-30T09:30",
            "2024-01-02T09:30:00.",
            "1.7e9",
        ] {
            assert_eq!(parse_time(text), Err(TimeError::Unreadable), "{text:?}");
        }
    }

    #[test]
    fn only_the_core_session_is_kept() {
        assert_eq!(core_minute(ny("2024-01-02", 9, 30)), Some(0));
        assert_eq!(core_minute(ny("2024-01-02", 15, 59)), Some(389));
        assert_eq!(core_minute(ny("2024-01-02", 9, 29)), None);
        assert_eq!(core_minute(ny("2024-01-02", 16, 0)), None);
        // The day after Thanksgiving closes at 13:00.
        assert_eq!(core_minute(ny("2024-11-29", 12, 59)), Some(209));
        assert_eq!(core_minute(ny("2024-11-29", 13, 0)), None);
    }

    #[test]
    fn prices_round_to_the_cent_half_away_from_zero() {
        let cent = |text: &str| to_cent(text.parse().unwrap());
        assert_eq!(cent("185.635"), Some(185_640_000));
        assert_eq!(cent("185.63499999"), Some(185_630_000));
        assert_eq!(cent("185.63999938964844"), Some(185_640_000));
        // Rounded once, from the text: not to 0.005000, then up.
        assert_eq!(cent("0.0049999999"), Some(0));
        assert_eq!(cent("12"), Some(12_000_000));
    }
}
