//! The trades a contract prints through a day, drawn from its underlying's path so that they
//! follow it: a contract trades now and then in the core session (a print every half minute at
//! the money near expiry, a few a day far out), each at its fair value at the underlying's price
//! of that second ([`market::print_price`]), in lots of a few contracts. The draws are seeded by
//! the simulator's seed, the day and the contract, so a day's tape is the same however often it
//! is read, and the prints after the clock's second are never shown.

use rust_decimal::Decimal;

use super::market::{self, Underlying};
use super::{Contract, pricing};
use crate::marketdata::rng::Rng;
use crate::simulator::clock::{CORE_OPEN, utc_ms_of};
use crate::simulator::daypath::DayPath;

/// One trade of a contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Print {
    /// Seconds after New York midnight.
    pub second: i64,
    pub price: Decimal,
    /// Contracts traded.
    pub volume: u64,
}

/// Chance of a print in a second: at the least liquid, and added at the most.
const BASE_RATE: f64 = 0.000_5;
const LIQUID_RATE: f64 = 0.03;

fn rng(seed: u64, day: i32, contract: &Contract) -> Rng {
    Rng::for_name(
        seed ^ u64::from(day.unsigned_abs()).rotate_left(32),
        &contract.occ_symbol(),
    )
}

/// The contract's prints on `path`'s day, oldest first: the whole core session's.
pub fn day_prints(contract: &Contract, u: &Underlying, path: &DayPath, seed: u64) -> Vec<Print> {
    let day = path.day();
    let mut rng = rng(seed, day, contract);
    let open_spot = path.prev_close() as f64 / 100.0;
    let years = market::years_to_expiry(utc_ms_of(day, CORE_OPEN), contract.expiry);
    let liquidity = market::liquidity(open_spot, market::decimal_f64(contract.strike), years, u.vol);
    let rate = BASE_RATE + LIQUID_RATE * liquidity;
    let mut prints = Vec::new();
    let mut second = CORE_OPEN;
    loop {
        // Seconds to the next print: geometric, with `rate` the chance of each.
        #[expect(clippy::cast_possible_truncation, reason = "a gap of seconds within a day")]
        let gap = (-(1.0 - rng.uniform()).ln() / rate).floor() as i64;
        second += 1 + gap;
        if second >= path.core_close() {
            break;
        }
        let spot = path.price_at(second) as f64 / 100.0;
        let fair = pricing::value(
            contract.right,
            &market::inputs(contract, u, spot, utc_ms_of(day, second)),
        )
        .price;
        #[expect(clippy::cast_possible_truncation, reason = "a lot of a few dozen contracts")]
        let volume = 1 + (-(1.0 - rng.uniform()).ln() * (1.0 + 20.0 * liquidity)) as u64;
        prints.push(Print {
            second,
            price: market::print_price(fair, u.penny),
            volume,
        });
    }
    prints
}

/// Contracts open at the start of `day`: more the more the contract trades.
pub fn open_interest(contract: &Contract, liquidity: f64, seed: u64, day: i32) -> u64 {
    let mut rng = rng(seed ^ 0x4F49, day, contract);
    #[expect(clippy::cast_possible_truncation, reason = "at most some tens of thousands")]
    let open = (liquidity.clamp(0.0, 1.0) * 20_000.0 * (0.5 + rng.uniform()) + 10.0 * rng.uniform()) as u64;
    open
}

/// Contracts traded on a past `day` that only its daily bar is known of: about what a day's
/// prints would add to at that liquidity.
pub fn drawn_volume(contract: &Contract, liquidity: f64, seed: u64, day: i32) -> u64 {
    let mut rng = rng(seed ^ 0x564F, day, contract);
    let seconds = 23_400.0 * (BASE_RATE + LIQUID_RATE * liquidity.clamp(0.0, 1.0));
    let lot = 1.0 + 20.0 * liquidity.clamp(0.0, 1.0);
    #[expect(clippy::cast_possible_truncation, reason = "at most some tens of thousands")]
    let volume = (seconds * lot * (0.5 + rng.uniform())).round() as u64;
    volume
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::parse_day;
    use crate::options::Right;
    use crate::simulator::path::DayPlan;

    fn setting() -> (Underlying, DayPath) {
        let day = parse_day("2013-03-04").unwrap();
        let plan = DayPlan::draw(7, 3, day, 443.0, 0.015, 1e7);
        let u = Underlying {
            instrument_id: 3,
            symbol: "AAPL".into(),
            etf: false,
            prev_close: 443.0,
            vol: 0.3,
            dividend_yield: 0.02,
            penny: true,
        };
        (u, DayPath::draw(&plan, 7, 3))
    }

    fn contract(strike: i64) -> Contract {
        Contract {
            underlying: "AAPL".into(),
            expiry: parse_day("2013-03-15").unwrap(),
            right: Right::Call,
            strike: Decimal::from(strike),
        }
    }

    #[test]
    fn a_tape_is_seeded_in_session_and_busier_at_the_money() {
        let (u, path) = setting();
        let atm = day_prints(&contract(440), &u, &path, 1);
        assert_eq!(atm, day_prints(&contract(440), &u, &path, 1), "the same draw");
        assert_ne!(atm, day_prints(&contract(440), &u, &path, 2), "another seed");
        let far = day_prints(&contract(600), &u, &path, 1);
        assert!(atm.len() > 5 * far.len().max(1), "{} {}", atm.len(), far.len());
        assert!(atm.windows(2).all(|w| w[0].second < w[1].second));
        assert!(
            atm.iter()
                .all(|p| (CORE_OPEN..path.core_close()).contains(&p.second) && p.volume >= 1)
        );
        // Each print is the fair value at the underlying's price of its second.
        let p = atm[atm.len() / 2];
        let spot = path.price_at(p.second) as f64 / 100.0;
        let fair = pricing::value(
            Right::Call,
            &market::inputs(&contract(440), &u, spot, utc_ms_of(path.day(), p.second)),
        )
        .price;
        assert_eq!(p.price, market::print_price(fair, true));
        assert!(open_interest(&contract(440), 0.9, 1, path.day()) > open_interest(&contract(600), 0.01, 1, path.day()));
    }
}
