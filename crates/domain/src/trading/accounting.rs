//! What a fill does to an order and its account, and how much an account may still buy. Pure
//! functions: the store loads what they need and saves their effect inside the fill's
//! transaction.

use std::collections::HashMap;

use rust_decimal::Decimal;
use signet_model::AccountType;
use signet_model::orders::{OrderStatus, Side};

use super::order::{Event, Order, is_open, transition};

/// A holding: shares (negative when sold short) and the average price they were bought (or sold
/// short) at.
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
    /// A short sale by a CASH account, or while the account holds shares long.
    Short,
    /// A MARGIN account would go beyond its Reg T buying power ([`within_margin`]).
    Margin,
}

impl Refusal {
    pub const fn reason(self) -> &'static str {
        match self {
            Refusal::Cash => "buying power gone: the cash account cannot pay for the fill",
            Refusal::Shares => "the account no longer holds the shares to sell",
            Refusal::Short => "only a margin account without a long position may sell short",
            Refusal::Margin => {
                "buying power gone: the margin account's equity would be less than half its positions' value (Reg T)"
            }
        }
    }
}

/// Applies a fill of `quantity` at `price` (plus `commission`) to a holding and cash.
///
/// A buy spends cash and raises the holding: at a new average cost when long, covering (at the
/// same average short price) when short. A sell lowers a long holding at the same average cost
/// and adds the proceeds; a short sale (MARGIN accounts, no long holding) adds the proceeds and
/// deepens the short at a new average price. A CASH account can never go below zero, and no
/// account sells more than it holds.
pub fn apply_fill(
    account_type: AccountType,
    side: Side,
    holding: Holding,
    cash: Decimal,
    quantity: Decimal,
    price: Decimal,
    commission: Decimal,
) -> Result<FillEffect, Refusal> {
    apply_fill_scaled(
        account_type,
        side,
        holding,
        cash,
        quantity,
        price,
        commission,
        Decimal::ONE,
    )
}

/// [`apply_fill`] of units that each stand for `multiplier` shares (an option contract's 100,
/// [`crate::options::multiplier`]): the cash moves by quantity × price × multiplier, and the
/// average cost stays a price per share, as it is quoted.
#[expect(clippy::too_many_arguments, reason = "apply_fill's arguments and the unit's size")]
pub fn apply_fill_scaled(
    account_type: AccountType,
    side: Side,
    holding: Holding,
    cash: Decimal,
    quantity: Decimal,
    price: Decimal,
    commission: Decimal,
    multiplier: Decimal,
) -> Result<FillEffect, Refusal> {
    let value = quantity * price * multiplier;
    // The average of an existing holding and `quantity` more at `price`, by absolute size.
    let averaged =
        |held: Decimal| ((held.abs() * holding.average_cost + quantity * price) / (held.abs() + quantity)).round_dp(6);
    let (quantity_after, average_cost, cash) = match side {
        Side::Buy => {
            let cash = cash - value - commission;
            if account_type == AccountType::Cash && cash < Decimal::ZERO {
                return Err(Refusal::Cash);
            }
            let total = holding.quantity + quantity;
            let average_cost = if holding.quantity >= Decimal::ZERO {
                averaged(holding.quantity)
            } else if total < Decimal::ZERO {
                holding.average_cost
            } else if total.is_zero() {
                Decimal::ZERO
            } else {
                // Covered the short and bought beyond it: the long part cost `price`.
                price
            };
            (total, average_cost, cash)
        }
        // A sale of contracts not held writes them, in either kind of account: what secures
        // them was checked at placement and is held back since.
        Side::Sell if multiplier != Decimal::ONE && holding.quantity <= Decimal::ZERO => (
            holding.quantity - quantity,
            averaged(holding.quantity),
            cash + value - commission,
        ),
        Side::Sell => {
            if holding.quantity < quantity {
                return Err(Refusal::Shares);
            }
            let left = holding.quantity - quantity;
            let average_cost = if left.is_zero() {
                Decimal::ZERO
            } else {
                holding.average_cost
            };
            (left, average_cost, cash + value - commission)
        }
        Side::Short => {
            if account_type == AccountType::Cash || holding.quantity > Decimal::ZERO {
                return Err(Refusal::Short);
            }
            (
                holding.quantity - quantity,
                averaged(holding.quantity),
                cash + value - commission,
            )
        }
    };
    Ok(FillEffect {
        holding: Holding {
            quantity: quantity_after,
            average_cost,
        },
        cash,
    })
}

