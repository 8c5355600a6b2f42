//! A contract's fair value and greeks: Black–Scholes–Merton with the underlying's dividend
//! yield. American exercise is priced as European (early exercise is not modelled: for calls on
//! stocks with small dividends the two agree; for deep in-the-money puts the European value is
//! a little low). The volatility of a strike is the underlying's realized volatility shaped by a
//! skew ([`smile`]); the rate is [`RISK_FREE_RATE`].

use super::Right;

/// The risk-free rate, continuously compounded: about the 3-month Treasury bill's yield over
/// the years of the demo's history.
pub const RISK_FREE_RATE: f64 = 0.02;

/// What a price depends on. Years are calendar years (days / 365).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inputs {
    pub spot: f64,
    pub strike: f64,
    pub years: f64,
    pub rate: f64,
    pub dividend_yield: f64,
    pub vol: f64,
}

/// A price and its sensitivities: delta and gamma per unit of the underlying, theta per
/// calendar day, vega and rho per percentage point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Valuation {
    pub price: f64,
    pub delta: f64,
    pub gamma: f64,
    pub theta: f64,
    pub vega: f64,
    pub rho: f64,
}

/// The standard normal's cumulative distribution, from `erfc` (W. J. Cody's rational
/// approximation as in Numerical Recipes' `erfcc`: within 1.2e-7 everywhere).
pub fn norm_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

fn norm_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// The value and greeks of a European option; at or after expiry (or with no volatility) its
/// intrinsic value.
pub fn value(right: Right, i: &Inputs) -> Valuation {
    let intrinsic = match right {
        Right::Call => (i.spot - i.strike).max(0.0),
        Right::Put => (i.strike - i.spot).max(0.0),
    };
    if i.years <= 0.0 || i.vol <= 0.0 || i.spot <= 0.0 || i.strike <= 0.0 {
        let itm = intrinsic > 0.0;
        let delta = match right {
            Right::Call if itm => 1.0,
            Right::Put if itm => -1.0,
            _ => 0.0,
        };
        return Valuation {
            price: intrinsic,
            delta,
            gamma: 0.0,
            theta: 0.0,
            vega: 0.0,
            rho: 0.0,
        };
    }
    let sqrt_t = i.years.sqrt();
    let d1 =
        ((i.spot / i.strike).ln() + (i.rate - i.dividend_yield + 0.5 * i.vol * i.vol) * i.years) / (i.vol * sqrt_t);
    let d2 = d1 - i.vol * sqrt_t;
    let carry = (-i.dividend_yield * i.years).exp();
    let discount = (-i.rate * i.years).exp();
    let gamma = carry * norm_pdf(d1) / (i.spot * i.vol * sqrt_t);
    let vega = i.spot * carry * norm_pdf(d1) * sqrt_t / 100.0;
    let decay = -i.spot * carry * norm_pdf(d1) * i.vol / (2.0 * sqrt_t);
    let (price, delta, theta, rho) = match right {
        Right::Call => (
            i.spot * carry * norm_cdf(d1) - i.strike * discount * norm_cdf(d2),
            carry * norm_cdf(d1),
            decay - i.rate * i.strike * discount * norm_cdf(d2) + i.dividend_yield * i.spot * carry * norm_cdf(d1),
            i.strike * i.years * discount * norm_cdf(d2) / 100.0,
        ),
        Right::Put => (
            i.strike * discount * norm_cdf(-d2) - i.spot * carry * norm_cdf(-d1),
            -carry * norm_cdf(-d1),
            decay + i.rate * i.strike * discount * norm_cdf(-d2) - i.dividend_yield * i.spot * carry * norm_cdf(-d1),
            -i.strike * i.years * discount * norm_cdf(-d2) / 100.0,
        ),
    };
    Valuation {
        price: price.max(0.0),
        delta,
        gamma,
        theta: theta / 365.0,
        vega,
        rho,
    }
}

/// The volatility at which `right`'s value is `price` (the other inputs as given), by
/// bisection between 0.1 % and 500 %; `None` for a price outside what any volatility gives.
pub fn implied_vol(right: Right, price: f64, i: &Inputs) -> Option<f64> {
    let at = |vol: f64| value(right, &Inputs { vol, ..*i }).price;
    let (mut low, mut high) = (0.001, 5.0);
    if !(price.is_finite() && at(low) <= price && price <= at(high)) {
        return None;
    }
    for _ in 0..100 {
        let mid = 0.5 * (low + high);
        if at(mid) < price {
            low = mid;
        } else {
            high = mid;
        }
        if high - low < 1e-7 {
            break;
        }
    }
    Some(0.5 * (low + high))
}

