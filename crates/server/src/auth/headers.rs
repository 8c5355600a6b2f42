//! Checks 1 to 6 of the authentication layer: the seven headers, cheapest first. Pure, so that
//! every refusal can be tested without a server.

use axum::http::HeaderMap;
use signet_model::ErrorCode;
use signet_model::headers as h;
use signet_signing::{Algorithm, format_timestamp, parse_timestamp};

use crate::error::ApiError;
use crate::generations::compat::{ApiVersion, Compat};

/// The seven required headers of a request that passed checks 1 to 6.
#[derive(Debug, Clone, Copy)]
pub struct AuthHeaders<'a> {
    pub app_key: &'a str,
    pub timestamp: &'a str,
    pub timestamp_secs: i64,
    pub signature: &'a str,
    pub algorithm: Algorithm,
    pub signature_version: &'a str,
    pub nonce: &'a str,
    pub version: ApiVersion,
    /// `x-version: v1`, which the earlier SDK generation sends (legacy mode, on the v1 trade
    /// calls only): answered as v3.
    pub earlier_generation: bool,
}

/// The seven headers in the order their absence is reported.
const REQUIRED: [(&str, ErrorCode); 7] = [
    (h::APP_KEY, ErrorCode::MissingAppKey),
    (h::TIMESTAMP, ErrorCode::MissingTimestamp),
    (h::SIGNATURE, ErrorCode::MissingSignature),
    (h::SIGNATURE_ALGORITHM, ErrorCode::MissingAlgorithm),
    (h::SIGNATURE_VERSION, ErrorCode::MissingSignatureVersion),
    (h::SIGNATURE_NONCE, ErrorCode::MissingNonce),
    (h::VERSION, ErrorCode::MissingVersion),
];

const MAX_NONCE_LEN: usize = 64;

impl<'a> AuthHeaders<'a> {
    /// Runs checks 1 to 6 against the server's clock `now_secs` and the accepted `window_secs`;
    /// `x-version: v2` and HMAC-SHA1 pass only with `Compat::Legacy`.
    pub fn parse(headers: &'a HeaderMap, now_secs: i64, window_secs: i64, compat: Compat) -> Result<Self, ApiError> {
        Self::parse_some(headers, now_secs, window_secs, compat, REQUIRED.len())
    }

    /// Checks 1 to 6 for the gRPC streams, whose metadata has no `x-version` (the version is
    /// then taken as v3): the same checks, codes and messages. `compat` says whether HMAC-SHA1
    /// is accepted (the earlier generation's quotes gateway, under legacy mode).
    pub fn parse_without_version(
        headers: &'a HeaderMap,
        now_secs: i64,
        window_secs: i64,
        compat: Compat,
    ) -> Result<Self, ApiError> {
        Self::parse_some(headers, now_secs, window_secs, compat, REQUIRED.len() - 1)
    }

    /// Requires the first `required` headers of [`REQUIRED`]; `x-version`, last, may be left out.
    fn parse_some(
        headers: &'a HeaderMap,
        now_secs: i64,
        window_secs: i64,
        compat: Compat,
        required: usize,
    ) -> Result<Self, ApiError> {
        let mut values = [""; 7];
        values[6] = h::API_VERSION;
        for (slot, (name, missing)) in values.iter_mut().zip(REQUIRED).take(required) {
            *slot = exactly_one(headers, name, missing)?;
        }
        let [
            app_key,
            timestamp,
            signature,
            algorithm,
            signature_version,
            nonce,
            version,
        ] = values;

        let legacy = compat == Compat::Legacy;
        let earlier_generation = legacy && version == "v1";
        let version = match version {
            h::API_VERSION => ApiVersion::V3,
            "v2" if legacy => ApiVersion::V2,
            "v1" if legacy => ApiVersion::V3,
            _ => {
                return Err(ApiError::new(
                    ErrorCode::UnsupportedApiVersion,
                    format!(
                        "x-version {} is not supported: v3 is the accepted value (v2 was retired)",
                        shorten(version)
                    ),
                ));
            }
        };
        let algorithm = match Algorithm::from_name(algorithm) {
            Some(a @ Algorithm::HmacSha256) => a,
            Some(a @ Algorithm::LegacyHmacSha1) if legacy => a,
            _ => {
                return Err(ApiError::new(
                    ErrorCode::SignatureAlgorithmNotSupported,
                    format!(
                        "x-signature-algorithm {} is not supported: use HMAC-SHA256",
                        shorten(algorithm)
                    ),
                ));
            }
        };
        if signature_version != h::SIGNATURE_VERSION_1_0 {
            return Err(ApiError::new(
                ErrorCode::VersionNotSupported,
                format!(
                    "x-signature-version {} is not supported: use 1.0",
                    shorten(signature_version)
                ),
            ));
        }
        let timestamp_secs = parse_timestamp(timestamp).map_err(|_| {
            ApiError::new(
                ErrorCode::IllegalTimestamp,
                format!(
                    "x-timestamp {} is not a UTC time of the form YYYY-MM-DDThh:mm:ssZ (e.g. {})",
                    shorten(timestamp),
                    format_timestamp(now_secs)
                ),
            )
        })?;
        if (now_secs - timestamp_secs).abs() > window_secs {
            return Err(ApiError::new(
                ErrorCode::ClockSkewExceeded,
                format!(
                    "x-timestamp {timestamp} is more than {window_secs} s away from the server's time {}; check the client's clock",
                    format_timestamp(now_secs)
                ),
            ));
        }
        if nonce.len() > MAX_NONCE_LEN
            || !nonce
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(ApiError::new(
                ErrorCode::InvalidNonce,
                "x-signature-nonce must be 1 to 64 characters of A-Z a-z 0-9 - _, new for every request",
            ));
        }
        Ok(AuthHeaders {
            app_key,
            timestamp,
            timestamp_secs,
            signature,
            algorithm,
            signature_version,
            nonce,
            version,
            earlier_generation,
        })
    }
}

