//! Percent-encoding of str3 (section 5.3 rule 6).
//!
//! Every UTF-8 byte except `A-Z a-z 0-9 - . _ ~` becomes `%XX` with upper-case hex. The spec's
//! list of kept characters is not exhaustive: the published example keeps `_` and the official
//! client (Python's `quote(s, safe='')`) keeps `~`.

const HEX: &[u8; 16] = b"0123456789ABCDEF";

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Percent-encodes `s` into a new string.
pub fn percent_encode(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() * 3 / 2);
    encode_into(s, |chunk| out.extend_from_slice(chunk));
    String::from_utf8(out).expect("percent-encoding yields ASCII")
}

/// Percent-encodes `s`, handing the output to `sink` in chunks, so that a MAC can absorb it
/// without the encoded string ever being built.
pub(crate) fn encode_into(s: &str, mut sink: impl FnMut(&[u8])) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !is_unreserved(b) {
            if start < i {
                sink(&bytes[start..i]);
            }
            sink(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0x0F)]]);
            start = i + 1;
        }
    }
    if start < bytes.len() {
        sink(&bytes[start..]);
    }
}
