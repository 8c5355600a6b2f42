//! Importing public market data, and loading the demo dataset: what `signet data import` and
//! `signet serve --demo` run, and what the import fuzz targets reach. It needs a store
//! (`signet_store`) and the market-data rules (`signet_domain`), not the server.
//!
//! [`import_file`] reads files in public layouts into instruments, daily and minute bars,
//! corporate actions and facts. A file is parsed on a blocking thread while the store writes
//! what was parsed so far, all in one transaction: a bad file changes nothing, and the error
//! names the file, the line and the column. Importing a file twice changes nothing the second time (every write is an upsert
//! that skips equal rows).
//!
//! [`demo::ensure_loaded`] loads the demo dataset once per database: the files of `data/demo/`,
//! compiled in, through the same import, then what is generated from a fixed seed.

mod companyfacts;
pub mod demo;
mod fundamentals;
pub mod minutes;
mod nasdaq;
pub mod ohlcv;
mod sectors;
mod tickers;

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio::sync::mpsc;

pub use signet_domain::marketdata::import::{Chunk, ImportCounts, ImportMessage};
use signet_store::{MarketDataStore, StoreError};

/// The layouts `signet data import` reads, detected from the first bytes of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// SEC company tickers: `cik,ticker,exchange,name` (extra `gics_sector`, `indices` read too).
    SecTickers,
    /// Nasdaq symbol directory, `nasdaqlisted.txt`.
    NasdaqListed,
    /// Nasdaq symbol directory, `otherlisted.txt`.
    OtherListed,
    /// Daily prices in one of the CSV layouts of [`ohlcv::Layout`].
    Ohlcv(ohlcv::Layout),
    /// One-minute bars in one of the CSV layouts of [`minutes::Layout`].
    Minutes(minutes::Layout),
    /// SEC XBRL companyfacts JSON.
    CompanyFacts,
    /// signet's own layout: `symbol,sector[,industry]`.
    Sectors,
    /// signet's own fundamentals layout, JSON Lines (see [`signet_domain::marketdata::fundamentals::layout`]).
    Fundamentals,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::SecTickers => "sec-tickers",
            Format::NasdaqListed => "nasdaq-listed",
            Format::OtherListed => "nasdaq-other-listed",
            Format::Ohlcv(layout) => layout.name(),
            Format::Minutes(layout) => layout.name(),
            Format::CompanyFacts => "sec-companyfacts",
            Format::Sectors => "signet-sectors",
            Format::Fundamentals => "signet-fundamentals",
        }
    }

    /// Recognises a layout from the start of a file (its header line, or JSON).
    pub fn detect(start: &[u8]) -> Option<Format> {
        let text = String::from_utf8_lossy(&start[..start.len().min(4096)]);
        let text = text.trim_start_matches('\u{feff}').trim_start();
        if text.starts_with('{') {
            let first_line = text.lines().next().unwrap_or("");
            return Some(if first_line.contains("\"data_set\"") {
                Format::Fundamentals
            } else {
                Format::CompanyFacts
            });
        }
        let header = text.lines().next().unwrap_or("").trim().to_ascii_lowercase();
        if header.starts_with("symbol|security name|market category") {
            return Some(Format::NasdaqListed);
        }
        if header.starts_with("act symbol|security name|exchange") {
            return Some(Format::OtherListed);
        }
        let columns: Vec<&str> = header.split(',').map(str::trim).collect();
        if columns.starts_with(&["cik", "ticker", "exchange", "name"]) {
            return Some(Format::SecTickers);
        }
        if columns.starts_with(&["symbol", "sector"]) {
            return Some(Format::Sectors);
        }
        ohlcv::Layout::detect(&columns)
            .map(Format::Ohlcv)
            .or_else(|| minutes::Layout::detect(&columns).map(Format::Minutes))
    }
}

/// A value a parser could not accept: where it is and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    pub line: u64,
    pub column: usize,
    pub field: String,
    pub problem: String,
}

