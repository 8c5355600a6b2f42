//! An order as received, parsed into what the engine supports; anything else is refused with
//! a code that names the field and what is supported.

use rust_decimal::Decimal;
use signet_model::ErrorCode;
use signet_model::ids::ClientOrderId;
use signet_model::orders::{
    ComboType, EntrustType, NewLeg, NewOrder, OrderType, PositionIntent, Side, TimeInForce, TradingSession,
    TrailingType,
};
use signet_model::wire::WireEnum;

pub use super::bounds::{MAX_PRICE, MAX_QUANTITY};
use super::combo::COMBO_TYPES;
use super::order::{Trailing, has_stop};
use crate::Rejection;
use crate::marketdata::units::parse_day;
use crate::options::strategy::{Asset, Leg, Strategy, check};
use crate::options::{Contract, Right};

/// An order the engine can take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderSpec {
    pub client_order_id: ClientOrderId,
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
    /// The option contract of an `OPTION` order ([`option_contract`]): `symbol` is then its OCC
    /// symbol and `quantity` counts contracts.
    pub contract: Option<Contract>,
    /// The legs of a multi-leg option order ([`MultiLegSpec`]): `symbol` is then the underlying's,
    /// `quantity` counts units of the whole, and the limit is the net price of one unit per share.
    pub multi_leg: Option<MultiLegSpec>,
    /// Whether an option order opens or closes a position: as the order says, or found from the
    /// account's position when it is checked ([`super::buying_power::intent_for`]).
    pub intent: Option<PositionIntent>,
}

/// A multi-leg option order's strategy and legs, all of one underlying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultiLegSpec {
    pub strategy: Strategy,
    /// The underlying's symbol.
    pub underlying: String,
    pub legs: Vec<SpecLeg>,
}

/// One leg of a multi-leg order: its contract (none: the underlying's shares), which way, and
/// its contracts (shares) in one unit of the order (a butterfly's 1, 2, 1; a covered stock's 100
/// shares and 1 call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecLeg {
    pub contract: Option<Contract>,
    pub side: Side,
    pub ratio: u64,
}

impl SpecLeg {
    /// The symbol it trades: its contract's OCC symbol, or the underlying's.
    pub fn symbol(&self, underlying: &str) -> String {
        self.contract
            .as_ref()
            .map_or_else(|| underlying.to_owned(), Contract::occ_symbol)
    }
}

/// The order types the engine fills.
const ORDER_TYPES: [OrderType; 5] = [
    OrderType::Market,
    OrderType::Limit,
    OrderType::StopLoss,
    OrderType::StopLossLimit,
    OrderType::TrailingStopLoss,
];

