//! The OpenAPI 3.1 document of the interface, served unsigned at `GET /openapi.json` and
//! committed as `docs/openapi.json` (`tests/api/openapi.rs` fails when the two differ; regenerate
//! with `SIGNET_UPDATE_OPENAPI=1 cargo test -p signet-server --test api openapi`).
//!
//! Each operation is described by the `#[utoipa::path]` attribute on its handler, which its
//! area's router mounts with `routes!` and [`crate::router`] gathers (`documented_routes`, handed
//! to [`document`]); each body by the
//! `ToSchema` derive on its wire type in `signet-model`. What every signed operation shares is
//! added here, once: the seven headers of section 5.1, the signature as the security scheme,
//! and the error answers of the authentication layer.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use signet_model::orders::{OrderPage, OrderRecord};
use utoipa::{IntoResponses, OpenApi, ToSchema};

/// The operations that pass no authentication layer.
pub const UNSIGNED: [&str; 3] = ["/health", "/metrics", "/openapi.json"];

/// `/health`'s answer.
#[derive(ToSchema)]
pub struct Health {
    /// Always `ok`.
    #[schema(pattern = "^ok$", example = "ok")]
    pub status: String,
}

/// The answer of open orders and order history: a page with x-version v3; a bare array of orders
/// with x-version v2 (only under `--compat legacy`).
#[derive(serde::Serialize, ToSchema)]
#[serde(untagged)]
pub enum OrderListAnswer {
    Page(OrderPage),
    Legacy(Vec<OrderRecord>),
}

// The refusal of the order and simulator calls that name a symbol; as every `IntoResponses`
// type, its doc comment is the response's description.
/// INSTRUMENT_NOT_FOUND: no instrument has the symbol
#[derive(IntoResponses)]
#[response(status = 404)]
pub struct InstrumentNotFound(pub signet_model::ErrorBody);

#[derive(OpenApi)]
#[openapi(
    info(
        title = "signet",
        description = "A signed-request brokerage interface: trading on a paper-trading engine, screeners, watchlists and fundamentals. Every operation but `/health`, `/metrics` and `/openapi.json` is signed as the `signature` security scheme describes.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    components(schemas(
        // Schemas of query parameters, which utoipa does not collect from the paths.
        signet_model::ErrorBody,
        signet_model::screeners::Category,
        signet_model::screeners::Direction,
        signet_model::screeners::GainersRank,
        signet_model::screeners::ActivesRank,
        signet_model::screeners::Week52Rank,
        signet_model::screeners::AggType,
        signet_model::screeners::SectorPeriod,
        signet_model::screeners::SortBy,
        signet_model::fundamentals::FundamentalsCategory,
        signet_model::fundamentals::ReportType,
        signet_model::fundamentals::ComparisonMetric,
    )),
    tags(
        (name = "start-up", description = "The calls the official clients make when they start (catalog section 2)"),
        (name = "trading", description = "Accounts and orders (catalog section 3), balance, positions and executions (section 10)"),
        (name = "trading (v1)", description = "The v1 calls of the official client's TradeClient.account and TradeClient.order: the same accounts and orders in the v1 shapes"),
        (name = "instruments", description = "The instruments orders name (catalog section 10.5)"),
        (name = "screeners", description = "Rankings of the market (catalog section 4)"),
        (name = "watchlists", description = "The calling app's watchlists (catalog section 5)"),
        (name = "fundamentals", description = "The 23 data sets of one symbol (catalog section 6)"),
        (name = "market data", description = "Stock snapshots and depth of book from the market simulator (catalog section 11)"),
        (name = "options", description = "US equity options: the contracts listed today and each one's snapshot, ticks and bars, priced off the market simulator"),
        (name = "market simulator", description = "Read and drive the market simulator: apps created with --admin only"),
        (name = "scenarios", description = "Rules that make unhappy paths happen on purpose (rejections, faults, lost answers, delays): apps created with --admin only"),
        (name = "checkpoints", description = "Known states of the whole sandbox, saved and restored while it runs: apps created with --admin only"),
        (name = "legacy", description = "Retired paths, served only by a server started with --compat legacy"),
        (name = "service", description = "Unsigned probes: readiness, metrics, this document"),
    )
)]
struct ApiDoc;

