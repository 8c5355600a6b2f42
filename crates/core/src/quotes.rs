//! The simulator's quotes and trades in the interface's wire shapes: what the quotes calls answer
//! over HTTP and the quotes feed pushes over MQTT, so that both show the same numbers.

use rust_decimal::Decimal;
use signet_domain::simulator::Quote;
use signet_domain::simulator::clock::{Session, utc_ms_of};
use signet_domain::simulator::daypath::DayPath;
use signet_domain::simulator::intraday::Candle;
use signet_domain::simulator::path::Trade;
use signet_model::quotes::{Snapshot, Tick};

/// Prices as the simulator quotes them and orders fill at: to the cent (`454.30`).
pub fn text(d: Decimal) -> String {
    d.to_string()
}

/// `q` with the day's trading so far (`session`: open, high, low and volume of its trades).
pub fn to_snapshot(q: &Quote, session: Option<Candle>, extended: bool, overnight: bool) -> Snapshot {
    let session = session.filter(|c| c.volume > 0);
    let traded = session.is_some();
    let day = |value: String| traded.then_some(value);
    let (high, low) = session.map_or((q.last, q.last), |c| {
        (Decimal::new(c.high, 2).max(q.last), Decimal::new(c.low, 2).min(q.last))
    });
    // After the core session, its last trade; the price goes on in the after-hours.
    let close = match session {
        Some(c) if q.session != Session::Core => Decimal::new(c.close, 2),
        _ => q.last,
    };
    let change = text(q.change());
    let ratio = q.change_ratio().map(text);
    let mut snapshot = Snapshot {
        symbol: q.symbol.clone(),
        instrument_id: q.instrument_id.to_string(),
        price: text(q.last),
        pre_close: text(q.pre_close),
        change: day(change.clone()),
        change_ratio: ratio.clone().filter(|_| traded),
        open: day(text(q.open)),
        high: day(text(high)),
        low: day(text(low)),
        close: text(close),
        volume: day(q.volume.to_string()),
        bid: text(q.bid),
        bid_size: q.bid_size.to_string(),
        ask: text(q.ask),
        ask_size: q.ask_size.to_string(),
        last_trade_time: q.time_ms,
        trading_session: q.session.as_str().to_owned(),
        ..Snapshot::default()
    };
    if extended && matches!(q.session, Session::PreMarket | Session::AfterHours) {
        snapshot.extend_hour_last_price = Some(text(q.last));
        snapshot.extend_hour_change = Some(change.clone());
        snapshot.extend_hour_change_ratio = ratio.clone();
        snapshot.extend_hour_last_trade_time = Some(q.time_ms);
    }
    if overnight && q.session == Session::Overnight {
        snapshot.ovn_price = Some(text(q.last));
        snapshot.ovn_change = Some(change);
        snapshot.ovn_change_ratio = ratio;
        snapshot.ovn_bid = Some(text(q.bid));
        snapshot.ovn_bid_size = Some(q.bid_size.to_string());
        snapshot.ovn_ask = Some(text(q.ask));
        snapshot.ovn_ask_size = Some(q.ask_size.to_string());
        snapshot.ovn_last_trade_time = Some(q.time_ms);
    }
    snapshot
}

/// `path`'s ticks before `until` (a second after New York midnight, exclusive), newest first,
/// at most `count`: what the ticks call lists and the quotes feed pushes.
pub fn ticks_before(path: &DayPath, until: i64, count: usize) -> Vec<Tick> {
    // The trades up to `until`, and one more for the side of the oldest shown.
    let until = until.min(path.core_close());
    let from = until
        .saturating_sub(i64::try_from(count).unwrap_or(i64::MAX))
        .saturating_sub(1);
    let trades: Vec<Trade> = path.trades(from, until).collect();
    let mut result = Vec::with_capacity(count.min(trades.len()));
    for (i, t) in trades.iter().enumerate().rev().take(count) {
        let side = i
            .checked_sub(1)
            .map_or("N", |before| tick_side(trades[before].cents, t.cents));
        result.push(Tick {
            time: utc_ms_of(path.day(), t.second).to_string(),
            price: text(Decimal::new(t.cents, 2)),
            volume: t.volume.to_string(),
            side: side.to_owned(),
            trading_session: "RTH".to_owned(),
        });
    }
    result
}

/// A tick's side from its price against the second before.
fn tick_side(before: i64, price: i64) -> &'static str {
    match price.cmp(&before) {
        std::cmp::Ordering::Greater => "B",
        std::cmp::Ordering::Less => "S",
        std::cmp::Ordering::Equal => "N",
    }
}