/// The largest cash amount one AMOUNT order may carry.
const MAX_CASH_AMOUNT: u64 = 100_000_000;

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
    let (contract, mut multi_leg) = option_legs(order)?;
    let option = contract.is_some() || multi_leg.is_some();
    check_value::<ComboType>(
        "combo_type",
        order.combo_type.as_deref(),
        &COMBO_TYPES,
        ErrorCode::UnsupportedComboType,
    )?;
    let combo_type = optional("combo_type", order.combo_type.as_deref(), ComboType::Normal)?;
    if option && combo_type != ComboType::Normal {
        return Err(unsupported(
            ErrorCode::UnsupportedComboType,
            "combo_type",
            combo_type.as_str(),
            "NORMAL for option orders",
        ));
    }
    if let Some(market) = non_empty(order.market.as_deref())
        && market != "US"
    {
        return Err(unsupported(ErrorCode::UnsupportedMarket, "market", market, "US"));
    }
    if let Some(kind) = non_empty(order.instrument_type.as_deref())
        && kind != "EQUITY"
        && !(kind == "OPTION" && option)
    {
        return Err(unsupported(
            ErrorCode::UnsupportedInstrumentType,
            "instrument_type",
            kind,
            "EQUITY, and OPTION with its legs",
        ));
    }
    let symbol = match (&contract, &multi_leg) {
        (Some(c), _) => c.occ_symbol(),
        (None, Some(m)) => m.underlying.clone(),
        (None, None) => non_empty(order.symbol.as_deref())
            .ok_or_else(|| Rejection::illegal_parameter("symbol is required"))?
            .to_ascii_uppercase(),
    };
    let side = match required::<Side>("side", order.side.as_deref())? {
        // An option is written with SELL; SHORT says the same.
        Side::Short if option => Side::Sell,
        side => side,
    };
    let order_type = required::<OrderType>("order_type", order.order_type.as_deref())?;
    let supported: &[OrderType] = if multi_leg.is_some() {
        &MULTI_LEG_ORDER_TYPES
    } else if contract.is_some() {
        &OPTION_ORDER_TYPES
    } else {
        &ORDER_TYPES
    };
    if !supported.contains(&order_type) {
        let names: Vec<&str> = supported.iter().map(|t| t.as_str()).collect();
        return Err(unsupported(
            ErrorCode::UnsupportedOrderType,
            "order_type",
            order_type.as_str(),
            &names.join(", "),
        ));
    }
    let time_in_force = optional("time_in_force", order.time_in_force.as_deref(), TimeInForce::Day)?;
    if option && !matches!(time_in_force, TimeInForce::Day | TimeInForce::Gtc) {
        return Err(unsupported(
            ErrorCode::UnsupportedTimeInForce,
            "time_in_force",
            time_in_force.as_str(),
            "DAY, GTC for options",
        ));
    }
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
        EntrustType::Amount if option => {
            return Err(unsupported(
                ErrorCode::UnsupportedEntrustType,
                "entrust_type",
                "AMOUNT",
                "QTY for options (a number of contracts)",
            ));
        }
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
    if option && session != TradingSession::Core {
        return Err(Rejection::illegal_parameter(
            "options trade in the core session only: support_trading_session must be CORE",
        ));
    }
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
    let intent = match (&contract, multi_leg.as_mut()) {
        (_, Some(m)) => {
            to_ratios(m, quantity)?;
            // Each leg opens or closes as the account's positions say.
            None
        }
        (Some(_), None) => {
            check_legs(order, side, quantity)?;
            let intent = optional_some::<PositionIntent>("position_intent", order.position_intent.as_deref())?;
            let buys = matches!(intent, Some(PositionIntent::BuyToOpen | PositionIntent::BuyToClose));
            if intent.is_some() && buys != (side == Side::Buy) {
                return Err(Rejection::illegal_parameter(
                    "position_intent and side disagree: BUY_TO_* buys, SELL_TO_* sells",
                ));
            }
            intent
        }
        (None, None) => None,
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
        client_order_id: client_order_id.into(),
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
        contract,
        multi_leg,
        intent,
    })
}

/// An optional wire value: `None` when absent or empty.
fn optional_some<T: WireEnum>(field: &str, value: Option<&str>) -> Result<Option<T>, Rejection> {
    non_empty(value).map(|v| parse_wire(field, v)).transpose()
}

/// The order types multi-leg orders take: at the market, or at a net limit.
const MULTI_LEG_ORDER_TYPES: [OrderType; 2] = [OrderType::Market, OrderType::Limit];

/// The order types options take (no trailing stops).
const OPTION_ORDER_TYPES: [OrderType; 4] = [
    OrderType::Market,
    OrderType::Limit,
    OrderType::StopLoss,
    OrderType::StopLossLimit,
];

/// The most contracts one option order may carry.
pub const MAX_CONTRACTS: u64 = 10_000;

