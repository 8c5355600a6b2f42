//! Splits and dividends that the ratio of adjusted to unadjusted close reveals.

use rust_decimal::Decimal;

use super::{ActionKind, ActionSource, CorporateAction};

/// A close and its adjusted value, in millionths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdjustedClose {
    pub day: i32,
    pub close: i64,
    pub adj_close: i64,
}

/// Splits and dividends implied by the adjusted close, from closes sorted by day.
///
/// With `f = adj / close`, a change of `f` between two days means the source adjusted the
/// earlier prices: by `1/k` for a `k`:1 split (recognised when the ratio and the close both jump
/// by a simple fraction), or by `1 - D / close` for a cash dividend `D` on the later day, which
/// gives `D = previous close × (1 − f_prev / f)`. Amounts are approximate (the adjusted close is
/// rounded by its publisher) and are marked derived.
pub fn derive_actions(closes: &[AdjustedClose]) -> Vec<CorporateAction> {
    let mut actions = Vec::new();
    for pair in closes.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let f_before = before.adj_close as f64 / before.close as f64;
        let f_after = after.adj_close as f64 / after.close as f64;
        let ratio = f_after / f_before;
        if let Some(split) = simple_ratio(ratio)
            && simple_ratio(before.close as f64 / after.close as f64).is_some()
        {
            actions.push(CorporateAction {
                day: after.day,
                kind: ActionKind::Split,
                value: split,
                source: ActionSource::Derived,
            });
            continue;
        }
        let fraction = 1.0 - f_before / f_after;
        // Below this the change is rounding (of the adjusted close, or of the close to a cent),
        // not a dividend.
        let noise = (5_000.0 / before.close as f64).max(2e-5);
        if fraction > noise && fraction < 0.5 {
            let amount = before.close as f64 / 1e6 * fraction;
            if let Some(amount) = Decimal::from_f64_retain(amount) {
                let amount = amount.round_dp(4);
                if !amount.is_zero() {
                    actions.push(CorporateAction {
                        day: after.day,
                        kind: ActionKind::Dividend,
                        value: amount,
                        source: ActionSource::Derived,
                    });
                }
            }
        }
    }
    actions
}

/// A split ratio near `r` written as a simple fraction (2, 3, 1.5, 0.1, ...), when there is one.
#[expect(
    clippy::cast_possible_truncation,
    reason = "the numerator is a whole number below 1,001"
)]
fn simple_ratio(r: f64) -> Option<Decimal> {
    if !(1.2..=100.0).contains(&r) && !(0.01..=1.0 / 1.2).contains(&r) {
        return None;
    }
    for denominator in 1..=10u32 {
        let numerator = (r * f64::from(denominator)).round();
        if numerator >= 1.0 && (numerator / f64::from(denominator) - r).abs() <= 0.02 * r {
            return Some(Decimal::from(numerator as u32) / Decimal::from(denominator));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[expect(clippy::cast_possible_truncation, reason = "test prices of a few dollars")]
    fn bar(day: i32, close: f64, adj: f64) -> AdjustedClose {
        AdjustedClose {
            day,
            close: (close * 1e6) as i64,
            adj_close: (adj * 1e6) as i64,
        }
    }

    #[test]
    fn a_two_for_one_split_is_found() {
        // MSFT 2003-02-18: close 48.30 then 24.96, adjusted close continuous.
        let actions = derive_actions(&[bar(1, 48.30, 20.10), bar(2, 24.96, 20.77)]);
        assert_eq!(
            actions,
            [CorporateAction {
                day: 2,
                kind: ActionKind::Split,
                value: Decimal::from(2),
                source: ActionSource::Derived
            }]
        );
    }

    #[test]
    fn a_dividend_is_found_with_its_amount() {
        // A $0.50 dividend on a $100 stock: earlier prices adjusted by 0.995.
        let actions = derive_actions(&[bar(1, 100.0, 99.5), bar(2, 101.0, 101.0)]);
        assert_eq!(actions.len(), 1);
        assert_eq!(actions[0].kind, ActionKind::Dividend);
        assert_eq!(actions[0].value, Decimal::new(5000, 4));
    }

    #[test]
    fn unchanged_ratios_and_cent_rounding_give_nothing() {
        assert!(derive_actions(&[bar(1, 100.0, 50.0), bar(2, 110.0, 55.0)]).is_empty());
        // The close is rounded to a cent while the adjusted close is not.
        assert!(derive_actions(&[bar(1, 10.00, 9.0049), bar(2, 10.01, 9.0089)]).is_empty());
    }
}
