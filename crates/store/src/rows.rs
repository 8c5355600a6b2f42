//! The column lists of the wide tables and how a row of either backend becomes a domain value.

use rust_decimal::Decimal;
use signet_domain::marketdata::fundamentals::Peer;
use signet_domain::marketdata::screeners::{Direction, Metric, Period, ScreenRow};
use signet_domain::marketdata::snapshot::Snapshot;
use signet_domain::marketdata::{Bar, Fact, Instrument, InstrumentType, MinuteBar};
use signet_domain::options::Contract;
use signet_domain::times::{SimTime, WallTime};
use signet_domain::trading::combo::{Combo, ComboKind};
use signet_domain::trading::fill_plan::FillPlan;
use signet_domain::trading::multi_leg::MultiLeg;
use signet_domain::trading::order::{Order, Trailing};
use signet_model::ids::OrderId;
use signet_model::orders::{PositionIntent, TrailingType};
use signet_model::wire::WireEnum;
use signet_model::{AccountType, TokenStatus};
use sqlx::{ColumnIndex, Database, Decode, FromRow, Row, Type};

use crate::sql::query::Query;
use crate::{AccountRecord, AppRecord, AppStatus, StoreError, TokenRecord};

/// A Rust type both backends decode from a column.
pub trait Column<DB: Database>: for<'r> Decode<'r, DB> + Type<DB> {}
impl<T, DB: Database> Column<DB> for T where T: for<'r> Decode<'r, DB> + Type<DB> {}

/// Reads an enumeration stored as text, naming the column when the value is unknown.
pub fn parse_column<T>(column: &str, value: &str, parse: impl Fn(&str) -> Option<T>) -> Result<T, StoreError> {
    parse(value).ok_or_else(|| StoreError::Other(format!("unexpected {column} {value:?} in the database")))
}

fn decode_err(e: sqlx::Error) -> StoreError {
    StoreError::Other(e.to_string())
}

/// A domain value read from a row of either backend by one of the decoders below.
pub struct Decoded<T>(pub T);

impl<T> Decoded<T> {
    pub fn all(rows: Vec<Self>) -> Vec<T> {
        rows.into_iter().map(|Decoded(value)| value).collect()
    }
}

fn as_sqlx(e: StoreError) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(e))
}

pub type AppRow = (String, String, Vec<u8>, String, String, i64, bool);
pub type AccountRow = (String, String, String, String, String, String, i64);
pub type TokenRow = (String, String, String, String, i64, i64);
pub const FACT_COLUMNS: &str = "cik, taxonomy, concept, unit, start, \"end\", accn, value, fy, fp, form, filed, frame";

/// The columns of [`FACT_COLUMNS`].
pub type FactRow = (
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    Option<i32>,
    Option<String>,
    String,
    String,
    Option<String>,
);

pub fn app_from_row(
    (app_key, name, sealed_secret, status, user_id, created_at, admin): AppRow,
) -> Result<AppRecord, StoreError> {
    let status = parse_column("app status", &status, AppStatus::parse)?;
    Ok(AppRecord {
        app_key: app_key.into(),
        name,
        sealed_secret,
        status,
        user_id,
        created_at,
        admin,
    })
}

pub fn account_from_row(
    (account_id, app_key, account_type, account_label, currency, cash, created_at): AccountRow,
) -> Result<AccountRecord, StoreError> {
    Ok(AccountRecord {
        account_id: account_id.into(),
        app_key: app_key.into(),
        account_type: parse_column("account type", &account_type, AccountType::parse)?,
        account_label,
        currency,
        cash: parse_column("cash", &cash, |c| c.parse::<Decimal>().ok())?,
        created_at,
    })
}

pub fn token_from_row(
    (token_hash, token_hint, app_key, status, created_at, expires_at): TokenRow,
) -> Result<TokenRecord, StoreError> {
    let status = parse_column("token status", &status, TokenStatus::parse)?;
    Ok(TokenRecord {
        token_hash,
        token_hint,
        app_key: app_key.into(),
        status,
        created_at,
        expires_at,
    })
}

