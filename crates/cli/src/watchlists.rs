//! `signet watchlists`: the calling app's watchlists on a running server.

use clap::{Args, Subcommand};
use signet_model::watchlists::{InstrumentRef, Watchlist, WatchlistInstruments};

use crate::ClientArgs;
use crate::output::list;

#[derive(Args)]
pub struct WatchlistsArgs {
    #[command(subcommand)]
    command: WatchlistsCommand,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Subcommand)]
enum WatchlistsCommand {
    /// Every watchlist, by sort (highest first)
    List,
    /// A new watchlist (at the top unless --sort)
    Create {
        name: String,
        #[arg(long)]
        sort: Option<i64>,
    },
    /// Rename a watchlist or change its sort
    Update {
        watchlist_id: String,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        sort: Option<i64>,
    },
    /// Delete a watchlist and its instruments
    Delete { watchlist_id: String },
    /// A watchlist's instruments
    Show { watchlist_id: String },
    /// Add symbols (those present stay as they are)
    Add {
        watchlist_id: String,
        #[arg(required = true)]
        symbols: Vec<String>,
    },
    /// Remove symbols (absent ones are no error)
    Remove {
        watchlist_id: String,
        #[arg(required = true)]
        symbols: Vec<String>,
    },
    /// Set a symbol's sort
    Sort {
        watchlist_id: String,
        symbol: String,
        sort: i64,
    },
}

fn refs(symbols: &[String]) -> Vec<InstrumentRef> {
    symbols
        .iter()
        .map(|s| InstrumentRef {
            symbol: s.to_ascii_uppercase(),
            category: Some("US_STOCK".into()),
            sort: None,
        })
        .collect()
}

pub async fn run(args: WatchlistsArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let w = client.watchlists();
    let json = args.client.json;
    let contents = match args.command {
        WatchlistsCommand::List => return print_watchlists(&w.list().await?, json),
        WatchlistsCommand::Create { name, sort } => return print_watchlists(&[w.create(&name, sort).await?], json),
        WatchlistsCommand::Update {
            watchlist_id,
            name,
            sort,
        } => {
            return print_watchlists(&[w.update(&watchlist_id, name.as_deref(), sort).await?], json);
        }
        WatchlistsCommand::Delete { watchlist_id } => {
            let deleted = w.delete(&watchlist_id).await?;
            if json {
                println!("{}", serde_json::to_string(&deleted)?);
            } else {
                println!("deleted {}", deleted.watchlist_id);
            }
            return Ok(());
        }
        WatchlistsCommand::Show { watchlist_id } => w.instruments(&watchlist_id).await?,
        WatchlistsCommand::Add { watchlist_id, symbols } => w.add(&watchlist_id, refs(&symbols)).await?,
        WatchlistsCommand::Remove { watchlist_id, symbols } => w.remove(&watchlist_id, refs(&symbols)).await?,
        WatchlistsCommand::Sort {
            watchlist_id,
            symbol,
            sort,
        } => {
            let mut one = refs(&[symbol]);
            one[0].sort = Some(sort);
            w.sort(&watchlist_id, one).await?
        }
    };
    print_contents(&contents, json)
}

fn print_watchlists(lists: &[Watchlist], json: bool) -> anyhow::Result<()> {
    list(
        json,
        lists,
        &["WATCHLIST ID", "NAME", "SORT", "UPDATED"],
        |l| {
            vec![
                l.watchlist_id.clone(),
                l.name.clone(),
                l.sort.to_string(),
                l.update_time.clone(),
            ]
        },
        |l| serde_json::to_value(l).unwrap_or_default(),
    )
}

fn print_contents(contents: &WatchlistInstruments, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(contents)?);
        return Ok(());
    }
    list(
        false,
        &contents.instruments,
        &["SYMBOL", "NAME", "EXCHANGE", "SORT", "ADDED"],
        |i| {
            vec![
                i.symbol.clone(),
                i.name.chars().take(32).collect(),
                i.exchange_code.clone().unwrap_or_default(),
                i.sort.to_string(),
                i.added_time.clone(),
            ]
        },
        |_| serde_json::Value::Null,
    )
}
