//! The intraday rank types of gainers/losers, ranked on the market simulator's prices: the
//! pre-market move from the previous close (from 04:00 New York), the after-hours move from the
//! close (from 16:00), or the move over the last 3 or 5 minutes (while a session is open).
//! Outside those times, or on a day without trading, there is no window and the list is empty.

use std::collections::HashMap;

use rust_decimal::Decimal;

use super::{Direction, ScreenRow};
use crate::simulator::Quote;
use crate::simulator::clock::{CORE_OPEN, NewYork, PRE_OPEN, Session, after_close, core_close, utc_ms_of};

/// An intraday rank type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intraday {
    PreMarket,
    AfterMarket,
    Min3,
    Min5,
}

/// The moments a move is measured between (milliseconds, UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// `None`: the move from the previous close.
    pub from: Option<i64>,
    pub to: i64,
}

/// The window of `rank` at `now_ms`, if it has one now.
pub fn window(rank: Intraday, now_ms: i64) -> Option<Window> {
    let ny = NewYork::of(now_ms);
    let at = |second: i64| utc_ms_of(ny.day, second);
    let open = ny.is_trading_day() && ny.session() != Session::Closed;
    let (from, to) = match rank {
        Intraday::PreMarket if ny.is_trading_day() && ny.second >= PRE_OPEN => (None, at(ny.second.min(CORE_OPEN))),
        Intraday::AfterMarket if ny.is_trading_day() && ny.second >= core_close(ny.day) => {
            (Some(at(core_close(ny.day))), at(ny.second.min(after_close(ny.day))))
        }
        Intraday::Min3 if open => (Some(now_ms - 3 * 60_000), now_ms),
        Intraday::Min5 if open => (Some(now_ms - 5 * 60_000), now_ms),
        _ => return None,
    };
    Some(Window { from, to })
}

/// One instrument's move over a window: from `base` to its quote's last price.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    pub base: Decimal,
    pub quote: Quote,
}

impl Move {
    pub fn change(&self) -> Decimal {
        self.quote.last - self.base
    }

    pub fn ratio(&self) -> Decimal {
        self.change() / self.base
    }
}

/// The moves in `direction` (rises for `Desc`, falls for `Asc`), the largest first, at most
/// `limit`. `prices` holds each instrument's last price at the window's start and its quote at
/// its end; without a start the base is the quote's previous close.
pub fn rank(window: Window, prices: Vec<(Decimal, Quote)>, direction: Direction, limit: usize) -> Vec<Move> {
    let mut moves: Vec<Move> = prices
        .into_iter()
        .map(|(then, quote)| Move {
            base: if window.from.is_some() { then } else { quote.pre_close },
            quote,
        })
        .filter(|m| {
            !m.base.is_zero()
                && match direction {
                    Direction::Desc => m.quote.last > m.base,
                    Direction::Asc => m.quote.last < m.base,
                }
        })
        .collect();
    moves.sort_by(|a, b| match direction {
        Direction::Desc => b.ratio().cmp(&a.ratio()),
        Direction::Asc => a.ratio().cmp(&b.ratio()),
    });
    moves.truncate(limit);
    moves
}

