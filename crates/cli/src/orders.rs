//! `signet orders`: place, preview, replace, cancel and read orders of a running server.

use anyhow::bail;
use clap::{Args, Subcommand};
use signet_model::orders::{ModifyOrder, NewLeg, NewOrder, OrderAck, OrderRecord};

use crate::ClientArgs;
use crate::output::{contract, contracts, list, per_share_note, units};

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
    /// BUY, SELL, or SHORT (margin accounts); with --leg, the leg's side unless given
    #[arg(long, required_unless_present = "leg")]
    side: Option<String>,
    /// The symbol; with --leg it may be left out (the leg names the underlying)
    #[arg(required_unless_present = "leg")]
    symbol: Option<String>,
    /// Shares (fractional to the millionth), or with --leg contracts; or give --amount
    #[arg(required_unless_present_any = ["amount", "leg"], conflicts_with = "amount")]
    quantity: Option<String>,
    /// An option order's contract: SIDE:UNDERLYING:YYYY-MM-DD:C|P:STRIKE[:RATIO]
    ///
    /// BUY:AAPL:2013-03-15:C:430 buys AAPL's call at 430 expiring 2013-03-15 (`signet options
    /// chain AAPL --expiry 2013-03-15` lists them). QUANTITY counts contracts of 100 shares, and
    /// SYMBOL and --side may be left out (they are the leg's); --limit and --stop are prices per
    /// share. A SELL of contracts not held writes them (a call covered by 100 shares a
    /// contract, a put secured by the strike's cash). Give --leg again, with --strategy, for a
    /// multi-leg order: QUANTITY then counts units of the strategy, each leg trading RATIO
    /// contracts a unit (1 unless given: a butterfly's body is :2), and --limit is the net of a
    /// unit (a BUY pays at most it, a SELL receives at least it). SIDE:UNDERLYING:SHARES is a
    /// leg of shares a unit, for COVERED_STOCK and COLLAR_WITH_STOCK (BUY:AAPL:100).
    #[arg(
        long,
        value_name = "SIDE:UNDERLYING:YYYY-MM-DD:C|P:STRIKE[:RATIO] or SIDE:UNDERLYING:SHARES",
        value_parser = parse_leg,
        conflicts_with_all = ["amount", "take_profit", "stop_loss"]
    )]
    leg: Vec<NewLeg>,
    /// The strategy the legs form: VERTICAL, STRADDLE, STRANGLE, BUTTERFLY, CONDOR,
    /// IRON_BUTTERFLY, IRON_CONDOR, CALENDAR, DIAGONAL, COVERED_STOCK or COLLAR_WITH_STOCK
    /// (SINGLE for one leg)
    #[arg(long, requires = "leg")]
    strategy: Option<String>,
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
    fn to_orders(&self) -> anyhow::Result<(Vec<NewOrder>, Option<String>)> {
        let order = self.to_order()?;
        let exit_side = if self.side.as_deref().is_some_and(|s| s.eq_ignore_ascii_case("BUY")) {
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
            return Ok((vec![order], None));
        }
        let master = NewOrder {
            combo_type: Some("MASTER".into()),
            ..order
        };
        let combo_id = self.combo_id.clone().unwrap_or_else(random_id);
        Ok((std::iter::once(master).chain(exits).collect(), Some(combo_id)))
    }

    /// The positionals: `SYMBOL QUANTITY`, or with --leg `[SYMBOL] CONTRACTS` (the leg names
    /// the underlying).
    fn symbol_and_quantity(&self) -> anyhow::Result<(Option<String>, Option<String>)> {
        if self.leg.is_empty() {
            return Ok((self.symbol.clone(), self.quantity.clone()));
        }
        match (&self.symbol, &self.quantity) {
            (Some(symbol), Some(quantity)) => Ok((Some(symbol.clone()), Some(quantity.clone()))),
            (Some(quantity), None) if quantity.parse::<rust_decimal::Decimal>().is_ok() => {
                Ok((None, Some(quantity.clone())))
            }
            _ => bail!(
                "an option order needs its number of contracts after the leg, e.g. \
                 --leg BUY:AAPL:2013-03-15:C:430 2"
            ),
        }
    }

    fn to_order(&self) -> anyhow::Result<NewOrder> {
        let id = self.id.clone().unwrap_or_else(random_id);
        let (symbol, quantity) = self.symbol_and_quantity()?;
        let order = NewOrder {
            client_order_id: Some(id),
            combo_type: Some("NORMAL".into()),
            instrument_type: Some("EQUITY".into()),
            market: Some("US".into()),
            symbol: symbol.map(|s| s.to_ascii_uppercase()),
            side: self.side.as_ref().map(|s| s.to_ascii_uppercase()),
            order_type: Some(self.order_type().into()),
            time_in_force: Some(self.tif.to_ascii_uppercase()),
            expire_date: self.expire_date.clone(),
            entrust_type: Some(if self.amount.is_some() { "AMOUNT" } else { "QTY" }.into()),
            quantity: quantity.map(serde_json::Value::String),
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
        };
        let strategy = self.strategy.as_deref().map(str::to_ascii_uppercase);
        match (self.leg.as_slice(), strategy.as_deref()) {
            ([], _) => Ok(order),
            ([leg], None | Some("SINGLE")) => Ok(signet_client::single_leg_option(order, leg.clone())?),
            (_, None) => bail!("legs of a multi-leg order form a strategy: give --strategy, e.g. --strategy VERTICAL"),
            (legs, Some(strategy)) => Ok(signet_client::multi_leg_option(order, strategy, legs.to_vec())?),
        }
    }
}

