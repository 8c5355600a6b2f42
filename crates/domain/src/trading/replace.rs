//! Replacing an open order (catalog 3.9): its quantity, limit price and stop price may change,
//! nothing else (a new order type, time in force or trailing step takes a cancel and a new
//! order). The filled part stays: the new quantity must be more than what has filled, and the
//! replaced order's unfilled part is checked against the account anew. A multi-leg order's
//! quantity counts units of the whole and its limit is a net price: both may change, through
//! `quantity` or its legs' quantities; its legs stay.

use rust_decimal::Decimal;
use signet_model::orders::{ComboType, ModifyOrder, OrderType, TradingSession};
use signet_model::wire::WireEnum;

use super::buying_power::{PricedLeg, PricedOrder};
use super::multi_leg::{self, LegsClaim, MultiLeg};
use super::order::{Order, is_open, not_open};
use super::spec::{self, OrderSpec};
use crate::Rejection;

/// New values for an order: its whole quantity (the filled part included), its limit and its
/// stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replacement {
    pub quantity: Decimal,
    pub limit_price: Option<Decimal>,
    pub stop_price: Option<Decimal>,
    /// Of a multi-leg order, what a unit claims at the new limit ([`super::multi_leg::claim`]),
    /// set once the replacement is checked.
    pub legs_claim: Option<LegsClaim>,
}

/// The one order of `modify_orders`, if it asks to change only what a replacement may change.
/// Checked before the order is looked up.
pub fn modification(modify_orders: &[ModifyOrder]) -> Result<&ModifyOrder, Rejection> {
    let modify = match modify_orders {
        [one] => one,
        _ => return Err(Rejection::illegal_parameter("modify_orders must hold one order")),
    };
    let trailing_change = ["trailing_type", "trailing_stop_step"]
        .iter()
        .any(|k| modify.other.get(*k).is_some_and(|v| !v.is_null()));
    if modify.order_type.is_some() || modify.time_in_force.is_some() || trailing_change {
        return Err(Rejection::illegal_parameter(
            "only quantity, limit_price and stop_price can be replaced: cancel and place a new order for the rest",
        ));
    }
    Ok(modify)
}

/// The quantity an option order's replacement gives its leg (`legs: [{id, quantity}]`, the leg
/// named by the id the order listings show, the order's own).
fn leg_quantity(order: &Order, modify: &ModifyOrder) -> Result<Option<Decimal>, Rejection> {
    let Some(legs) = modify.other.get("legs").filter(|l| !l.is_null()) else {
        return Ok(None);
    };
    let legs = legs.as_array().map(Vec::as_slice).unwrap_or_default();
    if let Some(multi) = &order.multi_leg {
        return legs_units(order, multi, legs);
    }
    match legs {
        [] => Ok(None),
        [leg] if crate::options::is_contract(order.instrument_id) => {
            let id = leg
                .get("id")
                .and_then(|v| v.as_str().map(str::to_owned).or_else(|| Some(v.to_string())));
            if id.as_deref() != Some(order.order_id.as_str()) {
                return Err(Rejection::illegal_parameter(
                    "legs[0].id is not the order's leg: read it from the order's detail (orders[0].legs[0].id)",
                ));
            }
            spec::decimal("legs[0].quantity", leg.get("quantity"))
        }
        _ => Err(Rejection::illegal_parameter(
            "legs are replaced on option orders only, one leg with its id and quantity",
        )),
    }
}

/// The units a multi-leg order's replacement gives it through `legs` (`[{id, quantity}]`, the
/// ids its detail shows, `ORDER_ID-n`): each leg named holds its contracts, which must make the
/// same whole number of units of every leg named.
fn legs_units(order: &Order, multi: &MultiLeg, legs: &[serde_json::Value]) -> Result<Option<Decimal>, Rejection> {
    let mut units: Option<Decimal> = None;
    for (i, leg) in legs.iter().enumerate() {
        let id = leg
            .get("id")
            .and_then(|v| v.as_str().map(str::to_owned).or_else(|| Some(v.to_string())))
            .unwrap_or_default();
        let ratio = id
            .strip_prefix(order.order_id.as_str())
            .and_then(|n| n.strip_prefix('-'))
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| n.checked_sub(1))
            .and_then(|n| multi.legs.get(n))
            .map(|l| Decimal::from(l.ratio))
            .ok_or_else(|| {
                Rejection::illegal_parameter(format!(
                    "legs[{i}].id {id:?} is not one of the order's legs: read them from its detail (orders[0].legs[n].id)"
                ))
            })?;
        let Some(contracts) = spec::decimal(&format!("legs[{i}].quantity"), leg.get("quantity"))? else {
            continue;
        };
        let leg_units = contracts / ratio;
        if leg_units.fract() != Decimal::ZERO || units.is_some_and(|u| u != leg_units) {
            return Err(Rejection::illegal_parameter(
                "a multi-leg order's legs keep their ratio: each leg's quantity is the order's units times its share of a unit",
            ));
        }
        units = Some(leg_units);
    }
    Ok(units)
}

