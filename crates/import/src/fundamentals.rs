//! signet's fundamentals layout (JSON Lines): see [`signet_domain::marketdata::fundamentals::layout`].

use std::io::BufRead;

use signet_domain::marketdata::fundamentals::layout::{RecordSource, SymbolRecord, parse_line};

use super::tickers::symbol;
use super::{Batcher, Chunk, Emitter, ParseStats, RowError};

pub fn parse(reader: impl BufRead, emitter: &Emitter) -> Result<ParseStats, RowError> {
    let mut stats = ParseStats::default();
    let mut out = Batcher::new(emitter, Chunk::Records);
    for (index, text) in reader.lines().enumerate() {
        let line = index as u64 + 1;
        let text = text.map_err(|e| RowError::new(line, 0, "", e.to_string()))?;
        if text.trim().is_empty() {
            continue;
        }
        let (name, record) = parse_line(&text).map_err(|e| RowError::new(line, e.column, e.field, e.problem))?;
        out.push(SymbolRecord {
            symbol: symbol(&name, line, 0)?,
            record,
            source: RecordSource::Imported,
        })?;
        stats.rows += 1;
    }
    out.finish()?;
    Ok(stats)
}
