//! The demo dataset of `signet serve --demo`: real where open data exists, generated from a
//! fixed seed where it does not, and loaded once per database.
//!
//! Real (files in `data/demo/`, compiled into the binary): the 10,365 US-listed companies with
//! CIK, exchange, and sector and index membership for about 1,100; daily prices 2000-03-01 to
//! 2013-03-01 of AAPL, IBM, MSFT, GOOG and FB, with the splits and (approximate) dividends they
//! imply; SEC facts of Snowflake; the ETF flag of a few well-known funds.
//!
//! Generated (seed [`SEED`], a fixed algorithm so that every build makes the same data): for
//! every other company listed on Nasdaq, NYSE or Cboe, one year of daily bars ending on the last
//! real day (2013-03-01), on the real trading calendar, from a market factor, a sector factor and
//! the company's own noise, with a size drawn for its index membership; shares outstanding;
//! trailing EPS; quarterly dividends for a share of companies that depends on the sector. The five
//! real series get generated shares outstanding and EPS too. Generated bars and dividends are
//! marked `generated` in the database. OTC companies get no prices.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use rust_decimal::Decimal;
use signet_domain::marketdata::fundamentals;
use signet_domain::marketdata::rng::Rng;
use signet_domain::marketdata::units::to_micros;
use signet_domain::marketdata::{
    ActionKind, ActionSource, Bar, CorporateAction, Instrument, InstrumentType, InstrumentUpdate, SymbolBar,
};
use signet_store::{Store, StoreError};
use tokio::sync::mpsc;

use crate::{Chunk, ImportError, ImportMessage, ImportOptions, Progress, Source, import};

/// The seed of every generated number.
pub const SEED: u64 = 2013;
/// Bumped when the dataset changes, so that databases loaded before get the new one.
const VERSION: &str = "2";
const META_KEY: &str = "demo_dataset";

const FILES: [(&str, &[u8]); 6] = [
    (
        "data/demo/us_listed_companies.csv",
        include_bytes!("../../../data/demo/us_listed_companies.csv"),
    ),
    (
        "data/demo/daily_ohlcv_2000_2013.csv.gz",
        include_bytes!("../../../data/demo/daily_ohlcv_2000_2013.csv.gz"),
    ),
    (
        "data/demo/companyfacts_CIK0001640147.json.gz",
        include_bytes!("../../../data/demo/companyfacts_CIK0001640147.json.gz"),
    ),
    (
        "data/demo/etfs_nasdaqlisted.txt",
        include_bytes!("../../../data/demo/etfs_nasdaqlisted.txt"),
    ),
    (
        "data/demo/etfs_otherlisted.txt",
        include_bytes!("../../../data/demo/etfs_otherlisted.txt"),
    ),
    (
        "data/demo/funds.jsonl",
        include_bytes!("../../../data/demo/funds.jsonl"),
    ),
];

/// The series whose calendar the generated bars follow.
const CALENDAR_SYMBOL: &str = "AAPL";
/// Trading days generated per company: a year, and one more day for the first change.
const GENERATED_DAYS: usize = 253;
/// Daily volatility of a sector's common move.
const SECTOR_VOL: f64 = 0.006;
/// Trading days of generated capital flow.
const CAPITAL_FLOW_DAYS: usize = 5;

#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the demo dataset is inconsistent: {0}")]
    Data(String),
}

#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct DemoSummary {
    pub instruments: usize,
    pub generated_series: usize,
    pub generated_bars: usize,
    pub snapshots: usize,
    pub seconds: f64,
}