/// The option legs of an order: none for an equity order; one contract for `option_strategy`
/// `SINGLE` (the default); for the multi-leg strategies, their legs (each `ratio` still the
/// leg's contracts, until [`to_ratios`]). An option order is `instrument_type` `OPTION` or has a
/// leg that is one. A leg of `instrument_type` `EQUITY` is the underlying's shares (its
/// `quantity` counts shares), for `COVERED_STOCK` and `COLLAR_WITH_STOCK`.
fn option_legs(order: &NewOrder) -> Result<(Option<Contract>, Option<MultiLegSpec>), Rejection> {
    let legs = order.legs.as_deref().unwrap_or_default();
    let option_leg = |l: &NewLeg| non_empty(l.instrument_type.as_deref()) == Some("OPTION");
    let is_option = non_empty(order.instrument_type.as_deref()) == Some("OPTION") || legs.iter().any(option_leg);
    if !is_option {
        if !legs.is_empty() || non_empty(order.option_strategy.as_deref()).is_some() {
            return Err(Rejection::new(
                ErrorCode::UnsupportedOrderFeature,
                "legs and option_strategy are for option orders: give instrument_type OPTION and legs of instrument_type OPTION",
            ));
        }
        return Ok((None, None));
    }
    let name = non_empty(order.option_strategy.as_deref()).unwrap_or("SINGLE");
    let strategy = Strategy::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.as_str()).collect();
        unsupported(
            ErrorCode::UnsupportedOrderFeature,
            "option_strategy",
            name,
            &names.join(", "),
        )
    })?;
    if strategy == Strategy::Single {
        let [leg] = legs else {
            return Err(Rejection::illegal_parameter(format!(
                "a SINGLE option order has one leg, not {}",
                legs.len()
            )));
        };
        return Ok((Some(leg_contract(order, 0, leg)?), None));
    }
    if !(2..=MAX_LEGS).contains(&legs.len()) {
        return Err(Rejection::illegal_parameter(format!(
            "a {} order has 2 to {MAX_LEGS} legs, not {}",
            strategy.as_str(),
            legs.len()
        )));
    }
    let mut parsed: Vec<SpecLeg> = Vec::with_capacity(legs.len());
    let mut underlying: Option<String> = None;
    for (i, leg) in legs.iter().enumerate() {
        let contract = if non_empty(leg.instrument_type.as_deref()) == Some("EQUITY") {
            None
        } else {
            Some(leg_contract(order, i, leg)?)
        };
        let of = match &contract {
            Some(c) => c.underlying.clone(),
            None => leg_underlying(order, i, leg)?,
        };
        if parsed.iter().any(|p| p.contract == contract) {
            return Err(Rejection::illegal_parameter(format!(
                "legs[{i}] names the {} of an earlier leg: one leg a contract, one of shares",
                if contract.is_some() { "contract" } else { "shares" }
            )));
        }
        if let Some(first) = &underlying
            && *first != of
        {
            return Err(Rejection::illegal_parameter(format!(
                "legs[{i}] is of {of}, legs[0] of {first}: every leg is of one underlying"
            )));
        }
        underlying = Some(of);
        let side = match required::<Side>(&format!("legs[{i}].side"), leg.side.as_deref())? {
            Side::Short => Side::Sell,
            s => s,
        };
        // Shares come 100 a contract.
        let most = if contract.is_some() {
            MAX_CONTRACTS
        } else {
            MAX_CONTRACTS * u64::from(crate::options::MULTIPLIER)
        };
        let contracts = decimal(&format!("legs[{i}].quantity"), leg.quantity.as_ref())?
            .filter(|q| *q > Decimal::ZERO && q.fract().is_zero() && *q <= Decimal::from(most))
            .and_then(|q| u64::try_from(q).ok())
            .ok_or_else(|| {
                Rejection::illegal_parameter(format!(
                    "legs[{i}].quantity is required: the leg's contracts (shares of an EQUITY leg), a whole number of at most {most}"
                ))
            })?;
        parsed.push(SpecLeg {
            contract,
            side,
            ratio: contracts,
        });
    }
    Ok((
        None,
        Some(MultiLegSpec {
            strategy,
            underlying: underlying.unwrap_or_default(),
            legs: parsed,
        }),
    ))
}

