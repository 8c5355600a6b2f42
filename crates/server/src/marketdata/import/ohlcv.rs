//! Daily prices in the three common CSV layouts, and the splits and dividends that the ratio of
//! adjusted to unadjusted close reveals.

use std::io::BufRead;

use rust_decimal::Decimal;

use super::tickers::symbol as ticker;
use super::{Batcher, Chunk, Columns, Emitter, ParseStats, RowError, csv_error, field, line_of};
use crate::marketdata::units::{parse_day, parse_price};
use crate::marketdata::{ActionKind, ActionSource, Bar, CorporateAction, SymbolBar};

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
        if low > open.min(close) || high < open.max(close) || low > high {
            return Err(RowError::new(
                line,
                prices[1] + 1,
                "high",
                "high and low do not bound open and close",
            ));
        }
        let volume_text = field(&record, volume, "volume")?;
        let volume_value = parse_volume(volume_text).ok_or_else(|| {
            RowError::new(
                line,
                volume + 1,
                "volume",
                format!("{volume_text:?} is not a share count"),
            )
        })?;
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

/// A close and its adjusted value, in millionths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdjustedClose {
    pub day: i32,
    pub close: i64,
    pub adj_close: i64,
}

/// Splits and dividends implied by the adjusted close, from closes sorted by day.
///
/// With `f = adj / close`, a change of `f` between two days means the source adjusted the
/// earlier prices: by `1/k` for a `k`:1 split (recognised when the ratio and the close both jump
/// by a simple fraction), or by `1 - D / close` for a cash dividend `D` on the later day, which
/// gives `D = previous close × (1 − f_prev / f)`. Amounts are approximate (the adjusted close is
/// rounded by its publisher) and are marked derived.
pub fn derive_actions(closes: &[AdjustedClose]) -> Vec<CorporateAction> {
    let mut actions = Vec::new();
    for pair in closes.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let f_before = before.adj_close as f64 / before.close as f64;
        let f_after = after.adj_close as f64 / after.close as f64;
        let ratio = f_after / f_before;
        if let Some(split) = simple_ratio(ratio)
            && simple_ratio(before.close as f64 / after.close as f64).is_some()
        {
            actions.push(CorporateAction {
                day: after.day,
                kind: ActionKind::Split,
                value: split,
                source: ActionSource::Derived,
            });
            continue;
        }
        let fraction = 1.0 - f_before / f_after;
        // Below this the change is rounding (of the adjusted close, or of the close to a cent),
        // not a dividend.
        let noise = (5_000.0 / before.close as f64).max(2e-5);
        if fraction > noise && fraction < 0.5 {
            let amount = before.close as f64 / 1e6 * fraction;
            if let Some(amount) = Decimal::from_f64_retain(amount) {
                let amount = amount.round_dp(4);
                if !amount.is_zero() {
                    actions.push(CorporateAction {
                        day: after.day,
                        kind: ActionKind::Dividend,
                        value: amount,
                        source: ActionSource::Derived,
                    });
                }
            }
        }
    }
    actions
}

/// A split ratio near `r` written as a simple fraction (2, 3, 1.5, 0.1, ...), when there is one.
fn simple_ratio(r: f64) -> Option<Decimal> {
    if !(1.2..=100.0).contains(&r) && !(0.01..=1.0 / 1.2).contains(&r) {
        return None;
    }
    for denominator in 1..=10u32 {
        let numerator = (r * f64::from(denominator)).round();
        if numerator >= 1.0 && (numerator / f64::from(denominator) - r).abs() <= 0.02 * r {
            return Some(Decimal::from(numerator as u32) / Decimal::from(denominator));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(day: i32, close: f64, adj: f64) -> AdjustedClose {
        AdjustedClose {
            day,
            close: (close * 1e6) as i64,
            adj_close: (adj * 1e6) as i64,
        }
    }

    #[test]
    fn a_two_for_one_split_is_found() {
        // MSFT 2003-02-18: close 48.30 then 24.96, adjusted close continuous.
        let actions = derive_actions(&[bar(1, 48.30, 20.10), bar(2, 24.96, 20.77)]);
        assert_eq!(
            actions,
            [CorporateAction {
                day: 2,
                kind: ActionKind::Split,
                value: Decimal::from(2),
                source: ActionSource::Derived
            }]
        );
    }

    #[test]
    fn a_dividend_is_found_with_its_amount() {
        // A $0.50 dividend on a $100 stock: earlier prices adjusted by 0.995.
        let actions = derive_actions(&[bar(1, 100.0, 99.5), bar(2, 101.0, 101.0)]);
        assert_eq!(actions.len(), 1);
        assert_eq!(actions[0].kind, ActionKind::Dividend);
        assert_eq!(actions[0].value, Decimal::new(5000, 4));
    }

    #[test]
    fn unchanged_ratios_and_cent_rounding_give_nothing() {
        assert!(derive_actions(&[bar(1, 100.0, 50.0), bar(2, 110.0, 55.0)]).is_empty());
        // The close is rounded to a cent while the adjusted close is not.
        assert!(derive_actions(&[bar(1, 10.00, 9.0049), bar(2, 10.01, 9.0089)]).is_empty());
    }

    #[test]
    fn volumes() {
        assert_eq!(parse_volume("9616100"), Some(9_616_100));
        assert_eq!(parse_volume("9616100.0"), Some(9_616_100));
        assert_eq!(parse_volume("1.5"), None);
        assert_eq!(parse_volume("-3"), None);
        assert_eq!(parse_volume("x"), None);
    }
}
