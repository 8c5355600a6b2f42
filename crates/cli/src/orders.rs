//! `signet orders`: place, preview, replace, cancel and read orders of a running server.

use clap::{Args, Subcommand};
use signet_model::orders::{ModifyOrder, NewOrder, OrderAck, OrderRecord};

use crate::ClientArgs;
use crate::output::{contract, contracts, list, per_share_note};

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
    /// BUY, SELL, or SHORT (margin accounts)
    #[arg(long)]
    side: String,
    symbol: String,
    /// Shares (fractional to the millionth); or give --amount
    #[arg(required_unless_present = "amount", conflicts_with = "amount")]
    quantity: Option<String>,
    /// Spend (or raise) this much cash instead of a quantity: an AMOUNT order (MARKET or LIMIT)
    #[arg(long)]
    amount: Option<String>,
    /// A limit price makes a LIMIT order (with --stop, a STOP_LOSS_LIMIT); without one, a MARKET order
    #[arg(long)]
    limit: Option<String>,
    /// A stop price makes a STOP_LOSS order (with --limit, a STOP_LOSS_LIMIT): it trades once the last price reaches the stop
    #[arg(long, conflicts_with_all = ["trail", "trail_ratio"])]
    stop: Option<String>,
    /// A TRAILING_STOP_LOSS this amount from the best price seen
    #[arg(long, conflicts_with_all = ["limit", "trail_ratio"])]
    trail: Option<String>,
    /// A TRAILING_STOP_LOSS this ratio from the best price seen (0.05 is 5 %)
    #[arg(long, conflicts_with = "limit")]
    trail_ratio: Option<String>,
    /// DAY, GTC, IOC or GTD (with --expire-date)
    #[arg(long, default_value = "DAY")]
    tif: String,
    /// The last day of a GTD order, yyyy-MM-dd
    #[arg(long)]
    expire_date: Option<String>,
    /// Trade in the pre-market and after-hours sessions too (limit orders): --session ALL
    #[arg(long, conflicts_with = "session")]
    extended_hours: bool,
    /// The sessions the order trades in: CORE, ALL (04:00-20:00 New York), NIGHT (20:00-04:00)
    /// or ALL_DAY; outside CORE, limit orders only
    #[arg(long, default_value = "CORE")]
    session: String,
    /// Your id for the order (1 to 32 of A-Z a-z 0-9 _ -); by default 32 random hex characters
    #[arg(long)]
    id: Option<String>,
    /// Exit at this limit price once the order has filled: a GTC limit order on the other side
    /// for the same quantity (an OTO combination; with --stop-loss an OTOCO bracket)
    #[arg(long, conflicts_with = "amount")]
    take_profit: Option<String>,
    /// Exit with a GTC stop at this price once the order has filled (see --take-profit)
    #[arg(long, conflicts_with = "amount")]
    stop_loss: Option<String>,
    /// Your id for the combination that --take-profit and --stop-loss make; by default random
    #[arg(long)]
    combo_id: Option<String>,
}

fn random_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

impl OrderFields {
    fn order_type(&self) -> &'static str {
        match (
            &self.limit,
            &self.stop,
            self.trail.is_some() || self.trail_ratio.is_some(),
        ) {
            (_, _, true) => "TRAILING_STOP_LOSS",
            (Some(_), Some(_), _) => "STOP_LOSS_LIMIT",
            (None, Some(_), _) => "STOP_LOSS",
            (Some(_), None, _) => "LIMIT",
            (None, None, _) => "MARKET",
        }
    }

    /// The order, or with exits the combination and its id.
    fn to_orders(&self) -> (Vec<NewOrder>, Option<String>) {
        let order = self.to_order();
        let exit_side = if self.side.eq_ignore_ascii_case("BUY") {
            "SELL"
        } else {
            "BUY"
        };
        let exit = |combo_type: &str, order_type: &str| NewOrder {
            client_order_id: Some(random_id()),
            combo_type: Some(combo_type.into()),
            side: Some(exit_side.into()),
            order_type: Some(order_type.into()),
            time_in_force: Some("GTC".into()),
            expire_date: None,
            limit_price: None,
            stop_price: None,
            trailing_type: None,
            trailing_stop_step: None,
            support_trading_session: Some("CORE".into()),
            ..order.clone()
        };
        let price = |p: &String| Some(serde_json::Value::String(p.clone()));
        let mut exits = Vec::new();
        if let Some(p) = &self.take_profit {
            let kind = if self.stop_loss.is_some() { "STOP_PROFIT" } else { "OTO" };
            exits.push(NewOrder {
                limit_price: price(p),
                ..exit(kind, "LIMIT")
            });
        }
        if let Some(p) = &self.stop_loss {
            let kind = if self.take_profit.is_some() { "STOP_LOSS" } else { "OTO" };
            exits.push(NewOrder {
                stop_price: price(p),
                ..exit(kind, "STOP_LOSS")
            });
        }
        if exits.is_empty() {
            return (vec![order], None);
        }
        let master = NewOrder {
            combo_type: Some("MASTER".into()),
            ..order
        };
        let combo_id = self.combo_id.clone().unwrap_or_else(random_id);
        (std::iter::once(master).chain(exits).collect(), Some(combo_id))
    }

    fn to_order(&self) -> NewOrder {
        let id = self.id.clone().unwrap_or_else(random_id);
        NewOrder {
            client_order_id: Some(id),
            combo_type: Some("NORMAL".into()),
            instrument_type: Some("EQUITY".into()),
            market: Some("US".into()),
            symbol: Some(self.symbol.to_ascii_uppercase()),
            side: Some(self.side.to_ascii_uppercase()),
            order_type: Some(self.order_type().into()),
            time_in_force: Some(self.tif.to_ascii_uppercase()),
            expire_date: self.expire_date.clone(),
            entrust_type: Some(if self.amount.is_some() { "AMOUNT" } else { "QTY" }.into()),
            quantity: self.quantity.clone().map(serde_json::Value::String),
            total_cash_amount: self.amount.clone().map(serde_json::Value::String),
            limit_price: self.limit.clone().map(serde_json::Value::String),
            stop_price: self.stop.clone().map(serde_json::Value::String),
            trailing_type: match (&self.trail, &self.trail_ratio) {
                (Some(_), _) => Some("AMOUNT".into()),
                (None, Some(_)) => Some("PERCENTAGE".into()),
                (None, None) => None,
            },
            trailing_stop_step: self
                .trail
                .clone()
                .or_else(|| self.trail_ratio.clone())
                .map(serde_json::Value::String),
            support_trading_session: Some(if self.extended_hours {
                "ALL".into()
            } else {
                self.session.to_ascii_uppercase()
            }),
            ..NewOrder::default()
        }
    }
}

