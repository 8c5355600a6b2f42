//! Orders (catalog section 3). Requests keep their fields as received, so that the server can
//! refuse what it does not support with a specific code; numbers travel as decimal strings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::wire_enum;

wire_enum!(Side { Buy = "BUY", Sell = "SELL", Short = "SHORT" });

wire_enum!(
    /// Every order type the official clients know; the server supports some of them.
    OrderType {
        Market = "MARKET",
        Limit = "LIMIT",
        StopLoss = "STOP_LOSS",
        StopLossLimit = "STOP_LOSS_LIMIT",
        TrailingStopLoss = "TRAILING_STOP_LOSS",
        TrailingStopLossLimit = "TRAILING_STOP_LOSS_LIMIT",
        MarketOnOpen = "MARKET_ON_OPEN",
        MarketOnClose = "MARKET_ON_CLOSE",
        LimitOnOpen = "LIMIT_ON_OPEN",
        EnhancedLimit = "ENHANCED_LIMIT",
        AtAuction = "AT_AUCTION",
        AtAuctionLimit = "AT_AUCTION_LIMIT",
        OddLotLimit = "ODD_LOT_LIMIT",
        TouchMkt = "TOUCH_MKT",
    }
);

wire_enum!(TimeInForce { Day = "DAY", Gtc = "GTC", Ioc = "IOC", Gtd = "GTD" });

wire_enum!(
    /// Whether an option order opens or closes a position: a sale of contracts not held writes
    /// them (SELL_TO_OPEN), a purchase of contracts written buys them back (BUY_TO_CLOSE).
    PositionIntent {
        BuyToOpen = "BUY_TO_OPEN",
        BuyToClose = "BUY_TO_CLOSE",
        SellToOpen = "SELL_TO_OPEN",
        SellToClose = "SELL_TO_CLOSE",
    }
);

wire_enum!(
    /// `support_trading_session`; the samples' `N` means the core session only.
    TradingSession { Core = "CORE", All = "ALL", Night = "NIGHT", AllDay = "ALL_DAY", N = "N" }
);

wire_enum!(OrderStatus {
    Submitted = "SUBMITTED",
    PartialFilled = "PARTIAL_FILLED",
    Filled = "FILLED",
    Cancelled = "CANCELLED",
    Failed = "FAILED",
});

wire_enum!(ComboType {
    Normal = "NORMAL",
    Master = "MASTER",
    StopProfit = "STOP_PROFIT",
    StopLoss = "STOP_LOSS",
    Oto = "OTO",
    Oco = "OCO",
    Otoco = "OTOCO",
    StopLossProfit = "STOP_LOSS_PROFIT",
    Broken = "BROKEN",
    BrokenInt = "BROKEN_INT",
    BrokenDec = "BROKEN_DEC",
});

wire_enum!(EntrustType { Qty = "QTY", Amount = "AMOUNT" });

wire_enum!(
    /// How a trailing stop keeps its distance: `trailing_stop_step` in money, or as a ratio of
    /// the price (0.05 is 5 %).
    TrailingType { Amount = "AMOUNT", Percentage = "PERCENTAGE" }
);

