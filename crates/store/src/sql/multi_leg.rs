//! A fill of a multi-leg option order ([`signet_domain::trading::multi_leg`]): every leg's
//! position, a fill row per leg (its contract and side), the order and the cash, in the one
//! transaction [`crate::TradingStore::apply_fill`] began.

use std::collections::HashMap;

use rust_decimal::Decimal;
use signet_domain::trading::accounting::{Holding, NotFilled};
use signet_domain::trading::events::leg_position_payload;
use signet_domain::trading::multi_leg::{MultiLeg, fill_legs};
use signet_domain::trading::order::Order;
use signet_model::AccountType;
use signet_model::wire::WireEnum;

use super::query::{Tx, query};
use super::trading::{holding, order_by_id, record_event, save_cash, save_position};
use crate::rows::parse_column;
use crate::{FillOutcome, FillRequest, StoreError};

pub(super) async fn apply_legs_fill(
    mut tx: Tx,
    fill: &FillRequest,
    order: &Order,
    multi: &MultiLeg,
    marks: &(dyn Fn(i64) -> Option<Decimal> + Sync),
) -> Result<FillOutcome, StoreError> {
    let (account_type, cash): (String, String) = query("SELECT account_type, cash FROM accounts WHERE account_id = $1")
        .bind(&order.account_id)
        .fetch_one(&mut tx)
        .await?;
    let held: Vec<(i64, String, String)> =
        query("SELECT instrument_id, quantity, average_cost FROM positions WHERE account_id = $1 AND quantity != '0'")
            .bind(&order.account_id)
            .fetch_all(&mut tx)
            .await?;
    let positions: HashMap<i64, Holding> = held
        .iter()
        .map(|(id, quantity, average_cost)| Ok((*id, holding(quantity, average_cost)?)))
        .collect::<Result<_, StoreError>>()?;
    let mark = |id: i64| marks(id).unwrap_or_else(|| positions.get(&id).map_or(Decimal::ZERO, |h| h.average_cost));
    let effect = match fill_legs(
        order,
        multi,
        parse_column("account type", &account_type, AccountType::parse)?,
        parse_column("cash", &cash, |t| t.parse().ok())?,
        &positions,
        mark,
        fill.quantity,
        &fill.leg_prices,
        fill.commission,
    ) {
        Ok(effect) => effect,
        Err(NotFilled::Stale) => return Ok(FillOutcome::Stale),
        Err(NotFilled::Refused(refusal)) => return Ok(FillOutcome::Refused(refusal)),
    };
    for (i, ((leg, price), after)) in multi
        .legs
        .iter()
        .zip(&fill.leg_prices)
        .zip(&effect.holdings)
        .enumerate()
    {
        // The commission once, on the first leg's row.
        let commission = if i == 0 { effect.commission } else { Decimal::ZERO };
        query(
            "INSERT INTO fills (order_id, time, quantity, price, commission, market_time, instrument_id, side)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&order.order_id)
        .bind(fill.time.0)
        .bind((fill.quantity * Decimal::from(leg.ratio)).to_string())
        .bind(price.to_string())
        .bind(commission.to_string())
        .bind(fill.market_time.0)
        .bind(leg.instrument_id)
        .bind(leg.side.as_str())
        .execute(&mut tx)
        .await?;
        save_position(&mut tx, &order.account_id, leg.instrument_id, &leg.symbol, *after).await?;
    }
    let legs = MultiLeg {
        legs: effect.legs.clone(),
        ..multi.clone()
    };
    query(
        "UPDATE orders SET status = $1, filled_quantity = $2, filled_amount = $3, fill_time = $4, update_time = $4,
             filled_at_sim = $5, legs = $6
         WHERE order_id = $7",
    )
    .bind(effect.status.as_str())
    .bind(effect.filled_quantity.to_string())
    .bind(effect.filled_amount.to_string())
    .bind(fill.time.0)
    .bind(fill.market_time.0)
    .bind(legs.encode())
    .bind(&order.order_id)
    .execute(&mut tx)
    .await?;
    save_cash(&mut tx, &order.account_id, effect.cash).await?;
    let updated = order_by_id(&mut tx, &order.order_id)
        .await?
        .expect("the order just updated");
    // A position event a leg: the first with the order's event, the others after it.
    let mut positions = multi
        .legs
        .iter()
        .zip(&effect.holdings)
        .map(|(leg, after)| leg_position_payload(&updated, leg.instrument_id, &leg.symbol, *after));
    let first = positions.next().flatten();
    record_event(&mut tx, &updated, fill.time.0, order.status, effect.event, None, first).await?;
    for position in positions {
        query("INSERT INTO order_events (account_id, n, time, event, position_payload) VALUES ($1, 1, $2, $3, $4)")
            .bind(&order.account_id)
            .bind(fill.time.0)
            .bind(effect.event.as_str())
            .bind(position)
            .execute(&mut tx)
            .await?;
    }
    tx.commit().await?;
    Ok(FillOutcome::Applied(Box::new(updated)))
}