pub fn fact_from_row(row: FactRow) -> Result<Fact, StoreError> {
    let (cik, taxonomy, concept, unit, start, end, accn, value, fy, fp, form, filed, frame) = row;
    Ok(Fact {
        value: parse_column("fact value", &value, |v| v.parse().ok())?,
        cik,
        taxonomy,
        concept,
        unit,
        start,
        end,
        accn,
        fy,
        fp,
        form,
        filed,
        frame,
    })
}

/// The columns of an order, as [`order_from_row`] reads them. An option order's instrument is its
/// contract, whose id is in `option_contract_id` (its underlying's is in `instrument_id`, which
/// refers to `instruments`); see [`stored_instrument`].
pub const ORDER_COLUMNS: &str =
    "seq, order_id, account_id, client_order_id, client_combo_order_id, combo_type, combo_order_id, combo_kind,
    waits_for, instrument_id, option_contract_id,
    symbol, side, order_type, time_in_force, quantity, cash_amount, limit_price, stop_price, trailing_type, trailing_step,
    triggered_at, support_trading_session, status, filled_quantity, filled_amount, reason, expires_at_sim, place_time,
    fill_time, update_time, filled_at_sim, fill_plan, position_intent, legs";

/// An order from the columns of [`ORDER_COLUMNS`].
pub fn order_from_row<R: Row>(row: &R) -> Result<Order, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Column<R::Database>,
    i64: Column<R::Database>,
{
    let get = |name: &str| -> Result<i64, StoreError> { row.try_get(name).map_err(decode_err) };
    let optional_int = |name: &str| -> Result<Option<i64>, StoreError> { row.try_get(name).map_err(decode_err) };
    let text = |name: &str| -> Result<String, StoreError> { row.try_get(name).map_err(decode_err) };
    let optional_text = |name: &str| -> Result<Option<String>, StoreError> { row.try_get(name).map_err(decode_err) };
    let decimal = |name: &str| parse_column(name, &text(name)?, |t| t.parse::<Decimal>().ok());
    let optional_decimal = |name: &str| {
        optional_text(name)?
            .map(|t| parse_column(name, &t, |t| t.parse::<Decimal>().ok()))
            .transpose()
    };
    fn wire<T: WireEnum>(name: &str, text: String) -> Result<T, StoreError> {
        parse_column(name, &text, T::parse)
    }
    Ok(Order {
        seq: get("seq")?,
        order_id: text("order_id")?.into(),
        account_id: text("account_id")?.into(),
        client_order_id: text("client_order_id")?.into(),
        client_combo_order_id: optional_text("client_combo_order_id")?,
        combo_type: wire("combo_type", text("combo_type")?)?,
        combo: match optional_text("combo_order_id")? {
            Some(combo_order_id) => Some(Combo {
                combo_order_id: combo_order_id.into(),
                kind: parse_column("combo kind", &text("combo_kind")?, ComboKind::parse)?,
            }),
            None => None,
        },
        waits_for: optional_text("waits_for")?.map(OrderId::from),
        instrument_id: match optional_int("option_contract_id")? {
            Some(contract_id) => contract_id,
            None => get("instrument_id")?,
        },
        symbol: text("symbol")?,
        side: wire("side", text("side")?)?,
        order_type: wire("order_type", text("order_type")?)?,
        time_in_force: wire("time_in_force", text("time_in_force")?)?,
        quantity: decimal("quantity")?,
        cash_amount: optional_decimal("cash_amount")?,
        limit_price: optional_decimal("limit_price")?,
        stop_price: optional_decimal("stop_price")?,
        trailing: match optional_text("trailing_type")? {
            Some(kind) => Some(Trailing {
                kind: parse_column("trailing_type", &kind, TrailingType::parse)?,
                step: optional_decimal("trailing_step")?.unwrap_or_default(),
            }),
            None => None,
        },
        triggered_at: optional_int("triggered_at")?.map(SimTime),
        session: wire("support_trading_session", text("support_trading_session")?)?,
        status: wire("status", text("status")?)?,
        filled_quantity: decimal("filled_quantity")?,
        filled_amount: decimal("filled_amount")?,
        reason: optional_text("reason")?,
        expires_at_sim: optional_int("expires_at_sim")?.map(SimTime),
        place_time: WallTime(get("place_time")?),
        fill_time: optional_int("fill_time")?.map(WallTime),
        update_time: WallTime(get("update_time")?),
        filled_at_sim: optional_int("filled_at_sim")?.map(SimTime),
        fill_plan: optional_text("fill_plan")?
            .map(|t| parse_column("fill_plan", &t, FillPlan::decode))
            .transpose()?,
        position_intent: optional_text("position_intent")?
            .map(|t| parse_column("position_intent", &t, PositionIntent::parse))
            .transpose()?,
        multi_leg: optional_text("legs")?
            .map(|t| parse_column("legs", &t, MultiLeg::decode))
            .transpose()?,
    })
}

