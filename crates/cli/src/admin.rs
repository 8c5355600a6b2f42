//! `signet admin`: apps, accounts and tokens, straight in the database.

use clap::{Args, Subcommand, ValueEnum};
use rust_decimal::Decimal;
use secrecy::ExposeSecret;
use serde_json::json;
use signet_model::ids::AppKey;
use signet_model::{AccountType, TokenStatus};
use signet_server::Operator;
use signet_store::{AccountRecord, TokenSelector};

use crate::DbArgs;
use crate::output::{list, time};

#[derive(Args)]
pub struct AdminArgs {
    #[command(subcommand)]
    command: AdminCommand,
    #[command(flatten)]
    db: DbArgs,
    /// Print JSON instead of a table
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Apps: the holders of an app key and secret
    #[command(subcommand)]
    Apps(AppsCommand),
    /// Paper accounts of an app
    #[command(subcommand)]
    Accounts(AccountsCommand),
    /// Tokens of the token mechanism (servers run with --require-token)
    #[command(subcommand)]
    Tokens(TokensCommand),
    /// Print a one-time login link to the web console of the server at --url (on this database)
    ConsoleLink {
        /// The server's address as a browser reaches it, e.g. http://127.0.0.1:8080
        #[arg(long)]
        url: String,
        /// How long the link works: seconds, or with a unit (90s, 10m, 2h)
        #[arg(long, default_value = "10m", value_parser = parse_ttl)]
        ttl: std::time::Duration,
    },
}