impl RowError {
    pub fn new(line: u64, column: usize, field: impl Into<String>, problem: impl Into<String>) -> Self {
        RowError {
            line,
            column,
            field: field.into(),
            problem: problem.into(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{file}: line {line}, column {column} ({field}): {problem}")]
    Row {
        file: String,
        line: u64,
        column: usize,
        field: String,
        problem: String,
    },
    #[error("{file}: {problem}")]
    File { file: String, problem: String },
    #[error("{file}: {source}")]
    Io { file: String, source: std::io::Error },
    #[error("writing to the database: {0}")]
    Store(#[from] StoreError),
}

#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The layout, when detection should not decide.
    pub format: Option<Format>,
    /// The symbol of a single-symbol price file (Yahoo, Stooq, yfinance and Alpaca minutes); by
    /// default from the file name.
    pub symbol: Option<String>,
}

/// The outcome of one file, as `--json` prints it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ImportSummary {
    pub file: String,
    pub format: &'static str,
    pub rows: u64,
    pub skipped: u64,
    pub instruments_changed: u64,
    pub bars_changed: u64,
    pub minutes_changed: u64,
    pub actions_changed: u64,
    pub facts_changed: u64,
    pub records_changed: u64,
    pub seconds: f64,
    pub rows_per_second: f64,
}

impl ImportSummary {
    /// Stored rows the import inserted or updated, all kinds together.
    pub fn changed(&self) -> u64 {
        self.instruments_changed
            + self.bars_changed
            + self.minutes_changed
            + self.actions_changed
            + self.facts_changed
            + self.records_changed
    }
}

/// What a parser read.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseStats {
    pub rows: u64,
    pub skipped: u64,
}

/// Rows per chunk: large enough to amortize the channel, small enough to keep memory flat.
const CHUNK_ROWS: usize = 4096;

/// How far an import is, for a progress bar: raw bytes read and rows parsed.
#[derive(Debug, Default)]
pub struct Progress {
    pub bytes: AtomicU64,
    pub rows: AtomicU64,
}

/// Sends chunks to the store.
pub struct Emitter {
    tx: mpsc::Sender<ImportMessage>,
    progress: Arc<Progress>,
}

impl Emitter {
    fn send(&self, chunk: Chunk) -> Result<(), RowError> {
        self.tx
            .blocking_send(ImportMessage::Chunk(chunk))
            .map_err(|_| RowError::new(0, 0, "", "the database stopped the import"))
    }
}

/// Collects parsed items and sends them in chunks of [`CHUNK_ROWS`].
pub(crate) struct Batcher<'e, T> {
    emitter: &'e Emitter,
    items: Vec<T>,
    wrap: fn(Vec<T>) -> Chunk,
}

impl<'e, T> Batcher<'e, T> {
    pub(crate) fn new(emitter: &'e Emitter, wrap: fn(Vec<T>) -> Chunk) -> Self {
        Batcher {
            emitter,
            items: Vec::with_capacity(CHUNK_ROWS),
            wrap,
        }
    }

