//! The simulated market's rules: its trading days ([`calendar`]), its clock and sessions ([`clock`]), the path an instrument's
//! price follows through a day ([`path`]), and what it quotes.

pub mod calendar;
pub mod clock;
pub mod daypath;
mod extended;
pub mod intraday;
pub(crate) mod mix;
pub mod path;
pub mod stats;

use rust_decimal::Decimal;

use self::clock::Session;
use crate::trading::bounds::{MAX_PRICE, MAX_QUANTITY};

/// A quote, in dollars.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    pub instrument_id: i64,
    pub symbol: String,
    pub time_ms: i64,
    pub session: Session,
    pub last: Decimal,
    pub bid: Decimal,
    pub ask: Decimal,
    pub bid_size: u64,
    pub ask_size: u64,
    /// The day's open (known from the open on); the high and low so far come from its trades
    /// (`Simulator::session`), not from the quote, which would tell them before they happen.
    pub open: Decimal,
    pub pre_close: Decimal,
    /// Shares traded today so far, this second's included.
    pub volume: u64,
    pub pinned: bool,
    /// Held still by a scenario rule: the quote of the moment the hold began.
    pub held: Option<Held>,
}

/// How a scenario rule holds a symbol still ([`crate::scenarios`]): its quotes frozen (orders
/// still trade, against the frozen quote), or the symbol halted (no new orders, no fills).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    Frozen,
    Halted,
}

/// One price level of the simulated book: a price and the shares shown at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    pub price: Decimal,
    pub size: u64,
}

/// The tick between two levels of the book: a cent.
const TICK: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

impl Quote {
    /// The last price less the previous close.
    pub fn change(&self) -> Decimal {
        self.last - self.pre_close
    }

    /// [`Quote::change`] as a fraction of the previous close, to four places (none without one).
    pub fn change_ratio(&self) -> Option<Decimal> {
        (!self.pre_close.is_zero()).then(|| (self.change() / self.pre_close).round_dp(4))
    }

    /// `levels` levels of each side of the book, best first ([`Quote::level`]). A bid never
    /// goes below a cent, so the bid side may be shorter.
    pub fn book(&self, levels: usize) -> (Vec<Level>, Vec<Level>) {
        let side = |asks: bool| (0..levels).map_while(|i| self.level(asks, i)).collect();
        (side(false), side(true))
    }

    /// Level `i` of the asks (`asks`) or the bids, 0 the best. The best ones are the quote
    /// itself, the bid and ask an order meets with their sizes; each further level is a cent
    /// worse and shows half as many shares again as the best (in round lots); none below a cent.
    pub fn level(&self, asks: bool, i: usize) -> Option<Level> {
        let (best, size, step) = if asks {
            (self.ask, self.ask_size, TICK)
        } else {
            (self.bid, self.bid_size, -TICK)
        };
        let n = u64::try_from(i).ok()?;
        let price = best + step * Decimal::from(n);
        let shown = if n == 0 {
            size
        } else {
            (size + size * n / 2).div_ceil(100).max(1) * 100
        };
        (price >= TICK).then_some(Level { price, size: shown })
    }
}

#[cfg(test)]
impl Quote {
    /// A core-session quote of instrument 1 a cent either side of `last`, `size` shares each side.
    pub fn sample(last: Decimal, size: u64) -> Quote {
        Quote {
            instrument_id: 1,
            symbol: "X".into(),
            time_ms: 0,
            session: Session::Core,
            last,
            bid: last - Decimal::new(1, 2),
            ask: last + Decimal::new(1, 2),
            bid_size: size,
            ask_size: size,
            open: last,
            pre_close: last,
            volume: 0,
            pinned: true,
            held: None,
        }
    }
}

/// A quote pinned by a test or an operator (`signet market set`) until it is released: what
/// orders meet instead of the simulated price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pin {
    pub last: Decimal,
    pub bid: Decimal,
    pub ask: Decimal,
    /// Shares shown at the bid and at the ask.
    pub size: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PinError {
    #[error("a pinned price (price, bid, ask) must be more than 0 and at most {MAX_PRICE}, with at most 4 decimals")]
    Price,
    #[error("a pinned bid must be below its ask")]
    Crossed,
    #[error("a pinned size must be from 1 to {MAX_QUANTITY} shares")]
    Size,
}

