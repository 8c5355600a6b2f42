//! The last requests to the interface, marked where a scenario rule touched the answer, and a
//! refused signature's explanation.

use axum::extract::{Path, Query, State};
use maud::{Markup, html};
use serde::Deserialize;
use signet_domain::times::format_ms;

use crate::console::access::Session;
use crate::console::layout::{ConsoleError, Tab, page};
use crate::console::requests::{EXPLAINED, Entry, KEPT};
use crate::state::AppState;

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
    let held = console.requests.kept_bytes();
    let entries = console.requests.entries(500, |e| {
        code.is_none_or(|c| e.error_code == Some(c)) && app.is_none_or(|a| e.app_key() == Some(a))
    });
    let body = html! {
        form.filters method="get" {
            label for="code" { "error_code" }
            input #code name="code" value=(code.unwrap_or("")) size="20";
            label for="app" { "App key" }
            input #app name="app" value=(app.unwrap_or("")) size="34";
            button type="submit" { "Filter" }
        }
        p { "The last " (KEPT) " requests to the interface are kept in memory (now " (held.0) ", in " (held.1 / 1024) " KiB), with the explanation of the last " (EXPLAINED) " refused signatures; 500 at most are shown." }
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
                    td { code { (e.app_key().unwrap_or("")) } }
                    td { (e.method) " " (e.target()) (scenario_badges(e)) }
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

/// The scenario rules that touched a request's answer: it was not the normal path's.
fn scenario_badges(entry: &Entry) -> Markup {
    html! { @for name in entry.scenarios() { " " span.badge { "scenario: " (name) } } }
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
        p { (entry.method) " " (entry.target()) " at " (format_ms(entry.time_ms)) ": " (entry.status) " " (entry.error_code.unwrap_or("")) (scenario_badges(&entry)) }
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
                    @if d.str3.len() < d.str3_len {
                        p { "Its first " (d.str3.len()) " bytes of " (d.str3_len) ", and their encoding, are kept." }
                    }
                    pre { (d.str3) }
                    h4 { "Encoded" }
                    pre { (d.encoded()) }
                }
            }
        } @else {
            p { "Only a refused signature is explained, while it is among the last " (EXPLAINED) "." }
        }
    };
    Ok(page("Request", Tab::Requests, Some(&session.csrf()), body))
}
