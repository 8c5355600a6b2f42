//! The market: the simulated clock, an instrument's quote and charts, and the simulator's controls.

use std::time::Duration;

use axum::Form;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::simulator::clock::{NewYork, core_close, utc_ms_of};
use signet_domain::trading::valuation::PastFill;
use signet_store::AccountRecord;

use super::{FILLS_READ, csrf_field, f64_of, given};
use crate::console::access::Session;
use crate::console::charts::{self, Mark};
use crate::console::layout::{ConsoleError, Tab, page};
use crate::state::AppState;

/// Fills a price chart marks, the newest.
const MARKS_SHOWN: usize = 200;

#[derive(Deserialize)]
pub struct MarketParams {
    symbol: Option<String>,
    account: Option<String>,
    /// The day whose figures are shown, `yyyy-MM-dd` (today by default).
    date: Option<String>,
}

/// `/console/market`: the clock, an instrument's quote and charts with an account's fills, and
/// the simulator's controls.
pub async fn market(
    State(state): State<AppState>,
    session: Session,
    Query(params): Query<MarketParams>,
) -> Result<Markup, ConsoleError> {
    let csrf = session.csrf();
    let clock = crate::admin_api::market::clock_view(&state);
    let symbol = given(params.symbol.as_deref()).unwrap_or_else(|| "AAPL".to_owned());
    let accounts = state.store.accounts(None).await?;
    let account = params
        .account
        .as_deref()
        .and_then(|id| accounts.iter().find(|a| a.account_id == id))
        .or(accounts.first());
    let instrument = state.simulator.instrument_id(&symbol);
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
        @if instrument.is_some() {
            (stats_section(&state, &symbol, given(params.date.as_deref())).await)
        }
    };
    Ok(page("Market", Tab::Market, Some(&csrf), body))
}

/// How the market behaved for `symbol` on a day, beside what real minute data shows
/// (`/admin/market/stats`); a day without minutes says so.
async fn stats_section(state: &AppState, symbol: &str, date: Option<String>) -> Markup {
    let stats = crate::admin_api::market::day_stats(state, symbol, date.as_deref()).await;
    let number = |x: f64| {
        if x.fract() == 0.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.2}")
        }
    };
    html! {
        section #stats aria-labelledby="stats-title" {
            h2 #stats-title { "How the market behaved" }
            form.filters method="get" {
                input type="hidden" name="symbol" value=(symbol);
                label for="date" { "Day" }
                input #date name="date" type="date" value=[date.as_deref()];
                button type="submit" { "Show" }
            }
            @match stats {
                Err(e) => p.error role="alert" { (e.message) },
                Ok(stats) => {
                    p { (stats.symbol) " on " (stats.date) ", " (stats.minutes) " one-minute bars." }
                    table {
                        thead { tr {
                            th scope="col" { "Figure" } th.num scope="col" { "signet" }
                            th.num scope="col" { "Real market" } th scope="col" { "Within" }
                        } }
                        tbody { @for f in &stats.figures {
                            tr {
                                td { (f.name) }
                                td.num { (f.value.map_or_else(|| "-".to_owned(), number)) }
                                td.num { (number(f.real_low)) " to " (number(f.real_high)) }
                                td { @if f.value.is_none() { "-" } @else if f.within { "yes" } @else { "no" } }
                            }
                        } }
                    }
                }
            }
        }
    }
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
            state.simulator.instrument_id(&i.symbol).is_some()
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
    let now_quote = state.simulator.quote(symbol)?;
    let quote = crate::admin_api::market::to_wire(&state.simulator, &now_quote);
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
    let now = state.simulator.now_ms();
    let today = NewYork::of(now).day;
    // The day's one-minute closes, then the quote now (a pinned price among them).
    let mut intraday: Vec<(i64, f64)> = match state.simulator.plan_today(instrument_id) {
        Some(plan) => state
            .simulator
            .candles(instrument_id, &plan, 60, NewYork::of(now).second + 1)
            .await?
            .iter()
            .map(|c| (utc_ms_of(c.day, c.start), cents(c.close)))
            .collect(),
        None => Vec::new(),
    };
    if !intraday.is_empty() {
        intraday.push((now, f64_of(now_quote.last)));
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
        .map(|b| (utc_ms_of(b.day, core_close(b.day)), micros(b.close)))
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
        state.simulator.release(&symbol)?;
        tracing::info!(target: "console", session = %session.who, %symbol, "console: released a price");
    } else {
        let price: Decimal = form
            .price
            .as_deref()
            .map(str::trim)
            .and_then(|p| p.parse().ok())
            .ok_or_else(|| ConsoleError::Invalid("the price is a decimal number, e.g. 187.25".into()))?;
        state.simulator.pin(&symbol, price, None, None, None)?;
        tracing::info!(target: "console", session = %session.who, %symbol, %price, "console: pinned a price");
    }
    state.engine.announce(state.simulator.now_ms());
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
