//! Placing new orders (catalog 3.2–3.7): each order priced at the quote, what a `new_orders`
//! list makes (one order, or a combination under its client id) and what a preview estimates it
//! costs, and what a batch of independent orders may hold.

use rust_decimal::Decimal;
use signet_model::ErrorCode;
use signet_model::ids::ClientOrderId;
use signet_model::orders::{ComboType, Side, TimeInForce};

use super::accounting::Commission;
use super::buying_power::{PricedLeg, PricedOrder};
use super::combo::{self, ComboKind, Part};
use super::multi_leg;
use super::order::Order;
use super::spec::{self, OrderSpec};
use crate::Rejection;
use crate::simulator::Quote;
use crate::simulator::clock::NewYork;
use crate::times::SimTime;

/// The most orders of a batch.
pub const MAX_BATCH: usize = 50;

/// Prices `spec`, an order of `instrument_id`, at `quote` (the simulator's now, `None` when it
/// quotes none) at the simulated time `sim_now`. A GTD order's last day is not past; a buy is
/// expected to fill at the ask, a sell at the bid (zero without a quote), a limit or stop order at
/// its limit, else its stop; a trailing stop starts its step away from the last price; an AMOUNT
/// order's quantity is what its cash buys at the expected price.
pub fn price(
    mut spec: OrderSpec,
    instrument_id: i64,
    quote: Option<&Quote>,
    sim_now: SimTime,
) -> Result<PricedOrder, Rejection> {
    if let Some(day) = spec.expire_day
        && day < NewYork::of(sim_now.0).day
    {
        return Err(Rejection::illegal_parameter(
            "expire_date is in the past (of the market's clock)",
        ));
    }
    let market_price = quote
        .map(|q| if spec.side == Side::Buy { q.ask } else { q.bid })
        .unwrap_or_default();
    if let Some(trailing) = spec.trailing {
        spec.stop_price = Some(trailing.stop_for(spec.side, quote.map_or(market_price, |q| q.last)));
    }
    let estimate = spec.limit_price.or(spec.stop_price).unwrap_or(market_price);
    spec.quantity_for(estimate)?;
    Ok(PricedOrder {
        spec,
        instrument_id,
        estimate,
        legs: Vec::new(),
    })
}

/// A multi-leg order priced for the buying-power check: each leg at its side of its quote
/// (`legs`: the contract's instrument id and quote, in the order's leg order; no quote prices a
/// leg at zero), the order at the debit of one unit ([`multi_leg::debit`]); `underlying_id` is
/// the order's instrument.
pub fn price_multi_leg(
    spec: OrderSpec,
    underlying_id: i64,
    legs: &[(i64, Option<&Quote>)],
) -> Result<PricedOrder, Rejection> {
    let multi = spec
        .multi_leg
        .as_ref()
        .ok_or_else(|| Rejection::illegal_parameter("a multi-leg order names its legs"))?;
    let legs: Vec<PricedLeg> = multi
        .legs
        .iter()
        .zip(legs)
        .map(|(leg, &(instrument_id, quote))| PricedLeg {
            instrument_id,
            side: leg.side,
            ratio: leg.ratio,
            price: quote
                .map(|q| if leg.side == Side::Buy { q.ask } else { q.bid })
                .unwrap_or_default(),
        })
        .collect();
    let at_quotes: Decimal = legs
        .iter()
        .map(|l| {
            let per = l.price * multi_leg::weight(l.instrument_id, l.ratio);
            if l.side == Side::Buy { per } else { -per }
        })
        .sum();
    let estimate = multi_leg::debit(spec.side, spec.order_type, spec.limit_price, at_quotes);
    Ok(PricedOrder {
        spec,
        instrument_id: underlying_id,
        estimate,
        legs,
    })
}

/// `new_orders` parsed and priced: one order, or a combination with its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub orders: Vec<PricedOrder>,
    /// The combination the orders make; `None` for one order alone.
    pub kind: Option<ComboKind>,
    pub client_combo_order_id: Option<String>,
}