/// One order of `new_orders` or `batch_orders`, as received.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NewOrder {
    /// Required: 1 to 32 characters of `A-Z a-z 0-9 _ -`, used once per account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(required = true, nullable = false, pattern = "^[A-Za-z0-9_-]{1,32}$")]
    pub client_order_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<ComboType>)]
    pub combo_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^(EQUITY|OPTION)$")]
    pub instrument_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^US$")]
    pub market: Option<String>,
    /// Required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(required = true, nullable = false, min_length = 1)]
    pub symbol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Side, required = true)]
    pub side: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = OrderType, required = true)]
    pub order_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<TimeInForce>)]
    pub time_in_force: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = Date)]
    pub expire_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<EntrustType>)]
    pub entrust_type: Option<String>,
    /// Decimal string (a JSON number is accepted too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub quantity: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub total_cash_amount: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub limit_price: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub stop_price: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<TrailingType>)]
    pub trailing_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub trailing_stop_step: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<TradingSession>)]
    pub support_trading_session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extended_hours: Option<bool>,
    /// `SINGLE` for one option leg (the default when `legs` name an option); the multi-leg
    /// strategies are refused for now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^SINGLE$")]
    pub option_strategy: Option<String>,
    /// The option contract of an `OPTION` order: one leg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_items = 1)]
    pub legs: Option<Vec<NewLeg>>,
    /// An option order's: found from the account's position when not given, and refused when
    /// it says otherwise (a sale to close of contracts not held, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<PositionIntent>)]
    pub position_intent: Option<String>,
    /// Anything else the client sent (algo fields, ...), judged by the server.
    #[serde(flatten)]
    #[schema(ignore)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// One leg of an option order: the contract (underlying, expiry, right, strike), its side and
/// its quantity in contracts, which must agree with the order's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NewLeg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Side>)]
    pub side: Option<String>,
    /// Contracts (a decimal string of a whole number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub quantity: Option<serde_json::Value>,
    /// The underlying's symbol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub strike_price: Option<serde_json::Value>,
    /// `yyyy-MM-dd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = Date)]
    pub option_expire_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^OPTION$")]
    pub instrument_type: Option<String>,
    /// `CALL` or `PUT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^(CALL|PUT)$")]
    pub option_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^US$")]
    pub market: Option<String>,
}

/// `POST /trading/orders/place` and `/preview` (where `new_orders` holds the orders to preview).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"account_id": "ACCOUNT_ID", "new_orders": [{"client_order_id": "a1b2c3", "combo_type": "NORMAL", "instrument_type": "EQUITY", "market": "US", "symbol": "AAPL", "side": "BUY", "order_type": "LIMIT", "time_in_force": "GTC", "entrust_type": "QTY", "quantity": "1", "limit_price": "100", "support_trading_session": "CORE"}]}))]
pub struct PlaceOrderRequest {
    pub account_id: String,
    /// One order, or the two or three of a combination.
    #[schema(min_items = 1, max_items = 3)]
    pub new_orders: Vec<NewOrder>,
    #[serde(default)]
    pub client_combo_order_id: Option<String>,
}

/// `POST /trading/orders/batch-place`: independent orders, at most 50.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"account_id": "ACCOUNT_ID", "batch_orders": [{"client_order_id": "b1b2c3", "combo_type": "NORMAL", "instrument_type": "EQUITY", "market": "US", "symbol": "AAPL", "side": "BUY", "order_type": "LIMIT", "time_in_force": "GTC", "entrust_type": "QTY", "quantity": "1", "limit_price": "100", "support_trading_session": "CORE"}]}))]
pub struct BatchPlaceRequest {
    pub account_id: String,
    #[schema(min_items = 1, max_items = 50)]
    pub batch_orders: Vec<NewOrder>,
}

/// What place, replace and cancel answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OrderAck {
    pub client_order_id: String,
    pub order_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub client_combo_order_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub combo_order_id: Option<String>,
    pub status: OrderStatus,
    /// Every order of a combination, in the order placed (absent for a single order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    pub orders: Vec<OrderAck>,
}

/// `POST /trading/orders/batch-place`'s answer, one acknowledgement per order, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BatchPlaceResponse {
    pub data: Vec<OrderAck>,
}

/// `POST /trading/orders/cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CancelOrderRequest {
    pub account_id: String,
    pub client_order_id: String,
}

/// One order of `modify_orders`: the client order id and the fields to change.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ModifyOrder {
    pub client_order_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub quantity: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub limit_price: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub stop_price: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_in_force: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_type: Option<String>,
    #[serde(flatten)]
    #[schema(ignore)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// `POST /trading/orders/replace`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"account_id": "ACCOUNT_ID", "modify_orders": [{"client_order_id": "a1b2c3", "quantity": "2", "limit_price": "101"}]}))]