/// What `modify` makes of `order`: a field not given keeps the order's value. The order must be
/// open; the quantity stays above what has filled; only a limit order (LIMIT, STOP_LOSS_LIMIT)
/// takes a limit price, and only a stop order (STOP_LOSS, STOP_LOSS_LIMIT) whose stop has not
/// been reached takes a stop price (a trailing stop moves its own).
pub fn apply(order: &Order, modify: &ModifyOrder) -> Result<Replacement, Rejection> {
    if !is_open(order.status) {
        return Err(not_open(order));
    }
    let quantity = spec::decimal("quantity", modify.quantity.as_ref())?
        .or(leg_quantity(order, modify)?)
        .unwrap_or(order.quantity);
    if crate::options::is_contract(order.instrument_id)
        && (quantity.fract() != Decimal::ZERO || quantity > Decimal::from(spec::MAX_CONTRACTS))
    {
        return Err(Rejection::illegal_parameter(format!(
            "an option order's quantity is a whole number of contracts, at most {}",
            spec::MAX_CONTRACTS
        )));
    }
    if let Some(multi) = &order.multi_leg {
        let most_per_unit = multi.legs.iter().map(|l| l.ratio).max().unwrap_or(1);
        if quantity.fract() != Decimal::ZERO
            || quantity * Decimal::from(most_per_unit) > Decimal::from(spec::MAX_CONTRACTS)
        {
            return Err(Rejection::illegal_parameter(format!(
                "a multi-leg order's quantity is a whole number of units, its legs at most {} contracts each",
                spec::MAX_CONTRACTS
            )));
        }
        if let Some(limit) = spec::decimal("limit_price", modify.limit_price.as_ref())?
            && limit.normalize().scale() > 2
        {
            return Err(Rejection::illegal_parameter(format!(
                "limit_price {limit} is a multi-leg order's net price: in steps of 0.01"
            )));
        }
    }
    if quantity <= order.filled_quantity || quantity > Decimal::from(spec::MAX_QUANTITY) || quantity.scale() > 6 {
        return Err(Rejection::illegal_parameter(format!(
            "quantity must be more than the {} already filled and at most {}, with at most 6 decimals",
            order.filled_quantity,
            spec::MAX_QUANTITY
        )));
    }
    let given = |field: &str, value: Option<&serde_json::Value>| -> Result<Option<Decimal>, Rejection> {
        match spec::decimal(field, value)? {
            None => Ok(None),
            Some(_) => Ok(Some(spec::price(field, value, order.order_type)?)),
        }
    };
    let limit_price = match (order.order_type, given("limit_price", modify.limit_price.as_ref())?) {
        (OrderType::Limit | OrderType::StopLossLimit, new) => new.or(order.limit_price),
        (_, Some(_)) => {
            return Err(Rejection::illegal_parameter(
                "only LIMIT and STOP_LOSS_LIMIT orders have a limit_price",
            ));
        }
        (_, None) => None,
    };
    let stop_price = match (order.order_type, given("stop_price", modify.stop_price.as_ref())?) {
        (OrderType::StopLoss | OrderType::StopLossLimit, Some(_)) if order.triggered_at.is_some() => {
            return Err(Rejection::illegal_parameter(
                "the stop was reached already: the order trades, and its stop_price no longer matters",
            ));
        }
        (OrderType::StopLoss | OrderType::StopLossLimit, new) => new.or(order.stop_price),
        (_, Some(_)) => {
            return Err(Rejection::illegal_parameter(
                "only STOP_LOSS and STOP_LOSS_LIMIT orders take a new stop_price (a trailing stop moves its own)",
            ));
        }
        (_, None) => order.stop_price,
    };
    Ok(Replacement {
        quantity,
        limit_price,
        stop_price,
        legs_claim: None,
    })
}