impl Placement {
    /// The placement `orders` make, in the order placed ([`combo::kind_of`], [`check_combination`]),
    /// under `client_combo_order_id`: required of a combination, optional on one order alone but
    /// checked as a combination's is when given (it is stored and echoed).
    pub fn new(orders: Vec<PricedOrder>, client_combo_order_id: Option<&str>) -> Result<Placement, Rejection> {
        let kind = combo::kind_of(&orders.iter().map(|p| p.spec.combo_type).collect::<Vec<_>>())?;
        let client_combo_order_id = match kind {
            None if client_combo_order_id.is_none_or(|c| c.trim().is_empty()) => None,
            _ => Some(spec::client_id("client_combo_order_id", client_combo_order_id)?),
        };
        if kind.is_some() {
            check_combination(&orders)?;
        }
        Ok(Placement {
            orders,
            kind,
            client_combo_order_id,
        })
    }

    /// What a preview says the placement costs: the value and commission of what trades first,
    /// the order, the master of a combination, or the larger leg of an OCO pair (after the
    /// master, the others trade instead of buying power).
    pub fn estimate(&self, commission: Commission) -> Estimate {
        let first = match self.kind {
            Some(ComboKind::Oto | ComboKind::Otoco) => &self.orders[..1],
            _ => &self.orders[..],
        };
        let (cost, commission) = first
            .iter()
            .map(|p| {
                // A multi-leg order: its debit (negative: a credit), and every leg's contracts.
                let (multiplier, contracts) = if p.legs.is_empty() {
                    (crate::options::multiplier(p.instrument_id), p.spec.quantity)
                } else {
                    let per_unit: u64 = p.legs.iter().map(|l| l.ratio).sum();
                    (
                        Decimal::from(crate::options::MULTIPLIER),
                        p.spec.quantity * Decimal::from(per_unit),
                    )
                };
                (
                    p.spec.quantity * p.estimate * multiplier,
                    commission.of(contracts, true),
                )
            })
            .fold((Decimal::ZERO, Decimal::ZERO), |total, this| match self.kind {
                Some(ComboKind::Oco) => total.max(this),
                _ => (total.0 + this.0, total.1 + this.1),
            });
        Estimate { cost, commission }
    }
}

/// What a placement is expected to cost ([`Placement::estimate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// Quantity × expected price, unrounded.
    pub cost: Decimal,
    pub commission: Decimal,
}

/// Which client id of a placement is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    Order,
    Combination,
}

impl Taken {
    /// The refusal of a placement whose client id was used before in the account: every order,
    /// every combination needs a new one.
    pub fn rejection(self) -> Rejection {
        match self {
            Taken::Combination => Rejection::new(
                ErrorCode::DuplicateClientComboOrderId,
                "this client_combo_order_id was used before in this account: every combination needs a new one",
            ),
            Taken::Order => Rejection::new(
                ErrorCode::DuplicateClientOrderId,
                "this client_order_id was used before in this account: every order needs a new one",
            ),
        }
    }
}

/// The client combo order id an order stores, when it is part of a combination (one order alone
/// may carry one, which does not count).
pub fn combo_id(order: &Order) -> Option<&str> {
    order.combo.as_ref().and(order.client_combo_order_id.as_deref())
}

/// Which client id of a placement's `orders` is taken: used before in the account (`used_ids`,
/// `used_combo_ids`), or by one of `earlier`, the orders of placements accepted before it. Its
/// combination's id is looked at first.
pub fn taken<'a>(
    orders: &[Order],
    used_ids: &[ClientOrderId],
    used_combo_ids: &[String],
    earlier: impl Iterator<Item = &'a Order> + Clone,
) -> Option<Taken> {
    let combo = orders.first().and_then(combo_id);
    if let Some(combo) = combo
        && (used_combo_ids.iter().any(|u| u == combo) || earlier.clone().any(|o| combo_id(o) == Some(combo)))
    {
        return Some(Taken::Combination);
    }
    orders
        .iter()
        .any(|o| {
            used_ids.contains(&o.client_order_id) || earlier.clone().any(|e| e.client_order_id == o.client_order_id)
        })
        .then_some(Taken::Order)
}

