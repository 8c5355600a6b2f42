//! The gateway's requests: each decodes its payload, asks the code behind the same HTTP call
//! (the earlier generation's `/instrument/list` and `/market-data/*`, the MQTT feed's
//! subscribe), and encodes the answer in that generation's `quote.proto`. An empty string
//! field counts as absent, as proto3 cannot tell them apart.

use prost::Message;
use signet_model::ErrorCode;
use signet_model::gateway::{self as pb, path};
use signet_model::quotes::{BarsRequest, DepthLevel};

use crate::error::ApiError;
use crate::marketdata::bar_rows::BarRow;
use crate::marketdata::stocks::data::{self as stocks, Params};
use crate::marketdata::streaming::subscriptions::{Wanted, subscribe_session, unsubscribe_session};
use crate::state::AppState;
use crate::streaming::sessions::{Refusal, Session, Topics};

/// The encoded answer of the request of `path` with `payload`, for `app_key`.
pub(super) async fn call(state: &AppState, app_key: &str, path: &str, payload: &[u8]) -> Result<Vec<u8>, ApiError> {
    let answer = match path {
        path::INSTRUMENTS => {
            let r: pb::InstrumentRequest = decode(payload)?;
            let rows = crate::trading::instruments::lookup::earlier_lookup(
                state,
                given(r.symbols).as_deref(),
                given(r.category).as_deref(),
            )
            .await?;
            let result = rows
                .into_iter()
                .map(|i| pb::Instrument {
                    name: i.name,
                    symbol: i.symbol,
                    instrument_id: i.instrument_id,
                    exchange_code: i.exchange_code,
                    currency: i.currency,
                })
                .collect();
            pb::InstrumentResponse { result }.encode_to_vec()
        }
        path::SNAPSHOT => {
            let r: pb::SnapshotRequest = decode(payload)?;
            let p = Params {
                symbols: given(r.symbols),
                category: given(r.category),
                ..Params::default()
            };
            let result = stocks::snapshot_list(state, &p)
                .await?
                .into_iter()
                .map(snapshot)
                .collect();
            pb::SnapshotResponse { result }.encode_to_vec()
        }
        path::QUOTES => {
            let r: pb::QuoteRequest = decode(payload)?;
            let p = Params {
                symbol: given(r.symbol),
                category: given(r.category),
                ..Params::default()
            };
            let depth = stocks::depth_of(state, &p).await?;
            pb::QuoteResponse {
                symbol: depth.symbol,
                instrument_id: depth.instrument_id,
                asks: depth.asks.into_iter().map(level).collect(),
                bids: depth.bids.into_iter().map(level).collect(),
            }
            .encode_to_vec()
        }
        path::TICK => {
            let r: pb::TickRequest = decode(payload)?;
            let p = Params {
                symbol: given(r.symbol),
                category: given(r.category),
                count: given(r.count),
                ..Params::default()
            };
            let ticks = stocks::ticks_of(state, &p).await?;
            pb::TickResponse {
                symbol: ticks.symbol,
                instrument_id: ticks.instrument_id,
                result: ticks
                    .result
                    .into_iter()
                    .map(|t| pb::Tick {
                        time: t.time,
                        price: t.price,
                        volume: t.volume,
                        side: t.side,
                    })
                    .collect(),
            }
            .encode_to_vec()
        }
        path::BARS => {
            let r: pb::BarsRequest = decode(payload)?;
            let p = Params {
                symbol: given(r.symbol),
                category: given(r.category),
                timespan: given(r.timespan),
                count: given(r.count),
                real_time_required: given(r.real_time_required),
                trading_sessions: given(r.trading_sessions),
                ..Params::default()
            };
            let request = stocks::one_symbol_bars(&p)?;
            let mut groups = stocks::bar_groups(state, &request).await?;
            let (symbol, id, rows) = groups.swap_remove(0);
            bars(symbol, id, &rows).encode_to_vec()
        }
        path::BATCH_BARS => {
            let r: pb::BatchBarsRequest = decode(payload)?;
            let request = BarsRequest {
                symbols: r.symbols,
                category: given(r.category),
                timespan: r.timespan,
                count: (r.count != 0).then(|| r.count.into()),
                real_time_required: flag("real_time_required", &r.real_time_required)?,
                trading_sessions: (!r.trading_sessions.is_empty()).then(|| r.trading_sessions.join(",")),
                start_time: None,
                end_time: None,
            };
            let groups = stocks::bar_groups(state, &request).await?;
            let result = groups
                .into_iter()
                .map(|(symbol, id, rows)| bars(symbol, id, &rows))
                .collect();
            pb::BatchBarsResponse { result }.encode_to_vec()
        }
        path::TOKEN => pb::TokenResponse { token: token()? }.encode_to_vec(),
        path::SUBSCRIBE => {
            let r: pb::SubscribeRequest = decode(payload)?;
            let session = session(state, app_key, &r.token)?;
            state.streams.bind(&session, Topics::Earlier)?;
            subscribe_session(state, &session, &wanted(&r), None).await?;
            pb::SubscribeResponse {}.encode_to_vec()
        }
        path::UNSUBSCRIBE => {
            let r: pb::SubscribeRequest = decode(payload)?;
            let session = session(state, app_key, &r.token)?;
            let all = flag("unsubscribe_all", &r.unsubscribe_all)? == Some(true);
            unsubscribe_session(state, &session, &wanted(&r), all)?;
            pb::SubscribeResponse {}.encode_to_vec()
        }
        other => {
            return Err(ApiError::not_found(format!(
                "the quotes gateway has no request {:?}: it answers /instrument/list, /market-data/snapshot, quotes, \
                 tick, bars, batch-bars and /market-data/streaming/token, subscribe and unsubscribe",
                other.chars().take(64).collect::<String>()
            )));
        }
    };
    Ok(answer)
}

