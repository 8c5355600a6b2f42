//! What an order carries beside its own fields: its combination, its fill plan and its legs.
//! The data alone, so that [`super::order::Order`] can hold them while the modules that give
//! them meaning ([`super::combo`], [`super::fill_plan`], [`super::multi_leg`]) read the order.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use signet_model::ids::OrderId;
use signet_model::orders::Side;

use crate::options::strategy::Strategy;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComboKind {
    Oto,
    Oco,
    Otoco,
}

impl ComboKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ComboKind::Oto => "OTO",
            ComboKind::Oco => "OCO",
            ComboKind::Otoco => "OTOCO",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [ComboKind::Oto, ComboKind::Oco, ComboKind::Otoco]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// The combination an order belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combo {
    /// The order id of the combination's first order.
    pub combo_order_id: OrderId,
    pub kind: ComboKind,
}

/// What a rule does to the fills of the orders it matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FillPlan {
    /// The rule's name, for the log and the reason of a cancel.
    pub rule: String,
    pub shape: Shape,
    /// Each fill's price moved this many basis points against the order (a buy pays more, a
    /// sell gets less), never beyond its limit.
    #[serde(default, skip_serializing_if = "Decimal::is_zero")]
    pub slippage_bps: Decimal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "fill")]
pub enum Shape {
    /// As matching finds them.
    Market,
    /// In `slices` equal executions (the last takes what rounding left), the next one
    /// `every_ms` of the simulator's clock after the last fill.
    Slices { slices: u32, every_ms: i64 },
    /// `ratio` of the quantity fills; then the rest is cancelled or rests, never filling.
    Partial { ratio: Decimal, then: AfterPartial },
    /// Rests until cancelled, even when marketable.
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterPartial {
    Cancel,
    Rest,
}

/// A multi-leg order's strategy, legs and claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultiLeg {
    pub strategy: Strategy,
    pub legs: Vec<OrderLeg>,
    /// What one unit holds back while open, set in the account's turn ([`claim`]).
    pub claim: LegsClaim,
}

/// One leg of a multi-leg order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderLeg {
    /// The contract's instrument id, or the underlying's of a leg of shares.
    pub instrument_id: i64,
    /// Its OCC symbol, or the underlying's.
    pub symbol: String,
    pub side: Side,
    /// Contracts (shares) in one unit of the order.
    pub ratio: u64,
    /// The average price per share it filled at.
    pub filled_price: Option<Decimal>,
}

/// What one unit of an open multi-leg order holds back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LegsClaim {
    /// Cash: its debit at the limit (or the estimate of a market order), and what its written
    /// legs hold back on their own.
    pub cash: Decimal,
    /// Shares of the underlying under the calls it writes that its own legs do not cover.
    pub shares: Decimal,
}
