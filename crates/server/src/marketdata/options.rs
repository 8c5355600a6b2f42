//! US equity options over HTTP: the contracts listed today (`/trading/instruments/options/
//! contracts/list`, and the client's deprecated `/openapi/instrument/option/contracts`), and each
//! contract's snapshot, ticks and bars, all from `signet_core::options`, so that a snapshot's
//! bid and ask are what an order would meet.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use rust_decimal::Decimal;
use serde::Deserialize;
use signet_core::options::{OptionBar as CoreBar, OptionQuote, Options};
use signet_domain::marketdata::Bar;
use signet_domain::marketdata::bars::{Timespan, roll_up};
use signet_domain::marketdata::units::{format_day, parse_day};
use signet_domain::options::market::Underlying;
use signet_domain::options::{Contract, MULTIPLIER, Right, chain};
use signet_domain::simulator::clock::{NewYork, utc_ms_of};
use signet_domain::times::format_ms_utc_offset;
use signet_model::options::{
    Deliverable, OptionBar, OptionBars, OptionContract, OptionContractPage, OptionSnapshot, OptionSymbolBars,
    OptionTick, OptionTicks,
};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::rendered_chains::{MAX_RENDERED, RenderedChain, RenderedChains};
use super::stocks::data::{Range, trading_days};
use crate::error::ApiError;
use crate::extract::{Caller, QueryParams, given};
use crate::openapi::InstrumentNotFound;
use crate::pagination;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(contracts))
        .routes(routes!(earlier_contracts))
        .routes(routes!(snapshots))
        .routes(routes!(ticks))
        .routes(routes!(bars))
}

/// Contracts a page of the current listing (the published page size).
const PAGE: usize = 1000;
/// The deprecated listing's page: by default and at most.
const EARLIER_PAGE: u32 = 10;
const EARLIER_MAX_PAGE: u32 = 1000;
/// Underlyings or contracts one listing may name.
const MAX_LISTED_SYMBOLS: usize = 100;
/// Contracts one snapshots or bars call may name.
const MAX_SYMBOLS: usize = 20;
const DEFAULT_TICKS: u32 = 30;
const MAX_TICKS: u32 = 1200;
const DEFAULT_BARS: u32 = 200;
const MAX_BARS: u32 = 1200;
/// The kind of the listing's pagination keys: a contract id.
const KEY: char = 'c';

/// Every parameter of the calls here; each reads its own.
#[derive(Debug, Default, Deserialize)]
struct Params {
    category: Option<String>,
    option_symbols: Option<String>,
    /// The deprecated listing's one contract.
    option_symbol: Option<String>,
    underlying_symbols: Option<String>,
    status: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
    root_symbol: Option<String>,
    option_type: Option<String>,
    style: Option<String>,
    strike_price_gte: Option<String>,
    strike_price_lte: Option<String>,
    ppind: Option<String>,
    show_deliverables: Option<String>,
    pagination_key: Option<String>,
    page_size: Option<String>,
    last_instrument_id: Option<String>,
    symbols: Option<String>,
    symbol: Option<String>,
    count: Option<String>,
    timespan: Option<String>,
    real_time_required: Option<String>,
    start_time: Option<String>,
    end_time: Option<String>,
}

/// `US_OPTION`, the one category of these calls (the client always sends it).
fn check_category(category: Option<&str>) -> Result<(), ApiError> {
    match given(category) {
        None | Some("US_OPTION") => Ok(()),
        Some(other) => Err(ApiError::illegal_parameter(format!(
            "category {:?} is not served here: US_OPTION",
            other.chars().take(20).collect::<String>()
        ))),
    }
}

fn flag(name: &str, value: Option<&str>) -> Result<Option<bool>, ApiError> {
    match given(value).map(str::to_ascii_lowercase).as_deref() {
        None => Ok(None),
        Some("false" | "0") => Ok(Some(false)),
        Some("true" | "1") => Ok(Some(true)),
        Some(_) => Err(ApiError::illegal_parameter(format!("{name} must be true or false"))),
    }
}