/// The list answered: the store's `rows` of the moved instruments (in the order of the figure
/// asked for), each with its move; reordered by the move itself when `by_change`, in
/// `direction`, and at most `limit`.
pub fn list<'a>(
    rows: &'a [ScreenRow],
    moves: &'a [Move],
    by_change: bool,
    direction: Direction,
    limit: usize,
) -> Vec<(&'a ScreenRow, &'a Move)> {
    let by_id: HashMap<i64, &Move> = moves.iter().map(|m| (m.quote.instrument_id, m)).collect();
    let mut listed: Vec<(&ScreenRow, &Move)> = rows
        .iter()
        .filter_map(|row| Some((row, *by_id.get(&row.instrument_id)?)))
        .collect();
    if by_change {
        listed.sort_by(|(_, a), (_, b)| match direction {
            Direction::Desc => b.ratio().cmp(&a.ratio()),
            Direction::Asc => a.ratio().cmp(&b.ratio()),
        });
    }
    listed.truncate(limit);
    listed
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::marketdata::snapshot::Snapshot;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    /// 2026-03-02 (a Monday) at `hour:minute` New York (UTC-5 that day).
    fn monday(hour: i64, minute: i64) -> i64 {
        let day = crate::marketdata::units::parse_day("2026-03-02").unwrap();
        utc_ms_of(day, hour * 3600 + minute * 60)
    }

    fn quote(instrument_id: i64, pre_close: &str, last: &str) -> Quote {
        Quote {
            instrument_id,
            pre_close: d(pre_close),
            ..Quote::sample(d(last), 100)
        }
    }

    fn row(instrument_id: i64) -> ScreenRow {
        ScreenRow {
            instrument_id,
            symbol: format!("S{instrument_id}"),
            name: String::new(),
            exchange: None,
            currency: "USD".into(),
            snapshot: Snapshot::default(),
        }
    }

    #[test]
    fn the_pre_market_window_runs_from_the_previous_close_to_now_or_the_open() {
        assert_eq!(window(Intraday::PreMarket, monday(3, 59)), None);
        assert_eq!(
            window(Intraday::PreMarket, monday(5, 0)),
            Some(Window {
                from: None,
                to: monday(5, 0)
            })
        );
        assert_eq!(window(Intraday::PreMarket, monday(12, 0)).unwrap().to, monday(9, 30));
    }

    #[test]
    fn the_after_hours_window_starts_at_the_close() {
        assert_eq!(window(Intraday::AfterMarket, monday(15, 59)), None);
        assert_eq!(
            window(Intraday::AfterMarket, monday(21, 0)),
            Some(Window {
                from: Some(monday(16, 0)),
                to: monday(20, 0)
            })
        );
    }

    #[test]
    fn minute_windows_need_an_open_session() {
        assert_eq!(
            window(Intraday::Min3, monday(10, 0)),
            Some(Window {
                from: Some(monday(9, 57)),
                to: monday(10, 0)
            })
        );
        assert_eq!(window(Intraday::Min5, monday(10, 0)).unwrap().from, Some(monday(9, 55)));
        let saturday = monday(10, 0) - 2 * 86_400_000;
        assert_eq!(window(Intraday::Min3, saturday), None);
        assert_eq!(window(Intraday::PreMarket, saturday), None);
    }

    #[test]
    fn gainers_rank_rises_from_the_window_start_largest_first() {
        let w = Window { from: Some(0), to: 1 };
        let prices = vec![
            (d("10"), quote(1, "1", "11")),
            (d("10"), quote(2, "1", "9")),
            (d("10"), quote(3, "1", "15")),
            (d("0"), quote(4, "1", "15")),
        ];
        let ids = |moves: Vec<Move>| moves.iter().map(|m| m.quote.instrument_id).collect::<Vec<_>>();
        assert_eq!(ids(rank(w, prices.clone(), Direction::Desc, 10)), [3, 1]);
        assert_eq!(ids(rank(w, prices.clone(), Direction::Asc, 10)), [2]);
        assert_eq!(ids(rank(w, prices, Direction::Desc, 1)), [3]);
    }

    #[test]
    fn without_a_start_the_move_is_from_the_previous_close() {
        let w = Window { from: None, to: 1 };
        let moves = rank(w, vec![(d("100"), quote(1, "10", "12"))], Direction::Desc, 10);
        assert_eq!(moves[0].base, d("10"));
        assert_eq!(moves[0].ratio(), d("0.2"));
    }

    #[test]
    fn the_list_keeps_the_store_order_unless_ordered_by_the_change() {
        let w = Window { from: Some(0), to: 1 };
        let prices = vec![
            (d("10"), quote(1, "1", "11")),
            (d("10"), quote(2, "1", "13")),
            (d("10"), quote(3, "1", "12")),
        ];
        let moves = rank(w, prices, Direction::Desc, 10);
        // The store found 3, 1 and an instrument that did not move.
        let rows = [row(3), row(1), row(9)];
        let ids = |listed: Vec<(&ScreenRow, &Move)>| listed.iter().map(|(r, _)| r.instrument_id).collect::<Vec<_>>();
        assert_eq!(ids(list(&rows, &moves, false, Direction::Desc, 10)), [3, 1]);
        assert_eq!(ids(list(&rows, &moves, true, Direction::Asc, 10)), [1, 3]);
        assert_eq!(ids(list(&rows, &moves, true, Direction::Desc, 1)), [3]);
    }

    proptest! {
        /// Every ranked move goes the way asked, from a non-zero base, and each is at least as
        /// large as the next.
        #[test]
        fn ranked_moves_go_the_way_asked_largest_first(
            prices in prop::collection::vec((0u32..2_000, 1u32..2_000, 1u32..2_000), 0..40),
            from_close in any::<bool>(),
            desc in any::<bool>(),
            limit in 0usize..50,
        ) {
            let direction = if desc { Direction::Desc } else { Direction::Asc };
            let w = Window { from: (!from_close).then_some(0), to: 1 };
            let n = prices.len();
            let prices: Vec<(Decimal, Quote)> = prices
                .into_iter()
                .enumerate()
                .map(|(i, (then, close, last))| {
                    (Decimal::from(then), quote(i as i64, &close.to_string(), &last.to_string()))
                })
                .collect();
            let moves = rank(w, prices, direction, limit);
            prop_assert!(moves.len() <= limit.min(n));
            for m in &moves {
                prop_assert!(!m.base.is_zero());
                let rose = m.change() > Decimal::ZERO;
                prop_assert!(if desc { rose } else { m.change() < Decimal::ZERO }, "{:?}", m);
            }
            for pair in moves.windows(2) {
                let (a, b) = (pair[0].ratio(), pair[1].ratio());
                let ordered = if desc { a >= b } else { a <= b };
                prop_assert!(ordered, "{} then {}", a, b);
            }
        }
    }
}