impl Replacement {
    /// The unfilled part of `order` as replaced, priced for the buying-power check, which counts
    /// it anew: at its limit, else its stop, else `market_price` (asked for only then).
    pub fn remaining(&self, order: &Order, market_price: impl FnOnce() -> Decimal) -> PricedOrder {
        PricedOrder {
            spec: OrderSpec {
                client_order_id: order.client_order_id.clone(),
                combo_type: ComboType::Normal,
                symbol: order.symbol.clone(),
                side: order.side,
                order_type: order.order_type,
                time_in_force: order.time_in_force,
                quantity: self.quantity - order.filled_quantity,
                cash_amount: None,
                limit_price: self.limit_price,
                stop_price: self.stop_price,
                trailing: order.trailing,
                expire_day: None,
                session: order.session,
                contract: crate::options::is_contract(order.instrument_id)
                    .then(|| crate::options::Contract::parse_occ(&order.symbol).ok())
                    .flatten(),
                multi_leg: None,
                intent: order.position_intent,
            },
            instrument_id: order.instrument_id,
            estimate: self.limit_price.or(self.stop_price).unwrap_or_else(market_price),
            legs: Vec::new(),
        }
    }

    /// The unfilled units of multi-leg `order` (its legs `multi`) as replaced, for the check:
    /// each leg at `prices` now (its ask bought, its bid sold), the order at the debit of a unit
    /// at its new limit ([`multi_leg::debit`]).
    pub fn remaining_legs(&self, order: &Order, multi: &MultiLeg, prices: &[Decimal]) -> PricedOrder {
        let mut priced = self.remaining(order, || multi.net(prices));
        priced.estimate = multi_leg::debit(order.side, order.order_type, self.limit_price, multi.net(prices));
        priced.legs = multi
            .legs
            .iter()
            .zip(prices)
            .map(|(leg, &price)| PricedLeg {
                instrument_id: leg.instrument_id,
                side: leg.side,
                ratio: leg.ratio,
                price,
            })
            .collect();
        priced
    }
}

/// What a v1 replacement repeats of its order (the official client's `replace_order` sends the
/// instrument, side, type, time in force and sessions with the new quantity and prices).
#[derive(Debug, Clone, Copy, Default)]
pub struct Repeated<'a> {
    pub instrument_id: Option<&'a str>,
    pub side: Option<&'a str>,
    pub order_type: Option<&'a str>,
    pub time_in_force: Option<&'a str>,
    pub extended_hours: Option<bool>,
}

