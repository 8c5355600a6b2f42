use std::collections::HashMap;

use async_trait::async_trait;
use signet_domain::marketdata::screeners::{Direction, NEAR_52W, Period, ScreenQuery, ScreenRow, SectorRow, Week52};
use signet_domain::marketdata::snapshot::{History, Snapshot, Summary, YEAR_DAYS, trailing_dividends};
use signet_domain::marketdata::{ActionKind, ActionSource, Bar, CorporateAction};

use super::SqlStore;
use super::query::query;
use crate::rows::{Decoded, SNAPSHOT_COLUMNS, change_sql, parse_column, push_order};
use crate::{MarketDataStore, ScreenerStore, StoreError};

/// The columns of the summaries' query, as named there.
#[derive(sqlx::FromRow)]
struct SummaryRow {
    instrument_id: i64,
    day: i32,
    open_e6: i64,
    high_e6: i64,
    low_e6: i64,
    close_e6: i64,
    volume: i64,
    pre_close_e6: Option<i64>,
    close_5d_e6: Option<i64>,
    close_1m_e6: Option<i64>,
    close_3m_e6: Option<i64>,
    close_52w_e6: Option<i64>,
    previous_10: i64,
    mean_volume_10d: Option<f64>,
    high_52w_e6: i64,
    low_52w_e6: i64,
    shares_outstanding: Option<i64>,
    eps_ttm_e6: Option<i64>,
}

#[async_trait]
impl ScreenerStore for SqlStore {
    async fn latest_bar_day(&self) -> Result<Option<i32>, StoreError> {
        let (day,): (Option<i32>,) = query("SELECT MAX(day) FROM daily_bars").fetch_one(&self.reader).await?;
        Ok(day)
    }

    async fn summaries(&self, as_of: i32, lookback_days: i32) -> Result<(Vec<Summary>, Vec<i64>), StoreError> {
        let from = as_of - lookback_days;
        let with_splits: Vec<(i64,)> = query(
            "SELECT DISTINCT instrument_id FROM corporate_actions WHERE kind = 'SPLIT' AND day > $1 AND day <= $2",
        )
        .bind(from)
        .bind(as_of)
        .fetch_all(&self.reader)
        .await?;
        // One pass over the window's bars in key order, numbered from the as-of day back (n = 1 is
        // the last).
        let rows: Vec<SummaryRow> = query(
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
                        CAST(AVG(CASE WHEN n BETWEEN 2 AND 11 THEN volume END) AS DOUBLE PRECISION) AS mean_volume_10d,
                        MAX(CASE WHEN day > $2 - 365 THEN high_e6 END) AS high_52w_e6,
                        MIN(CASE WHEN day > $2 - 365 THEN low_e6 END) AS low_52w_e6
                 FROM w GROUP BY instrument_id)
             SELECT g.*, i.shares_outstanding, i.eps_ttm_e6
             FROM g JOIN instruments i ON i.instrument_id = g.instrument_id
             WHERE g.day = $2",
        )
        .bind(from)
        .bind(as_of)
        .fetch_all(&self.reader)
        .await?;
        let dividends: Vec<(i64, i32, String)> = query(
            "SELECT instrument_id, day, value FROM corporate_actions WHERE kind = 'DIVIDEND' AND day > $1 AND day <= $2",
        )
        .bind(as_of - YEAR_DAYS)
        .bind(as_of)
        .fetch_all(&self.reader)
        .await?;
        let mut by_instrument: HashMap<i64, Vec<CorporateAction>> = HashMap::new();
        for (id, day, value) in dividends {
            by_instrument.entry(id).or_default().push(CorporateAction {
                day,
                kind: ActionKind::Dividend,
                value: parse_column("dividend", &value, |v| v.parse().ok())?,
                source: ActionSource::Derived,
            });
        }