/// A comma-separated list, upper-cased: at most `max`.
fn list(name: &str, value: Option<&str>, max: usize) -> Result<Option<Vec<String>>, ApiError> {
    let Some(value) = given(value) else {
        return Ok(None);
    };
    let items: Vec<String> = value
        .split(',')
        .map(|s| s.trim().to_ascii_uppercase())
        .filter(|s| !s.is_empty())
        .collect();
    if items.len() > max {
        return Err(ApiError::illegal_parameter(format!(
            "{name}: at most {max} a call, not {}",
            items.len()
        )));
    }
    Ok(Some(items))
}

fn decimal(name: &str, value: Option<&str>) -> Result<Option<Decimal>, ApiError> {
    given(value)
        .map(|v| {
            v.parse::<Decimal>()
                .map_err(|_| ApiError::illegal_parameter(format!("{name} must be a price")))
        })
        .transpose()
}

fn day(name: &str, value: Option<&str>) -> Result<Option<i32>, ApiError> {
    given(value)
        .map(|v| parse_day(v).ok_or_else(|| ApiError::illegal_parameter(format!("{name} must be yyyy-MM-dd"))))
        .transpose()
}

/// What a listing keeps of the contracts it looks at.
struct Filter {
    listing: bool,
    expiry: Option<i32>,
    expiry_from: Option<i32>,
    root: Option<String>,
    right: Option<Right>,
    american: bool,
    strike_from: Option<Decimal>,
    strike_to: Option<Decimal>,
    penny: Option<bool>,
}

impl Filter {
    fn read(p: &Params) -> Result<Filter, ApiError> {
        let listing = match given(p.status.as_deref()).map(str::to_ascii_uppercase).as_deref() {
            None | Some("LISTING") => true,
            Some("DELISTING") => false,
            Some(_) => return Err(ApiError::illegal_parameter("status must be LISTING or DELISTING")),
        };
        let right = given(p.option_type.as_deref())
            .map(|t| Right::parse(t).ok_or_else(|| ApiError::illegal_parameter("option_type must be CALL or PUT")))
            .transpose()?;
        let american = match given(p.style.as_deref()).map(str::to_ascii_uppercase).as_deref() {
            None | Some("AMERICAN") => true,
            Some("EUROPEAN") => false,
            Some(_) => return Err(ApiError::illegal_parameter("style must be AMERICAN or EUROPEAN")),
        };
        Ok(Filter {
            listing,
            expiry: day("start_date", p.start_date.as_deref())?,
            expiry_from: day("end_date", p.end_date.as_deref())?,
            root: given(p.root_symbol.as_deref()).map(str::to_ascii_uppercase),
            right,
            american,
            strike_from: decimal("strike_price_gte", p.strike_price_gte.as_deref())?,
            strike_to: decimal("strike_price_lte", p.strike_price_lte.as_deref())?,
            penny: flag("ppind", p.ppind.as_deref())?,
        })
    }

    fn keeps(&self, c: &Contract, u: &Underlying) -> bool {
        // Every contract is listed (expired ones are not kept) and American.
        self.listing
            && self.american
            && self.expiry.is_none_or(|e| c.expiry == e)
            && self.expiry_from.is_none_or(|e| c.expiry >= e)
            && self.root.as_deref().is_none_or(|r| r == u.symbol)
            && self.right.is_none_or(|r| c.right == r)
            && self.strike_from.is_none_or(|s| c.strike >= s)
            && self.strike_to.is_none_or(|s| c.strike <= s)
            && self.penny.is_none_or(|p| p == u.penny)
    }
}