/// The value of a header that must appear exactly once and not be empty.
fn exactly_one<'a>(headers: &'a HeaderMap, name: &'static str, missing: ErrorCode) -> Result<&'a str, ApiError> {
    let mut all = headers.get_all(name).iter();
    let Some(value) = all.next() else {
        return Err(ApiError::new(missing, format!("the {name} header is required")));
    };
    if all.next().is_some() {
        return Err(ApiError::illegal_parameter(format!(
            "the {name} header was sent more than once; send it once"
        )));
    }
    let value = value
        .to_str()
        .map_err(|_| ApiError::illegal_parameter(format!("the {name} header must be printable ASCII")))?;
    if value.is_empty() {
        return Err(ApiError::new(missing, format!("the {name} header is empty")));
    }
    Ok(value)
}

/// A received value quoted in a message, cut short so an answer never grows with the input.
fn shorten(value: &str) -> String {
    const MAX: usize = 40;
    if value.len() <= MAX {
        format!("{value:?}")
    } else {
        let cut = (0..=MAX).rev().find(|&i| value.is_char_boundary(i)).unwrap_or(0);
        format!("{:?}...", &value[..cut])
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    const NOW: i64 = 1_790_000_000;

    fn valid() -> HeaderMap {
        let mut m = HeaderMap::new();
        for (name, value) in [
            (h::APP_KEY, "key"),
            (h::TIMESTAMP, format_timestamp(NOW).as_str()),
            (h::SIGNATURE, "sig"),
            (h::SIGNATURE_ALGORITHM, "HMAC-SHA256"),
            (h::SIGNATURE_VERSION, "1.0"),
            (h::SIGNATURE_NONCE, "9a5347b7-f037-59ff-856e-ee977fc2f343"),
            (h::VERSION, "v3"),
        ] {
            m.insert(name, HeaderValue::from_str(value).unwrap());
        }
        m
    }

    fn code(m: &HeaderMap) -> ErrorCode {
        AuthHeaders::parse(m, NOW, 300, Compat::Strict).unwrap_err().code
    }

    #[test]
    fn a_complete_set_passes() {
        let m = valid();
        let parsed = AuthHeaders::parse(&m, NOW, 300, Compat::Strict).unwrap();
        assert_eq!(parsed.timestamp_secs, NOW);
        assert_eq!(parsed.app_key, "key");
    }

    #[test]
    fn each_missing_or_empty_header_has_its_code_and_is_named() {
        for (name, expected) in REQUIRED {
            let mut m = valid();
            m.remove(name);
            let e = AuthHeaders::parse(&m, NOW, 300, Compat::Strict).unwrap_err();
            assert_eq!(e.code, expected);
            assert!(e.message.contains(name), "{}", e.message);
            m.insert(name, HeaderValue::from_static(""));
            assert_eq!(code(&m), expected);
        }
    }

    #[test]
    fn the_grpc_subscription_needs_every_header_but_x_version() {
        let mut m = valid();
        m.remove(h::VERSION);
        assert!(AuthHeaders::parse(&m, NOW, 300, Compat::Strict).is_err());
        let parsed = AuthHeaders::parse_without_version(&m, NOW, 300, Compat::Strict).unwrap();
        assert_eq!(parsed.version, ApiVersion::V3);
        for (name, expected) in &REQUIRED[..REQUIRED.len() - 1] {
            let mut m = valid();
            m.remove(h::VERSION);
            m.remove(*name);
            let e = AuthHeaders::parse_without_version(&m, NOW, 300, Compat::Strict).unwrap_err();
            assert_eq!(e.code, *expected);
        }
        m.insert(h::SIGNATURE_ALGORITHM, HeaderValue::from_static("HMAC-SHA1"));
        assert_eq!(
            AuthHeaders::parse_without_version(&m, NOW, 300, Compat::Strict)
                .unwrap_err()
                .code,
            ErrorCode::SignatureAlgorithmNotSupported
        );
    }

    #[test]
    fn a_repeated_header_is_an_illegal_parameter_naming_it() {
        let mut m = valid();
        m.append(h::SIGNATURE_NONCE, HeaderValue::from_static("other"));
        let e = AuthHeaders::parse(&m, NOW, 300, Compat::Strict).unwrap_err();
        assert_eq!(e.code, ErrorCode::IllegalParameter);
        assert!(e.message.contains(h::SIGNATURE_NONCE));
    }

    #[test]
    fn versions_and_algorithm() {
        let mut m = valid();
        m.insert(h::VERSION, HeaderValue::from_static("v2"));
        let e = AuthHeaders::parse(&m, NOW, 300, Compat::Strict).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnsupportedApiVersion);
        assert!(e.message.contains("v3"));
        let mut m = valid();
        m.insert(h::SIGNATURE_ALGORITHM, HeaderValue::from_static("HMAC-SHA1"));
        assert_eq!(code(&m), ErrorCode::SignatureAlgorithmNotSupported);
        let mut m = valid();
        m.insert(h::SIGNATURE_VERSION, HeaderValue::from_static("2.0"));
        assert_eq!(code(&m), ErrorCode::VersionNotSupported);
    }

    #[test]
    fn legacy_mode_accepts_v2_v1_and_hmac_sha1_and_nothing_else_more() {
        fn legacy(m: &HeaderMap) -> Result<AuthHeaders<'_>, ApiError> {
            AuthHeaders::parse(m, NOW, 300, Compat::Legacy)
        }
        let mut m = valid();
        m.insert(h::VERSION, HeaderValue::from_static("v2"));
        m.insert(h::SIGNATURE_ALGORITHM, HeaderValue::from_static("HMAC-SHA1"));
        let parsed = legacy(&m).unwrap();
        assert_eq!(parsed.version, ApiVersion::V2);
        assert_eq!(parsed.algorithm, Algorithm::LegacyHmacSha1);
        assert_eq!(legacy(&valid()).unwrap().version, ApiVersion::V3);
        assert!(!legacy(&valid()).unwrap().earlier_generation);
        // The earlier SDK generation's v1: answered as v3, and marked so that the authentication
        // layer keeps it to the v1 trade calls.
        m.insert(h::VERSION, HeaderValue::from_static("v1"));
        let v1 = legacy(&m).unwrap();
        assert!(v1.earlier_generation && v1.version == ApiVersion::V3);
        assert_eq!(code(&m), ErrorCode::UnsupportedApiVersion, "strict refuses v1");
        m.insert(h::VERSION, HeaderValue::from_static("v0"));
        assert_eq!(legacy(&m).unwrap_err().code, ErrorCode::UnsupportedApiVersion);
        let mut m = valid();
        m.insert(h::SIGNATURE_ALGORITHM, HeaderValue::from_static("HMAC-MD5"));
        assert_eq!(legacy(&m).unwrap_err().code, ErrorCode::SignatureAlgorithmNotSupported);
    }

    #[test]
    fn timestamps() {
        let mut m = valid();
        m.insert(h::TIMESTAMP, HeaderValue::from_static("2026-02-30T00:00:00Z"));
        assert_eq!(code(&m), ErrorCode::IllegalTimestamp);
        for skew in [301, -301] {
            m.insert(
                h::TIMESTAMP,
                HeaderValue::from_str(&format_timestamp(NOW + skew)).unwrap(),
            );
            let e = AuthHeaders::parse(&m, NOW, 300, Compat::Strict).unwrap_err();
            assert_eq!(e.code, ErrorCode::ClockSkewExceeded);
            assert!(
                e.message.contains(&format_timestamp(NOW)),
                "the server's time is in {}",
                e.message
            );
        }
        for skew in [300, -300] {
            m.insert(
                h::TIMESTAMP,
                HeaderValue::from_str(&format_timestamp(NOW + skew)).unwrap(),
            );
            assert!(AuthHeaders::parse(&m, NOW, 300, Compat::Strict).is_ok());
        }
    }

    #[test]
    fn nonces() {
        for ok in ["0123456789abcdef0123456789abcdef", "a", &"x".repeat(64), "A_b-9"] {
            let mut m = valid();
            m.insert(h::SIGNATURE_NONCE, HeaderValue::from_str(ok).unwrap());
            assert!(AuthHeaders::parse(&m, NOW, 300, Compat::Strict).is_ok(), "{ok}");
        }
        for bad in [&"x".repeat(65), "a b", "a.b", "a/b", "nonce=1"] {
            let mut m = valid();
            m.insert(h::SIGNATURE_NONCE, HeaderValue::from_str(bad).unwrap());
            assert_eq!(code(&m), ErrorCode::InvalidNonce, "{bad}");
        }
    }

    #[test]
    fn long_values_are_not_echoed_in_full() {
        let mut m = valid();
        m.insert(h::VERSION, HeaderValue::from_str(&"v".repeat(5000)).unwrap());
        assert!(
            AuthHeaders::parse(&m, NOW, 300, Compat::Strict)
                .unwrap_err()
                .message
                .len()
                < 200
        );
    }
}
