//! `signet market`: the simulator's quotes and clock, through a running server (admin apps).

use clap::{Args, Subcommand};
use signet_model::market::{MarketQuote, MarketStats};

use crate::ClientArgs;
use crate::output::{list, table};

#[derive(Args)]
pub struct MarketArgs {
    #[command(subcommand)]
    command: MarketCommand,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Subcommand)]
enum MarketCommand {
    /// The simulated quote of a symbol
    Quote { symbol: String },
    /// Pin a symbol's quote (orders fill against it) until set again or released
    Set {
        symbol: String,
        #[arg(long, required_unless_present = "release")]
        price: Option<String>,
        #[arg(long)]
        bid: Option<String>,
        #[arg(long)]
        ask: Option<String>,
        /// Shares shown at the bid and at the ask
        #[arg(long)]
        size: Option<u64>,
        /// Let the symbol follow the simulation again
        #[arg(long, conflicts_with_all = ["price", "bid", "ask", "size"])]
        release: bool,
    },
    /// Move the simulated clock forward, ticking the engine on the way
    Step {
        #[arg(long, default_value_t = 1)]
        seconds: u64,
    },
    /// The simulated time and session
    Clock,
    /// How the market behaved for a symbol on a day, beside what real minute data shows
    Stats {
        symbol: String,
        /// The New York day, yyyy-MM-dd (today by default)
        #[arg(long)]
        date: Option<String>,
    },
}

pub async fn run(args: MarketArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let market = client.market();
    let json = args.client.json;
    let quote = match args.command {
        MarketCommand::Quote { symbol } => market.quote(&symbol.to_ascii_uppercase()).await?,
        MarketCommand::Set {
            symbol, release: true, ..
        } => market.release(&symbol.to_ascii_uppercase()).await?,
        MarketCommand::Set {
            symbol,
            price,
            bid,
            ask,
            size,
            release: false,
        } => {
            let price = price.expect("clap requires --price without --release");
            market
                .set(
                    &symbol.to_ascii_uppercase(),
                    &price,
                    bid.as_deref(),
                    ask.as_deref(),
                    size,
                )
                .await?
        }
        MarketCommand::Step { seconds } => {
            let clock = market.step(seconds).await?;
            print_clock(&clock, json)?;
            return Ok(());
        }
        MarketCommand::Clock => {
            print_clock(&market.clock().await?, json)?;
            return Ok(());
        }
        MarketCommand::Stats { symbol, date } => {
            let stats = market.stats(&symbol.to_ascii_uppercase(), date.as_deref()).await?;
            return print_stats(&stats, json);
        }
    };
    list(
        json,
        &[quote],
        &[
            "SYMBOL",
            "TIME",
            "SESSION",
            "LAST",
            "BID",
            "ASK",
            "SIZE",
            "OPEN",
            "HIGH",
            "LOW",
            "PRE CLOSE",
            "VOLUME",
            "PINNED",
        ],
        |q: &MarketQuote| {
            vec![
                q.symbol.clone(),
                q.time.clone(),
                q.session.clone(),
                q.last.clone(),
                q.bid.clone(),
                q.ask.clone(),
                format!("{}x{}", q.bid_size, q.ask_size),
                q.open.clone(),
                q.high.clone(),
                q.low.clone(),
                q.pre_close.clone(),
                q.volume.to_string(),
                if q.pinned { "yes".into() } else { "no".into() },
            ]
        },
        |q| serde_json::to_value(q).unwrap_or_default(),
    )
}

fn print_clock(clock: &signet_model::market::MarketClock, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(clock)?);
    } else {
        println!(
            "{} ({} in New York), {}, clock {}",
            clock.time, clock.date, clock.session, clock.mode
        );
    }
    Ok(())
}

fn print_stats(stats: &MarketStats, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(stats)?);
        return Ok(());
    }
    println!("{} on {}, {} one-minute bars", stats.symbol, stats.date, stats.minutes);
    let number = |x: f64| {
        if x.fract() == 0.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.2}")
        }
    };
    let rows: Vec<Vec<String>> = stats
        .figures
        .iter()
        .map(|f| {
            vec![
                f.name.clone(),
                f.value.map_or_else(|| "-".to_owned(), number),
                format!("{} to {}", number(f.real_low), number(f.real_high)),
                match (f.value, f.within) {
                    (None, _) => "-",
                    (Some(_), true) => "yes",
                    (Some(_), false) => "no",
                }
                .to_owned(),
            ]
        })
        .collect();
    table(&["FIGURE", "SIGNET", "REAL MARKET", "WITHIN"], &rows);
    Ok(())
}
