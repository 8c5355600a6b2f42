//! An order as received, parsed into what the engine supports; anything else is refused with
//! a code that names the field and what is supported.

use rust_decimal::Decimal;
use signet_model::ErrorCode;
use signet_model::orders::{ComboType, EntrustType, NewOrder, OrderType, Side, TimeInForce, TradingSession};
use signet_model::wire::WireEnum;

use crate::error::ApiError;

/// An order the engine can take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderSpec {
    pub client_order_id: String,
    pub symbol: String,
    pub side: Side,
    pub order_type: OrderType,
    pub time_in_force: TimeInForce,
    pub quantity: Decimal,
    pub limit_price: Option<Decimal>,
    pub session: TradingSession,
}

/// The largest quantity one order may carry.
const MAX_QUANTITY: u64 = 10_000_000;

pub fn parse(order: &NewOrder) -> Result<OrderSpec, ApiError> {
    let client_order_id = client_order_id(order.client_order_id.as_deref())?;
    refuse_features(order)?;
    check_value::<ComboType>(
        "combo_type",
        order.combo_type.as_deref(),
        &[ComboType::Normal],
        ErrorCode::UnsupportedComboType,
    )?;
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
        .ok_or_else(|| ApiError::illegal_parameter("symbol is required"))?
        .to_ascii_uppercase();
    let side = required::<Side>("side", order.side.as_deref())?;
    if side == Side::Short {
        return Err(unsupported(ErrorCode::UnsupportedSide, "side", "SHORT", "BUY, SELL"));
    }
    let order_type = required::<OrderType>("order_type", order.order_type.as_deref())?;
    if !matches!(order_type, OrderType::Market | OrderType::Limit) {
        return Err(unsupported(
            ErrorCode::UnsupportedOrderType,
            "order_type",
            order_type.as_str(),
            "MARKET, LIMIT",
        ));
    }
    let time_in_force = optional("time_in_force", order.time_in_force.as_deref(), TimeInForce::Day)?;
    if time_in_force == TimeInForce::Gtd {
        return Err(unsupported(
            ErrorCode::UnsupportedTimeInForce,
            "time_in_force",
            "GTD",
            "DAY, GTC, IOC",
        ));
    }
    let entrust = optional("entrust_type", order.entrust_type.as_deref(), EntrustType::Qty)?;
    if entrust != EntrustType::Qty {
        return Err(unsupported(
            ErrorCode::UnsupportedEntrustType,
            "entrust_type",
            entrust.as_str(),
            "QTY",
        ));
    }
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
        s @ (TradingSession::Core | TradingSession::All) => s,
        other => {
            return Err(unsupported(
                ErrorCode::UnsupportedTradingSession,
                "support_trading_session",
                other.as_str(),
                "CORE, ALL",
            ));
        }
    };
    if order_type == OrderType::Market && session != TradingSession::Core {
        return Err(ApiError::illegal_parameter(
            "market orders trade in the core session only: use a LIMIT order outside it",
        ));
    }

    let quantity = decimal("quantity", order.quantity.as_ref())?
        .ok_or_else(|| ApiError::illegal_parameter("quantity is required"))?;
    if quantity <= Decimal::ZERO || quantity > Decimal::from(MAX_QUANTITY) || quantity.scale() > 6 {
        return Err(ApiError::illegal_parameter(format!(
            "quantity must be more than 0 and at most {MAX_QUANTITY}, with at most 6 decimals"
        )));
    }
    let limit_price = decimal("limit_price", order.limit_price.as_ref())?;
    let limit_price = match (order_type, limit_price) {
        (OrderType::Limit, None) => return Err(ApiError::illegal_parameter("a LIMIT order needs limit_price")),
        (OrderType::Limit, Some(p)) if p <= Decimal::ZERO || p.scale() > 4 => {
            return Err(ApiError::illegal_parameter(
                "limit_price must be more than 0, with at most 4 decimals",
            ));
        }
        (OrderType::Limit, Some(p)) => Some(p.normalize()),
        (_, _) => None,
    };
    Ok(OrderSpec {
        client_order_id,
        symbol,
        side,
        order_type,
        time_in_force,
        quantity: quantity.normalize(),
        limit_price,
        session,
    })
}