/// Loads the demo dataset unless this database has it already (whatever else it holds).
pub async fn ensure_loaded(store: Arc<dyn Store>) -> Result<Option<DemoSummary>, DemoError> {
    if store.meta(META_KEY).await?.as_deref() == Some(VERSION) {
        return Ok(None);
    }
    let started = Instant::now();
    for (name, bytes) in FILES {
        let source = Source::Embedded { name, bytes };
        import(
            store.clone(),
            source,
            &ImportOptions::default(),
            Arc::new(Progress::default()),
        )
        .await?;
    }

    let instruments = store.instruments().await?;
    let calendar_instrument = instruments
        .iter()
        .find(|i| i.symbol == CALENDAR_SYMBOL)
        .ok_or_else(|| DemoError::Data(format!("{CALENDAR_SYMBOL} is missing")))?;
    let last_day = store
        .latest_bar_day()
        .await?
        .ok_or_else(|| DemoError::Data("the real price history is missing".into()))?;
    let calendar: Vec<i32> = store
        .daily_bars(calendar_instrument.instrument_id, last_day - 400, last_day)
        .await?
        .iter()
        .map(|b| b.day)
        .collect();
    let calendar = calendar[calendar.len().saturating_sub(GENERATED_DAYS)..].to_vec();
    let last_closes = store.closes_before(i32::MAX).await?;
    let recent_days = calendar[calendar.len().saturating_sub(CAPITAL_FLOW_DAYS)..].to_vec();

    let (tx, rx) = mpsc::channel(4);
    let writer = {
        let store = store.clone();
        tokio::spawn(async move { store.import(rx).await })
    };
    let generate = tokio::task::spawn_blocking(move || generate(&instruments, &last_closes, &calendar, &tx));
    let (series, bars) = generate.await.map_err(|e| DemoError::Data(e.to_string()))?;
    writer.await.map_err(|e| DemoError::Data(e.to_string()))??;
    tracing::debug!(
        seconds = started.elapsed().as_secs_f64(),
        "demo: series generated and stored"
    );

    // The records touch no figure of the snapshots: both at once.
    let (fundamentals, snapshots) = tokio::join!(
        generate_fundamentals(store.clone(), &recent_days),
        signet_store::refresh_snapshots(store.as_ref(), None)
    );
    fundamentals?;
    let (_, snapshots) = snapshots?;
    store.init_meta(META_KEY, VERSION).await?;
    Ok(Some(DemoSummary {
        instruments: store.instruments().await?.len(),
        generated_series: series,
        generated_bars: bars,
        snapshots,
        seconds: started.elapsed().as_secs_f64(),
    }))
}

/// Generates the fundamentals no open source gives (see [`fundamentals::generate`]) from the
/// stored prices, and stores them in one transaction.
async fn generate_fundamentals(store: Arc<dyn Store>, recent_days: &[i32]) -> Result<(), DemoError> {
    let instruments = store.instruments().await?;
    let (Some(&first), Some(&last)) = (recent_days.first(), recent_days.last()) else {
        return Ok(());
    };
    let mut recent_bars: Vec<(i32, Vec<(i64, Bar)>)> = recent_days.iter().map(|&day| (day, Vec::new())).collect();
    for (id, bar) in store.bars_between(first, last).await? {
        if let Some((_, bars)) = recent_bars.iter_mut().find(|(day, _)| *day == bar.day) {
            bars.push((id, bar));
        }
    }
    // Every priced instrument trades on the last day (the real series run to it).
    let last_closes: HashMap<i64, i64> = recent_bars
        .last()
        .map(|(_, bars)| bars.iter().map(|(id, bar)| (*id, bar.close)).collect())
        .unwrap_or_default();
    let ciks_with_facts: HashSet<String> = store.ciks_with_facts().await?.into_iter().collect();
    let records = fundamentals::generate::generate(&fundamentals::generate::Inputs {
        seed: SEED,
        instruments: &instruments,
        last_closes: &last_closes,
        recent_bars: &recent_bars,
        ciks_with_facts: &ciks_with_facts,
    });
    let (tx, rx) = mpsc::channel(4);
    let writer = tokio::spawn(async move { store.import(rx).await });
    for message in [ImportMessage::Chunk(Chunk::Records(records)), ImportMessage::Commit] {
        if tx.send(message).await.is_err() {
            break;
        }
    }
    drop(tx);
    writer.await.map_err(|e| DemoError::Data(e.to_string()))??;
    Ok(())
}

