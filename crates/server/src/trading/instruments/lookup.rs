//! Finding instruments and writing their rows, apart from the HTTP handlers ([`super`]), so that
//! the earlier generation's gRPC gateway looks them up with the same code.

use serde::Deserialize;
use signet_domain::marketdata::{Instrument, InstrumentType};
use signet_model::assets::StockInstrument;
use signet_store::InstrumentQuery;

use crate::error::ApiError;
use crate::state::AppState;

pub(super) const MAX_SYMBOLS: usize = 100;
pub(super) const PAGE: u32 = 100;
pub(super) const LEGACY_PAGE: u32 = 1000;
/// The kind of this listing's pagination keys: an instrument id.
pub(super) const KEY: char = 'i';
pub(crate) const REG_T: &str = "0.5";

#[derive(Debug, Default, Deserialize)]
pub(super) struct Params {
    pub(super) symbols: Option<String>,
    pub(super) category: Option<String>,
    pub(super) status: Option<String>,
    pub(super) sub_category: Option<String>,
    pub(super) pagination_key: Option<String>,
    /// The retired list's cursor and page size.
    pub(super) last_instrument_id: Option<String>,
    pub(super) page_size: Option<String>,
}

/// Which instrument types a listing asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Types {
    All,
    Only(InstrumentType),
    /// A sub-category signet has no instrument of.
    None,
}

impl Types {
    /// These and `other`.
    fn and(self, other: Types) -> Types {
        match (self, other) {
            (Types::All, t) | (t, Types::All) => t,
            (Types::Only(a), Types::Only(b)) if a == b => Types::Only(a),
            _ => Types::None,
        }
    }
}

/// What a listing asks for, once its parameters are read.
pub(super) struct Wanted {
    symbols: Option<Vec<String>>,
    types: Types,
    /// Only tradable (`Some(true)`), only not tradable (`Some(false)`), or all.
    tradable: Option<bool>,
}

pub(super) fn non_empty(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

pub(super) fn wanted(p: &Params, legacy: bool) -> Result<Wanted, ApiError> {
    let mut types = match non_empty(p.category.as_deref()) {
        None | Some("US_STOCK") => Types::All,
        Some("US_ETF") if legacy => Types::Only(InstrumentType::Etf),
        Some(other) => {
            let supported = if legacy { "US_STOCK or US_ETF" } else { "US_STOCK" };
            return Err(ApiError::illegal_parameter(format!(
                "category {other:?} is not offered: signet lists US stocks and ETFs only ({supported})"
            )));
        }
    };
    let symbols = match non_empty(p.symbols.as_deref()) {
        None => None,
        Some(list) => {
            let symbols: Vec<String> = list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_uppercase)
                .collect();
            if symbols.len() > MAX_SYMBOLS {
                return Err(ApiError::illegal_parameter(format!(
                    "symbols names {} symbols; at most {MAX_SYMBOLS} are accepted",
                    symbols.len()
                )));
            }
            Some(symbols)
        }
    };
    // A sub-category applies only without symbols (catalog 10.5).
    if symbols.is_none()
        && let Some(sub) = non_empty(p.sub_category.as_deref())
    {
        let of = match sub {
            "COMMON_STOCK" => Types::Only(InstrumentType::Equity),
            "ETF" => Types::Only(InstrumentType::Etf),
            "PREFERRED_STOCK" | "WARRANT" | "UNITS" | "RIGHT" => Types::None,
            other => {
                return Err(ApiError::illegal_parameter(format!(
                    "sub_category {other:?} is not one of COMMON_STOCK, ETF, PREFERRED_STOCK, WARRANT, UNITS, RIGHT"
                )));
            }
        };
        types = types.and(of);
    }
    let tradable = match non_empty(p.status.as_deref()) {
        None => None,
        Some("OC") => Some(true),
        Some("CO" | "NT") => Some(false),
        Some(other) => {
            return Err(ApiError::illegal_parameter(format!(
                "status {other:?} is not one of OC, CO, NT"
            )));
        }
    };
    Ok(Wanted {
        symbols,
        types,
        tradable,
    })
}