/// The market value of positions: longs, and shorts as a positive amount; options apart, since
/// those bought are paid in full and lend no buying power, and those written are secured by
/// what the account holds back for them (`buying_power::check`), not by margin.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exposure {
    pub long: Decimal,
    pub short: Decimal,
    /// Option contracts held long, at their mark × 100.
    pub options: Decimal,
    /// Option contracts written, at their mark × 100, as a positive amount.
    pub written: Decimal,
}

impl Exposure {
    /// `quantity` of `instrument_id` (negative when short) at `price`.
    pub fn of(instrument_id: i64, quantity: Decimal, price: Decimal) -> Exposure {
        let value = quantity * price * crate::options::multiplier(instrument_id);
        let contract = crate::options::is_contract(instrument_id);
        if value.is_sign_negative() && contract {
            Exposure {
                written: -value,
                ..Exposure::default()
            }
        } else if value.is_sign_negative() {
            Exposure {
                short: -value,
                ..Exposure::default()
            }
        } else if contract {
            Exposure {
                options: value,
                ..Exposure::default()
            }
        } else {
            Exposure {
                long: value,
                ..Exposure::default()
            }
        }
    }

    pub fn plus(self, other: Exposure) -> Exposure {
        Exposure {
            long: self.long + other.long,
            short: self.short + other.short,
            options: self.options + other.options,
            written: self.written + other.written,
        }
    }

    /// Longs (options included) less shorts (options written included): the equity the
    /// positions add to the cash.
    pub fn net(&self) -> Decimal {
        self.long + self.options - self.short - self.written
    }
}

/// Reg T at a fill, as placement checks it before: a MARGIN account's fill that grows a
/// position must leave its buying power (twice its equity, less what its long and short
/// positions use) at zero or more, the filled instrument valued at `price` and the account's
/// other positions at `others`. Placement checked the order against the account as it was; a
/// fill comes later, at another price and after other fills, and is checked again as a CASH
/// account's fill is checked against its cash ([`apply_fill`]). A fill that shrinks a position
/// frees buying power and always passes; the claims of other open orders do not count here.
pub fn within_margin(
    account_type: AccountType,
    instrument_id: i64,
    before: Holding,
    after: &FillEffect,
    price: Decimal,
    others: Exposure,
) -> Result<(), Refusal> {
    if account_type != AccountType::Margin || after.holding.quantity.abs() <= before.quantity.abs() {
        return Ok(());
    }
    let all = others.plus(Exposure::of(instrument_id, after.holding.quantity, price));
    if margin_power(after.cash, all) < Decimal::ZERO {
        return Err(Refusal::Margin);
    }
    Ok(())
}

/// Reg T buying power before open orders: twice the equity (cash, which holds the proceeds of
/// short sales, plus longs less shorts) less what the positions use (50 % initial margin on
/// both sides of shares, 100 % of options bought, so that they lend nothing); negative when the
/// positions use more than the equity allows. Options written are secured by what the account
/// holds back for them (the most they can lose, [`crate::options::secured`]), not by margin:
/// their mark moves no buying power, as a spread's maximum loss alone is what it takes.
fn margin_power(cash: Decimal, positions: Exposure) -> Decimal {
    (cash + positions.net() + positions.written) * Decimal::TWO
        - positions.long
        - positions.short
        - positions.options * Decimal::TWO
}

/// A fill the engine found: `quantity` of an order at `price`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Execution {
    pub quantity: Decimal,
    pub price: Decimal,
    pub commission: Commission,
}

