//! US equity options, as the simulator lists and prices them: contracts named by their OCC
//! symbol ([`Contract`]), the chain an exchange lists on a day ([`chain`]), their fair value
//! and greeks ([`pricing`]), the market a contract shows at a moment ([`market`]) and the trades
//! it prints through a day ([`tape`]). Every contract is American style with a multiplier of 100.

pub mod chain;
pub mod market;
pub mod pricing;
pub mod requirement;
pub mod secured;
pub mod settlement;
pub mod strategy;
pub mod tape;

use rust_decimal::Decimal;

/// Shares one contract delivers.
pub const MULTIPLIER: u32 = 100;

/// [`MULTIPLIER`] as a decimal: the shares a contract stands for.
pub fn hundred() -> Decimal {
    Decimal::from(MULTIPLIER)
}

/// What a side does to a position: +1 a purchase, -1 a sale.
pub fn direction(side: signet_model::orders::Side) -> Decimal {
    if side == signet_model::orders::Side::Buy {
        Decimal::ONE
    } else {
        Decimal::NEGATIVE_ONE
    }
}

/// Whether `instrument_id` names an option contract ([`Contract::instrument_id`]) rather than
/// a share.
pub fn is_contract(instrument_id: i64) -> bool {
    Contract::of_id(instrument_id).is_some()
}

/// The shares of the underlying one unit of `instrument_id` stands for: [`MULTIPLIER`] for an
/// option contract, whose prices are quoted per share; one for a share. What a quantity is
/// worth is quantity × price × this.
pub fn multiplier(instrument_id: i64) -> Decimal {
    if is_contract(instrument_id) {
        Decimal::from(MULTIPLIER)
    } else {
        Decimal::ONE
    }
}

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

    /// `CALL` or `PUT`, as the wire names it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Right::Call => "CALL",
            Right::Put => "PUT",
        }
    }

    pub fn parse(text: &str) -> Option<Right> {
        match text.trim().to_ascii_uppercase().as_str() {
            "CALL" | "C" => Some(Right::Call),
            "PUT" | "P" => Some(Right::Put),
            _ => None,
        }
    }
}

/// Where contract ids start: above every stock's id, so that the two never meet.
const ID_MARKER: i64 = 1 << 55;
/// Bits of a contract id: (underlying id, expiry, strike in half-dollars, right), highest first,
/// so that ids sort as a chain reads (by underlying, then expiry, then strike, call before put).
const RIGHT_BITS: u32 = 1;
const STRIKE_BITS: u32 = 18;
const EXPIRY_BITS: u32 = 15;
const UNDERLYING_BITS: u32 = 21;

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

/// A contract's parts as its id holds them, read back by [`Contract::of_id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdParts {
    pub underlying_id: i64,
    pub expiry: i32,
    pub right: Right,
    pub strike: Decimal,
}

impl Contract {
    /// The contract's instrument id, made of its parts (no table of contracts is kept): `None`
    /// for a contract the simulator never lists (a strike off the half-dollar grid or above
    /// $131,071.50, an expiry outside 1970–2059, an underlying id of 2^21 or more).
    pub fn instrument_id(&self, underlying_id: i64) -> Option<i64> {
        let halves = self.strike * Decimal::TWO;
        if halves.fract() != Decimal::ZERO {
            return None;
        }
        let halves = i64::try_from(halves.trunc()).ok()?;
        let fits = |value: i64, bits: u32| (0..1 << bits).contains(&value);
        let expiry = i64::from(self.expiry);
        if !(fits(underlying_id, UNDERLYING_BITS) && fits(expiry, EXPIRY_BITS) && fits(halves, STRIKE_BITS)) {
            return None;
        }
        let right = i64::from(self.right == Right::Put);
        Some(
            ID_MARKER
                | underlying_id << (EXPIRY_BITS + STRIKE_BITS + RIGHT_BITS)
                | expiry << (STRIKE_BITS + RIGHT_BITS)
                | halves << RIGHT_BITS
                | right,
        )
    }

    /// The lowest id a contract of `underlying_id` can have: every contract of an underlying with
    /// a greater id sorts after every contract of this one.
    pub fn first_id_of(underlying_id: i64) -> i64 {
        ID_MARKER | underlying_id << (EXPIRY_BITS + STRIKE_BITS + RIGHT_BITS)
    }

    /// The parts of a contract id from [`Contract::instrument_id`]; `None` for any other id.
    pub fn of_id(id: i64) -> Option<IdParts> {
        if id & !((ID_MARKER << 1) - 1) != 0 || id & ID_MARKER == 0 {
            return None;
        }
        let field = |shift: u32, bits: u32| (id >> shift) & ((1 << bits) - 1);
        let halves = field(RIGHT_BITS, STRIKE_BITS);
        Some(IdParts {
            underlying_id: field(EXPIRY_BITS + STRIKE_BITS + RIGHT_BITS, UNDERLYING_BITS),
            expiry: i32::try_from(field(STRIKE_BITS + RIGHT_BITS, EXPIRY_BITS)).ok()?,
            right: if field(0, RIGHT_BITS) == 1 {
                Right::Put
            } else {
                Right::Call
            },
            strike: (Decimal::from(halves) / Decimal::TWO).normalize(),
        })
    }

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
    fn an_id_holds_the_contract_and_sorts_as_the_chain_reads() {
        let contract = |expiry: &str, right, strike: Decimal| Contract {
            underlying: "AAPL".into(),
            expiry: parse_day(expiry).unwrap(),
            right,
            strike,
        };
        let call = contract("2013-03-15", Right::Call, Decimal::new(4325, 1));
        let id = call.instrument_id(3).unwrap();
        assert!(id > 1 << 55 && id < i64::MAX);
        assert_eq!(
            Contract::of_id(id),
            Some(IdParts {
                underlying_id: 3,
                expiry: call.expiry,
                right: Right::Call,
                strike: Decimal::new(4325, 1)
            })
        );
        let ids: Vec<i64> = [
            contract("2013-03-15", Right::Call, Decimal::from(430)),
            contract("2013-03-15", Right::Put, Decimal::from(430)),
            contract("2013-03-15", Right::Call, Decimal::from(440)),
            contract("2013-04-19", Right::Call, Decimal::from(100)),
        ]
        .iter()
        .map(|c| c.instrument_id(3).unwrap())
        .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        assert!(
            contract("2013-03-15", Right::Call, Decimal::from(100))
                .instrument_id(4)
                .unwrap()
                > ids[3]
        );
        // Off the grid, too large, or not a contract's id.
        assert_eq!(
            contract("2013-03-15", Right::Call, Decimal::new(4301, 1)).instrument_id(3),
            None
        );
        assert_eq!(call.instrument_id(1 << 21), None);
        assert_eq!(Contract::of_id(3), None);
        assert_eq!(Contract::of_id(-id), None);
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
