//! `signet checkpoint`: known states of the whole sandbox, through a running server (admin
//! apps).

use clap::{Args, Subcommand};
use signet_model::checkpoints::CheckpointView;

use crate::ClientArgs;
use crate::output::table;

#[derive(Args)]
pub struct CheckpointArgs {
    #[command(subcommand)]
    command: CheckpointCommand,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Subcommand)]
enum CheckpointCommand {
    /// Save the apps, accounts, orders, fills, positions, watchlists, scenario rules and the
    /// simulator's clock, seed and pins as NAME (replacing a checkpoint of that name)
    Save {
        name: String,
    },
    /// Return the running server (and every node) to NAME; other calls meanwhile are answered
    /// 503 RESTORING
    Restore {
        name: String,
    },
    /// The checkpoints, with when they were saved and the market time they hold
    List,
    Delete {
        name: String,
    },
    /// Seal NAME with the server's master key as it now is: a checkpoint saved by a build
    /// before checkpoints were sealed, or edited by hand on purpose (a restore refuses a
    /// checkpoint whose seal does not verify)
    Adopt {
        name: String,
    },
}

pub async fn run(args: CheckpointArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let checkpoints = client.checkpoints();
    let json = args.client.json;
    match args.command {
        CheckpointCommand::Save { name } => {
            let saved = checkpoints.save(&name).await?;
            if !as_json(json, &saved)? {
                println!(
                    "saved checkpoint {} ({} accounts, {} orders, {} bytes; market time {})",
                    saved.name, saved.accounts, saved.orders, saved.bytes, saved.market_time
                );
            }
        }
        CheckpointCommand::Restore { name } => {
            let restored = checkpoints.restore(&name).await?;
            if !as_json(json, &restored)? {
                println!(
                    "restored checkpoint {} (market time {}); calls were refused for {} ms",
                    restored.checkpoint.name, restored.checkpoint.market_time, restored.restoring_ms
                );
            }
        }
        CheckpointCommand::List => {
            let list = checkpoints.list().await?;
            if !as_json(json, &list)? {
                print(&list.checkpoints);
            }
        }
        CheckpointCommand::Adopt { name } => {
            let adopted = checkpoints.adopt(&name).await?;
            if !as_json(json, &adopted)? {
                println!("sealed checkpoint {} as it now is", adopted.name);
            }
        }
        CheckpointCommand::Delete { name } => {
            let deleted = checkpoints.delete(&name).await?;
            if !as_json(json, &deleted)? {
                println!("deleted checkpoint {}", deleted.name);
            }
        }
    }
    Ok(())
}

fn print(checkpoints: &[CheckpointView]) {
    if checkpoints.is_empty() {
        println!("no checkpoints");
        return;
    }
    let rows: Vec<Vec<String>> = checkpoints
        .iter()
        .map(|c| {
            vec![
                c.name.clone(),
                c.saved.clone(),
                c.market_time.clone(),
                c.accounts.to_string(),
                c.orders.to_string(),
                c.bytes.to_string(),
            ]
        })
        .collect();
    table(&["NAME", "SAVED", "MARKET TIME", "ACCOUNTS", "ORDERS", "BYTES"], &rows);
}

/// Prints `value` as pretty JSON under `--json`; whether it did.
fn as_json(json: bool, value: &impl serde::Serialize) -> anyhow::Result<bool> {
    if json {
        println!("{}", serde_json::to_string_pretty(value)?);
    }
    Ok(json)
}
