//! US equity options, as the simulator lists and prices them: contracts named by their OCC
//! symbol ([`Contract`]), the chain an exchange lists on a day ([`chain`]), and their fair value
//! and greeks ([`pricing`]). Every contract is American style with a multiplier of 100.

pub mod chain;
pub mod pricing;

use rust_decimal::Decimal;

/// Shares one contract delivers.
pub const MULTIPLIER: u32 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Right {
    Call,
    Put,
}

impl Right {
    pub const fn letter(self) -> char {
        match self {
            Right::Call => 'C',
            Right::Put => 'P',
        }
    }
}

/// One listed contract.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Contract {
    pub underlying: String,
    /// The New York day it expires (days since 1970-01-01): its last trading day.
    pub expiry: i32,
    pub right: Right,
    pub strike: Decimal,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an OCC option symbol (ROOT, YYMMDD, C or P, the strike in thousandths on 8 digits): {0:?}")]
pub struct BadSymbol(pub String);

/// Strikes an OCC symbol can name: up to 99,999.999.
const MAX_STRIKE_THOUSANDTHS: i64 = 99_999_999;

impl Contract {
    /// The OCC symbol without the root's padding, as Webull and most brokers write it:
    /// `AAPL130315C00430000` is AAPL's call at 430 expiring 2013-03-15.
    pub fn occ_symbol(&self) -> String {
        let date = crate::marketdata::units::date_of(self.expiry);
        let thousandths = (self.strike * Decimal::from(1000)).trunc();
        format!(
            "{}{:02}{:02}{:02}{}{:08}",
            self.underlying,
            date.year() % 100,
            u8::from(date.month()),
            date.day(),
            self.right.letter(),
            thousandths
        )
    }

    /// Reads an OCC symbol, with or without the root's padding to six characters.
    pub fn parse_occ(symbol: &str) -> Result<Contract, BadSymbol> {
        let bad = || BadSymbol(symbol.to_owned());
        let symbol = symbol.trim();
        // The fixed tail: YYMMDD, the right, eight digits of strike.
        let split = symbol.len().checked_sub(15).ok_or_else(bad)?;
        let (root, tail) = symbol.split_at(split);
        let root = root.trim_end();
        if root.is_empty() || root.len() > 6 || !root.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.') {
            return Err(bad());
        }
        let digits = |range: std::ops::Range<usize>| -> Result<i64, BadSymbol> {
            let part = tail.get(range).ok_or_else(bad)?;
            if !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            part.parse().map_err(|_| bad())
        };
        let (yy, mm, dd) = (digits(0..2)?, digits(2..4)?, digits(4..6)?);
        let right = match tail.as_bytes().get(6) {
            Some(b'C') => Right::Call,
            Some(b'P') => Right::Put,
            _ => return Err(bad()),
        };
        let thousandths = digits(7..15)?;
        if thousandths == 0 || thousandths > MAX_STRIKE_THOUSANDTHS {
            return Err(bad());
        }
        let month = u8::try_from(mm)
            .ok()
            .and_then(|m| time::Month::try_from(m).ok())
            .ok_or_else(bad)?;
        let date = time::Date::from_calendar_date(
            2000 + i32::try_from(yy).map_err(|_| bad())?,
            month,
            u8::try_from(dd).map_err(|_| bad())?,
        )
        .map_err(|_| bad())?;
        Ok(Contract {
            underlying: root.to_owned(),
            expiry: crate::marketdata::units::day_number(date),
            right,
            strike: Decimal::new(thousandths, 3).normalize(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::parse_day;

    #[test]
    fn an_occ_symbol_names_the_contract_and_reads_back() {
        let call = Contract {
            underlying: "AAPL".into(),
            expiry: parse_day("2013-03-15").unwrap(),
            right: Right::Call,
            strike: Decimal::from(430),
        };
        assert_eq!(call.occ_symbol(), "AAPL130315C00430000");
        assert_eq!(Contract::parse_occ("AAPL130315C00430000").unwrap(), call);
        assert_eq!(
            Contract::parse_occ("AAPL  130315C00430000").unwrap(),
            call,
            "padded root"
        );
        let put = Contract::parse_occ("F130419P00012500").unwrap();
        assert_eq!((put.right, put.strike), (Right::Put, Decimal::new(125, 1)));
        assert_eq!(put.occ_symbol(), "F130419P00012500");
    }

    #[test]
    fn malformed_symbols_are_refused() {
        for bad in [
            "",
            "AAPL",
            "130315C00430000",
            "AAPL130315X00430000",
            "AAPL131315C00430000",
            "AAPL130332C00430000",
            "AAPL130315C0043000A",
            "AAPL130315C00000000",
            "TOOLONGX130315C00430000",
            "AA;PL130315C00430000",
        ] {
            assert!(Contract::parse_occ(bad).is_err(), "{bad:?}");
        }
    }
}