fn decode<M: Message + Default>(payload: &[u8]) -> Result<M, ApiError> {
    M::decode(payload).map_err(|_| ApiError::illegal_parameter("the request's payload does not decode"))
}

/// A string field, `None` when empty.
fn given(value: String) -> Option<String> {
    (!value.trim().is_empty()).then_some(value)
}

/// A `"true"`/`"false"` field (also `1`/`0`); `None` when empty.
fn flag(name: &str, value: &str) -> Result<Option<bool>, ApiError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "true" | "1" => Ok(Some(true)),
        "false" | "0" => Ok(Some(false)),
        _ => Err(ApiError::illegal_parameter(format!("{name} must be true or false"))),
    }
}

/// A token for the MQTT feed, written like Webull's (a UUID). signet keeps no list of them: the
/// client connects with it as its password, and a subscribe naming it binds the app's connection
/// that did (see [`session`]).
fn token() -> Result<String, ApiError> {
    let hex = crate::secrets::random_hex::<16>()?;
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    ))
}

/// The app's MQTT connection on this node whose password is `token`.
fn session(state: &AppState, app_key: &str, token: &str) -> Result<std::sync::Arc<Session>, ApiError> {
    if token.trim().is_empty() {
        return Err(ApiError::illegal_parameter(
            "token is required: get one with /market-data/streaming/token",
        ));
    }
    state
        .streams
        .session_with_password(app_key, token.as_bytes())
        .map_err(|refusal| match refusal {
            Refusal::NotConnected => ApiError::new(
                ErrorCode::SessionNotConnected,
                "no MQTT connection of this app on this server has this token as its password: connect first \
                 (user name = app key, password = the token of /market-data/streaming/token)",
            ),
            other => other.into(),
        })
}

fn wanted(r: &pb::SubscribeRequest) -> Wanted<'_> {
    Wanted {
        category: Some(r.category.as_str()).filter(|c| !c.is_empty()),
        sub_types: Some(r.sub_types.as_slice()).filter(|t| !t.is_empty()),
        symbols: Some(r.symbols.as_slice()).filter(|s| !s.is_empty()),
    }
}

fn snapshot(s: signet_model::quotes::Snapshot) -> pb::Snapshot {
    pb::Snapshot {
        symbol: s.symbol,
        instrument_id: s.instrument_id,
        trade_time: s.last_trade_time.to_string(),
        price: s.price,
        open: s.open.unwrap_or_default(),
        high: s.high.unwrap_or_default(),
        low: s.low.unwrap_or_default(),
        pre_close: s.pre_close,
        volume: s.volume.unwrap_or_default(),
        change: s.change.unwrap_or_default(),
        change_ratio: s.change_ratio.unwrap_or_default(),
    }
}

fn level(l: DepthLevel) -> pb::AskBid {
    pb::AskBid {
        price: l.price,
        size: l.size,
        order: l
            .order
            .into_iter()
            .map(|o| pb::Order {
                mpid: o.mpid,
                size: o.size,
            })
            .collect(),
        broker: Vec::new(),
    }
}

fn bars(symbol: String, instrument_id: i64, rows: &[BarRow]) -> pb::BarsResponse {
    pb::BarsResponse {
        symbol,
        instrument_id: instrument_id.to_string(),
        result: rows
            .iter()
            .map(|row| {
                let [time, open, close, high, low, volume] = row.texts();
                pb::Bar {
                    time,
                    open,
                    close,
                    high,
                    low,
                    volume,
                }
            })
            .collect(),
    }
}
