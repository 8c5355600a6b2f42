//! The trading area: accounts and orders (the engine that fills them is in `crate::engine`).

pub(crate) mod accounts;
pub mod orders;
pub mod reservations;

use axum::Router;

use crate::app::AppState;

pub fn routes() -> Router<AppState> {
    accounts::routes().merge(orders::routes())
}
