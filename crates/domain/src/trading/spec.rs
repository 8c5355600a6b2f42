//! An order as received, parsed into what the engine supports; anything else is refused with
//! a code that names the field and what is supported.

use rust_decimal::Decimal;
use signet_model::ErrorCode;
use signet_model::orders::{
    ComboType, EntrustType, NewOrder, OrderType, Side, TimeInForce, TradingSession, TrailingType,
};
use signet_model::wire::WireEnum;

use super::combo::COMBO_TYPES;
use super::order::{Trailing, has_stop};
use crate::Rejection;
use crate::marketdata::units::parse_day;

/// An order the engine can take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderSpec {
    pub client_order_id: String,
    /// Its part in a combination ([`super::combo`]).
    pub combo_type: ComboType,
    pub symbol: String,
    pub side: Side,
    pub order_type: OrderType,
    pub time_in_force: TimeInForce,
    /// Zero for an AMOUNT order until [`Self::quantity_for`] sets it.
    pub quantity: Decimal,
    /// The cash an AMOUNT order spends (or raises).
    pub cash_amount: Option<Decimal>,
    pub limit_price: Option<Decimal>,
    pub stop_price: Option<Decimal>,
    pub trailing: Option<Trailing>,
    /// The last day of a GTD order (days since 1970-01-01, New York).
    pub expire_day: Option<i32>,
    pub session: TradingSession,
}

/// The order types the engine fills.
const ORDER_TYPES: [OrderType; 5] = [
    OrderType::Market,
    OrderType::Limit,
    OrderType::StopLoss,
    OrderType::StopLossLimit,
    OrderType::TrailingStopLoss,
];

/// The largest quantity one order may carry.
pub const MAX_QUANTITY: u64 = 10_000_000;
/// The largest cash amount one AMOUNT order may carry.
const MAX_CASH_AMOUNT: u64 = 100_000_000;
/// The largest price (limit, stop, trailing amount): with [`MAX_QUANTITY`], what an order is
/// worth stays far inside what the arithmetic holds (found by the `order_body` fuzz target).
pub const MAX_PRICE: u64 = 10_000_000;

impl OrderSpec {
    /// An AMOUNT order's quantity at `price`: the shares the amount pays for, to the millionth
    /// (fractional), rounded down.
    pub fn quantity_for(&mut self, price: Decimal) -> Result<(), Rejection> {
        let Some(amount) = self.cash_amount else { return Ok(()) };
        if price <= Decimal::ZERO {
            return Err(Rejection::illegal_parameter(
                "there is no price yet to turn total_cash_amount into shares: give a quantity",
            ));
        }
        let shares = (amount / price).round_dp_with_strategy(6, rust_decimal::RoundingStrategy::ToZero);
        self.quantity = checked_quantity(shares)
            .map_err(|_| {
                Rejection::illegal_parameter(format!("total_cash_amount {amount} buys {shares} shares at {price}"))
            })?
            .normalize();
        Ok(())
    }
}

/// More than 0, at most [`MAX_QUANTITY`], at most 6 decimals.
fn checked_quantity(quantity: Decimal) -> Result<Decimal, Rejection> {
    if quantity <= Decimal::ZERO || quantity > Decimal::from(MAX_QUANTITY) || quantity.scale() > 6 {
        return Err(Rejection::illegal_parameter(format!(
            "quantity must be more than 0 and at most {MAX_QUANTITY}, with at most 6 decimals"
        )));
    }
    Ok(quantity)
}