/// What a fill does to its order and account, for the store to save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderFill {
    pub event: Event,
    pub status: OrderStatus,
    pub filled_quantity: Decimal,
    pub filled_amount: Decimal,
    /// Charged on this fill.
    pub commission: Decimal,
    pub account: FillEffect,
}

/// Why a fill is not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotFilled {
    /// The order is no longer open, or has less left than the fill: nothing changes.
    Stale,
    /// The account cannot take the fill: nothing changes.
    Refused(Refusal),
}

/// Fills `execution` of `order` against an account holding `holding` of the order's instrument
/// with `cash`, its other positions worth `others`.
pub fn fill_order(
    order: &Order,
    account_type: AccountType,
    cash: Decimal,
    holding: Holding,
    others: Exposure,
    execution: Execution,
) -> Result<OrderFill, NotFilled> {
    let Execution { quantity, price, .. } = execution;
    if !is_open(order.status) || order.remaining() < quantity || quantity <= Decimal::ZERO {
        return Err(NotFilled::Stale);
    }
    let commission = execution.commission.of(quantity, order.filled_quantity.is_zero());
    let multiplier = crate::options::multiplier(order.instrument_id);
    let account = apply_fill_scaled(
        account_type,
        order.side,
        holding,
        cash,
        quantity,
        price,
        commission,
        multiplier,
    )
    .map_err(NotFilled::Refused)?;
    within_margin(account_type, order.instrument_id, holding, &account, price, others).map_err(NotFilled::Refused)?;
    let filled_quantity = order.filled_quantity + quantity;
    let event = if filled_quantity == order.quantity {
        Event::Fill
    } else {
        Event::PartialFill
    };
    Ok(OrderFill {
        event,
        status: transition(order.status, event).expect("an open order can fill"),
        filled_quantity,
        filled_amount: order.filled_amount + quantity * price,
        commission,
        account,
    })
}

/// Buying power: what a CASH account has in cash, or for a MARGIN account twice its equity
/// (cash, which holds the proceeds of short sales, plus longs less shorts) less what its long and
/// short positions already use (Reg T: 50% initial margin on both); in both cases less what open
/// buy and short orders have reserved.
pub fn buying_power(
    account_type: AccountType,
    cash: Decimal,
    positions: Exposure,
    reserved: Decimal,
    reserved_premiums: Decimal,
) -> Decimal {
    let power = match account_type {
        AccountType::Cash => cash,
        // Options bought are paid in full: of a margin account's buying power (twice its excess
        // equity) they take twice what they cost, once in `reserved` and once here.
        AccountType::Margin => margin_power(cash, positions) - reserved_premiums,
    };
    (power - reserved).max(Decimal::ZERO)
}

/// [`buying_power`] with `held` cash held back in full (what written contracts secure), below
/// zero when the account carries more than it can: what a multi-leg fill compares before and
/// after.
pub fn power(account_type: AccountType, cash: Decimal, positions: Exposure, held: Decimal) -> Decimal {
    let power = match account_type {
        AccountType::Cash => cash,
        AccountType::Margin => margin_power(cash, positions) - held,
    };
    power - held
}