/// The most legs a multi-leg order has (a condor's four).
pub const MAX_LEGS: usize = 4;

/// The underlying leg `i` of `order` is of (its symbol, else the order's), in the US market.
fn leg_underlying(order: &NewOrder, i: usize, leg: &NewLeg) -> Result<String, Rejection> {
    if let Some(market) = non_empty(leg.market.as_deref())
        && market != "US"
    {
        return Err(unsupported(
            ErrorCode::UnsupportedMarket,
            &format!("legs[{i}].market"),
            market,
            "US",
        ));
    }
    let underlying = non_empty(leg.symbol.as_deref())
        .or(non_empty(order.symbol.as_deref()))
        .ok_or_else(|| Rejection::illegal_parameter(format!("legs[{i}].symbol (the underlying) is required")))?
        .to_ascii_uppercase();
    if let Some(symbol) = non_empty(order.symbol.as_deref())
        && !symbol.eq_ignore_ascii_case(&underlying)
    {
        return Err(Rejection::illegal_parameter(format!(
            "symbol {symbol:?} is not the leg's underlying {underlying:?}"
        )));
    }
    Ok(underlying)
}

/// The contract leg `i` of `order` names, of the underlying the order names if it names one.
fn leg_contract(order: &NewOrder, i: usize, leg: &NewLeg) -> Result<Contract, Rejection> {
    if non_empty(leg.instrument_type.as_deref()) != Some("OPTION") {
        return Err(Rejection::illegal_parameter(format!(
            "legs[{i}] of an option order needs instrument_type OPTION (or EQUITY: the underlying's shares)"
        )));
    }
    let underlying = leg_underlying(order, i, leg)?;
    let right = non_empty(leg.option_type.as_deref())
        .and_then(|t| Right::parse(t).filter(|_| t.len() > 1))
        .ok_or_else(|| Rejection::illegal_parameter(format!("legs[{i}].option_type must be CALL or PUT")))?;
    let expiry = non_empty(leg.option_expire_date.as_deref())
        .and_then(parse_day)
        .ok_or_else(|| Rejection::illegal_parameter(format!("legs[{i}].option_expire_date is required, yyyy-MM-dd")))?;
    let strike = decimal(&format!("legs[{i}].strike_price"), leg.strike_price.as_ref())?
        .filter(|s| *s > Decimal::ZERO && *s <= Decimal::from(MAX_PRICE) && s.scale() <= 3)
        .ok_or_else(|| {
            Rejection::illegal_parameter(format!(
                "legs[{i}].strike_price is required: more than 0, with at most 3 decimals"
            ))
        })?;
    Ok(Contract {
        underlying,
        expiry,
        right,
        strike: strike.normalize(),
    })
}

/// Turns each leg's contracts into its ratio in one unit of the order (`quantity` units), and
/// checks that the legs form the strategy named ([`crate::options::strategy::check`]).
fn to_ratios(m: &mut MultiLegSpec, quantity: Decimal) -> Result<(), Rejection> {
    let units = u64::try_from(quantity)
        .ok()
        .filter(|u| Decimal::from(*u) == quantity && *u <= MAX_CONTRACTS)
        .ok_or_else(|| {
            Rejection::illegal_parameter(format!(
                "a multi-leg order's quantity is a whole number of units of the strategy, at most {MAX_CONTRACTS}"
            ))
        })?;
    for (i, leg) in m.legs.iter_mut().enumerate() {
        if leg.ratio % units != 0 {
            return Err(Rejection::illegal_parameter(format!(
                "legs[{i}].quantity {} is the leg's contracts: a multiple of the order's quantity {units}",
                leg.ratio
            )));
        }
        leg.ratio /= units;
    }
    let legs: Vec<Leg> = m
        .legs
        .iter()
        .map(|l| Leg {
            side: l.side,
            quantity: l.ratio,
            asset: match &l.contract {
                Some(c) => Asset::Option {
                    expiry: c.expiry,
                    right: c.right,
                    strike: c.strike,
                },
                None => Asset::Shares,
            },
        })
        .collect();
    check(m.strategy, &legs).map_err(|e| Rejection::new(ErrorCode::OptionStrategyMismatch, e.to_string()))
}

