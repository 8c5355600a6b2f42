use std::collections::HashMap;

use async_trait::async_trait;
use sqlx::{Postgres, QueryBuilder, Row};

use super::{PgStore, map_err};
use crate::marketdata::screeners::ScreenRow;
use crate::marketdata::screeners::query::{Direction, NEAR_52W, Period, ScreenQuery, SectorRow, Week52};
use crate::marketdata::snapshot::{History, Snapshot, Summary, YEAR_DAYS, trailing_dividends};
use crate::marketdata::{ActionKind, ActionSource, Bar, CorporateAction};
use crate::store::rows::{SNAPSHOT_COLUMNS, change_sql, parse_column, push_order, snapshot_from_row};
use crate::store::{MarketDataStore, ScreenerStore, StoreError};

#[async_trait]
impl ScreenerStore for PgStore {
    async fn latest_bar_day(&self) -> Result<Option<i32>, StoreError> {
        sqlx::query_scalar("SELECT MAX(day) FROM daily_bars")
            .fetch_one(&self.pool)
            .await
            .map_err(map_err)
    }

    async fn summaries(&self, as_of: i32, lookback_days: i32) -> Result<(Vec<Summary>, Vec<i64>), StoreError> {
        let from = as_of - lookback_days;
        let with_splits: Vec<i64> = sqlx::query_scalar(
            "SELECT DISTINCT instrument_id FROM corporate_actions WHERE kind = 'SPLIT' AND day > $1 AND day <= $2",
        )
        .bind(from)
        .bind(as_of)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        // One pass over the window's bars in key order, numbered from the as-of day back (n = 1 is
        // the last).
        let rows = sqlx::query(
            "WITH w AS (
                 SELECT b.*,
                        COUNT(*) OVER (PARTITION BY instrument_id)
                          - ROW_NUMBER() OVER (PARTITION BY instrument_id ORDER BY day) + 1 AS n
                 FROM daily_bars b
                 WHERE day BETWEEN $1 AND $2 AND instrument_id NOT IN (
                     SELECT instrument_id FROM corporate_actions WHERE kind = 'SPLIT' AND day > $1 AND day <= $2)),
             g AS (
                 SELECT instrument_id,
                        MAX(CASE WHEN n = 1 THEN day END) AS day,
                        MAX(CASE WHEN n = 1 THEN open_e6 END) AS open_e6,
                        MAX(CASE WHEN n = 1 THEN high_e6 END) AS high_e6,
                        MAX(CASE WHEN n = 1 THEN low_e6 END) AS low_e6,
                        MAX(CASE WHEN n = 1 THEN close_e6 END) AS close_e6,
                        MAX(CASE WHEN n = 1 THEN volume END) AS volume,
                        MAX(CASE WHEN n = 2 THEN close_e6 END) AS pre_close_e6,
                        MAX(CASE WHEN n = 6 THEN close_e6 END) AS close_5d_e6,
                        MAX(CASE WHEN n = 22 THEN close_e6 END) AS close_1m_e6,
                        MAX(CASE WHEN n = 64 THEN close_e6 END) AS close_3m_e6,
                        MAX(CASE WHEN n = 253 THEN close_e6 END) AS close_52w_e6,
                        COUNT(CASE WHEN n BETWEEN 2 AND 11 THEN 1 END) AS previous_10,
                        AVG(CASE WHEN n BETWEEN 2 AND 11 THEN volume END)::DOUBLE PRECISION AS mean_volume_10d,
                        MAX(CASE WHEN day > $2 - 365 THEN high_e6 END) AS high_52w_e6,
                        MIN(CASE WHEN day > $2 - 365 THEN low_e6 END) AS low_52w_e6
                 FROM w GROUP BY instrument_id)
             SELECT g.*, i.shares_outstanding, i.eps_ttm_e6
             FROM g JOIN instruments i ON i.instrument_id = g.instrument_id
             WHERE g.day = $2",
        )
        .bind(from)
        .bind(as_of)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        let dividends: Vec<(i64, i32, String)> = sqlx::query_as(
            "SELECT instrument_id, day, value FROM corporate_actions WHERE kind = 'DIVIDEND' AND day > $1 AND day <= $2",
        )
        .bind(as_of - YEAR_DAYS)
        .bind(as_of)
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        let mut by_instrument: HashMap<i64, Vec<CorporateAction>> = HashMap::new();
        for (id, day, value) in dividends {
            by_instrument.entry(id).or_default().push(CorporateAction {
                day,
                kind: ActionKind::Dividend,
                value: parse_column("dividend", &value, |v| v.parse().ok())?,
                source: ActionSource::Derived,
            });
        }