pub const BAR_COLUMNS: &str = "day, open_e6, high_e6, low_e6, close_e6, volume, adj_close_e6";

/// The columns of a minute bar, as [`MinuteRow`] reads them.
pub const MINUTE_COLUMNS: &str = "minute, open_e6, high_e6, low_e6, close_e6, volume";

/// A row of [`MINUTE_COLUMNS`].
pub type MinuteRow = (i32, i64, i64, i64, i64, i64);

/// A minute bar from a row of [`MINUTE_COLUMNS`]; a minute that is no minute of a session is an
/// error (the import writes none).
pub fn minute_from_row((minute, open, high, low, close, volume): MinuteRow) -> Result<MinuteBar, StoreError> {
    let minute =
        u16::try_from(minute).map_err(|_| StoreError::Other(format!("unexpected minute {minute} in the database")))?;
    Ok(MinuteBar {
        minute,
        open,
        high,
        low,
        close,
        volume,
    })
}

impl<'r, R: Row> FromRow<'r, R> for Decoded<Order>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Column<R::Database>,
    i64: Column<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        order_from_row(row).map(Decoded).map_err(as_sqlx)
    }
}

/// An order read by the change feed, after the `cursor` its statement's snapshot gives.
impl<'r, R: Row> FromRow<'r, R> for Decoded<(String, Order)>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Column<R::Database>,
    i64: Column<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        let cursor: String = row.try_get("cursor")?;
        order_from_row(row)
            .map(|order| Decoded((cursor, order)))
            .map_err(as_sqlx)
    }
}

/// A row of an account's change feed: the `cursor`, whether the account's row changed
/// (`account_moved`), and an order that changed, none in the one row of a read that found none.
impl<'r, R: Row> FromRow<'r, R> for Decoded<(String, bool, Option<Order>)>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Column<R::Database>,
    Option<String>: Column<R::Database>,
    bool: Column<R::Database>,
    i64: Column<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        let cursor: String = row.try_get("cursor")?;
        let moved: bool = row.try_get("account_moved")?;
        let order_id: Option<String> = row.try_get("order_id")?;
        let order = match order_id {
            Some(_) => Some(order_from_row(row).map_err(as_sqlx)?),
            None => None,
        };
        Ok(Decoded((cursor, moved, order)))
    }
}

/// A bar from the columns of [`BAR_COLUMNS`].
pub fn bar_from_row<R: Row>(row: &R) -> Result<Bar, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    i32: Column<R::Database>,
    i64: Column<R::Database>,
{
    let get = || -> Result<Bar, sqlx::Error> {
        Ok(Bar {
            day: row.try_get("day")?,
            open: row.try_get("open_e6")?,
            high: row.try_get("high_e6")?,
            low: row.try_get("low_e6")?,
            close: row.try_get("close_e6")?,
            volume: row.try_get("volume")?,
            adj_close: row.try_get("adj_close_e6")?,
        })
    };
    get().map_err(decode_err)
}

