//! Daily prices in the three common CSV layouts, and the splits and dividends that the ratio of
//! adjusted to unadjusted close reveals.

use std::io::BufRead;

use rust_decimal::Decimal;
use signet_domain::marketdata::units::{parse_day, parse_price};
use signet_domain::marketdata::{Bar, SymbolBar};

use super::tickers::symbol as ticker;
use super::{Batcher, Chunk, Columns, Emitter, ParseStats, RowError, csv_error, field, line_of};

/// The layouts, recognised by their header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Quandl WIKI: `Ticker,Date,Open,High,Low,Close,Volume,Adj Close`, many symbols per file.
    Wiki,
    /// Yahoo: `Date,Open,High,Low,Close,Adj Close,Volume`, one symbol per file.
    Yahoo,
    /// Stooq: `Date,Open,High,Low,Close,Volume`, one symbol per file, no adjusted close.
    Stooq,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Wiki => "ohlcv-quandl-wiki",
            Layout::Yahoo => "ohlcv-yahoo",
            Layout::Stooq => "ohlcv-stooq",
        }
    }

    /// From lower-cased header columns.
    pub fn detect(columns: &[&str]) -> Option<Layout> {
        let has = |name: &str| columns.contains(&name);
        let ohlc = has("date") && has("open") && has("high") && has("low") && has("close") && has("volume");
        match (ohlc, has("ticker"), has("adj close")) {
            (true, true, _) => Some(Layout::Wiki),
            (true, false, true) => Some(Layout::Yahoo),
            (true, false, false) => Some(Layout::Stooq),
            (false, _, _) => None,
        }
    }

    pub fn single_symbol(self) -> bool {
        !matches!(self, Layout::Wiki)
    }
}

/// Parses bars; `symbol` is the symbol of a single-symbol layout. Yahoo's `null` rows (days
/// without trading) are skipped and counted.
pub fn parse(
    reader: impl BufRead,
    layout: Layout,
    symbol: Option<&str>,
    emitter: &Emitter,
) -> Result<ParseStats, RowError> {
    let mut csv = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
    let columns = Columns::new(csv.headers().map_err(csv_error)?);
    let ticker_column = if layout.single_symbol() {
        None
    } else {
        Some(columns.require("ticker")?)
    };
    let fixed_symbol = match symbol {
        Some(s) => Some(ticker(s, 0, 0)?),
        None => None,
    };
    let date = columns.require("date")?;
    let prices = [
        columns.require("open")?,
        columns.require("high")?,
        columns.require("low")?,
        columns.require("close")?,
    ];
    let volume = columns.require("volume")?;
    let adj_close = columns.find("adj close");

    let mut stats = ParseStats::default();
    let mut out = Batcher::new(emitter, |bars| Chunk::Bars { bars, generated: false });
    for record in csv.records() {
        let record = record.map_err(csv_error)?;
        let line = line_of(&record);
        stats.rows += 1;
        if prices
            .iter()
            .all(|&i| record.get(i).is_some_and(|v| v.trim() == "null"))
        {
            stats.skipped += 1;
            continue;
        }
        let symbol = match (&fixed_symbol, ticker_column) {
            (Some(s), _) => s.clone(),
            (None, Some(i)) => ticker(field(&record, i, "ticker")?, line, i)?,
            (None, None) => unreachable!("a single-symbol layout has a symbol"),
        };
        let day = parse_day(field(&record, date, "date")?)
            .ok_or_else(|| RowError::new(line, date + 1, "date", "expected a date YYYY-MM-DD"))?;
        let price = |index: usize, name: &str| -> Result<i64, RowError> {
            let text = field(&record, index, name)?;
            match parse_price(text) {
                Some(p) if p > 0 => Ok(p),
                _ => Err(RowError::new(
                    line,
                    index + 1,
                    name,
                    format!("{text:?} is not a positive price"),
                )),
            }
        };
        let [open, high, low, close] = [
            price(prices[0], "open")?,
            price(prices[1], "high")?,
            price(prices[2], "low")?,
            price(prices[3], "close")?,
        ];
        check_range(line, prices[1], [open, high, low, close])?;
        let volume_value = volume_of(&record, line, volume)?;
        let adj_close = match adj_close {
            Some(i) => Some(price(i, "adj close")?),
            None => None,
        };
        out.push(SymbolBar {
            symbol,
            bar: Bar {
                day,
                open,
                high,
                low,
                close,
                volume: volume_value,
                adj_close,
            },
        })?;
    }
    out.finish()?;
    Ok(stats)
}

/// A row error unless a bar's high and low bound its open and close (the high's column,
/// counted from 0, is the one named): the daily and the minute layouts check the same.
pub(crate) fn check_range<T: Ord + Copy>(
    line: u64,
    high_column: usize,
    [open, high, low, close]: [T; 4],
) -> Result<(), RowError> {
    if low > open.min(close) || high < open.max(close) || low > high {
        return Err(RowError::new(
            line,
            high_column + 1,
            "high",
            "high and low do not bound open and close",
        ));
    }
    Ok(())
}

/// The share count in column `index` (from 0) of `record`.
pub(crate) fn volume_of(record: &csv::StringRecord, line: u64, index: usize) -> Result<i64, RowError> {
    let text = field(record, index, "volume")?;
    parse_volume(text).ok_or_else(|| RowError::new(line, index + 1, "volume", format!("{text:?} is not a share count")))
}

/// A non-negative whole number of shares (`1234` or `1234.0`).
fn parse_volume(text: &str) -> Option<i64> {
    use rust_decimal::prelude::ToPrimitive;
    let value: Decimal = text.parse().ok()?;
    if value.fract().is_zero() && !value.is_sign_negative() {
        value.to_i64()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volumes() {
        assert_eq!(parse_volume("9616100"), Some(9_616_100));
        assert_eq!(parse_volume("9616100.0"), Some(9_616_100));
        assert_eq!(parse_volume("1.5"), None);
        assert_eq!(parse_volume("-3"), None);
        assert_eq!(parse_volume("x"), None);
    }
}
