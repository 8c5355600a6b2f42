//! The trading area: accounts and orders (the engine that fills them is the `engine` module).

pub(crate) mod accounts;
pub mod orders;

use utoipa_axum::router::OpenApiRouter;

use crate::app::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    accounts::routes().merge(orders::routes())
}
