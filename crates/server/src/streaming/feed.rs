//! What the sessions receive: at each tick of the engine, for each instrument some session
//! subscribed to, a `snapshot` when the snapshot changed, a `quote` when the book changed, and
//! the `tick`s since the last push. The numbers are the HTTP calls' (the same functions of
//! [`signet_core::quotes`] make them), for the same simulated second.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use signet_domain::simulator::Quote;
use signet_domain::simulator::clock::{CORE_OPEN, NewYork, core_close};
use signet_domain::simulator::path::Trade;
use signet_model::streaming::topic;
use tokio::sync::watch;

use super::proto;
use super::sessions::{Message, Streams, Subscription, kind};
use signet_core::quotes::{text, ticks_before, to_snapshot, to_ticks};
use signet_core::simulator::Simulator;

/// Ticks one push carries at most for a symbol (a clock stepped by more sends only the last).
pub const MAX_TICKS_PER_PUSH: usize = 60;

/// What was last pushed of an instrument, to push only what changed.
#[derive(Default)]
struct Last {
    snapshot: Option<proto::Snapshot>,
    books: HashMap<u32, proto::Quote>,
    /// The New York day and the second (exclusive) up to which its ticks were pushed.
    ticks: Option<(i32, i64)>,
}

/// One tick's messages of an instrument.
#[derive(Default)]
struct Update {
    snapshot: Option<Bytes>,
    books: HashMap<u32, Bytes>,
    ticks: Vec<Bytes>,
}

/// Pushes at each tick the engine announces, until the announcements stop.
pub async fn run(market: Arc<Simulator>, streams: Arc<Streams>, mut ticks: watch::Receiver<i64>) {
    let mut last: HashMap<i64, Last> = HashMap::new();
    let mut previous = None;
    while ticks.changed().await.is_ok() {
        let now_ms = *ticks.borrow_and_update();
        push(&market, &streams, &mut last, previous, now_ms);
        previous = Some(now_ms);
    }
}

/// Pushes what changed since the push at `previous_ms`. An instrument seen for the first time
/// gets the ticks since then: a subscription made after that push started with the last trade.
fn push(market: &Simulator, streams: &Streams, last: &mut HashMap<i64, Last>, previous_ms: Option<i64>, now_ms: i64) {
    let previous_ticks = previous_ms.map(|ms| {
        let ny = NewYork::of(ms);
        (ny.day, (ny.second + 1).clamp(CORE_OPEN, core_close(ny.day)))
    });
    let wanted = streams.wanted();
    last.retain(|id, _| wanted.contains_key(id));
    let mut updates: HashMap<i64, Update> = HashMap::with_capacity(wanted.len());
    for (id, (_, kinds, depths)) in wanted {
        let Some(quote) = market.quote_of(id, now_ms) else {
            continue;
        };
        let before = last.entry(id).or_insert_with(|| Last {
            ticks: previous_ticks,
            ..Last::default()
        });
        let mut update = Update::default();
        if kinds & kind::SNAPSHOT != 0 {
            let snapshot = snapshot(market, &quote);
            let unchanged = before
                .snapshot
                .as_ref()
                .is_some_and(|b| without_times(b) == without_times(&snapshot));
            if !unchanged {
                update.snapshot = Some(encode(&snapshot));
                before.snapshot = Some(snapshot);
            }
        }
        for depth in depths {
            let book = book(&quote, depth);
            let unchanged = before
                .books
                .get(&depth)
                .is_some_and(|b| (&b.asks, &b.bids) == (&book.asks, &book.bids));
            if !unchanged {
                update.books.insert(depth, encode(&book));
                before.books.insert(depth, book);
            }
        }
        if kinds & kind::TICK != 0 {
            update.ticks = new_ticks(market, &quote, &mut before.ticks)
                .iter()
                .map(encode)
                .collect();
        }
        updates.insert(id, update);
    }
    streams.deliver(|id, subscription| {
        let Some(update) = updates.get(&id) else {
            return Vec::new();
        };
        let mut messages = Vec::new();
        let mut add = |topic, payload: &Bytes| {
            messages.push(Message {
                instrument_id: id,
                topic,
                payload: payload.clone(),
            });
        };
        if subscription.kinds & kind::SNAPSHOT != 0
            && let Some(snapshot) = &update.snapshot
        {
            add(topic::SNAPSHOT, snapshot);
        }
        if subscription.kinds & kind::QUOTE != 0
            && let Some(book) = update.books.get(&subscription.depth)
        {
            add(topic::QUOTE, book);
        }
        if subscription.kinds & kind::TICK != 0 {
            for tick in &update.ticks {
                add(topic::TICK, tick);
            }
        }
        messages
    });
}

/// The messages a new subscription starts with: the snapshot and the book now, and the last
/// trade.
pub fn current(market: &Simulator, instrument_id: i64, subscription: &Subscription) -> Vec<Message> {
    let Some(quote) = market.quote_of(instrument_id, market.now_ms()) else {
        return Vec::new();
    };
    let mut messages = Vec::new();
    let mut add = |topic, payload| {
        messages.push(Message {
            instrument_id,
            topic,
            payload,
        });
    };
    if subscription.kinds & kind::SNAPSHOT != 0 {
        add(topic::SNAPSHOT, encode(&snapshot(market, &quote)));
    }
    if subscription.kinds & kind::QUOTE != 0 {
        add(topic::QUOTE, encode(&book(&quote, subscription.depth)));
    }
    if subscription.kinds & kind::TICK != 0 {
        let ny = NewYork::of(quote.time_ms);
        if let Some(path) = market.path_today(instrument_id).filter(|p| p.day() == ny.day) {
            for tick in ticks_before(&path, ny.second + 1, 1, |_| true) {
                add(topic::TICK, encode(&to_tick(&quote, tick)));
            }
        }
    }
    messages
}

