//! The error body and the table of error codes with their HTTP status.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Every non-2xx answer: a JSON object (never a bare string, which crashes the official client).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// One of the interface's error codes (the table in `crates/model/src/error.rs`).
    #[schema(schema_with = error_code_schema)]
    pub error_code: String,
    pub message: String,
    /// Only with `--debug-signatures`, on `INCORRECT_SIGN`: what the server signed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub debug: Option<Vec<SignatureDebug>>,
    /// The scenario rule that answered instead of the call (signet's addition; the code is the
    /// rule's then, not one of the table's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub scenario: Option<String>,
}

/// `error_code`: a string among the codes of [`ErrorCode`].
fn error_code_schema() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(ErrorCode::ALL.iter().map(|code| code.as_str())))
        .build()
}

/// The server's view of a signature, one per host value it tried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SignatureDebug {
    pub host: String,
    pub str3: String,
    pub encoded: String,
}

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = ($code:literal, $status:literal), )*) => {
        /// The error codes of the interface and the one HTTP status each is answered with.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $( $(#[$doc])* $variant, )*
        }

        impl ErrorCode {
            pub const ALL: &[ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The `error_code` string on the wire.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code,)* }
            }

            /// The HTTP status that carries this code.
            pub const fn status(self) -> u16 {
                match self { $(ErrorCode::$variant => $status,)* }
            }

            pub fn parse(code: &str) -> Option<Self> {
                match code { $($code => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

error_codes! {
    MissingAppKey = ("MISSING_APP_KEY", 401),
    MissingTimestamp = ("MISSING_TIMESTAMP", 401),
    MissingSignature = ("MISSING_SIGNATURE", 401),
    MissingAlgorithm = ("MISSING_ALGORITHM", 401),
    MissingSignatureVersion = ("MISSING_SIGNATURE_VERSION", 401),
    MissingNonce = ("MISSING_NONCE", 401),
    /// `x-version` is absent.
    MissingVersion = ("MISSING_VERSION", 401),
    /// A malformed request: a repeated signing header, invalid JSON, a bad parameter.
    IllegalParameter = ("ILLEGAL_PARAMETER", 400),
    UnsupportedApiVersion = ("UNSUPPORTED_API_VERSION", 400),
    SignatureAlgorithmNotSupported = ("SIGNATURE_ALGORITHM_NOT_SUPPORTED", 401),
    /// `x-signature-version` is not 1.0.
    VersionNotSupported = ("VERSION_NOT_SUPPORTED", 401),
    /// The misspelling is the code existing clients match on.
    IllegalTimestamp = ("ILLEAGAL_TIMESTAMP", 401),
    ClockSkewExceeded = ("CLOCK_SKEW_EXCEEDED", 401),
    InvalidNonce = ("INVALID_NONCE", 401),
    /// Unknown or revoked app key.
    Unauthorized = ("UNAUTHORIZED", 401),
    UnsupportedMediaType = ("UNSUPPORTED_MEDIA_TYPE", 415),
    PayloadTooLarge = ("PAYLOAD_TOO_LARGE", 413),
    /// The request's headers together are over the server's limit (16 KiB by default).
    HeadersTooLarge = ("HEADERS_TOO_LARGE", 431),
    /// The request target (path and query) is over the server's limit (8 KiB by default).
    UriTooLong = ("URI_TOO_LONG", 414),
    /// The request's body did not arrive in time (30 s by default).
    RequestTimeout = ("REQUEST_TIMEOUT", 408),
    IncorrectSign = ("INCORRECT_SIGN", 401),
    /// A reused nonce; the misspelling is the established code.
    DuplicatedRequest = ("DUPPLICATED_REQUEST", 401),
    /// `x-access-token` missing or not an approved token of the calling app.
    InvalidToken = ("INVALID_TOKEN", 401),
    NotFound = ("NOT_FOUND", 404),
    /// The calling app may not use this operation (the market controls need an admin app).
    PermissionDenied = ("PERMISSION_DENIED", 403),
    /// No instrument has this symbol.
    InstrumentNotFound = ("INSTRUMENT_NOT_FOUND", 404),
    /// The account does not exist or belongs to another app (the two are not told apart).
    AccountNotFoundOrDenied = ("ACCOUNT_NOT_FOUND_OR_DENIED", 403),
    /// No order of this account has this client order id.
    OrderNotFound = ("ORDER_NOT_FOUND", 404),
    /// The client order id was used before in this account.
    DuplicateClientOrderId = ("DUPLICATE_CLIENT_ORDER_ID", 409),
    DuplicateClientComboOrderId = ("DUPLICATE_CLIENT_COMBO_ORDER_ID", 409),
    /// The order is FILLED, CANCELLED or FAILED and cannot change.
    OrderNotOpen = ("ORDER_NOT_OPEN", 400),
    /// Trading in the symbol is halted (by a scenario rule): no order is placed or replaced.
    TradingHalted = ("TRADING_HALTED", 400),
    /// Not enough buying power (cash, or margin) for the order.
    InsufficientBuyingPower = ("INSUFFICIENT_BUYING_POWER", 400),
    /// Selling more than the account holds (and is not selling elsewhere).
    InsufficientPosition = ("INSUFFICIENT_POSITION", 400),
    UnsupportedMarket = ("UNSUPPORTED_MARKET", 400),
    /// A date range over the call's documented maximum (the trade calendar's is 30 days).
    DateRangeTooLong = ("DATE_RANGE_TOO_LONG", 400),
    UnsupportedInstrumentType = ("UNSUPPORTED_INSTRUMENT_TYPE", 400),
    UnsupportedOrderType = ("UNSUPPORTED_ORDER_TYPE", 400),
    UnsupportedTimeInForce = ("UNSUPPORTED_TIME_IN_FORCE", 400),
    UnsupportedComboType = ("UNSUPPORTED_COMBO_TYPE", 400),
    UnsupportedEntrustType = ("UNSUPPORTED_ENTRUST_TYPE", 400),
    UnsupportedSide = ("UNSUPPORTED_SIDE", 400),
    /// Options legs, algorithmic orders and other features the server does not offer.
    UnsupportedOrderFeature = ("UNSUPPORTED_ORDER_FEATURE", 400),
    /// A multi-leg option order whose legs do not form the `option_strategy` it names.
    OptionStrategyMismatch = ("OPTION_STRATEGY_MISMATCH", 400),
    /// No transfer of the account has this id (signet moves no money between institutions).
    TransferNotFound = ("TRANSFER_NOT_FOUND", 404),
    /// A checkpoint that cannot be restored: damaged, made by a newer build, or sealed with
    /// another master key. Nothing was changed.
    CheckpointUnusable = ("CHECKPOINT_UNUSABLE", 409),
    /// No watchlist of the calling app has this id.
    WatchlistNotFound = ("WATCHLIST_NOT_FOUND", 404),
    /// A configured limit (watchlists per app, instruments per watchlist, MQTT sessions per app
    /// bound by subscribing) is reached.
    LimitExceeded = ("LIMIT_EXCEEDED", 400),
    /// No MQTT connection of the calling app has this session id (on this node).
    SessionNotConnected = ("SESSION_NOT_CONNECTED", 400),
    /// A streaming session would receive more symbols than a session may (100 by default).
    TooManySymbols = ("TOO_MANY_SYMBOLS", 400),
    MethodNotAllowed = ("METHOD_NOT_ALLOWED", 405),
    /// The app's rate limit for the endpoint's group is spent: see `Retry-After`.
    TooManyRequests = ("TOO_MANY_REQUESTS", 429),
    /// Futures, crypto and event market data.
    NoLongerOffered = ("NO_LONGER_OFFERED", 410),
    InternalError = ("INTERNAL_ERROR", 500),
    /// A dependency (the database) is briefly unavailable; GETs may be retried.
    ServiceNotAvailable = ("SERVICE_NOT_AVAILABLE", 503),
    /// A checkpoint is being restored: the call is refused until it is done (`Retry-After`).
    Restoring = ("RESTORING", 503),
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for &code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
            assert!(seen.insert(code.as_str()), "{code} twice");
            assert!((400..600).contains(&code.status()));
        }
    }

    #[test]
    fn the_error_body_is_an_object_without_debug_by_default() {
        let body = ErrorBody {
            error_code: "NOT_FOUND".into(),
            message: "m".into(),
            debug: None,
            scenario: None,
        };
        assert_eq!(
            serde_json::to_string(&body).unwrap(),
            r#"{"error_code":"NOT_FOUND","message":"m"}"#
        );
    }
}