impl<'r, R: Row> FromRow<'r, R> for Decoded<Bar>
where
    for<'a> &'a str: ColumnIndex<R>,
    i32: Column<R::Database>,
    i64: Column<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        bar_from_row(row).map(Decoded).map_err(as_sqlx)
    }
}

/// A bar with its instrument's id (`instrument_id` then the columns of [`BAR_COLUMNS`]).
impl<'r, R: Row> FromRow<'r, R> for Decoded<(i64, Bar)>
where
    for<'a> &'a str: ColumnIndex<R>,
    i32: Column<R::Database>,
    i64: Column<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        let id: i64 = row.try_get("instrument_id")?;
        bar_from_row(row).map(|bar| Decoded((id, bar))).map_err(as_sqlx)
    }
}

pub const INSTRUMENT_COLUMNS: &str =
    "instrument_id, symbol, name, exchange, cik, sector, industry, instrument_type, currency,
    shares_outstanding, eps_ttm_e6, indices";

/// An instrument from the columns of [`INSTRUMENT_COLUMNS`].
pub fn instrument_from_row<R: Row>(row: &R) -> Result<Instrument, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Column<R::Database>,
    i64: Column<R::Database>,
{
    let kind: String = row.try_get("instrument_type").map_err(decode_err)?;
    let instrument_type = parse_column("instrument type", &kind, InstrumentType::parse)?;
    let get = || -> Result<Instrument, sqlx::Error> {
        Ok(Instrument {
            instrument_id: row.try_get("instrument_id")?,
            symbol: row.try_get("symbol")?,
            name: row.try_get("name")?,
            exchange: row.try_get("exchange")?,
            cik: row.try_get("cik")?,
            sector: row.try_get("sector")?,
            industry: row.try_get("industry")?,
            instrument_type,
            currency: row.try_get("currency")?,
            shares_outstanding: row.try_get("shares_outstanding")?,
            eps_ttm_e6: row.try_get("eps_ttm_e6")?,
            indices: row.try_get("indices")?,
        })
    };
    get().map_err(decode_err)
}

impl<'r, R: Row> FromRow<'r, R> for Decoded<Instrument>
where
    for<'a> &'a str: ColumnIndex<R>,
    String: Column<R::Database>,
    i64: Column<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        instrument_from_row(row).map(Decoded).map_err(as_sqlx)
    }
}

pub const SNAPSHOT_COLUMNS: &str =
    "s.day, s.price_e6, s.pre_close_e6, s.open_e6, s.high_e6, s.low_e6, s.close_e6, s.volume,
    s.turnover, s.change_ratio, s.close_5d_e6, s.close_1m_e6, s.close_3m_e6, s.close_52w_e6, s.amplitude,
    s.relative_volume_10d, s.turnover_rate, s.market_value, s.pe_ttm, s.dividend_e6, s.dividend_yield, s.ex_day,
    s.high_52w_e6, s.low_52w_e6";

/// A snapshot from the columns of [`SNAPSHOT_COLUMNS`], starting at column `offset`.
pub fn snapshot_from_row<R: Row>(row: &R, instrument_id: i64, offset: usize) -> Result<Snapshot, StoreError>
where
    usize: ColumnIndex<R>,
    i32: Column<R::Database>,
    i64: Column<R::Database>,
    f64: Column<R::Database>,
{
    let at = |i: usize| offset + i;
    let get = || -> Result<Snapshot, sqlx::Error> {
        Ok(Snapshot {
            instrument_id,
            day: row.try_get(at(0))?,
            price: row.try_get(at(1))?,
            pre_close: row.try_get(at(2))?,
            open: row.try_get(at(3))?,
            high: row.try_get(at(4))?,
            low: row.try_get(at(5))?,
            close: row.try_get(at(6))?,
            volume: row.try_get(at(7))?,
            turnover: row.try_get(at(8))?,
            change_ratio: row.try_get(at(9))?,
            close_5d: row.try_get(at(10))?,
            close_1m: row.try_get(at(11))?,
            close_3m: row.try_get(at(12))?,
            close_52w: row.try_get(at(13))?,
            amplitude: row.try_get(at(14))?,
            relative_volume_10d: row.try_get(at(15))?,
            turnover_rate: row.try_get(at(16))?,
            market_value: row.try_get(at(17))?,
            pe_ttm: row.try_get(at(18))?,
            dividend: row.try_get(at(19))?,
            dividend_yield: row.try_get(at(20))?,
            ex_day: row.try_get(at(21))?,
            high_52w: row.try_get(at(22))?,
            low_52w: row.try_get(at(23))?,
        })
    };
    get().map_err(decode_err)
}

