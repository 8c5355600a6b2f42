use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use sqlx::{QueryBuilder, Row, Sqlite, SqliteConnection};
use tokio::sync::mpsc;

use super::{SqliteStore, map_err};
use crate::market::Listing;
use crate::marketdata::fundamentals::layout::SymbolRecord;
use crate::marketdata::import::ohlcv::{AdjustedClose, derive_actions};
use crate::marketdata::import::{Chunk, ImportCounts, ImportMessage};
use crate::marketdata::units::format_day;
use crate::marketdata::{
    ActionKind, ActionSource, Bar, CorporateAction, Fact, Instrument, InstrumentUpdate, SymbolBar,
};
use crate::store::rows::{
    BAR_COLUMNS, FactRow, INSTRUMENT_COLUMNS, bar_from_row, fact_from_row, instrument_from_row, parse_column,
};
use crate::store::{MarketDataStatus, MarketDataStore, StoreError};

/// Rows per multi-row INSERT, within SQLite's limit on bound parameters.
const ROWS_PER_STATEMENT: usize = 1000;

/// The state of one file's import inside its transaction.
#[derive(Default)]
struct Import {
    ids: HashMap<String, i64>,
    bars_changed_for: HashSet<i64>,
    counts: ImportCounts,
}

#[async_trait]
impl MarketDataStore for SqliteStore {
    async fn import(&self, mut messages: mpsc::Receiver<ImportMessage>) -> Result<ImportCounts, StoreError> {
        let mut tx = self.writer.begin().await.map_err(map_err)?;
        let mut import = Import::default();
        loop {
            match messages.recv().await {
                // Dropping `tx` rolls back.
                None => return Err(StoreError::Aborted),
                Some(ImportMessage::Commit) => break,
                Some(ImportMessage::Chunk(chunk)) => match chunk {
                    Chunk::Instruments(updates) => {
                        for update in &updates {
                            import.counts.instruments += upsert_instrument(&mut tx, update).await?;
                        }
                    }
                    Chunk::Bars { bars, generated } => import.bars(&mut tx, &bars, generated).await?,
                    Chunk::Actions(actions) => {
                        for (symbol, action) in &actions {
                            let id = import.id(&mut tx, symbol).await?;
                            import.counts.actions += upsert_action(&mut tx, id, action).await?;
                        }
                    }
                    Chunk::Facts(facts) => {
                        for part in facts.chunks(ROWS_PER_STATEMENT) {
                            import.counts.facts += upsert_facts(&mut tx, part).await?;
                        }
                    }
                    Chunk::Records(records) => {
                        for part in records.chunks(ROWS_PER_STATEMENT) {
                            let mut rows = Vec::with_capacity(part.len());
                            for r in part {
                                rows.push((import.id(&mut tx, &r.symbol).await?, r));
                            }
                            import.counts.records += upsert_records(&mut tx, &rows).await?;
                        }
                    }
                    Chunk::Reported {
                        cik,
                        shares_outstanding,
                        eps_ttm_e6,
                    } => {
                        let done = sqlx::query(
                            "UPDATE instruments SET shares_outstanding = COALESCE(?1, shares_outstanding),
                                 eps_ttm_e6 = COALESCE(?2, eps_ttm_e6)
                             WHERE cik = ?3 AND (shares_outstanding IS NOT COALESCE(?1, shares_outstanding)
                                 OR eps_ttm_e6 IS NOT COALESCE(?2, eps_ttm_e6))",
                        )
                        .bind(shares_outstanding)
                        .bind(eps_ttm_e6)
                        .bind(&cik)
                        .execute(&mut *tx)
                        .await
                        .map_err(map_err)?;
                        import.counts.instruments += done.rows_affected();
                    }
                },
            }
        }
        for &instrument_id in &import.bars_changed_for {
            import.counts.actions += rederive_actions(&mut tx, instrument_id).await?;
        }
        tx.commit().await.map_err(map_err)?;
        Ok(import.counts)
    }