        let summaries = rows
            .into_iter()
            .map(|row| {
                let last = Bar {
                    day: row.day,
                    open: row.open_e6,
                    high: row.high_e6,
                    low: row.low_e6,
                    close: row.close_e6,
                    volume: row.volume,
                    adj_close: None,
                };
                let dividends = by_instrument.get(&row.instrument_id).into_iter().flatten();
                let (dividend, ex_day) = trailing_dividends(as_of, dividends);
                Summary {
                    instrument_id: row.instrument_id,
                    last,
                    pre_close: row.pre_close_e6.unwrap_or(last.open),
                    close_5d: row.close_5d_e6,
                    close_1m: row.close_1m_e6,
                    close_3m: row.close_3m_e6,
                    close_52w: row.close_52w_e6,
                    mean_volume_10d: row.mean_volume_10d.filter(|_| row.previous_10 == 10),
                    high_52w: row.high_52w_e6,
                    low_52w: row.low_52w_e6,
                    dividend,
                    ex_day,
                    shares_outstanding: row.shares_outstanding,
                    eps_ttm_e6: row.eps_ttm_e6,
                }
            })
            .collect();
        let with_splits = with_splits.into_iter().map(|(id,)| id).collect();
        Ok((summaries, with_splits))
    }

    async fn histories(&self, ids: &[i64], from_day: i32, to_day: i32) -> Result<Vec<History>, StoreError> {
        let mut histories = Vec::with_capacity(ids.len());
        for &instrument_id in ids {
            let instrument: Option<(Option<i64>, Option<i64>)> =
                query("SELECT shares_outstanding, eps_ttm_e6 FROM instruments WHERE instrument_id = $1")
                    .bind(instrument_id)
                    .fetch_optional(&self.reader)
                    .await?;
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
        let mut tx = self.writer.begin().await?;
        query("DELETE FROM snapshots").execute(&mut tx).await?;
        for part in snapshots.chunks(500) {
            let mut insert = query(
                "INSERT INTO snapshots (instrument_id, day, price_e6, pre_close_e6, open_e6, high_e6, low_e6, close_e6,
                 volume, turnover, change_ratio, close_5d_e6, close_1m_e6, close_3m_e6, close_52w_e6, amplitude,
                 relative_volume_10d, turnover_rate, market_value, pe_ttm, dividend_e6, dividend_yield, ex_day,
                 high_52w_e6, low_52w_e6) ",
            );
            insert.push_values(part, |row, s| {
                row.bind(s.instrument_id)
                    .bind(s.day)
                    .bind(s.price)
                    .bind(s.pre_close)
                    .bind(s.open)
                    .bind(s.high)
                    .bind(s.low)
                    .bind(s.close)
                    .bind(s.volume)
                    .bind(s.turnover)
                    .bind(s.change_ratio)
                    .bind(s.close_5d)
                    .bind(s.close_1m)
                    .bind(s.close_3m)
                    .bind(s.close_52w)
                    .bind(s.amplitude)
                    .bind(s.relative_volume_10d)
                    .bind(s.turnover_rate)
                    .bind(s.market_value)
                    .bind(s.pe_ttm)
                    .bind(s.dividend)
                    .bind(s.dividend_yield)
                    .bind(s.ex_day)
                    .bind(s.high_52w)
                    .bind(s.low_52w);
            });
            insert.execute(&mut tx).await?;
        }
        tx.commit().await
    }

    async fn screen(&self, q: &ScreenQuery) -> Result<Vec<ScreenRow>, StoreError> {
        let mut select = query(format!(
            "SELECT * FROM (SELECT i.instrument_id, i.symbol, i.name, i.exchange, i.currency, {SNAPSHOT_COLUMNS}
             FROM snapshots s JOIN instruments i ON i.instrument_id = s.instrument_id WHERE i.instrument_type = 'EQUITY'"
        ));
        let f = &q.filter;
        if let Some(sector) = &f.sector {
            select.push(" AND i.sector = ").push_bind(sector);
        }
        if let Some((period, direction)) = f.moved {
            let sign = if direction == Direction::Desc { "> 0" } else { "< 0" };
            select.push(&format!(" AND {} {sign}", change_sql(period)));
        }
        if f.dividend_payers {
            select.push(" AND s.dividend_yield > 0");
        }
        if let Some(ids) = &f.ids {
            select.push(" AND ").push_in("i.instrument_id", ids.iter().copied());
        }
        let near_high = 1.0 - NEAR_52W;
        let near_low = 1.0 + NEAR_52W;
        select.push(&match f.week52 {
            None => String::new(),
            Some(Week52::NewHigh) => " AND s.high_e6 >= s.high_52w_e6".to_owned(),
            Some(Week52::NearHigh) => {
                format!(" AND s.high_e6 < s.high_52w_e6 AND s.price_e6 >= s.high_52w_e6 * {near_high}")
            }
            Some(Week52::NewLow) => " AND s.low_e6 <= s.low_52w_e6".to_owned(),
            Some(Week52::NearLow) => {
                format!(" AND s.low_e6 > s.low_52w_e6 AND s.price_e6 <= s.low_52w_e6 * {near_low}")
            }
        });
        let bound = |n: u64| n.min(i64::MAX as u64) as i64;
        if let Some(rank) = q.rank {
            push_order(&mut select, rank);
            select.push(" LIMIT ").push_bind(bound(q.rank_limit));
        }
        select.push(") ranked");
        push_order(&mut select, q.order);
        select.push(" LIMIT ").push_bind(bound(q.limit));
        select.push(" OFFSET ").push_bind(bound(q.offset));
        let rows = select.fetch_all(&self.reader).await?;
        Ok(Decoded::all(rows))
    }

    async fn sectors(&self, period: Period) -> Result<Vec<SectorRow>, StoreError> {
        let change = change_sql(period);
        let base = format!(
            "WITH base AS (
                SELECT i.sector, i.instrument_id, i.symbol, i.name, s.volume, s.market_value, {change} AS r
                FROM snapshots s JOIN instruments i ON i.instrument_id = s.instrument_id
                WHERE i.instrument_type = 'EQUITY' AND i.sector IS NOT NULL)"
        );
        let aggregates: Vec<(String, i64, i64, i64, i64, i64, f64, f64)> = query(format!(
            "{base}
             SELECT sector, COUNT(*), COUNT(*) FILTER (WHERE r > 0), COUNT(*) FILTER (WHERE r < 0),
                    COUNT(*) FILTER (WHERE r = 0), CAST(COALESCE(SUM(volume), 0) AS BIGINT),
                    COALESCE(SUM(market_value), 0.0),
                    COALESCE(SUM(CASE WHEN r IS NOT NULL THEN market_value * r END)
                             / SUM(CASE WHEN r IS NOT NULL THEN market_value END), AVG(r), 0.0)
             FROM base GROUP BY sector ORDER BY sector"
        ))
        .fetch_all(&self.reader)
        .await?;
        let leaders: Vec<(String, i64, String, String)> = query(format!(
            "{base}
             SELECT sector, instrument_id, symbol, name FROM (
                 SELECT sector, instrument_id, symbol, name,
                        ROW_NUMBER() OVER (PARTITION BY sector ORDER BY market_value IS NULL, market_value DESC, symbol) AS n
                 FROM base) ranked
             WHERE n <= 3 ORDER BY sector, n"
        ))
        .fetch_all(&self.reader)
        .await?;
        let count = |n: i64| n as u64;
        let mut sectors: Vec<SectorRow> = aggregates
            .into_iter()
            .map(
                |(name, constituents, advanced, declined, flat, volume, market_value, change_ratio)| SectorRow {
                    name,
                    constituents: count(constituents),
                    advanced: count(advanced),
                    declined: count(declined),
                    flat: count(flat),
                    volume,
                    market_value,
                    change_ratio,
                    leaders: Vec::new(),
                },
            )
            .collect();
        for (sector, id, symbol, name) in leaders {
            if let Some(s) = sectors.iter_mut().find(|s| s.name == sector) {
                s.leaders.push((id, symbol, name));
            }
        }
        Ok(sectors)
    }
}
