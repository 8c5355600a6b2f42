//! The signature of the trade-events subscription over gRPC (`grpc.trade.event.EventService/Subscribe`).
//!
//! It differs from the HTTP one (section 5): the five signing metadata values are sorted by name
//! and written `name=value`, joined with `=` (not `&`, the official client builds the string with
//! no URI); there is no host, path or query; then `&` and the **lower-case** hex SHA-256 of the
//! serialized request, the exact bytes received. The result is percent-encoded as in section 5
//! and signed with HMAC-SHA256 keyed with `secret + "&"`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::{Encoding, keyed_mac};

/// The five signed metadata values of a subscription, exactly as received.
#[derive(Debug, Clone, Copy)]
pub struct GrpcSigningMetadata<'a> {
    pub app_key: &'a str,
    /// `x-signature-algorithm`; only `HMAC-SHA256` is accepted by a server.
    pub algorithm: &'a str,
    pub signature_version: &'a str,
    pub nonce: &'a str,
    pub timestamp: &'a str,
}

/// The string to sign of a subscription: the sorted metadata joined with `=`, then `&` and the
/// lower-case hex SHA-256 of `request_bytes`.
pub fn grpc_string_to_sign(metadata: &GrpcSigningMetadata<'_>, request_bytes: &[u8]) -> String {
    // Already in byte order of the names.
    let pairs = [
        ("x-app-key", metadata.app_key),
        ("x-signature-algorithm", metadata.algorithm),
        ("x-signature-nonce", metadata.nonce),
        ("x-signature-version", metadata.signature_version),
        ("x-timestamp", metadata.timestamp),
    ];
    let mut out = String::with_capacity(256);
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('=');
        }
        out.push_str(name);
        out.push('=');
        out.push_str(value);
    }
    out.push('&');
    out.push_str(&lower_hex(&Sha256::digest(request_bytes)));
    out
}

/// The Base64 `x-signature` of a subscription.
pub fn grpc_sign(metadata: &GrpcSigningMetadata<'_>, request_bytes: &[u8], secret: &str) -> String {
    let string = grpc_string_to_sign(metadata, request_bytes);
    BASE64.encode(
        keyed_mac::<Hmac<Sha256>>(secret, &string, Encoding::Standard)
            .finalize()
            .into_bytes(),
    )
}

/// Checks a subscription's `x-signature` in constant time. Malformed Base64 or a wrong length
/// is a mismatch, never a panic.
pub fn grpc_verify(metadata: &GrpcSigningMetadata<'_>, request_bytes: &[u8], secret: &str, signature: &str) -> bool {
    if signature.len() > 44 {
        return false;
    }
    let mut decoded = [0u8; 64];
    let Ok(len) = BASE64.decode_slice(signature.as_bytes(), &mut decoded) else {
        return false;
    };
    if len != 32 {
        return false;
    }
    let string = grpc_string_to_sign(metadata, request_bytes);
    keyed_mac::<Hmac<Sha256>>(secret, &string, Encoding::Standard)
        .verify_slice(&decoded[..len])
        .is_ok()
}

fn lower_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 0x0f)] as char);
    }
    s
}