    async fn market_data_status(&self) -> Result<MarketDataStatus, StoreError> {
        let (instruments,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM instruments")
            .fetch_one(&self.reader)
            .await
            .map_err(map_err)?;
        let (bars, instruments_with_bars, first, last): (i64, i64, Option<i64>, Option<i64>) =
            sqlx::query_as("SELECT COUNT(*), COUNT(DISTINCT instrument_id), MIN(day), MAX(day) FROM daily_bars")
                .fetch_one(&self.reader)
                .await
                .map_err(map_err)?;
        let (splits, dividends): (i64, i64) = sqlx::query_as(
            "SELECT COALESCE(SUM(kind = 'SPLIT'), 0), COALESCE(SUM(kind = 'DIVIDEND'), 0) FROM corporate_actions",
        )
        .fetch_one(&self.reader)
        .await
        .map_err(map_err)?;
        let (facts, companies_with_facts): (i64, i64) =
            sqlx::query_as("SELECT COUNT(*), COUNT(DISTINCT cik) FROM facts")
                .fetch_one(&self.reader)
                .await
                .map_err(map_err)?;
        let (fundamentals_records,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM fundamentals")
            .fetch_one(&self.reader)
            .await
            .map_err(map_err)?;
        Ok(MarketDataStatus {
            instruments: instruments as u64,
            instruments_with_bars: instruments_with_bars as u64,
            bars: bars as u64,
            first_day: first.map(|d| format_day(d as i32)),
            last_day: last.map(|d| format_day(d as i32)),
            splits: splits as u64,
            dividends: dividends as u64,
            facts: facts as u64,
            companies_with_facts: companies_with_facts as u64,
            fundamentals_records: fundamentals_records as u64,
        })
    }

    async fn instrument(&self, symbol: &str) -> Result<Option<Instrument>, StoreError> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {INSTRUMENT_COLUMNS} FROM instruments WHERE symbol = ?"
        )))
        .bind(symbol)
        .fetch_optional(&self.reader)
        .await
        .map_err(map_err)?;
        row.as_ref().map(instrument_from_row).transpose()
    }

    async fn instruments(&self) -> Result<Vec<Instrument>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {INSTRUMENT_COLUMNS} FROM instruments ORDER BY instrument_id"
        )))
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        rows.iter().map(instrument_from_row).collect()
    }

    async fn closes_before(&self, day: i32) -> Result<HashMap<i64, i64>, StoreError> {
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT b.instrument_id, b.close_e6 FROM daily_bars b
             JOIN (SELECT instrument_id, MAX(day) AS day FROM daily_bars WHERE day < ? GROUP BY instrument_id) l
               ON l.instrument_id = b.instrument_id AND l.day = b.day",
        )
        .bind(day)
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        Ok(rows.into_iter().collect())
    }

    async fn bars_between(&self, from_day: i32, to_day: i32) -> Result<Vec<(i64, Bar)>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT instrument_id, {BAR_COLUMNS} FROM daily_bars WHERE day BETWEEN ? AND ?"
        )))
        .bind(from_day)
        .bind(to_day)
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(|row| Ok((row.try_get("instrument_id").map_err(map_err)?, bar_from_row(row)?)))
            .collect()
    }

    async fn listings(&self) -> Result<Vec<Listing>, StoreError> {
        let rows: Vec<(i64, String, Option<f64>, Option<i64>)> = sqlx::query_as(
            "SELECT i.instrument_id, i.symbol, s.amplitude, s.volume
             FROM instruments i LEFT JOIN snapshots s ON s.instrument_id = i.instrument_id
             ORDER BY i.instrument_id",
        )
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        Ok(rows
            .into_iter()
            .map(|(instrument_id, symbol, amplitude, volume)| Listing {
                instrument_id,
                symbol,
                // A day's range is about twice its standard deviation.
                vol: amplitude.map_or(0.02, |a| (a / 2.0).clamp(0.005, 0.08)),
                volume: volume.map_or(100_000.0, |v| (v as f64).max(1_000.0)),
            })
            .collect())
    }

    async fn daily_bars(&self, instrument_id: i64, from_day: i32, to_day: i32) -> Result<Vec<Bar>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {BAR_COLUMNS} FROM daily_bars WHERE instrument_id = ? AND day BETWEEN ? AND ? ORDER BY day"
        )))
        .bind(instrument_id)
        .bind(from_day)
        .bind(to_day)
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        rows.iter().map(bar_from_row).collect()
    }

    async fn corporate_actions(&self, instrument_id: i64) -> Result<Vec<CorporateAction>, StoreError> {
        let rows: Vec<(i32, String, String, String)> = sqlx::query_as(
            "SELECT day, kind, value, source FROM corporate_actions WHERE instrument_id = ? ORDER BY day, kind",
        )
        .bind(instrument_id)
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        rows.into_iter()
            .map(|(day, kind, value, source)| {
                Ok(CorporateAction {
                    day,
                    kind: parse_column("action kind", &kind, ActionKind::parse)?,
                    value: parse_column("action value", &value, |v| v.parse().ok())?,
                    source: parse_column("action source", &source, ActionSource::parse)?,
                })
            })
            .collect()
    }

    async fn facts(&self, cik: &str, concept: &str) -> Result<Vec<Fact>, StoreError> {
        let rows: Vec<FactRow> = sqlx::query_as(
            "SELECT cik, taxonomy, concept, unit, start, end, accn, value, fy, fp, form, filed, frame FROM facts
             WHERE cik = ? AND concept = ? ORDER BY end, filed, start",
        )
        .bind(cik)
        .bind(concept)
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        rows.into_iter().map(fact_from_row).collect()
    }
}

