//! What becomes of a contract held at its expiry, settled at the underlying's official close of
//! the expiry day (its last trading day). Pure: the store applies the effect to the account's
//! positions and cash in one transaction, once per account and contract
//! (`option_settlements`).
//!
//! - A contract in the money by at least 0.01 is exercised (held long) or assigned (written):
//!   100 shares a contract change hands at the strike. A call bought delivers shares and takes
//!   their cost; a put bought takes shares away and pays for them; written contracts the other
//!   way round. The shares meet the account's position as a fill at the strike would.
//! - What the account cannot take in shares (a cash account without the cash for its calls, or
//!   without the shares its puts sell) is settled in cash at the contract's value in the money,
//!   as the broker closes such a position at the close.
//! - Any other contract expires worthless.
//!
//! Contracts are not exercised early.

use rust_decimal::Decimal;
use signet_model::AccountType;
use signet_model::ids::AccountId;
use signet_model::orders::Side;

use super::{Contract, IdParts, MULTIPLIER, Right};
use crate::simulator::clock::utc_ms_of;
use crate::trading::accounting::{FillEffect, Holding, apply_fill};
use crate::trading::valuation::Movement;

/// How an expired contract ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettlementKind {
    /// A contract held long, in the money: its shares were taken or delivered at the strike.
    Exercise,
    /// A written contract, in the money: the account took or delivered the shares.
    Assignment,
    /// In the money, but settled in cash at its value in the money.
    Cash,
    /// Out of the money (or less than a cent in it): nothing happens but its end.
    Expire,
}

impl SettlementKind {
    pub const ALL: [SettlementKind; 4] = [
        SettlementKind::Exercise,
        SettlementKind::Assignment,
        SettlementKind::Cash,
        SettlementKind::Expire,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SettlementKind::Exercise => "EXERCISE",
            SettlementKind::Assignment => "ASSIGNMENT",
            SettlementKind::Cash => "CASH_SETTLEMENT",
            SettlementKind::Expire => "EXPIRE",
        }
    }

    pub fn parse(text: &str) -> Option<SettlementKind> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// What settling a contract does to its account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settlement {
    pub kind: SettlementKind,
    /// Shares of the underlying the account received (negative: delivered).
    pub shares: Decimal,
    /// Cash the account received (negative: paid).
    pub cash: Decimal,
    /// The account's position in the underlying afterwards (as before when no shares moved).
    pub underlying: Holding,
}

/// A contract settled in an account, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// In the order they were settled.
    pub settlement_id: i64,
    pub account_id: AccountId,
    pub contract_id: i64,
    /// The contract's OCC symbol.
    pub symbol: String,
    /// The New York day it expired.
    pub expiry: i32,
    pub kind: SettlementKind,
    /// Held before, negative when written.
    pub contracts: Decimal,
    /// The underlying's close it settled at.
    pub close: Decimal,
    pub shares: Decimal,
    pub cash: Decimal,
    /// Wall-clock milliseconds, as fills.
    pub time_ms: i64,
}

impl Settled {
    /// What it did to the account, at the start of the day after the expiry on the simulated
    /// clock (when the market's crossing settles it): the contracts gone, the cash, and the
    /// shares received or delivered at the strike.
    pub fn movements(&self) -> Vec<Movement> {
        let time_ms = utc_ms_of(self.expiry + 1, 0);
        let mut moved = vec![Movement {
            time_ms,
            instrument_id: self.contract_id,
            cash: self.cash,
            shares: -self.contracts,
            price: None,
        }];
        if let Some(parts) = Contract::of_id(self.contract_id).filter(|_| !self.shares.is_zero()) {
            moved.push(Movement {
                time_ms,
                instrument_id: parts.underlying_id,
                cash: Decimal::ZERO,
                shares: self.shares,
                price: Some(parts.strike),
            });
        }
        moved
    }
}

/// The least a contract must be in the money to be exercised.
const IN_THE_MONEY: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

