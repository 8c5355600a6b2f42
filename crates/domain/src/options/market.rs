//! The market a contract shows at a moment, read off its underlying:
//!
//! - **Fair value** by [`pricing::value`] at the underlying's price, with the volatility of the
//!   contract's strike ([`pricing::smile`] of the underlying's realized volatility), the
//!   underlying's dividend yield and [`pricing::RISK_FREE_RATE`], to the expiry day's close.
//! - **Bid and ask** around it, on the exchanges' ticks ([`tick`]), wider the less the contract
//!   trades ([`liquidity`]): 2 % of the value wide at the money near expiry, up to 10 % far out
//!   of the money. The bid is never above the value and the ask never below it, so put–call
//!   parity holds within the spread.

use rust_decimal::Decimal;

use super::pricing::{self, Inputs, Valuation};
use super::{Contract, Right};
use crate::simulator::clock::{core_close, utc_ms_of};

/// What one underlying's contracts are priced from on a day.
#[derive(Debug, Clone, PartialEq)]
pub struct Underlying {
    pub instrument_id: i64,
    pub symbol: String,
    pub etf: bool,
    /// The close of the trading day before, in dollars: where the day's strikes are centred.
    pub prev_close: f64,
    /// Annualized volatility of the last [`VOL_RETURNS`] daily returns ([`realized_vol`]).
    pub vol: f64,
    /// The last year's dividends over the previous close.
    pub dividend_yield: f64,
    /// In the penny program: quoted in cents below $3 ([`tick`]).
    pub penny: bool,
}

/// Daily returns the realized volatility is measured over.
pub const VOL_RETURNS: usize = 30;
/// Trading days in a year, to annualize a daily volatility.
pub const TRADING_DAYS_A_YEAR: f64 = 252.0;
/// Shares a day from which an underlying's options are in the penny program (about the most
/// traded few hundred classes, as the real program's are).
pub const PENNY_VOLUME: f64 = 2_000_000.0;
/// The volatility of an underlying with too short a history: its drawn days' volatility.
const MIN_RETURNS: usize = 10;

/// The annualized volatility of the daily log returns of `closes` (oldest first, the last
/// [`VOL_RETURNS`] of them), within 5 % and 200 %; `None` with fewer than ten returns.
pub fn realized_vol(closes: &[f64]) -> Option<f64> {
    let start = closes.len().saturating_sub(VOL_RETURNS + 1);
    let returns: Vec<f64> = closes[start..]
        .windows(2)
        .filter(|w| w[0] > 0.0 && w[1] > 0.0)
        .map(|w| (w[1] / w[0]).ln())
        .collect();
    if returns.len() < MIN_RETURNS {
        return None;
    }
    let n = returns.len() as f64;
    let mean = returns.iter().sum::<f64>() / n;
    let variance = returns.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((variance * TRADING_DAYS_A_YEAR).sqrt().clamp(0.05, 2.0))
}

/// The yield of `paid` dollars of dividends a year on a share at `price`, at most 20 %.
pub fn dividend_yield(paid: f64, price: f64) -> f64 {
    if price > 0.0 && paid > 0.0 {
        (paid / price).min(0.2)
    } else {
        0.0
    }
}

/// Years from `now_ms` to the close of the expiry day (calendar years of 365 days), at least 0.
pub fn years_to_expiry(now_ms: i64, expiry: i32) -> f64 {
    let close = utc_ms_of(expiry, core_close(expiry));
    (close - now_ms).max(0) as f64 / (365.0 * 86_400_000.0)
}

/// The price increment of a premium: a cent below $3 and five cents above in the penny
/// program; five cents below $3 and ten above outside it.
pub fn tick(penny: bool, premium: f64) -> Decimal {
    match (penny, premium < 3.0) {
        (true, true) => Decimal::new(1, 2),
        (true, false) | (false, true) => Decimal::new(5, 2),
        (false, false) => Decimal::new(10, 2),
    }
}

/// How much a contract trades, from 0 to 1: most at the money and near its expiry, falling
/// with the strike's distance from the underlying in standard deviations to expiry.
pub fn liquidity(spot: f64, strike: f64, years: f64, vol: f64) -> f64 {
    if spot <= 0.0 || strike <= 0.0 {
        return 0.0;
    }
    let deviation = vol.max(0.05) * years.max(1.0 / TRADING_DAYS_A_YEAR).sqrt();
    let away = (strike / spot).ln() / deviation;
    (-0.5 * away * away).exp() / (1.0 + 2.0 * years)
}

