//! `signet`: run the server, administer its database, call it, and compute signatures.

mod accounts;
mod admin;
mod assets;
mod checkpoints;
mod config;
mod data;
mod events;
mod fundamentals;
mod market;
mod options;
mod orders;
mod output;
mod scenarios;
mod screeners;
mod serve;
mod sign;
mod stocks;
mod watchlists;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use secrecy::SecretString;
use signet_client::Client;
use signet_server::database::Location;
use signet_server::{Database, Durability};

#[derive(Parser)]
#[command(
    name = "signet",
    version,
    about = "A signed-request brokerage API: server, administration, client and signature calculator",
    long_about = "A signed-request brokerage API: server, administration, client and signature calculator.\n\n\
                  Start with `signet serve --demo`, which creates signet.db, an app and two paper accounts, \
                  and prints the app's key and secret."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (embedded SQLite database by default)
    Serve(serve::ServeArgs),
    /// Administer apps, accounts and tokens in a database; works while a server runs on it
    Admin(admin::AdminArgs),
    /// Import market data files, and see what the database holds
    Data(data::DataArgs),
    /// Accounts of the calling app, from a running server
    Accounts(accounts::AccountsArgs),
    /// Orders: place, preview, replace, cancel, show, open, history
    Orders(Box<orders::OrdersArgs>),
    /// Order events as they commit (placed, filled, replaced, cancelled), until interrupted
    Events(events::EventsArgs),
    /// An account's cash, market value, buying power, unrealized P&L and net liquidation value
    Balance(assets::BalanceArgs),
    /// An account's positions at the last prices: cost, market value, unrealized P&L
    Positions(assets::PositionsArgs),
    /// An account's fills, newest first (by order, by UTC day)
    Executions(assets::ExecutionsArgs),
    /// An account's cash movements, newest first: its deposit, each fill's amount and commission,
    /// and the dividends and splits applied to its positions
    Activities(assets::ActivitiesArgs),
    /// Look instruments up by symbol (their instrument ids, names, exchanges), or list them all
    Instruments(assets::InstrumentsArgs),
    /// The US market's trading days between two dates (holidays left out), with their sessions
    Calendar(assets::CalendarArgs),
    /// The market simulator: quote, set (pin a price), step (a manual clock), clock (admin apps)
    Market(market::MarketArgs),
    /// Scenario rules that make unhappy paths happen on purpose: load, list, on, off, clear
    /// (admin apps)
    Scenarios(scenarios::ScenariosArgs),
    /// Known states of the whole sandbox, saved and restored while it runs: save, restore,
    /// list, delete (admin apps)
    Checkpoint(checkpoints::CheckpointArgs),
    /// Market-data rankings: gainers, losers, actives, sectors, sector, dividends, 52w
    Screeners(screeners::ScreenersArgs),
    /// Stock snapshots: last price, the day so far, bid and ask (`--watch` to redraw)
    Quote(stocks::QuoteArgs),
    /// A stock's book around its quote: the best bid and ask are what an order meets
    Depth(stocks::DepthArgs),
    /// A stock's prints today, newest first: a tick a second of the core session, and the thin
    /// tape of the overnight session, the pre-market and the after hours
    Ticks(stocks::TicksArgs),
    /// Bars from 5 seconds to a year, newest first, with a line of the closes
    Bars(stocks::BarsArgs),
    /// Footprints: each bar's shares bought and sold, and at which prices
    Footprints(stocks::FootprintsArgs),
    /// US equity options: an underlying's chain (the money marked) and contracts' quotes
    Options(options::OptionsArgs),
    /// Watchlists: list, create, update, delete, show, add, remove, sort
    Watchlists(watchlists::WatchlistsArgs),
    /// Fundamentals of a symbol: statements, analysts, calendars, fund data (23 data sets)
    Fundamentals(fundamentals::FundamentalsArgs),
    /// Check the settings `signet serve` would run with (flags, environment, --config file)
    Config(config::ConfigArgs),
    /// Compute a signature step by step (str1, str2, str3, encoded string), for implementers of section 5
    Sign(sign::SignArgs),
}

/// Where the database is, for the commands that open it.
#[derive(Args, Clone)]
struct DbArgs {
    /// SQLite database file, created on first use; its master key is kept beside it as <db>.key
    /// unless SIGNET_MASTER_KEY (64 hex characters) is set
    #[arg(long, env = "SIGNET_DB", default_value = "signet.db", global = true)]
    db: PathBuf,
    /// `normal`: a commit survives a crash of the process (kill -9); `full` also a power cut, at
    /// about half the write throughput (an fsync per commit)
    #[arg(long, env = "SIGNET_SQLITE_DURABILITY", default_value = "normal", global = true)]
    durability: Durability,
    /// SQLite: the directory of `signet checkpoint` files [default: <db>.checkpoints beside the
    /// database]; PostgreSQL keeps checkpoints in schemas of its own
    #[arg(long, env = "SIGNET_CHECKPOINTS", global = true)]
    checkpoints: Option<PathBuf>,
    /// PostgreSQL instead of SQLite (postgres://USER:PASSWORD@HOST:PORT/DATABASE), for several
    /// nodes sharing one system of record; needs SIGNET_MASTER_KEY or --master-key-file
    #[arg(long, env = "SIGNET_DATABASE_URL", hide_env_values = true, global = true)]
    database_url: Option<String>,
    /// File of the master key that seals app secrets, created if missing [SQLite: <db>.key]
    #[arg(long, env = "SIGNET_MASTER_KEY_FILE", global = true)]
    master_key_file: Option<PathBuf>,
}