/// `--leg SIDE:UNDERLYING:YYYY-MM-DD:C|P:STRIKE[:RATIO]`, e.g. `BUY:AAPL:2013-03-15:C:430`: the
/// side (BUY or SELL), the underlying, the expiry, the right (C or P, or CALL or PUT), the strike
/// and, in a multi-leg order, the leg's contracts a unit (its quantity then: RATIO, until the
/// order's units multiply it). A single leg's quantity is the order's.
fn parse_leg(text: &str) -> Result<NewLeg, String> {
    let parts: Vec<&str> = text.trim().split(':').map(str::trim).collect();
    // SIDE:UNDERLYING:SHARES, a leg of shares (COVERED_STOCK, COLLAR_WITH_STOCK).
    if let [side, underlying, shares] = parts[..] {
        let side = match side.to_ascii_uppercase().as_str() {
            s @ ("BUY" | "SELL") => s.to_owned(),
            _ => return Err(format!("the side {side:?} is not BUY or SELL")),
        };
        let shares = shares
            .parse::<u32>()
            .ok()
            .filter(|s| *s > 0)
            .ok_or_else(|| format!("the shares {shares:?} are not a whole number above 0"))?;
        return Ok(NewLeg {
            side: Some(side),
            symbol: Some(underlying.to_ascii_uppercase()),
            quantity: Some(serde_json::Value::String(shares.to_string())),
            ..NewLeg::default()
        });
    }
    let (side, underlying, expiry, right, strike, ratio) = match parts[..] {
        [side, underlying, expiry, right, strike] => (side, underlying, expiry, right, strike, None),
        [side, underlying, expiry, right, strike, ratio] => {
            let ratio = ratio
                .parse::<u32>()
                .ok()
                .filter(|r| *r > 0)
                .ok_or_else(|| format!("the ratio {ratio:?} is not a whole number of contracts above 0"))?;
            (side, underlying, expiry, right, strike, Some(ratio))
        }
        _ => {
            return Err(format!(
                "{} parts, not 3, 5 or 6: expected SIDE:UNDERLYING:YYYY-MM-DD:C|P:STRIKE[:RATIO], e.g. BUY:AAPL:2013-03-15:C:430, or SIDE:UNDERLYING:SHARES for a leg of shares",
                parts.len()
            ));
        }
    };
    let side = match side.to_ascii_uppercase().as_str() {
        s @ ("BUY" | "SELL") => s.to_owned(),
        _ => return Err(format!("the side {side:?} is not BUY or SELL")),
    };
    if underlying.is_empty() || !underlying.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') {
        return Err(format!("the underlying {underlying:?} is not a symbol such as AAPL"));
    }
    let day = time::macros::format_description!("[year]-[month]-[day]");
    if time::Date::parse(expiry, day).is_err() {
        return Err(format!("the expiry {expiry:?} is not a date YYYY-MM-DD"));
    }
    let option_type = match right.to_ascii_uppercase().as_str() {
        "C" | "CALL" => "CALL",
        "P" | "PUT" => "PUT",
        _ => return Err(format!("the right {right:?} is not C (a call) or P (a put)")),
    };
    let strike = strike
        .parse::<rust_decimal::Decimal>()
        .ok()
        .filter(|s| s.is_sign_positive() && !s.is_zero())
        .ok_or_else(|| format!("the strike {strike:?} is not a price above 0"))?;
    Ok(NewLeg {
        side: Some(side),
        symbol: Some(underlying.to_ascii_uppercase()),
        strike_price: Some(serde_json::Value::String(strike.normalize().to_string())),
        option_expire_date: Some(expiry.to_owned()),
        option_type: Some(option_type.to_owned()),
        quantity: ratio.map(|r| serde_json::Value::String(r.to_string())),
        ..NewLeg::default()
    })
}