/// The volatility of a strike: the at-the-money volatility `atm`, raised for strikes below the
/// underlying (puts' protection is bid up) and a little for those far above it, the more so the
/// nearer the expiry, flat beyond three standard moves: `atm × (1 − 0.15·m + 0.06·m²)` with
/// `m = ln(K/S) / √max(T, 1/52)` held within ±3.
pub fn smile(atm: f64, spot: f64, strike: f64, years: f64) -> f64 {
    let m = ((strike / spot).ln() / years.max(1.0 / 52.0).sqrt()).clamp(-3.0, 3.0);
    (atm * (1.0 - 0.15 * m + 0.06 * m * m)).clamp(0.05, 3.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(spot: f64, strike: f64, years: f64) -> Inputs {
        Inputs {
            spot,
            strike,
            years,
            rate: 0.1,
            dividend_yield: 0.0,
            vol: 0.2,
        }
    }

    #[test]
    fn the_textbook_case_prices_as_the_textbook_says() {
        // Hull, Options, Futures and Other Derivatives, example 15.6: S 42, K 40, r 10 %,
        // σ 20 %, six months: a call of 4.76 and a put of 0.81.
        let i = inputs(42.0, 40.0, 0.5);
        assert!((value(Right::Call, &i).price - 4.7594).abs() < 1e-3);
        assert!((value(Right::Put, &i).price - 0.8086).abs() < 1e-3);
        // Hull's example 19.1 (delta of a call, S 49, K 50, r 5 %, σ 20 %, 20 weeks): 0.522.
        let delta = value(
            Right::Call,
            &Inputs {
                spot: 49.0,
                strike: 50.0,
                years: 0.3846,
                rate: 0.05,
                dividend_yield: 0.0,
                vol: 0.2,
            },
        )
        .delta;
        assert!((delta - 0.522).abs() < 1e-3, "{delta}");
        assert!((norm_cdf(0.0) - 0.5).abs() < 1e-7 && (norm_cdf(1.96) - 0.975).abs() < 1e-4);
    }

    #[test]
    fn put_call_parity_holds_with_dividends() {
        for (spot, strike, years) in [(100.0, 90.0, 0.1), (100.0, 100.0, 1.0), (430.0, 600.0, 2.0)] {
            let i = Inputs {
                dividend_yield: 0.025,
                ..inputs(spot, strike, years)
            };
            let (call, put) = (value(Right::Call, &i).price, value(Right::Put, &i).price);
            let forward = spot * (-i.dividend_yield * years).exp() - strike * (-i.rate * years).exp();
            assert!((call - put - forward).abs() < 1e-6, "{spot} {strike} {years}");
        }
    }

    #[test]
    fn calls_fall_with_the_strike_and_every_option_gains_with_time() {
        let mut last = f64::INFINITY;
        for strike in (50..=150).step_by(5) {
            let call = value(Right::Call, &inputs(100.0, f64::from(strike), 0.5)).price;
            assert!(call < last, "{strike}");
            last = call;
        }
        for right in [Right::Call, Right::Put] {
            let mut last = 0.0;
            for weeks in 1..=104 {
                let i = Inputs {
                    rate: 0.0,
                    ..inputs(100.0, 100.0, f64::from(weeks) / 52.0)
                };
                let price = value(right, &i).price;
                assert!(price > last, "{right:?} {weeks}");
                last = price;
            }
        }
    }

    #[test]
    fn the_implied_volatility_of_a_price_is_the_volatility_it_came_from() {
        for vol in [0.08, 0.2, 0.45, 1.3] {
            for right in [Right::Call, Right::Put] {
                let i = Inputs {
                    vol,
                    ..inputs(100.0, 110.0, 0.25)
                };
                let price = value(right, &i).price;
                let implied = implied_vol(right, price, &i).unwrap();
                assert!((implied - vol).abs() < 1e-5, "{right:?} {vol} {implied}");
            }
        }
        let i = inputs(100.0, 110.0, 0.25);
        assert_eq!(implied_vol(Right::Call, 1000.0, &i), None, "above the underlying");
        assert_eq!(implied_vol(Right::Call, -1.0, &i), None);
    }

    #[test]
    fn at_expiry_an_option_is_worth_what_it_is_in_the_money() {
        let i = inputs(105.0, 100.0, 0.0);
        assert_eq!(value(Right::Call, &i).price, 5.0);
        assert_eq!(value(Right::Put, &i).price, 0.0);
        assert_eq!(value(Right::Call, &i).delta, 1.0);
    }

    #[test]
    fn the_skew_raises_low_strikes_and_the_wings() {
        let atm = 0.25;
        assert!((smile(atm, 100.0, 100.0, 0.25) - atm).abs() < 1e-12);
        assert!(smile(atm, 100.0, 80.0, 0.25) > smile(atm, 100.0, 120.0, 0.25));
        assert!(smile(atm, 100.0, 150.0, 0.25) > atm * 0.9);
        assert!(
            smile(atm, 100.0, 80.0, 0.05) > smile(atm, 100.0, 80.0, 1.0),
            "steeper near expiry"
        );
    }
}
