//! An account's cash activities: every movement of its cash, derived from what changes it. In
//! signet two things move cash after an account is opened: fills
//! ([`super::accounting::apply_fill`]: a buy pays quantity × price, a sale or short sale receives
//! it, each pays its commission), and the splits and dividends applied to its positions
//! ([`super::corporate`]). So the ledger is the opening deposit (the cash now less what those
//! moved), then each fill's trade amount and its fee, and each dividend and split, in the order
//! they happened. The amounts of a ledger add up to the cash now, to the cent and beyond.

use rust_decimal::Decimal;
use signet_model::ids::ClientOrderId;
use signet_model::orders::Side;
use signet_model::wire::WireEnum;

use super::corporate::Applied;
use crate::marketdata::ActionKind;
use crate::options::settlement::{Settled, SettlementKind};

/// What moved the cash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivityKind {
    /// The account's opening cash.
    Deposit,
    /// A fill's quantity × price: paid by a buy, received by a sale or short sale.
    Trade,
    /// A fill's commission.
    Fees,
    /// A cash dividend on a position held across its ex-date: paid to a long holder, by a short
    /// seller. Not a type of the interface's reference, whose list has none for dividends.
    Dividend,
    /// A split of a position held across its ex-date: no cash but what a fraction of a share
    /// was paid (cash in lieu). Not a type of the interface's reference either.
    Split,
    /// An option contract held at its expiry ([`SettlementKind`]): the strike paid or received
    /// for its shares, its value in the money, or nothing. signet's own types too.
    Settlement(SettlementKind),
}

impl ActivityKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ActivityKind::Deposit => "DEPOSIT",
            ActivityKind::Trade => "TRADE",
            ActivityKind::Fees => "FEES",
            ActivityKind::Dividend => "DIVIDEND",
            ActivityKind::Split => "SPLIT",
            ActivityKind::Settlement(SettlementKind::Exercise) => "OPTION_EXERCISE",
            ActivityKind::Settlement(SettlementKind::Assignment) => "OPTION_ASSIGNMENT",
            ActivityKind::Settlement(SettlementKind::Cash) => "OPTION_CASH_SETTLEMENT",
            ActivityKind::Settlement(SettlementKind::Expire) => "OPTION_EXPIRE",
        }
    }
}

/// A fill, as the ledger needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fill {
    pub fill_id: i64,
    pub time_ms: i64,
    /// The order's instrument: an option contract's fills move 100 times their price.
    pub instrument_id: i64,
    pub side: Side,
    pub quantity: Decimal,
    pub price: Decimal,
    pub commission: Decimal,
    pub symbol: String,
    pub client_order_id: ClientOrderId,
}

/// One movement of cash: positive in, negative out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    /// `D` for the deposit, `T<fill id>` for a trade, `F<fill id>` for its fee, `A<entry id>`
    /// for a dividend or split: in the order the ledger lists them.
    pub id: String,
    pub kind: ActivityKind,
    pub time_ms: i64,
    pub amount: Decimal,
    /// The symbol, and the fill's client order id, for trades and fees; the symbol alone for
    /// dividends and splits.
    pub fill: Option<(String, Option<ClientOrderId>)>,
    pub description: String,
}

/// What a fill moved: its trade amount and its fee.
fn moved(fill: &Fill) -> (Decimal, Decimal) {
    let value = fill.quantity * fill.price * crate::options::multiplier(fill.instrument_id);
    let trade = match fill.side {
        Side::Buy => -value,
        Side::Sell | Side::Short => value,
    };
    (trade, -fill.commission)
}

