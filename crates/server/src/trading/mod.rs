//! The trading area: accounts now; orders arrive with the paper-trading engine.

mod accounts;

use axum::Router;

use crate::app::AppState;

pub fn routes() -> Router<AppState> {
    accounts::routes()
}