fn to_contract(id: i64, c: &Contract, u: &Underlying, deliverables: bool) -> OptionContract {
    let kind = if u.etf { "ETF" } else { "EQUITY" };
    OptionContract {
        instrument_id: id.to_string(),
        symbol: c.occ_symbol(),
        status: "LISTING".into(),
        tradable_status: "OC".into(),
        expiration_date: format_day(c.expiry),
        root_symbol: u.symbol.clone(),
        underlying_symbol: u.symbol.clone(),
        underlying_instrument_id: u.instrument_id.to_string(),
        underlying_type: format!("{kind}_{}_OPTION", c.right.as_str()),
        option_type: c.right.as_str().into(),
        style: "AMERICAN".into(),
        strike_price: c.strike.to_string(),
        multiplier: MULTIPLIER.to_string(),
        settlement_method: "PHYSICAL".into(),
        expired_cycle: chain::cycle(c.expiry).into(),
        ppind: u.penny,
        currency: "USD".into(),
        def_type: "STANDARD".into(),
        listed_exchanges: vec!["SIGNET".into()],
        deliverables: deliverables.then(|| {
            vec![Deliverable {
                asset_type: "EQUITY".into(),
                symbol: u.symbol.clone(),
                instrument_id: u.instrument_id.to_string(),
                amount: MULTIPLIER.to_string(),
                allocation_percentage: "100".into(),
                settlement_type: "T_1".into(),
                settlement_method: "PHYSICAL".into(),
                settlement_status: "REGULAR".into(),
            }]
        }),
    }
}

fn render(id: i64, c: &Contract, u: &Underlying, deliverables: bool) -> Arc<str> {
    serde_json::to_string(&to_contract(id, c, u, deliverables))
        .unwrap_or_default()
        .into()
}

impl RenderedChains {
    fn chain(&self, options: &Options, seed: u64, u: Arc<Underlying>, deliverables: bool) -> Arc<RenderedChain> {
        let key = (u.instrument_id, options.today(), seed, deliverables);
        if let Some(chain) = self.0.lock().get(&key) {
            return chain.clone();
        }
        let rows = options
            .chain(&u)
            .into_iter()
            .map(|(id, c)| {
                let json = render(id, &c, &u, deliverables);
                (id, c, json)
            })
            .collect();
        let chain = Arc::new(RenderedChain { u, rows });
        let mut kept = self.0.lock();
        if kept.len() >= MAX_RENDERED {
            kept.clear();
        }
        kept.insert(key, chain.clone());
        chain
    }
}

/// A page of a listing: its rows' JSON, and whether more follow.
struct Page {
    rows: Vec<(i64, Arc<str>)>,
    more: bool,
}

impl Page {
    /// The rows as a JSON array, written once into a buffer of the right size.
    fn array(&self, into: &mut Vec<u8>) {
        into.push(b'[');
        for (i, (_, json)) in self.rows.iter().enumerate() {
            if i > 0 {
                into.push(b',');
            }
            into.extend_from_slice(json.as_bytes());
        }
        into.push(b']');
    }

    fn len(&self) -> usize {
        self.rows.iter().map(|(_, json)| json.len() + 1).sum::<usize>() + 64
    }
}

fn json_answer(body: Vec<u8>) -> Response {
    ([(CONTENT_TYPE, "application/json")], body).into_response()
}

