//! `signet orders`: place, preview, replace, cancel and read orders of a running server.

use clap::{Args, Subcommand};
use signet_model::orders::{ModifyOrder, NewOrder, OrderAck, OrderRecord};

use crate::ClientArgs;
use crate::output::list;

#[derive(Args)]
pub struct OrdersArgs {
    #[command(subcommand)]
    command: OrdersCommand,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
struct OrderFields {
    /// The account (see `signet accounts list`)
    #[arg(long)]
    account: String,
    /// BUY or SELL
    #[arg(long)]
    side: String,
    symbol: String,
    quantity: String,
    /// A limit price makes a LIMIT order; without it the order is a MARKET order
    #[arg(long)]
    limit: Option<String>,
    /// DAY, GTC or IOC
    #[arg(long, default_value = "DAY")]
    tif: String,
    /// Trade in the pre-market and after-hours sessions too (limit orders)
    #[arg(long)]
    extended_hours: bool,
    /// Your id for the order (1 to 32 of A-Z a-z 0-9 _ -); by default 32 random hex characters
    #[arg(long)]
    id: Option<String>,
}

impl OrderFields {
    fn to_order(&self) -> NewOrder {
        let id = self
            .id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string());
        NewOrder {
            client_order_id: Some(id),
            combo_type: Some("NORMAL".into()),
            instrument_type: Some("EQUITY".into()),
            market: Some("US".into()),
            symbol: Some(self.symbol.to_ascii_uppercase()),
            side: Some(self.side.to_ascii_uppercase()),
            order_type: Some(if self.limit.is_some() { "LIMIT" } else { "MARKET" }.into()),
            time_in_force: Some(self.tif.to_ascii_uppercase()),
            entrust_type: Some("QTY".into()),
            quantity: Some(serde_json::Value::String(self.quantity.clone())),
            limit_price: self.limit.clone().map(serde_json::Value::String),
            support_trading_session: Some(if self.extended_hours { "ALL" } else { "CORE" }.into()),
            ..NewOrder::default()
        }
    }
}

#[derive(Subcommand)]
enum OrdersCommand {
    /// Place an order: `signet orders place --account ID --side BUY AAPL 10 [--limit 150]`
    Place(OrderFields),
    /// Estimate an order's cost and buying power without placing it
    Preview(OrderFields),
    /// Change an open order's quantity or limit price
    Replace {
        #[arg(long)]
        account: String,
        client_order_id: String,
        #[arg(long)]
        quantity: Option<String>,
        #[arg(long)]
        limit: Option<String>,
    },
    /// Cancel an open order
    Cancel {
        #[arg(long)]
        account: String,
        client_order_id: String,
    },
    /// One order
    Show {
        #[arg(long)]
        account: String,
        client_order_id: String,
    },
    /// Open orders, newest first
    Open {
        #[arg(long)]
        account: String,
        #[arg(long)]
        page: Option<String>,
    },
    /// Orders placed in a time window (by default the last 7 days), newest first
    History {
        #[arg(long)]
        account: String,
        /// yyyy-MM-ddTHH:mm:ss.SSSZ
        #[arg(long)]
        start: Option<String>,
        #[arg(long)]
        end: Option<String>,
        #[arg(long)]
        page: Option<String>,
    },
}

pub async fn run(args: OrdersArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let orders = client.orders();
    let json = args.client.json;
    let ack: OrderAck = match args.command {
        OrdersCommand::Place(fields) => orders.place(&fields.account, fields.to_order()).await?,
        OrdersCommand::Preview(fields) => {
            let preview = orders.preview(&fields.account, fields.to_order()).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&preview)?);
            } else {
                println!("estimated cost        {} {}", preview.estimated_cost, preview.currency);
                println!("commission            {}", preview.estimated_commission);
                println!(
                    "buying power          {} -> {}",
                    preview.buying_power, preview.buying_power_after
                );
            }
            return Ok(());
        }
        OrdersCommand::Replace {
            account,
            client_order_id,
            quantity,
            limit,
        } => {
            let modify = ModifyOrder {
                client_order_id,
                quantity: quantity.map(serde_json::Value::String),
                limit_price: limit.map(serde_json::Value::String),
                ..ModifyOrder::default()
            };
            orders.replace(&account, modify).await?
        }
        OrdersCommand::Cancel {
            account,
            client_order_id,
        } => orders.cancel(&account, &client_order_id).await?,
        OrdersCommand::Show {
            account,
            client_order_id,
        } => {
            return print_records(&[orders.get(&account, &client_order_id).await?], None, json);
        }
        OrdersCommand::Open { account, page } => {
            let page = orders.open(&account, page.as_deref()).await?;
            return print_records(&page.data, page.pagination_key, json);
        }
        OrdersCommand::History {
            account,
            start,
            end,
            page,
        } => {
            let page = orders
                .history(&account, start.as_deref(), end.as_deref(), page.as_deref())
                .await?;
            return print_records(&page.data, page.pagination_key, json);
        }
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&ack)?);
    } else {
        println!(
            "{} {} (order {})",
            ack.client_order_id,
            signet_model::wire::WireEnum::as_str(ack.status),
            ack.order_id
        );
    }
    Ok(())
}

fn print_records(records: &[OrderRecord], more: Option<String>, json: bool) -> anyhow::Result<()> {
    use signet_model::wire::WireEnum;
    list(
        json,
        records,
        &[
            "CLIENT ORDER ID",
            "SYMBOL",
            "SIDE",
            "TYPE",
            "LIMIT",
            "QTY",
            "FILLED",
            "AVG PRICE",
            "STATUS",
            "PLACED",
            "REASON",
        ],
        |r| {
            let o = &r.orders[0];
            vec![
                o.client_order_id.clone(),
                o.symbol.clone(),
                o.side.as_str().to_owned(),
                o.order_type.as_str().to_owned(),
                o.limit_price.clone().unwrap_or_else(|| "-".into()),
                o.total_quantity.clone(),
                o.filled_quantity.clone(),
                o.filled_price.clone().unwrap_or_else(|| "-".into()),
                o.status.as_str().to_owned(),
                o.place_time.clone(),
                o.reason.clone().unwrap_or_default(),
            ]
        },
        |r| serde_json::to_value(r).unwrap_or_default(),
    )?;
    if let Some(key) = more.filter(|_| !json) {
        eprintln!("more: --page {key}");
    }
    Ok(())
}
