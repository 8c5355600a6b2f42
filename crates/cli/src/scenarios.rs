//! `signet scenarios`: the rules that make unhappy paths happen on purpose, through a running
//! server (admin apps).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use signet_model::scenarios::ScenarioView;

use crate::ClientArgs;
use crate::output::table;

#[derive(Args)]
pub struct ScenariosArgs {
    #[command(subcommand)]
    command: ScenariosCommand,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Subcommand)]
enum ScenariosCommand {
    /// Put a file of rules (TOML) in force on every node, replacing those in force; a file with
    /// anything wrong is refused whole, naming the line
    Load { file: PathBuf },
    /// The rules in force, with how many times each matched
    List,
    /// Switch a rule on
    On { name: String },
    /// Switch a rule off (it stays loaded)
    Off { name: String },
    /// Take every rule out of force
    Clear,
}

/// The largest file `load` reads (the server takes at most 64 KiB).
const MAX_FILE_BYTES: u64 = 64 * 1024;

pub async fn run(args: ScenariosArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let scenarios = client.scenarios();
    let view = match args.command {
        ScenariosCommand::Load { file } => {
            let size = std::fs::metadata(&file)
                .with_context(|| format!("cannot read {}", file.display()))?
                .len();
            anyhow::ensure!(size <= MAX_FILE_BYTES, "{} is larger than 64 KiB", file.display());
            let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
            scenarios.load(&text).await?
        }
        ScenariosCommand::List => scenarios.list().await?,
        ScenariosCommand::On { name } => scenarios.switch(&name, true).await?,
        ScenariosCommand::Off { name } => scenarios.switch(&name, false).await?,
        ScenariosCommand::Clear => scenarios.clear().await?,
    };
    print(&view, args.client.json)
}

fn print(view: &ScenarioView, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(view)?);
        return Ok(());
    }
    if view.rules.is_empty() {
        println!("no scenario rules in force");
        return Ok(());
    }
    println!(
        "{} rules in force (seed {}, version {}, loaded {})",
        view.rules.len(),
        view.seed,
        view.version,
        view.changed
    );
    let rows: Vec<Vec<String>> = view
        .rules
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                if r.enabled { "on" } else { "off" }.to_owned(),
                r.stage.clone(),
                r.outcome.clone(),
                r.hits.to_string(),
            ]
        })
        .collect();
    table(&["RULE", "SWITCH", "DECIDED AT", "THEN", "MATCHES"], &rows);
    Ok(())
}