/// Generates and sends everything the real files lack; returns the number of generated series
/// and bars. Runs on a blocking thread.
#[expect(
    clippy::cast_possible_truncation,
    reason = "simulated prices and volumes are far below 2^63"
)]
fn generate(
    instruments: &[Instrument],
    last_closes: &HashMap<i64, i64>,
    calendar: &[i32],
    tx: &mpsc::Sender<ImportMessage>,
) -> (usize, usize) {
    let send = |chunk| tx.blocking_send(ImportMessage::Chunk(chunk)).is_ok();
    let mut rng = Rng::new(SEED);
    let days = calendar.len();
    // One market path and one path per sector, shared by every company.
    let market: Vec<f64> = (0..days).map(|_| rng.normal(0.0004, 0.009)).collect();
    let mut sector_paths: HashMap<&str, Vec<f64>> = HashMap::new();

    let (mut series, mut generated_bars) = (0, 0);
    let mut updates = Vec::new();
    let mut bars = Vec::new();
    let mut actions = Vec::new();
    for instrument in instruments {
        let listed = matches!(
            instrument.exchange.as_deref(),
            Some("NASDAQ" | "NYSE" | "CBOE" | "NYSE_ARCA" | "NYSE_AMERICAN")
        );
        let real_close = last_closes.get(&instrument.instrument_id).map(|&c| c as f64 / 1e6);
        if !listed && real_close.is_none() {
            continue;
        }
        let profile = Profile::draw(&mut rng, instrument);
        let mut last_close = real_close.unwrap_or(profile.price);
        if real_close.is_none() {
            let sector = instrument.sector.as_deref().unwrap_or("");
            let sector_path = sector_paths
                .entry(sector)
                .or_insert_with(|| (0..days).map(|_| rng.normal(0.0, SECTOR_VOL)).collect())
                .clone();
            let mut close = profile.price;
            for (t, &day) in calendar.iter().enumerate() {
                let r = profile.beta * market[t] + sector_path[t] + rng.normal(0.0, profile.vol);
                let open = close * (rng.normal(0.0, profile.vol * 0.3)).exp();
                let next = (close * r.exp()).max(0.5);
                let high = open.max(next) * (rng.normal(0.0, profile.vol * 0.5).abs()).exp();
                let low = open.min(next) * (-rng.normal(0.0, profile.vol * 0.5).abs()).exp();
                let volume =
                    (profile.shares as f64 * profile.turnover * rng.normal(0.0, 0.35).exp() * (1.0 + 8.0 * r.abs()))
                        .max(100.0) as i64;
                let cents = |p: f64| (p * 100.0).round() as i64 * 10_000;
                let (open, high, low, close_c) = (cents(open), cents(high), cents(low), cents(next));
                bars.push(SymbolBar {
                    symbol: instrument.symbol.clone(),
                    bar: Bar {
                        day,
                        open,
                        high: high.max(open).max(close_c),
                        low: low.min(open).min(close_c),
                        close: close_c,
                        volume,
                        adj_close: None,
                    },
                });
                close = next;
                if let Some(yield_) = profile.dividend_yield
                    && t % 63 == profile.dividend_offset
                    && t > 0
                {
                    let amount = Decimal::from_f64_retain(close * yield_ / 4.0)
                        .unwrap_or_default()
                        .round_dp(2);
                    if !amount.is_zero() {
                        actions.push((
                            instrument.symbol.clone(),
                            CorporateAction {
                                day,
                                kind: ActionKind::Dividend,
                                value: amount,
                                source: ActionSource::Generated,
                            },
                        ));
                    }
                }
            }
            last_close = close;
            series += 1;
            generated_bars += days;
        }
        if instrument.instrument_type == InstrumentType::Etf
            && let Some(&today) = calendar.last()
        {
            let distributions = fundamentals::generate::fund_distributions(SEED, &instrument.symbol, last_close, today);
            actions.extend(distributions.into_iter().map(|a| (instrument.symbol.clone(), a)));
        }
        updates.push(InstrumentUpdate {
            symbol: instrument.symbol.clone(),
            shares_outstanding: instrument.shares_outstanding.is_none().then_some(profile.shares),
            eps_ttm_e6: instrument
                .eps_ttm_e6
                .is_none()
                .then(|| to_micros(Decimal::from_f64_retain(last_close / profile.pe).unwrap_or_default()).unwrap_or(0)),
            ..InstrumentUpdate::default()
        });
        if bars.len() >= 8192
            && !send(Chunk::Bars {
                bars: std::mem::take(&mut bars),
                generated: true,
            })
        {
            return (series, generated_bars);
        }
    }
    let _ = send(Chunk::Bars { bars, generated: true })
        && send(Chunk::Actions(actions))
        && send(Chunk::Instruments(updates))
        && tx.blocking_send(ImportMessage::Commit).is_ok();
    (series, generated_bars)
}