#[derive(Subcommand)]
enum OrdersCommand {
    /// Place an order: `signet orders place --account ID --side BUY AAPL 10 [--limit 150]
    /// [--take-profit 170] [--stop-loss 140]`
    Place(OrderFields),
    /// Estimate an order's cost and buying power without placing it
    Preview(OrderFields),
    /// Change an open order's quantity, limit price or (of a waiting stop order) stop price
    Replace {
        #[arg(long)]
        account: String,
        client_order_id: String,
        #[arg(long)]
        quantity: Option<String>,
        #[arg(long)]
        limit: Option<String>,
        #[arg(long)]
        stop: Option<String>,
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
        OrdersCommand::Place(fields) => match fields.to_orders() {
            (combination, Some(combo_id)) => {
                orders
                    .place_combination(&fields.account, &combo_id, combination)
                    .await?
            }
            (mut one, None) => orders.place(&fields.account, one.remove(0)).await?,
        },
        OrdersCommand::Preview(fields) => {
            let (new_orders, combo_id) = fields.to_orders();
            let preview = orders.preview(&fields.account, new_orders, combo_id.as_deref()).await?;
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
            stop,
        } => {
            let modify = ModifyOrder {
                client_order_id,
                quantity: quantity.map(serde_json::Value::String),
                limit_price: limit.map(serde_json::Value::String),
                stop_price: stop.map(serde_json::Value::String),
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
    } else if ack.orders.is_empty() {
        println!(
            "{} {} (order {})",
            ack.client_order_id,
            signet_model::wire::WireEnum::as_str(ack.status),
            ack.order_id
        );
    } else {
        println!(
            "combination {} (combo order {})",
            ack.client_combo_order_id.as_deref().unwrap_or_default(),
            ack.combo_order_id.as_deref().unwrap_or_default()
        );
        for o in &ack.orders {
            println!(
                "  {} {} (order {})",
                o.client_order_id,
                signet_model::wire::WireEnum::as_str(o.status),
                o.order_id
            );
        }
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
            "STOP",
            "QTY",
            "FILLED",
            "AVG PRICE",
            "STATUS",
            "COMBO",
            "PLACED",
            "REASON",
        ],
        |r| {
            let o = &r.orders[0];
            // An option order names its contract in its leg, and counts contracts.
            let (symbol, quantity) = match o.legs.first() {
                Some(leg) => (
                    contract(
                        &leg.symbol,
                        &leg.option_expire_date,
                        &leg.strike_price,
                        &leg.option_type,
                    ),
                    contracts(&o.total_quantity),
                ),
                None => (o.symbol.clone(), o.total_quantity.clone()),
            };
            vec![
                o.client_order_id.clone(),
                symbol,
                o.side.as_str().to_owned(),
                o.order_type.as_str().to_owned(),
                o.limit_price.clone().unwrap_or_else(|| "-".into()),
                o.stop_price.clone().unwrap_or_else(|| "-".into()),
                quantity,
                o.filled_quantity.clone(),
                o.filled_price.clone().unwrap_or_else(|| "-".into()),
                o.status.as_str().to_owned(),
                match o.combo_type {
                    signet_model::orders::ComboType::Normal => "-".to_owned(),
                    part => format!("{} {}", r.combo_type, part.as_str()),
                },
                o.place_time.clone(),
                o.reason.clone().unwrap_or_default(),
            ]
        },
        |r| serde_json::to_value(r).unwrap_or_default(),
    )?;
    let option = records.iter().find_map(|r| r.orders[0].legs.first());
    if let Some(leg) = option.filter(|_| !json) {
        per_share_note(&leg.option_contract_multiplier);
    }
    if let Some(key) = more.filter(|_| !json) {
        eprintln!("more: --page {key}");
    }
    Ok(())
}
