//! The trade calendar (`TradeClient.trade_calendar`): the days the simulated market trades
//! between two dates, the exchange's holidays left out ([`calendar`]), each with its sessions:
//! `HALF_DAY` on an early-close day (core to 13:00, after hours to 17:00), `FULL_DAY` otherwise.

use axum::Json;
use serde::Deserialize;
use signet_domain::marketdata::units::{format_day, parse_day};
use signet_domain::simulator::calendar;
use signet_domain::simulator::clock::{AFTER_CLOSE, CORE_OPEN, PRE_OPEN, Session, after_close, core_close, utc_ms_of};
use signet_domain::times::format_ms;
use signet_model::ErrorCode;
use signet_model::v1::{SessionHours, TradeDay};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiError;
use crate::extract::{Caller, QueryParams, given};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(trade_calendar))
}

/// The longest range one call covers, as the reference documents.
const MAX_DAYS: i32 = 30;

#[derive(Debug, Deserialize)]
struct Params {
    market: Option<String>,
    start: Option<String>,
    end: Option<String>,
}

/// The trading days from `start` to `end` (New York days, at most 30 days apart), weekends and
/// the exchange's holidays left out.
#[utoipa::path(
    get, path = "/trade/calendar", tag = "trading (v1)",
    operation_id = "tradeCalendar", summary = "Trade calendar",
    params(
        ("market" = String, Query, description = "US, the only market"),
        ("start" = String, Query, format = Date, description = "The first day, yyyy-MM-dd"),
        ("end" = String, Query, format = Date, description = "The last day, yyyy-MM-dd, at most 30 days after start"),
    ),
    responses((status = 200, description = "The trading days, in order", body = Vec<TradeDay>))
)]
async fn trade_calendar(_caller: Caller, QueryParams(p): QueryParams<Params>) -> Result<Json<Vec<TradeDay>>, ApiError> {
    match given(p.market.as_deref()) {
        Some(m) if m.eq_ignore_ascii_case("US") => {}
        Some(_) => {
            return Err(ApiError::new(
                ErrorCode::UnsupportedMarket,
                "market must be US, the only market signet simulates",
            ));
        }
        None => return Err(ApiError::illegal_parameter("market is required (US)")),
    }
    let day = |name: &str, value: Option<&str>| {
        given(value)
            .and_then(parse_day)
            .ok_or_else(|| ApiError::illegal_parameter(format!("{name} is required, a day yyyy-MM-dd")))
    };
    let (start, end) = (day("start", p.start.as_deref())?, day("end", p.end.as_deref())?);
    if start > end {
        return Err(ApiError::illegal_parameter("start is after end"));
    }
    if end - start > MAX_DAYS {
        return Err(ApiError::new(
            ErrorCode::DateRangeTooLong,
            format!("start and end are at most {MAX_DAYS} days apart: ask for the rest in another call"),
        ));
    }
    Ok(Json(calendar::trading_days(start, end).map(trade_day).collect()))
}

fn trade_day(day: i32) -> TradeDay {
    let hours = |session: Session, (from_day, from), (to_day, to)| SessionHours {
        session: session.as_str().to_owned(),
        start: format_ms(utc_ms_of(from_day, from)),
        end: format_ms(utc_ms_of(to_day, to)),
    };
    TradeDay {
        trade_day: format_day(day),
        trade_date_type: if calendar::early_close(day).is_some() {
            "HALF_DAY"
        } else {
            "FULL_DAY"
        }
        .into(),
        sessions: vec![
            hours(Session::Overnight, (day - 1, AFTER_CLOSE), (day, PRE_OPEN)),
            hours(Session::PreMarket, (day, PRE_OPEN), (day, CORE_OPEN)),
            hours(Session::Core, (day, CORE_OPEN), (day, core_close(day))),
            hours(Session::AfterHours, (day, core_close(day)), (day, after_close(day))),
        ],
    }
}
