//! How a day's market behaved, in the figures that tell a market from a drawing of one: what
//! `signet market stats` and the console print for any day, beside the ranges real US
//! large-cap minute data shows, so that anyone can see what their bot is tested against.

use super::intraday::Candle;

/// A day's figures from its one-minute bars.
#[derive(Debug, Clone, PartialEq)]
pub struct DayStats {
    /// One-minute bars in the day.
    pub minutes: usize,
    /// Bars sharing the single most common volume.
    pub most_common_volume: usize,
    /// Volume of the first 30 minutes ÷ the middle 30 (none when the middle traded nothing).
    pub open_volume_ratio: Option<f64>,
    /// Volume of the last 30 minutes ÷ the middle 30.
    pub close_volume_ratio: Option<f64>,
    /// Bars whose low is the day's low, and whose high is its high.
    pub bars_at_low: usize,
    pub bars_at_high: usize,
    /// Kurtosis of the one-minute log returns (close to close; 3 for a normal distribution).
    pub kurtosis: Option<f64>,
    /// Autocorrelation of the absolute one-minute returns at one minute: above 0 when large
    /// moves follow large moves (volatility clusters).
    pub clustering: Option<f64>,
}

/// What real US large-cap minute data shows for each figure: the ranges the simulator is tested
/// against. The intraday "U" of volume: Jain & Joh (1988), "The dependence between hourly prices
/// and trading volume", JFQA 23(3), and Admati & Pfleiderer (1988), RFS 1(1); of volatility:
/// Wood, McInish & Ord (1985), J. Finance 40(3), and Andersen & Bollerslev (1997), "Intraday
/// periodicity and volatility persistence in financial markets", J. Empirical Finance 4. Fat
/// tails and clustering of intraday returns: Cont (2001), "Empirical properties of asset
/// returns: stylized facts and statistical issues", Quantitative Finance 1 (kurtosis well above
/// 3 at minutes, positive autocorrelation of absolute returns decaying over hours).
pub mod real {
    /// Bars sharing the most common volume: a handful at most.
    pub const MOST_COMMON_VOLUME: (usize, usize) = (1, 5);
    pub const OPEN_VOLUME_RATIO: (f64, f64) = (2.0, 4.0);
    pub const CLOSE_VOLUME_RATIO: (f64, f64) = (1.5, 3.0);
    /// Bars at the day's low (or high): one or a few.
    pub const BARS_AT_EXTREME: (usize, usize) = (1, 3);
    pub const KURTOSIS: (f64, f64) = (4.0, 100.0);
    pub const CLUSTERING: (f64, f64) = (0.05, 0.6);
}

/// One figure of a day beside the range real minute data shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub name: &'static str,
    pub value: Option<f64>,
    pub real: (f64, f64),
}

impl Figure {
    /// Whether the day's figure lies within the real market's range.
    pub fn within(&self) -> bool {
        self.value.is_some_and(|v| self.real.0 <= v && v <= self.real.1)
    }
}

/// The first and last half hours, and the middle one.
const HALF_HOUR: usize = 30;

impl DayStats {
    /// The figures of a day's one-minute bars, oldest first (none for an empty day).
    pub fn of(minutes: &[Candle]) -> Option<DayStats> {
        let n = minutes.len();
        if n == 0 {
            return None;
        }
        let mut counts = std::collections::HashMap::<u64, usize>::new();
        for m in minutes {
            *counts.entry(m.volume).or_default() += 1;
        }
        let volume = |bars: &[Candle]| bars.iter().map(|m| m.volume as f64).sum::<f64>();
        let (first, middle, last) = if n >= 3 * HALF_HOUR {
            let mid = n / 2 - HALF_HOUR / 2;
            (
                volume(&minutes[..HALF_HOUR]),
                volume(&minutes[mid..mid + HALF_HOUR]),
                volume(&minutes[n - HALF_HOUR..]),
            )
        } else {
            (0.0, 0.0, 0.0)
        };
        let ratio = |x: f64| (middle > 0.0).then(|| x / middle);
        let low = minutes.iter().map(|m| m.low).min()?;
        let high = minutes.iter().map(|m| m.high).max()?;
        let returns: Vec<f64> = minutes
            .windows(2)
            .filter(|w| w[0].close > 0 && w[1].close > 0)
            .map(|w| (w[1].close as f64 / w[0].close as f64).ln())
            .collect();
        Some(DayStats {
            minutes: n,
            most_common_volume: counts.values().copied().max().unwrap_or(0),
            open_volume_ratio: ratio(first),
            close_volume_ratio: ratio(last),
            bars_at_low: minutes.iter().filter(|m| m.low == low).count(),
            bars_at_high: minutes.iter().filter(|m| m.high == high).count(),
            kurtosis: kurtosis(&returns),
            clustering: autocorrelation(&returns.iter().map(|r| r.abs()).collect::<Vec<_>>()),
        })
    }
}

