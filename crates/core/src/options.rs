//! Listed options and their market, read off the simulator so that every number agrees with the
//! underlying's quote: the chain listed today, each contract's mark (fair value, greeks, bid and
//! ask) at the underlying's last price, and its prints of the day so far.
//!
//! An underlying is optionable when the simulator quotes it and it closed the day before at $1
//! or more. What its contracts are priced from ([`Underlying`]) is read once a day: its
//! realized volatility over the last thirty daily returns, its dividends of the last year, and
//! whether it is in the penny program. A contract's day of prints is drawn once and kept.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use rust_decimal::Decimal;
use signet_domain::marketdata::{ActionKind, InstrumentType};
use signet_domain::options::market::{self, Mark, Underlying};
use signet_domain::options::tape::{self, Print};
use signet_domain::options::{Contract, Right, chain, pricing};
use signet_domain::simulator::Quote;
use signet_domain::simulator::calendar;
use signet_domain::simulator::clock::{CORE_OPEN, NewYork, Session, core_close, utc_ms_of};
use signet_domain::simulator::daypath::DayPath;
use signet_store::{Store, StoreError};

use crate::simulator::{ContractQuotes, MarketError, Simulator};

#[derive(Debug, thiserror::Error)]
pub enum OptionsError {
    #[error(transparent)]
    Market(#[from] MarketError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A symbol that is not an OCC option symbol.
    #[error(transparent)]
    BadSymbol(#[from] signet_domain::options::BadSymbol),
    /// An underlying without options, or a contract not listed today.
    #[error("{0}")]
    NotListed(String),
}

/// Underlyings below this close list no options.
pub const MIN_UNDERLYING_PRICE: f64 = 1.0;
/// Underlyings of a day kept before that cache starts again (a day lists about 10,000 at most,
/// each about 1 KB with its strikes).
const MAX_UNDERLYINGS: usize = 20_000;
/// Contracts' days of prints kept before that cache starts again: a day is at most about 700
/// prints (a busy contract's), 22 KB, so at most about 90 MB.
const MAX_TAPES: usize = 4_096;

/// What a cache entry is for: an underlying's or a contract's id, the New York day and the seed
/// (a restore may change the seed within a day).
type DayKey = (i64, i32, u64);

/// The options of the simulator's market: what each underlying's contracts are priced from
/// today, the chains listed, each contract's market and its days of trades.
pub struct Options {
    simulator: Arc<Simulator>,
    store: Arc<dyn Store>,
    underlyings: Mutex<HashMap<DayKey, Listed>>,
    tapes: Mutex<HashMap<DayKey, Arc<[Print]>>>,
    /// The expiries listed on a day, for that day.
    expiries: Mutex<Option<(i32, Arc<[i32]>)>>,
}

/// An underlying of a day and the strikes listed around its previous close.
#[derive(Clone)]
struct Listed {
    u: Arc<Underlying>,
    strikes: Arc<[Decimal]>,
}

/// A contract's market now.
#[derive(Debug, Clone)]
pub struct OptionQuote {
    pub contract: Contract,
    pub instrument_id: i64,
    pub underlying: Arc<Underlying>,
    /// The simulated time of the quote: the underlying's.
    pub time_ms: i64,
    /// The underlying's last price the mark is taken at.
    pub spot: Decimal,
    pub mark: Mark,
    /// Today's prints so far, oldest first.
    pub prints: Vec<Print>,
    /// Its value at the previous trading day's close.
    pub pre_close: Decimal,
    pub open_interest: u64,
}

impl ContractQuotes for Options {
    /// A contract's market as a [`Quote`]: its bid and ask, its last print (else its previous
    /// close) and the day's volume of contracts. Options trade in the core session only: in any
    /// other the quote says the market is closed.
    fn quote_at(&self, contract_id: i64, time_ms: i64) -> Option<Quote> {
        let (contract, u) = self.contract_of_id(contract_id)?;
        let underlying = self.simulator.quote_of(u.instrument_id, time_ms)?;
        Some(self.trading_quote(contract_id, &contract, &u, &underlying))
    }

    fn trades(&self, contract_id: i64, day: i32, from: i64, until: i64) -> Option<Vec<(Decimal, u64)>> {
        let (contract, u) = self.contract_of_id(contract_id)?;
        if day != self.today() {
            return None;
        }
        let prints = self.prints_today(contract_id, &contract, &u);
        Some(
            prints
                .iter()
                .filter(|p| (from..until).contains(&p.second))
                .map(|p| (p.price, p.volume))
                .collect(),
        )
    }

    fn prepare<'a>(&'a self, contract_ids: &'a [i64]) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(async move {
            let mut underlyings: Vec<i64> = contract_ids
                .iter()
                .filter_map(|&id| Contract::of_id(id))
                .map(|p| p.underlying_id)
                .collect();
            underlyings.dedup();
            for id in underlyings {
                let Some(symbol) = self.simulator.symbol_of(id) else {
                    continue;
                };
                if let Err(e) = self.listed(&symbol).await {
                    tracing::warn!(symbol, error = %e, "the options of an underlying cannot be quoted");
                }
            }
        })
    }
}