pub struct ReplaceOrderRequest {
    pub account_id: String,
    #[schema(min_items = 1, max_items = 1)]
    pub modify_orders: Vec<ModifyOrder>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_combo_order_id: Option<String>,
}

/// `POST /trading/orders/preview`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PreviewResponse {
    /// Price × quantity at the limit, or at the current quote for a market order.
    pub estimated_cost: String,
    pub estimated_commission: String,
    pub estimated_transaction_fee: String,
    pub estimated_exchange_fee: String,
    pub buying_power: String,
    /// Buying power once the order is placed (before it fills).
    pub buying_power_after: String,
    pub currency: String,
}

/// An order as detail, open orders and history show it (catalog 3.13).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OrderRecord {
    pub client_order_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub client_combo_order_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub combo_order_id: Option<String>,
    /// NORMAL, or the combination the order belongs to: OTO, OCO, OTOCO.
    pub combo_type: String,
    pub orders: Vec<OrderDetail>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OrderDetail {
    pub order_id: String,
    pub client_order_id: String,
    pub symbol: String,
    pub instrument_id: String,
    pub instrument_type: String,
    pub market: String,
    pub side: Side,
    pub order_type: OrderType,
    pub status: OrderStatus,
    /// The order's part in its combination, as placed (NORMAL when alone).
    pub combo_type: ComboType,
    pub entrust_type: EntrustType,
    /// The cash of an AMOUNT order; its `total_quantity` is what that bought when placed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub total_cash_amount: Option<String>,
    pub total_quantity: String,
    pub filled_quantity: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub limit_price: Option<String>,
    /// The stop (of a trailing stop: where it stands now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub stop_price: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub trailing_type: Option<TrailingType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub trailing_stop_step: Option<String>,
    /// The last day of a GTD order, `yyyy-MM-dd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub expire_date: Option<String>,
    /// Average price of the fills.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub filled_price: Option<String>,
    pub time_in_force: TimeInForce,
    pub support_trading_session: TradingSession,
    /// `yyyy-MM-ddTHH:mm:ss.SSSZ`.
    pub place_time: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub fill_time: Option<String>,
    pub update_time: String,
    /// Why a FAILED or CANCELLED order ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub reason: Option<String>,
    /// `SINGLE` for an option order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub option_strategy: Option<String>,
    /// An option order's: whether it opens or closes a position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub position_intent: Option<PositionIntent>,
    /// An option order's contract: one leg.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub legs: Vec<OrderLeg>,
}

/// One leg of an option order as the order listings show it (catalog 3.13). Prices are per
/// share; a contract is 100 shares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OrderLeg {
    /// What a replacement names the leg by (`legs[].id`).
    pub id: String,
    /// The contract's instrument id (the underlying's of a leg of shares).
    pub instrument_id: String,
    /// The underlying's symbol.
    pub symbol: String,
    /// The contract's OCC symbol (none for a leg of shares).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub option_symbol: Option<String>,
    /// `OPTION`, or `EQUITY` for the leg of shares of a COVERED_STOCK or COLLAR_WITH_STOCK.
    pub instrument_type: String,
    pub market: String,
    pub side: Side,
    /// Contracts (shares of an `EQUITY` leg).
    pub quantity: String,
    pub total_quantity: String,
    pub filled_quantity: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub filled_price: Option<String>,
    pub status: OrderStatus,
    pub option_strategy: String,
    /// `CALL` or `PUT` (none for a leg of shares, nor the contract terms below).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub option_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub strike_price: Option<String>,
    /// `yyyy-MM-dd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub option_expire_date: Option<String>,
    /// Shares a contract delivers: 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub option_contract_multiplier: Option<String>,
    /// Contracts deliverable per contract: 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub option_contract_deliverable: Option<String>,
}

/// A page of open orders or history, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OrderPage {
    pub data: Vec<OrderRecord>,
    /// Absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub pagination_key: Option<String>,
}
