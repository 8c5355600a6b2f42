//! `signet events`: order events (and position events with `--positions`) as they commit, from
//! the trade-events subscription (gRPC on the server's address), one line each until interrupted.

use clap::Args;
use signet_client::{Event, EventKinds};

use crate::ClientArgs;
use crate::output::time;

#[derive(Args)]
#[command(
    after_help = "Examples: signet events --account ID\n          signet events --json   (every account of the app, \
                        one JSON object a line)\n          signet events --positions   (also each position a fill \
                        changes)"
)]
pub struct EventsArgs {
    /// An account to follow (see `signet accounts list`); repeat for several; none follows every
    /// account of the app
    #[arg(long)]
    account: Vec<String>,
    /// Also print the position each fill leaves (position events, subscribe type 2)
    #[arg(long)]
    positions: bool,
    #[command(flatten)]
    client: ClientArgs,
}

pub async fn run(args: EventsArgs) -> anyhow::Result<()> {
    let accounts: Vec<&str> = args.account.iter().map(String::as_str).collect();
    let client = args.client.client()?;
    let kinds = EventKinds {
        orders: true,
        positions: args.positions,
    };
    let mut events = client.events().subscribe_to(&accounts, kinds).await?;
    // On standard error, also with --json: a script waits for it before acting.
    eprintln!(
        "following the order {}events of {}; Ctrl-C to stop",
        if args.positions { "and position " } else { "" },
        match accounts.len() {
            0 => "every account of the app".to_owned(),
            _ => accounts.join(", "),
        }
    );
    while let Some(event) = events.next().await {
        // JSON: one object a line, as it arrives, for `jq` and pipes (a position's has
        // `cost_price`, an order's `scene_type`).
        match (event?, args.client.json) {
            (Event::Order(e), true) => println!("{}", serde_json::to_string(&e.payload)?),
            (Event::Position(e), true) => println!("{}", serde_json::to_string(&e.payload)?),
            (Event::Order(e), false) => {
                let p = &e.payload;
                println!(
                    "{}  {:<14} {:<16} {} {} {} {}/{} @ {}  {}",
                    time(e.time_ms),
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
            (Event::Position(e), false) => {
                let p = &e.payload;
                println!(
                    "{}  {:<14} {:<16} {} {} @ {}",
                    time(e.time_ms),
                    "POSITION",
                    p.client_order_id,
                    p.symbol,
                    p.quantity,
                    p.cost_price,
                );
            }
        }
    }
    Ok(())
}