/// A screener's row: `instrument_id, symbol, name, exchange, currency`, then the columns of
/// [`SNAPSHOT_COLUMNS`].
impl<'r, R: Row> FromRow<'r, R> for Decoded<ScreenRow>
where
    usize: ColumnIndex<R>,
    i32: Column<R::Database>,
    i64: Column<R::Database>,
    f64: Column<R::Database>,
    String: Column<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        let instrument_id: i64 = row.try_get(0)?;
        Ok(Decoded(ScreenRow {
            instrument_id,
            symbol: row.try_get(1)?,
            name: row.try_get(2)?,
            exchange: row.try_get(3)?,
            currency: row.try_get(4)?,
            snapshot: snapshot_from_row(row, instrument_id, 5).map_err(as_sqlx)?,
        }))
    }
}

/// An equity of an industry, from the columns of the industry comparison's query.
impl<'r, R: Row> FromRow<'r, R> for Decoded<Peer>
where
    for<'a> &'a str: ColumnIndex<R>,
    i32: Column<R::Database>,
    i64: Column<R::Database>,
    f64: Column<R::Database>,
    bool: Column<R::Database>,
    String: Column<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        Ok(Decoded(Peer {
            instrument_id: row.try_get("instrument_id")?,
            symbol: row.try_get("symbol")?,
            name: row.try_get("name")?,
            cik: row.try_get("cik")?,
            eps_ttm_e6: row.try_get("eps_ttm_e6")?,
            shares_outstanding: row.try_get("shares_outstanding")?,
            price_e6: row.try_get("price_e6")?,
            pe_ttm: row.try_get("pe_ttm")?,
            dividend_e6: row.try_get("dividend_e6")?,
            dividend_yield: row.try_get("dividend_yield")?,
            day: row.try_get("day")?,
            has_facts: row.try_get("has_facts")?,
        }))
    }
}

/// The SQL of a metric over the columns of [`SNAPSHOT_COLUMNS`] (unqualified).
pub fn metric_sql(metric: Metric) -> &'static str {
    match metric {
        Metric::ChangeRatio(period) => change_sql(period),
        Metric::Volume => "volume",
        Metric::Turnover => "turnover",
        Metric::TurnoverRate => "turnover_rate",
        Metric::Amplitude => "amplitude",
        Metric::RelativeVolume10d => "relative_volume_10d",
        Metric::MarketValue => "market_value",
        Metric::PeTtm => "pe_ttm",
        Metric::Price => "price_e6",
        Metric::Close => "close_e6",
        Metric::High => "high_e6",
        Metric::Low => "low_e6",
        Metric::DividendYield => "dividend_yield",
        Metric::Dividend => "dividend_e6",
    }
}

/// The change ratio over a period, in floating point in both backends; NULL without the history
/// to measure it.
pub fn change_sql(period: Period) -> &'static str {
    match period {
        Period::Day1 => "change_ratio",
        Period::Day5 => "(CAST(price_e6 AS DOUBLE PRECISION) / NULLIF(close_5d_e6, 0) - 1)",
        Period::Month1 => "(CAST(price_e6 AS DOUBLE PRECISION) / NULLIF(close_1m_e6, 0) - 1)",
        Period::Month3 => "(CAST(price_e6 AS DOUBLE PRECISION) / NULLIF(close_3m_e6, 0) - 1)",
        Period::Week52 => "(CAST(price_e6 AS DOUBLE PRECISION) / NULLIF(close_52w_e6, 0) - 1)",
    }
}