/// Each field a v1 replacement repeats must be the order's own: only the quantity and the
/// prices change, as in [`modification`].
pub fn check_repeated(order: &Order, repeated: &Repeated<'_>) -> Result<(), Rejection> {
    let instrument_id = order.instrument_id.to_string();
    let extended = order.session != TradingSession::Core;
    let fields = [
        ("instrument_id", repeated.instrument_id, instrument_id.as_str()),
        ("side", repeated.side, order.side.as_str()),
        ("order_type", repeated.order_type, order.order_type.as_str()),
        ("tif", repeated.time_in_force, order.time_in_force.as_str()),
    ];
    for (field, given, own) in fields {
        if let Some(given) = given.map(str::trim).filter(|g| !g.eq_ignore_ascii_case(own)) {
            return Err(Rejection::illegal_parameter(format!(
                "{field} {given:?} is not the order's own ({own}): only qty, limit_price and stop_price can be replaced; cancel and place a new order for the rest"
            )));
        }
    }
    if repeated.extended_hours.is_some_and(|e| e != extended) {
        return Err(Rejection::illegal_parameter(format!(
            "extended_hours_trading is {extended} for this order: only qty, limit_price and stop_price can be replaced; cancel and place a new order for the rest"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use signet_model::ErrorCode;
    use signet_model::orders::{OrderStatus, Side, TrailingType};

    use super::*;
    use crate::times::SimTime;
    use crate::trading::order::Trailing;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn modify(fields: serde_json::Value) -> ModifyOrder {
        let mut base = json!({"client_order_id": "A"});
        for (k, v) in fields.as_object().unwrap() {
            base[k] = v.clone();
        }
        serde_json::from_value(base).unwrap()
    }

    /// An open order of 10 of `order_type` at limit 100 and stop 90, as its type has them.
    fn order(order_type: OrderType) -> Order {
        let mut order = Order::sample("A", Side::Buy, order_type);
        if matches!(order_type, OrderType::Limit | OrderType::StopLossLimit) {
            order.limit_price = Some(d("100"));
        }
        if matches!(order_type, OrderType::StopLoss | OrderType::StopLossLimit) {
            order.stop_price = Some(d("90"));
        }
        if order_type == OrderType::TrailingStopLoss {
            order.trailing = Some(Trailing {
                kind: TrailingType::Amount,
                step: d("5"),
            });
            order.stop_price = Some(d("105"));
        }
        order
    }

    fn refused(order: &Order, fields: serde_json::Value) -> Rejection {
        apply(order, &modify(fields)).unwrap_err()
    }

    #[test]
    fn a_request_replaces_one_order_and_only_its_quantity_and_prices() {
        let one = [modify(
            json!({"quantity": "2", "other_field": 1, "trailing_type": null}),
        )];
        assert_eq!(modification(&one).unwrap(), &one[0]);
        for many in [&[][..], &[modify(json!({})), modify(json!({}))]] {
            assert_eq!(
                modification(many).unwrap_err(),
                Rejection::illegal_parameter("modify_orders must hold one order")
            );
        }
        for fields in [
            json!({"order_type": "MARKET"}),
            json!({"time_in_force": "GTC"}),
            json!({"trailing_type": "AMOUNT"}),
            json!({"trailing_stop_step": "1"}),
        ] {
            assert_eq!(
                modification(&[modify(fields.clone())]).unwrap_err(),
                Rejection::illegal_parameter(
                    "only quantity, limit_price and stop_price can be replaced: cancel and place a new order for the rest"
                ),
                "{fields}"
            );
        }
    }

    #[test]
    fn an_option_order_is_replaced_by_its_leg_in_whole_contracts() {
        let mut option = order(OrderType::Limit);
        option.instrument_id = crate::options::Contract::parse_occ("AAPL130315C00450000")
            .unwrap()
            .instrument_id(1)
            .unwrap();
        let leg = |id: &str, quantity: &str| modify(json!({"legs": [{"id": id, "quantity": quantity}]}));
        assert_eq!(apply(&option, &leg("A", "12")).unwrap().quantity, d("12"));
        assert_eq!(
            apply(
                &option,
                &modify(json!({"quantity": "11", "legs": [{"id": "A", "quantity": "12"}]}))
            )
            .unwrap()
            .quantity,
            d("11"),
            "the order's own quantity first"
        );
        for refused in [leg("B", "12"), leg("A", "12.5"), leg("A", "20000")] {
            assert_eq!(apply(&option, &refused).unwrap_err().code, ErrorCode::IllegalParameter);
        }
        let shares = order(OrderType::Limit);
        assert_eq!(
            apply(&shares, &leg("A", "12")).unwrap_err().code,
            ErrorCode::IllegalParameter
        );
    }

    #[test]
    fn what_is_not_given_stays() {
        let limit = order(OrderType::Limit);
        assert_eq!(
            apply(&limit, &modify(json!({}))).unwrap(),
            Replacement {
                quantity: d("10"),
                limit_price: Some(d("100")),
                stop_price: None,
                legs_claim: None,
            }
        );
        assert_eq!(
            apply(&limit, &modify(json!({"quantity": "12", "limit_price": 101.5}))).unwrap(),
            Replacement {
                quantity: d("12"),
                limit_price: Some(d("101.5")),
                stop_price: None,
                legs_claim: None,
            }
        );
        let stop_limit = order(OrderType::StopLossLimit);
        assert_eq!(
            apply(&stop_limit, &modify(json!({"stop_price": "95.00"}))).unwrap(),
            Replacement {
                quantity: d("10"),
                limit_price: Some(d("100")),
                stop_price: Some(d("95")),
                legs_claim: None,
            }
        );
        let trailing = order(OrderType::TrailingStopLoss);
        assert_eq!(
            apply(&trailing, &modify(json!({"quantity": "3"}))).unwrap(),
            Replacement {
                quantity: d("3"),
                limit_price: None,
                stop_price: Some(d("105")),
                legs_claim: None,
            },
            "a trailing stop keeps the stop it has moved to"
        );
    }

    #[test]
    fn only_an_open_order_changes() {
        let mut order = order(OrderType::Limit);
        order.status = OrderStatus::Filled;
        assert_eq!(
            refused(&order, json!({"quantity": "1"})),
            Rejection::new(ErrorCode::OrderNotOpen, "the order is FILLED and can no longer change")
        );
        order.status = OrderStatus::PartialFilled;
        order.filled_quantity = d("4");
        assert_eq!(
            apply(&order, &modify(json!({"quantity": "5"}))).unwrap().quantity,
            d("5")
        );
    }

    #[test]
    fn the_quantity_stays_above_what_has_filled() {
        let mut order = order(OrderType::Limit);
        order.status = OrderStatus::PartialFilled;
        order.filled_quantity = d("4");
        for quantity in ["4", "3", "10000000.5", "5.0000001"] {
            assert_eq!(
                refused(&order, json!({ "quantity": quantity })),
                Rejection::illegal_parameter(
                    "quantity must be more than the 4 already filled and at most 10000000, with at most 6 decimals"
                ),
                "{quantity}"
            );
        }
        assert_eq!(
            refused(&order, json!({"quantity": "ten"})),
            Rejection::illegal_parameter("quantity \"ten\" is not a decimal number")
        );
    }

    #[test]
    fn each_price_belongs_to_its_order_types() {
        for order_type in [OrderType::Market, OrderType::StopLoss, OrderType::TrailingStopLoss] {
            assert_eq!(
                refused(&order(order_type), json!({"limit_price": "1"})),
                Rejection::illegal_parameter("only LIMIT and STOP_LOSS_LIMIT orders have a limit_price"),
                "{order_type:?}"
            );
        }
        for order_type in [OrderType::Market, OrderType::Limit, OrderType::TrailingStopLoss] {
            assert_eq!(
                refused(&order(order_type), json!({"stop_price": "1"})),
                Rejection::illegal_parameter(
                    "only STOP_LOSS and STOP_LOSS_LIMIT orders take a new stop_price (a trailing stop moves its own)"
                ),
                "{order_type:?}"
            );
        }
        let mut triggered = order(OrderType::StopLoss);
        triggered.triggered_at = Some(SimTime(1));
        assert_eq!(
            refused(&triggered, json!({"stop_price": "80"})),
            Rejection::illegal_parameter(
                "the stop was reached already: the order trades, and its stop_price no longer matters"
            )
        );
        assert_eq!(
            apply(&triggered, &modify(json!({"quantity": "11"})))
                .unwrap()
                .stop_price,
            Some(d("90")),
            "a triggered stop still takes a new quantity"
        );
        assert_eq!(
            refused(&order(OrderType::Limit), json!({"limit_price": "0"})),
            Rejection::illegal_parameter(
                "limit_price must be more than 0 and at most 10000000, with at most 4 decimals"
            )
        );
        assert_eq!(
            refused(&order(OrderType::StopLoss), json!({"stop_price": "1.00001"})),
            Rejection::illegal_parameter(
                "stop_price must be more than 0 and at most 10000000, with at most 4 decimals"
            )
        );
        assert_eq!(
            apply(
                &order(OrderType::Market),
                &modify(json!({"limit_price": "", "stop_price": null}))
            )
            .unwrap(),
            Replacement {
                quantity: d("10"),
                limit_price: None,
                stop_price: None,
                legs_claim: None,
            },
            "an empty price is no price"
        );
    }

    #[test]
    fn the_remaining_part_is_priced_at_its_limit_its_stop_or_the_market() {
        let mut limit = order(OrderType::Limit);
        limit.filled_quantity = d("4");
        limit.status = OrderStatus::PartialFilled;
        let replacement = apply(&limit, &modify(json!({"quantity": "12", "limit_price": "99"}))).unwrap();
        let remaining = replacement.remaining(&limit, || unreachable!("a limit order is priced at its limit"));
        assert_eq!(
            (remaining.spec.quantity, remaining.estimate, remaining.spec.combo_type),
            (d("8"), d("99"), ComboType::Normal)
        );
        let stop = order(OrderType::StopLoss);
        let replacement = apply(&stop, &modify(json!({"stop_price": "91"}))).unwrap();
        assert_eq!(replacement.remaining(&stop, || d("1")).estimate, d("91"));
        let market = order(OrderType::Market);
        let replacement = apply(&market, &modify(json!({"quantity": "2"}))).unwrap();
        let remaining = replacement.remaining(&market, || d("123.45"));
        assert_eq!((remaining.spec.quantity, remaining.estimate), (d("2"), d("123.45")));
    }

    #[test]
    fn a_v1_replacement_repeats_the_orders_own_fields_or_is_refused() {
        let order = order(OrderType::Limit);
        let own = order.instrument_id.to_string();
        let same = Repeated {
            instrument_id: Some(&own),
            side: Some("buy"),
            order_type: Some("LIMIT"),
            time_in_force: Some("GTC"),
            extended_hours: Some(false),
        };
        assert_eq!(check_repeated(&order, &same), Ok(()));
        assert_eq!(check_repeated(&order, &Repeated::default()), Ok(()));
        for changed in [
            Repeated {
                side: Some("SELL"),
                ..same
            },
            Repeated {
                order_type: Some("MARKET"),
                ..same
            },
            Repeated {
                time_in_force: Some("DAY"),
                ..same
            },
            Repeated {
                instrument_id: Some("2"),
                ..same
            },
            Repeated {
                extended_hours: Some(true),
                ..same
            },
        ] {
            let refused = check_repeated(&order, &changed).unwrap_err();
            assert_eq!(refused.code, ErrorCode::IllegalParameter);
            assert!(
                refused.message.contains("only qty, limit_price and stop_price"),
                "{refused}"
            );
        }
    }

    /// A butterfly of 2 units (legs of 1, 2 and 1 contracts a unit) at a net limit of 1.50.
    fn butterfly() -> Order {
        use crate::trading::multi_leg::OrderLeg;
        let leg = |side, ratio| OrderLeg {
            instrument_id: 1,
            symbol: "AAPL".into(),
            side,
            ratio,
            filled_price: None,
        };
        Order {
            quantity: d("2"),
            limit_price: Some(d("1.50")),
            multi_leg: Some(MultiLeg {
                strategy: crate::options::strategy::Strategy::Butterfly,
                legs: vec![leg(Side::Buy, 1), leg(Side::Sell, 2), leg(Side::Buy, 1)],
                claim: LegsClaim::default(),
            }),
            ..order(OrderType::Limit)
        }
    }

    #[test]
    fn a_multi_leg_order_takes_new_units_and_a_net_limit_in_cents() {
        let fly = butterfly();
        let id = |n: usize| format!("{}-{n}", fly.order_id);
        let new = apply(&fly, &modify(json!({"quantity": "3", "limit_price": "1.20"}))).unwrap();
        assert_eq!((new.quantity, new.limit_price), (d("3"), Some(d("1.20"))));
        // Through its legs: 8 contracts of the 2-a-unit leg and 4 of a 1-a-unit leg are 4 units.
        let legs = json!({"legs": [{"id": id(2), "quantity": "8"}, {"id": id(3), "quantity": "4"}]});
        assert_eq!(apply(&fly, &modify(legs)).unwrap().quantity, d("4"));
        for (fields, says) in [
            (json!({"legs": [{"id": id(2), "quantity": "3"}]}), "keep their ratio"),
            (
                json!({"legs": [{"id": id(1), "quantity": "2"}, {"id": id(2), "quantity": "6"}]}),
                "keep their ratio",
            ),
            (
                json!({"legs": [{"id": id(4), "quantity": "2"}]}),
                "not one of the order's legs",
            ),
            (
                json!({"legs": [{"id": "other-1", "quantity": "2"}]}),
                "not one of the order's legs",
            ),
            (json!({"quantity": "2.5"}), "whole number of units"),
            (json!({"limit_price": "1.205"}), "steps of 0.01"),
        ] {
            let refused = refused(&fly, fields.clone());
            assert!(refused.message.contains(says), "{fields}: {}", refused.message);
        }
    }

    #[test]
    fn a_multi_leg_replacement_is_checked_at_its_new_net() {
        let fly = butterfly();
        let Some(multi) = &fly.multi_leg else { unreachable!() };
        let new = apply(&fly, &modify(json!({"quantity": "5", "limit_price": "1.10"}))).unwrap();
        let priced = new.remaining_legs(&fly, multi, &[d("12"), d("8"), d("5")]);
        assert_eq!((priced.spec.quantity, priced.estimate), (d("5"), d("1.10")));
        assert_eq!(
            priced.legs.iter().map(|l| (l.ratio, l.price)).collect::<Vec<_>>(),
            [(1, d("12")), (2, d("8")), (1, d("5"))]
        );
    }
}
