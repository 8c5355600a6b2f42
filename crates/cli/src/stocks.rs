//! `signet stocks`: snapshots, the depth of book and ticks from a running server's simulator, as any
//! app reads them (the prices its orders fill at).

use clap::{Args, Subcommand};
use signet_model::quotes::{DepthLevel, Snapshot, Tick};

use crate::ClientArgs;
use crate::output::{list, table};

#[derive(Args)]
pub struct StocksArgs {
    #[command(subcommand)]
    command: StocksCommand,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Subcommand)]
enum StocksCommand {
    /// Snapshots of up to 100 symbols: last price, the day so far, the quote
    Snapshot {
        #[arg(required = true, num_args = 1..=100)]
        symbols: Vec<String>,
        /// Add the extended-hours fields (pre-market and after hours only)
        #[arg(long)]
        extended_hours: bool,
        /// Add the overnight fields (overnight session only)
        #[arg(long)]
        overnight: bool,
    },
    /// The book around the quote: the best bid and ask are what an order meets
    Depth {
        symbol: String,
        /// Levels a side, 1 to 50 [server default: 10]
        #[arg(long)]
        levels: Option<u32>,
    },
    /// The day's trading so far, a tick a second of the core session, newest first
    Ticks {
        symbol: String,
        /// How many, 1 to 1000 [server default: 30]
        #[arg(long)]
        count: Option<u32>,
    },
}

pub async fn run(args: StocksArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let stocks = client.stocks();
    let json = args.client.json;
    match args.command {
        StocksCommand::Snapshot {
            symbols,
            extended_hours,
            overnight,
        } => {
            let symbols: Vec<String> = symbols.iter().map(|s| s.to_ascii_uppercase()).collect();
            let symbols: Vec<&str> = symbols.iter().map(String::as_str).collect();
            let snapshots = stocks.snapshots(&symbols, extended_hours, overnight).await?;
            let day = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            list(
                json,
                &snapshots,
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
        StocksCommand::Depth { symbol, levels } => {
            let depth = stocks.depth(&symbol.to_ascii_uppercase(), levels).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&depth)?);
                return Ok(());
            }
            let at = crate::output::time(depth.quote_time.parse().unwrap_or_default());
            println!("{} ({}), {at} UTC", depth.symbol, depth.trading_session);
            let cell = |level: Option<&DepthLevel>, f: fn(&DepthLevel) -> &String| {
                level.map_or_else(String::new, |l| f(l).clone())
            };
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
        StocksCommand::Ticks { symbol, count } => {
            let ticks = stocks.ticks(&symbol.to_ascii_uppercase(), count).await?;
            list(
                json,
                &ticks.result,
                &["TIME (UTC)", "PRICE", "VOLUME", "SIDE"],
                |t: &Tick| {
                    vec![
                        crate::output::time(t.time.parse().unwrap_or_default()),
                        t.price.clone(),
                        t.volume.clone(),
                        t.side.clone(),
                    ]
                },
                |t| serde_json::to_value(t).unwrap_or_default(),
            )
        }
    }
}
