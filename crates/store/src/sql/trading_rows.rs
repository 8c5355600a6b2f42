//! The rows one trading change writes (an order's event, a fill, a position, the cash), shared
//! by the changes of [`super::trading`], multi-leg fills, settlements and corporate actions.

use rust_decimal::Decimal;
use signet_domain::trading::accounting::Holding;
use signet_domain::trading::events;
use signet_domain::trading::order::{Event, Order};
use signet_model::ids::{AccountId, OrderId};
use signet_model::orders::{OrderStatus, Side};
use signet_model::wire::WireEnum;

use super::query::{Tx, query};
use crate::rows::{Decoded, ORDER_COLUMNS, parse_column};
use crate::{FillRequest, StoreError};

/// The statuses of an open order, as SQL.
pub(super) const OPEN: &str = "status IN ('SUBMITTED', 'PARTIAL_FILLED')";

pub(super) async fn order_by_id(tx: &mut Tx, order_id: &OrderId) -> Result<Option<Order>, StoreError> {
    let row: Option<Decoded<Order>> = query(format!("SELECT {ORDER_COLUMNS} FROM orders WHERE order_id = $1"))
        .bind(order_id)
        .fetch_optional(tx)
        .await?;
    Ok(row.map(|Decoded(order)| order))
}

/// Records a transition in the order's history, with the payload the trade-events subscription
/// sends for it ([`events::payload`]); `after` is the order as the transition left it, and
/// `position` the payload of the position a fill left ([`events::position_payload`]).
pub(super) async fn record_event(
    tx: &mut Tx,
    after: &Order,
    time_ms: i64,
    from: OrderStatus,
    event: Event,
    reason: Option<&str>,
    position: Option<String>,
) -> Result<(), StoreError> {
    query(
        "INSERT INTO order_events (order_id, n, time, from_status, to_status, event, reason, payload, position_payload)
         VALUES ($1, (SELECT COALESCE(MAX(n), 0) + 1 FROM order_events WHERE order_id = $1), $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(&after.order_id)
    .bind(time_ms)
    .bind(from.as_str())
    .bind(after.status.as_str())
    .bind(event.as_str())
    .bind(reason)
    .bind(events::payload(after, Some(event)))
    .bind(position)
    .execute(tx)
    .await?;
    Ok(())
}

/// A position's decimal columns.
pub(crate) fn holding(quantity: &str, average_cost: &str) -> Result<Holding, StoreError> {
    Ok(Holding {
        quantity: parse_column("quantity", quantity, |t| t.parse().ok())?,
        average_cost: parse_column("average cost", average_cost, |t| t.parse().ok())?,
    })
}

/// Saves an account's holding of an instrument: its row made, or replaced.
pub(super) async fn save_position(
    tx: &mut Tx,
    account_id: &AccountId,
    instrument_id: i64,
    symbol: &str,
    holding: Holding,
) -> Result<(), StoreError> {
    query(
        "INSERT INTO positions (account_id, instrument_id, symbol, quantity, average_cost) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (account_id, instrument_id) DO UPDATE SET
             quantity = excluded.quantity, average_cost = excluded.average_cost",
    )
    .bind(account_id)
    .bind(instrument_id)
    .bind(symbol)
    .bind(holding.quantity.normalize().to_string())
    .bind(holding.average_cost.normalize().to_string())
    .execute(tx)
    .await?;
    Ok(())
}

/// One `fills` row of `fill`: of its order's instrument, or of a multi-leg order's `leg`.
pub(super) struct FillRow {
    pub quantity: Decimal,
    pub price: Decimal,
    pub commission: Decimal,
    /// A multi-leg order's leg: its instrument and side.
    pub leg: Option<(i64, Side)>,
}

pub(super) async fn insert_fill(tx: &mut Tx, fill: &FillRequest, row: &FillRow) -> Result<(), StoreError> {
    query(
        "INSERT INTO fills (order_id, time, quantity, price, commission, market_time, instrument_id, side)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(&fill.order_id)
    .bind(fill.time.0)
    .bind(row.quantity.to_string())
    .bind(row.price.to_string())
    .bind(row.commission.to_string())
    .bind(fill.market_time.0)
    .bind(row.leg.map(|(instrument_id, _)| instrument_id))
    .bind(row.leg.map(|(_, side)| side.as_str()))
    .execute(tx)
    .await?;
    Ok(())
}

/// What `fill` leaves of its order: its `progress` (status, filled quantity, filled amount),
/// its fill times, and a multi-leg order's `legs` as filled ([`MultiLeg::encode`]).
pub(super) async fn save_order_fill(
    tx: &mut Tx,
    fill: &FillRequest,
    (status, filled_quantity, filled_amount): (OrderStatus, Decimal, Decimal),
    legs: Option<String>,
) -> Result<(), StoreError> {
    query(
        "UPDATE orders SET status = $1, filled_quantity = $2, filled_amount = $3, fill_time = $4, update_time = $4,
             filled_at_sim = $5, legs = COALESCE($6, legs)
         WHERE order_id = $7",
    )
    .bind(status.as_str())
    .bind(filled_quantity.to_string())
    .bind(filled_amount.to_string())
    .bind(fill.time.0)
    .bind(fill.market_time.0)
    .bind(legs)
    .bind(&fill.order_id)
    .execute(tx)
    .await?;
    Ok(())
}

/// A position event of `account_id` that no order event carries (a split, a settlement, a
/// multi-leg order's legs after its first): `event` names what moved it.
pub(super) async fn record_position_event(
    tx: &mut Tx,
    account_id: &AccountId,
    time_ms: i64,
    event: &str,
    payload: Option<String>,
) -> Result<(), StoreError> {
    query("INSERT INTO order_events (account_id, n, time, event, position_payload) VALUES ($1, 1, $2, $3, $4)")
        .bind(account_id)
        .bind(time_ms)
        .bind(event)
        .bind(payload)
        .execute(tx)
        .await?;
    Ok(())
}

/// Saves an account's cash. Written even when it is the same: on PostgreSQL the account's row
/// then says it changed, which the nodes following its claims read.
pub(super) async fn save_cash(tx: &mut Tx, account_id: &AccountId, cash: Decimal) -> Result<(), StoreError> {
    query("UPDATE accounts SET cash = $1 WHERE account_id = $2")
        .bind(cash.normalize().to_string())
        .bind(account_id)
        .execute(tx)
        .await?;
    Ok(())
}
