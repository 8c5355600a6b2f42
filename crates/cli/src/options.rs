//! `signet options`: US equity options from a running server, as any app reads them: an
//! underlying's expiries, one expiry's chain with each strike's market (the money marked), and
//! contracts' quotes.

use clap::{Args, Subcommand};
use signet_model::options::OptionSnapshot;

use crate::ClientArgs;
use crate::output::{list, table};

#[derive(Args)]
pub struct OptionsArgs {
    #[command(subcommand)]
    command: OptionsCommand,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Subcommand)]
enum OptionsCommand {
    /// An underlying's expiries listed today; with --expiry, that expiry's chain: each strike's
    /// call and put (bid, ask, last, delta, open interest), `*` marking those in the money
    Chain {
        /// The underlying, e.g. AAPL
        underlying: String,
        /// The expiry to show, YYYY-MM-DD
        #[arg(long)]
        expiry: Option<String>,
        /// Only strikes from this price
        #[arg(long)]
        min_strike: Option<String>,
        /// Only strikes up to this price
        #[arg(long)]
        max_strike: Option<String>,
    },
    /// Contracts' markets now, by OCC symbol (e.g. AAPL130315C00450000): bid, ask, last,
    /// volume, open interest, implied volatility and greeks
    Quote {
        /// Up to 100 OCC symbols
        #[arg(required = true, num_args = 1..=100)]
        symbols: Vec<String>,
    },
}

pub async fn run(args: OptionsArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let json = args.client.json;
    match args.command {
        OptionsCommand::Chain {
            underlying,
            expiry,
            min_strike,
            max_strike,
        } => {
            let underlying = underlying.to_ascii_uppercase();
            let mut filter = Vec::new();
            filter.extend(expiry.as_deref().map(|e| ("start_date", e)));
            filter.extend(min_strike.as_deref().map(|s| ("strike_price_gte", s)));
            filter.extend(max_strike.as_deref().map(|s| ("strike_price_lte", s)));
            let contracts = client.options().chain(&underlying, &filter).await?;
            if expiry.is_none() {
                return expiries(json, &contracts);
            }
            let symbols: Vec<&str> = contracts.iter().map(|c| c.symbol.as_str()).collect();
            let snapshots = client.options().snapshots(&symbols).await?;
            let spot = client.stocks().snapshots(&[&underlying], false, false).await?;
            let spot: f64 = spot.first().map_or(0.0, |s| s.price.parse().unwrap_or(0.0));
            if json {
                println!("{}", serde_json::to_string_pretty(&snapshots)?);
                return Ok(());
            }
            println!("{underlying} at {spot:.2}; * in the money");
            chain(&contracts, &snapshots, spot);
            Ok(())
        }
        OptionsCommand::Quote { symbols } => {
            let symbols: Vec<String> = symbols.iter().map(|s| s.to_ascii_uppercase()).collect();
            let symbols: Vec<&str> = symbols.iter().map(String::as_str).collect();
            let snapshots = client.options().snapshots(&symbols).await?;
            list(
                json,
                &snapshots,
                &[
                    "SYMBOL", "BID", "ASK", "LAST", "CHANGE", "VOLUME", "OPEN INT", "IV", "DELTA", "THETA",
                ],
                |s| {
                    vec![
                        s.symbol.clone(),
                        format!("{}x{}", s.bid, s.bid_size),
                        format!("{}x{}", s.ask, s.ask_size),
                        s.price.clone(),
                        s.change.clone().unwrap_or_else(|| "-".into()),
                        s.volume.clone(),
                        s.open_interest.clone(),
                        percent(&s.imp_vol),
                        s.delta.clone(),
                        s.theta.clone(),
                    ]
                },
                |s| serde_json::to_value(s).unwrap_or_default(),
            )
        }
    }
}

fn percent(fraction: &str) -> String {
    fraction
        .parse::<f64>()
        .map_or_else(|_| "-".into(), |f| format!("{:.1}%", f * 100.0))
}

/// The expiries of a listing: each with its cycle and strikes.
fn expiries(json: bool, contracts: &[signet_model::options::OptionContract]) -> anyhow::Result<()> {
    let mut rows: Vec<(String, String, Vec<f64>)> = Vec::new();
    for c in contracts.iter().filter(|c| c.option_type == "CALL") {
        let strike = c.strike_price.parse().unwrap_or(0.0);
        match rows.last_mut() {
            Some((expiry, _, strikes)) if *expiry == c.expiration_date => strikes.push(strike),
            _ => rows.push((c.expiration_date.clone(), c.expired_cycle.clone(), vec![strike])),
        }
    }
    if json {
        let values: Vec<serde_json::Value> = rows
            .iter()
            .map(|(e, cycle, s)| serde_json::json!({"expiry": e, "cycle": cycle, "strikes": s.len()}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&values)?);
        return Ok(());
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(expiry, cycle, strikes)| {
            let low = strikes.iter().copied().fold(f64::MAX, f64::min);
            let high = strikes.iter().copied().fold(f64::MIN, f64::max);
            vec![
                expiry.clone(),
                cycle.clone(),
                strikes.len().to_string(),
                format!("{low} – {high}"),
            ]
        })
        .collect();
    table(&["EXPIRY", "CYCLE", "STRIKES", "RANGE"], &cells);
    println!(
        "{} contracts; --expiry YYYY-MM-DD shows one expiry's chain",
        contracts.len()
    );
    Ok(())
}

/// One expiry's chain: calls on the left, puts on the right, a row a strike.
fn chain(contracts: &[signet_model::options::OptionContract], snapshots: &[OptionSnapshot], spot: f64) {
    let mut rows = Vec::new();
    for (c, pair) in contracts.chunks(2).zip(snapshots.chunks(2)) {
        let [call, put] = pair else { continue };
        let strike: f64 = c[0].strike_price.parse().unwrap_or(0.0);
        let side = |s: &OptionSnapshot, itm: bool| {
            vec![
                if itm { "*".to_owned() } else { String::new() },
                s.bid.clone(),
                s.ask.clone(),
                s.price.clone(),
                s.delta.clone(),
                s.open_interest.clone(),
            ]
        };
        let mut row = side(call, spot - strike >= 0.01);
        row.push(c[0].strike_price.clone());
        let put_side = side(put, strike - spot >= 0.01);
        row.extend(put_side[1..].iter().cloned());
        row.push(put_side[0].clone());
        rows.push(row);
    }
    table(
        &[
            "", "C BID", "C ASK", "C LAST", "C DELTA", "C OI", "STRIKE", "P BID", "P ASK", "P LAST", "P DELTA", "P OI",
            "",
        ],
        &rows,
    );
}