impl Import {
    /// The id of `symbol`, creating a bare instrument (named after its symbol) for prices that
    /// arrive before the instrument's listing.
    async fn id(&mut self, tx: &mut SqliteConnection, symbol: &str) -> Result<i64, StoreError> {
        if let Some(&id) = self.ids.get(symbol) {
            return Ok(id);
        }
        let existing: Option<i64> = sqlx::query_scalar("SELECT instrument_id FROM instruments WHERE symbol = ?")
            .bind(symbol)
            .fetch_optional(&mut *tx)
            .await
            .map_err(map_err)?;
        let id = match existing {
            Some(id) => id,
            None => {
                self.counts.instruments += 1;
                sqlx::query_scalar("INSERT INTO instruments (symbol, name) VALUES (?, ?) RETURNING instrument_id")
                    .bind(symbol)
                    .bind(symbol)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(map_err)?
            }
        };
        self.ids.insert(symbol.to_owned(), id);
        Ok(id)
    }

    async fn bars(&mut self, tx: &mut SqliteConnection, bars: &[SymbolBar], generated: bool) -> Result<(), StoreError> {
        for part in bars.chunks(ROWS_PER_STATEMENT) {
            let mut rows = Vec::with_capacity(part.len());
            for b in part {
                rows.push((self.id(tx, &b.symbol).await?, b.bar));
            }
            let changed = upsert_bars(tx, &rows, generated).await?;
            if changed > 0 {
                self.counts.bars += changed;
                self.bars_changed_for
                    .extend(rows.iter().filter(|(_, b)| b.adj_close.is_some()).map(|(id, _)| *id));
            }
        }
        Ok(())
    }
}

/// Inserts or updates an instrument, leaving fields the update does not know as they are.
async fn upsert_instrument(tx: &mut SqliteConnection, u: &InstrumentUpdate) -> Result<u64, StoreError> {
    let done = sqlx::query(
        "INSERT INTO instruments (symbol, name, exchange, cik, sector, industry, instrument_type, indices,
                                  shares_outstanding, eps_ttm_e6)
         VALUES (?1, COALESCE(?2, ?1), ?3, ?4, ?5, ?6, COALESCE(?7, 'EQUITY'), ?8, ?9, ?10)
         ON CONFLICT (symbol) DO UPDATE SET
             name = COALESCE(?2, name), exchange = COALESCE(?3, exchange), cik = COALESCE(?4, cik),
             sector = COALESCE(?5, sector), industry = COALESCE(?6, industry),
             instrument_type = COALESCE(?7, instrument_type), indices = COALESCE(?8, indices),
             shares_outstanding = COALESCE(?9, shares_outstanding), eps_ttm_e6 = COALESCE(?10, eps_ttm_e6)
         WHERE COALESCE(?2, name) IS NOT name OR COALESCE(?3, exchange) IS NOT exchange
            OR COALESCE(?4, cik) IS NOT cik OR COALESCE(?5, sector) IS NOT sector
            OR COALESCE(?6, industry) IS NOT industry OR COALESCE(?7, instrument_type) IS NOT instrument_type
            OR COALESCE(?8, indices) IS NOT indices OR COALESCE(?9, shares_outstanding) IS NOT shares_outstanding
            OR COALESCE(?10, eps_ttm_e6) IS NOT eps_ttm_e6",
    )
    .bind(&u.symbol)
    .bind(&u.name)
    .bind(&u.exchange)
    .bind(&u.cik)
    .bind(&u.sector)
    .bind(&u.industry)
    .bind(u.instrument_type.map(|t| t.as_str()))
    .bind(&u.indices)
    .bind(u.shares_outstanding)
    .bind(u.eps_ttm_e6)
    .execute(&mut *tx)
    .await
    .map_err(map_err)?;
    Ok(done.rows_affected())
}

