//! Every generation of the official clients the server answers besides the current interface,
//! in one place: each module is a table from a generation's paths, versions and shapes onto the
//! operations the current calls use (the core's `Orders`, `trading::assets`,
//! `marketdata::stocks::data`, `trading::instruments::lookup`), and maps the answers back. None
//! builds, prices or changes an order itself; the trade instrument lookups alone still read the
//! store directly.
//!
//! | module | generation | what it serves | mounted |
//! |---|---|---|---|
//! | [`compat`] | all | `--compat legacy`: which retired paths exist ([`compat::PATHS`]), which take `x-version` v2 or v1 | — |
//! | [`v1`] | 3.0.4's `TradeClient.account`/`.order`, and the 0.1.18 SDK | the v1 trading calls `/account/*`, `/trade/*` | always |
//! | [`trade_instruments`] | 3.0.4's `TradeClient.trade_instrument` | `/trade/instrument*`, `/trade/security` | always |
//! | [`order_v2`] | 3.0.4's `TradeClient.order_v2` (the paths before 2026-08-22) | `/openapi/trade/stock/order/*`, `/openapi/trade/order/*` | legacy |
//! | [`openapi_account`] | the 0.1.18 SDK's `account_v2`/`order_v2` | `/openapi/account/*` | legacy |
//! | [`earlier_market_data`] | the 0.1.18 SDK's market data | `/market-data/{snapshot,quotes,tick,bars,batch-bars}` | legacy |
//! | [`gateway`] | the 0.1.18 SDK's quotes gateway | gRPC `openapi.Quote/StreamRequest` | legacy |
//!
//! The retired paths that live beside their current call in the same module (the legacy
//! screeners, fund dividends, instrument list, assets and activities) are mounted by their
//! areas' `legacy_routes`.

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub mod compat;
pub mod earlier_market_data;
pub mod gateway;
pub mod openapi_account;
pub mod order_v2;
pub mod trade_instruments;
pub mod v1;

/// The earlier generations' calls that every server answers.
pub fn routes() -> OpenApiRouter<AppState> {
    v1::routes().merge(trade_instruments::routes())
}

/// The earlier generations' retired calls, mounted only under `--compat legacy`.
pub fn legacy_routes() -> OpenApiRouter<AppState> {
    v1::legacy_routes()
        .merge(order_v2::legacy_routes())
        .merge(openapi_account::legacy_routes())
        .merge(earlier_market_data::legacy_routes())
}
