//! When and at what price an open order fills against a quote, and when a stop is reached.

use rust_decimal::Decimal;
use signet_model::orders::{OrderType, Side, TradingSession};

use super::order::{Order, has_stop};
use crate::simulator::clock::Session;
use crate::simulator::{Held, Quote};

/// Whether an order may trade in a session.
pub fn trades_in(order_session: TradingSession, session: Session) -> bool {
    match order_session {
        TradingSession::Core | TradingSession::N => session == Session::Core,
        TradingSession::All => matches!(session, Session::PreMarket | Session::Core | Session::AfterHours),
        TradingSession::Night => session == Session::Overnight,
        TradingSession::AllDay => session != Session::Closed,
    }
}

/// What a waiting stop order's stop does at `quote`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopMove {
    /// The stop now (a trailing stop follows the best last price seen).
    pub stop_price: Decimal,
    /// The last price reached the stop: from now on the order trades.
    pub triggered: bool,
}

/// For a stop order that has not triggered: where its stop goes and whether the last price
/// reached it (a buy stop at or above, a sell stop at or below), in the sessions it trades in;
/// `None` when nothing changes.
pub fn watch(order: &Order, quote: &Quote) -> Option<StopMove> {
    if !has_stop(order.order_type)
        || order.triggered_at.is_some()
        || order.waits_for.is_some()
        || !trades_in(order.session, quote.session)
    {
        return None;
    }
    let current = order.stop_price?;
    let stop_price = match order.trailing {
        Some(trailing) => {
            let candidate = trailing.stop_for(order.side, quote.last);
            match order.side {
                Side::Buy => current.min(candidate),
                Side::Sell | Side::Short => current.max(candidate),
            }
        }
        None => current,
    };
    let triggered = match order.side {
        Side::Buy => quote.last >= stop_price,
        Side::Sell | Side::Short => quote.last <= stop_price,
    };
    (triggered || stop_price != current).then_some(StopMove { stop_price, triggered })
}

/// Levels of the book one order may walk in one tick: the depth the quotes call shows.
pub const WALK_LEVELS: usize = 10;

/// The executions an open order gets against `quote` now, best price first: a buy takes the
/// asks, a sell the bids, each level's shares at its price ([`Quote::book`]), as far as a
/// limit allows and at most [`WALK_LEVELS`] levels. An order larger than the size shown pays
/// the price impact the depth explains (its average price is worse than the top of the book);
/// what is left waits for the next tick's book. A stop order trades only once triggered, as a
/// market order (or a limit one, with a limit price); an order waiting for its master not at
/// all.
pub fn fill(order: &Order, quote: &Quote) -> Vec<(Decimal, Decimal)> {
    if !may_trade(order, quote) {
        return Vec::new();
    }
    let asks = order.side == Side::Buy;
    let mut left = order.remaining();
    let mut fills = Vec::new();
    for level in (0..WALK_LEVELS).map_while(|i| quote.level(asks, i)) {
        if left <= Decimal::ZERO || !reachable(order, level.price) {
            break;
        }
        let quantity = left.min(Decimal::from(level.size));
        fills.push((quantity, level.price));
        left -= quantity;
    }
    fills
}

/// Whether `order` may trade at `quote` at all: in its sessions, not halted, not waiting for its
/// master, and a stop order only once triggered.
fn may_trade(order: &Order, quote: &Quote) -> bool {
    trades_in(order.session, quote.session)
        && quote.held != Some(Held::Halted)
        && order.waits_for.is_none()
        && (!has_stop(order.order_type) || order.triggered_at.is_some())
}

/// Whether `order` may buy or sell at `price`: any price for a market order (and a triggered
/// stop), within its limit for a limit one.
fn reachable(order: &Order, price: Decimal) -> bool {
    match (order.order_type, order.limit_price, order.side) {
        (OrderType::Market | OrderType::StopLoss | OrderType::TrailingStopLoss, _, _) => true,
        (OrderType::Limit | OrderType::StopLossLimit, Some(limit), Side::Buy) => price <= limit,
        (OrderType::Limit | OrderType::StopLossLimit, Some(limit), _) => price >= limit,
        _ => false,
    }
}

/// A resting limit order's place at its price: the shares shown there when it joined, and
/// what the market has traded there since. The market trades at the simulator's price path
/// ([`crate::simulator::daypath`]): shares traded at the order's limit go first to the orders
/// ahead of it, then to it; a trade beyond its limit (below a buy's, above a sell's) means the
/// market went through its price, which fills all of it at its limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Queue {
    /// Shares shown at the limit when the order joined (none when it improved on the best price).
    pub ahead: u64,
    /// Shares traded at the limit since.
    pub traded_at: u64,
    pub traded_through: bool,
}

