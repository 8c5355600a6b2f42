//! The standard requirement of a contract written naked in a MARGIN account (FINRA rule 4210's
//! for equity options): the premium plus the greater of 20 % of the underlying less the amount
//! the contract is out of the money, and 10 % of the underlying (a call) or of the strike (a
//! put), times 100 a contract. Prices are per share. What an account holds back for its written
//! contracts, covered and naked, is [`super::secured`]'s.

use rust_decimal::Decimal;

use super::{Right, hundred};

/// The naked requirement of `contracts` short contracts at `premium` a share, the underlying at
/// `spot`.
pub fn naked(right: Right, strike: Decimal, premium: Decimal, spot: Decimal, contracts: Decimal) -> Decimal {
    let out_of_the_money = match right {
        Right::Call => (strike - spot).max(Decimal::ZERO),
        Right::Put => (spot - strike).max(Decimal::ZERO),
    };
    let floor = Decimal::new(1, 1)
        * match right {
            Right::Call => spot,
            Right::Put => strike,
        };
    let per_share = (Decimal::new(2, 1) * spot - out_of_the_money).max(floor) + premium;
    per_share * hundred() * contracts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    #[test]
    fn twenty_percent_less_out_of_the_money_plus_the_premium() {
        // AAPL at 450. A call at 460: 90 less 10, plus 5.
        assert_eq!(naked(Right::Call, d("460"), d("5"), d("450"), d("1")), d("8500"));
        // A put at 430, two contracts: 90 less 20, plus 4.
        assert_eq!(naked(Right::Put, d("430"), d("4"), d("450"), d("2")), d("14800"));
        // In the money nothing is taken off: a call at 440, 90 plus 12.
        assert_eq!(naked(Right::Call, d("440"), d("12"), d("450"), d("1")), d("10200"));
    }

    #[test]
    fn never_below_ten_percent_of_the_underlying_or_the_strike() {
        // A call far out of the money: 10 % of 450, plus 0.10.
        assert_eq!(naked(Right::Call, d("600"), d("0.10"), d("450"), d("1")), d("4510"));
        // A put far out of the money: 10 % of its strike 300, plus 0.05.
        assert_eq!(naked(Right::Put, d("300"), d("0.05"), d("450"), d("1")), d("3005"));
    }
}
