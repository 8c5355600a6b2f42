//! What a fill does to an account, and how much an account may still buy. Pure functions: the
//! store applies them inside the fill's transaction.

use rust_decimal::Decimal;
use signet_model::AccountType;
use signet_model::orders::Side;

/// A holding: shares and the average price paid for them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Holding {
    pub quantity: Decimal,
    pub average_cost: Decimal,
}

/// The account after a fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillEffect {
    pub holding: Holding,
    pub cash: Decimal,
}

/// Why a fill cannot be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A CASH account would go below zero.
    Cash,
    /// The account would sell shares it does not hold.
    Shares,
}

impl Refusal {
    pub const fn reason(self) -> &'static str {
        match self {
            Refusal::Cash => "buying power gone: the cash account cannot pay for the fill",
            Refusal::Shares => "the account no longer holds the shares to sell",
        }
    }
}

/// Applies a fill of `quantity` at `price` (plus `commission`) to a holding and cash.
///
/// A buy raises the holding at a new average cost and spends cash; a sell lowers it at the same
/// average cost and adds the proceeds. A CASH account can never go below zero, and no account
/// sells more than it holds (short selling is not offered yet).
pub fn apply_fill(
    account_type: AccountType,
    side: Side,
    holding: Holding,
    cash: Decimal,
    quantity: Decimal,
    price: Decimal,
    commission: Decimal,
) -> Result<FillEffect, Refusal> {
    let value = quantity * price;
    match side {
        Side::Buy => {
            let cash = cash - value - commission;
            if account_type == AccountType::Cash && cash < Decimal::ZERO {
                return Err(Refusal::Cash);
            }
            let total = holding.quantity + quantity;
            let average_cost = ((holding.quantity * holding.average_cost + value) / total).round_dp(6);
            Ok(FillEffect {
                holding: Holding {
                    quantity: total,
                    average_cost,
                },
                cash,
            })
        }
        Side::Sell | Side::Short => {
            if holding.quantity < quantity {
                return Err(Refusal::Shares);
            }
            let left = holding.quantity - quantity;
            let average_cost = if left.is_zero() {
                Decimal::ZERO
            } else {
                holding.average_cost
            };
            Ok(FillEffect {
                holding: Holding {
                    quantity: left,
                    average_cost,
                },
                cash: cash + value - commission,
            })
        }
    }
}

/// Buying power: what a CASH account has in cash, or for a MARGIN account twice its equity less
/// what its long positions already use (Reg T: 50% initial margin); in both cases less what open
/// buy orders have reserved.
pub fn buying_power(account_type: AccountType, cash: Decimal, long_value: Decimal, reserved: Decimal) -> Decimal {
    let power = match account_type {
        AccountType::Cash => cash,
        AccountType::Margin => (cash + long_value) * Decimal::TWO - long_value,
    };
    (power - reserved).max(Decimal::ZERO)
}

/// Commission of a fill: per share and per order, zero by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Commission {
    pub per_share: Decimal,
    pub per_order: Decimal,
}

impl Commission {
    /// The per-order part is charged on an order's first fill only.
    pub fn of(&self, quantity: Decimal, first_fill: bool) -> Decimal {
        let per_order = if first_fill { self.per_order } else { Decimal::ZERO };
        (self.per_share * quantity + per_order).round_dp(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn buys_average_the_cost_and_sells_keep_it() {
        let bought = apply_fill(
            AccountType::Cash,
            Side::Buy,
            Holding::default(),
            d("1000"),
            d("10"),
            d("20"),
            d("1"),
        )
        .unwrap();
        assert_eq!(
            bought,
            FillEffect {
                holding: Holding {
                    quantity: d("10"),
                    average_cost: d("20")
                },
                cash: d("799")
            }
        );
        let more = apply_fill(
            AccountType::Cash,
            Side::Buy,
            bought.holding,
            bought.cash,
            d("10"),
            d("30"),
            d("0"),
        )
        .unwrap();
        assert_eq!(more.holding.average_cost, d("25"));
        let sold = apply_fill(
            AccountType::Cash,
            Side::Sell,
            more.holding,
            more.cash,
            d("5"),
            d("40"),
            d("0"),
        )
        .unwrap();
        assert_eq!(
            (sold.holding.quantity, sold.holding.average_cost, sold.cash),
            (d("15"), d("25"), d("699"))
        );
        let all = apply_fill(
            AccountType::Cash,
            Side::Sell,
            sold.holding,
            sold.cash,
            d("15"),
            d("1"),
            d("0"),
        )
        .unwrap();
        assert_eq!(
            all.holding,
            Holding {
                quantity: d("0"),
                average_cost: d("0")
            }
        );
    }

    #[test]
    fn a_cash_account_never_goes_negative_and_nobody_sells_what_they_lack() {
        let none = Holding::default();
        assert_eq!(
            apply_fill(AccountType::Cash, Side::Buy, none, d("99"), d("1"), d("100"), d("0")),
            Err(Refusal::Cash)
        );
        assert!(apply_fill(AccountType::Margin, Side::Buy, none, d("99"), d("1"), d("100"), d("0")).is_ok());
        assert_eq!(
            apply_fill(AccountType::Margin, Side::Sell, none, d("0"), d("1"), d("1"), d("0")),
            Err(Refusal::Shares)
        );
    }

    #[test]
    fn buying_power_of_cash_and_margin() {
        assert_eq!(buying_power(AccountType::Cash, d("1000"), d("500"), d("300")), d("700"));
        assert_eq!(buying_power(AccountType::Margin, d("1000"), d("0"), d("0")), d("2000"));
        assert_eq!(
            buying_power(AccountType::Margin, d("0"), d("2000"), d("0")),
            d("2000"),
            "equity 2000, all of it in stock"
        );
        assert_eq!(buying_power(AccountType::Cash, d("10"), d("0"), d("50")), d("0"));
        let c = Commission {
            per_share: d("0.005"),
            per_order: d("1"),
        };
        assert_eq!((c.of(d("100"), true), c.of(d("100"), false)), (d("1.5"), d("0.5")));
    }
}