/// One change of the cash, in the order they were applied.
enum Change<'a> {
    Fill(&'a Fill),
    Action(&'a Applied),
    Settlement(&'a Settled),
}

impl Change<'_> {
    fn time_ms(&self) -> i64 {
        match self {
            Change::Fill(f) => f.time_ms,
            Change::Action(a) => a.time_ms,
            Change::Settlement(s) => s.time_ms,
        }
    }

    fn moved(&self) -> Decimal {
        match self {
            Change::Fill(f) => {
                let (trade, fee) = moved(f);
                trade + fee
            }
            Change::Action(a) => a.cash,
            Change::Settlement(s) => s.cash,
        }
    }
}

/// The ledger of an account with `cash` now, opened at `opened_ms`, whose `fills` and `applied`
/// actions (each in the order they were applied) are every change of its cash since: oldest
/// first.
pub fn ledger(
    cash: Decimal,
    opened_ms: i64,
    fills: &[Fill],
    applied: &[Applied],
    settled: &[Settled],
) -> Vec<Activity> {
    // The lists are in time order; a fill, an action and a settlement of the same millisecond,
    // in that order.
    let mut changes: Vec<Change<'_>> = fills
        .iter()
        .map(Change::Fill)
        .chain(applied.iter().map(Change::Action))
        .chain(settled.iter().map(Change::Settlement))
        .collect();
    changes.sort_by_key(Change::time_ms);
    let opening = cash - changes.iter().map(Change::moved).sum::<Decimal>();
    let mut activities = vec![Activity {
        id: "D".into(),
        kind: ActivityKind::Deposit,
        time_ms: opened_ms,
        amount: opening,
        fill: None,
        description: "opening deposit".into(),
    }];
    for change in changes {
        match change {
            Change::Fill(f) => fill_activities(f, &mut activities),
            Change::Action(a) => activities.push(action_activity(a)),
            Change::Settlement(s) => activities.push(settlement_activity(s)),
        }
    }
    activities
}

fn fill_activities(f: &Fill, activities: &mut Vec<Activity>) {
    let (trade, fee) = moved(f);
    let order = Some((f.symbol.clone(), Some(f.client_order_id.clone())));
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

fn action_activity(a: &Applied) -> Activity {
    let (kind, description) = match a.kind {
        ActionKind::Dividend => (
            ActivityKind::Dividend,
            format!(
                "dividend of {} a share on {} {}",
                a.value.normalize(),
                a.quantity_before.normalize(),
                a.symbol
            ),
        ),
        ActionKind::Split => (
            ActivityKind::Split,
            format!(
                "{} for 1 split of {}: {} shares became {}{}",
                a.value.normalize(),
                a.symbol,
                a.quantity_before.normalize(),
                a.quantity_after.normalize(),
                if a.cash.is_zero() {
                    ""
                } else {
                    ", the fraction paid in cash"
                }
            ),
        ),
    };
    Activity {
        id: format!("A{}", a.entry_id),
        kind,
        time_ms: a.time_ms,
        amount: a.cash,
        fill: Some((a.symbol.clone(), None)),
        description,
    }
}

fn settlement_activity(s: &Settled) -> Activity {
    let contracts = s.contracts.abs().normalize();
    let description = match s.kind {
        SettlementKind::Exercise | SettlementKind::Assignment => format!(
            "{} of {contracts} {} at expiry ({} closed at {}): {} shares {}",
            if s.kind == SettlementKind::Exercise {
                "exercise"
            } else {
                "assignment"
            },
            s.symbol,
            crate::options::Contract::parse_occ(&s.symbol).map_or_else(|_| s.symbol.clone(), |c| c.underlying),
            s.close,
            s.shares.abs().normalize(),
            if s.shares > Decimal::ZERO {
                "received"
            } else {
                "delivered"
            },
        ),
        SettlementKind::Cash => format!(
            "{contracts} {} settled in cash at expiry ({} in the money a share)",
            s.symbol,
            s.cash.abs() / (contracts * Decimal::ONE_HUNDRED)
        ),
        SettlementKind::Expire => format!("{contracts} {} expired worthless", s.symbol),
    };
    Activity {
        id: format!("O{}", s.settlement_id),
        kind: ActivityKind::Settlement(s.kind),
        time_ms: s.time_ms,
        amount: s.cash,
        fill: Some((s.symbol.clone(), None)),
        description,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn contracts_settled_at_expiry_are_in_the_ledger() {
        let settled = |id, kind, shares: &str, cash: &str| Settled {
            settlement_id: id,
            account_id: "A".into(),
            contract_id: 1,
            symbol: "AAPL130301C00300000".into(),
            expiry: 15_765,
            kind,
            contracts: d("2"),
            close: d("430.47"),
            shares: d(shares),
            cash: d(cash),
            time_ms: 10_000 + id,
        };
        let settlements = [
            settled(1, SettlementKind::Exercise, "200", "-60000"),
            settled(2, SettlementKind::Cash, "0", "26094"),
            settled(3, SettlementKind::Expire, "0", "0"),
        ];
        let ledger = ledger(d("66094"), 0, &[], &[], &settlements);
        let rows: Vec<(&str, &str, Decimal)> = ledger
            .iter()
            .map(|a| (a.id.as_str(), a.kind.as_str(), a.amount))
            .collect();
        assert_eq!(
            rows,
            [
                ("D", "DEPOSIT", d("100000")),
                ("O1", "OPTION_EXERCISE", d("-60000")),
                ("O2", "OPTION_CASH_SETTLEMENT", d("26094")),
                ("O3", "OPTION_EXPIRE", d("0")),
            ]
        );
        assert_eq!(
            ledger[1].description,
            "exercise of 2 AAPL130301C00300000 at expiry (AAPL closed at 430.47): 200 shares received"
        );
        assert_eq!(
            ledger[2].description,
            "2 AAPL130301C00300000 settled in cash at expiry (130.47 in the money a share)"
        );
    }

    fn fill(id: i64, side: Side, quantity: &str, price: &str, commission: &str) -> Fill {
        Fill {
            fill_id: id,
            time_ms: id * 1000,
            instrument_id: 1,
            side,
            quantity: d(quantity),
            price: d(price),
            commission: d(commission),
            symbol: "AAPL".into(),
            client_order_id: format!("o{id}").into(),
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
        let ledger = ledger(cash, 0, &fills, &[], &[]);
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
        let ledger = ledger(d("1003"), 0, &[fill(7, Side::Short, "1", "4", "1")], &[], &[]);
        assert_eq!(ledger[0].amount, d("1000"));
        assert_eq!((ledger[1].amount, ledger[2].amount), (d("4"), d("-1")));
    }

    #[test]
    fn dividends_and_splits_take_their_place_in_time() {
        let fills = [
            fill(1, Side::Buy, "10", "620", "0"),
            fill(3, Side::Sell, "20", "320", "0"),
        ];
        let applied = |entry_id, time_ms, kind, value: &str, after: &str, cash: &str| Applied {
            entry_id,
            account_id: "A".into(),
            instrument_id: 1,
            symbol: "AAPL".into(),
            ex_day: 0,
            kind,
            value: d(value),
            quantity_before: d("10"),
            quantity_after: d(after),
            cash: d(cash),
            time_ms,
        };
        let actions = [
            applied(1, 1500, ActionKind::Dividend, "2.65", "10", "26.5"),
            applied(2, 2000, ActionKind::Split, "2", "20", "0"),
        ];
        let cash = d("100000") - d("6200") + d("26.5") + d("6400");
        let ledger = ledger(cash, 0, &fills, &actions, &[]);
        let rows: Vec<(&str, &str, Decimal)> = ledger
            .iter()
            .map(|a| (a.id.as_str(), a.kind.as_str(), a.amount))
            .collect();
        assert_eq!(
            rows,
            [
                ("D", "DEPOSIT", d("100000")),
                ("T1", "TRADE", d("-6200")),
                ("A1", "DIVIDEND", d("26.5")),
                ("A2", "SPLIT", d("0")),
                ("T3", "TRADE", d("6400")),
            ]
        );
        assert_eq!(ledger[2].description, "dividend of 2.65 a share on 10 AAPL");
        assert_eq!(ledger[3].description, "2 for 1 split of AAPL: 10 shares became 20");
        assert_eq!(ledger[2].fill, Some(("AAPL".into(), None)));
    }
}