/// 1 to 32 characters of `A-Z a-z 0-9 _ -`.
pub fn client_order_id(value: Option<&str>) -> Result<String, ApiError> {
    let id = non_empty(value).ok_or_else(|| ApiError::illegal_parameter("client_order_id is required"))?;
    if id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return Err(ApiError::illegal_parameter(
            "client_order_id must be 1 to 32 characters of A-Z a-z 0-9 _ -",
        ));
    }
    Ok(id.to_owned())
}

/// Features of other asset classes and order kinds, refused by name.
fn refuse_features(order: &NewOrder) -> Result<(), ApiError> {
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
            return Err(ApiError::new(
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

fn unsupported(code: ErrorCode, field: &str, value: &str, supported: &str) -> ApiError {
    let shown: String = value.chars().take(40).collect();
    ApiError::new(
        code,
        format!("{field} {shown:?} is not supported: supported are {supported}"),
    )
}

fn parse_wire<T: WireEnum>(field: &str, value: &str) -> Result<T, ApiError> {
    T::parse(value).ok_or_else(|| {
        let shown: String = value.chars().take(40).collect();
        ApiError::illegal_parameter(format!("{field} {shown:?} is not one of {}", T::VALUES.join(", ")))
    })
}

fn required<T: WireEnum>(field: &str, value: Option<&str>) -> Result<T, ApiError> {
    let value = non_empty(value).ok_or_else(|| ApiError::illegal_parameter(format!("{field} is required")))?;
    parse_wire(field, value)
}

fn optional<T: WireEnum>(field: &str, value: Option<&str>, default: T) -> Result<T, ApiError> {
    non_empty(value).map_or(Ok(default), |v| parse_wire(field, v))
}

fn check_value<T: WireEnum + PartialEq>(
    field: &str,
    value: Option<&str>,
    supported: &[T],
    code: ErrorCode,
) -> Result<(), ApiError> {
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
pub fn decimal(field: &str, value: Option<&serde_json::Value>) -> Result<Option<Decimal>, ApiError> {
    let text = match value {
        None | Some(serde_json::Value::Null) => return Ok(None),
        Some(serde_json::Value::String(s)) if s.trim().is_empty() => return Ok(None),
        Some(serde_json::Value::String(s)) => s.trim().to_owned(),
        Some(serde_json::Value::Number(n)) => n.to_string(),
        Some(_) => {
            return Err(ApiError::illegal_parameter(format!(
                "{field} must be a decimal string such as \"10.5\""
            )));
        }
    };
    if text.len() > 32 {
        return Err(ApiError::illegal_parameter(format!("{field} has too many digits")));
    }
    text.parse::<Decimal>()
        .map(Some)
        .map_err(|_| ApiError::illegal_parameter(format!("{field} {text:?} is not a decimal number")))
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
    }

    #[test]
    fn unsupported_values_have_their_own_codes() {
        assert_eq!(code(json!({"market": "HK"})), ErrorCode::UnsupportedMarket);
        assert_eq!(
            code(json!({"instrument_type": "OPTION"})),
            ErrorCode::UnsupportedInstrumentType
        );
        assert_eq!(
            code(json!({"order_type": "STOP_LOSS"})),
            ErrorCode::UnsupportedOrderType
        );
        assert_eq!(code(json!({"time_in_force": "GTD"})), ErrorCode::UnsupportedTimeInForce);
        assert_eq!(code(json!({"combo_type": "OTO"})), ErrorCode::UnsupportedComboType);
        assert_eq!(
            code(json!({"entrust_type": "AMOUNT"})),
            ErrorCode::UnsupportedEntrustType
        );
        assert_eq!(code(json!({"side": "SHORT"})), ErrorCode::UnsupportedSide);
        assert_eq!(
            code(json!({"support_trading_session": "NIGHT"})),
            ErrorCode::UnsupportedTradingSession
        );
        assert_eq!(
            code(json!({"legs": [{"symbol": "X"}]})),
            ErrorCode::UnsupportedOrderFeature
        );
        assert_eq!(code(json!({"algo_type": "TWAP"})), ErrorCode::UnsupportedOrderFeature);
        let message = parse(&order(json!({"order_type": "STOP_LOSS"}))).unwrap_err().message;
        assert!(message.contains("MARKET, LIMIT"), "{message}");
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
            json!({"side": "HOLD"}),
            json!({"symbol": ""}),
            json!({"order_type": "MARKET", "support_trading_session": "ALL"}),
            json!({"quantity": {"x": 1}}),
        ] {
            assert_eq!(code(fields.clone()), ErrorCode::IllegalParameter, "{fields}");
        }
    }
}
