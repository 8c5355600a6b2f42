//! An account's cash activities: every movement of its cash, derived from what changes it. In
//! signet only fills move cash after an account is opened ([`super::accounting::apply_fill`]:
//! a buy pays quantity × price, a sale or short sale receives it, each pays its commission), so
//! the ledger is the opening deposit (the cash now less what the fills moved), then each fill's
//! trade amount and its fee. The amounts of a ledger add up to the cash now, to the cent and
//! beyond.

use rust_decimal::Decimal;
use signet_model::orders::Side;
use signet_model::wire::WireEnum;

/// What moved the cash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivityKind {
    /// The account's opening cash.
    Deposit,
    /// A fill's quantity × price: paid by a buy, received by a sale or short sale.
    Trade,
    /// A fill's commission.
    Fees,
}

impl ActivityKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ActivityKind::Deposit => "DEPOSIT",
            ActivityKind::Trade => "TRADE",
            ActivityKind::Fees => "FEES",
        }
    }
}

/// A fill, as the ledger needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fill {
    pub fill_id: i64,
    pub time_ms: i64,
    pub side: Side,
    pub quantity: Decimal,
    pub price: Decimal,
    pub commission: Decimal,
    pub symbol: String,
    pub client_order_id: String,
}

/// One movement of cash: positive in, negative out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    /// `D` for the deposit, `T<fill id>` for a trade, `F<fill id>` for its fee: in the order
    /// the ledger lists them.
    pub id: String,
    pub kind: ActivityKind,
    pub time_ms: i64,
    pub amount: Decimal,
    /// The fill's, for trades and fees.
    pub fill: Option<(String, String)>,
    pub description: String,
}

/// What a fill moved: its trade amount and its fee.
fn moved(fill: &Fill) -> (Decimal, Decimal) {
    let value = fill.quantity * fill.price;
    let trade = match fill.side {
        Side::Buy => -value,
        Side::Sell | Side::Short => value,
    };
    (trade, -fill.commission)
}

/// The ledger of an account with `cash` now, opened at `opened_ms`, whose `fills` (in the order
/// they were applied) are every change of its cash since: oldest first.
pub fn ledger(cash: Decimal, opened_ms: i64, fills: &[Fill]) -> Vec<Activity> {
    let moved_total: Decimal = fills
        .iter()
        .map(|f| {
            let (trade, fee) = moved(f);
            trade + fee
        })
        .sum();
    let opening = cash - moved_total;
    let mut activities = vec![Activity {
        id: "D".into(),
        kind: ActivityKind::Deposit,
        time_ms: opened_ms,
        amount: opening,
        fill: None,
        description: "opening deposit".into(),
    }];
    for f in fills {
        let (trade, fee) = moved(f);
        let order = Some((f.symbol.clone(), f.client_order_id.clone()));
        activities.push(Activity {
            id: format!("T{}", f.fill_id),
            kind: ActivityKind::Trade,
            time_ms: f.time_ms,
            amount: trade,
            fill: order.clone(),
            description: format!(
                "{} {} {} at {}",
                f.side.as_str(),
                f.quantity.normalize(),
                f.symbol,
                f.price
            ),
        });
        if !fee.is_zero() {
            activities.push(Activity {
                id: format!("F{}", f.fill_id),
                kind: ActivityKind::Fees,
                time_ms: f.time_ms,
                amount: fee,
                fill: order,
                description: format!(
                    "commission on {} {} {}",
                    f.side.as_str(),
                    f.quantity.normalize(),
                    f.symbol
                ),
            });
        }
    }
    activities
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn fill(id: i64, side: Side, quantity: &str, price: &str, commission: &str) -> Fill {
        Fill {
            fill_id: id,
            time_ms: id * 1000,
            side,
            quantity: d(quantity),
            price: d(price),
            commission: d(commission),
            symbol: "AAPL".into(),
            client_order_id: format!("o{id}"),
        }
    }

    #[test]
    fn the_opening_deposit_and_every_fill_add_up_to_the_cash_now() {
        // 100,000 opened; bought 10 at 400.01 (1.05 commission), sold 4 at 410, shorted nothing.
        let fills = [
            fill(1, Side::Buy, "10", "400.01", "1.05"),
            fill(2, Side::Sell, "4", "410", "0"),
        ];
        let cash = d("100000") - d("4000.10") - d("1.05") + d("1640");
        let ledger = ledger(cash, 0, &fills);
        let amounts: Vec<(&str, &str, Decimal)> = ledger
            .iter()
            .map(|a| (a.id.as_str(), a.kind.as_str(), a.amount))
            .collect();
        assert_eq!(
            amounts,
            [
                ("D", "DEPOSIT", d("100000")),
                ("T1", "TRADE", d("-4000.10")),
                ("F1", "FEES", d("-1.05")),
                ("T2", "TRADE", d("1640")),
            ],
            "no fee row for a free fill"
        );
        assert_eq!(ledger.iter().map(|a| a.amount).sum::<Decimal>(), cash);
        assert_eq!(ledger[1].description, "BUY 10 AAPL at 400.01");
    }

    #[test]
    fn a_short_sale_receives_its_proceeds() {
        let ledger = ledger(d("1003"), 0, &[fill(7, Side::Short, "1", "4", "1")]);
        assert_eq!(ledger[0].amount, d("1000"));
        assert_eq!((ledger[1].amount, ledger[2].amount), (d("4"), d("-1")));
    }
}
