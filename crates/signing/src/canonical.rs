//! str1, str2 and str3 (section 5.3 rules 1 to 5, edge cases of 5.4).

use std::borrow::Cow;
use std::fmt::Write as _;

use md5::Md5;
use sha2::{Digest, Sha256};

use crate::{Algorithm, Request};

/// The strings of section 5.3 before percent-encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringToSign {
    /// Query parameters and signing headers, sorted by name, joined `name=value` with `&`.
    pub str1: String,
    /// Upper-case hex digest of the body; `None` when the body is empty.
    pub str2: Option<String>,
    /// `path & str1 [& str2]`: the string that is percent-encoded and signed.
    pub str3: String,
}

impl StringToSign {
    pub fn new(request: &Request<'_>) -> Self {
        let h = &request.headers;
        let mut pairs: Vec<(&str, &str)> = Vec::with_capacity(request.query.len() + 6);
        pairs.extend(request.query.iter().map(|(n, v)| (n.as_ref(), v.as_ref())));
        pairs.extend([
            ("host", h.host),
            ("x-app-key", h.app_key),
            ("x-signature-algorithm", h.algorithm.name()),
            ("x-signature-nonce", h.nonce),
            ("x-signature-version", h.signature_version),
            ("x-timestamp", h.timestamp),
        ]);
        // Names compare as bytes; a repeated name's values are sorted the same way (5.4), which
        // sorting the (name, value) pairs together gives for free.
        pairs.sort_unstable();

        let capacity = request.path.len() + pairs.iter().map(|(n, v)| n.len() + v.len() + 2).sum::<usize>() + 66;
        let mut str3 = String::with_capacity(capacity);
        str3.push_str(request.path);
        str3.push('&');
        let str1_start = str3.len();
        let mut previous: Option<&str> = None;
        for (name, value) in pairs {
            if previous == Some(name) {
                str3.push('&');
            } else {
                if previous.is_some() {
                    str3.push('&');
                }
                str3.push_str(name);
                str3.push('=');
            }
            str3.push_str(value);
            previous = Some(name);
        }
        let str1 = str3[str1_start..].to_owned();

        let str2 = request
            .body
            .filter(|b| !b.is_empty())
            .map(|body| body_digest(h.algorithm, body));
        if let Some(digest) = &str2 {
            str3.push('&');
            str3.push_str(digest);
        }
        StringToSign { str1, str2, str3 }
    }
}

/// str2: the upper-case hex digest of the exact body bytes.
fn body_digest(algorithm: Algorithm, body: &[u8]) -> String {
    match algorithm {
        Algorithm::HmacSha256 => upper_hex(&Sha256::digest(body)),
        Algorithm::LegacyHmacSha1 => upper_hex(&Md5::digest(body)),
    }
}

fn upper_hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02X}");
    }
    out
}

/// Decodes a raw query string with form rules (`+` is a space, `%XX` escapes), as the official
/// client writes it with `urllib.parse.urlencode`. Invalid UTF-8 becomes U+FFFD.
pub fn decode_query(raw: &str) -> Vec<(Cow<'_, str>, Cow<'_, str>)> {
    form_urlencoded::parse(raw.as_bytes()).collect()
}
