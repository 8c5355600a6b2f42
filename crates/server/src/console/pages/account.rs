//! An account: balance, positions, the splits and dividends applied to them, value over time,
//! and its orders with their events.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use maud::{Markup, html};
use serde::Deserialize;
use signet_domain::marketdata::units::format_day;
use signet_domain::times::format_ms;
use signet_domain::trading::order::Order;
use signet_domain::trading::valuation::{self, Book, Movement};
use signet_model::ids::{AccountId, OrderId};
use signet_model::orders::OrderStatus;
use signet_model::wire::WireEnum;
use signet_store::{OrderQuery, TimelineEvent};

use super::{FILLS_READ, f64_of, given, money, movements, valued};
use crate::console::access::Session;
use crate::console::charts;
use crate::console::layout::{ConsoleError, Tab, page};
use crate::state::AppState;

/// Orders an account page lists.
const ORDERS_SHOWN: u32 = 50;
/// Points of the value chart.
const VALUE_POINTS: i64 = 120;

#[derive(Deserialize)]
pub struct OrderFilter {
    status: Option<String>,
    symbol: Option<String>,
}

/// `/console/accounts/{id}`: positions, value over time, and orders with their events.
pub async fn account(
    State(state): State<AppState>,
    session: Session,
    Path(account_id): Path<AccountId>,
    Query(filter): Query<OrderFilter>,
) -> Result<Markup, ConsoleError> {
    let account = state.store.account(&account_id).await?.ok_or(ConsoleError::NotFound)?;
    let fills = state
        .store
        .account_fills(&account.account_id, None, None, FILLS_READ)
        .await?;
    let applied = state.store.applied_actions(&account.account_id).await?;
    let v = valued(&state, &account, Some(&fills), Some(&applied)).await?;
    let status = given(filter.status.as_deref()).filter(|s| OrderStatus::parse(s).is_some());
    let symbol = given(filter.symbol.as_deref());
    let orders = state
        .store
        .orders(&OrderQuery {
            account_id: account.account_id.clone(),
            open_only: false,
            from_ms: None,
            to_ms: None,
            before_seq: None,
            status: status.clone(),
            symbol: symbol.clone(),
            limit: ORDERS_SHOWN,
        })
        .await?;
    // With its newest fills alone read, the history starts at the oldest of them.
    let since = if fills.len() >= FILLS_READ as usize {
        fills.first().map_or(i64::MIN, |f| f.time_ms)
    } else {
        i64::MIN
    };
    let settled = state.store.option_settlements(&account.account_id).await?;
    let history = movements(&fills, &applied, &settled, since);
    let ids: Vec<OrderId> = orders.iter().map(|o| o.order_id.clone()).collect();
    let mut timelines: HashMap<OrderId, Vec<TimelineEvent>> = HashMap::new();
    for event in state.store.order_timelines(&ids).await? {
        timelines.entry(event.order_id.clone()).or_default().push(event);
    }
    let body = html! {
        section #summary data-live aria-label="Balance" {
            dl.figures {
                div { dt { "Type" } dd { (account.account_type.as_str()) } }
                div { dt { "Cash" } dd { (money(v.totals.cash)) } }
                div { dt { "Market value" } dd { (money(v.totals.market_value)) } }
                div { dt { "Total value" } dd { (money(v.totals.net_liquidation)) } }
                div { dt { "Buying power" } dd { (money(v.holdings.buying_power)) } }
                div { dt { "Unrealized P&L" } dd #unrealized { (money(v.totals.unrealized)) } }
                div { dt { "Today's P&L" } dd { (money(v.today)) } }
            }
        }
        section #positions data-live aria-labelledby="positions-title" {
            h2 #positions-title { "Positions" }
            @if v.holdings.positions.is_empty() { p { "No positions." } } @else {
                table {
                    thead { tr {
                        th scope="col" { "Symbol" } th.num scope="col" { "Quantity" } th.num scope="col" { "Average cost" }
                        th.num scope="col" { "Last price" } th.num scope="col" { "Market value" } th.num scope="col" { "Unrealized P&L" }
                    } }
                    tbody { @for (p, pv) in &v.holdings.positions {
                        tr data-symbol=(p.symbol) {
                            td { a href=(format!("/console/market?symbol={}&account={}", p.symbol, account.account_id)) { (p.symbol) } }
                            td.num { (pv.quantity.normalize()) }
                            td.num { (money(pv.average_cost)) }
                            td.num.last { (money(pv.price)) }
                            td.num { (money(pv.market_value)) }
                            td.num.pl { (money(pv.unrealized)) }
                        }
                    } }
                }
            }
        }
        @if !applied.is_empty() {
            section #actions aria-labelledby="actions-title" {
                h2 #actions-title { "Splits and dividends" }
                table {
                    thead { tr {
                        th scope="col" { "Applied" } th scope="col" { "Ex-date" } th scope="col" { "Symbol" }
                        th scope="col" { "Action" } th.num scope="col" { "Shares before" } th.num scope="col" { "Shares after" }
                        th.num scope="col" { "Cash" }
                    } }
                    tbody { @for a in applied.iter().rev() {
                        tr {
                            td { (format_ms(a.time_ms)) }
                            td { (format_day(a.ex_day)) }
                            td { (a.symbol) }
                            td { (a.kind.as_str()) " " (a.value.normalize()) }
                            td.num { (a.quantity_before.normalize()) }
                            td.num { (a.quantity_after.normalize()) }
                            td.num { (money(a.cash)) }
                        }
                    } }
                }
            }
        }
        section #value data-live aria-labelledby="value-title" {
            h2 #value-title { "Value over time" }
            (charts::line("Account value", &value_history(&state, &v.book, &history), &[], " USD"))
        }
        section aria-labelledby="orders-title" {
            h2 #orders-title { "Orders" }
            form.filters method="get" {
                label for="status" { "Status" }
                select #status name="status" {
                    option value="" { "any" }
                    @for s in OrderStatus::VALUES {
                        option value=(s) selected[status.as_deref() == Some(*s)] { (s) }
                    }
                }
                label for="symbol" { "Symbol" }
                input #symbol name="symbol" value=(symbol.as_deref().unwrap_or("")) size="8";
                button type="submit" { "Filter" }
            }
            div #orders data-live { (order_list(&orders, &timelines)) }
        }
    };
    let title = format!("Account {}", account.account_id);
    Ok(page(&title, Tab::Overview, Some(&session.csrf()), body))
}