/// A contract's inputs to [`pricing::value`] at `spot` and `now_ms`.
pub fn inputs(contract: &Contract, u: &Underlying, spot: f64, now_ms: i64) -> Inputs {
    let strike = decimal_f64(contract.strike);
    let years = years_to_expiry(now_ms, contract.expiry);
    Inputs {
        spot,
        strike,
        years,
        rate: pricing::RISK_FREE_RATE,
        dividend_yield: u.dividend_yield,
        vol: pricing::smile(u.vol, spot, strike, years),
    }
}

/// What a contract shows at a moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    pub valuation: Valuation,
    /// The volatility it is valued at: its implied volatility.
    pub vol: f64,
    pub bid: Decimal,
    pub ask: Decimal,
    /// Contracts offered at the bid and the ask.
    pub bid_size: u64,
    pub ask_size: u64,
    pub liquidity: f64,
}

/// Refuses an order's `price` off the tick of a contract at that premium ([`tick`]), as the
/// exchanges do.
pub fn check_tick(penny: bool, field: &str, price: Decimal) -> Result<(), crate::Rejection> {
    let tick = tick(penny, decimal_f64(price));
    if (price % tick).is_zero() {
        return Ok(());
    }
    Err(crate::Rejection::illegal_parameter(format!(
        "{field} {price} is not on the contract's tick: at this premium it trades in steps of {tick}"
    )))
}

/// The contract's market with the underlying at `spot` at `now_ms`.
pub fn mark(contract: &Contract, u: &Underlying, spot: f64, now_ms: i64) -> Mark {
    let i = inputs(contract, u, spot, now_ms);
    let valuation = pricing::value(contract.right, &i);
    let liquidity = liquidity(spot, i.strike, i.years, u.vol);
    let (bid, ask) = spread(valuation.price, u.penny, liquidity);
    let size = |scale: f64| {
        #[expect(clippy::cast_possible_truncation, reason = "at most a few hundred contracts")]
        let contracts = (1.0 + liquidity * scale).round() as u64;
        contracts
    };
    Mark {
        valuation,
        vol: i.vol,
        bid,
        ask,
        bid_size: if bid > Decimal::ZERO { size(250.0) } else { 0 },
        ask_size: size(300.0),
        liquidity,
    }
}

/// The bid and ask around a fair value: at least a tick apart, the bid at least zero.
pub fn spread(fair: f64, penny: bool, liquidity: f64) -> (Decimal, Decimal) {
    let tick = tick(penny, fair);
    let half = fair * (0.01 + 0.04 * (1.0 - liquidity.clamp(0.0, 1.0)));
    let bid = to_tick(fair - half, tick, Rounding::Down).max(Decimal::ZERO);
    let ask = to_tick(fair + half, tick, Rounding::Up).max(bid + tick);
    (bid, ask)
}

/// A trade's price at a fair value: the nearest tick, at least one tick.
pub fn print_price(fair: f64, penny: bool) -> Decimal {
    let tick = tick(penny, fair);
    to_tick(fair, tick, Rounding::Nearest).max(tick)
}

#[derive(Debug, Clone, Copy)]
enum Rounding {
    Down,
    Up,
    Nearest,
}

/// `price` on a multiple of `tick` (whole cents), in float arithmetic: a price a billionth of a
/// tick off a multiple is taken as on it, so that `1.0 / 0.01` rounds up to 100, not 101.
fn to_tick(price: f64, tick: Decimal, rounding: Rounding) -> Decimal {
    const NEAR: f64 = 1e-9;
    let tick_cents = (tick * Decimal::ONE_HUNDRED).trunc();
    let ticks = price / decimal_f64(tick);
    let whole = match rounding {
        Rounding::Down => (ticks + NEAR).floor(),
        Rounding::Up => (ticks - NEAR).ceil(),
        Rounding::Nearest => ticks.round(),
    };
    if !whole.is_finite() {
        return Decimal::ZERO;
    }
    #[expect(clippy::cast_possible_truncation, reason = "a premium's ticks are far below 2^63")]
    let whole = whole as i64;
    Decimal::new(whole.saturating_mul(i64::try_from(tick_cents).unwrap_or(1)), 2).normalize()
}

/// A decimal as a float (strikes and prices are far within an f64's exact range).
pub fn decimal_f64(d: Decimal) -> f64 {
    use rust_decimal::prelude::ToPrimitive;
    d.to_f64().unwrap_or(0.0)
}

