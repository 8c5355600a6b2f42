//! The console's pages and actions. Handlers read through the store and the trading and market
//! code the interface uses (so every number here is the one the API answers), and render with
//! [`layout::page`]. Regions marked `data-live` are refreshed in place by the page's script.

use std::collections::HashMap;
use std::time::Duration;

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::Deserialize;
use signet_domain::simulator::clock::{NewYork, utc_ms_of};
use signet_domain::times::format_ms;
use signet_domain::trading::order::Order;
use signet_domain::trading::valuation::{self, Book, PastFill};
use signet_model::AccountType;
use signet_model::orders::OrderStatus;
use signet_model::wire::WireEnum;
use signet_store::{AccountRecord, OrderQuery, TimelineEvent, TokenSelector};

use super::access::Session;
use super::charts::{self, Mark};
use super::layout::{ConsoleError, Tab, page};
use super::requests::Entry;
use crate::admin::Admin;
use crate::app::AppState;

/// Orders an account page lists.
const ORDERS_SHOWN: u32 = 50;
/// Fills the charts and today's P&L read, newest first: an account with more shows its
/// recent history only (and today's P&L counts only these of today's).
const FILLS_READ: u32 = 20_000;
/// Fills a price chart marks, the newest.
const MARKS_SHOWN: usize = 200;
/// Points of the value chart.
const VALUE_POINTS: i64 = 120;

fn money(d: Decimal) -> String {
    format!("{:.2}", d.round_dp(2))
}

fn csrf_field(csrf: &str) -> Markup {
    html! { input type="hidden" name="csrf" value=(csrf); }
}

fn f64_of(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

/// An account valued now: the balance call's figures and today's change.
struct Valued {
    holdings: crate::trading::assets::Holdings,
    totals: valuation::Totals,
    book: Book,
    /// The change of the value since the simulated day's start.
    today: Decimal,
}

/// Values an account; `fills` are its fills (oldest first) since the start of the simulated
/// day at least, or `None` to read them.
async fn valued(state: &AppState, account: &AccountRecord, fills: Option<&[PastFill]>) -> Result<Valued, ConsoleError> {
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
    // account held then at the previous close.
    let now = state.market.now_ms();
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
    let at_start = book
        .before(&today_fills)
        .value(|id| state.market.quote_of(id, now).map(|q| q.pre_close));
    let today = totals.net_liquidation - at_start;
    Ok(Valued {
        holdings,
        totals,
        book,
        today,
    })
}

/// `/console/`: apps and their accounts, and the interface's traffic.
pub async fn overview(State(state): State<AppState>, session: Session) -> Result<Markup, ConsoleError> {
    let apps = state.store.apps().await?;
    let accounts = state.store.accounts(None).await?;
    let mut rows = Vec::with_capacity(accounts.len());
    for account in &accounts {
        rows.push((account, valued(&state, account, None).await?));
    }
    let name_of: HashMap<&str, &str> = apps.iter().map(|a| (a.app_key.as_str(), a.name.as_str())).collect();
    let body = html! {
        section #accounts data-live aria-labelledby="accounts-title" {
            h2 #accounts-title { "Accounts" }
            table {
                thead { tr {
                    th scope="col" { "App" } th scope="col" { "Account" } th scope="col" { "Type" }
                    th.num scope="col" { "Cash" } th.num scope="col" { "Total value" }
                    th.num scope="col" { "Buying power" } th.num scope="col" { "Today's P&L" }
                } }
                tbody {
                    @for (account, v) in &rows {
                        tr {
                            td { (name_of.get(account.app_key.as_str()).copied().unwrap_or("?")) }
                            td { a href=(format!("/console/accounts/{}", account.account_id)) { (account.account_id) } }
                            td { (account.account_type.as_str()) }
                            td.num { (money(v.totals.cash)) }
                            td.num { (money(v.totals.net_liquidation)) }
                            td.num { (money(v.holdings.buying_power)) }
                            td.num.pl { (money(v.today)) }
                        }
                    }
                }
            }
        }
        (traffic(&state))
    };
    Ok(page("Overview", Tab::Overview, Some(&session.csrf()), body))
}

