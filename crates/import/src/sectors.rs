//! signet's sector layout, for data no public file carries: `symbol,sector[,industry]`.
//!
//! ```text
//! symbol,sector,industry
//! AAPL,Information Technology,Technology Hardware
//! ```

use std::io::BufRead;

use signet_domain::marketdata::InstrumentUpdate;

use super::tickers::symbol;
use super::{Batcher, Chunk, Columns, Emitter, ParseStats, RowError, csv_error, field, line_of};

pub fn parse(reader: impl BufRead, emitter: &Emitter) -> Result<ParseStats, RowError> {
    let mut csv = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
    let columns = Columns::new(csv.headers().map_err(csv_error)?);
    let (symbol_column, sector) = (columns.require("symbol")?, columns.require("sector")?);
    let industry = columns.find("industry");

    let mut stats = ParseStats::default();
    let mut out = Batcher::new(emitter, Chunk::Instruments);
    for record in csv.records() {
        let record = record.map_err(csv_error)?;
        let line = line_of(&record);
        let sector_value = field(&record, sector, "sector")?;
        if sector_value.is_empty() {
            return Err(RowError::new(line, sector + 1, "sector", "a sector is required"));
        }
        out.push(InstrumentUpdate {
            symbol: symbol(field(&record, symbol_column, "symbol")?, line, symbol_column)?,
            sector: Some(sector_value.to_owned()),
            industry: industry
                .and_then(|i| record.get(i))
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned),
            ..InstrumentUpdate::default()
        })?;
        stats.rows += 1;
    }
    out.finish()?;
    Ok(stats)
}