    pub(crate) fn push(&mut self, item: T) -> Result<(), RowError> {
        self.items.push(item);
        self.emitter.progress.rows.fetch_add(1, Ordering::Relaxed);
        if self.items.len() == CHUNK_ROWS {
            self.emitter.send((self.wrap)(std::mem::replace(
                &mut self.items,
                Vec::with_capacity(CHUNK_ROWS),
            )))?;
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<(), RowError> {
        if self.items.is_empty() {
            Ok(())
        } else {
            self.emitter.send((self.wrap)(self.items))
        }
    }
}

/// Where an import reads from.
#[derive(Debug, Clone)]
pub enum Source {
    File(PathBuf),
    /// Bytes compiled into the binary (the demo dataset), with a name for messages.
    Embedded {
        name: &'static str,
        bytes: &'static [u8],
    },
}

impl Source {
    fn name(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Embedded { name, .. } => (*name).to_owned(),
        }
    }
}

/// Imports one file, reporting how far it is in `progress`.
pub async fn import_file(
    store: Arc<dyn MarketDataStore>,
    path: &Path,
    options: &ImportOptions,
    progress: Arc<Progress>,
) -> Result<ImportSummary, ImportError> {
    import(store, Source::File(path.to_owned()), options, progress).await
}

/// Imports one file or embedded file, reporting how far it is in `progress`.
pub async fn import(
    store: Arc<dyn MarketDataStore>,
    source: Source,
    options: &ImportOptions,
    progress: Arc<Progress>,
) -> Result<ImportSummary, ImportError> {
    let started = Instant::now();
    let file_name = source.name();
    let (tx, rx) = mpsc::channel(4);
    let writer = tokio::spawn(async move { store.import(rx).await });

    let parse = {
        let options = options.clone();
        let file_name = file_name.clone();
        tokio::task::spawn_blocking(move || parse_file(&source, &file_name, &options, progress, tx))
    };
    let parsed = parse.await.map_err(|e| ImportError::File {
        file: file_name.clone(),
        problem: e.to_string(),
    })?;
    let written = writer.await.map_err(|e| ImportError::File {
        file: file_name.clone(),
        problem: e.to_string(),
    })?;
    // A store that failed stops the parser too: its error is the cause, the parser's the effect.
    if let Err(e) = &written
        && !matches!(e, StoreError::Aborted)
    {
        return Err(ImportError::Store(e.clone()));
    }
    let (format, stats) = parsed?;
    let counts = written?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(ImportSummary {
        file: file_name,
        format: format.name(),
        rows: stats.rows,
        skipped: stats.skipped,
        instruments_changed: counts.instruments,
        bars_changed: counts.bars,
        minutes_changed: counts.minutes,
        actions_changed: counts.actions,
        facts_changed: counts.facts,
        records_changed: counts.records,
        seconds,
        rows_per_second: if seconds > 0.0 {
            stats.rows as f64 / seconds
        } else {
            0.0
        },
    })
}

/// Runs on a blocking thread: opens, detects, parses and streams; sends `Commit` only when the
/// whole file parsed.
fn parse_file(
    source: &Source,
    file_name: &str,
    options: &ImportOptions,
    progress: Arc<Progress>,
    tx: mpsc::Sender<ImportMessage>,
) -> Result<(Format, ParseStats), ImportError> {
    let io = |source| ImportError::Io {
        file: file_name.to_owned(),
        source,
    };
    let (reader, stacked) = unstack_yfinance(open(source, progress.clone()).map_err(io)?).map_err(io)?;
    let mut reader = reader;
    let stacked = match stacked {
        None => None,
        Some(Stacked::Ticker(ticker)) => Some(ticker),
        Some(Stacked::Several) => {
            return Err(ImportError::File {
                file: file_name.to_owned(),
                problem: "a yfinance download of several tickers: download (or save) one ticker per file".to_owned(),
            });
        }
    };
    let format = match options.format {
        Some(format) => format,
        None => Format::detect(reader.fill_buf().map_err(io)?).ok_or_else(|| ImportError::File {
            file: file_name.to_owned(),
            problem: "unknown layout: expected SEC company tickers, the Nasdaq symbol directory, daily prices \
                      (Quandl WIKI, Yahoo or Stooq CSV), one-minute bars (signet's, Polygon flat files, yfinance or \
                      Alpaca CSV), SEC companyfacts JSON, signet's sector CSV or signet's fundamentals JSON Lines"
                .to_owned(),
        })?,
    };
    let emitter = Emitter {
        tx: tx.clone(),
        progress,
    };
    // The lines of the file, which has two header rows more than the parser read.
    let line = |line: u64| if stacked.is_some() && line > 1 { line + 2 } else { line };
    let row_error = |e: RowError| ImportError::Row {
        file: file_name.to_owned(),
        line: line(e.line),
        column: e.column,
        field: e.field,
        problem: e.problem,
    };
    // The symbol of a single-symbol layout: given, or a yfinance download's, or from the file's
    // name.
    let symbol = |single: bool| {
        single.then(|| {
            options
                .symbol
                .clone()
                .or_else(|| stacked.clone())
                .unwrap_or_else(|| symbol_from_file_name(Path::new(file_name)))
        })
    };
    let stats = match format {
        Format::SecTickers => tickers::parse(reader, &emitter),
        Format::NasdaqListed => nasdaq::parse(reader, nasdaq::Directory::NasdaqListed, &emitter),
        Format::OtherListed => nasdaq::parse(reader, nasdaq::Directory::OtherListed, &emitter),
        Format::Sectors => sectors::parse(reader, &emitter),
        Format::CompanyFacts => companyfacts::parse(reader, &emitter),
        Format::Fundamentals => fundamentals::parse(reader, &emitter),
        Format::Ohlcv(layout) => ohlcv::parse(reader, layout, symbol(layout.single_symbol()).as_deref(), &emitter),
        Format::Minutes(layout) => minutes::parse(reader, layout, symbol(layout.single_symbol()).as_deref(), &emitter),
    }
    .map_err(row_error)?;
    tx.blocking_send(ImportMessage::Commit).map_err(|_| ImportError::File {
        file: file_name.to_owned(),
        problem: "the database stopped the import".into(),
    })?;
    Ok((format, stats))
}

/// yfinance (from 0.2.51) writes a download's columns as three header rows: the names, each
/// column's ticker, and the index's name (`Price,Close,High,Low,Open,Volume`,
/// `Ticker,AAPL,AAPL,AAPL,AAPL,AAPL`, `Datetime,,,,,`). Such a file is read as if its header were
/// one row (`Datetime,Close,High,Low,Open,Volume`, a layout [`Format::detect`] knows); with it
/// comes what its ticker row said.
fn unstack_yfinance(mut reader: Reader) -> std::io::Result<(Reader, Option<Stacked>)> {
    let start = reader.fill_buf()?;
    let text = String::from_utf8_lossy(&start[..start.len().min(4096)]).into_owned();
    let mut lines = text.trim_start_matches('\u{feff}').lines();
    let split = |line: &str| -> Vec<String> { line.split(',').map(|c| c.trim().to_owned()).collect() };
    let (Some(names), Some(tickers), Some(index)) = (lines.next(), lines.next(), lines.next()) else {
        return Ok((reader, None));
    };
    let (names, tickers, index) = (split(names), split(tickers), split(index));
    let stacked = names[0].eq_ignore_ascii_case("price")
        && tickers[0].eq_ignore_ascii_case("ticker")
        && tickers.len() == names.len()
        && names.len() > 1
        && index.iter().skip(1).all(String::is_empty);
    if !stacked {
        return Ok((reader, None));
    }
    let ticker = match &tickers[1] {
        t if !t.is_empty() && tickers[1..].iter().all(|o| o == t) => Stacked::Ticker(t.clone()),
        _ => Stacked::Several,
    };
    let header = format!("{},{}\n", index[0], names[1..].join(","));
    let mut dropped = String::new();
    for _ in 0..3 {
        reader.read_line(&mut dropped)?;
    }
    Ok((
        Box::new(std::io::Cursor::new(header.into_bytes()).chain(reader)),
        Some(ticker),
    ))
}

/// A file as read, decompressed.
type Reader = Box<dyn BufRead + Send>;

/// What a yfinance download's ticker row says: one ticker, or several (which a file of one
/// symbol's bars cannot hold).
enum Stacked {
    Ticker(String),
    Several,
}

/// `AAPL.csv` → AAPL, `aapl.us.txt` (Stooq) → AAPL, `msft.csv.gz` → MSFT.
pub fn symbol_from_file_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let stem = stem
        .strip_suffix(".us")
        .or_else(|| stem.strip_suffix(".US"))
        .unwrap_or(stem);
    stem.to_ascii_uppercase()
}

