//! Checkpoints: the rule for their names, and what one holds of the market simulator, which
//! keeps its state in memory rather than in the database.

use serde::{Deserialize, Serialize};

use crate::simulator::clock::{ClockMode, EARLIEST_MS, LATEST_MS, MAX_SPEED, in_calendar};
use crate::simulator::{Pin, PinError};

/// Longest name: PostgreSQL's identifiers hold 63 bytes, and a checkpoint's schema is named
/// after it with a prefix.
pub const MAX_NAME_LEN: usize = 48;

/// A checkpoint's name: 1 to [`MAX_NAME_LEN`] ASCII letters, digits, `-` and `_`, so that it
/// names a file and a schema as it is, without quoting or escaping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointName(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a checkpoint's name is 1 to {MAX_NAME_LEN} letters, digits, '-' and '_'")]
pub struct BadName;

impl CheckpointName {
    pub fn parse(name: &str) -> Result<Self, BadName> {
        let fits = (1..=MAX_NAME_LEN).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if fits {
            Ok(CheckpointName(name.to_owned()))
        } else {
            Err(BadName)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for CheckpointName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How the simulator's clock moved when the checkpoint was saved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SavedClock {
    Real,
    Running { speed: f64 },
    Manual,
}

impl From<ClockMode> for SavedClock {
    fn from(mode: ClockMode) -> Self {
        match mode {
            ClockMode::Real => SavedClock::Real,
            ClockMode::Running { speed } => SavedClock::Running { speed },
            ClockMode::Manual => SavedClock::Manual,
        }
    }
}

impl From<SavedClock> for ClockMode {
    fn from(clock: SavedClock) -> Self {
        match clock {
            SavedClock::Real => ClockMode::Real,
            SavedClock::Running { speed } => ClockMode::Running { speed },
            SavedClock::Manual => ClockMode::Manual,
        }
    }
}

/// The market simulator as a checkpoint holds it: its clock, seed and pinned quotes. The rest
/// of the market (the day's plans and paths) is drawn again from these and the database.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarketState {
    /// The simulated now, UTC milliseconds.
    pub now_ms: i64,
    pub clock: SavedClock,
    pub seed: u64,
    /// Pinned quotes, by symbol.
    pub pins: Vec<(String, Pin)>,
}

/// Why a checkpoint's market state cannot be put back. A restore checks it before it changes
/// anything: a clock speed of -5 or 1e300 passed before, the tables were replaced, and then
/// every tick of the market panicked.
#[derive(Debug, thiserror::Error)]
pub enum BadMarketState {
    #[error("it does not read ({0})")]
    Unreadable(#[from] serde_json::Error),
    #[error("its simulated time ({0} ms) is not between years 0 and 9999 ({EARLIEST_MS} to {LATEST_MS} ms)")]
    Time(i64),
    #[error("its clock speed ({0}) is not a number above 0 and at most {MAX_SPEED}")]
    Speed(f64),
    #[error("its pin of {symbol:?} cannot be set: {error}")]
    Pin { symbol: String, error: PinError },
}

impl MarketState {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("a market state serializes")
    }

    /// Reads a market state, and checks that every value in it is one the simulator accepts.
    pub fn decode(text: &str) -> Result<Self, BadMarketState> {
        let state: MarketState = serde_json::from_str(text)?;
        if !in_calendar(state.now_ms) {
            return Err(BadMarketState::Time(state.now_ms));
        }
        if let SavedClock::Running { speed } = state.clock
            && ClockMode::running(speed).is_none()
        {
            return Err(BadMarketState::Speed(speed));
        }
        for (symbol, pin) in &state.pins {
            let checked = Pin::new(pin.last, Some(pin.bid), Some(pin.ask), Some(pin.size));
            if checked != Ok(*pin) {
                let error = checked.err().unwrap_or(PinError::Price);
                return Err(BadMarketState::Pin {
                    symbol: symbol.clone(),
                    error,
                });
            }
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::*;

    #[test]
    fn names_are_plain_file_and_schema_names() {
        for good in ["a", "before-tests", "run_42", &"x".repeat(MAX_NAME_LEN)] {
            assert_eq!(CheckpointName::parse(good).unwrap().as_str(), good);
        }
        for bad in [
            "",
            "a b",
            "../etc",
            "a.db",
            "ünïcode",
            "semi;colon",
            "quote\"",
            &"x".repeat(MAX_NAME_LEN + 1),
        ] {
            assert_eq!(CheckpointName::parse(bad), Err(BadName), "{bad:?}");
        }
    }

    #[test]
    fn a_market_state_reads_back_as_written() {
        let state = MarketState {
            now_ms: 1_361_889_000_000,
            clock: SavedClock::Running { speed: 60.0 },
            seed: 7,
            pins: vec![(
                "AAPL".into(),
                Pin::new(Decimal::new(43_012, 2), None, None, Some(500)).unwrap(),
            )],
        };
        let text = state.encode();
        assert_eq!(MarketState::decode(&text).unwrap(), state);
        assert!(text.contains(r#""mode":"RUNNING""#), "{text}");
        assert!(matches!(MarketState::decode("{"), Err(BadMarketState::Unreadable(_))));
    }

    #[test]
    fn a_market_state_out_of_range_is_refused() {
        let good = MarketState {
            now_ms: 1_361_889_000_000,
            clock: SavedClock::Manual,
            seed: 7,
            pins: vec![(
                "AAPL".into(),
                Pin::new(Decimal::new(43_012, 2), None, None, None).unwrap(),
            )],
        };
        let with = |change: &dyn Fn(&mut serde_json::Value)| {
            let mut value = serde_json::to_value(&good).unwrap();
            change(&mut value);
            MarketState::decode(&value.to_string())
        };
        assert!(with(&|_| {}).is_ok());
        for speed in [-5.0, 0.0, 1e300, MAX_SPEED * 2.0] {
            let refused = with(&|v| v["clock"] = serde_json::json!({"mode": "RUNNING", "speed": speed}));
            assert!(
                matches!(refused, Err(BadMarketState::Speed(s)) if s == speed),
                "{speed}: {refused:?}"
            );
        }
        let refused = with(&|v| v["now_ms"] = serde_json::json!(9_000_000_000_000_000_000_i64));
        assert!(matches!(refused, Err(BadMarketState::Time(_))), "{refused:?}");
        let refused = with(&|v| v["pins"][0][1]["last"] = serde_json::json!("-1"));
        assert!(matches!(refused, Err(BadMarketState::Pin { .. })), "{refused:?}");
        let refused = with(&|v| v["pins"][0][1]["bid"] = serde_json::json!("500"));
        assert!(
            matches!(
                refused,
                Err(BadMarketState::Pin {
                    error: PinError::Crossed,
                    ..
                })
            ),
            "{refused:?}"
        );
        let refused = with(&|v| v["pins"][0][1]["size"] = serde_json::json!(0));
        assert!(
            matches!(
                refused,
                Err(BadMarketState::Pin {
                    error: PinError::Size,
                    ..
                })
            ),
            "{refused:?}"
        );
    }
}