pub fn parse(order: &NewOrder) -> Result<OrderSpec, Rejection> {
    let client_order_id = client_id("client_order_id", order.client_order_id.as_deref())?;
    refuse_features(order)?;
    check_value::<ComboType>(
        "combo_type",
        order.combo_type.as_deref(),
        &COMBO_TYPES,
        ErrorCode::UnsupportedComboType,
    )?;
    let combo_type = optional("combo_type", order.combo_type.as_deref(), ComboType::Normal)?;
    if let Some(market) = non_empty(order.market.as_deref())
        && market != "US"
    {
        return Err(unsupported(ErrorCode::UnsupportedMarket, "market", market, "US"));
    }
    if let Some(kind) = non_empty(order.instrument_type.as_deref())
        && kind != "EQUITY"
    {
        return Err(unsupported(
            ErrorCode::UnsupportedInstrumentType,
            "instrument_type",
            kind,
            "EQUITY",
        ));
    }
    let symbol = non_empty(order.symbol.as_deref())
        .ok_or_else(|| Rejection::illegal_parameter("symbol is required"))?
        .to_ascii_uppercase();
    let side = required::<Side>("side", order.side.as_deref())?;
    let order_type = required::<OrderType>("order_type", order.order_type.as_deref())?;
    if !ORDER_TYPES.contains(&order_type) {
        let names: Vec<&str> = ORDER_TYPES.iter().map(|t| t.as_str()).collect();
        return Err(unsupported(
            ErrorCode::UnsupportedOrderType,
            "order_type",
            order_type.as_str(),
            &names.join(", "),
        ));
    }
    let time_in_force = optional("time_in_force", order.time_in_force.as_deref(), TimeInForce::Day)?;
    if time_in_force == TimeInForce::Ioc && has_stop(order_type) {
        return Err(unsupported(
            ErrorCode::UnsupportedTimeInForce,
            "time_in_force",
            "IOC",
            "DAY, GTC, GTD for stop orders (IOC is for MARKET and LIMIT)",
        ));
    }
    let expire_day = match time_in_force {
        TimeInForce::Gtd => Some(
            non_empty(order.expire_date.as_deref())
                .and_then(parse_day)
                .ok_or_else(|| Rejection::illegal_parameter("a GTD order needs expire_date, yyyy-MM-dd"))?,
        ),
        _ => None,
    };
    let cash_amount = match optional("entrust_type", order.entrust_type.as_deref(), EntrustType::Qty)? {
        EntrustType::Qty => None,
        EntrustType::Amount if !matches!(order_type, OrderType::Market | OrderType::Limit) => {
            return Err(unsupported(
                ErrorCode::UnsupportedEntrustType,
                "entrust_type",
                "AMOUNT",
                "QTY, and AMOUNT for MARKET and LIMIT orders",
            ));
        }
        EntrustType::Amount => {
            let amount = decimal("total_cash_amount", order.total_cash_amount.as_ref())?
                .ok_or_else(|| Rejection::illegal_parameter("an AMOUNT order needs total_cash_amount"))?;
            if amount <= Decimal::ZERO || amount > Decimal::from(MAX_CASH_AMOUNT) || amount.scale() > 2 {
                return Err(Rejection::illegal_parameter(format!(
                    "total_cash_amount must be more than 0 and at most {MAX_CASH_AMOUNT}, with at most 2 decimals"
                )));
            }
            Some(amount.normalize())
        }
    };
    let default_session = if order.extended_hours == Some(true) {
        TradingSession::All
    } else {
        TradingSession::Core
    };
    let session = match optional(
        "support_trading_session",
        order.support_trading_session.as_deref(),
        default_session,
    )? {
        TradingSession::N => TradingSession::Core,
        s => s,
    };
    // What becomes a market order trades when market orders do.
    if matches!(
        order_type,
        OrderType::Market | OrderType::StopLoss | OrderType::TrailingStopLoss
    ) && session != TradingSession::Core
    {
        return Err(Rejection::illegal_parameter(
            "market, stop and trailing stop orders trade in the core session only: use a LIMIT or STOP_LOSS_LIMIT order outside it",
        ));
    }

    let quantity = match (cash_amount, decimal("quantity", order.quantity.as_ref())?) {
        (Some(_), Some(_)) => {
            return Err(Rejection::illegal_parameter(
                "an AMOUNT order gives total_cash_amount, not quantity",
            ));
        }
        // Set from the price when the order is placed.
        (Some(_), None) => Decimal::ZERO,
        (None, None) => return Err(Rejection::illegal_parameter("quantity is required")),
        (None, Some(quantity)) => checked_quantity(quantity)?,
    };
    let limit_price = match order_type {
        OrderType::Limit | OrderType::StopLossLimit => {
            Some(price("limit_price", order.limit_price.as_ref(), order_type)?)
        }
        _ => None,
    };
    let stop_price = match order_type {
        OrderType::StopLoss | OrderType::StopLossLimit => {
            Some(price("stop_price", order.stop_price.as_ref(), order_type)?)
        }
        _ => None,
    };
    let trailing = match order_type {
        OrderType::TrailingStopLoss => Some(trailing(order)?),
        _ => None,
    };
    Ok(OrderSpec {
        client_order_id,
        combo_type,
        symbol,
        side,
        order_type,
        time_in_force,
        quantity: quantity.normalize(),
        cash_amount,
        limit_price,
        stop_price,
        trailing,
        expire_day,
        session,
    })
}

