//! `signet quote`, `signet depth`, `signet ticks`, `signet bars` and `signet footprints`: stock
//! market data from a running server's simulator, as any app reads it (the prices its orders
//! fill at).

use std::time::Duration;

use clap::Args;
use signet_model::quotes::{BarRow, DepthLevel, FootprintRow, Snapshot, Tick};

use signet_client::Client;

use crate::ClientArgs;
use crate::output::{list, table};

#[derive(Args)]
pub struct QuoteArgs {
    /// Up to 100 symbols
    #[arg(required = true, num_args = 1..=100)]
    symbols: Vec<String>,
    /// Add the extended-hours fields (pre-market and after hours only)
    #[arg(long)]
    extended_hours: bool,
    /// Add the overnight fields (overnight session only)
    #[arg(long)]
    overnight: bool,
    /// Ask again every SECONDS (default 1) and redraw the table, until interrupted
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "1")]
    watch: Option<u64>,
    /// Print the snapshots the server pushes, one line each as they arrive, until interrupted (its
    /// quotes feed over MQTT: see --mqtt)
    #[arg(long, conflicts_with = "watch")]
    stream: bool,
    /// Where the server serves its quotes feed (its --mqtt-listen), for --stream
    #[arg(
        long,
        env = "SIGNET_MQTT",
        value_name = "HOST:PORT",
        default_value = "127.0.0.1:1883"
    )]
    mqtt: String,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