/// Section 5, as the security scheme's description.
const SIGNATURE: &str = "\
Every request but `/health`, `/metrics` and `/openapi.json` carries the seven headers of section 5.1 \
(`x-app-key`, `x-timestamp`, `x-signature`, `x-signature-algorithm`, `x-signature-version`, \
`x-signature-nonce`, `x-version`) and is signed with the app's secret, which is never sent. \
OpenAPI has no scheme for a request signature: this `apiKey` scheme names the header that \
identifies the app, and the signature is computed as follows.\n\n\
1. Put the query parameters (percent-decoded, as the server reads them: `+` is a space) and the six \
signing headers in one collection of name/value pairs: `x-app-key`, `x-signature-algorithm` \
(`HMAC-SHA256`), `x-signature-version` (`1.0`), `x-signature-nonce` (1 to 64 characters of \
`A-Z a-z 0-9 - _`, new for every request: a reused nonce is 401 `DUPPLICATED_REQUEST`), \
`x-timestamp` (UTC `YYYY-MM-DDThh:mm:ssZ`, within 300 s of the server's clock) and `host` \
(the `Host` header as sent, e.g. `127.0.0.1:8080`; the server also accepts it signed without its port). \
`x-signature` and `x-version` are not signed.\n\
2. Order the pairs by name (byte order); a query name given several times is one pair whose \
values are sorted and joined with `&`.\n\
3. Join them as `name=value` separated by `&`: this is str1. Values are used raw.\n\
4. With a body: str2 is the SHA-256 of the body's exact bytes, in upper-case hexadecimal, and \
str3 = path + `&` + str1 + `&` + str2. Without a body (every GET): str3 = path + `&` + str1. The \
path is the request line's path, without the query.\n\
5. Percent-encode the whole of str3: every byte but `A-Z a-z 0-9 - . _ ~` becomes `%XX` \
(upper-case hex, UTF-8), so `/` is `%2F`, `&` is `%26`, `=` is `%3D`, `:` is `%3A` and a space `%20`.\n\
6. x-signature = Base64 of HMAC-SHA256(key = app secret + `&`, message = the encoded str3).\n\n\
A JSON body is sent compact (no spaces), exactly as hashed: a client serializes it itself and \
sends those bytes, with `Content-Type: application/json`; only POSTs have a body (`{}` at least). \
`signet sign` prints every step for given inputs, and `testdata/signing-vectors.json` holds \
conformance vectors. With `--require-token`, every call but the start-up calls also carries an \
approved token in `x-access-token` (not signed). With `--compat legacy`, HMAC-SHA1 over an MD5 body \
digest, and str3 encoded as Java's `URLEncoder` does, are accepted too.";