/// The contracts a listing asks for after contract id `after`, in id order, at most `limit`.
async fn listed(
    state: &AppState,
    p: &Params,
    option_symbols: Option<Vec<String>>,
    after: Option<i64>,
    limit: usize,
) -> Result<Page, ApiError> {
    let filter = Filter::read(p)?;
    let deliverables = flag("show_deliverables", p.show_deliverables.as_deref())?.unwrap_or(false);
    let underlyings = list(
        "underlying_symbols",
        p.underlying_symbols.as_deref(),
        MAX_LISTED_SYMBOLS,
    )?;
    if option_symbols.is_none() && underlyings.is_none() {
        return Err(ApiError::illegal_parameter(
            "name underlying_symbols or option_symbols: every underlying's chain at once (millions of contracts) is not listed",
        ));
    }
    let options = &state.options;
    let kept = |id: i64, c: &Contract, u: &Underlying| after.is_none_or(|a| id > a) && filter.keeps(c, u);
    // The contracts named, each rendered on its own.
    let mut rows: Vec<(i64, Arc<str>)> = Vec::new();
    for symbol in option_symbols.iter().flatten() {
        Contract::parse_occ(symbol).map_err(|e| ApiError::illegal_parameter(e.to_string()))?;
        // A contract that is not listed, or whose underlying is unknown, is not in the list.
        if let Ok((id, c, u)) = options.contract(symbol).await
            && kept(id, &c, &u)
        {
            rows.push((id, render(id, &c, &u, deliverables)));
        }
    }
    // The underlyings' chains in id order, from the cursor's: a page renders only the chains it
    // reaches, whatever the number named.
    let mut named = Vec::new();
    for symbol in underlyings.iter().flatten() {
        if let Ok(u) = options.underlying(symbol).await {
            named.push(u);
        }
    }
    named.sort_by_key(|u| u.instrument_id);
    named.dedup_by_key(|u| u.instrument_id);
    let from = after.and_then(Contract::of_id).map(|p| p.underlying_id);
    named.retain(|u| from.is_none_or(|f| u.instrument_id >= f));
    for (i, u) in named.iter().enumerate() {
        let chain = state
            .rendered_chains
            .chain(options, state.simulator.seed(), u.clone(), deliverables);
        rows.extend(
            chain
                .rows
                .iter()
                .filter(|(id, c, _)| kept(*id, c, &chain.u))
                .map(|(id, _, json)| (*id, json.clone())),
        );
        // Every chain after the next one sorts after the rows so far: enough of them, and the
        // page and whether more follow are known.
        let next = named
            .get(i + 1)
            .map_or(i64::MAX, |n| Contract::first_id_of(n.instrument_id));
        if rows.iter().filter(|(id, _)| *id < next).count() > limit {
            break;
        }
    }
    rows.sort_by_key(|(id, _)| *id);
    rows.dedup_by_key(|(id, _)| *id);
    let more = rows.len() > limit;
    rows.truncate(limit);
    Ok(Page { rows, more })
}

