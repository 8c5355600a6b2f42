//! `signet accounts`: the trading area's accounts, from a running server.

use clap::{Args, Subcommand};
use signet_client::Client;

use crate::output::list;

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
    json: bool,
}

impl ClientArgs {
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
        let client = Client::new(&self.endpoint, key, secret)?;
        Ok(match &self.access_token {
            Some(token) => client.with_access_token(token),
            None => client,
        })
    }
}

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
    }
    Ok(())
}
