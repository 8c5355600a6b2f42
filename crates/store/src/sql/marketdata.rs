use std::collections::HashMap;

use async_trait::async_trait;
use rust_decimal::Decimal;
use signet_domain::marketdata::import::{Chunk, ImportCounts, ImportMessage};
use signet_domain::marketdata::units::format_day;
use signet_domain::marketdata::{
    ActionKind, ActionSource, Bar, CorporateAction, Fact, Instrument, InstrumentType, MinuteBar,
};
use signet_domain::simulator::Listing;
use tokio::sync::mpsc;

use super::import_rows::{Import, derived_actions, replace_derived_actions};
use super::query::query;
use super::{SqlStore, staged_import};
use crate::rows::{
    BAR_COLUMNS, Decoded, FACT_COLUMNS, FactRow, INSTRUMENT_COLUMNS, MINUTE_COLUMNS, MinuteRow, fact_from_row,
    minute_from_row, parse_column,
};
use crate::{InstrumentQuery, MarketDataStatus, MarketDataStore, StoreError};

impl SqlStore {
    /// Applies `first`, then what `rest` brings until its commit, in one transaction of the
    /// writer.
    async fn import_in_one_transaction(
        &self,
        first: Vec<Chunk>,
        rest: Option<mpsc::Receiver<ImportMessage>>,
    ) -> Result<ImportCounts, StoreError> {
        // The import reads (the ids of symbols) before it writes: begun deferred, it would fail
        // on its first write if a server on the same SQLite file wrote meanwhile.
        let mut tx = self.writer.begin_write().await?;
        let mut import = Import::default();
        for chunk in first {
            import.apply(&mut tx, chunk).await?;
        }
        if let Some(mut messages) = rest {
            loop {
                match messages.recv().await {
                    // Dropping `tx` rolls back.
                    None => return Err(StoreError::Aborted),
                    Some(ImportMessage::Commit) => break,
                    Some(ImportMessage::Chunk(chunk)) => import.apply(&mut tx, chunk).await?,
                }
            }
        }
        for &instrument_id in &import.bars_changed_for {
            let wanted = derived_actions(&mut tx, "daily_bars", instrument_id).await?;
            import.counts.actions +=
                replace_derived_actions(&mut tx, "corporate_actions", instrument_id, &wanted).await?;
        }
        tx.commit().await?;
        Ok(import.counts)
    }
}

#[async_trait]
impl MarketDataStore for SqlStore {
    async fn import(&self, mut messages: mpsc::Receiver<ImportMessage>) -> Result<ImportCounts, StoreError> {
        let (Some(path), Some(options)) = (self.path(), &self.sqlite_options) else {
            // PostgreSQL: one transaction, which trading does not wait for.
            return self.import_in_one_transaction(Vec::new(), Some(messages)).await;
        };
        // SQLite: one import at a time, whichever process runs it; see `staged_import`.
        let _lock = staged_import::ImportLock::acquire(path).await?;
        let mut first = Vec::new();
        let mut rows = 0;
        while rows < staged_import::STAGED_FROM_ROWS {
            match messages.recv().await {
                None => return Err(StoreError::Aborted),
                Some(ImportMessage::Commit) => return self.import_in_one_transaction(first, None).await,
                Some(ImportMessage::Chunk(chunk)) => {
                    rows += chunk.rows();
                    first.push(chunk);
                }
            }
        }
        if first.iter().any(|chunk| matches!(chunk, Chunk::Bars { .. }))
            && let Some(staging) = staged_import::Staging::prepare(options.clone()).await?
        {
            return staging.run(first, messages).await;
        }
        self.import_in_one_transaction(first, Some(messages)).await
    }

