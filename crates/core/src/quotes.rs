//! The simulator's quotes and trades in the interface's wire shapes: what the quotes calls answer
//! over HTTP and the quotes feed pushes over MQTT, so that both show the same numbers.

use rust_decimal::Decimal;
use signet_domain::simulator::Quote;
use signet_domain::simulator::clock::{NewYork, Session, utc_ms_of};
use signet_domain::simulator::daypath::{DayPath, Stretch};
use signet_domain::simulator::intraday::Candle;
use signet_domain::simulator::path::Trade;
use signet_model::quotes::{Snapshot, Tick};

/// Prices as the simulator quotes them and orders fill at: to the cent (`454.30`).
pub fn text(d: Decimal) -> String {
    d.to_string()
}

/// `q` with the day's trading so far: `session`, the core session's (open, high, low and
/// volume of its trades), and `extended`, the prints of the extended session under way.
pub fn to_snapshot(
    q: &Quote,
    session: Option<Candle>,
    extended: Option<Stretch>,
    extended_required: bool,
    overnight_required: bool,
) -> Snapshot {
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
        change: day(change),
        change_ratio: ratio.filter(|_| traded),
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
    // The extended session's figures: its prints so far, its change from the last close (the
    // day's own in the after hours), its last print's time.
    let reference = if q.session == Session::AfterHours {
        close
    } else {
        q.pre_close
    };
    let (change, ratio) = (
        text(q.last - reference),
        (!reference.is_zero()).then(|| text((q.last - reference) / reference * Decimal::ONE_HUNDRED)),
    );
    let high = extended.map_or(q.last, |e| Decimal::new(e.bar.high, 2));
    let low = extended.map_or(q.last, |e| Decimal::new(e.bar.low, 2));
    let volume = extended.map_or(0, |e| e.bar.volume).to_string();
    let last_time = extended.map_or(q.time_ms, |e| utc_ms_of(e.bar.day, e.last_second));
    if extended_required && matches!(q.session, Session::PreMarket | Session::AfterHours) {
        snapshot.extend_hour_last_price = Some(text(q.last));
        snapshot.extend_hour_high = Some(text(high));
        snapshot.extend_hour_low = Some(text(low));
        snapshot.extend_hour_volume = Some(volume.clone());
        snapshot.extend_hour_change = Some(change.clone());
        snapshot.extend_hour_change_ratio = ratio.clone();
        snapshot.extend_hour_last_trade_time = Some(last_time);
    }
    if overnight_required && q.session == Session::Overnight {
        snapshot.ovn_price = Some(text(q.last));
        snapshot.ovn_high = Some(text(high));
        snapshot.ovn_low = Some(text(low));
        snapshot.ovn_volume = Some(volume);
        snapshot.ovn_change = Some(change);
        snapshot.ovn_change_ratio = ratio;
        snapshot.ovn_bid = Some(text(q.bid));
        snapshot.ovn_bid_size = Some(q.bid_size.to_string());
        snapshot.ovn_ask = Some(text(q.ask));
        snapshot.ovn_ask_size = Some(q.ask_size.to_string());
        snapshot.ovn_last_trade_time = Some(last_time);
    }
    snapshot
}

/// The session a print at `second` of New York `day` belongs to, as the ticks and bars calls
/// name it: `PRE`, `RTH`, `ATH` or `OVN`.
pub fn tape_session(day: i32, second: i64) -> &'static str {
    match (NewYork { day, second }).session() {
        Session::PreMarket => "PRE",
        Session::Core => "RTH",
        Session::AfterHours => "ATH",
        Session::Overnight | Session::Closed => "OVN",
    }
}

/// `path`'s last `count` prints before `until` (a second after New York midnight, exclusive)
/// in the sessions `keep` takes (by [`tape_session`]), newest first: what the ticks call lists.
pub fn ticks_before(path: &DayPath, until: i64, count: usize, keep: impl Fn(&str) -> bool) -> Vec<Tick> {
    let day = path.day();
    let trades = path.tape_before(until, count, |second| keep(tape_session(day, second)));
    let shown = trades.len().saturating_sub(count);
    let mut ticks = to_ticks(day, &trades[shown..], shown.checked_sub(1).map(|i| &trades[i]));
    ticks.reverse();
    ticks
}

/// `trades` (oldest first) as ticks, oldest first, each side told from the print before it
/// (`before` for the first).
pub fn to_ticks(day: i32, trades: &[Trade], before: Option<&Trade>) -> Vec<Tick> {
    let mut previous = before;
    let mut ticks = Vec::with_capacity(trades.len());
    for t in trades {
        let side = previous.map_or("N", |before| tick_side(before.cents, t.cents));
        ticks.push(Tick {
            time: utc_ms_of(day, t.second).to_string(),
            price: text(Decimal::new(t.cents, 2)),
            volume: t.volume.to_string(),
            side: side.to_owned(),
            trading_session: tape_session(day, t.second).to_owned(),
        });
        previous = Some(t);
    }
    ticks
}

/// A tick's side from its price against the second before.
fn tick_side(before: i64, price: i64) -> &'static str {
    match price.cmp(&before) {
        std::cmp::Ordering::Greater => "B",
        std::cmp::Ordering::Less => "S",
        std::cmp::Ordering::Equal => "N",
    }
}