/// A buffered reader of the source, decompressed when it is gzip, counting raw bytes read.
fn open(source: &Source, progress: Arc<Progress>) -> std::io::Result<Reader> {
    let inner: Box<dyn Read + Send> = match source {
        Source::File(path) => Box::new(File::open(path)?),
        Source::Embedded { bytes, .. } => Box::new(*bytes),
    };
    let mut file = BufReader::new(Counting { inner, progress });
    let gzip = file.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    Ok(if gzip {
        Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(file),
        ))
    } else {
        Box::new(file)
    })
}

struct Counting<R> {
    inner: R,
    progress: Arc<Progress>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Header positions of named CSV columns, case-insensitive, so that column order and extra
/// columns do not matter.
pub(crate) struct Columns {
    names: Vec<String>,
}

impl Columns {
    pub(crate) fn new(header: &csv::StringRecord) -> Self {
        Columns {
            names: header
                .iter()
                .map(|h| h.trim().trim_start_matches('\u{feff}').to_ascii_lowercase())
                .collect(),
        }
    }

    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    pub(crate) fn require(&self, name: &str) -> Result<usize, RowError> {
        self.find(name)
            .ok_or_else(|| RowError::new(1, 0, name, format!("the header has no {name} column")))
    }
}

/// Line number of a CSV record (1-based, counting the header).
pub(crate) fn line_of(record: &csv::StringRecord) -> u64 {
    record.position().map_or(0, csv::Position::line)
}

pub(crate) fn csv_error(e: csv::Error) -> RowError {
    let line = e.position().map_or(0, csv::Position::line);
    RowError::new(line, 0, "", format!("not valid CSV: {e}"))
}

/// A field by index, trimmed; the error names the column.
pub(crate) fn field<'r>(record: &'r csv::StringRecord, index: usize, name: &str) -> Result<&'r str, RowError> {
    record
        .get(index)
        .map(str::trim)
        .ok_or_else(|| RowError::new(line_of(record), index + 1, name, "missing value"))
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_detected_from_their_headers() {
        let cases: [(&str, Option<Format>); 13] = [
            (
                "cik,ticker,exchange,name,gics_sector,indices\n",
                Some(Format::SecTickers),
            ),
            ("cik,ticker,exchange,name\n", Some(Format::SecTickers)),
            (
                "Symbol|Security Name|Market Category|Test Issue|Financial Status|Round Lot Size|ETF|NextShares\n",
                Some(Format::NasdaqListed),
            ),
            (
                "ACT Symbol|Security Name|Exchange|CQS Symbol|ETF|Round Lot Size|Test Issue|NASDAQ Symbol\n",
                Some(Format::OtherListed),
            ),
            (
                "Ticker,Date,Open,High,Low,Close,Volume,Adj Close\n",
                Some(Format::Ohlcv(ohlcv::Layout::Wiki)),
            ),
            (
                "Date,Open,High,Low,Close,Adj Close,Volume\n",
                Some(Format::Ohlcv(ohlcv::Layout::Yahoo)),
            ),
            (
                "Date,Open,High,Low,Close,Volume\n",
                Some(Format::Ohlcv(ohlcv::Layout::Stooq)),
            ),
            (
                "symbol,timestamp,open,high,low,close,volume\n",
                Some(Format::Minutes(minutes::Layout::Signet)),
            ),
            (
                "ticker,volume,open,close,high,low,window_start,transactions\n",
                Some(Format::Minutes(minutes::Layout::Polygon)),
            ),
            (
                "\u{feff}Datetime,Open,High,Low,Close,Adj Close,Volume\r\n",
                Some(Format::Minutes(minutes::Layout::Yfinance)),
            ),
            (
                "timestamp,open,high,low,close,volume,trade_count,vwap\n",
                Some(Format::Minutes(minutes::Layout::Alpaca)),
            ),
            ("{\"cik\": 1640147, \"facts\": {}}", Some(Format::CompanyFacts)),
            ("hello,world\n", None),
        ];
        for (start, expected) in cases {
            assert_eq!(Format::detect(start.as_bytes()), expected, "{start}");
        }
        assert_eq!(Format::detect(b"symbol,sector,industry\n"), Some(Format::Sectors));
    }

    /// `text` parsed as `parse_file` does it: the format, and the minutes and bars sent.
    fn parse_text(text: &'static str, name: &str) -> Result<(Format, Vec<Chunk>), ImportError> {
        let (tx, mut rx) = mpsc::channel(64);
        let source = Source::Embedded {
            name: "test",
            bytes: text.as_bytes(),
        };
        let (format, _) = parse_file(&source, name, &ImportOptions::default(), Arc::default(), tx)?;
        let mut chunks = Vec::new();
        while let Ok(ImportMessage::Chunk(chunk)) = rx.try_recv() {
            chunks.push(chunk);
        }
        Ok((format, chunks))
    }

    #[test]
    fn yfinance_downloads_with_three_header_rows_are_read_as_one() {
        let minutes = "\
Price,Close,High,Low,Open,Volume
Ticker,AAPL,AAPL,AAPL,AAPL,AAPL
Datetime,,,,,
2024-01-02 14:30:00+00:00,188.3699951171875,188.44000244140625,187.0,187.14999389648438,2618335
2024-01-02 14:31:00+00:00,188.0,188.5,187.92999267578125,188.3800048828125,350211
";
        let (format, chunks) = parse_text(minutes, "download.csv").unwrap();
        assert_eq!(format, Format::Minutes(minutes::Layout::Yfinance));
        let Chunk::Minutes(read) = &chunks[0] else {
            panic!("{chunks:?}")
        };
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].symbol, "AAPL", "the ticker row's, not the file name's");
        assert_eq!((read[0].bar.minute, read[0].bar.close), (0, 188_370_000));

        let daily = "\
Price,Close,High,Low,Open,Volume
Ticker,MSFT,MSFT,MSFT,MSFT,MSFT
Date,,,,,
2024-01-02,370.87,375.9,366.77,373.86,25258600
";
        let (format, chunks) = parse_text(daily, "x.csv").unwrap();
        assert_eq!(format, Format::Ohlcv(ohlcv::Layout::Stooq));
        assert!(format!("{chunks:?}").contains("MSFT"), "{chunks:?}");

        // An error names the file's line.
        let bad = "\
Price,Close,High,Low,Open,Volume
Ticker,AAPL,AAPL,AAPL,AAPL,AAPL
Datetime,,,,,
2024-01-02 14:30:00+00:00,188.37,188.44,187.0,187.15,2618335
2024-01-02 14:31:00+00:00,188.0,187.5,187.93,188.38,350211
";
        let Err(ImportError::Row { line, field, .. }) = parse_text(bad, "x.csv") else {
            panic!("a high below the close is refused")
        };
        assert_eq!((line, field.as_str()), (5, "high"));

        let several = "\
Price,Close,Close,High,High,Low,Low,Open,Open,Volume,Volume
Ticker,AAPL,MSFT,AAPL,MSFT,AAPL,MSFT,AAPL,MSFT,AAPL,MSFT
Datetime,,,,,,,,,,
";
        let Err(ImportError::File { problem, .. }) = parse_text(several, "x.csv") else {
            panic!("several tickers are refused")
        };
        assert!(problem.contains("one ticker per file"), "{problem}");
    }

    #[test]
    fn symbols_from_file_names() {
        assert_eq!(symbol_from_file_name(Path::new("/x/AAPL.csv")), "AAPL");
        assert_eq!(symbol_from_file_name(Path::new("aapl.us.txt")), "AAPL");
        assert_eq!(symbol_from_file_name(Path::new("msft.csv.gz")), "MSFT");
    }
}