async fn upsert_bars(tx: &mut SqliteConnection, rows: &[(i64, Bar)], generated: bool) -> Result<u64, StoreError> {
    let mut query = QueryBuilder::<Sqlite>::new(
        "INSERT INTO daily_bars (instrument_id, day, open_e6, high_e6, low_e6, close_e6, volume, adj_close_e6, generated) ",
    );
    query.push_values(rows, |mut row, (id, bar)| {
        row.push_bind(*id)
            .push_bind(bar.day)
            .push_bind(bar.open)
            .push_bind(bar.high)
            .push_bind(bar.low)
            .push_bind(bar.close)
            .push_bind(bar.volume)
            .push_bind(bar.adj_close)
            .push_bind(generated);
    });
    query.push(
        " ON CONFLICT (instrument_id, day) DO UPDATE SET
             open_e6 = excluded.open_e6, high_e6 = excluded.high_e6, low_e6 = excluded.low_e6,
             close_e6 = excluded.close_e6, volume = excluded.volume, adj_close_e6 = excluded.adj_close_e6,
             generated = excluded.generated
         WHERE open_e6 IS NOT excluded.open_e6 OR high_e6 IS NOT excluded.high_e6 OR low_e6 IS NOT excluded.low_e6
            OR close_e6 IS NOT excluded.close_e6 OR volume IS NOT excluded.volume
            OR adj_close_e6 IS NOT excluded.adj_close_e6 OR generated IS NOT excluded.generated",
    );
    let done = query.build().execute(&mut *tx).await.map_err(map_err)?;
    Ok(done.rows_affected())
}

async fn upsert_facts(tx: &mut SqliteConnection, facts: &[Fact]) -> Result<u64, StoreError> {
    let mut query = QueryBuilder::<Sqlite>::new(
        "INSERT INTO facts (cik, taxonomy, concept, unit, start, end, accn, value, fy, fp, form, filed, frame) ",
    );
    query.push_values(facts, |mut row, f| {
        row.push_bind(f.cik.clone())
            .push_bind(f.taxonomy.clone())
            .push_bind(f.concept.clone())
            .push_bind(f.unit.clone())
            .push_bind(f.start.clone())
            .push_bind(f.end.clone())
            .push_bind(f.accn.clone())
            .push_bind(f.value.to_string())
            .push_bind(f.fy)
            .push_bind(f.fp.clone())
            .push_bind(f.form.clone())
            .push_bind(f.filed.clone())
            .push_bind(f.frame.clone());
    });
    query.push(
        " ON CONFLICT (cik, taxonomy, concept, unit, start, end, accn) DO UPDATE SET
             value = excluded.value, fy = excluded.fy, fp = excluded.fp, form = excluded.form,
             filed = excluded.filed, frame = excluded.frame
         WHERE value IS NOT excluded.value OR fy IS NOT excluded.fy OR fp IS NOT excluded.fp
            OR form IS NOT excluded.form OR filed IS NOT excluded.filed OR frame IS NOT excluded.frame",
    );
    let done = query.build().execute(&mut *tx).await.map_err(map_err)?;
    Ok(done.rows_affected())
}

