//! `signet serve --compat legacy`: what shipped clients still send although the interface
//! retired it (catalog section 0, "legacy" rows, and section 9). Off by default; with it the
//! server also accepts `x-version: v2` on the legacy calls, `x-version: v1` (the earlier SDK
//! generation) on the v1 trade calls and that generation's market-data paths, the legacy
//! screener and fund-dividend paths, HMAC-SHA1 signatures over an MD5 body digest, and strings to sign
//! percent-encoded as Java's `URLEncoder` does. Each acceptance is counted in the metrics
//! (`signet_legacy_acceptances_total`), so that an operator sees who still needs it.

/// What the server accepts beyond the specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// The specification only.
    #[default]
    Strict,
    /// The specification, and the retired calls and schemes shipped clients still use.
    Legacy,
}

/// The value of `x-version` a request was accepted with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApiVersion {
    #[default]
    V3,
    /// Selects the older pagination (`page_size`, `last_client_order_id`) on the calls that
    /// share a path across versions.
    V2,
}

/// A legacy path: the method and path shipped clients still send, and the current call (method
/// and path) that replaced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retired {
    pub method: &'static str,
    pub path: &'static str,
    pub current_method: &'static str,
    pub current: &'static str,
}

const fn get(path: &'static str, current: &'static str) -> Retired {
    Retired {
        method: "GET",
        path,
        current_method: "GET",
        current,
    }
}

const fn post(path: &'static str, current: &'static str) -> Retired {
    Retired {
        method: "POST",
        path,
        current_method: "POST",
        current,
    }
}

/// A GET path whose current call is a POST.
const fn get_now_post(path: &'static str, current: &'static str) -> Retired {
    Retired {
        method: "GET",
        path,
        current_method: "POST",
        current,
    }
}

/// The legacy paths and the current call that replaced each.
pub const PATHS: [Retired; 35] = [
    get(
        "/openapi/market-data/screener/gainers-losers",
        "/market-data/screeners/gainers-losers/list",
    ),
    get(
        "/openapi/market-data/screener/top-active",
        "/market-data/screeners/top-actives/list",
    ),
    get(
        "/openapi/market-data/screener/market-sectors",
        "/market-data/screeners/market-sectors/list",
    ),
    get(
        "/openapi/market-data/screener/market-sectors-detail",
        "/market-data/screeners/market-sectors/get",
    ),
    get(
        "/openapi/market-data/screener/high-dividend",
        "/market-data/screeners/high-dividend-ranks/list",
    ),
    get(
        "/openapi/market-data/screener/52whl",
        "/market-data/screeners/week52-high-low/list",
    ),
    get(
        "/openapi/fundamentals/fund/dividends",
        "/market-data/fundamentals/fund-dividends/get",
    ),
    get(
        "/openapi/instrument/stock/list",
        "/trading/instruments/stocks/profiles/list",
    ),
    get("/openapi/assets/position/details", "/trading/assets/positions/get"),
    // The earlier account list (specification section 9).
    get("/app/subscriptions/list", "/trading/accounts/list"),
    // The order calls' paths before the change of 2026-08-22 (the client's `order_v2`).
    post("/openapi/trade/stock/order/preview", "/trading/orders/preview"),
    post("/openapi/trade/stock/order/place", "/trading/orders/place"),
    post("/openapi/trade/stock/order/replace", "/trading/orders/replace"),
    post("/openapi/trade/stock/order/cancel", "/trading/orders/cancel"),
    get("/openapi/trade/order/detail", "/trading/orders/get"),
    get("/openapi/trade/order/open", "/trading/orders/open-orders/list"),
    get("/openapi/trade/order/history", "/trading/orders/historical-orders/list"),
    // The cash activities' earlier path (the client's `activity.get_activities`, x-version v2).
    get(
        "/openapi/trade/activities/cash",
        "/trading/activities/cash-activities/list",
    ),
    // The earlier SDK generation's account and order calls (`webull-python-sdk-trade` 0.1.x,
    // `account_v2` and `order_v2`, x-version v1).
    get("/openapi/account/list", "/trading/accounts/list"),
    get("/openapi/account/balance", "/trading/assets/balances/get"),
    get("/openapi/account/positions", "/trading/assets/positions/list"),
    get("/openapi/account/position/details", "/trading/assets/positions/get"),
    get("/account/position/details", "/trading/assets/positions/get"),
    post("/openapi/account/orders/preview", "/trading/orders/preview"),
    post("/openapi/account/orders/place", "/trading/orders/place"),
    post("/openapi/account/orders/replace", "/trading/orders/replace"),
    post("/openapi/account/orders/cancel", "/trading/orders/cancel"),
    get("/openapi/account/orders/detail", "/trading/orders/get"),
    get(
        "/openapi/account/orders/history",
        "/trading/orders/historical-orders/list",
    ),
    // The earlier SDK generation's market data (`webull-python-sdk-mdata` 0.1.x, x-version v1).
    get("/instrument/list", "/trading/instruments/stocks/profiles/list"),
    get("/market-data/snapshot", "/market-data/stocks/snapshots/list"),
    get("/market-data/quotes", "/market-data/stocks/depths/list"),
    get("/market-data/tick", "/market-data/stocks/ticks/list"),
    get_now_post("/market-data/bars", "/market-data/stocks/bars/list"),
    post("/market-data/batch-bars", "/market-data/stocks/bars/list"),
];

