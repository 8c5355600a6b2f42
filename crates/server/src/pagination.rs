//! Opaque `pagination_key` values: a position in a listing, which the client hands back as is.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::ApiError;

/// A key for position `at` of a listing of `kind` (so that a key of one listing is refused by
/// another).
pub fn encode(kind: char, at: i64) -> String {
    URL_SAFE_NO_PAD.encode(format!("{kind}:{at}"))
}

/// The position in a key from [`encode`] with the same `kind`; `None` when there is no key.
pub fn decode(kind: char, key: Option<&str>) -> Result<Option<i64>, ApiError> {
    let Some(key) = key.map(str::trim).filter(|k| !k.is_empty()) else {
        return Ok(None);
    };
    let bad = || {
        ApiError::illegal_parameter("pagination_key is not one this server issued: pass the value of the previous page")
    };
    if key.len() > 64 {
        return Err(bad());
    }
    let bytes = URL_SAFE_NO_PAD.decode(key).map_err(|_| bad())?;
    let text = std::str::from_utf8(&bytes).map_err(|_| bad())?;
    let (k, at) = text.split_once(':').ok_or_else(bad)?;
    if k.chars().ne([kind]) {
        return Err(bad());
    }
    at.parse().map(Some).map_err(|_| bad())
}

/// `page_size`: `default` when absent, at most `max`.
pub fn page_size(value: Option<&str>, default: u32, max: u32) -> Result<u32, ApiError> {
    bounded("page_size", value, default, max)
}

/// A count parameter `name`: `default` when absent or empty, else a whole number from 1 to `max`.
pub fn bounded(name: &str, value: Option<&str>, default: u32, max: u32) -> Result<u32, ApiError> {
    match value.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(default),
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| ApiError::illegal_parameter(format!("{name} must be a whole number from 1 to {max}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_foreign_keys_are_refused() {
        assert_eq!(decode('o', Some(&encode('o', 40))).unwrap(), Some(40));
        assert_eq!(decode('o', None).unwrap(), None);
        assert!(decode('s', Some(&encode('o', 40))).is_err());
        assert!(decode('o', Some("garbage!")).is_err());
        assert!(decode('o', Some(&"A".repeat(100))).is_err());
        assert_eq!(page_size(None, 10, 100).unwrap(), 10);
        assert!(page_size(Some("0"), 10, 100).is_err());
        assert!(page_size(Some("101"), 10, 100).is_err());
    }
}