        let summary = |row: &sqlx::postgres::PgRow| -> Result<Summary, sqlx::Error> {
            let instrument_id: i64 = row.try_get("instrument_id")?;
            let last = Bar {
                day: row.try_get("day")?,
                open: row.try_get("open_e6")?,
                high: row.try_get("high_e6")?,
                low: row.try_get("low_e6")?,
                close: row.try_get("close_e6")?,
                volume: row.try_get("volume")?,
                adj_close: None,
            };
            let (dividend, ex_day) = trailing_dividends(as_of, by_instrument.get(&instrument_id).into_iter().flatten());
            Ok(Summary {
                instrument_id,
                last,
                pre_close: row.try_get::<Option<i64>, _>("pre_close_e6")?.unwrap_or(last.open),
                close_5d: row.try_get("close_5d_e6")?,
                close_1m: row.try_get("close_1m_e6")?,
                close_3m: row.try_get("close_3m_e6")?,
                close_52w: row.try_get("close_52w_e6")?,
                mean_volume_10d: match row.try_get::<i64, _>("previous_10")? {
                    10 => row.try_get("mean_volume_10d")?,
                    _ => None,
                },
                high_52w: row.try_get("high_52w_e6")?,
                low_52w: row.try_get("low_52w_e6")?,
                dividend,
                ex_day,
                shares_outstanding: row.try_get("shares_outstanding")?,
                eps_ttm_e6: row.try_get("eps_ttm_e6")?,
            })
        };
        let summaries = rows
            .iter()
            .map(summary)
            .collect::<Result<Vec<_>, _>>()
            .map_err(map_err)?;
        Ok((summaries, with_splits))
    }

    async fn histories(&self, ids: &[i64], from_day: i32, to_day: i32) -> Result<Vec<History>, StoreError> {
        let mut histories = Vec::with_capacity(ids.len());
        for &instrument_id in ids {
            let instrument: Option<(Option<i64>, Option<i64>)> =
                sqlx::query_as("SELECT shares_outstanding, eps_ttm_e6 FROM instruments WHERE instrument_id = $1")
                    .bind(instrument_id)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(map_err)?;
            let Some((shares_outstanding, eps_ttm_e6)) = instrument else {
                continue;
            };
            histories.push(History {
                instrument_id,
                bars: self.daily_bars(instrument_id, from_day, to_day).await?,
                actions: self.corporate_actions(instrument_id).await?,
                shares_outstanding,
                eps_ttm_e6,
            });
        }
        Ok(histories)
    }

    async fn replace_snapshots(&self, snapshots: &[Snapshot]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await.map_err(map_err)?;
        sqlx::query("DELETE FROM snapshots")
            .execute(&mut *tx)
            .await
            .map_err(map_err)?;
        for part in snapshots.chunks(500) {
            let mut query = QueryBuilder::<Postgres>::new(
                "INSERT INTO snapshots (instrument_id, day, price_e6, pre_close_e6, open_e6, high_e6, low_e6, close_e6,
                 volume, turnover, change_ratio, close_5d_e6, close_1m_e6, close_3m_e6, close_52w_e6, amplitude,
                 relative_volume_10d, turnover_rate, market_value, pe_ttm, dividend_e6, dividend_yield, ex_day,
                 high_52w_e6, low_52w_e6) ",
            );
            query.push_values(part, |mut row, s| {
                row.push_bind(s.instrument_id)
                    .push_bind(s.day)
                    .push_bind(s.price)
                    .push_bind(s.pre_close)
                    .push_bind(s.open)
                    .push_bind(s.high)
                    .push_bind(s.low)
                    .push_bind(s.close)
                    .push_bind(s.volume)
                    .push_bind(s.turnover)
                    .push_bind(s.change_ratio)
                    .push_bind(s.close_5d)
                    .push_bind(s.close_1m)
                    .push_bind(s.close_3m)
                    .push_bind(s.close_52w)
                    .push_bind(s.amplitude)
                    .push_bind(s.relative_volume_10d)
                    .push_bind(s.turnover_rate)
                    .push_bind(s.market_value)
                    .push_bind(s.pe_ttm)
                    .push_bind(s.dividend)
                    .push_bind(s.dividend_yield)
                    .push_bind(s.ex_day)
                    .push_bind(s.high_52w)
                    .push_bind(s.low_52w);
            });
            query.build().execute(&mut *tx).await.map_err(map_err)?;
        }
        tx.commit().await.map_err(map_err)
    }

    async fn screen(&self, q: &ScreenQuery) -> Result<Vec<ScreenRow>, StoreError> {
        let mut query = QueryBuilder::<Postgres>::new(
            "SELECT * FROM (SELECT i.instrument_id, i.symbol, i.name, i.exchange, i.currency, ",
        );
        query.push(SNAPSHOT_COLUMNS);
        query.push(" FROM snapshots s JOIN instruments i ON i.instrument_id = s.instrument_id WHERE i.instrument_type = 'EQUITY'");
        let f = &q.filter;
        if let Some(sector) = &f.sector {
            query.push(" AND i.sector = ").push_bind(sector.clone());
        }
        if let Some((period, direction)) = f.moved {
            let sign = if direction == Direction::Desc { "> 0" } else { "< 0" };
            query.push(format_args!(" AND {} {sign}", change_sql(period)));
        }
        if f.dividend_payers {
            query.push(" AND s.dividend_yield > 0");
        }
        if let Some(ids) = &f.ids {
            query
                .push(" AND i.instrument_id = ANY(")
                .push_bind(ids.clone())
                .push(")");
        }
        let near_high = 1.0 - NEAR_52W;
        let near_low = 1.0 + NEAR_52W;
        match f.week52 {
            None => {}
            Some(Week52::NewHigh) => {
                query.push(" AND s.high_e6 >= s.high_52w_e6");
            }
            Some(Week52::NearHigh) => {
                query.push(format_args!(
                    " AND s.high_e6 < s.high_52w_e6 AND s.price_e6 >= s.high_52w_e6 * {near_high}"
                ));
            }
            Some(Week52::NewLow) => {
                query.push(" AND s.low_e6 <= s.low_52w_e6");
            }
            Some(Week52::NearLow) => {
                query.push(format_args!(
                    " AND s.low_e6 > s.low_52w_e6 AND s.price_e6 <= s.low_52w_e6 * {near_low}"
                ));
            }
        }
        if let Some(rank) = q.rank {
            push_order(&mut query, rank);
            query
                .push(" LIMIT ")
                .push_bind(q.rank_limit.min(i64::MAX as u64) as i64);
        }
        query.push(") ranked");
        push_order(&mut query, q.order);
        query.push(" LIMIT ").push_bind(q.limit.min(i64::MAX as u64) as i64);
        query.push(" OFFSET ").push_bind(q.offset.min(i64::MAX as u64) as i64);

        let rows = query.build().fetch_all(&self.pool).await.map_err(map_err)?;
        rows.iter()
            .map(|row| -> Result<ScreenRow, StoreError> {
                let instrument_id: i64 = row.try_get(0).map_err(map_err)?;
                let text = |i: usize| row.try_get(i).map_err(map_err);
                Ok(ScreenRow {
                    instrument_id,
                    symbol: text(1)?,
                    name: text(2)?,
                    exchange: row.try_get(3).map_err(map_err)?,
                    currency: text(4)?,
                    snapshot: snapshot_from_row(row, instrument_id, 5)?,
                })
            })
            .collect()
    }

    async fn sectors(&self, period: Period) -> Result<Vec<SectorRow>, StoreError> {
        let change = change_sql(period);
        let base = format!(
            "WITH base AS (
                SELECT i.sector, i.instrument_id, i.symbol, i.name, s.volume, s.market_value, {change} AS r
                FROM snapshots s JOIN instruments i ON i.instrument_id = s.instrument_id
                WHERE i.instrument_type = 'EQUITY' AND i.sector IS NOT NULL)"
        );
        let aggregates = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{base}
             SELECT sector, COUNT(*), COUNT(*) FILTER (WHERE r > 0), COUNT(*) FILTER (WHERE r < 0), COUNT(*) FILTER (WHERE r = 0),
                    COALESCE(SUM(volume), 0)::BIGINT, COALESCE(SUM(market_value), 0.0),
                    COALESCE(SUM(CASE WHEN r IS NOT NULL THEN market_value * r END)
                             / SUM(CASE WHEN r IS NOT NULL THEN market_value END), AVG(r), 0.0)
             FROM base GROUP BY sector ORDER BY sector"
        )))
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;
        let leaders = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{base}
             SELECT sector, instrument_id, symbol, name FROM (
                 SELECT sector, instrument_id, symbol, name,
                        ROW_NUMBER() OVER (PARTITION BY sector ORDER BY market_value IS NULL, market_value DESC, symbol) AS n
                 FROM base) ranked
             WHERE n <= 3 ORDER BY sector, n"
        )))
        .fetch_all(&self.pool)
        .await
        .map_err(map_err)?;

        let mut sectors: Vec<SectorRow> = aggregates
            .iter()
            .map(|row| -> Result<SectorRow, sqlx::Error> {
                Ok(SectorRow {
                    name: row.try_get(0)?,
                    constituents: row.try_get::<i64, _>(1)? as u64,
                    advanced: row.try_get::<i64, _>(2)? as u64,
                    declined: row.try_get::<i64, _>(3)? as u64,
                    flat: row.try_get::<i64, _>(4)? as u64,
                    volume: row.try_get(5)?,
                    market_value: row.try_get(6)?,
                    change_ratio: row.try_get(7)?,
                    leaders: Vec::new(),
                })
            })
            .collect::<Result<_, _>>()
            .map_err(map_err)?;
        for row in &leaders {
            let sector: String = row.try_get(0).map_err(map_err)?;
            if let Some(s) = sectors.iter_mut().find(|s| s.name == sector) {
                s.leaders.push((
                    row.try_get(1).map_err(map_err)?,
                    row.try_get(2).map_err(map_err)?,
                    row.try_get(3).map_err(map_err)?,
                ));
            }
        }
        Ok(sectors)
    }
}