/// A contract's value at the close of the trading day before New York `day` (on its tick), and
/// that close's time.
fn pre_close(contract: &Contract, u: &Underlying, day: i32) -> (Decimal, i64) {
    let before = calendar::previous_trading_day(day);
    let at_close = utc_ms_of(before, core_close(before));
    let price = market::print_price(
        pricing::value(contract.right, &market::inputs(contract, u, u.prev_close, at_close)).price,
        u.penny,
    );
    (price, at_close)
}

/// One bar of a contract, prices in cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionBar {
    /// The bar's start, UTC epoch milliseconds.
    pub time_ms: i64,
    pub open: i64,
    pub high: i64,
    pub low: i64,
    pub close: i64,
    pub volume: u64,
}

fn cents(d: Decimal) -> i64 {
    i64::try_from((d * Decimal::ONE_HUNDRED).round()).unwrap_or(i64::MAX)
}

impl Options {
    /// The options of `simulator`'s market, which from now on quotes option contracts from
    /// here ([`Simulator::quote_contracts_with`]).
    pub fn start(simulator: Arc<Simulator>, store: Arc<dyn Store>) -> Arc<Self> {
        let options = Arc::new(Options {
            simulator,
            store,
            underlyings: Mutex::new(HashMap::new()),
            tapes: Mutex::new(HashMap::new()),
            expiries: Mutex::new(None),
        });
        let source: std::sync::Weak<dyn ContractQuotes> = Arc::downgrade(&options) as _;
        options.simulator.quote_contracts_with(source);
        options
    }

    /// The simulator's New York day now.
    pub fn today(&self) -> i32 {
        NewYork::of(self.simulator.now_ms()).day
    }

    /// The expiries listed today.
    pub fn expiries(&self) -> Arc<[i32]> {
        let today = self.today();
        let mut kept = self.expiries.lock();
        match &*kept {
            Some((day, expiries)) if *day == today => expiries.clone(),
            _ => {
                let expiries: Arc<[i32]> = chain::expiries(today).into();
                *kept = Some((today, expiries.clone()));
                expiries
            }
        }
    }

    /// What `symbol`'s contracts are priced from today; refused when it lists no options.
    pub async fn underlying(&self, symbol: &str) -> Result<Arc<Underlying>, OptionsError> {
        Ok(self.listed(symbol).await?.u)
    }

