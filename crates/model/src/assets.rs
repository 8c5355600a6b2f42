//! The trading companions (catalog section 10): an account's balance and positions, its order
//! executions, and the instruments it can trade. Amounts travel as decimal strings.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::orders::{OrderStatus, OrderType, Side};

/// `GET /trading/assets/balances/get`: the account's totals, then the same per currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AccountBalance {
    /// The currency of the totals (USD).
    pub total_asset_currency: String,
    pub total_cash_balance: String,
    /// Long positions less short ones, each at the simulator's last price now.
    pub total_market_value: String,
    pub total_unrealized_profit_loss: String,
    /// Cash plus `total_market_value`.
    pub total_net_liquidation_value: String,
    pub account_currency_assets: Vec<CurrencyAssets>,
}

/// One currency of an account's balance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CurrencyAssets {
    pub currency: String,
    pub cash_balance: String,
    pub market_value: String,
    /// What order placement checks a buy against: cash less what open buys hold back (CASH),
    /// twice the equity less the positions' value and the open buys (MARGIN, Reg T).
    pub buying_power: String,
    pub unrealized_profit_loss: String,
    pub net_liquidation_value: String,
}

/// A position, as `GET /trading/assets/positions/list` lists it (a bare array of them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Position {
    pub position_id: String,
    pub symbol: String,
    /// Shares held; negative when sold short.
    pub quantity: String,
    pub currency: String,
    /// EQUITY.
    pub instrument_type: String,
    /// SINGLE.
    pub option_strategy: String,
    /// The average cost of the shares held.
    pub cost_price: String,
    /// The simulator's last price now.
    pub last_price: String,
    /// `quantity` × `last_price` (negative for a short).
    pub market_value: String,
    /// (`last_price` − `cost_price`) × `quantity`.
    pub unrealized_profit_loss: String,
    /// `unrealized_profit_loss` over the cost of the shares, e.g. `0.0125` for 1.25 %.
    pub unrealized_profit_loss_rate: String,
    pub instrument_id: String,
    /// Option legs: none, for shares.
    pub legs: Vec<PositionLeg>,
}

/// One row of a position's detail (catalog 10.3): signet holds one position an instrument, so
/// the detail is that position, with its instrument's name and exchange and the account's
/// currency as the base (`fx_rate` 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PositionDetail {
    /// The position's id, as the positions list shows it.
    pub id: String,
    pub account_id: String,
    pub symbol: String,
    pub symbol_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub exchange_code: Option<String>,
    pub instrument_id: String,
    /// Shares held; negative when sold short.
    pub quantity: String,
    /// The average cost of the shares held.
    pub average_price: String,
    /// At the simulator's last price now.
    pub market_value: String,
    pub unrealized_pl: String,
    pub currency: String,
    pub base_currency: String,
    pub fx_rate: String,
    pub base_currency_market_value: String,
}

/// A page of a position's detail rows; with one position an instrument, never more than one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PositionDetailPage {
    pub data: Vec<PositionDetail>,
    /// Absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub pagination_key: Option<String>,
}

/// The contract of an option position (catalog: the published US position schema).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PositionLeg {
    pub leg_id: String,
    /// The contract's OCC symbol.
    pub symbol: String,
    /// Contracts, negative when written.
    pub quantity: String,
    /// `CALL` or `PUT`.
    pub option_type: String,
    /// `yyyy-MM-dd`.
    pub option_expire_date: String,
    pub option_exercise_price: String,
    pub strike_price: String,
    /// Shares a contract delivers: 100.
    pub option_contract_multiplier: String,
    pub option_contract_deliverable: String,
}

/// One fill of an order, as `GET /trading/orders/executions/list` shows it (catalog 10.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Execution {
    /// The fill's id; with x-version v2, the cursor of the next page (`last_execution_id`).
    pub execution_id: String,
    pub order_id: String,
    pub client_order_id: String,
    pub symbol: String,
    /// `yyyy-MM-ddTHH:mm:ss.SSSZ`, UTC.
    pub execution_time: String,
    /// The order's status now.
    pub status: OrderStatus,
    /// FILL for a fill that completed the order, PARTIAL_FILL for one that did not.
    pub execution_type: String,
    pub side: Side,
    pub order_type: OrderType,
    /// The order's quantity.
    pub total_quantity: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub limit_price: Option<String>,
    /// This fill's quantity.
    pub filled_quantity: String,
    /// This fill's price.
    pub filled_price: String,
    /// What the order had filled once this fill was applied.
    pub total_filled_qty: String,
    /// What was left of the order then.
    pub leaves_qty: String,
    /// This fill's commission.
    pub commission: String,
}

/// A page of executions, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ExecutionPage {
    pub data: Vec<Execution>,
    /// Absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub pagination_key: Option<String>,
}

/// An instrument, as the instrument lookup shows it (catalog 10.5 and 10.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StockInstrument {
    pub symbol: String,
    pub name: String,
    /// The id every other call uses.
    pub instrument_id: String,
    pub exchange_code: String,
    /// US_STOCK (with the retired list: US_ETF for funds).
    pub category: String,
    /// COMMON_STOCK or ETF (not on the retired list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub sub_category: Option<String>,
    /// OC: it trades (the simulator quotes it); NT: it does not.
    pub status: String,
    pub currency: String,
    pub lot_size: String,
    pub shortable: bool,
    pub fractionable: bool,
    pub marginable: bool,
    pub overnight_trading_supported: bool,
    pub easy_to_borrow: bool,
    /// Reg T: signet applies one requirement, 50 %, to longs and shorts alike.
    pub margin_requirement_long: String,
    pub margin_requirement_short: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub intraday_margin_long: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub intraday_margin_short: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub maintenance_margin_long: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub maintenance_margin_short: Option<String>,
}

/// A page of instruments, by instrument id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct InstrumentPage {
    pub data: Vec<StockInstrument>,
    /// Absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub pagination_key: Option<String>,
}

/// `GET /trading/activities/transfer-activities/list`: an account's transfers in and out of the
/// broker (ACATS), newest first. signet moves no money between institutions: always empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TransferPage {
    pub data: Vec<Transfer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pagination_key: Option<String>,
}

/// A transfer's summary, as the interface describes it (signet has none to show).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Transfer {
    pub account_id: String,
    pub transfer_id: String,
    pub transfer_method: String,
    /// `IN` or `OUT`.
    pub direction: String,
    pub status: String,
    pub create_time: String,
    pub update_time: String,
}

/// `GET /trading/activities/cash-activities/list`: an account's cash movements, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CashActivityPage {
    pub data: Vec<CashActivity>,
    /// Absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pagination_key: Option<String>,
}

/// One movement of an account's cash: positive in, negative out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CashActivity {
    /// `D` for the opening deposit, `T<fill>` for a trade, `F<fill>` for its fee, `A<entry>` for
    /// a dividend or split.
    pub activity_id: String,
    pub account_id: String,
    /// `DEPOSIT`, `TRADE` or `FEES`; `DIVIDEND` or `SPLIT` (signet's: the interface's list has no
    /// type for them).
    pub activity_type: String,
    pub amount: String,
    pub currency: String,
    /// UTC, yyyy-MM-ddTHH:mm:ss.SSSZ (wall-clock, as order times).
    pub time: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_order_id: Option<String>,
    pub description: String,
}
