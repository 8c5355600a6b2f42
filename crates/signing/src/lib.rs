//! Section 5 of the interface specification: the string to sign, the signature and its
//! verification, plus the `x-timestamp` format.
//!
//! This crate is pure (no I/O, no async, no HTTP types) so that it can be fuzzed, benchmarked
//! and reused by the server, the client and the `signet sign` calculator alike.
//!
//! ```
//! use signet_signing::{Algorithm, Request, SigningHeaders, sign, verify};
//!
//! let headers = SigningHeaders {
//!     app_key: "776da210ab4a452795d74e726ebd74b6",
//!     algorithm: Algorithm::HmacSha256,
//!     signature_version: "1.0",
//!     nonce: "48ef5afed43d4d91ae514aaeafbc29ba",
//!     timestamp: "2022-01-04T03:55:31Z",
//!     host: "api.example.test",
//! };
//! let request = Request::new("/trading/accounts/list", headers);
//! let signature = sign(&request, "secret");
//! assert!(verify(&request, "secret", &signature));
//! ```

mod canonical;
mod encode;
mod grpc;
mod timestamp;

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, KeyInit, Mac};

pub use canonical::{StringToSign, decode_query};
pub use encode::{Encoding, percent_encode, percent_encode_with};
pub use grpc::{GrpcSigningMetadata, grpc_sign, grpc_string_to_sign, grpc_verify};
pub use timestamp::{TimestampError, format_timestamp, parse_timestamp};

/// A signature algorithm: the MAC over the encoded string and the digest that makes str2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// The scheme of the specification: HMAC-SHA256, str2 = upper-case hex SHA-256 of the body.
    HmacSha256,
    /// The older scheme of the published worked example: HMAC-SHA1, str2 = upper-case hex MD5.
    /// Servers accept it only in legacy compatibility mode.
    LegacyHmacSha1,
}

impl Algorithm {
    /// The value of the `x-signature-algorithm` header.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::HmacSha256 => "HMAC-SHA256",
            Algorithm::LegacyHmacSha1 => "HMAC-SHA1",
        }
    }

    /// Parses an `x-signature-algorithm` header value (exact, case-sensitive).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "HMAC-SHA256" => Some(Algorithm::HmacSha256),
            "HMAC-SHA1" => Some(Algorithm::LegacyHmacSha1),
            _ => None,
        }
    }

    /// Length in bytes of the raw MAC, i.e. of a decoded valid signature.
    const fn mac_len(self) -> usize {
        match self {
            Algorithm::HmacSha256 => 32,
            Algorithm::LegacyHmacSha1 => 20,
        }
    }
}

/// The six signing headers, exactly as sent (section 5.2). `x-signature` and `x-version` are not signed.
#[derive(Debug, Clone, Copy)]
pub struct SigningHeaders<'a> {
    pub app_key: &'a str,
    pub algorithm: Algorithm,
    pub signature_version: &'a str,
    pub nonce: &'a str,
    pub timestamp: &'a str,
    pub host: &'a str,
}

/// Everything that takes part in a signature.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The path alone, exactly as it appears in the request line (not decoded).
    pub path: &'a str,
    /// Query parameters with their decoded values; repeated names are allowed.
    pub query: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    pub headers: SigningHeaders<'a>,
    /// The exact body bytes; `None` or empty means no body (str2 is left out).
    pub body: Option<&'a [u8]>,
}

impl<'a> Request<'a> {
    pub fn new(path: &'a str, headers: SigningHeaders<'a>) -> Self {
        Request {
            path,
            query: Vec::new(),
            headers,
            body: None,
        }
    }

    /// Sets the query from a raw query string as it arrives on the wire (form-decoded, `+` is a space).
    pub fn with_raw_query(mut self, raw: &'a str) -> Self {
        self.query = decode_query(raw);
        self
    }

    /// Adds one query parameter with its decoded value.
    pub fn with_param(mut self, name: impl Into<Cow<'a, str>>, value: impl Into<Cow<'a, str>>) -> Self {
        self.query.push((name.into(), value.into()));
        self
    }