    async fn market_data_status(&self) -> Result<MarketDataStatus, StoreError> {
        type Counts = (
            i64,
            i64,
            i64,
            Option<i32>,
            Option<i32>,
            i64,
            i64,
            i64,
            i64,
            i64,
            i64,
            i64,
        );
        let (
            instruments,
            bars,
            with_bars,
            first,
            last,
            minutes,
            minute_days,
            splits,
            dividends,
            facts,
            companies,
            records,
        ): Counts = query(
            "SELECT (SELECT COUNT(*) FROM instruments),
                    (SELECT COUNT(*) FROM daily_bars), (SELECT COUNT(DISTINCT instrument_id) FROM daily_bars),
                    (SELECT MIN(day) FROM daily_bars), (SELECT MAX(day) FROM daily_bars),
                    (SELECT COUNT(*) FROM minute_bars),
                    (SELECT COUNT(*) FROM (SELECT 1 FROM minute_bars GROUP BY instrument_id, day) AS days),
                    (SELECT COUNT(*) FROM corporate_actions WHERE kind = 'SPLIT'),
                    (SELECT COUNT(*) FROM corporate_actions WHERE kind = 'DIVIDEND'),
                    (SELECT COUNT(*) FROM facts), (SELECT COUNT(DISTINCT cik) FROM facts),
                    (SELECT COUNT(*) FROM fundamentals)",
        )
        .fetch_one(&self.reader)
        .await?;
        let count = |n: i64| n as u64;
        Ok(MarketDataStatus {
            instruments: count(instruments),
            instruments_with_bars: count(with_bars),
            bars: count(bars),
            first_day: first.map(format_day),
            last_day: last.map(format_day),
            minute_bars: count(minutes),
            days_with_minutes: count(minute_days),
            splits: count(splits),
            dividends: count(dividends),
            facts: count(facts),
            companies_with_facts: count(companies),
            fundamentals_records: count(records),
        })
    }

    async fn instrument(&self, symbol: &str) -> Result<Option<Instrument>, StoreError> {
        let row: Option<Decoded<Instrument>> = query(format!(
            "SELECT {INSTRUMENT_COLUMNS} FROM instruments WHERE symbol = $1"
        ))
        .bind(symbol)
        .fetch_optional(&self.reader)
        .await?;
        Ok(row.map(|Decoded(instrument)| instrument))
    }

    async fn instruments(&self) -> Result<Vec<Instrument>, StoreError> {
        let rows = query(format!(
            "SELECT {INSTRUMENT_COLUMNS} FROM instruments ORDER BY instrument_id"
        ))
        .fetch_all(&self.reader)
        .await?;
        Ok(Decoded::all(rows))
    }

    async fn instrument_page(&self, q: &InstrumentQuery) -> Result<Vec<Instrument>, StoreError> {
        let mut select = query(format!(
            "SELECT {INSTRUMENT_COLUMNS} FROM instruments WHERE ($1 IS NULL OR instrument_id > $1)
               AND ($2 IS NULL OR instrument_type = $2)"
        ))
        .bind(q.after_id)
        .bind(q.instrument_type.map(InstrumentType::as_str));
        if let Some(symbols) = &q.symbols {
            select
                .push(" AND ")
                .push_in("symbol", symbols.iter().map(String::as_str));
        }
        select
            .push(" ORDER BY instrument_id LIMIT ")
            .push_bind(i64::from(q.limit));
        Ok(Decoded::all(select.fetch_all(&self.reader).await?))
    }