    /// `symbol` as an underlying today, with its strikes.
    async fn listed(&self, symbol: &str) -> Result<Listed, OptionsError> {
        self.simulator.sync().await.map_err(MarketError::from)?;
        let (today, seed) = (self.today(), self.simulator.seed());
        if let Some(id) = self.simulator.instrument_id(&symbol.to_ascii_uppercase())
            && let Some(listed) = self.underlyings.lock().get(&(id, today, seed))
        {
            return Ok(listed.clone());
        }
        let quote = self.simulator.quote(symbol)?;
        let id = quote.instrument_id;
        let prev_close = market::decimal_f64(quote.pre_close);
        if prev_close < MIN_UNDERLYING_PRICE {
            return Err(OptionsError::NotListed(format!(
                "{} lists no options: an underlying needs a previous close of at least ${MIN_UNDERLYING_PRICE:.2}",
                quote.symbol
            )));
        }
        let bars = self.store.daily_bars(id, today - 70, today - 1).await?;
        let closes: Vec<f64> = bars.iter().map(|b| b.close as f64 / 1e6).collect();
        let listing = self.simulator.listing(id);
        let vol = market::realized_vol(&closes)
            .unwrap_or_else(|| listing.as_ref().map_or(0.02, |l| l.vol) * market::TRADING_DAYS_A_YEAR.sqrt());
        let paid: Decimal = self
            .store
            .corporate_actions(id)
            .await?
            .iter()
            .filter(|a| a.kind == ActionKind::Dividend && (today - 365..today).contains(&a.day))
            .map(|a| a.value)
            .sum();
        let etf = self
            .store
            .instrument(&quote.symbol)
            .await?
            .is_some_and(|i| i.instrument_type == InstrumentType::Etf);
        let u = Underlying {
            instrument_id: id,
            symbol: quote.symbol.clone(),
            etf,
            prev_close,
            vol,
            dividend_yield: market::dividend_yield(market::decimal_f64(paid), prev_close),
            penny: listing.is_some_and(|l| l.volume >= market::PENNY_VOLUME),
        };
        let listed = Listed {
            strikes: chain::strikes(u.prev_close).into(),
            u: Arc::new(u),
        };
        let mut cache = self.underlyings.lock();
        if cache.len() >= MAX_UNDERLYINGS {
            cache.clear();
        }
        cache.insert((id, today, seed), listed.clone());
        Ok(listed)
    }

    /// The contracts of `u` listed today, in the order of their ids: by expiry, then strike,
    /// call before put.
    pub fn chain(&self, u: &Underlying) -> Vec<(i64, Contract)> {
        let strikes = chain::strikes(u.prev_close);
        let mut listed = Vec::with_capacity(strikes.len() * 40);
        for &expiry in self.expiries().iter() {
            for strike in &strikes {
                for right in [Right::Call, Right::Put] {
                    let contract = Contract {
                        underlying: u.symbol.clone(),
                        expiry,
                        right,
                        strike: *strike,
                    };
                    if let Some(id) = contract.instrument_id(u.instrument_id) {
                        listed.push((id, contract));
                    }
                }
            }
        }
        listed
    }

    /// The listed contract an OCC symbol names, with its id and underlying.
    pub async fn contract(&self, symbol: &str) -> Result<(i64, Contract, Arc<Underlying>), OptionsError> {
        let contract = Contract::parse_occ(symbol)?;
        let Listed { u, strikes } = self.listed(&contract.underlying).await?;
        let contract = Contract {
            underlying: u.symbol.clone(),
            ..contract
        };
        let not_listed = || {
            OptionsError::NotListed(format!(
                "{} is not listed today: list {}'s contracts to see the expiries and strikes there are",
                contract.occ_symbol(),
                u.symbol
            ))
        };
        if self.expiries().binary_search(&contract.expiry).is_err() || strikes.binary_search(&contract.strike).is_err()
        {
            return Err(not_listed());
        }
        let id = contract.instrument_id(u.instrument_id).ok_or_else(not_listed)?;
        Ok((id, contract, u))
    }

    /// The contract an id names, with its underlying as listed today, if that is read already
    /// ([`ContractQuotes::prepare`]). A contract stays quoted while it is held, whether or not
    /// today's chain still lists its strike.
    fn contract_of_id(&self, id: i64) -> Option<(Contract, Arc<Underlying>)> {
        let parts = Contract::of_id(id)?;
        let key = (parts.underlying_id, self.today(), self.simulator.seed());
        let u = self.underlyings.lock().get(&key)?.u.clone();
        let contract = Contract {
            underlying: u.symbol.clone(),
            expiry: parts.expiry,
            right: parts.right,
            strike: parts.strike,
        };
        Some((contract, u))
    }

    /// `contract`'s prints on `path`'s day (its underlying's), drawn once.
    pub fn prints_on(&self, id: i64, contract: &Contract, u: &Underlying, path: &DayPath) -> Arc<[Print]> {
        let key = (id, path.day(), self.simulator.seed());
        if let Some(prints) = self.tapes.lock().get(&key) {
            return prints.clone();
        }
        let prints: Arc<[Print]> = tape::day_prints(contract, u, path, key.2).into();
        let mut cache = self.tapes.lock();
        if cache.len() >= MAX_TAPES {
            cache.clear();
        }
        cache.insert(key, prints.clone());
        prints
    }