/// Refuses a batch of no orders or more than [`MAX_BATCH`], before its orders are read.
pub fn check_batch_size(orders: usize) -> Result<(), Rejection> {
    if orders == 0 || orders > MAX_BATCH {
        return Err(Rejection::illegal_parameter(format!(
            "batch_orders must hold 1 to {MAX_BATCH} orders"
        )));
    }
    Ok(())
}

/// Refuses `order`, the `i`th of a batch, unless it is NORMAL: a batch's orders are independent.
pub fn check_batch_order(i: usize, order: &OrderSpec) -> Result<(), Rejection> {
    if order.combo_type != ComboType::Normal {
        return Err(Rejection::new(
            ErrorCode::UnsupportedComboType,
            format!(
                "batch_orders[{i}]: a batch holds independent NORMAL orders; place a combination with /trading/orders/place"
            ),
        ));
    }
    // Webull's batch placement takes stock orders only.
    if order.contract.is_some() || order.multi_leg.is_some() {
        return Err(Rejection::new(
            ErrorCode::UnsupportedInstrumentType,
            format!(
                "batch_orders[{i}]: a batch holds stock orders only; place an option order with /trading/orders/place"
            ),
        ));
    }
    Ok(())
}

/// The orders of a combination, in the order placed: each with its own client order id, none
/// IOC (a combination waits), and the two legs of an OCO pair on one instrument and side.
pub fn check_combination(orders: &[PricedOrder]) -> Result<(), Rejection> {
    distinct_ids(orders, "two orders of the combination share a client_order_id")?;
    if orders.iter().any(|p| p.spec.time_in_force == TimeInForce::Ioc) {
        return Err(Rejection::new(
            ErrorCode::UnsupportedTimeInForce,
            "IOC orders do not combine: give the orders of a combination DAY, GTC or GTD",
        ));
    }
    let legs: Vec<&PricedOrder> = orders
        .iter()
        .filter(|p| combo::part(p.spec.combo_type) == Part::Leg)
        .collect();
    if let [a, b] = legs.as_slice()
        && (a.instrument_id != b.instrument_id || a.spec.side != b.spec.side)
    {
        return Err(Rejection::illegal_parameter(
            "the two legs of an OCO pair trade the same symbol on the same side",
        ));
    }
    Ok(())
}

/// Refuses orders placed together (a combination, a batch) of which two share a client order
/// id, with `message`.
pub fn distinct_ids(orders: &[PricedOrder], message: &'static str) -> Result<(), Rejection> {
    let mut ids: Vec<&str> = orders.iter().map(|p| p.spec.client_order_id.as_str()).collect();
    ids.sort_unstable();
    if ids.windows(2).any(|w| w[0] == w[1]) {
        return Err(Rejection::new(ErrorCode::DuplicateClientOrderId, message));
    }
    Ok(())
}