/// The header parameters of section 5.1: (component name, header, required schema, description).
fn header_parameters() -> Vec<(&'static str, &'static str, Value, &'static str)> {
    vec![
        (
            "x-app-key",
            "x-app-key",
            json!({"type": "string", "minLength": 1}),
            "The app key issued by `signet admin apps create`.",
        ),
        (
            "x-timestamp",
            "x-timestamp",
            json!({"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"}),
            "UTC time of signing, `YYYY-MM-DDThh:mm:ssZ`, within 300 s of the server's clock. Signed.",
        ),
        (
            "x-signature",
            "x-signature",
            json!({"type": "string", "pattern": "^[A-Za-z0-9+/]{43}=$"}),
            "Base64 of the HMAC-SHA256 described by the `signature` security scheme.",
        ),
        (
            "x-signature-algorithm",
            "x-signature-algorithm",
            json!({"type": "string", "enum": ["HMAC-SHA256"]}),
            "`HMAC-SHA256` (`HMAC-SHA1` is accepted too under `--compat legacy`). Signed.",
        ),
        (
            "x-signature-version",
            "x-signature-version",
            json!({"type": "string", "enum": ["1.0"]}),
            "`1.0`. Signed.",
        ),
        (
            "x-signature-nonce",
            "x-signature-nonce",
            json!({"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}),
            "1 to 64 characters of `A-Z a-z 0-9 - _`, never used before by this app (a UUID, or 32 hex characters). Signed.",
        ),
        (
            "x-version",
            "x-version",
            json!({"type": "string", "enum": ["v3"]}),
            "The interface version, `v3`. Not signed.",
        ),
        (
            "x-version-legacy",
            "x-version",
            json!({"type": "string", "enum": ["v3", "v2"]}),
            "The interface version: `v3`, or `v2` (the older answers) under `--compat legacy`. Not signed.",
        ),
    ]
}

/// The error answers every signed operation may give: (status, component name, description).
const ERRORS: [(&str, &str, &str); 12] = [
    (
        "400",
        "BadRequest",
        "ILLEGAL_PARAMETER (a bad parameter, invalid JSON, a repeated signing header, a NUL character), UNSUPPORTED_API_VERSION, or a code of the operation (UNSUPPORTED_*, ORDER_NOT_OPEN, INSUFFICIENT_BUYING_POWER, INSUFFICIENT_POSITION, LIMIT_EXCEEDED, INSTRUMENT_NOT_FOUND in a watchlist change)",
    ),
    (
        "401",
        "Unauthorized",
        "The authentication layer's refusals: MISSING_APP_KEY, MISSING_TIMESTAMP, MISSING_SIGNATURE, MISSING_ALGORITHM, MISSING_SIGNATURE_VERSION, MISSING_NONCE, MISSING_VERSION, SIGNATURE_ALGORITHM_NOT_SUPPORTED, VERSION_NOT_SUPPORTED, ILLEAGAL_TIMESTAMP, CLOCK_SKEW_EXCEEDED, INVALID_NONCE, UNAUTHORIZED, INCORRECT_SIGN, DUPPLICATED_REQUEST, INVALID_TOKEN",
    ),
    (
        "404",
        "NotFound",
        "NOT_FOUND (an unknown path; a legacy path without --compat legacy), or the operation's own code",
    ),
    (
        "405",
        "MethodNotAllowed",
        "METHOD_NOT_ALLOWED: the path does not accept this method",
    ),
    (
        "408",
        "RequestTimeout",
        "REQUEST_TIMEOUT: the body did not all arrive within 30 s of the server starting to read it",
    ),
    (
        "413",
        "PayloadTooLarge",
        "PAYLOAD_TOO_LARGE: the body is over --max-body-bytes (256 KiB by default)",
    ),
    (
        "414",
        "UriTooLong",
        "URI_TOO_LONG: the path and query are over --max-uri-bytes (8 KiB by default)",
    ),
    (
        "415",
        "UnsupportedMediaType",
        "UNSUPPORTED_MEDIA_TYPE: a body on a GET, or one not sent as application/json",
    ),
    (
        "429",
        "TooManyRequests",
        "TOO_MANY_REQUESTS: the app's rate limit for the operation's group is spent; `Retry-After` says when to retry",
    ),
    (
        "431",
        "HeadersTooLarge",
        "HEADERS_TOO_LARGE: the headers add up to more than --max-header-bytes (16 KiB by default)",
    ),
    (
        "500",
        "InternalError",
        "INTERNAL_ERROR: an unexpected failure, without detail (it is logged)",
    ),
    (
        "503",
        "ServiceNotAvailable",
        "SERVICE_NOT_AVAILABLE: the database (or Redis) does not answer; GETs may be retried. \
         RESTORING: a checkpoint is being restored; retry after Retry-After",
    ),
];

/// The document, as served and committed: pretty-printed JSON with its keys sorted, and a final
/// newline. Made once, from the routes `routes` gives.
pub fn json(routes: fn() -> utoipa::openapi::OpenApi) -> &'static str {
    static JSON: OnceLock<String> = OnceLock::new();
    JSON.get_or_init(|| {
        let mut text = serde_json::to_string_pretty(&document(routes())).expect("the document serializes");
        text.push('\n');
        text
    })
}

/// The document as JSON: what utoipa derives from the handlers (`routes`, every operation a server
/// may mount) and wire types, with what every signed operation shares.
pub fn document(routes: utoipa::openapi::OpenApi) -> Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi().merge_from(routes)).expect("the document serializes");
    doc["info"]["version"] = json!(env!("CARGO_PKG_VERSION"));
    let components = doc["components"].as_object_mut().expect("components");
    components.insert(
        "securitySchemes".into(),
        json!({"signature": {"type": "apiKey", "in": "header", "name": "x-app-key", "description": SIGNATURE}}),
    );
    let parameters: Map<String, Value> = header_parameters()
        .into_iter()
        .map(|(id, name, schema, description)| {
            let parameter =
                json!({"name": name, "in": "header", "required": true, "schema": schema, "description": description});
            (id.to_owned(), parameter)
        })
        .collect();
    components.insert("parameters".into(), Value::Object(parameters));
    let responses: Map<String, Value> = ERRORS
        .iter()
        .map(|(status, id, description)| {
            let mut response = json!({
                "description": description,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
            });
            if *status == "429" {
                response["headers"] = json!({"Retry-After": {
                    "description": "Seconds until the next request may pass",
                    "schema": {"type": "integer", "minimum": 0},
                }});
            }
            ((*id).to_owned(), response)
        })
        .collect();
    components.insert("responses".into(), Value::Object(responses));

    for (path, item) in doc["paths"].as_object_mut().expect("paths") {
        if UNSIGNED.contains(&path.as_str()) {
            continue;
        }
        let legacy = crate::generations::compat::is_legacy_path(path);
        let takes_v2 = legacy || crate::generations::compat::V2_SHARED_PATHS.contains(&path.as_str());
        for operation in item.as_object_mut().expect("a path item").values_mut() {
            let Some(operation) = operation.as_object_mut() else {
                continue;
            };
            let mut parameters: Vec<Value> = header_parameters()
                .iter()
                .filter(|(id, ..)| match *id {
                    "x-version" => !takes_v2,
                    "x-version-legacy" => takes_v2,
                    _ => true,
                })
                .map(|(id, ..)| json!({"$ref": format!("#/components/parameters/{id}")}))
                .collect();
            if let Some(Value::Array(own)) = operation.remove("parameters") {
                parameters.extend(own);
            }
            operation.insert("parameters".into(), Value::Array(parameters));
            operation.insert("security".into(), json!([{"signature": []}]));
            let responses = operation
                .entry("responses")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("responses");
            for (status, id, _) in ERRORS {
                responses
                    .entry(status)
                    .or_insert_with(|| json!({"$ref": format!("#/components/responses/{id}")}));
            }
            if legacy {
                operation.insert("deprecated".into(), json!(true));
                let current = crate::generations::compat::replacement(path)
                    .map(|r| format!("{} {}", r.current_method, r.current));
                let own = operation.get("description").and_then(Value::as_str).unwrap_or_default();
                let description = format!(
                    "Retired: served only by a server started with `--compat legacy` (otherwise 404 NOT_FOUND naming the current call, {}).\n\n{own}",
                    current.unwrap_or_default()
                );
                operation.insert("description".into(), json!(description.trim_end()));
            }
        }
    }
    sort_keys(&mut doc);
    doc
}

/// Sorts every object's keys, so that the text does not depend on serde_json's features.
fn sort_keys(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.sort_keys();
            map.values_mut().for_each(sort_keys);
        }
        Value::Array(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

/// Every operation of a document, as (method in upper case, path).
pub fn operations(doc: &Value) -> Vec<(String, String)> {
    let mut operations = Vec::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, _) in item.as_object().into_iter().flatten() {
            operations.push((method.to_uppercase(), path.clone()));
        }
    }
    operations
}