impl Queue {
    /// The queue an order at `limit` joins in `quote`'s book: the shares of the level at its
    /// price, none inside the spread, the deepest level's when beyond the levels shown.
    pub fn join(side: Side, limit: Decimal, quote: &Quote) -> Queue {
        let (bids, asks) = quote.book(WALK_LEVELS);
        let (levels, better) = match side {
            Side::Buy => (bids, limit > quote.bid),
            Side::Sell | Side::Short => (asks, limit < quote.ask),
        };
        let ahead = if better {
            0
        } else {
            levels
                .iter()
                .find(|l| l.price == limit)
                .or(levels.last())
                .map_or(0, |l| l.size)
        };
        Queue {
            ahead,
            ..Queue::default()
        }
    }

    /// A trade of the tape (`price`, `shares`) seen by an order on `side` at `limit`.
    pub fn absorb(&mut self, side: Side, limit: Decimal, price: Decimal, shares: u64) {
        let through = match side {
            Side::Buy => price < limit,
            Side::Sell | Side::Short => price > limit,
        };
        if through {
            self.traded_through = true;
        } else if price == limit {
            self.traded_at = self.traded_at.saturating_add(shares);
        }
    }
}

/// Whether `order` rests in the book at `quote`: a limit order (a triggered stop-limit too)
/// that may trade now but is not marketable, with its limit.
pub fn resting(order: &Order, quote: &Quote) -> Option<Decimal> {
    let limit = order.limit_price?;
    let limit_order = matches!(order.order_type, OrderType::Limit | OrderType::StopLossLimit);
    let best = quote.level(order.side == Side::Buy, 0)?;
    (limit_order && may_trade(order, quote) && !reachable(order, best.price)).then_some(limit)
}

/// What a resting order fills at its limit from its queue: all of it once the market traded
/// through its price, otherwise what traded at its price beyond the shares ahead of it, less
/// what it has filled already.
pub fn queue_fill(order: &Order, queue: &Queue) -> Option<(Decimal, Decimal)> {
    let limit = order.limit_price?;
    let entitled = if queue.traded_through {
        order.quantity
    } else {
        Decimal::from(queue.traded_at.saturating_sub(queue.ahead)).min(order.quantity)
    };
    let quantity = (entitled - order.filled_quantity).min(order.remaining());
    (quantity > Decimal::ZERO).then_some((quantity, limit))
}

#[cfg(test)]
mod tests {
    use signet_model::orders::TrailingType;

    use super::*;
    use crate::times::SimTime;
    use crate::trading::order::Trailing;

    fn quote(last: &str) -> Quote {
        Quote::sample(last.parse().unwrap(), 100)
    }

    fn order(side: Side, order_type: OrderType, stop: &str, limit: Option<&str>) -> Order {
        Order {
            limit_price: limit.map(|l| l.parse().unwrap()),
            stop_price: Some(stop.parse().unwrap()),
            ..Order::sample("O", side, order_type)
        }
    }

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn a_stop_waits_for_the_last_price_then_trades() {
        let mut sell = order(Side::Sell, OrderType::StopLoss, "95", None);
        assert_eq!(watch(&sell, &quote("96")), None);
        assert_eq!(fill(&sell, &quote("96")), [], "not before its stop");
        assert_eq!(
            watch(&sell, &quote("95")),
            Some(StopMove {
                stop_price: d("95"),
                triggered: true
            })
        );
        sell.triggered_at = Some(SimTime(1));
        assert_eq!(watch(&sell, &quote("90")), None, "a triggered stop is done watching");
        assert_eq!(
            fill(&sell, &quote("97")),
            [(d("10"), d("96.99"))],
            "then a market order"
        );

        let buy = order(Side::Buy, OrderType::StopLossLimit, "105", Some("105.5"));
        assert!(!watch(&buy, &quote("104.99")).is_some_and(|m| m.triggered));
        assert!(watch(&buy, &quote("105")).unwrap().triggered);
        let mut buy = buy;
        buy.triggered_at = Some(SimTime(1));
        assert_eq!(fill(&buy, &quote("106")), [], "the limit still holds");
        assert_eq!(fill(&buy, &quote("105.4")), [(d("10"), d("105.41"))]);
    }

