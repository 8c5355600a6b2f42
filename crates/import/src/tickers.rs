//! SEC company tickers: `cik,ticker,exchange,name`, optionally followed by the universe file's
//! `gics_sector` and `indices`.

use std::io::BufRead;

use signet_domain::marketdata::InstrumentUpdate;

use super::{Batcher, Chunk, Columns, Emitter, ParseStats, RowError, csv_error, field, line_of};

pub fn parse(reader: impl BufRead, emitter: &Emitter) -> Result<ParseStats, RowError> {
    let mut csv = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
    let columns = Columns::new(csv.headers().map_err(csv_error)?);
    let (cik, ticker, exchange, name) = (
        columns.require("cik")?,
        columns.require("ticker")?,
        columns.require("exchange")?,
        columns.require("name")?,
    );
    let (sector, indices) = (columns.find("gics_sector"), columns.find("indices"));

    let mut stats = ParseStats::default();
    let mut out = Batcher::new(emitter, Chunk::Instruments);
    for record in csv.records() {
        let record = record.map_err(csv_error)?;
        let line = line_of(&record);
        let symbol = symbol(field(&record, ticker, "ticker")?, line, ticker)?;
        let name_value = field(&record, name, "name")?;
        if name_value.is_empty() {
            return Err(RowError::new(line, name + 1, "name", "a company needs a name"));
        }
        let optional = |index: Option<usize>| {
            index
                .and_then(|i| record.get(i))
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        out.push(InstrumentUpdate {
            symbol,
            name: Some(name_value.to_owned()),
            exchange: exchange_name(field(&record, exchange, "exchange")?),
            cik: Some(cik_value(field(&record, cik, "cik")?, line, cik)?),
            // A few companies carry two sectors (`Energy;Utilities`): the first is theirs.
            sector: optional(sector).and_then(|s| s.split(';').next().map(str::to_owned)),
            indices: optional(indices),
            ..InstrumentUpdate::default()
        })?;
        stats.rows += 1;
    }
    out.finish()?;
    Ok(stats)
}

/// A ticker: 1 to 12 characters of letters, digits, `.`, `-`, `/`; stored upper-case.
pub(crate) fn symbol(value: &str, line: u64, index: usize) -> Result<String, RowError> {
    let ok = (1..=12).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'/' | b'$' | b'^'));
    if ok {
        Ok(value.to_ascii_uppercase())
    } else {
        Err(RowError::new(
            line,
            index + 1,
            "symbol",
            format!("{value:?} is not a ticker symbol"),
        ))
    }
}

/// A CIK as the SEC writes it in its paths: ten digits, zero-padded.
pub(crate) fn cik_value(value: &str, line: u64, index: usize) -> Result<String, RowError> {
    match value.parse::<u64>() {
        Ok(n) if n < 10_000_000_000 && !value.is_empty() => Ok(format!("{n:010}")),
        _ => Err(RowError::new(
            line,
            index + 1,
            "cik",
            format!("{value:?} is not a CIK (up to ten digits)"),
        )),
    }
}

/// Exchanges under one spelling, whichever source named them.
pub(crate) fn exchange_name(value: &str) -> Option<String> {
    let canonical = match value.trim().to_ascii_uppercase().as_str() {
        "" => return None,
        "NASDAQ" => "NASDAQ",
        "NYSE" | "N" => "NYSE",
        "NYSE AMERICAN" | "NYSE MKT" | "AMEX" | "A" => "NYSE_AMERICAN",
        "NYSE ARCA" | "ARCA" | "P" => "NYSE_ARCA",
        "CBOE" | "BATS" | "Z" => "CBOE",
        "IEX" | "V" => "IEX",
        "OTC" => "OTC",
        other => return Some(other.replace(' ', "_")),
    };
    Some(canonical.to_owned())
}
