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

use super::query::{Tx, query};
use super::trading_rows::{
    FillRow, holding, insert_fill, order_by_id, record_event, record_position_event, save_cash, save_order_fill,
    save_position,
};
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
        let row = FillRow {
            quantity: fill.quantity * Decimal::from(leg.ratio),
            price: *price,
            commission: if i == 0 { effect.commission } else { Decimal::ZERO },
            leg: Some((leg.instrument_id, leg.side)),
        };
        insert_fill(&mut tx, fill, &row).await?;
        save_position(&mut tx, &order.account_id, leg.instrument_id, &leg.symbol, *after).await?;
    }
    let legs = MultiLeg {
        legs: effect.legs.clone(),
        ..multi.clone()
    };
    let progress = (effect.status, effect.filled_quantity, effect.filled_amount);
    save_order_fill(&mut tx, fill, progress, Some(legs.encode())).await?;
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
        record_position_event(&mut tx, &order.account_id, fill.time.0, effect.event.as_str(), position).await?;
    }
    tx.commit().await?;
    Ok(FillOutcome::Applied(Box::new(updated)))
}