/// What each order had filled after each of its fills: `fills` are (order id, fill id, quantity)
/// in the order they happened; the answer maps each fill id to its order's total then.
pub fn filled_after<'a>(fills: impl IntoIterator<Item = (&'a str, i64, Decimal)>) -> HashMap<i64, Decimal> {
    let mut running: HashMap<&str, Decimal> = HashMap::new();
    fills
        .into_iter()
        .map(|(order_id, fill_id, quantity)| {
            let total = running.entry(order_id).or_default();
            *total += quantity;
            (fill_id, *total)
        })
        .collect()
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
    fn filled_after_runs_a_total_per_order() {
        let after = filled_after([("a", 1, d("10")), ("b", 2, d("5")), ("a", 3, d("2.5"))]);
        assert_eq!(after, HashMap::from([(1, d("10")), (2, d("5")), (3, d("12.5"))]));
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
    fn a_short_sale_adds_proceeds_and_a_buy_covers_it() {
        let none = Holding::default();
        assert_eq!(
            apply_fill(AccountType::Cash, Side::Short, none, d("1000"), d("1"), d("10"), d("0")),
            Err(Refusal::Short)
        );
        let long = Holding {
            quantity: d("5"),
            average_cost: d("10"),
        };
        assert_eq!(
            apply_fill(
                AccountType::Margin,
                Side::Short,
                long,
                d("1000"),
                d("1"),
                d("10"),
                d("0")
            ),
            Err(Refusal::Short),
            "sell the long shares first"
        );
        let short = apply_fill(
            AccountType::Margin,
            Side::Short,
            none,
            d("1000"),
            d("10"),
            d("20"),
            d("0"),
        )
        .unwrap();
        assert_eq!(short.cash, d("1200"));
        let deeper = apply_fill(
            AccountType::Margin,
            Side::Short,
            short.holding,
            short.cash,
            d("10"),
            d("30"),
            d("0"),
        )
        .unwrap();
        assert_eq!(
            (deeper.holding.quantity, deeper.holding.average_cost),
            (d("-20"), d("25"))
        );
        let covered = apply_fill(
            AccountType::Margin,
            Side::Buy,
            deeper.holding,
            deeper.cash,
            d("15"),
            d("22"),
            d("0"),
        )
        .unwrap();
        assert_eq!(
            (covered.holding.quantity, covered.holding.average_cost),
            (d("-5"), d("25"))
        );
        let flipped = apply_fill(
            AccountType::Margin,
            Side::Buy,
            covered.holding,
            covered.cash,
            d("8"),
            d("21"),
            d("0"),
        )
        .unwrap();
        assert_eq!(
            (flipped.holding.quantity, flipped.holding.average_cost),
            (d("3"), d("21"))
        );
        assert_eq!(flipped.cash, d("1500") - d("330") - d("168"));
    }

    #[test]
    fn a_margin_fill_that_grows_a_position_stays_within_reg_t() {
        let none = Holding::default();
        let others = Exposure::of(1, d("10"), d("100"));
        // Equity 2000 (1000 cash, 1000 of stock): 4000 of positions at most, 1000 used.
        let within = |side, holding: Holding, cash: &str, quantity: &str, price: &str| {
            let (cash, quantity, price) = (d(cash), d(quantity), d(price));
            let effect = apply_fill(AccountType::Margin, side, holding, cash, quantity, price, d("0")).unwrap();
            within_margin(AccountType::Margin, 1, holding, &effect, price, others)
        };
        assert_eq!(within(Side::Buy, none, "1000", "30", "100"), Ok(()));
        assert_eq!(within(Side::Buy, none, "1000", "31", "100"), Err(Refusal::Margin));
        assert_eq!(within(Side::Short, none, "1000", "31", "100"), Err(Refusal::Margin));
        // Beyond the line already, a fill that shrinks a position still passes.
        let deep = Holding {
            quantity: d("-50"),
            average_cost: d("100"),
        };
        assert_eq!(within(Side::Buy, deep, "-3000", "10", "100"), Ok(()));
        assert_eq!(within(Side::Short, deep, "-3000", "1", "100"), Err(Refusal::Margin));
        // A CASH account is held to its cash instead.
        let effect = apply_fill(AccountType::Cash, Side::Buy, none, d("1000"), d("10"), d("100"), d("0")).unwrap();
        assert_eq!(
            within_margin(
                AccountType::Cash,
                1,
                none,
                &effect,
                d("100"),
                Exposure::of(2, d("-1000"), d("1"))
            ),
            Ok(())
        );
    }

    #[test]
    fn a_contract_moves_a_hundred_times_its_price_and_keeps_its_cost_per_share() {
        let none = Holding::default();
        let hundred = d("100");
        let bought = apply_fill_scaled(
            AccountType::Cash,
            Side::Buy,
            none,
            d("1000"),
            d("2"),
            d("4.5"),
            d("1"),
            hundred,
        )
        .unwrap();
        assert_eq!(
            (bought.cash, bought.holding.quantity, bought.holding.average_cost),
            (d("99"), d("2"), d("4.5"))
        );
        assert_eq!(
            apply_fill_scaled(
                AccountType::Cash,
                Side::Buy,
                none,
                d("899"),
                d("2"),
                d("4.5"),
                d("0"),
                hundred
            ),
            Err(Refusal::Cash)
        );
        let more = apply_fill_scaled(
            AccountType::Margin,
            Side::Buy,
            bought.holding,
            d("1000"),
            d("2"),
            d("5.5"),
            d("0"),
            hundred,
        )
        .unwrap();
        assert_eq!((more.cash, more.holding.average_cost), (d("-100"), d("5")));
        let sold = apply_fill_scaled(
            AccountType::Cash,
            Side::Sell,
            bought.holding,
            d("0"),
            d("2"),
            d("6"),
            d("0"),
            hundred,
        )
        .unwrap();
        assert_eq!((sold.cash, sold.holding.quantity), (d("1200"), d("0")));
        // Contracts not held are written, in a cash account too (secured at placement); shares
        // are not.
        let written = apply_fill_scaled(
            AccountType::Cash,
            Side::Sell,
            none,
            d("0"),
            d("2"),
            d("3"),
            d("0"),
            hundred,
        );
        let written = written.unwrap();
        assert_eq!(
            (written.cash, written.holding.quantity, written.holding.average_cost),
            (d("600"), d("-2"), d("3"))
        );
        assert_eq!(
            apply_fill(AccountType::Cash, Side::Sell, none, d("0"), d("2"), d("3"), d("0")),
            Err(Refusal::Shares)
        );
    }

    #[test]
    fn options_bought_add_to_the_equity_and_nothing_to_a_margin_accounts_power() {
        let call = crate::options::Contract {
            underlying: "AAPL".into(),
            expiry: 15_779,
            right: crate::options::Right::Call,
            strike: d("450"),
        }
        .instrument_id(1)
        .unwrap();
        let options = Exposure::of(call, d("2"), d("10"));
        assert_eq!(
            options,
            Exposure {
                options: d("2000"),
                ..Exposure::default()
            }
        );
        assert_eq!(options.net(), d("2000"));
        // 8000 of cash and 2000 of options: twice the equity less twice the options.
        assert_eq!(
            buying_power(AccountType::Margin, d("8000"), options, d("0"), d("0")),
            d("16000")
        );
        assert_eq!(
            buying_power(AccountType::Margin, d("8000"), options, d("100"), d("100")),
            d("15800")
        );
        assert_eq!(
            buying_power(AccountType::Cash, d("8000"), options, d("100"), d("100")),
            d("7900")
        );
    }

    #[test]
    fn buying_power_of_cash_and_margin() {
        let zero = d("0");
        assert_eq!(
            buying_power(
                AccountType::Cash,
                d("1000"),
                Exposure {
                    long: d("500"),
                    ..Exposure::default()
                },
                d("300"),
                zero
            ),
            d("700")
        );
        assert_eq!(
            buying_power(AccountType::Margin, d("1000"), Exposure::default(), zero, zero),
            d("2000")
        );
        assert_eq!(
            buying_power(
                AccountType::Margin,
                zero,
                Exposure {
                    long: d("2000"),
                    ..Exposure::default()
                },
                zero,
                zero
            ),
            d("2000"),
            "equity 2000, all of it in stock"
        );
        assert_eq!(
            buying_power(
                AccountType::Margin,
                d("2000"),
                Exposure {
                    short: d("1000"),
                    ..Exposure::default()
                },
                zero,
                zero
            ),
            d("1000"),
            "1000 of cash and a short of 1000 (whose proceeds are in the cash): half the power used"
        );
        assert_eq!(
            buying_power(AccountType::Cash, d("10"), Exposure::default(), d("50"), zero),
            zero
        );
        let c = Commission {
            per_share: d("0.005"),
            per_order: d("1"),
        };
        assert_eq!((c.of(d("100"), true), c.of(d("100"), false)), (d("1.5"), d("0.5")));
    }
}