/// An option order's leg agrees with the order: the same side and quantity (when it gives
/// them), a whole number of contracts.
fn check_legs(order: &NewOrder, side: Side, quantity: Decimal) -> Result<(), Rejection> {
    let leg = &order.legs.as_deref().unwrap_or_default()[0];
    if quantity.fract() != Decimal::ZERO || quantity > Decimal::from(MAX_CONTRACTS) {
        return Err(Rejection::illegal_parameter(format!(
            "an option order's quantity is a whole number of contracts, at most {MAX_CONTRACTS}"
        )));
    }
    if let Some(leg_side) = non_empty(leg.side.as_deref()) {
        let leg_side = match parse_wire::<Side>("legs[0].side", leg_side)? {
            Side::Short => Side::Sell,
            s => s,
        };
        if leg_side != side {
            return Err(Rejection::illegal_parameter(
                "legs[0].side differs from the order's side",
            ));
        }
    }
    if let Some(leg_quantity) = decimal("legs[0].quantity", leg.quantity.as_ref())?
        && leg_quantity != quantity
    {
        return Err(Rejection::illegal_parameter(
            "legs[0].quantity differs from the order's quantity",
        ));
    }
    Ok(())
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
    // Legs and strategies reach `other` only where they have no field (the v1 order).
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
                format!("{what} ({key}) are not offered: US equity and single-leg option orders only"),
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
            code(json!({"instrument_type": "CRYPTO"})),
            ErrorCode::UnsupportedInstrumentType
        );
        assert_eq!(
            code(json!({"instrument_type": "OPTION"})),
            ErrorCode::IllegalParameter,
            "an option order without its leg"
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

    fn option(fields: serde_json::Value) -> NewOrder {
        let mut base = json!({
            "client_order_id": "o1", "combo_type": "NORMAL", "order_type": "LIMIT", "limit_price": "11.25",
            "quantity": "2", "option_strategy": "SINGLE", "side": "BUY", "time_in_force": "DAY",
            "entrust_type": "QTY", "instrument_type": "OPTION", "market": "US", "symbol": "AAPL",
            "legs": [{"side": "BUY", "quantity": "2", "symbol": "AAPL", "strike_price": "430.00",
                      "option_expire_date": "2013-03-15", "instrument_type": "OPTION", "option_type": "CALL",
                      "market": "US"}]
        });
        for (k, v) in fields.as_object().unwrap() {
            base[k] = v.clone();
        }
        serde_json::from_value(base).unwrap()
    }

    #[test]
    fn a_single_leg_option_order_names_its_contract() {
        let spec = parse(&option(json!({}))).unwrap();
        assert_eq!(spec.symbol, "AAPL130315C00430000");
        let contract = spec.contract.unwrap();
        assert_eq!((contract.right, contract.strike), (Right::Call, Decimal::from(430)));
        assert_eq!(spec.quantity, Decimal::TWO);
        // SHORT says SELL; the strategy defaults to SINGLE; a leg may be all an order names.
        let short = parse(&option(
            json!({"side": "SHORT", "option_strategy": null, "symbol": null, "legs": [
                {"side": "SELL", "symbol": "aapl", "strike_price": "430", "option_expire_date": "2013-03-15",
                 "instrument_type": "OPTION", "option_type": "PUT"}
            ]}),
        ))
        .unwrap();
        assert_eq!((short.side, short.symbol.as_str()), (Side::Sell, "AAPL130315P00430000"));
        let code = |fields: serde_json::Value| parse(&option(fields)).unwrap_err().code;
        for (fields, expected) in [
            // A vertical has two legs, a covered stock a leg of shares beside its call.
            (json!({"option_strategy": "VERTICAL"}), ErrorCode::IllegalParameter),
            (json!({"option_strategy": "COVERED_STOCK"}), ErrorCode::IllegalParameter),
            (json!({"option_strategy": "RATIO"}), ErrorCode::UnsupportedOrderFeature),
            (
                json!({"order_type": "TRAILING_STOP_LOSS"}),
                ErrorCode::UnsupportedOrderType,
            ),
            (json!({"time_in_force": "GTD"}), ErrorCode::UnsupportedTimeInForce),
            (
                json!({"entrust_type": "AMOUNT", "quantity": null, "total_cash_amount": "100"}),
                ErrorCode::UnsupportedEntrustType,
            ),
            (json!({"support_trading_session": "ALL"}), ErrorCode::IllegalParameter),
            (json!({"quantity": "1.5"}), ErrorCode::IllegalParameter),
            (json!({"quantity": "20000"}), ErrorCode::IllegalParameter),
            (json!({"symbol": "MSFT"}), ErrorCode::IllegalParameter),
            (json!({"legs": []}), ErrorCode::IllegalParameter),
            (json!({"combo_type": "OTO"}), ErrorCode::UnsupportedComboType),
            (
                json!({"legs": [{"instrument_type": "EQUITY", "symbol": "AAPL"}]}),
                ErrorCode::IllegalParameter,
            ),
        ] {
            assert_eq!(code(fields.clone()), expected, "{fields}");
        }
        let leg = |field: &str, value: serde_json::Value| {
            let mut o = option(json!({}));
            let legs = o.legs.as_mut().unwrap();
            let mut l = serde_json::to_value(&legs[0]).unwrap();
            l[field] = value;
            legs[0] = serde_json::from_value(l).unwrap();
            parse(&o).unwrap_err().code
        };
        assert_eq!(leg("side", json!("SELL")), ErrorCode::IllegalParameter);
        assert_eq!(leg("quantity", json!("3")), ErrorCode::IllegalParameter);
        assert_eq!(leg("option_type", json!("C")), ErrorCode::IllegalParameter);
        assert_eq!(leg("strike_price", json!("-1")), ErrorCode::IllegalParameter);
        assert_eq!(
            leg("option_expire_date", json!("2013-02-30")),
            ErrorCode::IllegalParameter
        );
        assert_eq!(leg("market", json!("HK")), ErrorCode::UnsupportedMarket);
        // Legs on an equity order are refused by name.
        let equity = order(json!({"legs": [{"symbol": "X"}]}));
        assert_eq!(parse(&equity).unwrap_err().code, ErrorCode::UnsupportedOrderFeature);
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

    /// Each leg's side, ratio and symbol.
    fn legs_of(m: &MultiLegSpec) -> Vec<(Side, u64, String)> {
        m.legs.iter().map(|l| (l.side, l.ratio, l.symbol("AAPL"))).collect()
    }

    /// 2 units of `strategy` with a leg of `shares` AAPL shares (`side`) beside `legs`.
    fn with_shares(
        strategy: &str,
        side: &str,
        shares: u32,
        legs: &[(&str, u32, &str, u32)],
    ) -> Result<OrderSpec, Rejection> {
        let mut all = vec![json!({"side": side, "quantity": shares.to_string(), "symbol": "AAPL",
            "instrument_type": "EQUITY", "market": "US"})];
        all.extend(legs.iter().map(|&(side, quantity, right, strike)| {
            json!({"side": side, "quantity": quantity.to_string(), "symbol": "AAPL",
                "strike_price": strike.to_string(), "option_expire_date": "2013-03-15",
                "instrument_type": "OPTION", "option_type": right, "market": "US"})
        }));
        let order: NewOrder = serde_json::from_value(json!({
            "client_order_id": "m2", "combo_type": "NORMAL", "option_strategy": strategy,
            "instrument_type": "OPTION", "side": "BUY", "order_type": "LIMIT", "limit_price": "440.00",
            "quantity": "2", "time_in_force": "DAY", "legs": all,
        }))
        .unwrap();
        parse(&order)
    }

    #[test]
    fn a_covered_stock_or_a_collar_has_a_leg_of_100_shares_a_contract() {
        let spec = with_shares("COVERED_STOCK", "BUY", 200, &[("SELL", 2, "CALL", 450)]).unwrap();
        let m = spec.multi_leg.unwrap();
        assert_eq!(
            legs_of(&m),
            vec![
                (Side::Buy, 100, "AAPL".into()),
                (Side::Sell, 1, "AAPL130315C00450000".into())
            ]
        );
        let collar = with_shares(
            "COLLAR_WITH_STOCK",
            "BUY",
            200,
            &[("BUY", 2, "PUT", 430), ("SELL", 2, "CALL", 460)],
        );
        assert_eq!(collar.unwrap().multi_leg.unwrap().legs.len(), 3);
        let code = |r: Result<OrderSpec, Rejection>| r.unwrap_err().code;
        for (strategy, side, shares, legs) in [
            ("COVERED_STOCK", "BUY", 100, vec![("SELL", 2, "CALL", 450)]),
            ("COVERED_STOCK", "BUY", 200, vec![("BUY", 2, "CALL", 450)]),
            ("COVERED_STOCK", "BUY", 200, vec![("SELL", 2, "PUT", 450)]),
            (
                "COLLAR_WITH_STOCK",
                "BUY",
                200,
                vec![("BUY", 2, "PUT", 460), ("SELL", 2, "CALL", 430)],
            ),
            (
                "VERTICAL",
                "BUY",
                200,
                vec![("BUY", 2, "CALL", 430), ("SELL", 2, "CALL", 440)],
            ),
        ] {
            assert_eq!(
                code(with_shares(strategy, side, shares, &legs)),
                ErrorCode::OptionStrategyMismatch,
                "{strategy} {legs:?}"
            );
        }
        // 201 shares are not a whole number of units of 2.
        assert_eq!(
            code(with_shares("COVERED_STOCK", "BUY", 201, &[("SELL", 2, "CALL", 450)])),
            ErrorCode::IllegalParameter
        );
    }

    /// A multi-leg order of `legs` (side, contracts, right, strike), 2 units of `strategy`.
    fn multi(strategy: &str, legs: &[(&str, u32, &str, u32)]) -> Result<OrderSpec, Rejection> {
        let legs: Vec<serde_json::Value> = legs
            .iter()
            .map(|&(side, quantity, right, strike)| {
                json!({"side": side, "quantity": quantity.to_string(), "symbol": "AAPL",
                    "strike_price": strike.to_string(), "option_expire_date": "2013-03-15",
                    "instrument_type": "OPTION", "option_type": right, "market": "US"})
            })
            .collect();
        let order: NewOrder = serde_json::from_value(json!({
            "client_order_id": "m1", "combo_type": "NORMAL", "option_strategy": strategy,
            "instrument_type": "OPTION", "side": "BUY", "order_type": "LIMIT", "limit_price": "2.50",
            "quantity": "2", "time_in_force": "DAY", "legs": legs,
        }))
        .unwrap();
        parse(&order)
    }

    #[test]
    fn a_multi_leg_order_names_its_legs_by_their_ratios_and_must_form_its_strategy() {
        let spec = multi("VERTICAL", &[("BUY", 2, "CALL", 430), ("SELL", 2, "CALL", 440)]).unwrap();
        let m = spec.multi_leg.unwrap();
        assert_eq!(
            (spec.symbol.as_str(), spec.quantity, spec.contract),
            ("AAPL", Decimal::TWO, None)
        );
        assert_eq!(m.strategy, Strategy::Vertical);
        assert_eq!(
            legs_of(&m),
            vec![
                (Side::Buy, 1, "AAPL130315C00430000".into()),
                (Side::Sell, 1, "AAPL130315C00440000".into())
            ]
        );
        let butterfly = multi(
            "BUTTERFLY",
            &[
                ("BUY", 2, "CALL", 430),
                ("SELL", 4, "CALL", 440),
                ("BUY", 2, "CALL", 450),
            ],
        );
        assert_eq!(butterfly.unwrap().multi_leg.unwrap().legs[1].ratio, 2);
        let code = |r: Result<OrderSpec, Rejection>| r.unwrap_err().code;
        // Legs that do not form the strategy named.
        for (strategy, legs) in [
            ("VERTICAL", vec![("BUY", 2, "CALL", 430), ("BUY", 2, "CALL", 440)]),
            ("VERTICAL", vec![("BUY", 2, "CALL", 430), ("SELL", 2, "PUT", 440)]),
            ("STRADDLE", vec![("BUY", 2, "CALL", 430), ("BUY", 2, "PUT", 440)]),
            ("STRANGLE", vec![("BUY", 2, "CALL", 430), ("BUY", 2, "PUT", 440)]),
            (
                "BUTTERFLY",
                vec![
                    ("BUY", 2, "CALL", 430),
                    ("SELL", 2, "CALL", 440),
                    ("BUY", 2, "CALL", 450),
                ],
            ),
            (
                "CONDOR",
                vec![
                    ("BUY", 2, "CALL", 430),
                    ("SELL", 2, "CALL", 440),
                    ("SELL", 2, "CALL", 450),
                    ("BUY", 2, "CALL", 470),
                ],
            ),
            (
                "IRON_CONDOR",
                vec![
                    ("BUY", 2, "PUT", 430),
                    ("SELL", 2, "PUT", 440),
                    ("SELL", 2, "CALL", 440),
                    ("BUY", 2, "CALL", 450),
                ],
            ),
            (
                "IRON_BUTTERFLY",
                vec![
                    ("BUY", 2, "PUT", 430),
                    ("SELL", 2, "PUT", 440),
                    ("SELL", 2, "CALL", 445),
                    ("BUY", 2, "CALL", 450),
                ],
            ),
            ("CALENDAR", vec![("SELL", 2, "CALL", 430), ("BUY", 2, "CALL", 440)]),
            ("DIAGONAL", vec![("SELL", 2, "CALL", 430), ("BUY", 2, "CALL", 440)]),
        ] {
            assert_eq!(
                code(multi(strategy, &legs)),
                ErrorCode::OptionStrategyMismatch,
                "{strategy} {legs:?}"
            );
        }
        // Shapes every strategy refuses alike.
        assert_eq!(
            code(multi("VERTICAL", &[("BUY", 3, "CALL", 430), ("SELL", 2, "CALL", 440)])),
            ErrorCode::IllegalParameter,
            "3 is no multiple of 2 units"
        );
        assert_eq!(
            code(multi("VERTICAL", &[("BUY", 2, "CALL", 430), ("SELL", 2, "CALL", 430)])),
            ErrorCode::IllegalParameter,
            "one contract twice"
        );
        assert_eq!(
            code(multi("VERTICAL", &[("BUY", 2, "CALL", 430)])),
            ErrorCode::IllegalParameter
        );
        let five = [
            ("BUY", 2, "CALL", 430),
            ("SELL", 2, "CALL", 440),
            ("BUY", 2, "CALL", 450),
            ("SELL", 2, "CALL", 460),
            ("BUY", 2, "CALL", 470),
        ];
        assert_eq!(code(multi("CONDOR", &five)), ErrorCode::IllegalParameter);
    }
}
