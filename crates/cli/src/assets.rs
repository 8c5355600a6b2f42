//! `signet balance`, `signet positions`, `signet executions`, `signet activities`,
//! `signet instruments` and `signet calendar`: what an account holds, has filled and has moved
//! in cash, the instruments orders name, and the days the market trades, from a running server.

use clap::Args;
use signet_client::{ActivityFilter, ExecutionFilter};
use signet_model::wire::WireEnum;

use crate::ClientArgs;
use crate::output::{contract, contracts, list, per_share_note, table};

#[derive(Args)]
#[command(after_help = "Example: signet balance --account ID")]
pub struct BalanceArgs {
    /// The account (see `signet accounts list`)
    #[arg(long)]
    account: String,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
#[command(after_help = "Example: signet positions --account ID")]
pub struct PositionsArgs {
    /// The account (see `signet accounts list`)
    #[arg(long)]
    account: String,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
#[command(after_help = "Example: signet executions --account ID --order buy1 --start 2026-01-20")]
pub struct ExecutionsArgs {
    /// The account (see `signet accounts list`)
    #[arg(long)]
    account: String,
    /// Only the fills of this order (its client order id)
    #[arg(long)]
    order: Option<String>,
    /// The first UTC day of the fills, yyyy-MM-dd
    #[arg(long)]
    start: Option<String>,
    /// The last UTC day of the fills, yyyy-MM-dd
    #[arg(long)]
    end: Option<String>,
    /// Fills a page, 1 to 100 (10 by default)
    #[arg(long)]
    page_size: Option<u32>,
    /// The `more:` key a previous page printed
    #[arg(long)]
    page: Option<String>,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
#[command(
    after_help = "Examples: signet instruments AAPL MSFT\n          signet instruments            (all, 100 a page)"
)]
pub struct InstrumentsArgs {
    /// Symbols to look up (up to 100); none lists every instrument, a page at a time
    symbols: Vec<String>,
    /// The `more:` key a previous page printed
    #[arg(long)]
    page: Option<String>,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
#[command(after_help = "Example: signet activities --account ID --types TRADE,FEES --start 2026-11-01")]
pub struct ActivitiesArgs {
    /// The account (see `signet accounts list`)
    #[arg(long)]
    account: String,
    /// Only these types, comma-separated: DEPOSIT, TRADE, FEES, DIVIDEND, SPLIT
    #[arg(long)]
    types: Option<String>,
    /// From this UTC day (yyyy-MM-dd) or time; the last 7 days by default
    #[arg(long)]
    start: Option<String>,
    /// To this UTC day or time; now by default
    #[arg(long)]
    end: Option<String>,
    /// The `more:` key a previous page printed
    #[arg(long)]
    page: Option<String>,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Args)]
#[command(after_help = "Example: signet calendar 2013-03-25 2013-04-05   (Good Friday, 2013-03-29, is left out)")]
pub struct CalendarArgs {
    /// The first day, yyyy-MM-dd
    start: String,
    /// The last day, yyyy-MM-dd, at most 30 days after the first
    end: String,
    #[command(flatten)]
    client: ClientArgs,
}

pub async fn balance(args: BalanceArgs) -> anyhow::Result<()> {
    let b = args.client.client()?.accounts().balance(&args.account).await?;
    if args.client.json {
        println!("{}", serde_json::to_string_pretty(&b)?);
        return Ok(());
    }
    let rows: Vec<Vec<String>> = b
        .account_currency_assets
        .iter()
        .map(|c| {
            vec![
                c.currency.clone(),
                c.cash_balance.clone(),
                c.market_value.clone(),
                c.unrealized_profit_loss.clone(),
                c.net_liquidation_value.clone(),
                c.buying_power.clone(),
            ]
        })
        .collect();
    table(
        &[
            "CURRENCY",
            "CASH",
            "MARKET VALUE",
            "UNREALIZED P&L",
            "NET LIQUIDATION",
            "BUYING POWER",
        ],
        &rows,
    );
    Ok(())
}

pub async fn positions(args: PositionsArgs) -> anyhow::Result<()> {
    let positions = args.client.client()?.accounts().positions(&args.account).await?;
    list(
        args.client.json,
        &positions,
        &[
            "SYMBOL",
            "QTY",
            "COST",
            "LAST",
            "MARKET VALUE",
            "UNREALIZED P&L",
            "RATE",
        ],
        |p| {
            // An option position holds its contract as a leg, and counts contracts.
            let (symbol, quantity) = match p.legs.first() {
                Some(leg) => (
                    contract(&p.symbol, &leg.option_expire_date, &leg.strike_price, &leg.option_type),
                    contracts(&p.quantity),
                ),
                None => (p.symbol.clone(), p.quantity.clone()),
            };
            vec![
                symbol,
                quantity,
                p.cost_price.clone(),
                p.last_price.clone(),
                p.market_value.clone(),
                p.unrealized_profit_loss.clone(),
                p.unrealized_profit_loss_rate.clone(),
            ]
        },
        |p| serde_json::to_value(p).unwrap_or_default(),
    )?;
    let option = positions.iter().find_map(|p| p.legs.first());
    if let Some(leg) = option.filter(|_| !args.client.json) {
        per_share_note(&leg.option_contract_multiplier);
    }
    Ok(())
}

pub async fn executions(args: ExecutionsArgs) -> anyhow::Result<()> {
    let filter = ExecutionFilter {
        start_date: args.start.as_deref(),
        end_date: args.end.as_deref(),
        client_order_id: args.order.as_deref(),
        pagination_key: args.page.as_deref(),
        page_size: args.page_size,
    };
    let page = args
        .client
        .client()?
        .orders()
        .executions(&args.account, &filter)
        .await?;
    list(
        args.client.json,
        &page.data,
        &[
            "EXECUTION",
            "TIME",
            "CLIENT ORDER ID",
            "SYMBOL",
            "SIDE",
            "QTY",
            "PRICE",
            "COMMISSION",
            "FILLED",
            "LEFT",
        ],
        |e| {
            vec![
                e.execution_id.clone(),
                e.execution_time.clone(),
                e.client_order_id.clone(),
                e.symbol.clone(),
                e.side.as_str().to_owned(),
                e.filled_quantity.clone(),
                e.filled_price.clone(),
                e.commission.clone(),
                format!("{}/{}", e.total_filled_qty, e.total_quantity),
                e.leaves_qty.clone(),
            ]
        },
        |e| serde_json::to_value(e).unwrap_or_default(),
    )?;
    if let Some(key) = page.pagination_key.filter(|_| !args.client.json) {
        eprintln!("more: --page {key}");
    }
    Ok(())
}

pub async fn instruments(args: InstrumentsArgs) -> anyhow::Result<()> {
    let symbols: Vec<&str> = args.symbols.iter().map(String::as_str).collect();
    let page = args
        .client
        .client()?
        .instruments()
        .list(&symbols, args.page.as_deref())
        .await?;
    list(
        args.client.json,
        &page.data,
        &["SYMBOL", "INSTRUMENT ID", "NAME", "EXCHANGE", "TYPE", "STATUS"],
        |i| {
            vec![
                i.symbol.clone(),
                i.instrument_id.clone(),
                i.name.clone(),
                i.exchange_code.clone(),
                i.sub_category.clone().unwrap_or_default(),
                i.status.clone(),
            ]
        },
        |i| serde_json::to_value(i).unwrap_or_default(),
    )?;
    if let Some(key) = page.pagination_key.filter(|_| !args.client.json) {
        eprintln!("more: --page {key}");
    }
    Ok(())
}

pub async fn calendar(args: CalendarArgs) -> anyhow::Result<()> {
    let days = args
        .client
        .client()?
        .instruments()
        .calendar(&args.start, &args.end)
        .await?;
    let session = |day: &signet_model::v1::TradeDay, name: &str| {
        day.sessions
            .iter()
            .find(|s| s.session == name)
            .map(|s| format!("{} to {}", s.start, s.end))
            .unwrap_or_default()
    };
    list(
        args.client.json,
        &days,
        &["DAY", "TYPE", "CORE SESSION (UTC)"],
        |d| vec![d.trade_day.clone(), d.trade_date_type.clone(), session(d, "CORE")],
        |d| serde_json::to_value(d).unwrap_or_default(),
    )
}

pub async fn activities(args: ActivitiesArgs) -> anyhow::Result<()> {
    let filter = ActivityFilter {
        activity_types: args.types.as_deref(),
        start_time: args.start.as_deref(),
        end_time: args.end.as_deref(),
        pagination_key: args.page.as_deref(),
    };
    let page = args
        .client
        .client()?
        .accounts()
        .cash_activities(&args.account, &filter)
        .await?;
    list(
        args.client.json,
        &page.data,
        &["ID", "TIME", "TYPE", "AMOUNT", "DESCRIPTION"],
        |a| {
            vec![
                a.activity_id.clone(),
                a.time.clone(),
                a.activity_type.clone(),
                a.amount.clone(),
                a.description.clone(),
            ]
        },
        |a| serde_json::to_value(a).unwrap_or_default(),
    )?;
    if let Some(key) = page.pagination_key.filter(|_| !args.client.json) {
        eprintln!("more: --page {key}");
    }
    Ok(())
}