/// A required price of `order_type`: more than 0, at most 4 decimals.
pub fn price(field: &str, value: Option<&serde_json::Value>, order_type: OrderType) -> Result<Decimal, Rejection> {
    match decimal(field, value)? {
        None => Err(Rejection::illegal_parameter(format!(
            "a {} order needs {field}",
            order_type.as_str()
        ))),
        Some(p) if p <= Decimal::ZERO || p > Decimal::from(MAX_PRICE) || p.scale() > 4 => {
            Err(Rejection::illegal_parameter(format!(
                "{field} must be more than 0 and at most {MAX_PRICE}, with at most 4 decimals"
            )))
        }
        Some(p) => Ok(p.normalize()),
    }
}

/// `trailing_type` and `trailing_stop_step` of a trailing stop.
fn trailing(order: &NewOrder) -> Result<Trailing, Rejection> {
    let kind = required::<TrailingType>("trailing_type", order.trailing_type.as_deref())?;
    let step = decimal("trailing_stop_step", order.trailing_stop_step.as_ref())?
        .ok_or_else(|| Rejection::illegal_parameter("a TRAILING_STOP_LOSS order needs trailing_stop_step"))?;
    let valid = match kind {
        TrailingType::Amount => step > Decimal::ZERO && step <= Decimal::from(MAX_PRICE) && step.scale() <= 4,
        TrailingType::Percentage => step > Decimal::ZERO && step < Decimal::ONE && step.scale() <= 6,
    };
    if !valid {
        return Err(Rejection::illegal_parameter(
            "trailing_stop_step must be more than 0: an amount of at most 10000000 with at most 4 decimals, or a ratio below 1 (0.05 is 5 %)",
        ));
    }
    Ok(Trailing {
        kind,
        step: step.normalize(),
    })
}

/// A client's id (`client_order_id`, `client_combo_order_id`): 1 to 32 characters of
/// `A-Z a-z 0-9 _ -`.
pub fn client_id(field: &str, value: Option<&str>) -> Result<String, Rejection> {
    let id = non_empty(value).ok_or_else(|| Rejection::illegal_parameter(format!("{field} is required")))?;
    if id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return Err(Rejection::illegal_parameter(format!(
            "{field} must be 1 to 32 characters of A-Z a-z 0-9 _ -"
        )));
    }
    Ok(id.to_owned())
}

/// Features of other asset classes and order kinds, refused by name.
fn refuse_features(order: &NewOrder) -> Result<(), Rejection> {
    let present = |key: &str| {
        order
            .other
            .get(key)
            .is_some_and(|v| !v.is_null() && v != &serde_json::json!([]))
    };
    let refusals = [
        ("legs", "option legs"),
        ("option_strategy", "option strategies"),
        ("algo_type", "algorithmic orders"),
        ("close_contracts", "closing contracts"),
        ("event_outcome", "event contracts"),
        ("leg_in_or_out", "option leg-in and leg-out"),
    ];
    for (key, what) in refusals {
        if present(key) {
            return Err(Rejection::new(
                ErrorCode::UnsupportedOrderFeature,
                format!("{what} ({key}) are not offered: US equity orders only"),
            ));
        }
    }
    Ok(())
}