impl DayStats {
    /// The figures in the order of the report, each with its real-market range.
    pub fn figures(&self) -> Vec<Figure> {
        let count = |n: usize| Some(n as f64);
        let range = |(lo, hi): (usize, usize)| (lo as f64, hi as f64);
        vec![
            Figure {
                name: "bars sharing the most common volume",
                value: count(self.most_common_volume),
                real: range(real::MOST_COMMON_VOLUME),
            },
            Figure {
                name: "volume, first 30 minutes ÷ middle 30",
                value: self.open_volume_ratio,
                real: real::OPEN_VOLUME_RATIO,
            },
            Figure {
                name: "volume, last 30 minutes ÷ middle 30",
                value: self.close_volume_ratio,
                real: real::CLOSE_VOLUME_RATIO,
            },
            Figure {
                name: "bars whose low is the day's low",
                value: count(self.bars_at_low),
                real: range(real::BARS_AT_EXTREME),
            },
            Figure {
                name: "bars whose high is the day's high",
                value: count(self.bars_at_high),
                real: range(real::BARS_AT_EXTREME),
            },
            Figure {
                name: "kurtosis of one-minute log returns",
                value: self.kurtosis,
                real: real::KURTOSIS,
            },
            Figure {
                name: "autocorrelation of absolute returns (lag 1 minute)",
                value: self.clustering,
                real: real::CLUSTERING,
            },
        ]
    }
}

/// The (non-excess) kurtosis of `xs`: 3 for a normal distribution.
fn kurtosis(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let m2 = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let m4 = xs.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / n;
    (xs.len() >= 4 && m2 > 0.0).then(|| m4 / (m2 * m2))
}

/// The autocorrelation of `xs` at lag 1.
fn autocorrelation(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
    let cov = xs.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>();
    (xs.len() >= 3 && var > 0.0).then(|| cov / var)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulator::clock::CORE_OPEN;

    fn bar(k: i64, low: i64, high: i64, close: i64, volume: u64) -> Candle {
        Candle {
            day: 1,
            start: CORE_OPEN + 60 * k,
            open: close,
            high,
            low,
            close,
            volume,
        }
    }

    #[test]
    fn figures_of_a_known_day() {
        // 90 minutes: 30 of 300 shares, 30 of 100, 30 of 200; the low twice, the high once.
        let minutes: Vec<Candle> = (0..90)
            .map(|k| {
                let volume = [300, 100, 200][usize::try_from(k / 30).unwrap()];
                let close = 1000 + (k % 7);
                let low = if k == 3 || k == 50 { 900 } else { close - 1 };
                let high = if k == 80 { 1100 } else { close + 1 };
                bar(k, low, high, close, volume)
            })
            .collect();
        let stats = DayStats::of(&minutes).unwrap();
        assert_eq!(stats.minutes, 90);
        assert_eq!(stats.most_common_volume, 30);
        assert_eq!(stats.open_volume_ratio, Some(3.0));
        assert_eq!(stats.close_volume_ratio, Some(2.0));
        assert_eq!((stats.bars_at_low, stats.bars_at_high), (2, 1));
        assert!(stats.kurtosis.unwrap() > 1.0);
        let figures = stats.figures();
        assert_eq!(figures.len(), 7);
        assert!(!figures[0].within(), "30 bars of one volume is not a market");
        assert!(figures[1].within() && figures[2].within());
        assert_eq!(DayStats::of(&[]), None);
    }

    #[test]
    fn kurtosis_and_clustering_of_known_series() {
        // Two values, equally often: the least kurtosis there is.
        assert!((kurtosis(&[1.0, -1.0, 1.0, -1.0]).unwrap() - 1.0).abs() < 1e-12);
        // One large value among small ones: fat tails.
        let mut spike = [0.1, -0.1].repeat(50);
        spike[10] = 5.0;
        assert!(kurtosis(&spike).unwrap() > 50.0);
        assert!(autocorrelation(&[1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]).unwrap() > 0.0);
        assert!(autocorrelation(&[1.0, 0.0, 1.0, 0.0, 1.0, 0.0]).unwrap() < 0.0);
    }
}