impl Pin {
    /// `last`, with a bid and an ask a cent either side and 10,000 shares unless they are given.
    /// Prices and sizes are bounded as an order's are ([`MAX_PRICE`], [`MAX_QUANTITY`]), so that
    /// what a fill at them is worth stays far inside what the arithmetic holds: an unbounded pin
    /// overflowed the quote's spread in every tick of the engine.
    pub fn new(last: Decimal, bid: Option<Decimal>, ask: Option<Decimal>, size: Option<u64>) -> Result<Pin, PinError> {
        let in_bounds =
            |price: Decimal| price > Decimal::ZERO && price <= Decimal::from(MAX_PRICE) && price.scale() <= 4;
        if ![Some(last), bid, ask].into_iter().flatten().all(in_bounds) {
            return Err(PinError::Price);
        }
        let bid = bid.unwrap_or(last - TICK);
        let ask = ask.unwrap_or(last + TICK);
        if bid <= Decimal::ZERO {
            return Err(PinError::Price);
        }
        if bid >= ask {
            return Err(PinError::Crossed);
        }
        let size = size.unwrap_or(10_000);
        if size == 0 || size > MAX_QUANTITY {
            return Err(PinError::Size);
        }
        Ok(Pin { last, bid, ask, size })
    }
}

/// An instrument the simulator quotes.
#[derive(Debug, Clone)]
pub struct Listing {
    pub instrument_id: i64,
    pub symbol: String,
    /// Daily volatility used for drawn days.
    pub vol: f64,
    /// Typical daily volume, for drawn days and quote sizes.
    pub volume: f64,
}

impl Listing {
    /// A listing from the instrument's last snapshot, where it has one: its day's range
    /// (amplitude) is about twice its daily standard deviation.
    pub fn from_snapshot(instrument_id: i64, symbol: String, amplitude: Option<f64>, volume: Option<i64>) -> Self {
        Listing {
            instrument_id,
            symbol,
            vol: amplitude.map_or(0.02, |a| (a / 2.0).clamp(0.005, 0.08)),
            volume: volume.map_or(100_000.0, |v| (v as f64).max(1_000.0)),
        }
    }
}

/// The top of the simulated book: half its spread, in cents, and the shares shown at the bid
/// and at the ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Top {
    pub half_spread: i64,
    pub size: u64,
}