#[utoipa::path(
    get, path = "/trading/instruments/options/contracts/list", tag = "options",
    operation_id = "listOptionContracts", summary = "Option contracts",
    description = "The contracts listed today of the underlyings or contracts named, in the order of their ids: by \
        underlying, expiry, strike, call before put. An underlying is optionable when the simulator quotes it and it \
        closed the day before at $1 or more; its expiries are the Fridays of the next six weeks, the third Fridays of \
        the next twelve months and the January LEAPS beyond (moved to the Thursday before a holiday), its strikes run \
        from half to one and a half times the previous close at the usual increment. Every contract is American, \
        physically settled, of 100 shares. `start_date` is the exact expiry and `end_date` its lower bound, as \
        published. Expired contracts are not kept (`status=DELISTING` lists none). Pages of 1000 contracts.",
    params(
        ("category" = String, Query, description = "US_OPTION"),
        ("underlying_symbols" = Option<String>, Query, description = "Up to 100 underlyings, comma-separated", example = "AAPL"),
        ("option_symbols" = Option<String>, Query, description = "Up to 100 OCC symbols, comma-separated"),
        ("status" = Option<String>, Query, description = "LISTING (default) or DELISTING"),
        ("start_date" = Option<String>, Query, description = "The expiry, yyyy-MM-dd"),
        ("end_date" = Option<String>, Query, description = "The earliest expiry, yyyy-MM-dd"),
        ("root_symbol" = Option<String>, Query, description = "The root: the underlying's symbol"),
        ("option_type" = Option<String>, Query, description = "CALL or PUT"),
        ("style" = Option<String>, Query, description = "AMERICAN or EUROPEAN (none are)"),
        ("strike_price_gte" = Option<String>, Query, description = "Lowest strike"),
        ("strike_price_lte" = Option<String>, Query, description = "Highest strike"),
        ("ppind" = Option<String>, Query, description = "true: only the penny program's; false: only the others"),
        ("show_deliverables" = Option<String>, Query, description = "true: each contract's deliverables"),
        ("pagination_key" = Option<String>, Query, description = "The previous page's key"),
    ),
    responses((status = 200, description = "A page of contracts", body = OptionContractPage))
)]
async fn contracts(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Response, ApiError> {
    check_category(p.category.as_deref())?;
    let after = pagination::decode(KEY, p.pagination_key.as_deref())?;
    let symbols = list("option_symbols", p.option_symbols.as_deref(), MAX_LISTED_SYMBOLS)?;
    let page = listed(&state, &p, symbols, after, PAGE).await?;
    let mut body = Vec::with_capacity(page.len());
    body.extend_from_slice(b"{\"data\":");
    page.array(&mut body);
    if page.more
        && let Some((last, _)) = page.rows.last()
    {
        body.extend_from_slice(format!(",\"pagination_key\":\"{}\"", pagination::encode(KEY, *last)).as_bytes());
    }
    body.push(b'}');
    Ok(json_answer(body))
}

#[utoipa::path(
    get, path = "/openapi/instrument/option/contracts", tag = "options",
    operation_id = "listOptionContractsEarlier", summary = "Option contracts (deprecated path)",
    description = "The contracts of the current listing, as a plain list paged by `page_size` (default 10, at most \
        1000) and `last_instrument_id`, the last id of the page before.",
    params(
        ("category" = String, Query, description = "US_OPTION"),
        ("underlying_symbols" = Option<String>, Query, description = "Up to 100 underlyings, comma-separated", example = "AAPL"),
        ("option_symbol" = Option<String>, Query, description = "One OCC symbol"),
        ("page_size" = Option<u32>, Query, description = "1 to 1000, default 10"),
        ("last_instrument_id" = Option<String>, Query, description = "The last id of the page before"),
    ),
    responses((status = 200, description = "A page of contracts", body = Vec<OptionContract>))
)]
async fn earlier_contracts(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Response, ApiError> {
    check_category(p.category.as_deref())?;
    let size = pagination::page_size(given(p.page_size.as_deref()), EARLIER_PAGE, EARLIER_MAX_PAGE)?;
    let after = given(p.last_instrument_id.as_deref())
        .map(|id| {
            id.parse::<i64>()
                .map_err(|_| ApiError::illegal_parameter("last_instrument_id must be a contract's id"))
        })
        .transpose()?;
    let symbols = list("option_symbol", p.option_symbol.as_deref(), 1)?;
    let page = listed(&state, &p, symbols, after, size as usize).await?;
    let mut body = Vec::with_capacity(page.len());
    page.array(&mut body);
    Ok(json_answer(body))
}

/// A figure to `dp` places, without trailing zeros (`0.5623`, `-0.01`, `0`).
fn fixed(x: f64, dp: usize) -> String {
    let text = format!("{x:.dp$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    match text {
        "-0" | "" => "0".to_owned(),
        t => t.to_owned(),
    }
}

/// A price to the cent, as the quotes print (`10.30`, not `10.3`).
pub(crate) fn money(d: Decimal) -> String {
    format!("{:.2}", d.round_dp(2))
}

fn to_snapshot(q: &OptionQuote) -> OptionSnapshot {
    let last = q.prints.last();
    let price = last.map_or(q.pre_close, |p| p.price);
    let traded = !q.prints.is_empty();
    let volume: u64 = q.prints.iter().map(|p| p.volume).sum();
    let premium: Decimal = q
        .prints
        .iter()
        .map(|p| p.price * Decimal::from(p.volume) * Decimal::from(MULTIPLIER))
        .sum();
    let change = price - q.pre_close;
    let v = &q.mark.valuation;
    OptionSnapshot {
        instrument_id: q.instrument_id.to_string(),
        symbol: q.contract.occ_symbol(),
        price: money(price),
        open: q.prints.first().map(|p| money(p.price)),
        high: q.prints.iter().map(|p| p.price).max().map(money),
        low: q.prints.iter().map(|p| p.price).min().map(money),
        pre_close: money(q.pre_close),
        volume: volume.to_string(),
        change: traded.then(|| money(change)),
        change_ratio: traded
            .then(|| (q.pre_close > Decimal::ZERO).then(|| (change / q.pre_close).round_dp(4).normalize().to_string()))
            .flatten(),
        last_trade_time: last.map(|p| utc_ms_of(NewYork::of(q.time_ms).day, p.second)),
        close: money(price),
        strike_price: q.contract.strike.to_string(),
        delta: fixed(v.delta, 4),
        gamma: fixed(v.gamma, 4),
        theta: fixed(v.theta, 4),
        vega: fixed(v.vega, 4),
        rho: fixed(v.rho, 4),
        imp_vol: fixed(q.mark.vol, 4),
        open_interest: q.open_interest.to_string(),
        quote_time: q.time_ms,
        bid: money(q.mark.bid),
        ask: money(q.mark.ask),
        bid_size: q.mark.bid_size.to_string(),
        ask_size: q.mark.ask_size.to_string(),
        deal_amount: money(premium),
    }
}

/// The quotes of the contracts a call names, in the order asked.
async fn quotes(options: &Options, symbols: &[String]) -> Result<Vec<OptionQuote>, ApiError> {
    let symbols: Vec<&str> = symbols.iter().map(String::as_str).collect();
    Ok(options.quotes(&symbols).await?)
}

fn required_list(name: &str, value: Option<&str>, max: usize) -> Result<Vec<String>, ApiError> {
    list(name, value, max)?
        .filter(|l| !l.is_empty())
        .ok_or_else(|| ApiError::illegal_parameter(format!("{name} is required")))
}

#[utoipa::path(
    get, path = "/market-data/options/snapshots/list", tag = "options",
    operation_id = "listOptionSnapshots", summary = "Option snapshots",
    description = "Each contract now: its fair value at the underlying's last price (outside the core session, at \
        the last close's price and time; Black-Scholes-Merton with the \
        underlying's dividend yield and a 2 % rate, at the volatility of its strike: the underlying's realized \
        volatility of the last 30 days shaped by a skew), the greeks and that volatility as `imp_vol`; the bid and \
        ask around the value on the exchanges' ticks, wider away from the money; and the day's trades so far.",
    params(
        ("symbols" = String, Query, description = "Up to 20 OCC symbols, comma-separated", example = "AAPL130419C00450000"),
        ("category" = String, Query, description = "US_OPTION"),
    ),
    responses(
        (status = 200, description = "One snapshot per contract, in the order asked", body = Vec<OptionSnapshot>),
        InstrumentNotFound,
    )
)]
async fn snapshots(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<Vec<OptionSnapshot>>, ApiError> {
    check_category(p.category.as_deref())?;
    let symbols = required_list("symbols", p.symbols.as_deref(), MAX_SYMBOLS)?;
    let quotes = quotes(&state.options, &symbols).await?;
    Ok(Json(quotes.iter().map(to_snapshot).collect()))
}

#[utoipa::path(
    get, path = "/market-data/options/ticks/list", tag = "options",
    operation_id = "listOptionTicks", summary = "Option ticks",
    description = "The contract's trades of the day so far, newest first. A contract trades now and then through the \
        core session (every half minute or so at the money near expiry, a few times a day far out of it), each \
        trade at its fair value at the underlying's price of that second.",
    params(
        ("symbol" = String, Query, description = "One OCC symbol", example = "AAPL130419C00450000"),
        ("category" = String, Query, description = "US_OPTION"),
        ("count" = Option<u32>, Query, description = "Ticks: 1 to 1200, default 30"),
    ),
    responses(
        (status = 200, description = "The contract's ticks, newest first", body = OptionTicks),
        InstrumentNotFound,
    )
)]
async fn ticks(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<OptionTicks>, ApiError> {
    check_category(p.category.as_deref())?;
    let symbol = required_list("symbol", p.symbol.as_deref(), 1)?.remove(0);
    let count = pagination::bounded("count", given(p.count.as_deref()), DEFAULT_TICKS, MAX_TICKS)? as usize;
    let q = state.options.quote(&symbol).await?;
    let day = NewYork::of(q.time_ms).day;
    let mut result = Vec::with_capacity(count.min(q.prints.len()));
    let shown = q.prints.len().saturating_sub(count);
    let mut before = shown.checked_sub(1).map_or(q.pre_close, |i| q.prints[i].price);
    for print in &q.prints[shown..] {
        let side = match print.price.cmp(&before) {
            std::cmp::Ordering::Greater => "B",
            std::cmp::Ordering::Less => "S",
            std::cmp::Ordering::Equal => "N",
        };
        before = print.price;
        result.push(OptionTick {
            time: utc_ms_of(day, print.second).to_string(),
            price: money(print.price),
            volume: print.volume.to_string(),
            side: side.into(),
        });
    }
    result.reverse();
    Ok(Json(OptionTicks {
        symbol: q.contract.occ_symbol(),
        instrument_id: q.instrument_id.to_string(),
        result,
    }))
}

fn to_bar(b: &CoreBar) -> OptionBar {
    let cents = |c: i64| Decimal::new(c, 2).to_string();
    OptionBar {
        time: format_ms_utc_offset(b.time_ms),
        open: cents(b.open),
        close: cents(b.close),
        high: cents(b.high),
        low: cents(b.low),
        volume: b.volume.to_string(),
    }
}

/// A contract's bars of `span` seconds, newest first: today's trades so far, then those of the
/// trading days before it was listed on (as far back as the stocks' intraday bars reach).
async fn intraday(
    state: &AppState,
    q: &OptionQuote,
    span: i64,
    count: usize,
    unfinished: bool,
    (start_ms, end_ms): (Option<i64>, Option<i64>),
) -> Result<Vec<CoreBar>, ApiError> {
    let range = Range {
        start_ms,
        end_ms,
        unfinished,
    };
    let today = NewYork::of(q.time_ms).day;
    let mut rows = Vec::new();
    for plan in trading_days(state, q.underlying.instrument_id, &range).await? {
        if chain::expiries(plan.day).binary_search(&q.contract.expiry).is_err() {
            break;
        }
        if plan.day == today {
            let mut bars = Options::intraday_bars(today, &q.prints, span);
            if !unfinished {
                bars.retain(|b| b.time_ms + span * 1000 <= q.time_ms);
            }
            rows.extend(bars);
        } else {
            let path = state.simulator.path_on(q.underlying.instrument_id, &plan).await?;
            let prints = state
                .options
                .prints_on(q.instrument_id, &q.contract, &q.underlying, &path);
            rows.extend(Options::intraday_bars(plan.day, &prints, span));
        }
        if rows.len() >= count {
            break;
        }
    }
    Ok(rows)
}

fn millis(name: &str, value: Option<&str>) -> Result<Option<i64>, ApiError> {
    given(value)
        .map(|v| {
            v.parse::<i64>()
                .map_err(|_| ApiError::illegal_parameter(format!("{name} must be epoch milliseconds")))
        })
        .transpose()
}

#[utoipa::path(
    get, path = "/market-data/options/bars/list", tag = "options",
    operation_id = "listOptionBars", summary = "Option bars",
    description = "Each contract's bars, newest first. Intraday timespans (M1 to M240) are made of its trades (the \
        ticks call's), counted from the open: today's so far, then those of the trading days before that it was \
        listed on, over the last 30. Daily and longer ones (D, W, M for a month, Y): today's of its \
        trades so far (with `real_time_required=true` or absent), then each day it was listed valued off the \
        underlying's daily bar: the contract's value at the underlying's open, high, low and close, and a volume \
        drawn at its liquidity that day.",
    params(
        ("symbols" = String, Query, description = "Up to 20 OCC symbols, comma-separated", example = "AAPL130419C00450000"),
        ("category" = String, Query, description = "US_OPTION"),
        ("timespan" = String, Query, description = "M1, M5, M15, M30, M60, M120, M240, D, W, M or Y"),
        ("count" = Option<u32>, Query, description = "Bars a contract: 1 to 1200, default 200"),
        ("real_time_required" = Option<String>, Query, description = "false: leave today's unfinished bar out"),
        ("start_time" = Option<i64>, Query, description = "Earliest bar start, epoch milliseconds"),
        ("end_time" = Option<i64>, Query, description = "Latest bar start, epoch milliseconds"),
    ),
    responses(
        (status = 200, description = "Each contract's bars, newest first, in the order asked", body = OptionBars),
        InstrumentNotFound,
    )
)]
async fn bars(
    State(state): State<AppState>,
    _caller: Caller,
    QueryParams(p): QueryParams<Params>,
) -> Result<Json<OptionBars>, ApiError> {
    check_category(p.category.as_deref())?;
    let symbols = required_list("symbols", p.symbols.as_deref(), MAX_SYMBOLS)?;
    let timespan = given(p.timespan.as_deref()).and_then(Timespan::parse).ok_or_else(|| {
        ApiError::illegal_parameter("timespan must be one of M1, M5, M15, M30, M60, M120, M240, D, W, M, Y")
    })?;
    let count = pagination::bounded("count", given(p.count.as_deref()), DEFAULT_BARS, MAX_BARS)? as usize;
    let unfinished = flag("real_time_required", p.real_time_required.as_deref())?.unwrap_or(true);
    let (from, to) = (
        millis("start_time", p.start_time.as_deref())?,
        millis("end_time", p.end_time.as_deref())?,
    );
    let in_range = |b: &CoreBar| from.is_none_or(|f| b.time_ms >= f) && to.is_none_or(|t| b.time_ms <= t);
    let mut result = Vec::with_capacity(symbols.len());
    for q in quotes(&state.options, &symbols).await? {
        let rows: Vec<CoreBar> = match timespan {
            Timespan::Seconds(span) => intraday(&state, &q, span, count, unfinished, (from, to)).await?,
            Timespan::Days(span) => {
                let mut days = state.options.daily_bars(&q, MAX_BARS as usize).await?;
                let today = utc_ms_of(NewYork::of(q.time_ms).day, 0);
                if !unfinished {
                    days.retain(|b| b.time_ms < today);
                }
                // Oldest first, in the micro-dollars the stocks' bars roll up in.
                let as_bars: Vec<Bar> = days
                    .iter()
                    .rev()
                    .map(|b| Bar {
                        day: NewYork::of(b.time_ms).day,
                        open: b.open * 10_000,
                        high: b.high * 10_000,
                        low: b.low * 10_000,
                        close: b.close * 10_000,
                        volume: i64::try_from(b.volume).unwrap_or(i64::MAX),
                        adj_close: None,
                    })
                    .collect();
                roll_up(&as_bars, span)
                    .iter()
                    .rev()
                    .map(|b| CoreBar {
                        time_ms: utc_ms_of(b.day, 0),
                        open: b.open / 10_000,
                        high: b.high / 10_000,
                        low: b.low / 10_000,
                        close: b.close / 10_000,
                        volume: u64::try_from(b.volume).unwrap_or(0),
                    })
                    .collect()
            }
        };
        result.push(OptionSymbolBars {
            symbol: q.contract.occ_symbol(),
            instrument_id: q.instrument_id.to_string(),
            result: rows.iter().filter(|b| in_range(b)).take(count).map(to_bar).collect(),
        });
    }
    Ok(Json(OptionBars { result }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn figures_are_shown_without_trailing_zeros() {
        assert_eq!(super::fixed(0.562_349, 4), "0.5623");
        assert_eq!(super::fixed(-0.000_01, 4), "0");
        assert_eq!(super::fixed(-0.0123, 4), "-0.0123");
        assert_eq!(super::fixed(2.0, 4), "2");
        assert_eq!(super::fixed(-0.1, 4), "-0.1");
    }
}