/// A page of `limit` instruments after `after_id`, and whether more follow (the last id read,
/// to resume from).
pub(super) async fn fetch(
    state: &AppState,
    wanted: &Wanted,
    after_id: Option<i64>,
    limit: u32,
) -> Result<(Vec<Instrument>, Option<i64>), ApiError> {
    let instrument_type = match wanted.types {
        Types::All => None,
        Types::Only(t) => Some(t),
        Types::None => return Ok((Vec::new(), None)),
    };
    let mut rows = state
        .store
        .instrument_page(&InstrumentQuery {
            symbols: wanted.symbols.clone(),
            instrument_type,
            after_id,
            limit: limit + 1,
        })
        .await?;
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let resume = rows.last().filter(|_| more).map(|i| i.instrument_id);
    if let Some(tradable) = wanted.tradable {
        rows.retain(|i| trades(state, i) == tradable);
    }
    Ok((rows, resume))
}

/// Whether the simulator quotes it: then orders for it are taken and filled.
pub(super) fn trades(state: &AppState, instrument: &Instrument) -> bool {
    state.simulator.instrument_id(&instrument.symbol).is_some()
}

pub(super) fn row(state: &AppState, i: &Instrument, legacy: bool) -> StockInstrument {
    let etf = i.instrument_type == InstrumentType::Etf;
    let current = |value: &str| (!legacy).then(|| value.to_owned());
    StockInstrument {
        symbol: i.symbol.clone(),
        name: i.name.clone(),
        instrument_id: i.instrument_id.to_string(),
        exchange_code: i.exchange.clone().unwrap_or_default(),
        category: if legacy && etf { "US_ETF" } else { "US_STOCK" }.into(),
        sub_category: current(if etf { "ETF" } else { "COMMON_STOCK" }),
        status: if trades(state, i) { "OC" } else { "NT" }.into(),
        currency: i.currency.clone(),
        lot_size: "1".into(),
        shortable: true,
        fractionable: true,
        marginable: true,
        overnight_trading_supported: true,
        easy_to_borrow: true,
        margin_requirement_long: REG_T.into(),
        margin_requirement_short: REG_T.into(),
        intraday_margin_long: current(REG_T),
        intraday_margin_short: current(REG_T),
        maintenance_margin_long: current(REG_T),
        maintenance_margin_short: current(REG_T),
    }
}

/// The earlier generation's lookup of `symbols` (comma-separated) in `category`: over HTTP
/// (`/instrument/list`) and over its quotes gateway ([`crate::gateway`]).
pub(crate) async fn earlier_lookup(
    state: &AppState,
    symbols: Option<&str>,
    category: Option<&str>,
) -> Result<Vec<StockInstrument>, ApiError> {
    let types = match non_empty(category) {
        Some("US_STOCK") => Types::Only(InstrumentType::Equity),
        Some("US_ETF") => Types::Only(InstrumentType::Etf),
        None => return Err(ApiError::illegal_parameter("category is required: US_STOCK or US_ETF")),
        Some(other) => {
            return Err(ApiError::illegal_parameter(format!(
                "category {:?} is not offered: signet lists US stocks and ETFs only (US_STOCK or US_ETF)",
                other.chars().take(20).collect::<String>()
            )));
        }
    };
    if non_empty(symbols).is_none() {
        return Err(ApiError::illegal_parameter("symbols is required, comma-separated"));
    }
    let p = Params {
        symbols: symbols.map(str::to_owned),
        category: category.map(str::to_owned),
        ..Params::default()
    };
    let wanted = Wanted {
        types,
        ..wanted(&p, true)?
    };
    // At most 100 symbols, so one page of 100 holds every instrument they name.
    let (rows, _) = fetch(state, &wanted, None, PAGE).await?;
    Ok(rows.iter().map(|i| row(state, i, true)).collect())
}