fn order_list(orders: &[Order], timelines: &HashMap<OrderId, Vec<TimelineEvent>>) -> Markup {
    html! {
        @if orders.is_empty() { p { "No orders." } }
        ol.orders {
            @for o in orders {
                li {
                    details id=(format!("order-{}", o.order_id)) {
                        summary {
                            span.time { (format_ms(o.place_time.0)) } " "
                            strong { (o.side.as_str()) " " (o.quantity.normalize()) " " (o.symbol) } " "
                            (o.order_type.as_str())
                            @if let Some(limit) = o.limit_price { " at " (limit) }
                            " · " span.status data-status=(o.status.as_str()) { (o.status.as_str()) }
                            " · filled " (o.filled_quantity.normalize())
                            " · " code { (o.client_order_id) }
                        }
                        table.timeline {
                            caption { "Events of order " (o.client_order_id) }
                            thead { tr { th scope="col" { "Time" } th scope="col" { "Event" } th scope="col" { "Status" } th scope="col" { "Detail" } } }
                            tbody {
                                @for e in timelines.get(&o.order_id).map(Vec::as_slice).unwrap_or(&[]) {
                                    tr {
                                        td { (format_ms(e.time)) }
                                        td { (e.event) }
                                        td { (e.from_status.as_deref().unwrap_or("")) " → " (e.to_status) }
                                        td { (event_detail(e)) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A fill's quantity and price from the event's payload, or the reason of a refusal.
fn event_detail(e: &TimelineEvent) -> String {
    let payload: Option<HashMap<String, String>> = e.payload.as_deref().and_then(|p| serde_json::from_str(p).ok());
    let field = |name: &str| payload.as_ref().and_then(|p| p.get(name)).filter(|v| !v.is_empty());
    match (field("filled_qty"), field("filled_price")) {
        (Some(q), Some(p)) if e.event.starts_with("FILL") => format!("filled {q} at {p}"),
        _ => e.reason.clone().unwrap_or_default(),
    }
}

/// The account's value on the simulator's clock, from its first fill (or the hour before) to
/// now, at the simulator's prices.
fn value_history(state: &AppState, now_held: &Book, movements: &[Movement]) -> Vec<(i64, f64)> {
    let now = state.simulator.now_ms();
    let start = movements
        .first()
        .map_or(now - 3_600_000, |m| m.time_ms.min(now - 60_000));
    let times: Vec<i64> = (0..=VALUE_POINTS)
        .map(|i| start + (now - start) * i / VALUE_POINTS)
        .collect();
    let price = |id, t| state.simulator.last_of(id, t);
    valuation::history(now_held, movements, &times, price)
        .into_iter()
        .map(|(t, v)| (t, f64_of(v)))
        .collect()
}
