//! The overview: every app's accounts, and the interface's traffic.

use std::collections::HashMap;

use axum::extract::State;
use maud::{Markup, html};

use super::{money, valued};
use crate::console::access::Session;
use crate::console::charts;
use crate::console::layout::{ConsoleError, Tab, page};
use crate::state::AppState;

/// `/console/`: apps and their accounts, and the interface's traffic.
pub async fn overview(State(state): State<AppState>, session: Session) -> Result<Markup, ConsoleError> {
    let apps = state.store.apps().await?;
    let accounts = state.store.accounts(None).await?;
    let mut rows = Vec::with_capacity(accounts.len());
    for account in &accounts {
        rows.push((account, valued(&state, account, None, None).await?));
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