    async fn closes_before(&self, day: i32) -> Result<HashMap<i64, i64>, StoreError> {
        let rows: Vec<(i64, i64)> = query(
            "SELECT b.instrument_id, b.close_e6 FROM daily_bars b
             JOIN (SELECT instrument_id, MAX(day) AS day FROM daily_bars WHERE day < $1 GROUP BY instrument_id) l
               ON l.instrument_id = b.instrument_id AND l.day = b.day",
        )
        .bind(day)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows.into_iter().collect())
    }

    async fn bars_between(&self, from_day: i32, to_day: i32) -> Result<Vec<(i64, Bar)>, StoreError> {
        let rows = query(format!(
            "SELECT instrument_id, {BAR_COLUMNS} FROM daily_bars WHERE day BETWEEN $1 AND $2"
        ))
        .bind(from_day)
        .bind(to_day)
        .fetch_all(&self.reader)
        .await?;
        Ok(Decoded::all(rows))
    }

    async fn listings(&self) -> Result<Vec<Listing>, StoreError> {
        let rows: Vec<(i64, String, Option<f64>, Option<i64>)> = query(
            "SELECT i.instrument_id, i.symbol, s.amplitude, s.volume
             FROM instruments i LEFT JOIN snapshots s ON s.instrument_id = i.instrument_id
             ORDER BY i.instrument_id",
        )
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, symbol, amplitude, volume)| Listing::from_snapshot(id, symbol, amplitude, volume))
            .collect())
    }

    async fn daily_bars(&self, instrument_id: i64, from_day: i32, to_day: i32) -> Result<Vec<Bar>, StoreError> {
        let rows = query(format!(
            "SELECT {BAR_COLUMNS} FROM daily_bars WHERE instrument_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day"
        ))
        .bind(instrument_id)
        .bind(from_day)
        .bind(to_day)
        .fetch_all(&self.reader)
        .await?;
        Ok(Decoded::all(rows))
    }

    async fn minute_bars(&self, instrument_id: i64, day: i32) -> Result<Vec<MinuteBar>, StoreError> {
        let rows: Vec<MinuteRow> = query(format!(
            "SELECT {MINUTE_COLUMNS} FROM minute_bars WHERE instrument_id = $1 AND day = $2 ORDER BY minute"
        ))
        .bind(instrument_id)
        .bind(day)
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter().map(minute_from_row).collect()
    }

    async fn minutes_on(&self, day: i32) -> Result<Vec<(i64, Vec<MinuteBar>)>, StoreError> {
        let rows: Vec<(i64, i32, i64, i64, i64, i64, i64)> = query(format!(
            "SELECT instrument_id, {MINUTE_COLUMNS} FROM minute_bars WHERE day = $1 ORDER BY instrument_id, minute"
        ))
        .bind(day)
        .fetch_all(&self.reader)
        .await?;
        let mut days: Vec<(i64, Vec<MinuteBar>)> = Vec::new();
        for (id, minute, open, high, low, close, volume) in rows {
            let bar = minute_from_row((minute, open, high, low, close, volume))?;
            match days.last_mut() {
                Some((last, minutes)) if *last == id => minutes.push(bar),
                _ => days.push((id, vec![bar])),
            }
        }
        Ok(days)
    }

    async fn corporate_actions(&self, instrument_id: i64) -> Result<Vec<CorporateAction>, StoreError> {
        let rows: Vec<(i32, String, String, String)> =
            query("SELECT day, kind, value, source FROM corporate_actions WHERE instrument_id = $1 ORDER BY day, kind")
                .bind(instrument_id)
                .fetch_all(&self.reader)
                .await?;
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

    async fn splits_on(&self, day: i32) -> Result<Vec<(i64, Decimal)>, StoreError> {
        let rows: Vec<(i64, String)> =
            query("SELECT instrument_id, value FROM corporate_actions WHERE day = $1 AND kind = $2")
                .bind(day)
                .bind(ActionKind::Split.as_str())
                .fetch_all(&self.reader)
                .await?;
        rows.into_iter()
            .map(|(id, value)| Ok((id, parse_column("split ratio", &value, |v| v.parse().ok())?)))
            .collect()
    }

    async fn facts(&self, cik: &str, concept: &str) -> Result<Vec<Fact>, StoreError> {
        let rows: Vec<FactRow> = query(format!(
            "SELECT {FACT_COLUMNS} FROM facts WHERE cik = $1 AND concept = $2 ORDER BY \"end\", filed, start"
        ))
        .bind(cik)
        .bind(concept)
        .fetch_all(&self.reader)
        .await?;
        rows.into_iter().map(fact_from_row).collect()
    }
}