#[derive(Subcommand)]
enum OrdersCommand {
    /// Place an order: `signet orders place --account ID --side BUY AAPL 10 [--limit 150]
    /// [--take-profit 170] [--stop-loss 140]`; an option:
    /// `signet orders place --account ID --leg BUY:AAPL:2013-03-15:C:430 2 --limit 5.00`
    Place(OrderFields),
    /// Estimate an order's cost and buying power without placing it (an option's with --leg)
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
        OrdersCommand::Place(fields) => match fields.to_orders()? {
            (combination, Some(combo_id)) => {
                orders
                    .place_combination(&fields.account, &combo_id, combination)
                    .await?
            }
            (mut one, None) => orders.place(&fields.account, one.remove(0)).await?,
        },
        OrdersCommand::Preview(fields) => {
            let (new_orders, combo_id) = fields.to_orders()?;
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
                Some(leg) if o.legs.len() > 1 => (
                    format!(
                        "{} {} ({} legs)",
                        leg.symbol,
                        o.option_strategy.as_deref().unwrap_or("MULTI-LEG"),
                        o.legs.len()
                    ),
                    units(&o.total_quantity),
                ),
                Some(leg) => match (&leg.option_expire_date, &leg.strike_price, &leg.option_type) {
                    (Some(expiry), Some(strike), Some(right)) => (
                        contract(&leg.symbol, expiry, strike, right),
                        contracts(&o.total_quantity),
                    ),
                    _ => (leg.symbol.clone(), o.total_quantity.clone()),
                },
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
    let option = records
        .iter()
        .flat_map(|r| &r.orders[0].legs)
        .find_map(|l| l.option_contract_multiplier.as_ref());
    if let Some(multiplier) = option.filter(|_| !json) {
        per_share_note(multiplier);
    }
    if let Some(key) = more.filter(|_| !json) {
        eprintln!("more: --page {key}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Place {
        #[command(flatten)]
        fields: OrderFields,
    }

    fn order(args: &[&str]) -> anyhow::Result<NewOrder> {
        let place = Place::try_parse_from(["place", "--account", "A1"].iter().chain(args))?;
        place.fields.to_order()
    }

    #[test]
    fn a_leg_names_side_underlying_expiry_right_and_strike() {
        let leg = parse_leg("BUY:AAPL:2013-03-15:C:430").unwrap();
        assert_eq!(
            leg,
            NewLeg {
                side: Some("BUY".into()),
                symbol: Some("AAPL".into()),
                strike_price: Some("430".into()),
                option_expire_date: Some("2013-03-15".into()),
                option_type: Some("CALL".into()),
                ..NewLeg::default()
            }
        );
        let put = parse_leg("sell:brk.b:2013-04-19:put:152.50").unwrap();
        assert_eq!(
            (
                put.side.as_deref(),
                put.symbol.as_deref(),
                put.option_type.as_deref(),
                put.strike_price
            ),
            (Some("SELL"), Some("BRK.B"), Some("PUT"), Some("152.5".into()))
        );
    }

    #[test]
    fn a_malformed_leg_says_which_part_is_wrong() {
        let refused = |text: &str| parse_leg(text).unwrap_err();
        assert!(refused("BUY:AAPL:2013-03-15:C").starts_with("4 parts, not 3, 5 or 6: expected SIDE:UNDERLYING"));
        assert!(refused("BUY:AAPL:2013-03-15:C:430:2:1").starts_with("7 parts, not 3, 5 or 6"));
        assert_eq!(
            refused("BUY:AAPL:2013-03-15:C:430:0"),
            "the ratio \"0\" is not a whole number of contracts above 0"
        );
        assert_eq!(
            parse_leg("SELL:AAPL:2013-03-15:C:430:2").unwrap().quantity,
            Some("2".into())
        );
        assert_eq!(
            refused("SHORT:AAPL:2013-03-15:C:430"),
            "the side \"SHORT\" is not BUY or SELL"
        );
        assert!(refused("BUY::2013-03-15:C:430").starts_with("the underlying \"\""));
        assert!(refused("BUY:AA PL:2013-03-15:C:430").starts_with("the underlying \"AA PL\""));
        for day in ["2013-3-15", "2013-02-30", "15/03/2013", "2013-03"] {
            assert_eq!(
                refused(&format!("BUY:AAPL:{day}:C:430")),
                format!("the expiry {day:?} is not a date YYYY-MM-DD")
            );
        }
        assert_eq!(
            refused("BUY:AAPL:2013-03-15:X:430"),
            "the right \"X\" is not C (a call) or P (a put)"
        );
        for strike in ["0", "-430", "four", ""] {
            assert_eq!(
                refused(&format!("BUY:AAPL:2013-03-15:C:{strike}")),
                format!("the strike {strike:?} is not a price above 0")
            );
        }
    }

    #[test]
    fn a_leg_of_shares_makes_a_covered_stock() {
        let buy_write = order(&[
            "--leg",
            "BUY:AAPL:100",
            "--leg",
            "SELL:AAPL:2013-03-15:C:460",
            "--strategy",
            "covered_stock",
            "2",
            "--limit",
            "440",
        ])
        .unwrap();
        assert_eq!(buy_write.option_strategy.as_deref(), Some("COVERED_STOCK"));
        let legs = buy_write.legs.unwrap();
        assert_eq!(
            serde_json::to_value(&legs[0]).unwrap(),
            serde_json::json!({"side": "BUY", "quantity": "200", "symbol": "AAPL", "instrument_type": "EQUITY",
                "market": "US"})
        );
        assert_eq!(legs[1].quantity, Some("2".into()));
        assert_eq!(
            parse_leg("BUY:AAPL:0").unwrap_err(),
            "the shares \"0\" are not a whole number above 0"
        );
    }

    #[test]
    fn an_order_with_a_leg_is_an_option_order_of_contracts() {
        let call = order(&["--leg", "BUY:aapl:2013-03-15:C:430", "2", "--limit", "0.05"]).unwrap();
        assert_eq!(
            (
                call.instrument_type.as_deref(),
                call.option_strategy.as_deref(),
                call.symbol.as_deref(),
                call.side.as_deref(),
                call.order_type.as_deref(),
                call.quantity.clone(),
            ),
            (
                Some("OPTION"),
                Some("SINGLE"),
                Some("AAPL"),
                Some("BUY"),
                Some("LIMIT"),
                Some("2".into())
            )
        );
        let legs = call.legs.unwrap();
        assert_eq!(legs.len(), 1);
        assert_eq!(
            serde_json::to_value(&legs[0]).unwrap(),
            serde_json::json!({"side": "BUY", "quantity": "2", "symbol": "AAPL", "strike_price": "430",
                "option_expire_date": "2013-03-15", "instrument_type": "OPTION", "option_type": "CALL",
                "market": "US"})
        );
        // The underlying may be given too, and the side, when they agree.
        let named = order(&["--side", "buy", "--leg", "BUY:AAPL:2013-03-15:C:430", "AAPL", "2"]).unwrap();
        assert_eq!(named.legs.unwrap()[0].quantity, Some("2".into()));
    }

    #[test]
    fn an_order_that_disagrees_with_its_leg_is_refused() {
        let refused = |args: &[&str]| order(args).unwrap_err().to_string();
        assert_eq!(
            refused(&["--side", "SELL", "--leg", "BUY:AAPL:2013-03-15:C:430", "2"]),
            "invalid option leg: its side BUY is not the order's side SELL"
        );
        assert_eq!(
            refused(&["--leg", "BUY:AAPL:2013-03-15:C:430", "MSFT", "2"]),
            "invalid option leg: its underlying AAPL is not the order's symbol MSFT"
        );
        assert!(
            refused(&["--leg", "BUY:AAPL:2013-03-15:C:430", "AAPL"])
                .starts_with("an option order needs its number of contracts")
        );
        assert!(
            refused(&["--leg", "BUY:AAPL:2013-03-15:C:430"])
                .starts_with("an option order needs its number of contracts")
        );
        assert!(
            refused(&["--leg", "BUY:AAPL:2013-03-15:C:430", "1", "--amount", "500"]).contains("cannot be used with")
        );
        assert!(
            refused(&["--leg", "BUY:AAPL:2013-03-15:C:430", "1", "--take-profit", "9"]).contains("cannot be used with")
        );
        // Without a leg the side and the symbol are required as before.
        assert!(refused(&["AAPL", "1"]).contains("--side"));
    }
}