/// A company's drawn characteristics.
struct Profile {
    price: f64,
    shares: i64,
    vol: f64,
    beta: f64,
    turnover: f64,
    pe: f64,
    dividend_yield: Option<f64>,
    dividend_offset: usize,
}

impl Profile {
    #[expect(clippy::cast_possible_truncation, reason = "share counts and an offset below 63")]
    fn draw(rng: &mut Rng, instrument: &Instrument) -> Self {
        let indices = instrument.indices.as_deref().unwrap_or("");
        // Market value in dollars: large for index members, small for the rest of the listings.
        let (median_value, spread) = if indices.contains("NASDAQ 100") || indices.contains("S&P 100") {
            (60e9, 0.9)
        } else if indices.contains("S&P 500") || indices.contains("DOW JONES") {
            (20e9, 0.9)
        } else if indices.contains("S&P 600") {
            (1.5e9, 0.7)
        } else {
            (0.6e9, 1.5)
        };
        let value = (median_value * rng.normal(0.0, spread).exp()).clamp(2e7, 8e11);
        let price = (if median_value > 1e9 { 60.0 } else { 25.0 } * rng.normal(0.0, 0.8).exp()).clamp(1.0, 900.0);
        let sector = instrument.sector.as_deref().unwrap_or("");
        let (sector_vol, pe_median, payer_share, yield_range) = match sector {
            "Utilities" => (0.010, 16.0, 0.9, (0.025, 0.05)),
            "Consumer Staples" => (0.011, 19.0, 0.8, (0.015, 0.04)),
            "Real Estate" => (0.014, 30.0, 0.85, (0.025, 0.06)),
            "Financials" => (0.016, 12.0, 0.7, (0.01, 0.045)),
            "Energy" => (0.020, 12.0, 0.7, (0.015, 0.05)),
            "Industrials" => (0.015, 18.0, 0.6, (0.008, 0.03)),
            "Materials" => (0.017, 15.0, 0.6, (0.01, 0.035)),
            "Health Care" => (0.018, 24.0, 0.4, (0.008, 0.025)),
            "Information Technology" => (0.020, 25.0, 0.4, (0.005, 0.025)),
            "Communication Services" => (0.018, 20.0, 0.4, (0.01, 0.04)),
            "Consumer Discretionary" => (0.019, 20.0, 0.45, (0.008, 0.03)),
            _ => (0.025, 18.0, 0.25, (0.01, 0.04)),
        };
        let size_factor = if value < 1e9 {
            1.6
        } else if value > 5e10 {
            0.85
        } else {
            1.0
        };
        let pays = instrument.instrument_type == InstrumentType::Equity && rng.uniform() < payer_share;
        let pe = if rng.uniform() < 0.15 {
            -pe_median
        } else {
            pe_median * rng.normal(0.0, 0.4).exp()
        };
        Profile {
            price,
            shares: (value / price).max(1e5) as i64,
            vol: sector_vol * size_factor,
            beta: 0.6 + 0.8 * rng.uniform(),
            turnover: 0.006 * rng.normal(0.0, 0.5).exp(),
            pe,
            dividend_yield: pays.then(|| yield_range.0 + (yield_range.1 - yield_range.0) * rng.uniform()),
            dividend_offset: (rng.uniform() * 63.0) as usize,
        }
    }
}
