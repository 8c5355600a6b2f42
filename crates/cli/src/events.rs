//! `signet events`: order events as they commit, from the trade-events subscription (gRPC on
//! the server's address), one line each until interrupted.

use clap::Args;

use crate::ClientArgs;
use crate::output::time;

#[derive(Args)]
#[command(
    after_help = "Examples: signet events --account ID\n          signet events --json   (every account of the app, \
                        one JSON object a line)"
)]
pub struct EventsArgs {
    /// An account to follow (see `signet accounts list`); repeat for several; none follows every
    /// account of the app
    #[arg(long)]
    account: Vec<String>,
    #[command(flatten)]
    client: ClientArgs,
}

pub async fn run(args: EventsArgs) -> anyhow::Result<()> {
    let accounts: Vec<&str> = args.account.iter().map(String::as_str).collect();
    let client = args.client.client()?;
    let mut events = client.events().subscribe(&accounts).await?;
    // On standard error, also with --json: a script waits for it before acting.
    eprintln!(
        "following the order events of {}; Ctrl-C to stop",
        match accounts.len() {
            0 => "every account of the app".to_owned(),
            _ => accounts.join(", "),
        }
    );
    while let Some(event) = events.next().await {
        let event = event?;
        let p = &event.payload;
        if args.client.json {
            // One object a line, as it arrives: for `jq` and pipes.
            println!("{}", serde_json::to_string(p)?);
        } else {
            println!(
                "{}  {:<14} {:<16} {} {} {} {}/{} @ {}  {}",
                time(event.time_ms),
                p.scene_type,
                p.client_order_id,
                p.side,
                p.symbol,
                p.order_type,
                p.filled_qty,
                p.qty,
                p.filled_price,
                p.order_status,
            );
        }
    }
    Ok(())
}
