//! When and at what price an open order fills against a quote.

use rust_decimal::Decimal;
use signet_model::orders::{OrderType, Side, TradingSession};

use super::order::Order;
use crate::market::Quote;
use crate::market::clock::Session;

/// Whether an order may trade in a session.
pub fn trades_in(order_session: TradingSession, session: Session) -> bool {
    match order_session {
        TradingSession::Core | TradingSession::N => session == Session::Core,
        TradingSession::All => matches!(session, Session::PreMarket | Session::Core | Session::AfterHours),
        TradingSession::Night | TradingSession::AllDay => false,
    }
}

/// The quantity and price an order fills at against `quote` now, if any: a buy at the ask, a
/// sell at the bid (a limit only when marketable, which is the better of the two prices), at
/// most the size shown, so that a large order fills in slices over successive ticks.
pub fn fill(order: &Order, quote: &Quote) -> Option<(Decimal, Decimal)> {
    if !trades_in(order.session, quote.session) {
        return None;
    }
    let (price, size) = match order.side {
        Side::Buy => (quote.ask, quote.ask_size),
        Side::Sell | Side::Short => (quote.bid, quote.bid_size),
    };
    let marketable = match (order.order_type, order.limit_price, order.side) {
        (OrderType::Market, _, _) => true,
        (OrderType::Limit, Some(limit), Side::Buy) => price <= limit,
        (OrderType::Limit, Some(limit), _) => price >= limit,
        _ => false,
    };
    let quantity = order.remaining().min(Decimal::from(size));
    (marketable && quantity > Decimal::ZERO).then_some((quantity, price))
}
