//! `signet accounts`: the trading area's accounts, from a running server.

use clap::{Args, Subcommand};

use crate::ClientArgs;
use crate::output::list;

#[derive(Args)]
pub struct AccountsArgs {
    #[command(subcommand)]
    command: AccountsCommand,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Subcommand)]
enum AccountsCommand {
    /// List the calling app's accounts (GET /trading/accounts/list)
    List,
    /// Start an account over: its orders, fills, positions and activities removed, its cash set;
    /// its id and its app's keys unchanged (an app created with --admin; POST /admin/accounts/reset)
    Reset {
        /// The account's id
        account_id: String,
        /// The cash it starts over with [default: its opening cash]
        #[arg(long)]
        cash: Option<String>,
    },
}

pub async fn run(args: AccountsArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    match args.command {
        AccountsCommand::List => {
            let accounts = client.accounts().list().await?;
            list(
                args.client.json,
                &accounts,
                &["ACCOUNT ID", "TYPE", "CLASS", "LABEL"],
                |a| {
                    vec![
                        a.account_id.clone(),
                        a.account_type.as_str().to_owned(),
                        a.account_class.as_str().to_owned(),
                        a.account_label.clone(),
                    ]
                },
                |a| serde_json::to_value(a).unwrap_or_default(),
            )?;
        }
        AccountsCommand::Reset { account_id, cash } => {
            let reset = client.accounts().reset(&account_id, cash.as_deref()).await?;
            if args.client.json {
                println!("{}", serde_json::to_string_pretty(&reset)?);
            } else {
                println!("{} starts over with {} in cash", reset.account_id, reset.cash);
            }
        }
    }
    Ok(())
}
