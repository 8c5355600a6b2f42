//! The demo's generated fundamentals, for what no open source gives: analyst target prices and
//! ratings, quarterly EPS and revenue with their estimates, capital flow, and the funds'
//! holdings, ratings, files, allocation and distributions. Every instrument draws from a stream
//! of its own (seeded by the demo seed and its symbol), anchored on its last price, shares
//! outstanding and trailing EPS, so the numbers are plausible: a target price near the price,
//! ratings that lean the way the target does, holdings weights that sum to 100.

use std::collections::{HashMap, HashSet};

use rust_decimal::Decimal;
use rust_decimal::prelude::FromPrimitive;
use signet_model::fundamentals::{AssetShare, FundAllocation, FundFile, FundRating};
use time::Month;

use super::layout::{
    CapitalFlowRecord, EarningsRecord, FundHoldingRecord, RatingRecord, Record, RecordSource, SymbolRecord,
    TargetPriceRecord,
};
use crate::marketdata::rng::Rng;
use crate::marketdata::units::{date_of, day_number, format_day};
use crate::marketdata::{ActionKind, ActionSource, Bar, CorporateAction, Instrument, InstrumentType};

/// The equity funds of the demo: the index whose members they hold, and their yield. The
/// universe file flags no Russell 2000 members, so the S&P 600 small caps stand in for IWM's.
const FUNDS: [(&str, &str, f64); 4] = [
    ("SPY", "S&P 500", 0.020),
    ("QQQ", "NASDAQ 100", 0.009),
    ("DIA", "DOW JONES", 0.022),
    ("IWM", "S&P 600", 0.014),
];

/// What the generator reads.
pub struct Inputs<'a> {
    pub seed: u64,
    pub instruments: &'a [Instrument],
    pub last_closes: &'a HashMap<i64, i64>,
    /// The bars of the last trading days, oldest day first.
    pub recent_bars: &'a [(i32, Vec<(i64, Bar)>)],
    pub ciks_with_facts: &'a HashSet<String>,
}

/// The generated records (the funds' distributions are generated with the prices, see
/// [`fund_distributions`], since the screeners' figures read them).
pub fn generate(inputs: &Inputs) -> Vec<SymbolRecord> {
    let Some(&(last_day, _)) = inputs.recent_bars.last() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let recent: Vec<HashMap<i64, Bar>> = inputs
        .recent_bars
        .iter()
        .map(|(_, bars)| bars.iter().copied().collect())
        .collect();
    for instrument in inputs.instruments {
        let Some(&close) = inputs.last_closes.get(&instrument.instrument_id) else {
            continue;
        };
        let price = close as f64 / 1e6;
        let mut rng = Rng::for_name(inputs.seed, &instrument.symbol);
        let mut push = |record| {
            out.push(SymbolRecord {
                symbol: instrument.symbol.clone(),
                record,
                source: RecordSource::Generated,
            });
        };
        for bars in &recent {
            if let Some(bar) = bars.get(&instrument.instrument_id) {
                push(Record::CapitalFlow(capital_flow(&mut rng, bar)));
            }
        }
        match instrument.instrument_type {
            InstrumentType::Equity => {
                let (target, rating) = analysts(&mut rng, instrument, price, last_day);
                push(Record::AnalystTargetPrice(target));
                push(Record::AnalystRating(rating));
                let has_facts = instrument
                    .cik
                    .as_ref()
                    .is_some_and(|c| inputs.ciks_with_facts.contains(c));
                if !has_facts {
                    for record in earnings(&mut rng, instrument, price, last_day) {
                        push(Record::Earnings(record));
                    }
                }
            }
            InstrumentType::Etf => {
                for record in fund(&mut rng, instrument, price, last_day, inputs) {
                    push(record);
                }
            }
        }
    }
    out
}

fn money(value: f64, places: u32) -> Decimal {
    Decimal::from_f64(value).unwrap_or_default().round_dp(places)
}

/// A day's trading value split by order size, with buying heavier on a rising day.
fn capital_flow(rng: &mut Rng, bar: &Bar) -> CapitalFlowRecord {
    let value = bar.close as f64 / 1e6 * bar.volume as f64;
    let change = if bar.open > 0 {
        bar.close as f64 / bar.open as f64 - 1.0
    } else {
        0.0
    };
    let large = 0.25 + 0.2 * rng.uniform();
    let medium = 0.25 + 0.1 * rng.uniform();
    let mut split = |share: f64| {
        let buying = (0.5 + 4.0 * change + rng.normal(0.0, 0.04)).clamp(0.15, 0.85);
        (
            money(value * share * buying, 0),
            money(value * share * (1.0 - buying), 0),
        )
    };
    let (large_in, large_out) = split(large);
    let (medium_in, medium_out) = split(medium);
    let (small_in, small_out) = split(1.0 - large - medium);
    CapitalFlowRecord {
        date: format_day(bar.day),
        large_in,
        large_out,
        medium_in,
        medium_out,
        small_in,
        small_out,
    }
}

