//! The simulator's random numbers: a small deterministic mixer (the SplitMix64 finalizer) keyed
//! by seed, instrument and day, so that every node draws the same market.

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mix {
    state: u64,
}

impl Mix {
    pub(crate) fn new(seed: u64, instrument: i64, day: i32) -> Self {
        let key = seed
            ^ (instrument as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (day as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        Mix { state: key }
    }

    /// A stream of its own for `salt`, independent of this one's.
    pub(crate) fn salted(&self, salt: u64) -> Self {
        Mix {
            state: self.state ^ salt.wrapping_mul(0xC2B2_AE3D_27D4_EB4F),
        }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(crate) fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal (Box-Muller).
    pub(crate) fn normal(&mut self) -> f64 {
        let u1 = self.uniform().max(f64::MIN_POSITIVE);
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * self.uniform()).cos()
    }

    /// Student's t with 6 degrees of freedom scaled to unit variance: fat tails (a kurtosis of 6)
    /// whose fourth moment still exists, so that a day's kurtosis is a stable figure.
    pub(crate) fn fat_tailed(&mut self) -> f64 {
        let chi2 = -2.0
            * (self.uniform().max(f64::MIN_POSITIVE)
                * self.uniform().max(f64::MIN_POSITIVE)
                * self.uniform().max(f64::MIN_POSITIVE))
            .ln();
        self.normal() / (chi2 / 6.0).sqrt() / 1.5_f64.sqrt()
    }

    /// A uniform number in [0, 1) for `index` (a second, a minute), independent of any other
    /// read: what a moment's draw is when it must be computed without the ones before it.
    pub(crate) fn at(&self, index: i64) -> f64 {
        let mut m = Mix {
            state: self.state ^ (index as u64).wrapping_mul(0xA24B_AED4_963E_E407),
        };
        m.uniform()
    }
}
