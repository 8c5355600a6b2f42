//! The Nasdaq symbol directory: `nasdaqlisted.txt` and `otherlisted.txt`, `|`-separated, ending
//! with a `File Creation Time` line. Test issues are skipped.

use std::io::BufRead;

use signet_domain::marketdata::{InstrumentType, InstrumentUpdate};

use super::tickers::{exchange_name, symbol};
use super::{Batcher, Chunk, Columns, Emitter, ParseStats, RowError, csv_error, field, line_of};

#[derive(Debug, Clone, Copy)]
pub enum Directory {
    NasdaqListed,
    OtherListed,
}

pub fn parse(reader: impl BufRead, directory: Directory, emitter: &Emitter) -> Result<ParseStats, RowError> {
    let mut csv = csv::ReaderBuilder::new()
        .delimiter(b'|')
        .flexible(true)
        .from_reader(reader);
    let columns = Columns::new(csv.headers().map_err(csv_error)?);
    let symbol_column = match directory {
        Directory::NasdaqListed => columns.require("symbol")?,
        Directory::OtherListed => columns.require("act symbol")?,
    };
    let name = columns.require("security name")?;
    let etf = columns.require("etf")?;
    let test_issue = columns.require("test issue")?;
    let exchange = match directory {
        Directory::NasdaqListed => None,
        Directory::OtherListed => Some(columns.require("exchange")?),
    };

    let mut stats = ParseStats::default();
    let mut out = Batcher::new(emitter, Chunk::Instruments);
    for record in csv.records() {
        let record = record.map_err(csv_error)?;
        let line = line_of(&record);
        let first = record.get(0).unwrap_or("");
        if first.starts_with("File Creation Time") {
            continue;
        }
        stats.rows += 1;
        if flag(field(&record, test_issue, "test issue")?, line, test_issue)? {
            stats.skipped += 1;
            continue;
        }
        let exchange = match exchange {
            None => Some("NASDAQ".to_owned()),
            Some(i) => exchange_name(field(&record, i, "exchange")?),
        };
        out.push(InstrumentUpdate {
            symbol: symbol(field(&record, symbol_column, "symbol")?, line, symbol_column)?,
            name: Some(field(&record, name, "security name")?.to_owned()).filter(|n| !n.is_empty()),
            exchange,
            instrument_type: Some(if flag(field(&record, etf, "etf")?, line, etf)? {
                InstrumentType::Etf
            } else {
                InstrumentType::Equity
            }),
            ..InstrumentUpdate::default()
        })?;
    }
    out.finish()?;
    Ok(stats)
}

fn flag(value: &str, line: u64, index: usize) -> Result<bool, RowError> {
    match value {
        "Y" => Ok(true),
        "N" | "" => Ok(false),
        other => Err(RowError::new(
            line,
            index + 1,
            "flag",
            format!("expected Y or N, got {other:?}"),
        )),
    }
}