fn is_large(instrument: &Instrument) -> bool {
    let indices = instrument.indices.as_deref().unwrap_or("");
    indices.contains("S&P 500") || indices.contains("NASDAQ 100")
}

/// A consensus target near the price, and grades that lean with its upside.
fn analysts(rng: &mut Rng, instrument: &Instrument, price: f64, day: i32) -> (TargetPriceRecord, RatingRecord) {
    let upside = rng.normal(0.08, 0.12).max(-0.5);
    let mean = price * (1.0 + upside);
    let low = mean * (0.65 + 0.15 * rng.uniform());
    let high = mean * (1.2 + 0.3 * rng.uniform());
    let median = (mean * rng.normal(1.0, 0.03)).clamp(low, high);
    let target = TargetPriceRecord {
        date: format_day(day),
        mean: money(mean, 2),
        low: money(low, 2),
        high: money(high, 2),
        median: money(median, 2),
    };
    let analysts = if is_large(instrument) {
        20 + u32::from(rng.below(25))
    } else {
        1 + u32::from(rng.below(10))
    };
    let weights = [
        (0.2 + upside).max(0.02),
        0.35,
        (0.3 - upside / 2.0).max(0.05),
        0.08,
        0.04,
    ];
    let total: f64 = weights.iter().sum();
    let mut grades = [0u32; 5];
    for _ in 0..analysts {
        let mut u = rng.uniform() * total;
        let grade = weights
            .iter()
            .position(|w| {
                u -= w;
                u < 0.0
            })
            .unwrap_or(4);
        grades[grade] += 1;
    }
    let rating = RatingRecord {
        date: format_day(day),
        strong_buy: grades[0],
        buy: grades[1],
        hold: grades[2],
        sell: grades[3],
        under_perform: grades[4],
    };
    (target, rating)
}

/// The last day of calendar quarter `q` (1 to 4) of `year`.
fn quarter_end(year: i32, q: u8) -> i32 {
    let month = Month::try_from(q * 3).expect("a month");
    day_number(time::Date::from_calendar_date(year, month, month.length(year)).expect("a day"))
}

/// Calendar quarters around `today`: the four before the last published and two to come,
/// with trailing EPS spread over them and revenue from a drawn price-to-sales ratio.
fn earnings(rng: &mut Rng, instrument: &Instrument, price: f64, today: i32) -> Vec<EarningsRecord> {
    let eps_ttm = instrument.eps_ttm_e6.map_or(price / 20.0, |e| e as f64 / 1e6);
    let shares = instrument.shares_outstanding.unwrap_or(10_000_000) as f64;
    let revenue_year = price * shares / (2.0 * rng.normal(0.0, 0.6).exp());
    let today_date = date_of(today);
    let current = (today_date.year(), (u8::from(today_date.month()) - 1) / 3 + 1);
    let mut out = Vec::new();
    // From five quarters before the current one to one after it.
    for offset in -5i32..=1 {
        let index = current.0 * 4 + i32::from(current.1) - 1 + offset;
        let q = u8::try_from(index.rem_euclid(4) + 1).expect("1..=4");
        let year = index.div_euclid(4);
        let end = quarter_end(year, q);
        let publish = end + 20 + i32::from(rng.below(25));
        let eps = eps_ttm / 4.0 * rng.normal(1.0, 0.15);
        let revenue = revenue_year / 4.0 * rng.normal(1.0, 0.05);
        let reported = publish <= today;
        out.push(EarningsRecord {
            fiscal_year: year,
            fiscal_period: format!("Q{q}"),
            end_date: format_day(end),
            publish_date: format_day(publish),
            eps_est: Some(money(eps * rng.normal(1.0, 0.05), 2)),
            rev_est: Some(money(revenue * rng.normal(1.0, 0.02) / 1000.0, 0) * Decimal::ONE_THOUSAND),
            eps_actual: reported.then(|| money(eps, 2)),
            rev_actual: reported.then(|| money(revenue / 1000.0, 0) * Decimal::ONE_THOUSAND),
        });
    }
    out
}