/// Whether `contract` is in the money by at least a cent with the underlying at `spot`.
pub fn in_the_money(contract: &Contract, spot: Decimal) -> bool {
    let cent = Decimal::new(1, 2);
    match contract.right {
        Right::Call => spot - contract.strike >= cent,
        Right::Put => contract.strike - spot >= cent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::parse_day;
    use crate::simulator::clock::CORE_OPEN;

    fn aapl() -> Underlying {
        Underlying {
            instrument_id: 3,
            symbol: "AAPL".into(),
            etf: false,
            prev_close: 443.66,
            vol: 0.3,
            dividend_yield: 0.024,
            penny: true,
        }
    }

    #[test]
    fn prices_off_the_tick_are_refused() {
        let ok = |penny: bool, price: &str| check_tick(penny, "limit_price", price.parse().unwrap()).is_ok();
        // Penny names: cents below $3, nickels above; the others nickels, then dimes.
        assert!(ok(true, "2.99") && ok(true, "3.05") && !ok(true, "3.52"));
        assert!(ok(false, "2.95") && !ok(false, "2.97") && ok(false, "3.10") && !ok(false, "3.15"));
    }

    fn contract(right: Right, strike: i64) -> Contract {
        Contract {
            underlying: "AAPL".into(),
            expiry: parse_day("2013-04-19").unwrap(),
            right,
            strike: Decimal::from(strike),
        }
    }

    #[test]
    fn realized_volatility_annualizes_the_daily_returns() {
        // Alternating ±1 % moves: a daily standard deviation of about 1 %.
        let closes: Vec<f64> = (0..31).map(|i| if i % 2 == 0 { 100.0 } else { 101.0 }).collect();
        let vol = realized_vol(&closes).unwrap();
        assert!((vol - 0.0100 * 252f64.sqrt()).abs() < 0.01, "{vol}");
        assert_eq!(realized_vol(&closes[..5]), None);
        // Only the last thirty returns count.
        let mut longer = vec![100.0, 150.0, 80.0];
        longer.extend(&closes);
        assert_eq!(realized_vol(&longer), Some(vol));
    }

    #[test]
    fn put_call_parity_holds_within_the_spread_at_every_strike() {
        let u = aapl();
        let now = utc_ms_of(parse_day("2013-03-01").unwrap(), CORE_OPEN + 3600);
        for strike in (230..=660).step_by(10) {
            let (call, put) = (
                mark(&contract(Right::Call, strike), &u, 443.0, now),
                mark(&contract(Right::Put, strike), &u, 443.0, now),
            );
            let i = inputs(&contract(Right::Call, strike), &u, 443.0, now);
            let forward = 443.0 * (-u.dividend_yield * i.years).exp() - strike as f64 * (-i.rate * i.years).exp();
            let (low, high) = (
                decimal_f64(call.bid - put.ask) - 1e-9,
                decimal_f64(call.ask - put.bid) + 1e-9,
            );
            assert!(low <= forward && forward <= high, "{strike}: {low} {forward} {high}");
            assert!(call.bid < call.ask && put.bid < put.ask);
        }
    }

    #[test]
    fn the_spread_widens_away_from_the_money_and_prices_sit_on_ticks() {
        let u = aapl();
        let now = utc_ms_of(parse_day("2013-03-01").unwrap(), CORE_OPEN);
        let width = |strike| {
            let m = mark(&contract(Right::Call, strike), &u, 443.0, now);
            decimal_f64(m.ask - m.bid) / m.valuation.price.max(0.01)
        };
        assert!(width(440) < width(520), "{} {}", width(440), width(520));
        let m = mark(&contract(Right::Call, 440), &u, 443.0, now);
        assert!(m.liquidity > mark(&contract(Right::Call, 600), &u, 443.0, now).liquidity);
        assert_eq!((m.bid / Decimal::new(5, 2)).fract(), Decimal::ZERO, "above $3: nickels");
        assert_eq!(tick(true, 1.0), Decimal::new(1, 2));
        assert_eq!(tick(false, 1.0), Decimal::new(5, 2));
        assert_eq!(tick(false, 10.0), Decimal::new(10, 2));
        // A worthless contract: no bid, a tick's ask.
        let far = mark(&contract(Right::Call, 2000), &u, 443.0, now);
        assert_eq!((far.bid, far.ask, far.bid_size), (Decimal::ZERO, Decimal::new(1, 2), 0));
        assert_eq!(print_price(0.001, true), Decimal::new(1, 2));
    }

    #[test]
    fn the_clock_runs_to_the_expiry_days_close() {
        let friday = parse_day("2013-04-19").unwrap();
        assert_eq!(years_to_expiry(utc_ms_of(friday, 16 * 3600), friday), 0.0);
        let a_day = years_to_expiry(utc_ms_of(friday - 1, 16 * 3600), friday);
        assert!((a_day - 1.0 / 365.0).abs() < 1e-12);
        let call = contract(Right::Call, 430);
        assert!(in_the_money(&call, Decimal::new(43001, 2)));
        assert!(!in_the_money(&call, Decimal::new(430005, 3)));
        assert!(in_the_money(&contract(Right::Put, 430), Decimal::from(400)));
    }
}