    pub fn with_body(mut self, body: &'a [u8]) -> Self {
        self.body = Some(body);
        self
    }
}

/// Every intermediate string of a signature, for people implementing section 5 elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    pub str1: String,
    pub str2: Option<String>,
    pub str3: String,
    pub encoded: String,
    pub signature: String,
}

/// Computes every step of the signature of `request` with `secret`.
pub fn explain(request: &Request<'_>, secret: &str) -> Explanation {
    let StringToSign { str1, str2, str3 } = StringToSign::new(request);
    let encoded = percent_encode(&str3);
    let signature = BASE64.encode(mac(request.headers.algorithm, secret, &str3, Encoding::Standard));
    Explanation {
        str1,
        str2,
        str3,
        encoded,
        signature,
    }
}

/// The Base64 signature of `request` with `secret`: the value of `x-signature`.
pub fn sign(request: &Request<'_>, secret: &str) -> String {
    sign_with(request, secret, Encoding::Standard)
}

/// [`sign`] with str3 percent-encoded by `encoding`, as an older client would.
pub fn sign_with(request: &Request<'_>, secret: &str, encoding: Encoding) -> String {
    let str3 = StringToSign::new(request).str3;
    BASE64.encode(mac(request.headers.algorithm, secret, &str3, encoding))
}

/// Checks `signature` (Base64, as received in `x-signature`) in constant time.
///
/// Malformed Base64 or a signature of the wrong length is a mismatch, never a panic.
pub fn verify(request: &Request<'_>, secret: &str, signature: &str) -> bool {
    verify_with(request, secret, signature, Encoding::Standard)
}

/// [`verify`] with str3 percent-encoded by `encoding` instead of the standard rule 6.
pub fn verify_with(request: &Request<'_>, secret: &str, signature: &str, encoding: Encoding) -> bool {
    let algorithm = request.headers.algorithm;
    // A valid signature is at most 44 Base64 characters; longer input is refused undecoded.
    if signature.len() > 44 {
        return false;
    }
    let mut decoded = [0u8; 64];
    let Ok(len) = BASE64.decode_slice(signature.as_bytes(), &mut decoded) else {
        return false;
    };
    if len != algorithm.mac_len() {
        return false;
    }
    let str3 = StringToSign::new(request).str3;
    let decoded = &decoded[..len];
    match algorithm {
        Algorithm::HmacSha256 => keyed_mac::<Hmac<sha2::Sha256>>(secret, &str3, encoding)
            .verify_slice(decoded)
            .is_ok(),
        Algorithm::LegacyHmacSha1 => keyed_mac::<Hmac<sha1::Sha1>>(secret, &str3, encoding)
            .verify_slice(decoded)
            .is_ok(),
    }
}

/// The raw MAC of the percent-encoded `str3`.
fn mac(algorithm: Algorithm, secret: &str, str3: &str, encoding: Encoding) -> Vec<u8> {
    match algorithm {
        Algorithm::HmacSha256 => keyed_mac::<Hmac<sha2::Sha256>>(secret, str3, encoding)
            .finalize()
            .into_bytes()
            .to_vec(),
        Algorithm::LegacyHmacSha1 => keyed_mac::<Hmac<sha1::Sha1>>(secret, str3, encoding)
            .finalize()
            .into_bytes()
            .to_vec(),
    }
}

/// A MAC keyed with secret + `&` (rule 7; the key copy is wiped when dropped) that has absorbed
/// the encoded `str3`, streamed in rather than built as a second string.
fn keyed_mac<M: Mac + KeyInit>(secret: &str, str3: &str, encoding: Encoding) -> M {
    let mut key = zeroize::Zeroizing::new(Vec::with_capacity(secret.len() + 1));
    key.extend_from_slice(secret.as_bytes());
    key.push(b'&');
    let mut mac = <M as KeyInit>::new_from_slice(&key).expect("HMAC accepts keys of any length");
    encode::encode_into(str3, encoding, |chunk| mac.update(chunk));
    mac
}