/// Requests per second over the last ten minutes, and the refusals of the last five by code.
fn traffic(state: &AppState) -> Markup {
    let Some(console) = &state.console else { return html! {} };
    let now_s = signet_domain::simulator::clock::wall_clock_ms().div_euclid(1000);
    let seconds = console.requests.seconds(now_s - 600);
    let counts: HashMap<i64, u64> = seconds.iter().map(|s| (s.second, s.requests)).collect();
    #[expect(clippy::cast_precision_loss, reason = "requests in a second")]
    let points: Vec<(i64, f64)> = (now_s - 600..now_s)
        .map(|s| (s * 1000, counts.get(&s).copied().unwrap_or(0) as f64))
        .collect();
    let last_minute: u64 = seconds
        .iter()
        .filter(|s| s.second >= now_s - 60)
        .map(|s| s.requests)
        .sum();
    let mut refusals: HashMap<&str, u64> = HashMap::new();
    for s in seconds.iter().filter(|s| s.second >= now_s - 300) {
        for (code, n) in &s.refusals {
            *refusals.entry(code).or_default() += n;
        }
    }
    let mut refusals: Vec<_> = refusals.into_iter().collect();
    refusals.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    html! {
        section #traffic data-live aria-labelledby="traffic-title" {
            h2 #traffic-title { "Traffic" }
            p { (format!("{:.1}", f64::from(u32::try_from(last_minute).unwrap_or(u32::MAX)) / 60.0)) " requests a second over the last minute." }
            (charts::line("Requests a second, last ten minutes", &points, &[], ""))
            h3 { "Refusals in the last five minutes" }
            @if refusals.is_empty() {
                p { "None." }
            } @else {
                table {
                    thead { tr { th scope="col" { "error_code" } th.num scope="col" { "Requests" } } }
                    tbody { @for (code, n) in &refusals {
                        tr { td { a href=(format!("/console/requests?code={code}")) { (code) } } td.num { (n) } }
                    } }
                }
            }
        }
    }
}

#[derive(Deserialize)]
pub struct OrderFilter {
    status: Option<String>,
    symbol: Option<String>,
}

fn given(s: Option<&str>) -> Option<String> {
    s.map(str::trim).filter(|s| !s.is_empty()).map(str::to_ascii_uppercase)
}