/// Settles `contracts` (negative when written) of the contract `parts` at the underlying's
/// `close`, for an account of `account_type` holding `underlying` shares and `cash`.
pub fn settle(
    parts: &IdParts,
    contracts: Decimal,
    close: Decimal,
    account_type: AccountType,
    underlying: Holding,
    cash: Decimal,
) -> Settlement {
    let in_the_money = match parts.right {
        Right::Call => close - parts.strike,
        Right::Put => parts.strike - close,
    };
    let none = Settlement {
        kind: SettlementKind::Expire,
        shares: Decimal::ZERO,
        cash: Decimal::ZERO,
        underlying,
    };
    if contracts.is_zero() || in_the_money < IN_THE_MONEY {
        return none;
    }
    let multiplier = Decimal::from(MULTIPLIER);
    // A call bought receives the shares, a put bought delivers them; written, the other way.
    let shares = match parts.right {
        Right::Call => contracts * multiplier,
        Right::Put => -contracts * multiplier,
    };
    let side = if shares > Decimal::ZERO {
        Side::Buy
    } else if underlying.quantity >= -shares {
        Side::Sell
    } else {
        Side::Short
    };
    let delivered = apply_fill(
        account_type,
        side,
        underlying,
        cash,
        shares.abs(),
        parts.strike,
        Decimal::ZERO,
    );
    let held_long = contracts > Decimal::ZERO;
    match delivered {
        Ok(FillEffect { holding, cash: after }) => Settlement {
            kind: if held_long {
                SettlementKind::Exercise
            } else {
                SettlementKind::Assignment
            },
            shares,
            cash: after - cash,
            underlying: holding,
        },
        Err(_) => Settlement {
            kind: SettlementKind::Cash,
            cash: (in_the_money * contracts * multiplier).round_dp(2),
            ..none
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn parts(right: Right, strike: &str) -> IdParts {
        IdParts {
            underlying_id: 1,
            expiry: 15_779,
            right,
            strike: d(strike),
        }
    }

    fn none() -> Holding {
        Holding::default()
    }

    /// Settles `contracts` of AAPL's `right` at `strike` at a close of `close`.
    fn at(
        right: Right,
        strike: &str,
        contracts: &str,
        close: &str,
        account_type: AccountType,
        underlying: Holding,
        cash: &str,
    ) -> Settlement {
        settle(
            &parts(right, strike),
            d(contracts),
            d(close),
            account_type,
            underlying,
            d(cash),
        )
    }

    #[test]
    fn a_call_in_the_money_becomes_100_shares_a_contract_at_the_strike() {
        let s = at(Right::Call, "430", "2", "441.5", AccountType::Cash, none(), "100000");
        assert_eq!(
            (s.kind, s.shares, s.cash),
            (SettlementKind::Exercise, d("200"), d("-86000"))
        );
        assert_eq!(
            s.underlying,
            Holding {
                quantity: d("200"),
                average_cost: d("430")
            }
        );
        // Held shares average in.
        let held = Holding {
            quantity: d("100"),
            average_cost: d("400"),
        };
        let s = at(Right::Call, "430", "1", "441.5", AccountType::Cash, held, "100000");
        assert_eq!(
            s.underlying,
            Holding {
                quantity: d("200"),
                average_cost: d("415")
            }
        );
    }

    #[test]
    fn a_put_in_the_money_sells_the_shares_held_at_the_strike() {
        let held = Holding {
            quantity: d("300"),
            average_cost: d("400"),
        };
        let s = at(Right::Put, "450", "2", "441.5", AccountType::Cash, held, "0");
        assert_eq!(
            (s.kind, s.shares, s.cash),
            (SettlementKind::Exercise, d("-200"), d("90000"))
        );
        assert_eq!(
            s.underlying,
            Holding {
                quantity: d("100"),
                average_cost: d("400")
            }
        );
        // Without the shares, a margin account goes short; a cash account is paid the value.
        let margin = at(Right::Put, "450", "1", "441.5", AccountType::Margin, none(), "0");
        assert_eq!(
            (margin.kind, margin.underlying.quantity),
            (SettlementKind::Exercise, d("-100"))
        );
        let cash = at(Right::Put, "450", "1", "441.5", AccountType::Cash, none(), "0");
        assert_eq!(
            (cash.kind, cash.shares, cash.cash),
            (SettlementKind::Cash, d("0"), d("850"))
        );
    }

    #[test]
    fn out_of_the_money_or_by_less_than_a_cent_it_expires() {
        for (right, close) in [
            (Right::Call, "429.99"),
            (Right::Call, "430.009"),
            (Right::Put, "430"),
            (Right::Put, "431"),
        ] {
            let s = at(right, "430", "3", close, AccountType::Cash, none(), "100");
            assert_eq!(
                (s.kind, s.shares, s.cash),
                (SettlementKind::Expire, d("0"), d("0")),
                "{right:?} {close}"
            );
        }
        let at_a_cent = at(Right::Call, "430", "1", "430.01", AccountType::Margin, none(), "0");
        assert_eq!(at_a_cent.kind, SettlementKind::Exercise);
    }

    #[test]
    fn a_cash_account_without_the_cash_is_paid_the_value_in_the_money() {
        let s = at(Right::Call, "430", "2", "441.5", AccountType::Cash, none(), "1000");
        assert_eq!((s.kind, s.shares, s.cash), (SettlementKind::Cash, d("0"), d("2300")));
        assert_eq!(s.underlying, none());
    }

    #[test]
    fn a_settlement_is_undone_in_the_value_history_like_a_fill() {
        let contract = Contract::parse_occ("AAPL130301C00300000")
            .unwrap()
            .instrument_id(1)
            .unwrap();
        let settled = Settled {
            settlement_id: 1,
            account_id: "A".into(),
            contract_id: contract,
            symbol: "AAPL130301C00300000".into(),
            expiry: 15_765,
            kind: SettlementKind::Exercise,
            contracts: d("1"),
            close: d("430.47"),
            shares: d("100"),
            cash: d("-30000"),
            time_ms: 0,
        };
        let now = crate::trading::valuation::Book {
            cash: d("70000"),
            shares: [(1, d("100"))].into(),
        };
        let before = now.before(&settled.movements());
        assert_eq!(before.cash, d("100000"));
        assert_eq!((before.shares[&1], before.shares[&contract]), (d("0"), d("1")));
        // Valued at the close, the account was worth the same just before and after.
        let price = |id: i64| Some(if id == contract { d("130.47") } else { d("430.47") });
        assert_eq!(before.value(price), now.value(price));
    }

    #[test]
    fn written_contracts_are_assigned() {
        let short_call = at(Right::Call, "430", "-1", "441.5", AccountType::Margin, none(), "0");
        assert_eq!(
            (
                short_call.kind,
                short_call.shares,
                short_call.cash,
                short_call.underlying.quantity
            ),
            (SettlementKind::Assignment, d("-100"), d("43000"), d("-100"))
        );
        let short_put = at(Right::Put, "450", "-1", "441.5", AccountType::Cash, none(), "45000");
        assert_eq!(
            (short_put.kind, short_put.shares, short_put.cash),
            (SettlementKind::Assignment, d("100"), d("-45000"))
        );
    }
}
