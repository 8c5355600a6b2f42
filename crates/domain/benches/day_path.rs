//! What a day's path costs: drawing it (once per instrument and day, kept by the simulator),
//! reading one second's quote off it (every quote; outside the core session the last print of a
//! thin tape, found going back), and a whole day's trades (ticks, bars of seconds, footprints).
//! Issue 27 bounds the draw at 50 ms a symbol.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use signet_domain::simulator::clock::CORE_OPEN;
use signet_domain::simulator::daypath::DayPath;
use signet_domain::simulator::path::DayPlan;

fn bench(c: &mut Criterion) {
    // AAPL on 2013-02-28, and a day drawn after it.
    let replayed = DayPlan {
        day: 15_764,
        prev_close: 444.57,
        open: 444.05,
        high: 447.87,
        low: 441.40,
        close: 441.40,
        volume: 11_548_600.0,
        replayed: true,
    };
    let drawn = DayPlan::draw(2013, 265_598, 15_770, 441.40, 0.015, 1.1e7);
    for (name, plan) in [("replayed", &replayed), ("drawn", &drawn)] {
        c.bench_function(&format!("day_path/draw/{name}"), |b| {
            b.iter(|| DayPath::draw(black_box(plan), 2013, 265_598));
        });
    }
    let path = DayPath::draw(&replayed, 2013, 265_598);
    let noon = CORE_OPEN + 9_000 + 17;
    c.bench_function("day_path/quote_reads", |b| {
        b.iter(|| {
            let s = black_box(noon);
            (path.price_at(s), path.volume_before(s + 1), path.minute_before(s))
        });
    });
    // 08:00, and an instrument trading a thousandth of AAPL's volume, whose last print may be
    // an hour back.
    let thin = DayPath::draw(
        &DayPlan {
            volume: 11_548.0,
            ..replayed
        },
        2013,
        7,
    );
    for (name, path) in [("liquid", &path), ("thin", &thin)] {
        c.bench_function(&format!("day_path/pre_market_price/{name}"), |b| {
            b.iter(|| path.price_at(black_box(CORE_OPEN - 5_400)));
        });
    }
    c.bench_function("day_path/day_of_trades", |b| {
        b.iter(|| path.trades(0, 86_400).map(|t| t.volume).sum::<u64>());
    });
    c.bench_function("day_path/day_of_tape", |b| {
        b.iter(|| path.tape(0, 86_400).map(|t| t.volume).sum::<u64>());
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
