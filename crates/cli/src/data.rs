//! `signet data`: import market data files and see what the database holds.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use signet_domain::marketdata::units::{format_day, parse_day};
use signet_import::{Format, ImportOptions, Progress, import_file, minutes, ohlcv};
use signet_store::MarketDataStore;
use signet_store::refresh_snapshots;

use crate::DbArgs;

#[derive(Args)]
pub struct DataArgs {
    #[command(subcommand)]
    command: DataCommand,
    #[command(flatten)]
    db: DbArgs,
    /// Print one JSON summary per file (no progress bar)
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Subcommand)]
enum DataCommand {
    /// Import files, each in one transaction (a bad file changes nothing). Layouts are detected
    /// from the header: SEC company tickers, the Nasdaq symbol directory (nasdaqlisted.txt,
    /// otherlisted.txt), daily prices (Quandl WIKI, Yahoo, Stooq CSV), one-minute bars (signet's
    /// symbol,timestamp,open,high,low,close,volume; Polygon.io (Massive) flat files of minute
    /// aggregates; a yfinance one-minute download; Alpaca's bars export), SEC companyfacts JSON, and
    /// signet's sector CSV (symbol,sector[,industry]). Gzip files are read as they are. Minutes
    /// are kept for the core session (09:30-16:00 New York), to the cent, and each day's daily
    /// bar becomes their roll-up.
    Import {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The layout, when the header does not tell
        #[arg(long, value_enum)]
        format: Option<FormatArg>,
        /// Symbol of a single-symbol price file (Yahoo, Stooq, yfinance or Alpaca minutes); by
        /// default from the file name
        #[arg(long)]
        symbol: Option<String>,
    },
    /// Counts of instruments, bars, corporate actions and facts
    Status,
    /// Recompute the screeners' figures, as of a day (by default the last day with bars)
    Refresh {
        /// YYYY-MM-DD
        #[arg(long)]
        as_of: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    SecTickers,
    NasdaqListed,
    NasdaqOtherListed,
    QuandlWiki,
    Yahoo,
    Stooq,
    MinutesSignet,
    MinutesPolygon,
    MinutesYfinance,
    MinutesAlpaca,
    SecCompanyfacts,
    SignetSectors,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::SecTickers => Format::SecTickers,
            FormatArg::NasdaqListed => Format::NasdaqListed,
            FormatArg::NasdaqOtherListed => Format::OtherListed,
            FormatArg::QuandlWiki => Format::Ohlcv(ohlcv::Layout::Wiki),
            FormatArg::Yahoo => Format::Ohlcv(ohlcv::Layout::Yahoo),
            FormatArg::Stooq => Format::Ohlcv(ohlcv::Layout::Stooq),
            FormatArg::MinutesSignet => Format::Minutes(minutes::Layout::Signet),
            FormatArg::MinutesPolygon => Format::Minutes(minutes::Layout::Polygon),
            FormatArg::MinutesYfinance => Format::Minutes(minutes::Layout::Yfinance),
            FormatArg::MinutesAlpaca => Format::Minutes(minutes::Layout::Alpaca),
            FormatArg::SecCompanyfacts => Format::CompanyFacts,
            FormatArg::SignetSectors => Format::Sectors,
        }
    }
}

pub async fn run(args: DataArgs) -> anyhow::Result<()> {
    let database = args.db.open().await?;
    let store: Arc<dyn MarketDataStore> = database.store.clone();
    match args.command {
        DataCommand::Import { files, format, symbol } => {
            let options = ImportOptions {
                format: format.map(Format::from),
                symbol,
            };
            let show_bar = !args.json && std::io::stderr().is_terminal();
            let mut changed = false;
            for file in &files {
                let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
                let progress = Arc::new(Progress::default());
                let bar = show_bar.then(|| progress_bar(file, size, progress.clone()));
                let result = import_file(store.clone(), file, &options, progress).await;
                if let Some((bar, ticker)) = bar {
                    ticker.abort();
                    bar.finish_and_clear();
                }
                let summary = result?;
                changed |= summary.changed() > 0;
                if args.json {
                    println!("{}", serde_json::to_string(&summary)?);
                } else {
                    println!(
                        "{}: {} ({}): {} rows in {:.2} s ({:.0} rows/s); changed {} instruments, {} bars, {} minutes, {} corporate actions, {} facts, {} fundamentals records{}",
                        summary.file,
                        summary.format,
                        if summary.skipped > 0 {
                            format!("{} skipped", summary.skipped)
                        } else {
                            "none skipped".into()
                        },
                        summary.rows,
                        summary.seconds,
                        summary.rows_per_second,
                        summary.instruments_changed,
                        summary.bars_changed,
                        summary.minutes_changed,
                        summary.actions_changed,
                        summary.facts_changed,
                        summary.records_changed,
                        if summary.changed() == 0 {
                            " (already up to date)"
                        } else {
                            ""
                        }
                    );
                }
            }
            if changed {
                refresh(&database, None, args.json).await?;
            }
        }
        DataCommand::Refresh { as_of } => {
            let day = match as_of.as_deref() {
                Some(text) => {
                    Some(parse_day(text).ok_or_else(|| anyhow::anyhow!("--as-of {text:?} is not a date YYYY-MM-DD"))?)
                }
                None => None,
            };
            refresh(&database, day, args.json).await?;
        }
        DataCommand::Status => {
            let status = store.market_data_status().await?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&status)?);
            } else {
                println!("instruments         {}", status.instruments);
                println!("  with daily bars   {}", status.instruments_with_bars);
                println!(
                    "daily bars          {} ({} to {})",
                    status.bars,
                    status.first_day.as_deref().unwrap_or("-"),
                    status.last_day.as_deref().unwrap_or("-")
                );
                println!(
                    "minute bars         {} (instrument-days: {})",
                    status.minute_bars, status.days_with_minutes
                );
                println!("splits, dividends   {}, {}", status.splits, status.dividends);
                println!(
                    "SEC facts           {} ({} companies)",
                    status.facts, status.companies_with_facts
                );
                println!("fundamentals        {} records", status.fundamentals_records);
            }
        }
    }
    Ok(())
}

/// Recomputes the screeners' figures; said on stderr so that `--json` output stays one summary per file.
async fn refresh(database: &signet_server::Database, as_of: Option<i32>, json: bool) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let (day, ranked) = refresh_snapshots(database.store.as_ref(), as_of).await?;
    let day = day.map(format_day).unwrap_or_else(|| "-".into());
    if json {
        eprintln!("{}", serde_json::json!({"snapshots_as_of": day, "instruments": ranked}));
    } else {
        eprintln!(
            "screener figures as of {day}: {ranked} instruments ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// A bar over the file's bytes with the rows parsed and their rate, redrawn ten times a second.
fn progress_bar(
    file: &std::path::Path,
    size: u64,
    progress: Arc<Progress>,
) -> (ProgressBar, tokio::task::JoinHandle<()>) {
    let bar = ProgressBar::new(size.max(1));
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {bytes}/{total_bytes} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(file.display().to_string());
    let started = std::time::Instant::now();
    let ticker = {
        let bar = bar.clone();
        tokio::spawn(async move {
            loop {
                let rows = progress.rows.load(Ordering::Relaxed);
                bar.set_position(progress.bytes.load(Ordering::Relaxed));
                bar.set_message(format!(
                    "{rows} rows, {:.0} rows/s",
                    rows as f64 / started.elapsed().as_secs_f64().max(1e-3)
                ));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    (bar, ticker)
}