/// `90`, `90s`, `10m` or `2h`: from a second to a day.
fn parse_ttl(s: &str) -> Result<std::time::Duration, String> {
    let (number, unit) = match s.trim().find(|c: char| !c.is_ascii_digit()) {
        Some(i) => s.trim().split_at(i),
        None => (s.trim(), "s"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{s:?}: expected a number of seconds, or 10m, 2h"))?;
    let seconds = match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => return Err(format!("{s:?}: the unit is s, m or h")),
    };
    if !(1..=86_400).contains(&seconds) {
        return Err("a login link works from a second to a day".into());
    }
    Ok(std::time::Duration::from_secs(seconds))
}

#[derive(Subcommand)]
enum AppsCommand {
    /// Create an app with a CASH and a MARGIN paper account; prints its key and secret once
    Create {
        #[arg(long)]
        name: String,
        /// Starting cash of each account, USD
        #[arg(long, default_value = "100000")]
        cash: Decimal,
        /// May also drive the market simulator (/admin/market/..., `signet market`)
        #[arg(long)]
        admin: bool,
    },
    /// List apps (secrets are never shown again)
    List,
    /// Revoke an app: its requests are refused from then on
    Revoke { app_key: AppKey },
}

#[derive(Clone, Copy, ValueEnum)]
#[value(rename_all = "UPPER")]
enum Kind {
    Cash,
    Margin,
}

#[derive(Subcommand)]
enum AccountsCommand {
    /// Add a paper account to an app
    Create {
        #[arg(long = "app")]
        app_key: AppKey,
        #[arg(long = "type", value_enum, ignore_case = true)]
        kind: Kind,
        /// Starting cash, USD
        #[arg(long, default_value = "100000")]
        cash: Decimal,
        #[arg(long)]
        label: Option<String>,
    },
    /// List accounts, of one app or of all
    List {
        #[arg(long = "app")]
        app_key: Option<AppKey>,
    },
}

#[derive(Subcommand)]
enum TokensCommand {
    /// List tokens, of one app or of all
    List {
        #[arg(long = "app")]
        app_key: Option<AppKey>,
    },
    /// Approve a pending token (standing in for the approval in the broker's app)
    Approve {
        /// The token, as the client saved it (conf/token.txt for the official client)
        #[arg(required_unless_present = "app_key", conflicts_with = "app_key")]
        token: Option<String>,
        /// Approve every pending token of this app instead
        #[arg(long = "app")]
        app_key: Option<String>,
    },
}

pub async fn run(args: AdminArgs) -> anyhow::Result<()> {
    let database = args.db.open().await?;
    let admin = Operator::new(database.store.clone(), database.key.clone());
    let json = args.json;
    match args.command {
        AdminCommand::Apps(AppsCommand::Create {
            name,
            cash,
            admin: market_admin,
        }) => {
            let created = admin.create_app_with_role(&name, cash, market_admin).await?;
            if json {
                let out = json!({
                    "app_key": created.app_key,
                    "app_secret": created.app_secret.expose_secret(),
                    "account_ids": created.account_ids,
                });
                println!("{out}");
            } else {
                println!("app key     {}", created.app_key);
                println!("app secret  {}   (shown only now)", created.app_secret.expose_secret());
                println!(
                    "accounts    {} (CASH), {} (MARGIN)",
                    created.account_ids[0], created.account_ids[1]
                );
            }
        }
        AdminCommand::ConsoleLink { url, ttl } => {
            let link = admin.console_link(&url, ttl).await?;
            if json {
                println!("{}", json!({"url": link, "expires_in_secs": ttl.as_secs()}));
            } else {
                println!("{link}");
            }
        }
        AdminCommand::Apps(AppsCommand::List) => list(
            json,
            &admin.apps().await?,
            &["APP KEY", "NAME", "STATUS", "CREATED (UTC)"],
            |a| {
                vec![
                    a.app_key.to_string(),
                    a.name.clone(),
                    a.status.as_str().to_owned(),
                    time(a.created_at),
                ]
            },
            |a| json!({"app_key": a.app_key, "name": a.name, "status": a.status.as_str(), "created_at": a.created_at}),
        )?,
        AdminCommand::Apps(AppsCommand::Revoke { app_key }) => {
            admin.revoke_app(&app_key).await?;
            if json {
                println!("{}", json!({"app_key": app_key, "status": "REVOKED"}));
            } else {
                println!("revoked {app_key}");
            }
        }
        AdminCommand::Accounts(AccountsCommand::Create {
            app_key,
            kind,
            cash,
            label,
        }) => {
            let account_type = match kind {
                Kind::Cash => AccountType::Cash,
                Kind::Margin => AccountType::Margin,
            };
            let account = admin
                .create_account(&app_key, account_type, cash, label.as_deref())
                .await?;
            print_accounts(&[account], json)?;
        }
        AdminCommand::Accounts(AccountsCommand::List { app_key }) => {
            print_accounts(&admin.accounts(app_key.as_ref()).await?, json)?;
        }
        AdminCommand::Tokens(TokensCommand::List { app_key }) => {
            let now = signet_domain::simulator::clock::wall_clock_ms();
            list(
                json,
                &admin.tokens(app_key.as_ref()).await?,
                &["TOKEN", "APP KEY", "STATUS", "EXPIRES (UTC)"],
                |t| {
                    vec![
                        format!("{}...", t.token_hint),
                        t.app_key.to_string(),
                        t.status_at(now).as_str().to_owned(),
                        time(t.expires_at),
                    ]
                },
                |t| json!({"token_hint": t.token_hint, "app_key": t.app_key, "status": t.status_at(now).as_str(), "expires": t.expires_at}),
            )?;
        }
        AdminCommand::Tokens(TokensCommand::Approve { token, app_key }) => {
            let hash;
            let selector = match (&token, &app_key) {
                (Some(token), _) => {
                    hash = signet_server::tokens::hash_token(token.trim());
                    TokenSelector::Hash(&hash)
                }
                (None, Some(app_key)) => TokenSelector::App(app_key),
                (None, None) => unreachable!("clap requires a token or --app"),
            };
            let approved = admin.approve_tokens(selector).await?;
            if json {
                println!("{}", json!({"approved": approved}));
            } else if approved == 0 {
                anyhow::bail!("no pending token matched (see `signet admin tokens list`)");
            } else {
                println!("approved {approved} token(s): status {}", TokenStatus::Normal.as_str());
            }
        }
    }
    Ok(())
}

fn print_accounts(accounts: &[AccountRecord], json: bool) -> anyhow::Result<()> {
    list(
        json,
        accounts,
        &["ACCOUNT ID", "APP KEY", "TYPE", "LABEL", "CASH"],
        |a| {
            vec![
                a.account_id.to_string(),
                a.app_key.to_string(),
                a.account_type.as_str().to_owned(),
                a.account_label.clone(),
                format!("{} {}", a.cash, a.currency),
            ]
        },
        |a| {
            json!({
                "account_id": a.account_id,
                "app_key": a.app_key,
                "account_type": a.account_type.as_str(),
                "account_label": a.account_label,
                "currency": a.currency,
                "cash": a.cash.to_string(),
            })
        },
    )
}