/// Refuses a batch of which two orders share a client order id.
pub fn check_batch_ids(orders: &[PricedOrder]) -> Result<(), Rejection> {
    distinct_ids(orders, "two orders of the batch share a client_order_id")
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;
    use serde_json::json;
    use signet_model::orders::{NewOrder, TimeInForce};

    use super::*;
    use crate::marketdata::units::parse_day;
    use crate::trading::buying_power::tests::order;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    /// An order as sent: a DAY limit buy of 10 AAPL at 100.5, with `fields` changed.
    fn spec(fields: serde_json::Value) -> OrderSpec {
        let mut base = json!({
            "client_order_id": "a1", "symbol": "AAPL", "side": "BUY", "order_type": "LIMIT",
            "quantity": "10", "limit_price": "100.5"
        });
        for (k, v) in fields.as_object().unwrap() {
            base[k] = v.clone();
        }
        spec::parse(&serde_json::from_value::<NewOrder>(base).unwrap()).unwrap()
    }

    /// Noon in New York of `day` (yyyy-MM-dd).
    fn noon(day: &str) -> SimTime {
        SimTime(i64::from(parse_day(day).unwrap()) * 86_400_000 + 17 * 3_600_000)
    }

    /// A quote of last 100, bid 99.99, ask 100.01.
    fn quote() -> Quote {
        Quote::sample(d("100"), 100)
    }

    fn priced(fields: serde_json::Value, quote: Option<&Quote>) -> Result<PricedOrder, Rejection> {
        price(spec(fields), 7, quote, noon("2013-02-25"))
    }

    #[test]
    fn an_order_is_expected_to_fill_at_its_limit_its_stop_or_the_quote() {
        let limit = priced(json!({}), Some(&quote())).unwrap();
        assert_eq!((limit.instrument_id, limit.estimate), (7, d("100.5")));
        assert_eq!(limit.spec, spec(json!({})), "a limit order is priced as sent");
        let stop = priced(
            json!({"order_type": "STOP_LOSS", "side": "SELL", "stop_price": "95"}),
            Some(&quote()),
        )
        .unwrap();
        assert_eq!(stop.estimate, d("95"));
        let stop_limit = priced(
            json!({"order_type": "STOP_LOSS_LIMIT", "stop_price": "95", "limit_price": "96"}),
            None,
        )
        .unwrap();
        assert_eq!(stop_limit.estimate, d("96"), "the limit before the stop");
        let buy = priced(json!({"order_type": "MARKET"}), Some(&quote())).unwrap();
        assert_eq!(buy.estimate, d("100.01"), "a buy at the ask");
        for side in ["SELL", "SHORT"] {
            let sell = priced(json!({"order_type": "MARKET", "side": side}), Some(&quote())).unwrap();
            assert_eq!(sell.estimate, d("99.99"), "a {side} at the bid");
        }
        let unquoted = priced(json!({"order_type": "MARKET"}), None).unwrap();
        assert_eq!(unquoted.estimate, Decimal::ZERO, "nothing without a quote");
    }

    #[test]
    fn a_trailing_stop_starts_its_step_from_the_last_price() {
        let trailing = json!({
            "order_type": "TRAILING_STOP_LOSS", "side": "SELL", "trailing_type": "AMOUNT", "trailing_stop_step": "5"
        });
        let sell = priced(trailing.clone(), Some(&quote())).unwrap();
        assert_eq!((sell.spec.stop_price, sell.estimate), (Some(d("95")), d("95")));
        let mut buy = trailing;
        buy["side"] = json!("BUY");
        buy["trailing_type"] = json!("PERCENTAGE");
        buy["trailing_stop_step"] = json!("0.1");
        let buy = priced(buy, Some(&quote())).unwrap();
        assert_eq!((buy.spec.stop_price, buy.estimate), (Some(d("110")), d("110")));
        let unquoted = priced(
            json!({"order_type": "TRAILING_STOP_LOSS", "side": "SELL", "trailing_type": "AMOUNT", "trailing_stop_step": "5"}),
            None,
        )
        .unwrap();
        assert_eq!(
            unquoted.spec.stop_price,
            Some(Decimal::ZERO),
            "from zero, never below it"
        );
    }

    #[test]
    fn an_amount_order_buys_what_its_cash_pays_for_at_the_expected_price() {
        let amount = json!({"entrust_type": "AMOUNT", "quantity": null, "total_cash_amount": "1000"});
        let limit = priced(amount.clone(), None).unwrap();
        assert_eq!(limit.spec.quantity, d("9.950248"), "at the limit, rounded down");
        let mut market = amount;
        market["order_type"] = json!("MARKET");
        market["limit_price"] = json!(null);
        assert_eq!(
            priced(market.clone(), Some(&quote())).unwrap().spec.quantity,
            d("9.999")
        );
        assert_eq!(
            priced(market, None).unwrap_err(),
            Rejection::illegal_parameter(
                "there is no price yet to turn total_cash_amount into shares: give a quantity"
            )
        );
    }

    #[test]
    fn a_gtd_order_ends_today_at_the_earliest() {
        let gtd = |day: &str| spec(json!({"time_in_force": "GTD", "expire_date": day}));
        let today = noon("2013-02-25");
        assert!(price(gtd("2013-02-25"), 1, None, today).is_ok());
        assert!(price(gtd("2013-03-01"), 1, None, today).is_ok());
        assert_eq!(
            price(gtd("2013-02-24"), 1, None, today).unwrap_err(),
            Rejection::illegal_parameter("expire_date is in the past (of the market's clock)")
        );
        // The day is New York's: 02:00 UTC on the 26th is still the 25th there.
        let late_evening = SimTime(i64::from(parse_day("2013-02-26").unwrap()) * 86_400_000 + 2 * 3_600_000);
        assert!(price(gtd("2013-02-25"), 1, None, late_evening).is_ok());
        assert!(price(gtd("2013-02-25"), 1, None, SimTime(late_evening.0 + 4 * 3_600_000)).is_err());
    }

    fn with_id(mut order: PricedOrder, id: &str) -> PricedOrder {
        order.spec.client_order_id = id.into();
        order
    }

    fn bracket() -> Vec<PricedOrder> {
        vec![
            with_id(order(1, Side::Buy, "1", "100", ComboType::Master), "m"),
            with_id(order(1, Side::Sell, "1", "110", ComboType::StopProfit), "p"),
            with_id(order(1, Side::Sell, "1", "90", ComboType::StopLoss), "l"),
        ]
    }

    #[test]
    fn one_order_needs_no_combination_id_but_a_given_one_is_checked() {
        let one = || vec![order(1, Side::Buy, "1", "100", ComboType::Normal)];
        for none in [None, Some(""), Some("  ")] {
            let placement = Placement::new(one(), none).unwrap();
            assert_eq!(
                (placement.kind, placement.client_combo_order_id),
                (None, None),
                "{none:?}"
            );
        }
        assert_eq!(
            Placement::new(one(), Some(" c-1 "))
                .unwrap()
                .client_combo_order_id
                .as_deref(),
            Some("c-1")
        );
        assert_eq!(
            Placement::new(one(), Some("not valid")).unwrap_err(),
            Rejection::illegal_parameter("client_combo_order_id must be 1 to 32 characters of A-Z a-z 0-9 _ -")
        );
    }

    #[test]
    fn a_combination_needs_its_id_and_keeps_its_order() {
        let placement = Placement::new(bracket(), Some("c1")).unwrap();
        assert_eq!(placement.kind, Some(ComboKind::Otoco));
        assert_eq!(placement.client_combo_order_id.as_deref(), Some("c1"));
        assert_eq!(placement.orders, bracket());
        assert_eq!(
            Placement::new(bracket(), None).unwrap_err(),
            Rejection::illegal_parameter("client_combo_order_id is required")
        );
    }

    #[test]
    fn the_shape_is_checked_before_the_id_and_the_id_before_the_orders() {
        let mut upside_down = bracket();
        upside_down.swap(0, 1);
        assert_eq!(
            Placement::new(upside_down, None).unwrap_err().code,
            ErrorCode::UnsupportedComboType
        );
        let mut ioc = bracket();
        ioc[0].spec.time_in_force = TimeInForce::Ioc;
        assert_eq!(
            Placement::new(ioc.clone(), None).unwrap_err(),
            Rejection::illegal_parameter("client_combo_order_id is required")
        );
        assert_eq!(
            Placement::new(ioc, Some("c1")).unwrap_err().code,
            ErrorCode::UnsupportedTimeInForce
        );
        assert_eq!(
            Placement::new(Vec::new(), None).unwrap_err(),
            Rejection::illegal_parameter("new_orders is empty")
        );
    }

    #[test]
    fn a_preview_costs_what_trades_first() {
        let fee = Commission {
            per_share: d("0.005"),
            per_order: Decimal::ONE,
        };
        let one = Placement::new(vec![order(1, Side::Buy, "10", "100.5", ComboType::Normal)], None).unwrap();
        assert_eq!(
            one.estimate(fee),
            Estimate {
                cost: d("1005"),
                commission: d("1.05")
            }
        );
        assert_eq!(
            one.estimate(Commission::default()),
            Estimate {
                cost: d("1005"),
                commission: Decimal::ZERO
            }
        );
        let bracket = Placement::new(bracket(), Some("c")).unwrap();
        assert_eq!(
            bracket.estimate(fee),
            Estimate {
                cost: d("100"),
                commission: d("1.00")
            },
            "the master only: its legs sell what it buys"
        );
        let mut oto = bracket.clone();
        oto.orders.truncate(2);
        oto.orders[1].spec.combo_type = ComboType::Oto;
        oto.kind = Some(ComboKind::Oto);
        assert_eq!(oto.estimate(fee).cost, d("100"), "the master only");
    }

    #[test]
    fn an_oco_pair_costs_its_larger_leg() {
        let fee = Commission {
            per_share: d("0.005"),
            per_order: Decimal::ONE,
        };
        let pair = |a: (&str, &str), b: (&str, &str)| {
            Placement::new(
                vec![
                    with_id(order(1, Side::Buy, a.0, a.1, ComboType::Oco), "a"),
                    with_id(order(1, Side::Buy, b.0, b.1, ComboType::Oco), "b"),
                ],
                Some("c"),
            )
            .unwrap()
        };
        assert_eq!(
            pair(("1", "90"), ("1", "110")).estimate(fee),
            Estimate {
                cost: d("110"),
                commission: d("1.00")
            }
        );
        // Of two legs worth the same, the larger commission (1.01 for 2 shares, 1.005 rounded to
        // 1.00 for one).
        assert_eq!(
            pair(("1", "100"), ("2", "50")).estimate(fee),
            Estimate {
                cost: d("100"),
                commission: d("1.01")
            }
        );
        // The larger value wins even with the smaller commission.
        assert_eq!(
            pair(("100", "1"), ("1", "101")).estimate(fee),
            Estimate {
                cost: d("101"),
                commission: d("1.00")
            }
        );
    }

    /// Stored orders with these client ids, of combination `combo` when given.
    fn stored(ids: &[&str], combo: Option<&str>) -> Vec<Order> {
        ids.iter()
            .map(|id| Order {
                client_combo_order_id: combo.map(str::to_owned),
                combo: combo.map(|_| combo::Combo {
                    combo_order_id: "M".into(),
                    kind: ComboKind::Oco,
                }),
                ..Order::sample(id, Side::Buy, signet_model::orders::OrderType::Limit)
            })
            .collect()
    }

    fn ids(ids: &[&str]) -> Vec<ClientOrderId> {
        ids.iter().map(|id| ClientOrderId::from(*id)).collect()
    }

    #[test]
    fn a_client_id_is_taken_when_used_before_or_earlier_in_the_turn() {
        let none: &[Order] = &[];
        let pair = stored(&["a", "b"], Some("c"));
        assert_eq!(taken(&pair, &[], &[], none.iter()), None);
        assert_eq!(taken(&pair, &ids(&["x", "b"]), &[], none.iter()), Some(Taken::Order));
        assert_eq!(
            taken(&pair, &[], &["c".to_owned()], none.iter()),
            Some(Taken::Combination)
        );
        assert_eq!(
            taken(&pair, &ids(&["a"]), &["c".to_owned()], none.iter()),
            Some(Taken::Combination),
            "the combination's id first"
        );
        let earlier = stored(&["x", "a"], None);
        assert_eq!(taken(&pair, &[], &[], earlier.iter()), Some(Taken::Order));
        let earlier = stored(&["x", "y"], Some("c"));
        assert_eq!(taken(&pair, &[], &[], earlier.iter()), Some(Taken::Combination));
        // One order alone may carry a client combo order id: it is no combination's.
        let alone = stored(&["z"], None);
        let alone_with_id: Vec<Order> = alone
            .iter()
            .map(|o| Order {
                client_combo_order_id: Some("c".into()),
                ..o.clone()
            })
            .collect();
        assert_eq!(combo_id(&alone_with_id[0]), None);
        assert_eq!(taken(&alone_with_id, &[], &["c".to_owned()], pair.iter()), None);
        assert_eq!(taken(&pair, &[], &[], alone_with_id.iter()), None);
        assert_eq!(combo_id(&pair[0]), Some("c"));
    }

    #[test]
    fn a_taken_id_is_refused_by_its_kind() {
        assert_eq!(
            Taken::Order.rejection(),
            Rejection::new(
                ErrorCode::DuplicateClientOrderId,
                "this client_order_id was used before in this account: every order needs a new one"
            )
        );
        assert_eq!(
            Taken::Combination.rejection(),
            Rejection::new(
                ErrorCode::DuplicateClientComboOrderId,
                "this client_combo_order_id was used before in this account: every combination needs a new one"
            )
        );
    }

    #[test]
    fn a_batch_holds_1_to_50_independent_orders_with_their_own_ids() {
        let refusal = Rejection::illegal_parameter("batch_orders must hold 1 to 50 orders");
        assert_eq!(check_batch_size(0).unwrap_err(), refusal);
        assert_eq!(check_batch_size(51).unwrap_err(), refusal);
        assert_eq!(check_batch_size(1), Ok(()));
        assert_eq!(check_batch_size(50), Ok(()));

        let normal = order(1, Side::Buy, "1", "100", ComboType::Normal);
        assert_eq!(check_batch_order(0, &normal.spec), Ok(()));
        assert_eq!(
            check_batch_order(7, &bracket()[0].spec).unwrap_err(),
            Rejection::new(
                ErrorCode::UnsupportedComboType,
                "batch_orders[7]: a batch holds independent NORMAL orders; place a combination with /trading/orders/place"
            )
        );

        let (a, b) = (with_id(normal.clone(), "a"), with_id(normal.clone(), "b"));
        assert_eq!(check_batch_ids(&[a.clone(), b]), Ok(()));
        assert_eq!(
            check_batch_ids(&[a.clone(), with_id(normal, "c"), a]).unwrap_err(),
            Rejection::new(
                ErrorCode::DuplicateClientOrderId,
                "two orders of the batch share a client_order_id"
            )
        );
    }

    #[test]
    fn a_bracket_combines_and_its_orders_each_have_their_own_id() {
        assert_eq!(check_combination(&bracket()), Ok(()));
        let mut shared = bracket();
        shared[2].spec.client_order_id = "m".into();
        assert_eq!(
            check_combination(&shared).unwrap_err(),
            Rejection::new(
                ErrorCode::DuplicateClientOrderId,
                "two orders of the combination share a client_order_id"
            )
        );
        assert_eq!(distinct_ids(&shared[1..], "p and m differ"), Ok(()));
        assert_eq!(distinct_ids(&shared, "same").unwrap_err().message, "same");
    }

    #[test]
    fn ioc_orders_do_not_combine() {
        let mut ioc = bracket();
        ioc[1].spec.time_in_force = TimeInForce::Ioc;
        assert_eq!(
            check_combination(&ioc).unwrap_err(),
            Rejection::new(
                ErrorCode::UnsupportedTimeInForce,
                "IOC orders do not combine: give the orders of a combination DAY, GTC or GTD"
            )
        );
        // The ids are checked first.
        ioc[2].spec.client_order_id = "p".into();
        assert_eq!(
            check_combination(&ioc).unwrap_err().code,
            ErrorCode::DuplicateClientOrderId
        );
    }

    #[test]
    fn the_legs_of_a_pair_trade_one_symbol_on_one_side() {
        let refusal =
            Rejection::illegal_parameter("the two legs of an OCO pair trade the same symbol on the same side");
        let mut other_symbol = bracket();
        other_symbol[2].instrument_id = 2;
        assert_eq!(check_combination(&other_symbol).unwrap_err(), refusal);
        let mut other_side = bracket();
        other_side[1].spec.side = Side::Buy;
        assert_eq!(check_combination(&other_side).unwrap_err(), refusal);
        // Only the legs: an OTO follower may trade another symbol than its master.
        let mut oto = vec![
            order(1, Side::Buy, "1", "100", ComboType::Master),
            order(2, Side::Sell, "1", "50", ComboType::Oto),
        ];
        oto[1].spec.client_order_id = "f".into();
        assert_eq!(check_combination(&oto), Ok(()));
        let pair = &bracket()[1..];
        assert_eq!(check_combination(pair), Ok(()));
    }
}