impl DbArgs {
    fn location(&self) -> Location {
        match &self.database_url {
            Some(url) => Location::Postgres { url: url.clone() },
            None => Location::Sqlite {
                path: self.db.clone(),
                durability: self.durability,
                checkpoints: self.checkpoints.clone(),
            },
        }
    }

    async fn open(&self) -> anyhow::Result<Database> {
        let master_key = std::env::var("SIGNET_MASTER_KEY").ok().map(SecretString::from);
        Ok(Database::open(&self.location(), master_key.as_ref(), self.master_key_file.as_deref()).await?)
    }
}

/// How to reach a server, for every command that calls one.
#[derive(Args)]
pub struct ClientArgs {
    /// Base URL of the server
    #[arg(
        long,
        env = "SIGNET_ENDPOINT",
        default_value = "http://127.0.0.1:8080",
        global = true
    )]
    endpoint: String,
    #[arg(long, env = "SIGNET_APP_KEY", global = true)]
    app_key: Option<String>,
    #[arg(long, env = "SIGNET_APP_SECRET", hide_env_values = true, global = true)]
    app_secret: Option<String>,
    /// An approved token, for servers started with --require-token
    #[arg(long, env = "SIGNET_ACCESS_TOKEN", hide_env_values = true, global = true)]
    access_token: Option<String>,
    /// Print JSON instead of a table
    #[arg(long, global = true)]
    pub json: bool,
    /// Also trust the certificate authorities of this PEM file for an https endpoint, its order
    /// events and its quotes feed (such as the CA file `signet serve --tls self-signed` prints);
    /// the system's roots are always trusted
    #[arg(long, env = "SIGNET_CA", value_name = "FILE", global = true)]
    ca: Option<PathBuf>,
}

impl ClientArgs {
    pub fn app_key(&self) -> Option<&str> {
        self.app_key.as_deref()
    }

    pub fn client(&self) -> anyhow::Result<Client> {
        let missing = |what: &str, env: &str| anyhow::anyhow!("{what} is required: pass --{what} or set {env}");
        let key = self
            .app_key
            .as_deref()
            .ok_or_else(|| missing("app-key", "SIGNET_APP_KEY"))?;
        let secret = self
            .app_secret
            .as_deref()
            .ok_or_else(|| missing("app-secret", "SIGNET_APP_SECRET"))?;
        let trust = match &self.ca {
            Some(file) => signet_client::Trust::system().add_pem_file(file)?,
            None => signet_client::Trust::system(),
        };
        let client = Client::with_trust(&self.endpoint, key, secret, trust)?;
        Ok(match &self.access_token {
            Some(token) => client.with_access_token(token),
            None => client,
        })
    }
}

fn main() -> ExitCode {
    let layered = match config::layer(std::env::args_os().collect()) {
        Ok(layered) => layered,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    let matches = Cli::command().get_matches_from(layered.argv.clone());
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if !matches!(cli.command, Command::Serve(_)) {
        die_quietly_on_a_closed_pipe();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => serve::run(args).await,
            Command::Admin(args) => admin::run(args).await,
            Command::Data(args) => data::run(args).await,
            Command::Accounts(args) => accounts::run(args).await,
            Command::Market(args) => market::run(args).await,
            Command::Scenarios(args) => scenarios::run(args).await,
            Command::Checkpoint(args) => checkpoints::run(args).await,
            Command::Options(args) => options::run(args).await,
            Command::Orders(args) => orders::run(*args).await,
            Command::Events(args) => events::run(args).await,
            Command::Balance(args) => assets::balance(args).await,
            Command::Positions(args) => assets::positions(args).await,
            Command::Executions(args) => assets::executions(args).await,
            Command::Activities(args) => assets::activities(args).await,
            Command::Instruments(args) => assets::instruments(args).await,
            Command::Calendar(args) => assets::calendar(args).await,
            Command::Screeners(args) => screeners::run(args).await,
            Command::Quote(args) => stocks::quote(args).await,
            Command::Depth(args) => stocks::depth(args).await,
            Command::Ticks(args) => stocks::ticks(args).await,
            Command::Bars(args) => stocks::bars(args).await,
            Command::Footprints(args) => stocks::footprints(args).await,
            Command::Sign(args) => sign::run(args),
            Command::Config(args) => {
                let check = matches
                    .subcommand_matches("config")
                    .and_then(|m| m.subcommand_matches("check"))
                    .expect("config check matched");
                config::run(args, &layered, check)
            }
            Command::Watchlists(args) => watchlists::run(args).await,
            Command::Fundamentals(args) => fundamentals::run(args).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `signet orders list | head` ends like any Unix tool when `head` stops reading, instead of
/// panicking on the next write. Not for `serve`, whose sockets must report a closed peer as an
/// error rather than end the process.
#[allow(unsafe_code, reason = "the one signal disposition the standard library cannot set")]
fn die_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called at start-up, before any thread is started; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own checks of every subcommand's flags: no two with one name (the global ones,
    /// such as --ca, reach every command).
    #[test]
    fn the_commands_flags_are_consistent() {
        Cli::command().debug_assert();
    }
}