    /// `contract`'s day of prints on the underlying's path of today.
    fn prints_today(&self, id: i64, contract: &Contract, u: &Underlying) -> Arc<[Print]> {
        let today = self.today();
        match self.simulator.path_today(u.instrument_id).filter(|p| p.day() == today) {
            Some(path) => self.prints_on(id, contract, u, &path),
            None => Arc::from(Vec::new()),
        }
    }

    /// The market of a listed contract now.
    pub async fn quote(&self, symbol: &str) -> Result<OptionQuote, OptionsError> {
        Ok(self.quotes(&[symbol]).await?.remove(0))
    }

    /// The markets of listed contracts now, in the order named: each underlying quoted once.
    pub async fn quotes(&self, symbols: &[&str]) -> Result<Vec<OptionQuote>, OptionsError> {
        let mut contracts = Vec::with_capacity(symbols.len());
        for symbol in symbols {
            contracts.push(self.contract(symbol).await?);
        }
        let mut underlying_quotes: HashMap<i64, Quote> = HashMap::new();
        let mut quotes = Vec::with_capacity(contracts.len());
        for (id, contract, u) in contracts {
            let quote = match underlying_quotes.get(&u.instrument_id) {
                Some(q) => q.clone(),
                None => {
                    let q = self.simulator.quote(&u.symbol)?;
                    underlying_quotes.insert(u.instrument_id, q.clone());
                    q
                }
            };
            quotes.push(self.quote_with(id, contract, u, &quote));
        }
        Ok(quotes)
    }

    /// The underlying's price and the moment options are marked at: now in the core session;
    /// outside it, options do not trade and are valued at the last close's price and time (the
    /// previous trading day's before the open and on days without trading, today's after the
    /// close), whatever the underlying does in the extended sessions. The volatility is the
    /// day's, so before the open it already takes in the previous day's return.
    fn marked_at(&self, u: &Underlying, quote: &Quote) -> (f64, i64) {
        let now = NewYork::of(quote.time_ms);
        let close = core_close(now.day);
        let traded_today = calendar::is_trading_day(now.day) && now.second >= CORE_OPEN;
        if !traded_today {
            let before = calendar::previous_trading_day(now.day);
            return (u.prev_close, utc_ms_of(before, core_close(before)));
        }
        if now.second < close {
            return (market::decimal_f64(quote.last), quote.time_ms);
        }
        let last = self
            .simulator
            .session(u.instrument_id, quote.time_ms)
            .map_or_else(|| market::decimal_f64(quote.last), |s| s.close as f64 / 100.0);
        (last, utc_ms_of(now.day, close))
    }

    /// A contract's market with its underlying quoted `quote`.
    fn quote_with(&self, id: i64, contract: Contract, u: Arc<Underlying>, quote: &Quote) -> OptionQuote {
        let now = NewYork::of(quote.time_ms);
        let (spot, at_ms) = self.marked_at(&u, quote);
        let mark = market::mark(&contract, &u, spot, at_ms);
        let prints: Vec<Print> = self
            .prints_today(id, &contract, &u)
            .iter()
            .take_while(|p| p.second <= now.second)
            .copied()
            .collect();
        let (pre_close, at_close) = pre_close(&contract, &u, now.day);
        // Open interest is the day's: drawn at the contract's liquidity at the previous close.
        let liquidity = market::liquidity(
            u.prev_close,
            market::decimal_f64(contract.strike),
            market::years_to_expiry(at_close, contract.expiry),
            u.vol,
        );
        OptionQuote {
            open_interest: tape::open_interest(&contract, liquidity, self.simulator.seed(), now.day),
            contract,
            instrument_id: id,
            underlying: u,
            time_ms: quote.time_ms,
            spot: Decimal::try_from(spot).unwrap_or(quote.last).round_dp(2),
            mark,
            prints,
            pre_close,
        }
    }