pub struct DepthArgs {
    symbol: String,
    /// Levels a side, 1 to 50 [server default: 10]
    #[arg(long)]
    levels: Option<u32>,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
pub struct BarsArgs {
    /// Up to 100 symbols
    #[arg(required = true, num_args = 1..=100)]
    symbols: Vec<String>,
    /// S5, S15 (seconds), M1, M5, M15, M30, M60, M120, M240 (minutes), D (day), W (week), M
    /// (month) or Y (year)
    #[arg(long, default_value = "D")]
    timespan: String,
    /// Bars a symbol, 1 to 1200 [server default: 200]
    #[arg(long)]
    count: Option<u32>,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
pub struct FootprintsArgs {
    /// Up to 20 symbols
    #[arg(required = true, num_args = 1..=20)]
    symbols: Vec<String>,
    /// S5, S15, M1, M5 or M30
    #[arg(long, default_value = "M1")]
    timespan: String,
    /// Bars a symbol, 1 to 1200 [server default: 200]
    #[arg(long)]
    count: Option<u32>,
    /// Include the bar under way
    #[arg(long)]
    unfinished: bool,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
pub struct TicksArgs {
    symbol: String,
    /// How many, 1 to 1000 [server default: 30]
    #[arg(long)]
    count: Option<u32>,
    #[command(flatten)]
    client: ClientArgs,
}

/// Snapshots: last price, the day so far, the quote; redrawn with `--watch`.
pub async fn quote(args: QuoteArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let symbols: Vec<String> = args.symbols.iter().map(|s| s.to_ascii_uppercase()).collect();
    let symbols: Vec<&str> = symbols.iter().map(String::as_str).collect();
    if args.stream {
        return stream(&args, &client, &symbols).await;
    }
    loop {
        let snapshots = client
            .stocks()
            .snapshots(&symbols, args.extended_hours, args.overnight)
            .await?;
        let Some(every) = args.watch else {
            return print_snapshots(args.client.json, &snapshots);
        };
        if !args.client.json {
            // Clear the screen and go home, so that the table is redrawn in place.
            print!("\x1b[2J\x1b[H");
        }
        print_snapshots(args.client.json, &snapshots)?;
        tokio::time::sleep(Duration::from_secs(every.max(1))).await;
    }
}

/// `--stream`: connects to the quotes feed as a session of the app, subscribes it to the
/// snapshots of `symbols` over signed HTTP, and prints each snapshot pushed.
async fn stream(args: &QuoteArgs, client: &Client, symbols: &[&str]) -> anyhow::Result<()> {
    use signet_client::{Pushed, SubType};
    if args.client.app_key().is_none() {
        anyhow::bail!("app-key is required: pass --app-key or set SIGNET_APP_KEY");
    }
    let mut stream = client
        .quotes()
        .stream(&args.mqtt, symbols, &[SubType::Snapshot])
        .await?;
    let json = args.client.json;
    if !json {
        println!(
            "{:<19}  {:<8}  {:<11}  {:>10}  {:>8}  {:>12}",
            "TIME (UTC)", "SYMBOL", "SESSION", "PRICE", "CHANGE", "VOLUME"
        );
    }
    while let Some(pushed) = stream.next().await {
        let Pushed::Snapshot(s) = pushed? else {
            continue;
        };
        let basic = s.basic.unwrap_or_default();
        let time: i64 = basic.timestamp.parse().unwrap_or_default();
        if json {
            let line = serde_json::json!({
                "symbol": basic.symbol, "timestamp": time, "trading_session": basic.trading_session,
                "price": s.price, "change": s.change, "change_ratio": s.change_ratio, "open": s.open,
                "high": s.high, "low": s.low, "pre_close": s.pre_close, "volume": s.volume,
            });
            println!("{line}");
        } else {
            let or_dash = |v: String| if v.is_empty() { "-".to_owned() } else { v };
            println!(
                "{:<19}  {:<8}  {:<11}  {:>10}  {:>8}  {:>12}",
                crate::output::time(time),
                basic.symbol,
                basic.trading_session,
                s.price,
                or_dash(s.change),
                or_dash(s.volume)
            );
        }
    }
    anyhow::bail!("the quotes feed closed the connection")
}

fn print_snapshots(json: bool, snapshots: &[Snapshot]) -> anyhow::Result<()> {
    let day = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    list(
        json,
        snapshots,
        &[
            "SYMBOL",
            "SESSION",
            "PRICE",
            "CHANGE",
            "RATIO",
            "BID",
            "ASK",
            "SIZE",
            "OPEN",
            "HIGH",
            "LOW",
            "PRE CLOSE",
            "VOLUME",
        ],
        |s: &Snapshot| {
            vec![
                s.symbol.clone(),
                s.trading_session.clone(),
                s.price.clone(),
                day(&s.change),
                day(&s.change_ratio),
                s.bid.clone(),
                s.ask.clone(),
                format!("{}x{}", s.bid_size, s.ask_size),
                day(&s.open),
                day(&s.high),
                day(&s.low),
                s.pre_close.clone(),
                day(&s.volume),
            ]
        },
        |s| serde_json::to_value(s).unwrap_or_default(),
    )
}

/// The book around the quote: the best bid and ask are what an order meets.
pub async fn depth(args: DepthArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let depth = client
        .stocks()
        .depth(&args.symbol.to_ascii_uppercase(), args.levels)
        .await?;
    if args.client.json {
        println!("{}", serde_json::to_string_pretty(&depth)?);
        return Ok(());
    }
    let at = crate::output::time(depth.quote_time.parse().unwrap_or_default());
    println!("{} ({}), {at} UTC", depth.symbol, depth.trading_session);
    let cell =
        |level: Option<&DepthLevel>, f: fn(&DepthLevel) -> &String| level.map_or_else(String::new, |l| f(l).clone());
    let rows: Vec<Vec<String>> = (0..depth.bids.len().max(depth.asks.len()))
        .map(|i| {
            let (bid, ask) = (depth.bids.get(i), depth.asks.get(i));
            vec![
                cell(bid, |l| &l.size),
                cell(bid, |l| &l.price),
                cell(ask, |l| &l.price),
                cell(ask, |l| &l.size),
            ]
        })
        .collect();
    table(&["BID SIZE", "BID", "ASK", "ASK SIZE"], &rows);
    Ok(())
}

/// The day's prints so far, newest first: a tick a second of the core session, the thin tape
/// around it.
pub async fn ticks(args: TicksArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let ticks = client
        .stocks()
        .ticks(&args.symbol.to_ascii_uppercase(), args.count)
        .await?;
    list(
        args.client.json,
        &ticks.result,
        &["TIME (UTC)", "PRICE", "VOLUME", "SIDE", "SESSION"],
        |t: &Tick| {
            vec![
                crate::output::time(t.time.parse().unwrap_or_default()),
                t.price.clone(),
                t.volume.clone(),
                t.side.clone(),
                t.trading_session.clone(),
            ]
        },
        |t| serde_json::to_value(t).unwrap_or_default(),
    )
}

/// Bars, newest first, and under each symbol's table a line of its closes, oldest first.
pub async fn bars(args: BarsArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let symbols: Vec<String> = args.symbols.iter().map(|s| s.to_ascii_uppercase()).collect();
    let symbols: Vec<&str> = symbols.iter().map(String::as_str).collect();
    let bars = client
        .stocks()
        .bars(&symbols, &args.timespan.to_ascii_uppercase(), args.count)
        .await?;
    if args.client.json {
        println!("{}", serde_json::to_string_pretty(&bars)?);
        return Ok(());
    }
    for group in &bars.result {
        println!("{} ({})", group.symbol, group.instrument_id);
        let rows: Vec<Vec<String>> = group
            .result
            .iter()
            .map(|b: &BarRow| {
                vec![
                    bar_time(&b.time),
                    b.open.clone(),
                    b.high.clone(),
                    b.low.clone(),
                    b.close.clone(),
                    b.volume.clone(),
                ]
            })
            .collect();
        table(&["TIME (UTC)", "OPEN", "HIGH", "LOW", "CLOSE", "VOLUME"], &rows);
        let closes: Vec<f64> = group.result.iter().rev().filter_map(|b| b.close.parse().ok()).collect();
        println!("closes, oldest first: {}\n", sparkline(&closes));
    }
    Ok(())
}

/// A bar's time as a table shows it: the day alone for bars of days, else the day and time.
fn bar_time(time: &str) -> String {
    match time.split_once('T') {
        Some((day, "00:00:00.000+0000")) => day.to_owned(),
        Some((day, rest)) => format!("{day} {}", rest.get(..8).unwrap_or(rest)),
        None => time.to_owned(),
    }
}

/// Footprints, newest first: each bar's shares bought and sold, and the price most traded.
pub async fn footprints(args: FootprintsArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let symbols: Vec<String> = args.symbols.iter().map(|s| s.to_ascii_uppercase()).collect();
    let symbols: Vec<&str> = symbols.iter().map(String::as_str).collect();
    let groups = client
        .stocks()
        .footprints(
            &symbols,
            &args.timespan.to_ascii_uppercase(),
            args.count,
            args.unfinished,
        )
        .await?;
    if args.client.json {
        println!("{}", serde_json::to_string_pretty(&groups)?);
        return Ok(());
    }
    for group in &groups {
        println!("{} ({})", group.symbol, group.instrument_id);
        let rows: Vec<Vec<String>> = group
            .result
            .iter()
            .map(|f: &FootprintRow| {
                let shares = |v: &String| v.parse::<u64>().unwrap_or(0);
                let mut at: Vec<(&String, u64)> = f.buy_detail.iter().map(|(p, v)| (p, shares(v))).collect();
                for (price, v) in &f.sell_detail {
                    match at.iter_mut().find(|(p, _)| *p == price) {
                        Some((_, total)) => *total += shares(v),
                        None => at.push((price, shares(v))),
                    }
                }
                let most = at
                    .iter()
                    .max_by_key(|(_, v)| *v)
                    .map_or_else(String::new, |(p, _)| (*p).clone());
                vec![
                    bar_time(&f.time),
                    f.total.clone(),
                    f.buy_total.clone(),
                    f.sell_total.clone(),
                    f.delta.clone(),
                    most,
                ]
            })
            .collect();
        table(&["TIME (UTC)", "TOTAL", "BOUGHT", "SOLD", "DELTA", "MOST AT"], &rows);
        println!();
    }
    Ok(())
}

/// One block character a value, from the lowest (▁) to the highest (█).
fn sparkline(values: &[f64]) -> String {
    const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let (low, high) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
    values
        .iter()
        .map(|&v| {
            let share = if high > low { (v - low) / (high - low) } else { 0.5 };
            #[expect(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "a share of 0 to 7"
            )]
            let index = (share * 7.0).round() as usize;
            BLOCKS[index.min(7)]
        })
        .collect()
}