pub fn direction_sql(direction: Direction) -> &'static str {
    match direction {
        Direction::Asc => "ASC",
        Direction::Desc => "DESC",
    }
}

/// `ORDER BY` a metric with unknown values last either way, then by symbol.
pub fn push_order(query: &mut Query<'_>, (metric, direction): (Metric, Direction)) {
    let sql = metric_sql(metric);
    query.push(&format!(
        " ORDER BY ({sql}) IS NULL, {sql} {}, symbol",
        direction_sql(direction)
    ));
}

/// How an order's instrument is stored: `orders.instrument_id` refers to `instruments`, which
/// holds no option contract, so an option order keeps its underlying's id there and the
/// contract's in `option_contract_id` (NULL for any other order). [`order_from_row`] reads
/// the order's instrument back as `COALESCE(option_contract_id, instrument_id)`.
pub fn stored_instrument(instrument_id: i64) -> (i64, Option<i64>) {
    match Contract::of_id(instrument_id) {
        Some(parts) => (parts.underlying_id, Some(instrument_id)),
        None => (instrument_id, None),
    }
}

/// A multi-row INSERT of new orders, after `prefix` (a `WITH ... AS (`, or nothing), for the
/// caller to finish with its conflict clause.
pub fn order_insert<'q>(prefix: &'static str, orders: &[&'q Order]) -> Query<'q> {
    let mut query = crate::sql::query::query(prefix);
    query.push(
        "INSERT INTO orders (order_id, account_id, client_order_id, client_combo_order_id, combo_type,
             combo_order_id, combo_kind, waits_for, instrument_id, option_contract_id, symbol, side, order_type,
             time_in_force, entrust_type, quantity, cash_amount, limit_price, stop_price, trailing_type, trailing_step,
             triggered_at, support_trading_session, status, filled_quantity, filled_amount, reason,
             expires_at_sim, place_time, fill_time, update_time, filled_at_sim, fill_plan, position_intent, legs) ",
    );
    query.push_values(orders.iter().copied(), |row, o| {
        let (instrument_id, option_contract_id) = stored_instrument(o.instrument_id);
        row.bind(&o.order_id)
            .bind(&o.account_id)
            .bind(&o.client_order_id)
            .bind(o.client_combo_order_id.as_ref())
            .bind(o.combo_type.as_str())
            .bind(o.combo.as_ref().map(|c| &c.combo_order_id))
            .bind(o.combo.as_ref().map(|c| c.kind.as_str()))
            .bind(o.waits_for.as_ref())
            .bind(instrument_id)
            .bind(option_contract_id)
            .bind(&o.symbol)
            .bind(o.side.as_str())
            .bind(o.order_type.as_str())
            .bind(o.time_in_force.as_str())
            .bind(o.entrust_type().as_str())
            .bind(o.quantity.to_string())
            .bind(o.cash_amount.map(|a| a.to_string()))
            .bind(o.limit_price.map(|p| p.to_string()))
            .bind(o.stop_price.map(|p| p.to_string()))
            .bind(o.trailing.map(|t| t.kind.as_str()))
            .bind(o.trailing.map(|t| t.step.to_string()))
            .bind(o.triggered_at)
            .bind(o.session.as_str())
            .bind(o.status.as_str())
            .bind(o.filled_quantity.to_string())
            .bind(o.filled_amount.to_string())
            .bind(o.reason.as_ref())
            .bind(o.expires_at_sim)
            .bind(o.place_time)
            .bind(o.fill_time)
            .bind(o.update_time)
            .bind(o.filled_at_sim)
            .bind(o.fill_plan.as_ref().map(FillPlan::encode))
            .bind(o.position_intent.map(WireEnum::as_str))
            .bind(o.multi_leg.as_ref().map(MultiLeg::encode));
    });
    query
}