fn non_empty(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

fn unsupported(code: ErrorCode, field: &str, value: &str, supported: &str) -> Rejection {
    let shown: String = value.chars().take(40).collect();
    Rejection::new(
        code,
        format!("{field} {shown:?} is not supported: supported are {supported}"),
    )
}

fn parse_wire<T: WireEnum>(field: &str, value: &str) -> Result<T, Rejection> {
    T::parse(value).ok_or_else(|| {
        let shown: String = value.chars().take(40).collect();
        Rejection::illegal_parameter(format!("{field} {shown:?} is not one of {}", T::VALUES.join(", ")))
    })
}

fn required<T: WireEnum>(field: &str, value: Option<&str>) -> Result<T, Rejection> {
    let value = non_empty(value).ok_or_else(|| Rejection::illegal_parameter(format!("{field} is required")))?;
    parse_wire(field, value)
}

fn optional<T: WireEnum>(field: &str, value: Option<&str>, default: T) -> Result<T, Rejection> {
    non_empty(value).map_or(Ok(default), |v| parse_wire(field, v))
}

fn check_value<T: WireEnum + PartialEq>(
    field: &str,
    value: Option<&str>,
    supported: &[T],
    code: ErrorCode,
) -> Result<(), Rejection> {
    if let Some(value) = non_empty(value) {
        let parsed: T = parse_wire(field, value)?;
        if !supported.contains(&parsed) {
            let names: Vec<&str> = supported.iter().map(|s| s.as_str()).collect();
            return Err(unsupported(code, field, value, &names.join(", ")));
        }
    }
    Ok(())
}

/// A decimal given as a string (as the clients send them) or a JSON number.
pub fn decimal(field: &str, value: Option<&serde_json::Value>) -> Result<Option<Decimal>, Rejection> {
    let text = match value {
        None | Some(serde_json::Value::Null) => return Ok(None),
        Some(serde_json::Value::String(s)) if s.trim().is_empty() => return Ok(None),
        Some(serde_json::Value::String(s)) => s.trim().to_owned(),
        Some(serde_json::Value::Number(n)) => n.to_string(),
        Some(_) => {
            return Err(Rejection::illegal_parameter(format!(
                "{field} must be a decimal string such as \"10.5\""
            )));
        }
    };
    if text.len() > 32 {
        return Err(Rejection::illegal_parameter(format!("{field} has too many digits")));
    }
    text.parse::<Decimal>()
        .map(Some)
        .map_err(|_| Rejection::illegal_parameter(format!("{field} {text:?} is not a decimal number")))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn order(fields: serde_json::Value) -> NewOrder {
        let mut base = json!({
            "client_order_id": "abc123", "combo_type": "NORMAL", "instrument_type": "EQUITY", "market": "US",
            "symbol": "aapl", "side": "BUY", "order_type": "LIMIT", "time_in_force": "DAY", "entrust_type": "QTY",
            "quantity": "10", "limit_price": "100.5", "support_trading_session": "CORE"
        });
        for (k, v) in fields.as_object().unwrap() {
            base[k] = v.clone();
        }
        serde_json::from_value(base).unwrap()
    }

    fn code(fields: serde_json::Value) -> ErrorCode {
        parse(&order(fields)).unwrap_err().code
    }

    #[test]
    fn a_plain_limit_order_parses() {
        let spec = parse(&order(json!({}))).unwrap();
        assert_eq!(spec.symbol, "AAPL");
        assert_eq!(
            (spec.quantity, spec.limit_price),
            (Decimal::from(10), Some(Decimal::new(1005, 1)))
        );
        assert_eq!(spec.session, TradingSession::Core);
        let numbers = parse(&order(json!({"quantity": 3, "limit_price": 12.25}))).unwrap();
        assert_eq!(numbers.limit_price, Some(Decimal::new(1225, 2)));
        let extended = parse(&order(json!({"support_trading_session": null, "extended_hours": true}))).unwrap();
        assert_eq!(extended.session, TradingSession::All);
        let night = parse(&order(json!({"support_trading_session": "NIGHT"}))).unwrap();
        assert_eq!(night.session, TradingSession::Night);
    }

    #[test]
    fn unsupported_values_have_their_own_codes() {
        assert_eq!(code(json!({"market": "HK"})), ErrorCode::UnsupportedMarket);
        assert_eq!(
            code(json!({"instrument_type": "OPTION"})),
            ErrorCode::UnsupportedInstrumentType
        );
        assert_eq!(
            code(json!({"order_type": "MARKET_ON_OPEN"})),
            ErrorCode::UnsupportedOrderType
        );
        assert_eq!(
            code(json!({"order_type": "STOP_LOSS", "stop_price": "90", "time_in_force": "IOC"})),
            ErrorCode::UnsupportedTimeInForce
        );
        assert_eq!(code(json!({"combo_type": "BROKEN"})), ErrorCode::UnsupportedComboType);
        assert_eq!(
            parse(&order(json!({"combo_type": "STOP_PROFIT"}))).unwrap().combo_type,
            ComboType::StopProfit
        );
        assert_eq!(
            code(
                json!({"entrust_type": "AMOUNT", "order_type": "STOP_LOSS", "stop_price": "9", "total_cash_amount": "100"})
            ),
            ErrorCode::UnsupportedEntrustType
        );
        assert_eq!(
            code(json!({"legs": [{"symbol": "X"}]})),
            ErrorCode::UnsupportedOrderFeature
        );
        assert_eq!(code(json!({"algo_type": "TWAP"})), ErrorCode::UnsupportedOrderFeature);
        let message = parse(&order(json!({"order_type": "TOUCH_MKT"}))).unwrap_err().message;
        assert!(
            message.contains("MARKET, LIMIT, STOP_LOSS, STOP_LOSS_LIMIT, TRAILING_STOP_LOSS"),
            "{message}"
        );
    }

    #[test]
    fn stop_orders_and_gtd_parse() {
        let stop = parse(&order(
            json!({"order_type": "STOP_LOSS_LIMIT", "stop_price": "99", "limit_price": "98.5"}),
        ))
        .unwrap();
        assert_eq!(
            (stop.stop_price, stop.limit_price),
            (Some(Decimal::from(99)), Some(Decimal::new(985, 1)))
        );
        let market_stop = parse(&order(json!({"order_type": "STOP_LOSS", "stop_price": "99"}))).unwrap();
        assert_eq!(market_stop.limit_price, None, "a STOP_LOSS has no limit");
        let trailing = parse(&order(json!({
            "order_type": "TRAILING_STOP_LOSS", "side": "SELL", "trailing_type": "PERCENTAGE", "trailing_stop_step": "0.05"
        })))
        .unwrap();
        let t = trailing.trailing.unwrap();
        assert_eq!(t.stop_for(Side::Sell, Decimal::from(200)), Decimal::from(190));
        assert_eq!(t.stop_for(Side::Buy, Decimal::from(200)), Decimal::from(210));
        let mut amount = parse(&order(
            json!({"entrust_type": "AMOUNT", "quantity": null, "total_cash_amount": "1000"}),
        ))
        .unwrap();
        amount.quantity_for(Decimal::new(40001, 2)).unwrap();
        assert_eq!(
            amount.quantity,
            Decimal::new(2_499_937, 6),
            "rounded down to the millionth"
        );
        let gtd = parse(&order(json!({"time_in_force": "GTD", "expire_date": "2013-03-01"}))).unwrap();
        assert_eq!(gtd.expire_day, parse_day("2013-03-01"));
    }

    #[test]
    fn bad_values_are_illegal_parameters() {
        for fields in [
            json!({"client_order_id": ""}),
            json!({"client_order_id": "x".repeat(33)}),
            json!({"client_order_id": "has space"}),
            json!({"quantity": "0"}),
            json!({"quantity": "-1"}),
            json!({"quantity": "abc"}),
            json!({"quantity": "1".repeat(400)}),
            json!({"quantity": "20000000"}),
            json!({"limit_price": null}),
            json!({"limit_price": "0"}),
            json!({"limit_price": "1.23456"}),
            json!({"limit_price": "79228162514264337593543950335"}),
            json!({"limit_price": "10000000.0001"}),
            json!({"side": "HOLD"}),
            json!({"symbol": ""}),
            json!({"order_type": "MARKET", "support_trading_session": "ALL"}),
            json!({"quantity": {"x": 1}}),
            json!({"order_type": "STOP_LOSS"}),
            json!({"order_type": "STOP_LOSS", "stop_price": "-1"}),
            json!({"order_type": "STOP_LOSS_LIMIT", "stop_price": "90", "limit_price": null}),
            json!({"order_type": "STOP_LOSS", "stop_price": "90", "support_trading_session": "ALL"}),
            json!({"order_type": "TRAILING_STOP_LOSS", "trailing_type": "PERCENTAGE"}),
            json!({"order_type": "TRAILING_STOP_LOSS", "trailing_type": "PERCENTAGE", "trailing_stop_step": "5"}),
            json!({"order_type": "TRAILING_STOP_LOSS", "trailing_type": "STEPS", "trailing_stop_step": "1"}),
            json!({"order_type": "TRAILING_STOP_LOSS", "trailing_type": "AMOUNT", "trailing_stop_step": "79228162514264337593543950335"}),
            json!({"time_in_force": "GTD"}),
            json!({"entrust_type": "AMOUNT", "quantity": null}),
            json!({"entrust_type": "AMOUNT", "quantity": "1", "total_cash_amount": "100"}),
            json!({"entrust_type": "AMOUNT", "quantity": null, "total_cash_amount": "1.001"}),
            json!({"time_in_force": "GTD", "expire_date": "2013-02-30"}),
        ] {
            assert_eq!(code(fields.clone()), ErrorCode::IllegalParameter, "{fields}");
        }
    }
}
