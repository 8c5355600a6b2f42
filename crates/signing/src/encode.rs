//! Percent-encoding of str3 (section 5.3 rule 6).
//!
//! Every UTF-8 byte except `A-Z a-z 0-9 - . _ ~` becomes `%XX` with upper-case hex. The spec's
//! list of kept characters is not exhaustive: the published example keeps `_` and the official
//! client (Python's `quote(s, safe='')`) keeps `~`.

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Which characters rule 6 leaves as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// `A-Z a-z 0-9 - . _ ~`: the specification's, and the official client's.
    #[default]
    Standard,
    /// `A-Z a-z 0-9 - . _ *`: Java's `URLEncoder` as some older clients use it (`*` kept, `~`
    /// encoded; spaces still `%20`). Only a string holding `*` or `~` encodes differently.
    JavaUrlEncoder,
}

impl Encoding {
    fn keeps(self, b: u8) -> bool {
        b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_')
            || match self {
                Encoding::Standard => b == b'~',
                Encoding::JavaUrlEncoder => b == b'*',
            }
    }

    /// Whether `s` encodes differently with this encoding than with the standard one.
    pub fn differs_for(self, s: &str) -> bool {
        self != Encoding::Standard && s.bytes().any(|b| b == b'*' || b == b'~')
    }
}

/// Percent-encodes `s` into a new string.
pub fn percent_encode(s: &str) -> String {
    percent_encode_with(s, Encoding::Standard)
}

/// Percent-encodes `s` with `encoding` into a new string.
pub fn percent_encode_with(s: &str, encoding: Encoding) -> String {
    let mut out = Vec::with_capacity(s.len() * 3 / 2);
    encode_into(s, encoding, |chunk| out.extend_from_slice(chunk));
    String::from_utf8(out).expect("percent-encoding yields ASCII")
}

/// Percent-encodes `s`, handing the output to `sink` in chunks, so that a MAC can absorb it
/// without the encoded string ever being built.
pub(crate) fn encode_into(s: &str, encoding: Encoding, mut sink: impl FnMut(&[u8])) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !encoding.keeps(b) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_url_encoding_differs_in_star_and_tilde_only() {
        let s = "/p&q=a*b~c d_e.f-g/h";
        assert_eq!(percent_encode(s), "%2Fp%26q%3Da%2Ab~c%20d_e.f-g%2Fh");
        assert_eq!(
            percent_encode_with(s, Encoding::JavaUrlEncoder),
            "%2Fp%26q%3Da*b%7Ec%20d_e.f-g%2Fh"
        );
        assert!(Encoding::JavaUrlEncoder.differs_for(s));
        assert!(!Encoding::JavaUrlEncoder.differs_for("/p&q=a b"));
        assert!(!Encoding::Standard.differs_for(s));
    }
}