impl Listing {
    /// The top of the book around `price` (cents) after `recent`, the last whole minute's bar
    /// (none in the first minute or outside the core session). The spread is a few basis
    /// points of the price for the most traded instruments and tens for thin ones (it narrows
    /// with the square root of the dollars traded a day), widens with the last minute's range,
    /// and triples outside the core session; the size shown is about an eighth of the last
    /// minute's volume, less when the market moves fast, a tenth of that outside the core
    /// session, in round lots from 100 to 1,000,000 shares.
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a spread in cents and a size are clamped far below 2^63"
    )]
    pub fn top(&self, price: i64, recent: Option<intraday::Candle>, session: Session) -> Top {
        let daily_dollars = (self.volume * price as f64 / 100.0).max(1.0);
        let bps = (25.0 / (daily_dollars / 1e6).sqrt()).clamp(0.5, 100.0);
        let thin = if session == Session::Core { 1.0 } else { 0.0 };
        let (range, minute_volume) = recent.map_or((0.0, self.volume / 390.0), |m| {
            ((m.high - m.low) as f64, m.volume as f64)
        });
        let spread = price as f64 * bps / 1e4 * (3.0 - 2.0 * thin) + 0.03 * range;
        let half_spread = ((spread / 2.0).round() as i64).clamp(1, i64::try_from(MAX_PRICE).unwrap_or(i64::MAX) * 100);
        let shown = minute_volume / 8.0 / (1.0 + 0.5 * range / spread.max(1.0)) * (0.1 + 0.9 * thin);
        Top {
            half_spread,
            size: ((shown / 100.0).round() * 100.0).clamp(100.0, 1_000_000.0) as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_levels_of_the_book_are_the_quote_an_order_meets() {
        let quote = Quote::sample(Decimal::new(10_000, 2), 300);
        let (bids, asks) = quote.book(3);
        assert_eq!(
            bids[0],
            Level {
                price: quote.bid,
                size: 300
            }
        );
        assert_eq!(
            asks[0],
            Level {
                price: quote.ask,
                size: 300
            }
        );
        let prices = |levels: &[Level]| levels.iter().map(|l| l.price.to_string()).collect::<Vec<_>>();
        assert_eq!(prices(&bids), ["99.99", "99.98", "99.97"]);
        assert_eq!(prices(&asks), ["100.01", "100.02", "100.03"]);
        assert_eq!(asks.iter().map(|l| l.size).collect::<Vec<_>>(), [300, 500, 600]);
    }

    #[test]
    fn the_book_is_wider_and_thinner_when_the_market_moves_or_trades_little() {
        let listing = |volume: f64| Listing {
            instrument_id: 1,
            symbol: "X".into(),
            vol: 0.02,
            volume,
        };
        let minute = |range: i64, volume: u64| intraday::Candle {
            day: 1,
            start: clock::CORE_OPEN,
            open: 44_400,
            high: 44_400 + range,
            low: 44_400,
            close: 44_400,
            volume,
        };
        // A large cap at $444 trading 11.5 million shares a day: a spread of a few cents.
        let aapl = listing(11.5e6);
        let calm = aapl.top(44_400, Some(minute(10, 30_000)), Session::Core);
        assert!((1..=3).contains(&calm.half_spread), "{calm:?}");
        let fast = aapl.top(44_400, Some(minute(150, 30_000)), Session::Core);
        assert!(fast.half_spread > calm.half_spread && fast.size < calm.size, "{fast:?}");
        let evening = aapl.top(44_400, None, Session::AfterHours);
        assert!(
            evening.half_spread > calm.half_spread && evening.size < calm.size,
            "{evening:?}"
        );
        // A $20 stock trading 100,000 shares a day: wider in basis points, a round lot shown.
        let thin = listing(1e5).top(2_000, Some(minute(2, 300)), Session::Core);
        assert!(
            thin.half_spread * 10_000 / 2_000 > calm.half_spread * 10_000 / 44_400,
            "{thin:?}"
        );
        assert_eq!(thin.size, 100);
        assert_eq!(calm.size % 100, 0);
    }

    #[test]
    fn bids_stop_at_a_cent() {
        let mut quote = Quote::sample(Decimal::new(3, 2), 100);
        quote.bid = Decimal::new(2, 2);
        let (bids, asks) = quote.book(5);
        assert_eq!(
            bids.iter().map(|l| l.price.to_string()).collect::<Vec<_>>(),
            ["0.02", "0.01"]
        );
        assert_eq!(asks.len(), 5);
    }

    #[test]
    fn a_pin_is_bounded_as_an_order_is() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let pin = Pin::new(d("400"), None, None, None).unwrap();
        assert_eq!((pin.bid, pin.ask, pin.size), (d("399.99"), d("400.01"), 10_000));
        assert!(
            Pin::new(
                d("10000000"),
                Some(d("9999999.99")),
                Some(d("10000000")),
                Some(10_000_000)
            )
            .is_ok()
        );
        for (last, bid, ask) in [
            ("0", None, None),
            ("0.01", None, None),
            ("10000000.01", None, None),
            ("1000000000000000000000", Some("1"), Some("2")),
            (
                "79228162514264337593543950000",
                Some("1"),
                Some("79228162514264337593543950000"),
            ),
            ("1.00001", None, None),
            ("400", Some("-1"), None),
            ("400", None, Some("20000000")),
        ] {
            let pinned = Pin::new(d(last), bid.map(d), ask.map(d), None);
            assert_eq!(pinned, Err(PinError::Price), "{last} {bid:?} {ask:?}");
        }
        assert_eq!(
            Pin::new(d("400"), Some(d("401")), Some(d("400")), None),
            Err(PinError::Crossed)
        );
        for size in [0, 10_000_001, u64::MAX] {
            assert_eq!(Pin::new(d("400"), None, None, Some(size)), Err(PinError::Size));
        }
    }

    #[test]
    fn change_and_its_ratio_are_against_the_previous_close() {
        let mut quote = Quote::sample(Decimal::new(10_500, 2), 100);
        quote.pre_close = Decimal::new(10_000, 2);
        assert_eq!(quote.change(), Decimal::new(500, 2));
        assert_eq!(quote.change_ratio(), Some(Decimal::new(500, 4)));
        quote.pre_close = Decimal::ZERO;
        assert_eq!(quote.change_ratio(), None);
    }
}
