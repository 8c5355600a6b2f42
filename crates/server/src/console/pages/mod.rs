//! The console's pages and actions, a module a page. Handlers read through the store and the
//! trading and market code the interface uses (so every number here is the one the API answers),
//! and render with [`super::layout::page`]. Regions marked `data-live` are refreshed in place by
//! the page's script.

mod account;
mod apps;
mod checkpoints;
mod market;
mod options;
mod overview;
mod requests;
mod scenarios;

pub use account::account;
pub use apps::{add_account, approve_tokens, apps, create_app, revoke_app};
pub use checkpoints::{checkpoint_delete, checkpoint_restore, checkpoint_save, checkpoints};
pub use market::{market, market_set, market_step};
pub use options::options;
pub use overview::overview;
pub use requests::{request, requests};
pub use scenarios::{LOAD_FORM_BYTES, scenarios, scenarios_clear, scenarios_load, scenarios_switch};

use std::collections::HashMap;

use maud::{Markup, html};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use signet_domain::marketdata::ActionKind;
use signet_domain::options::settlement::Settled;
use signet_domain::simulator::clock::{NewYork, utc_ms_of};
use signet_domain::trading::corporate::Applied;
use signet_domain::trading::valuation::{self, Book, Movement, PastFill};
use signet_store::AccountRecord;

use super::layout::ConsoleError;
use crate::state::AppState;

/// Fills the charts and today's P&L read, newest first: an account with more shows its
/// recent history only (and today's P&L counts only these of today's).
pub(super) const FILLS_READ: u32 = 20_000;

pub(super) fn money(d: Decimal) -> String {
    format!("{:.2}", d.round_dp(2))
}

pub(super) fn csrf_field(csrf: &str) -> Markup {
    html! { input type="hidden" name="csrf" value=(csrf); }
}

pub(super) fn f64_of(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

/// An account valued now: the balance call's figures and today's change.
pub(super) struct Valued {
    holdings: crate::trading::assets::Holdings,
    totals: valuation::Totals,
    book: Book,
    /// The change of the value since the simulated day's start.
    today: Decimal,
}

/// Values an account; `fills` are its fills (oldest first) since the start of the simulated
/// day at least, and `applied` its splits and dividends, or `None` to read them.
pub(super) async fn valued(
    state: &AppState,
    account: &AccountRecord,
    fills: Option<&[PastFill]>,
    applied: Option<&[Applied]>,
) -> Result<Valued, ConsoleError> {
    let holdings = crate::trading::assets::holdings_of(state, account).await?;
    let totals = valuation::totals(holdings.cash, holdings.positions.iter().map(|(_, v)| v));
    let book = Book {
        cash: holdings.cash,
        shares: holdings
            .positions
            .iter()
            .map(|(p, v)| (p.instrument_id, v.quantity))
            .collect(),
    };
    // Today's P&L: the value now less the value at the start of the simulated day, of what the
    // account held then (before today's fills, splits and dividends) at the previous close.
    let now = state.simulator.now_ms();
    let day_start = utc_ms_of(NewYork::of(now).day, 0);
    let today_fills = match fills {
        Some(fills) => fills.iter().filter(|f| f.time_ms >= day_start).copied().collect(),
        None => {
            state
                .store
                .account_fills(&account.account_id, Some(day_start), None, FILLS_READ)
                .await?
        }
    };
    // A split or dividend applied today is undone too: the shares held at the previous close
    // are the ones before the split.
    let read;
    let applied = match applied {
        Some(applied) => applied,
        None => {
            read = state.store.applied_actions(&account.account_id).await?;
            &read
        }
    };
    let settled = state.store.option_settlements(&account.account_id).await?;
    let today = movements(&today_fills, applied, &settled, day_start);
    // The previous close is quoted as a split today made it; the shares before it are worth
    // it times the split's ratio.
    let split_today: HashMap<i64, Decimal> = applied
        .iter()
        .filter(|a| a.kind == ActionKind::Split && a.ex_day == NewYork::of(now).day)
        .map(|a| (a.instrument_id, a.value))
        .collect();
    let at_start = book.before(&today).value(|id| {
        let ratio = split_today.get(&id).copied().unwrap_or(Decimal::ONE);
        state.simulator.quote_of(id, now).map(|q| q.pre_close * ratio)
    });
    let today = totals.net_liquidation - at_start;
    Ok(Valued {
        holdings,
        totals,
        book,
        today,
    })
}

/// `fills`, the splits and dividends `applied` (each at the start of its ex-date) and the option
/// contracts `settled` (at the start of the day after their expiry), from `since` on, oldest
/// first: what an account's value history undoes and replays.
pub(super) fn movements(fills: &[PastFill], applied: &[Applied], settled: &[Settled], since: i64) -> Vec<Movement> {
    let mut movements: Vec<Movement> = applied
        .iter()
        .map(Applied::movement)
        .chain(settled.iter().flat_map(Settled::movements))
        .chain(fills.iter().map(Movement::from))
        .filter(|m| m.time_ms >= since)
        .collect();
    // Stable: an action at the day's start comes before that day's fills.
    movements.sort_by_key(|m| m.time_ms);
    movements
}

pub(super) fn given(s: Option<&str>) -> Option<String> {
    s.map(str::trim).filter(|s| !s.is_empty()).map(str::to_ascii_uppercase)
}