/// Inserts or replaces fundamentals records, skipping equal ones.
async fn upsert_records(tx: &mut SqliteConnection, rows: &[(i64, &SymbolRecord)]) -> Result<u64, StoreError> {
    let mut query =
        QueryBuilder::<Sqlite>::new("INSERT INTO fundamentals (instrument_id, data_set, record_key, payload, source) ");
    query.push_values(rows, |mut row, (instrument_id, r)| {
        row.push_bind(*instrument_id)
            .push_bind(r.record.data_set().as_str())
            .push_bind(r.record.key())
            .push_bind(r.record.payload())
            .push_bind(r.source.as_str());
    });
    query.push(
        " ON CONFLICT (instrument_id, data_set, record_key) DO UPDATE SET payload = excluded.payload, source = excluded.source
         WHERE payload IS NOT excluded.payload OR source IS NOT excluded.source",
    );
    let done = query.build().execute(&mut *tx).await.map_err(map_err)?;
    Ok(done.rows_affected())
}

/// Inserts or updates a reported or generated action (derived ones come from the bars).
async fn upsert_action(tx: &mut SqliteConnection, instrument_id: i64, a: &CorporateAction) -> Result<u64, StoreError> {
    let done = sqlx::query(
        "INSERT INTO corporate_actions (instrument_id, day, kind, value, source) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (instrument_id, day, kind) DO UPDATE SET value = excluded.value, source = excluded.source
         WHERE value IS NOT excluded.value OR source IS NOT excluded.source",
    )
    .bind(instrument_id)
    .bind(a.day)
    .bind(a.kind.as_str())
    .bind(a.value.normalize().to_string())
    .bind(a.source.as_str())
    .execute(&mut *tx)
    .await
    .map_err(map_err)?;
    Ok(done.rows_affected())
}

/// Replaces an instrument's derived corporate actions by those its bars imply now; returns how
/// many rows changed.
async fn rederive_actions(tx: &mut SqliteConnection, instrument_id: i64) -> Result<u64, StoreError> {
    let closes: Vec<(i32, i64, i64)> = sqlx::query_as(
        "SELECT day, close_e6, adj_close_e6 FROM daily_bars
         WHERE instrument_id = ? AND adj_close_e6 IS NOT NULL ORDER BY day",
    )
    .bind(instrument_id)
    .fetch_all(&mut *tx)
    .await
    .map_err(map_err)?;
    let closes: Vec<AdjustedClose> = closes
        .into_iter()
        .map(|(day, close, adj_close)| AdjustedClose { day, close, adj_close })
        .collect();
    let wanted: HashSet<(i32, &'static str, String)> = derive_actions(&closes)
        .into_iter()
        .map(|a| (a.day, a.kind.as_str(), a.value.normalize().to_string()))
        .collect();
    let stored: Vec<(i32, String, String)> =
        sqlx::query_as("SELECT day, kind, value FROM corporate_actions WHERE instrument_id = ? AND source = 'DERIVED'")
            .bind(instrument_id)
            .fetch_all(&mut *tx)
            .await
            .map_err(map_err)?;
    let stored: HashSet<(i32, &str, String)> = stored.iter().map(|(d, k, v)| (*d, k.as_str(), v.clone())).collect();
    let mut changed = 0;
    for (day, kind, _) in stored.difference(&wanted) {
        sqlx::query(
            "DELETE FROM corporate_actions WHERE instrument_id = ? AND day = ? AND kind = ? AND source = 'DERIVED'",
        )
        .bind(instrument_id)
        .bind(day)
        .bind(kind)
        .execute(&mut *tx)
        .await
        .map_err(map_err)?;
        changed += 1;
    }
    let new: Vec<_> = wanted.difference(&stored).collect();
    for part in new.chunks(ROWS_PER_STATEMENT) {
        let mut query =
            QueryBuilder::<Sqlite>::new("INSERT INTO corporate_actions (instrument_id, day, kind, value, source) ");
        query.push_values(part, |mut row, (day, kind, value)| {
            row.push_bind(instrument_id)
                .push_bind(*day)
                .push_bind(*kind)
                .push_bind(value.clone())
                .push_bind(ActionSource::Derived.as_str());
        });
        query.push(
            " ON CONFLICT (instrument_id, day, kind) DO UPDATE SET value = excluded.value, source = excluded.source
              WHERE value IS NOT excluded.value OR source IS NOT excluded.source",
        );
        changed += query.build().execute(&mut *tx).await.map_err(map_err)?.rows_affected();
    }
    Ok(changed)
}
