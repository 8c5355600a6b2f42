//! The v1 trading calls (the official client's `TradeClient.account` and `TradeClient.order`,
//! and the earlier SDK generation): the same accounts and orders as the v3 calls, in the shapes
//! Webull's v1 reference documents. Amounts travel as decimal strings.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::accounts::AccountType;
use crate::orders::{OrderStatus, OrderType, Side, TimeInForce, TrailingType};

/// An element of `GET /app/subscriptions/list` (the earlier account list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Subscription {
    /// The page cursor: the next page starts after it.
    pub subscription_id: String,
    pub user_id: String,
    pub account_id: String,
    pub account_number: String,
}

/// `GET /account/profile`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AccountProfile {
    pub account_number: String,
    pub account_type: AccountType,
    /// `NORMAL` for every signet account.
    pub account_status: String,
}

/// `GET /account/balance`: the totals in `total_asset_currency` (USD), then per currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = V1Balance)]
pub struct Balance {
    pub account_id: String,
    pub total_asset_currency: String,
    /// Net liquidation value: cash plus the positions at the last prices.
    pub total_asset: String,
    pub total_market_value: String,
    pub total_cash_balance: String,
    /// Reserved by the reference; signet answers `0`.
    pub margin_utilization_rate: String,
    pub account_currency_assets: Vec<CurrencyAsset>,
}

/// One currency of a v1 balance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = V1CurrencyAsset)]
pub struct CurrencyAsset {
    pub currency: String,
    pub net_liquidation_value: String,
    pub positions_market_value: String,
    pub cash_balance: String,
    /// The buying power placement checks a buy against (the v3 balance's `buying_power`).
    pub margin_power: String,
    /// The same for a CASH account; for a MARGIN account, its cash less open buys.
    pub cash_power: String,
    /// signet settles at once: always `0`.
    pub pending_incoming: String,
    /// What the account's open buys hold back.
    pub cash_frozen: String,
    pub available_withdrawal: String,
}

/// `GET /account/positions`: a page of holdings by instrument id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HoldingsPage {
    pub has_next: bool,
    pub holdings: Vec<Holding>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Holding {
    pub instrument_id: String,
    pub symbol: String,
    /// `STOCK` (the v1 name of an equity).
    pub instrument_type: String,
    pub currency: String,
    /// Average cost.
    pub unit_cost: String,
    /// Shares, negative for a short.
    pub qty: String,
    pub total_cost: String,
    pub last_price: String,
    pub market_value: String,
    pub unrealized_profit_loss: String,
    pub unrealized_profit_loss_rate: String,
    /// The position's share of the account's long and short market value, a ratio.
    pub holding_proportion: String,
}

/// `POST /trade/order/place` and `/trade/order/replace` (both forms of the client send one
/// `stock_order` object).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StockOrderRequest {
    pub account_id: String,
    pub stock_order: StockOrder,
}

/// An order as the v1 calls send it: by `instrument_id`, with `qty`, `tif` and
/// `extended_hours_trading`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StockOrder {
    pub client_order_id: String,
    /// Required to place; on a replacement, it must be the order's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub instrument_id: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Side>)]
    pub side: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<TimeInForce>)]
    pub tif: Option<String>,
    /// `true`: the order also works before and after the core session (limit orders only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extended_hours_trading: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<OrderType>)]
    pub order_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub qty: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub limit_price: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub stop_price: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trailing_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::wire::decimal_input)]
    pub trailing_stop_step: Option<serde_json::Value>,
    /// Anything else the client sent (option fields, `close_contracts`), judged by the server.
    #[serde(flatten)]
    #[schema(ignore)]
    pub other: std::collections::BTreeMap<String, serde_json::Value>,
}

/// The answer to a v1 place, replace or cancel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = V1OrderAck)]
pub struct OrderAck {
    pub client_order_id: String,
    pub order_id: String,
}

/// An order as `GET /trade/order/detail` and the v1 lists show it: the order, then its items
/// (one for a stock order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = V1Order)]
pub struct Order {
    pub account_id: String,
    /// `NORMAL`, or the combination the order belongs to (`OTO`, `OCO`, `OTOCO`).
    pub combo_type: String,
    /// `STOCK`.
    pub combo_ticker_type: String,
    pub client_order_id: String,
    pub extended_hours_trading: bool,
    pub order_id: String,
    pub tif: TimeInForce,
    pub items: Vec<OrderItem>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = V1OrderItem)]
pub struct OrderItem {
    /// `US_STOCK`.
    pub category: String,
    pub currency: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filled_price: Option<String>,
    pub filled_qty: String,
    pub instrument_id: String,
    /// UTC, yyyy-MM-ddTHH:mm:ss.SSSZ; only once something filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_filled_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_price: Option<String>,
    pub order_status: OrderStatus,
    pub order_type: OrderType,
    /// UTC, yyyy-MM-ddTHH:mm:ss.SSSZ.
    pub place_time: String,
    pub qty: String,
    pub side: Side,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_price: Option<String>,
    pub symbol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trailing_stop_step: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trailing_type: Option<TrailingType>,
}

/// `GET /trade/orders/list-open` and `/trade/orders/list-today`: newest first, the next page
/// asked for with the last `client_order_id` seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = V1OrderPage)]
pub struct OrderPage {
    pub has_next: bool,
    pub orders: Vec<Order>,
}

/// An element of `GET /trade/calendar`: a day the exchange trades, with signet's addition of
/// its four sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TradeDay {
    /// yyyy-MM-dd, New York.
    pub trade_day: String,
    /// `FULL_DAY`, or `HALF_DAY` on an early-close day (the core session to 13:00, after hours
    /// to 17:00: the eves of Independence Day and Christmas, the day after Thanksgiving).
    pub trade_date_type: String,
    /// The overnight session that ends on its morning, then pre-market, core and after-hours.
    pub sessions: Vec<SessionHours>,
}

/// A session of a trading day, from `start` to `end` (UTC, yyyy-MM-ddTHH:mm:ss.SSSZ).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SessionHours {
    /// `OVERNIGHT`, `PRE_MARKET`, `CORE` or `AFTER_HOURS`.
    pub session: String,
    pub start: String,
    pub end: String,
}

/// `GET /trade/instrument`, `GET /trade/security` and the elements of
/// `GET /trade/instrument/tradable/list`: an instrument as the v1 trade calls describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TradeInstrument {
    pub instrument_id: String,
    pub symbol: String,
    /// `STOCK` or `ETF`.
    pub instrument_type: String,
    /// `ALL` (buy and sell) when the simulator quotes it, `NONE` otherwise.
    pub trade_policy: String,
    /// The Reg T initial margin, `0.5`.
    pub margin_ratio: String,
    /// `YES`.
    pub can_margin: String,
    /// signet's additions: the name and listing exchange.
    pub name: String,
    pub exchange_code: String,
}