/// The calls that share their path across versions, `x-version` choosing the pagination.
pub const V2_SHARED_PATHS: [&str; 5] = [
    "/trading/activities/cash-activities/list",
    "/trading/orders/open-orders/list",
    "/trading/orders/historical-orders/list",
    "/trading/orders/executions/list",
    "/trading/assets/positions/get",
];

/// Whether `path` is a legacy path.
pub fn is_legacy_path(path: &str) -> bool {
    replacement(path).is_some()
}

/// The legacy path `path`, with the current call that replaced it.
pub fn replacement(path: &str) -> Option<&'static Retired> {
    PATHS.iter().find(|r| r.path == path)
}

/// The v1 trade calls, which the earlier SDK generation sends with `x-version: v1`.
pub const V1_PATHS: [&str; 15] = [
    "/app/subscriptions/list",
    "/account/profile",
    "/account/balance",
    "/account/positions",
    "/trade/order/place",
    "/trade/order/replace",
    "/trade/order/cancel",
    "/trade/order/detail",
    "/trade/orders/list-open",
    "/trade/orders/list-today",
    "/trade/calendar",
    "/trade/instrument",
    "/trade/security",
    "/trade/instrument/tradable/list",
    // The earlier generation's own (legacy, in `PATHS`).
    "/account/position/details",
];

/// The earlier SDK generation's market-data calls, which it sends with `x-version: v1`: its own
/// paths (legacy, in [`PATHS`]) and the end-of-day calls, which kept their paths.
pub const V1_MARKET_DATA_PATHS: [&str; 8] = [
    "/instrument/list",
    "/market-data/snapshot",
    "/market-data/quotes",
    "/market-data/tick",
    "/market-data/bars",
    "/market-data/batch-bars",
    "/market-data/eod-bars",
    "/instrument/corp-action",
];

/// Whether a request to `path` may carry `x-version: v1` in legacy mode: the v1 trade calls, the
/// earlier generation's account, order and market-data calls, and the order calls' earlier paths.
pub fn accepts_v1(path: &str) -> bool {
    V1_PATHS.contains(&path)
        || V1_MARKET_DATA_PATHS.contains(&path)
        || ((path.starts_with("/openapi/trade/") || path.starts_with("/openapi/account/")) && is_legacy_path(path))
}

/// Whether a request to `path` may carry `x-version: v2` in legacy mode.
pub fn accepts_v2(path: &str) -> bool {
    is_legacy_path(path) || V2_SHARED_PATHS.contains(&path)
}
