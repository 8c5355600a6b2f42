//! `/console/options`: an underlying's option chain as a bot reads it: its expiries listed today,
//! and one expiry's strikes with each call's and put's market, those in the money marked.

use axum::extract::{Query, State};
use maud::{Markup, html};
use serde::Deserialize;
use signet_core::options::OptionQuote;
use signet_domain::marketdata::units::{format_day, parse_day};
use signet_domain::options::chain;
use signet_domain::options::market::in_the_money;

use crate::console::access::Session;
use crate::console::layout::{ConsoleError, Tab, page};
use crate::error::ApiError;
use crate::marketdata::options::money;
use crate::state::AppState;

#[derive(Debug, Default, Deserialize)]
pub struct ChainQuery {
    underlying: Option<String>,
    expiry: Option<String>,
}

/// Contracts the page prices at most (one expiry's strikes, calls and puts).
const MAX_PRICED: usize = 400;

pub async fn options(
    State(state): State<AppState>,
    session: Session,
    Query(query): Query<ChainQuery>,
) -> Result<Markup, ConsoleError> {
    let csrf = session.csrf();
    let underlying = query
        .underlying
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or("AAPL")
        .to_ascii_uppercase();
    let u = state.options.underlying(&underlying).await.map_err(ApiError::from)?;
    let expiries = chain::expiries(state.options.today());
    let expiry = match query.expiry.as_deref().filter(|e| !e.is_empty()) {
        Some(e) => parse_day(e)
            .filter(|d| expiries.contains(d))
            .ok_or_else(|| ApiError::illegal_parameter(format!("{e} is not an expiry listed today")))?,
        None => expiries
            .iter()
            .copied()
            .find(|&d| chain::cycle(d) == "MONTHLY")
            .unwrap_or(expiries[0]),
    };
    let mut quotes: Vec<OptionQuote> = Vec::new();
    for (_, contract) in state
        .options
        .chain(&u)
        .into_iter()
        .filter(|(_, c)| c.expiry == expiry)
        .take(MAX_PRICED)
    {
        quotes.push(
            state
                .options
                .quote(&contract.occ_symbol())
                .await
                .map_err(ApiError::from)?,
        );
    }
    let spot = quotes.first().map(|q| q.spot);
    let body = html! {
        section aria-labelledby="options-title" {
            h2 #options-title { "Options of " (u.symbol) }
            p {
                "Listed today: " (expiries.len()) " expiries. Priced at the underlying's last price"
                @if let Some(spot) = spot { " (" (spot) ")" }
                ", a realized volatility of " (format!("{:.1}", u.vol * 100.0)) " % and a dividend yield of "
                (format!("{:.2}", u.dividend_yield * 100.0)) " %. Rows marked ITM are in the money."
            }
            form method="get" action="/console/options" {
                label for="underlying" { "Underlying" }
                input #underlying type="text" name="underlying" value=(u.symbol) maxlength="10" required;
                label for="expiry" { "Expiry" }
                select #expiry name="expiry" {
                    @for day in &expiries {
                        option value=(format_day(*day)) selected[*day == expiry] {
                            (format_day(*day)) " (" (chain::cycle(*day).to_ascii_lowercase()) ")"
                        }
                    }
                }
                button type="submit" { "Show" }
            }
            table {
                caption { "Expiry " (format_day(expiry)) }
                thead { tr {
                    th scope="col" { "Call" } th.num scope="col" { "Bid" } th.num scope="col" { "Ask" }
                    th.num scope="col" { "Last" } th.num scope="col" { "Delta" }
                    th.num scope="col" { "Strike" }
                    th.num scope="col" { "Bid" } th.num scope="col" { "Ask" } th.num scope="col" { "Last" }
                    th.num scope="col" { "Delta" } th scope="col" { "Put" } th.num scope="col" { "IV" }
                } }
                tbody {
                    @for pair in quotes.chunks(2) {
                        @if let [call, put] = pair {
                            tr {
                                td { @if in_the_money(&call.contract, call.spot) { "ITM" } }
                                td.num { (money(call.mark.bid)) } td.num { (money(call.mark.ask)) }
                                td.num { (last(call)) } td.num { (format!("{:.3}", call.mark.valuation.delta)) }
                                th.num scope="row" { (call.contract.strike) }
                                td.num { (money(put.mark.bid)) } td.num { (money(put.mark.ask)) }
                                td.num { (last(put)) } td.num { (format!("{:.3}", put.mark.valuation.delta)) }
                                td { @if in_the_money(&put.contract, put.spot) { "ITM" } }
                                td.num { (format!("{:.1} %", call.mark.vol * 100.0)) }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(page("Options", Tab::Options, Some(&csrf), body))
}

/// The last trade's price today, or its previous close.
fn last(q: &OptionQuote) -> String {
    money(q.prints.last().map_or(q.pre_close, |p| p.price))
}