fn encode(message: &impl prost::Message) -> Bytes {
    Bytes::from(message.encode_to_vec())
}

fn basic(quote: &Quote, timestamp: i64, trading_session: &str) -> Option<proto::Basic> {
    Some(proto::Basic {
        symbol: quote.symbol.clone(),
        instrument_id: quote.instrument_id.to_string(),
        timestamp: timestamp.to_string(),
        trading_session: trading_session.to_owned(),
    })
}

/// The HTTP snapshot of `quote` (with the extended-hours and overnight fields), as a message.
fn snapshot(market: &Simulator, quote: &Quote) -> proto::Snapshot {
    let s = to_snapshot(
        quote,
        market.session(quote.instrument_id, quote.time_ms),
        market.extended_session(quote.instrument_id, quote.time_ms),
        true,
        true,
    );
    let time = |t: Option<i64>| t.map(|t| t.to_string()).unwrap_or_default();
    proto::Snapshot {
        basic: basic(quote, quote.time_ms, &s.trading_session),
        trade_time: s.last_trade_time.to_string(),
        price: s.price,
        open: s.open.unwrap_or_default(),
        high: s.high.unwrap_or_default(),
        low: s.low.unwrap_or_default(),
        pre_close: s.pre_close,
        volume: s.volume.unwrap_or_default(),
        change: s.change.unwrap_or_default(),
        change_ratio: s.change_ratio.unwrap_or_default(),
        ext_trade_time: time(s.extend_hour_last_trade_time),
        ext_price: s.extend_hour_last_price.unwrap_or_default(),
        ext_high: s.extend_hour_high.unwrap_or_default(),
        ext_low: s.extend_hour_low.unwrap_or_default(),
        ext_volume: s.extend_hour_volume.unwrap_or_default(),
        ext_change: s.extend_hour_change.unwrap_or_default(),
        ext_change_ratio: s.extend_hour_change_ratio.unwrap_or_default(),
        ovn_trade_time: time(s.ovn_last_trade_time),
        ovn_price: s.ovn_price.unwrap_or_default(),
        ovn_high: s.ovn_high.unwrap_or_default(),
        ovn_low: s.ovn_low.unwrap_or_default(),
        ovn_volume: s.ovn_volume.unwrap_or_default(),
        ovn_change: s.ovn_change.unwrap_or_default(),
        ovn_change_ratio: s.ovn_change_ratio.unwrap_or_default(),
    }
}

/// `snapshot` without its times, which move at every tick: what tells a change.
fn without_times(snapshot: &proto::Snapshot) -> proto::Snapshot {
    proto::Snapshot {
        basic: None,
        trade_time: String::new(),
        ext_trade_time: String::new(),
        ovn_trade_time: String::new(),
        ..snapshot.clone()
    }
}

/// The book of `quote`, `depth` levels a side, as the depth call lists it.
fn book(quote: &Quote, depth: u32) -> proto::Quote {
    let (bids, asks) = quote.book(depth as usize);
    let levels = |levels: Vec<signet_domain::simulator::Level>| {
        levels
            .into_iter()
            .map(|l| proto::AskBid {
                price: text(l.price),
                size: l.size.to_string(),
                order: vec![proto::Order {
                    mpid: "SIGNET".into(),
                    size: l.size.to_string(),
                }],
                broker: Vec::new(),
            })
            .collect()
    };
    proto::Quote {
        basic: basic(quote, quote.time_ms, quote.session.as_str()),
        asks: levels(asks),
        bids: levels(bids),
    }
}

fn to_tick(quote: &Quote, tick: signet_model::quotes::Tick) -> proto::Tick {
    let timestamp = tick.time.parse().unwrap_or(quote.time_ms);
    proto::Tick {
        basic: basic(quote, timestamp, &tick.trading_session),
        time: tick.time,
        price: tick.price,
        volume: tick.volume,
        side: tick.side,
    }
}

/// The ticks of `quote`'s instrument after those pushed (`pushed`: day and second, exclusive),
/// oldest first, at most [`MAX_TICKS_PER_PUSH`]; none when nothing was pushed before.
fn new_ticks(market: &Simulator, quote: &Quote, pushed: &mut Option<(i32, i64)>) -> Vec<proto::Tick> {
    let ny = NewYork::of(quote.time_ms);
    let until = ny.second + 1;
    let from = match *pushed {
        Some((day, second)) if day == ny.day => second,
        Some(_) => 0,
        None => until,
    };
    *pushed = Some((ny.day, until));
    if from >= until {
        return Vec::new();
    }
    let Some(path) = market.path_today(quote.instrument_id).filter(|p| p.day() == ny.day) else {
        return Vec::new();
    };
    let trades: Vec<Trade> = path.tape(from, until).collect();
    let shown = &trades[trades.len().saturating_sub(MAX_TICKS_PER_PUSH)..];
    // The print before the first shown tells its side.
    let before = match shown.first() {
        Some(_) if shown.len() < trades.len() => Some(trades[trades.len() - shown.len() - 1]),
        Some(first) => path.tape_before(first.second, 0, |_| true).first().copied(),
        None => None,
    };
    to_ticks(ny.day, shown, before.as_ref())
        .into_iter()
        .map(|t| to_tick(quote, t))
        .collect()
}
