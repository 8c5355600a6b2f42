//! What a split or a cash dividend does to a position held when the market crosses its ex-date.
//! Pure: the store applies the effect to the position and the cash in one transaction, once per
//! account, instrument, ex-date and kind (`corporate_action_entries`).
//!
//! - A cash dividend of `D` a share pays `quantity × D`, rounded to the cent, to a long holder,
//!   and takes it from a short seller (who owes the lender the dividend). The position is
//!   unchanged.
//! - A split of `r` new shares for one multiplies the quantity by `r` and divides the average
//!   cost by `r`, so that the cost basis stays. A fraction of a share left over (a 3-for-2 split
//!   of an odd number of shares, a reverse split) is paid out in cash at the price after the
//!   split ("cash in lieu"), as brokers do; the shares kept keep their average cost.

use rust_decimal::{Decimal, RoundingStrategy};
use signet_model::ids::AccountId;

use super::accounting::Holding;
use super::valuation::Movement;
use crate::marketdata::{ActionKind, CorporateAction};
use crate::simulator::clock::utc_ms_of;

/// A position and the cash it moved, after an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionEffect {
    pub holding: Holding,
    /// Added to the account's cash: a dividend (negative for a short), or cash in lieu of a
    /// fraction of a share.
    pub cash: Decimal,
}

/// An action applied to one account's position, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// In the order they were applied.
    pub entry_id: i64,
    pub account_id: AccountId,
    pub instrument_id: i64,
    pub symbol: String,
    /// The ex-date, a New York day.
    pub ex_day: i32,
    pub kind: ActionKind,
    /// The dividend a share, or the split's new shares for one.
    pub value: Decimal,
    pub quantity_before: Decimal,
    pub quantity_after: Decimal,
    /// What it added to the cash (negative when it took).
    pub cash: Decimal,
    /// Wall-clock milliseconds, as fills.
    pub time_ms: i64,
}

impl Applied {
    /// What it did to the account, at the start of its ex-date on the simulated clock (when the
    /// market's crossing applies it): the shares it added (a split) and the cash (a dividend,
    /// or a split's cash in lieu).
    pub fn movement(&self) -> Movement {
        Movement {
            time_ms: utc_ms_of(self.ex_day, 0),
            instrument_id: self.instrument_id,
            cash: self.cash,
            shares: self.quantity_after - self.quantity_before,
            price: None,
        }
    }
}

/// Cents, rounded half away from zero.
fn cents(amount: Decimal) -> Decimal {
    amount.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// The effect of `action` on `holding`; `price_after` is a share's price after the ex-date (what
/// a fraction of a share is paid at). `None` when the action changes nothing (no shares held, a
/// dividend of less than a cent on the position, a split ratio that is not positive).
pub fn apply(holding: Holding, action: &CorporateAction, price_after: Decimal) -> Option<ActionEffect> {
    if holding.quantity.is_zero() {
        return None;
    }
    match action.kind {
        ActionKind::Dividend => {
            let cash = cents(holding.quantity * action.value);
            (!cash.is_zero()).then_some(ActionEffect { holding, cash })
        }
        ActionKind::Split => {
            let ratio = action.value;
            if ratio <= Decimal::ZERO || ratio == Decimal::ONE {
                return None;
            }
            let exact = holding.quantity * ratio;
            // Whole shares are kept; the fraction (of the same sign) is sold at `price_after`.
            let kept = exact.trunc();
            let fraction = exact - kept;
            let average_cost = if kept.is_zero() {
                Decimal::ZERO
            } else {
                holding.average_cost / ratio
            };
            Some(ActionEffect {
                holding: Holding {
                    quantity: kept,
                    average_cost,
                },
                cash: cents(fraction * price_after),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marketdata::ActionSource;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn holding(quantity: &str, average_cost: &str) -> Holding {
        Holding {
            quantity: d(quantity),
            average_cost: d(average_cost),
        }
    }

    fn action(kind: ActionKind, value: &str) -> CorporateAction {
        CorporateAction {
            day: 0,
            kind,
            value: d(value),
            source: ActionSource::Derived,
        }
    }

    #[test]
    fn a_long_holder_is_paid_the_dividend_and_a_short_seller_pays_it() {
        // AAPL's dividend of 2012-08-09: 2.65 a share.
        let dividend = action(ActionKind::Dividend, "2.65");
        let long = apply(holding("10", "620"), &dividend, d("620")).unwrap();
        assert_eq!(long.cash, d("26.50"));
        assert_eq!(long.holding, holding("10", "620"), "the position is unchanged");
        let short = apply(holding("-3", "620"), &dividend, d("620")).unwrap();
        assert_eq!(short.cash, d("-7.95"));
        // A derived amount of four decimals is paid to the cent.
        let derived = apply(holding("7", "1"), &action(ActionKind::Dividend, "2.6502"), d("1")).unwrap();
        assert_eq!(derived.cash, d("18.55"));
    }

    #[test]
    fn nothing_happens_without_shares_or_below_a_cent() {
        let dividend = action(ActionKind::Dividend, "0.001");
        assert_eq!(apply(holding("0", "0"), &dividend, d("1")), None);
        assert_eq!(apply(holding("4", "10"), &dividend, d("1")), None);
        assert_eq!(apply(holding("4", "10"), &action(ActionKind::Split, "1"), d("1")), None);
    }

    #[test]
    fn a_split_multiplies_the_shares_and_keeps_the_cost_basis() {
        let two_for_one = action(ActionKind::Split, "2");
        let long = apply(holding("15", "100"), &two_for_one, d("51")).unwrap();
        assert_eq!(long.holding, holding("30", "50"));
        assert_eq!(long.cash, Decimal::ZERO);
        let short = apply(holding("-15", "100"), &two_for_one, d("51")).unwrap();
        assert_eq!(short.holding, holding("-30", "50"));
    }

    #[test]
    fn a_fraction_of_a_share_is_paid_in_cash_at_the_price_after() {
        // 3 for 2 of 5 shares: 7.5 shares, 7 kept, half a share paid at 40.01.
        let effect = apply(holding("5", "60"), &action(ActionKind::Split, "1.5"), d("40.01")).unwrap();
        assert_eq!(effect.holding, holding("7", "40"));
        assert_eq!(effect.cash, d("20.01"), "0.5 × 40.01 = 20.005, to the cent");
        // 1 for 10 of 25 shares: 2 kept, half a share paid.
        let reverse = apply(holding("25", "3"), &action(ActionKind::Split, "0.1"), d("30")).unwrap();
        assert_eq!(reverse.holding, holding("2", "30"));
        assert_eq!(reverse.cash, d("15"));
        // 1 for 10 of 5 shares: nothing kept, all paid.
        let gone = apply(holding("5", "3"), &action(ActionKind::Split, "0.1"), d("30")).unwrap();
        assert_eq!(gone.holding, holding("0", "0"));
        assert_eq!(gone.cash, d("15"));
        // A short position's fraction is bought back: cash goes out.
        let short = apply(holding("-5", "60"), &action(ActionKind::Split, "1.5"), d("40")).unwrap();
        assert_eq!(short.holding, holding("-7", "40"));
        assert_eq!(short.cash, d("-20"));
    }
}