/// A fund's holdings (its index's members, weighted by market value, or by price for the
/// price-weighted Dow), ratings, files and allocation.
fn fund(rng: &mut Rng, fund: &Instrument, price: f64, day: i32, inputs: &Inputs) -> Vec<Record> {
    let mut out = Vec::new();
    let date = format_day(day);
    let index = FUNDS
        .iter()
        .find(|(s, ..)| *s == fund.symbol)
        .map(|&(_, index, _)| index);
    if let Some(index) = index {
        let members: Vec<(&Instrument, f64)> = inputs
            .instruments
            .iter()
            .filter(|i| i.indices.as_deref().is_some_and(|x| x.split(';').any(|n| n == index)))
            .filter_map(|i| {
                let close = *inputs.last_closes.get(&i.instrument_id)? as f64 / 1e6;
                let weight = if index == "DOW JONES" {
                    close
                } else {
                    close * i.shares_outstanding? as f64
                };
                Some((i, weight))
            })
            .collect();
        let total: f64 = members.iter().map(|(_, w)| w).sum();
        let mut holdings: Vec<FundHoldingRecord> = members
            .iter()
            .map(|(i, w)| FundHoldingRecord {
                target_symbol: i.symbol.clone(),
                stock_name: i.name.clone(),
                share_held_pct: money(w / total * 100.0, 4),
                share_held_chg_pct: Some(money(rng.normal(0.0, 1.5), 2)),
                maturity_date: None,
                update_date: date.clone(),
            })
            .collect();
        // Rounding leftovers go to the largest holding, so the weights sum to exactly 100.
        let sum: Decimal = holdings.iter().map(|h| h.share_held_pct).sum();
        if let Some(largest) = holdings
            .iter_mut()
            .max_by(|a, b| a.share_held_pct.cmp(&b.share_held_pct))
        {
            largest.share_held_pct += Decimal::ONE_HUNDRED - sum;
        }
        out.extend(holdings.into_iter().map(Record::FundHolding));
    }

    let aum = price * fund.shares_outstanding.unwrap_or(10_000_000) as f64;
    let share = |ratio: f64| AssetShare {
        value: Some(money(aum * ratio, 0).to_string()),
        ratio: money(ratio, 4).to_string(),
    };
    let stock = if index.is_some() {
        0.995 + 0.004 * rng.uniform()
    } else {
        0.0
    };
    let cash = if index.is_some() { 1.0 - stock } else { 0.0 };
    out.push(Record::FundAllocation(FundAllocation {
        date: date.clone(),
        aum: Some(money(aum, 0).to_string()),
        cash: share(cash),
        bond: share(0.0),
        stock: share(stock),
        preferred: share(0.0),
        convertible: share(0.0),
        other: share(1.0 - stock - cash),
    }));

    for cycle in ["3Y", "5Y", "10Y"] {
        out.push(Record::FundRating(FundRating {
            rating_date: date.clone(),
            rating_agency: "signet demo (generated)".into(),
            rating_cycle: cycle.into(),
            rating_results: (3 + rng.below(3)).min(5).to_string(),
        }));
    }
    for (kind, name, age) in [
        ("PROSPECTUS", "prospectus", 120),
        ("ANNUAL_REPORT", "annual report", 300),
        ("SEMI_ANNUAL_REPORT", "semi-annual report", 150),
    ] {
        let published = day - i32::from(rng.below(age));
        out.push(Record::FundFile(FundFile {
            publish_date: format_day(published),
            url: None,
            file_type: kind.into(),
            file_name: format!("{} {name} {}.pdf", fund.symbol, format_day(published)),
        }));
    }
    out
}

/// An equity fund's quarterly distributions over the year to `today`, at its yield on `price`;
/// none for other funds.
pub fn fund_distributions(seed: u64, symbol: &str, price: f64, today: i32) -> Vec<CorporateAction> {
    match FUNDS.iter().find(|(s, ..)| *s == symbol) {
        // A stream apart from the records' one.
        Some(&(_, _, yield_)) => distributions(&mut Rng::for_name(!seed, symbol), price, yield_, today),
        None => Vec::new(),
    }
}

/// Quarterly distributions over the last year, ex-dividend on the third Friday of the last
/// month of each quarter.
fn distributions(rng: &mut Rng, price: f64, yield_: f64, today: i32) -> Vec<CorporateAction> {
    let year = date_of(today).year();
    let mut out = Vec::new();
    for y in [year - 1, year] {
        for q in 1..=4u8 {
            let month_start = quarter_end(y, q) - i32::from(Month::try_from(q * 3).expect("a month").length(y)) + 1;
            // 1970-01-01 was a Thursday: Friday is day % 7 == 1.
            let first_friday = month_start + (1 - month_start).rem_euclid(7);
            let ex = first_friday + 14;
            if ex > today || ex <= today - 365 {
                continue;
            }
            out.push(CorporateAction {
                day: ex,
                kind: ActionKind::Dividend,
                value: money(price * yield_ / 4.0 * rng.normal(1.0, 0.05), 4),
                source: ActionSource::Generated,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::units::parse_day;

    #[test]
    fn third_fridays_and_quarter_ends() {
        assert_eq!(format_day(quarter_end(2012, 1)), "2012-03-31");
        assert_eq!(format_day(quarter_end(2012, 4)), "2012-12-31");
        let mut rng = Rng::new(1);
        let days: Vec<String> = distributions(&mut rng, 150.0, 0.02, parse_day("2013-03-01").unwrap())
            .iter()
            .map(|a| format_day(a.day))
            .collect();
        assert_eq!(days, ["2012-03-16", "2012-06-15", "2012-09-21", "2012-12-21"]);
    }
}