/// `/console/accounts/{id}`: positions, value over time, and orders with their events.
pub async fn account(
    State(state): State<AppState>,
    session: Session,
    Path(account_id): Path<String>,
    Query(filter): Query<OrderFilter>,
) -> Result<Markup, ConsoleError> {
    let account = state.store.account(&account_id).await?.ok_or(ConsoleError::NotFound)?;
    let fills = state
        .store
        .account_fills(&account.account_id, None, None, FILLS_READ)
        .await?;
    let v = valued(&state, &account, Some(&fills)).await?;
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
    let ids: Vec<String> = orders.iter().map(|o| o.order_id.clone()).collect();
    let mut timelines: HashMap<String, Vec<TimelineEvent>> = HashMap::new();
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
        section #value data-live aria-labelledby="value-title" {
            h2 #value-title { "Value over time" }
            (charts::line("Account value", &value_history(&state, &v.book, &fills), &[], " USD"))
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

fn order_list(orders: &[Order], timelines: &HashMap<String, Vec<TimelineEvent>>) -> Markup {
    html! {
        @if orders.is_empty() { p { "No orders." } }
        ol.orders {
            @for o in orders {
                li {
                    details id=(format!("order-{}", o.order_id)) {
                        summary {
                            span.time { (format_ms(o.place_time)) } " "
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
fn value_history(state: &AppState, now_held: &Book, fills: &[PastFill]) -> Vec<(i64, f64)> {
    let now = state.market.now_ms();
    let start = fills.first().map_or(now - 3_600_000, |f| f.time_ms.min(now - 60_000));
    let times: Vec<i64> = (0..=VALUE_POINTS)
        .map(|i| start + (now - start) * i / VALUE_POINTS)
        .collect();
    let price = |id, t| state.market.quote_of(id, t).map(|q| q.last);
    valuation::history(now_held, fills, &times, price)
        .into_iter()
        .map(|(t, v)| (t, f64_of(v)))
        .collect()
}

#[derive(Deserialize)]
pub struct MarketParams {
    symbol: Option<String>,
    account: Option<String>,
}

/// `/console/market`: the clock, an instrument's quote and charts with an account's fills, and
/// the simulator's controls.
pub async fn market(
    State(state): State<AppState>,
    session: Session,
    Query(params): Query<MarketParams>,
) -> Result<Markup, ConsoleError> {
    let csrf = session.csrf();
    let clock = crate::market::clock_view(&state);
    let symbol = given(params.symbol.as_deref()).unwrap_or_else(|| "AAPL".to_owned());
    let accounts = state.store.accounts(None).await?;
    let account = params
        .account
        .as_deref()
        .and_then(|id| accounts.iter().find(|a| a.account_id == id))
        .or(accounts.first());
    let instrument = state.market.instrument_id(&symbol);
    let body = html! {
        section #clock data-live aria-labelledby="clock-title" {
            h2 #clock-title { "Clock" }
            dl.figures {
                div { dt { "Simulated time" } dd { (clock.time) } }
                div { dt { "Session" } dd { (clock.session) } }
                div { dt { "Mode" } dd { (clock.mode) } }
            }
            form method="post" action="/console/market/step" {
                (csrf_field(&csrf))
                input type="hidden" name="symbol" value=(symbol);
                label for="seconds" { "Step the clock by (seconds)" }
                input #seconds name="seconds" type="number" min="1" value="60" required;
                button type="submit" { "Step" }
            }
        }
        section aria-labelledby="instrument-title" {
            h2 #instrument-title { "Instrument" }
            form.filters method="get" {
                label for="find" { "Symbol" }
                input #find name="symbol" value=(symbol) size="8";
                label for="account" { "Fills of account" }
                select #account name="account" {
                    @for a in &accounts {
                        option value=(a.account_id) selected[account.is_some_and(|x| x.account_id == a.account_id)] { (a.account_id) " (" (a.account_type.as_str()) ")" }
                    }
                }
                button type="submit" { "Show" }
            }
            @match instrument {
                None => (search(&state, &symbol, account).await?),
                Some(id) => {
                    (quote_section(&state, &symbol, id, account, &csrf).await?)
                }
            }
        }
    };
    Ok(page("Market", Tab::Market, Some(&csrf), body))
}

/// Instruments whose symbol starts with `text` or whose name holds it (20 at most), when it is
/// no symbol.
async fn search(state: &AppState, text: &str, account: Option<&AccountRecord>) -> Result<Markup, ConsoleError> {
    let wanted = text.to_ascii_lowercase();
    let found: Vec<_> = state
        .store
        .instruments()
        .await?
        .into_iter()
        .filter(|i| {
            state.market.instrument_id(&i.symbol).is_some()
                && (i.symbol.to_ascii_lowercase().starts_with(&wanted) || i.name.to_ascii_lowercase().contains(&wanted))
        })
        .take(20)
        .collect();
    let account = account.map_or(String::new(), |a| format!("&account={}", a.account_id));
    Ok(html! {
        @if found.is_empty() {
            p.error role="alert" { "No instrument's symbol or name matches " (text) "." }
        } @else {
            p role="status" { (text) " is no symbol; these match it:" }
            ul.found { @for i in &found {
                li { a href=(format!("/console/market?symbol={}{account}", i.symbol)) { (i.symbol) } " " (i.name) }
            } }
        }
    })
}

async fn quote_section(
    state: &AppState,
    symbol: &str,
    instrument_id: i64,
    account: Option<&AccountRecord>,
    csrf: &str,
) -> Result<Markup, ConsoleError> {
    let quote = crate::market::to_wire(&state.market, &state.market.quote(symbol)?);
    let fills = match account {
        Some(a) => {
            state
                .store
                .account_fills(&a.account_id, None, Some(instrument_id), FILLS_READ)
                .await?
        }
        None => Vec::new(),
    };
    let mark = |f: &PastFill| Mark {
        time_ms: f.time_ms,
        price: f64_of(f.price),
        buy: f.side == signet_model::orders::Side::Buy,
    };
    let now = state.market.now_ms();
    let today = NewYork::of(now).day;
    // The day's one-minute closes, then the quote now (a pinned price among them).
    let mut intraday: Vec<(i64, f64)> = match state.market.plan_today(instrument_id) {
        Some(plan) => state
            .market
            .candles(instrument_id, &plan, 60, NewYork::of(now).second + 1)
            .iter()
            .map(|c| (utc_ms_of(c.day, c.start), cents(c.close)))
            .collect(),
        None => Vec::new(),
    };
    if !intraday.is_empty() {
        intraday.push((now, quote.last.parse().unwrap_or_default()));
    }
    let newest = |fills: &mut dyn Iterator<Item = &PastFill>| -> Vec<Mark> {
        let marks: Vec<Mark> = fills.map(mark).collect();
        let skip = marks.len().saturating_sub(MARKS_SHOWN);
        marks.into_iter().skip(skip).collect()
    };
    let intraday_marks = newest(&mut fills.iter().filter(|f| NewYork::of(f.time_ms).day == today));
    let daily: Vec<(i64, f64)> = state
        .store
        .daily_bars(instrument_id, today - 365, today)
        .await?
        .iter()
        .map(|b| (utc_ms_of(b.day, 16 * 3600), micros(b.close)))
        .collect();
    let daily_marks = newest(&mut fills.iter());
    Ok(html! {
        div #quote data-live {
            dl.figures {
                div { dt { "Last" } dd #last-price { (quote.last) } }
                div { dt { "Bid" } dd { (quote.bid) " × " (quote.bid_size) } }
                div { dt { "Ask" } dd { (quote.ask) " × " (quote.ask_size) } }
                div { dt { "Open" } dd { (quote.open) } }
                div { dt { "High" } dd { (quote.high) } }
                div { dt { "Low" } dd { (quote.low) } }
                div { dt { "Previous close" } dd { (quote.pre_close) } }
                div { dt { "Pinned" } dd #pinned { @if quote.pinned { "yes" } @else { "no" } } }
            }
            h3 { "Today (simulated day), one-minute closes" }
            (charts::line(&format!("{symbol} today"), &intraday, &intraday_marks, ""))
            h3 { "Daily closes, last year" }
            (charts::line(&format!("{symbol} daily"), &daily, &daily_marks, ""))
        }
        form method="post" action="/console/market/set" {
            (csrf_field(csrf))
            input type="hidden" name="symbol" value=(symbol);
            label for="price" { "Pin the price of " (symbol) " at" }
            input #price name="price" inputmode="decimal" required;
            button type="submit" { "Pin" }
        }
        form method="post" action="/console/market/set" {
            (csrf_field(csrf))
            input type="hidden" name="symbol" value=(symbol);
            input type="hidden" name="release" value="true";
            button type="submit" { "Release " (symbol) }
        }
    })
}

#[expect(clippy::cast_precision_loss, reason = "prices drawn to the pixel")]
fn cents(c: i64) -> f64 {
    c as f64 / 100.0
}

#[expect(clippy::cast_precision_loss, reason = "prices drawn to the pixel")]
fn micros(m: i64) -> f64 {
    m as f64 / 1_000_000.0
}

#[derive(Deserialize)]
pub struct SetForm {
    csrf: Option<String>,
    symbol: String,
    price: Option<String>,
    release: Option<String>,
}

/// Pins or releases a price, as `signet market set` does.
pub async fn market_set(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<SetForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let symbol = form.symbol.trim().to_ascii_uppercase();
    if form.release.is_some() {
        state.market.release(&symbol)?;
        tracing::info!(target: "console", session = %session.who, %symbol, "console: released a price");
    } else {
        let price: Decimal = form
            .price
            .as_deref()
            .map(str::trim)
            .and_then(|p| p.parse().ok())
            .ok_or_else(|| ConsoleError::Invalid("the price is a decimal number, e.g. 187.25".into()))?;
        state.market.pin(&symbol, price, None, None, None)?;
        tracing::info!(target: "console", session = %session.who, %symbol, %price, "console: pinned a price");
    }
    state.engine.announce(state.market.now_ms());
    Ok(Redirect::to(&format!("/console/market?symbol={symbol}")).into_response())
}

#[derive(Deserialize)]
pub struct StepForm {
    csrf: Option<String>,
    symbol: Option<String>,
    seconds: u64,
}

/// Steps the simulated clock, as `signet market step` does.
pub async fn market_step(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<StepForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    if !(1..=7 * 24 * 3600).contains(&form.seconds) {
        return Err(ConsoleError::Invalid("a step is 1 second to a week".into()));
    }
    state.engine.step(Duration::from_secs(form.seconds)).await?;
    tracing::info!(target: "console", session = %session.who, seconds = form.seconds, "console: stepped the clock");
    let symbol = given(form.symbol.as_deref()).unwrap_or_default();
    Ok(Redirect::to(&format!("/console/market?symbol={symbol}")).into_response())
}

#[derive(Deserialize)]
pub struct RequestFilter {
    code: Option<String>,
    app: Option<String>,
}

/// `/console/requests`: the last requests, newest first.
pub async fn requests(
    State(state): State<AppState>,
    session: Session,
    Query(filter): Query<RequestFilter>,
) -> Result<Markup, ConsoleError> {
    let console = state.console.as_ref().ok_or(ConsoleError::NotFound)?;
    let code = filter.code.as_deref().map(str::trim).filter(|c| !c.is_empty());
    let app = filter.app.as_deref().map(str::trim).filter(|a| !a.is_empty());
    let entries = console.requests.entries(500, |e| {
        code.is_none_or(|c| e.error_code == Some(c)) && app.is_none_or(|a| e.app_key.as_deref() == Some(a))
    });
    let body = html! {
        form.filters method="get" {
            label for="code" { "error_code" }
            input #code name="code" value=(code.unwrap_or("")) size="20";
            label for="app" { "App key" }
            input #app name="app" value=(app.unwrap_or("")) size="34";
            button type="submit" { "Filter" }
        }
        p { "The last " (super::requests::KEPT) " requests to the interface are kept in memory; 500 at most are shown." }
        div #requests data-live { (request_table(&entries)) }
    };
    Ok(page("Requests", Tab::Requests, Some(&session.csrf()), body))
}

fn request_table(entries: &[Entry]) -> Markup {
    html! {
        table {
            thead { tr {
                th scope="col" { "Time" } th scope="col" { "App" } th scope="col" { "Request" }
                th.num scope="col" { "Status" } th scope="col" { "error_code" } th.num scope="col" { "ms" }
            } }
            tbody { @for e in entries {
                tr {
                    td { (format_ms(e.time_ms)) }
                    td { code { (e.app_key.as_deref().unwrap_or("")) } }
                    td { (e.method) " " (e.target) }
                    td.num { (e.status) }
                    td {
                        @if e.signature.is_some() {
                            a href=(format!("/console/requests/{}", e.id)) { (e.error_code.unwrap_or("")) " (explain)" }
                        } @else { (e.error_code.unwrap_or("")) }
                    }
                    td.num { (format!("{:.1}", f64::from(u32::try_from(e.latency_us).unwrap_or(u32::MAX)) / 1000.0)) }
                }
            } }
        }
    }
}

/// `/console/requests/{id}`: what the server computed for a refused signature, beside what it
/// received: the explanation `signet sign` gives, without the secret.
pub async fn request(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<u64>,
) -> Result<Markup, ConsoleError> {
    let console = state.console.as_ref().ok_or(ConsoleError::NotFound)?;
    let entry = console.requests.entry(id).ok_or(ConsoleError::NotFound)?;
    let body = html! {
        p { (entry.method) " " (entry.target) " at " (format_ms(entry.time_ms)) ": " (entry.status) " " (entry.error_code.unwrap_or("")) }
        @if let Some(signature) = &entry.signature {
            h2 { "Headers received" }
            table {
                thead { tr { th scope="col" { "Header" } th scope="col" { "Value" } } }
                tbody { @for (name, value) in &signature.received { tr { td { code { (name) } } td { code.wrap { (value) } } } } }
            }
            h2 { "What the server signed" }
            p { "The server tried these host values. Compare each step with your client's (or with " code { "signet sign" } "): the string to sign (str3), then its percent-encoding, which is what the HMAC signs with the secret followed by " code { "&" } "." }
            @for (i, d) in signature.computed.iter().enumerate() {
                section aria-label=(format!("Host value {}", i + 1)) {
                    h3 { "Host " code { (d.host) } }
                    h4 { "String to sign (str3)" }
                    pre { (d.str3) }
                    h4 { "Encoded" }
                    pre { (d.encoded) }
                }
            }
        } @else {
            p { "Only a refused signature is explained." }
        }
    };
    Ok(page("Request", Tab::Requests, Some(&session.csrf()), body))
}

/// `/console/apps`: apps, their accounts and tokens, and the forms that change them.
pub async fn apps(State(state): State<AppState>, session: Session) -> Result<Markup, ConsoleError> {
    let csrf = session.csrf();
    let apps = state.store.apps().await?;
    let accounts = state.store.accounts(None).await?;
    let tokens = state.store.tokens(None).await?;
    let now = signet_domain::simulator::clock::wall_clock_ms();
    let body = html! {
        section aria-labelledby="apps-title" {
            h2 #apps-title { "Apps" }
            table {
                thead { tr {
                    th scope="col" { "Name" } th scope="col" { "App key" } th scope="col" { "Status" }
                    th scope="col" { "Admin" } th scope="col" { "Accounts" } th scope="col" { "Actions" }
                } }
                tbody { @for app in &apps {
                    tr {
                        td { (app.name) }
                        td { code { (app.app_key) } }
                        td { (app.status.as_str()) }
                        td { @if app.admin { "yes" } @else { "no" } }
                        td { @for a in accounts.iter().filter(|a| a.app_key == app.app_key) {
                            a href=(format!("/console/accounts/{}", a.account_id)) { (a.account_id) } " "
                        } }
                        td {
                            form.inline method="post" action="/console/apps/revoke" {
                                (csrf_field(&csrf))
                                input type="hidden" name="app_key" value=(app.app_key);
                                button type="submit" aria-label=(format!("Revoke {}", app.name)) { "Revoke" }
                            }
                            form.inline method="post" action="/console/apps/approve" {
                                (csrf_field(&csrf))
                                input type="hidden" name="app_key" value=(app.app_key);
                                button type="submit" aria-label=(format!("Approve pending tokens of {}", app.name)) { "Approve pending tokens" }
                            }
                        }
                    }
                } }
            }
        }
        section aria-labelledby="create-title" {
            h2 #create-title { "Create an app" }
            form method="post" action="/console/apps/create" {
                (csrf_field(&csrf))
                label for="name" { "Name" }
                input #name name="name" required maxlength="64";
                label for="cash" { "Starting cash of each account" }
                input #cash name="cash" inputmode="decimal" value="100000";
                label for="admin" { "May drive the market" }
                input #admin name="admin" type="checkbox" value="true";
                button type="submit" { "Create" }
            }
        }
        section aria-labelledby="account-title" {
            h2 #account-title { "Add an account" }
            form method="post" action="/console/apps/account" {
                (csrf_field(&csrf))
                label for="account-app" { "App" }
                select #account-app name="app_key" { @for app in &apps { option value=(app.app_key) { (app.name) } } }
                label for="account-type" { "Type" }
                select #account-type name="account_type" { option value="CASH" { "CASH" } option value="MARGIN" { "MARGIN" } }
                label for="account-cash" { "Starting cash" }
                input #account-cash name="cash" inputmode="decimal" value="100000";
                button type="submit" { "Add" }
            }
        }
        section aria-labelledby="tokens-title" {
            h2 #tokens-title { "Tokens" }
            @if tokens.is_empty() { p { "No tokens." } } @else {
                table {
                    thead { tr { th scope="col" { "Token" } th scope="col" { "App key" } th scope="col" { "Status" } th scope="col" { "Expires" } } }
                    tbody { @for t in &tokens {
                        tr { td { code { (t.token_hint) "…" } } td { code { (t.app_key) } } td { (t.status_at(now).as_str()) } td { (format_ms(t.expires_at)) } }
                    } }
                }
            }
        }
    };
    Ok(page("Apps and tokens", Tab::Apps, Some(&csrf), body))
}

fn admin(state: &AppState) -> Admin {
    Admin::new(state.store.clone(), state.key.clone())
}

fn cash(value: Option<&str>) -> Result<Decimal, ConsoleError> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map_or(Ok(Decimal::from(100_000)), |v| {
            v.parse()
                .map_err(|_| ConsoleError::Invalid(format!("starting cash {v:?} is not a decimal number")))
        })
}

#[derive(Deserialize)]
pub struct CreateForm {
    csrf: Option<String>,
    name: String,
    cash: Option<String>,
    admin: Option<String>,
}

/// Creates an app and shows its secret, once.
pub async fn create_app(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<CreateForm>,
) -> Result<Markup, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let credentials = admin(&state)
        .create_app_with_role(form.name.trim(), cash(form.cash.as_deref())?, form.admin.is_some())
        .await?;
    tracing::info!(target: "console", session = %session.who, app_key = %credentials.app_key, "console: created an app");
    let body = html! {
        p role="status" { "The app is created. Its secret is shown this once: keep it now." }
        dl.figures {
            div { dt { "App key" } dd { code #new-app-key { (credentials.app_key) } } }
            div { dt { "App secret" } dd { code #new-app-secret { (secrecy::ExposeSecret::expose_secret(&credentials.app_secret)) } } }
            div { dt { "Accounts" } dd { (credentials.account_ids.join(", ")) } }
        }
        p { a href="/console/apps" { "Back to the apps" } }
    };
    Ok(page("App created", Tab::Apps, Some(&session.csrf()), body))
}

#[derive(Deserialize)]
pub struct AppForm {
    csrf: Option<String>,
    app_key: String,
    account_type: Option<String>,
    cash: Option<String>,
}

/// Revokes an app.
pub async fn revoke_app(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<AppForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    admin(&state).revoke_app(&form.app_key).await?;
    tracing::info!(target: "console", session = %session.who, app_key = %form.app_key, "console: revoked an app");
    Ok(Redirect::to("/console/apps").into_response())
}

/// Approves an app's pending tokens.
pub async fn approve_tokens(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<AppForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let approved = admin(&state).approve_tokens(TokenSelector::App(&form.app_key)).await?;
    tracing::info!(target: "console", session = %session.who, app_key = %form.app_key, approved, "console: approved tokens");
    Ok(Redirect::to("/console/apps").into_response())
}

/// Adds a paper account to an app.
pub async fn add_account(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<AppForm>,
) -> Result<Response, ConsoleError> {
    session.verify(form.csrf.as_deref())?;
    let account_type = match form.account_type.as_deref() {
        Some("MARGIN") => AccountType::Margin,
        _ => AccountType::Cash,
    };
    let account = admin(&state)
        .create_account(&form.app_key, account_type, cash(form.cash.as_deref())?, None)
        .await?;
    tracing::info!(target: "console", session = %session.who, app_key = %form.app_key, account_id = %account.account_id, "console: added an account");
    Ok(Redirect::to("/console/apps").into_response())
}
