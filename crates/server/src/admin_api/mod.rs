//! The admin API under `/admin/`: signed calls, only for apps created with `--admin`, that drive
//! the sandbox itself rather than an account (the market simulator: [`market`]). `signet market`
//! and the console call them.

pub mod market;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().merge(market::routes())
}