    #[test]
    fn a_large_order_walks_the_book_as_far_as_its_limit() {
        // 100 shares at the ask, then 200 and 200 a cent and two cents worse ([`Quote::book`]).
        let mut buy = Order::sample("O", Side::Buy, OrderType::Market);
        buy.quantity = d("450");
        let fills = fill(&buy, &quote("100"));
        assert_eq!(
            fills,
            [
                (d("100"), d("100.01")),
                (d("200"), d("100.02")),
                (d("150"), d("100.03"))
            ]
        );
        let amount: Decimal = fills.iter().map(|(q, p)| q * p).sum();
        assert_eq!(
            (amount / d("450")).round_dp(4),
            d("100.0211"),
            "worse than the ask by what the depth explains"
        );
        buy.order_type = OrderType::Limit;
        buy.limit_price = Some(d("100.02"));
        assert_eq!(
            fill(&buy, &quote("100")),
            [(d("100"), d("100.01")), (d("200"), d("100.02"))]
        );
        buy.limit_price = Some(d("100"));
        assert_eq!(fill(&buy, &quote("100")), [], "not marketable");
        // Ten levels at most in a tick: the rest waits.
        buy.order_type = OrderType::Market;
        buy.quantity = d("1000000");
        let fills = fill(&buy, &quote("100"));
        assert_eq!(fills.len(), WALK_LEVELS);
        assert_eq!(fills[9].1, d("100.10"));
        let mut sell = Order::sample("S", Side::Sell, OrderType::Market);
        sell.quantity = d("150");
        assert_eq!(
            fill(&sell, &quote("100")),
            [(d("100"), d("99.99")), (d("50"), d("99.98"))]
        );
    }

    #[test]
    fn a_resting_limit_fills_behind_its_queue_or_when_the_market_trades_through() {
        let q = quote("100");
        let mut buy = Order::sample("B", Side::Buy, OrderType::Limit);
        buy.quantity = d("300");
        buy.limit_price = Some(d("99.99"));
        assert_eq!(resting(&buy, &q), Some(d("99.99")), "at the bid: not marketable");
        let mut queue = Queue::join(Side::Buy, d("99.99"), &q);
        assert_eq!(queue.ahead, 100, "the bid's shares are ahead of it");
        assert_eq!(
            Queue::join(Side::Buy, d("99.995"), &q).ahead,
            0,
            "inside the spread: first"
        );
        assert_eq!(Queue::join(Side::Buy, d("99.98"), &q).ahead, 200, "a level down");
        queue.absorb(Side::Buy, d("99.99"), d("100.00"), 500);
        queue.absorb(Side::Buy, d("99.99"), d("99.99"), 80);
        assert_eq!(queue_fill(&buy, &queue), None, "80 of the 100 ahead");
        queue.absorb(Side::Buy, d("99.99"), d("99.99"), 150);
        assert_eq!(queue_fill(&buy, &queue), Some((d("130"), d("99.99"))), "a partial fill");
        buy.filled_quantity = d("130");
        assert_eq!(queue_fill(&buy, &queue), None, "nothing twice");
        queue.absorb(Side::Buy, d("99.99"), d("99.98"), 1);
        assert_eq!(queue_fill(&buy, &queue), Some((d("170"), d("99.99"))), "traded through");

        let mut sell = Order::sample("S", Side::Sell, OrderType::Limit);
        sell.limit_price = Some(d("100.01"));
        assert_eq!(resting(&sell, &q), Some(d("100.01")));
        sell.limit_price = Some(d("99.99"));
        assert_eq!(resting(&sell, &q), None, "marketable: it fills at the bid instead");
        let market = Order::sample("M", Side::Buy, OrderType::Market);
        assert_eq!(resting(&market, &q), None);
    }

    #[test]
    fn a_trailing_stop_follows_the_best_price_only() {
        let mut sell = order(Side::Sell, OrderType::TrailingStopLoss, "95", None);
        sell.trailing = Some(Trailing {
            kind: TrailingType::Amount,
            step: d("5"),
        });
        assert_eq!(
            watch(&sell, &quote("110")),
            Some(StopMove {
                stop_price: d("105"),
                triggered: false
            })
        );
        sell.stop_price = Some(d("105"));
        assert_eq!(watch(&sell, &quote("108")), None, "a fall does not lower it");
        assert_eq!(
            watch(&sell, &quote("104.5")),
            Some(StopMove {
                stop_price: d("105"),
                triggered: true
            })
        );

        let mut buy = order(Side::Buy, OrderType::TrailingStopLoss, "110", None);
        buy.trailing = Some(Trailing {
            kind: TrailingType::Percentage,
            step: d("0.1"),
        });
        assert_eq!(
            watch(&buy, &quote("90")),
            Some(StopMove {
                stop_price: d("99"),
                triggered: false
            })
        );
    }
}