    /// A contract's market now as the engine, placement and the accounts read a quote: its mark
    /// and the day's prints so far, without what only the market-data calls show (greeks, open
    /// interest), and without copying the prints.
    fn trading_quote(&self, id: i64, contract: &Contract, u: &Underlying, quote: &Quote) -> Quote {
        let now = NewYork::of(quote.time_ms);
        let (spot, at_ms) = self.marked_at(u, quote);
        let mark = market::mark(contract, u, spot, at_ms);
        let day = self.prints_today(id, contract, u);
        let so_far = &day[..day.partition_point(|p| p.second <= now.second)];
        let pre_close = pre_close(contract, u, now.day).0;
        Quote {
            instrument_id: id,
            symbol: contract.occ_symbol(),
            time_ms: quote.time_ms,
            session: match quote.session {
                Session::Core => Session::Core,
                _ => Session::Closed,
            },
            last: so_far.last().map_or(pre_close, |p| p.price),
            bid: mark.bid,
            ask: mark.ask,
            bid_size: mark.bid_size,
            ask_size: mark.ask_size,
            open: so_far.first().map_or(pre_close, |p| p.price),
            pre_close,
            volume: so_far.iter().map(|p| p.volume).sum(),
            pinned: quote.pinned,
            held: quote.held,
        }
    }

    /// Bars of `span` seconds of a day's `prints` (New York `day`), newest first.
    pub fn intraday_bars(day: i32, prints: &[Print], span: i64) -> Vec<OptionBar> {
        let trades = prints.iter().map(|p| signet_domain::simulator::path::Trade {
            second: p.second,
            cents: cents(p.price),
            volume: p.volume,
        });
        signet_domain::simulator::intraday::candles(day, trades, span)
            .iter()
            .rev()
            .map(|c| OptionBar {
                time_ms: utc_ms_of(day, c.start),
                open: c.open,
                high: c.high,
                low: c.low,
                close: c.close,
                volume: c.volume,
            })
            .collect()
    }

    /// `q`'s daily bars, newest first, at most `count`: today's of its prints so far, then those
    /// of the days it was listed, valued off the underlying's daily bars (its open, high, low and
    /// close at the underlying's; the volume drawn at the contract's liquidity that day).
    pub async fn daily_bars(&self, q: &OptionQuote, count: usize) -> Result<Vec<OptionBar>, OptionsError> {
        let today = NewYork::of(q.time_ms).day;
        let mut bars = Vec::with_capacity(count);
        if let (Some(first), Some(last)) = (q.prints.first(), q.prints.last()) {
            bars.push(OptionBar {
                time_ms: utc_ms_of(today, 0),
                open: cents(first.price),
                high: q.prints.iter().map(|p| cents(p.price)).max().unwrap_or(0),
                low: q.prints.iter().map(|p| cents(p.price)).min().unwrap_or(0),
                close: cents(last.price),
                volume: q.prints.iter().map(|p| p.volume).sum(),
            });
        }
        // The longest a contract is listed: LEAPS, about three years before their expiry.
        let history = self
            .store
            .daily_bars(q.underlying.instrument_id, today - 3 * 366, today - 1)
            .await?;
        let (contract, u) = (&q.contract, &q.underlying);
        for bar in history.iter().rev() {
            if bars.len() >= count {
                break;
            }
            if chain::expiries(bar.day).binary_search(&contract.expiry).is_err() {
                break;
            }
            let at_close = utc_ms_of(bar.day, core_close(bar.day));
            let value_at = |micros: i64| {
                let spot = micros as f64 / 1e6;
                let fair = pricing::value(contract.right, &market::inputs(contract, u, spot, at_close)).price;
                cents(market::print_price(fair, u.penny))
            };
            let (open, close) = (value_at(bar.open), value_at(bar.close));
            let (at_high, at_low) = (value_at(bar.high), value_at(bar.low));
            let spot = bar.close as f64 / 1e6;
            let liquidity = market::liquidity(
                spot,
                market::decimal_f64(contract.strike),
                market::years_to_expiry(at_close, contract.expiry),
                u.vol,
            );
            bars.push(OptionBar {
                time_ms: utc_ms_of(bar.day, 0),
                open,
                high: open.max(close).max(at_high).max(at_low),
                low: open.min(close).min(at_high).min(at_low),
                close,
                volume: tape::drawn_volume(contract, liquidity, self.simulator.seed(), bar.day),
            });
        }
        Ok(bars)
    }
}
