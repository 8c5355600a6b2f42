//! `signet screeners`: the six market-data rankings of a running server.

use clap::{Args, Subcommand};
use signet_model::screeners::{
    ActivesRank, AggType, Direction, GainersRank, ScreenerItem, Sector, SectorPeriod, SortBy, Week52Rank,
};

use crate::ClientArgs;
use crate::output::{list, wire};

#[derive(Args)]
pub struct ScreenersArgs {
    #[command(subcommand)]
    command: ScreenerCommand,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Subcommand)]
enum ScreenerCommand {
    /// Top gainers over a period
    Gainers(Ranked),
    /// Top losers over a period
    Losers(Ranked),
    /// Most active: the 200 highest by --rank
    Actives {
        /// VOLUME, RELATIVE_VOLUME_10D, TURNOVER, TURNOVER_RATE or AMPLITUDE
        #[arg(long, default_value = "VOLUME", value_parser = wire::<ActivesRank>)]
        rank: ActivesRank,
        #[command(flatten)]
        order: Order,
    },
    /// Market sectors and their aggregate move
    Sectors {
        /// MARKET_VALUE or VOLUME
        #[arg(long, default_value = "MARKET_VALUE", value_parser = wire::<AggType>)]
        agg: AggType,
        /// D1, D5, M01 or M03
        #[arg(long, default_value = "D1", value_parser = wire::<SectorPeriod>)]
        period: SectorPeriod,
        #[arg(long)]
        page: Option<String>,
    },
    /// One sector's constituents
    Sector {
        /// The sector id from `signet screeners sectors` (45 is Information Technology)
        sector_id: String,
        #[arg(long, default_value = "D1", value_parser = wire::<SectorPeriod>)]
        period: SectorPeriod,
        #[command(flatten)]
        order: Order,
        #[arg(long)]
        page: Option<String>,
    },
    /// Highest trailing dividend yields
    Dividends {
        #[command(flatten)]
        order: Order,
    },
    /// New or near 52-week highs and lows
    #[command(name = "52w")]
    Week52 {
        /// NEW_HIGH, NEAR_HIGH, NEW_LOW or NEAR_LOW
        #[arg(long, default_value = "NEW_HIGH", value_parser = wire::<Week52Rank>)]
        rank: Week52Rank,
        #[command(flatten)]
        order: Order,
    },
}

#[derive(Args)]
struct Ranked {
    /// DAY_1, DAY_5, MONTH_1, MONTH_3, WEEK_52 (PRE_MARKET, AFTER_MARKET, MIN_3, MIN_5 need intraday prices)
    #[arg(long, default_value = "DAY_1", value_parser = wire::<GainersRank>)]
    period: GainersRank,
    /// CHANGE_RATIO, VOLUME, MARKET_VALUE, PRICE, ...
    #[arg(long, default_value = "CHANGE_RATIO", value_parser = wire::<SortBy>)]
    sort_by: SortBy,
}

#[derive(Args)]
struct Order {
    /// CHANGE_RATIO, VOLUME, MARKET_VALUE, PRICE, YIELD, CHANGE_RATIO_52W, ... (the server's default when omitted)
    #[arg(long, value_parser = wire::<SortBy>)]
    sort_by: Option<SortBy>,
    /// ASC or DESC
    #[arg(long, default_value = "DESC", value_parser = wire::<Direction>)]
    direction: Direction,
}

pub async fn run(args: ScreenersArgs) -> anyhow::Result<()> {
    let client = args.client.client()?;
    let screeners = client.screeners();
    let json = args.client.json;
    let items = match args.command {
        ScreenerCommand::Gainers(r) => screeners.gainers_losers(r.period, r.sort_by, Direction::Desc).await?,
        ScreenerCommand::Losers(r) => screeners.gainers_losers(r.period, r.sort_by, Direction::Asc).await?,
        ScreenerCommand::Actives { rank, order } => {
            screeners
                .top_actives(rank, order.sort_by.unwrap_or(SortBy::Volume), order.direction)
                .await?
        }
        ScreenerCommand::Dividends { order } => {
            screeners
                .high_dividend(order.sort_by.unwrap_or(SortBy::Yield), order.direction)
                .await?
        }
        ScreenerCommand::Week52 { rank, order } => {
            screeners
                .week52(rank, order.sort_by.unwrap_or(SortBy::ChangeRatio52w), order.direction)
                .await?
        }
        ScreenerCommand::Sectors { agg, period, page } => {
            let page = screeners
                .market_sectors(agg, period, Direction::Desc, page.as_deref())
                .await?;
            print_sectors(&page.data, json)?;
            if let Some(key) = page.pagination_key.filter(|_| !json) {
                eprintln!("more: --page {key}");
            }
            return Ok(());
        }
        ScreenerCommand::Sector {
            sector_id,
            period,
            order,
            page,
        } => {
            let sort_by = order.sort_by.unwrap_or(SortBy::ChangeRatio);
            let detail = screeners
                .market_sector(&sector_id, period, sort_by, order.direction, page.as_deref())
                .await?;
            if !json {
                println!(
                    "{} ({}): change {}, {} up, {} down",
                    detail.name, detail.id, detail.change_ratio, detail.advanced, detail.declined
                );
            }
            print_items(&detail.data, json)?;
            if let Some(key) = detail.pagination_key.filter(|_| !json) {
                eprintln!("more: --page {key}");
            }
            return Ok(());
        }
    };
    print_items(&items, json)
}

fn print_items(items: &[ScreenerItem], json: bool) -> anyhow::Result<()> {
    list(
        json,
        items,
        &[
            "SYMBOL",
            "NAME",
            "PRICE",
            "CHANGE",
            "CHANGE %",
            "VOLUME",
            "MARKET VALUE",
            "YIELD",
            "52W HIGH",
            "52W LOW",
        ],
        |i| {
            vec![
                i.symbol.clone(),
                i.name.chars().take(28).collect(),
                i.price.clone(),
                i.change.clone(),
                percent(&i.change_ratio),
                i.volume.clone(),
                i.market_value.clone().unwrap_or_else(|| "-".into()),
                i.dividend_yield.as_deref().map(percent).unwrap_or_else(|| "-".into()),
                i.high_52w.clone(),
                i.low_52w.clone(),
            ]
        },
        |i| serde_json::to_value(i).unwrap_or_default(),
    )
}

fn print_sectors(sectors: &[Sector], json: bool) -> anyhow::Result<()> {
    list(
        json,
        sectors,
        &[
            "ID",
            "SECTOR",
            "CHANGE %",
            "VOLUME",
            "MARKET VALUE",
            "UP",
            "DOWN",
            "LARGEST",
        ],
        |s| {
            vec![
                s.id.clone(),
                s.name.clone(),
                percent(&s.change_ratio),
                s.volume.clone(),
                s.market_value.clone(),
                s.advanced.to_string(),
                s.declined.to_string(),
                s.data.iter().map(|m| m.symbol.as_str()).collect::<Vec<_>>().join(" "),
            ]
        },
        |s| serde_json::to_value(s).unwrap_or_default(),
    )
}

/// "0.0123" as "1.23%".
fn percent(ratio: &str) -> String {
    ratio
        .parse::<f64>()
        .map(|r| format!("{:.2}%", r * 100.0))
        .unwrap_or_else(|_| ratio.to_owned())
}
