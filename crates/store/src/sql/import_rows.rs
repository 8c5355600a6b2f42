//! Applying an import's chunks inside a transaction: the one place an import writes rows, for
//! the one-transaction import ([`super::marketdata`]) and the staged one
//! ([`super::staged_import`]) alike.

use std::collections::{HashMap, HashSet};

use signet_domain::marketdata::actions::{AdjustedClose, derive_actions};
use signet_domain::marketdata::fundamentals::layout::SymbolRecord;
use signet_domain::marketdata::import::{Chunk, ImportCounts};
use signet_domain::marketdata::{
    ActionSource, Bar, CorporateAction, Fact, InstrumentType, InstrumentUpdate, SymbolBar, SymbolMinute,
};

use super::query::{Conn, Tx, query};
use crate::StoreError;
use crate::rows::FACT_COLUMNS;

/// Rows per multi-row INSERT, within SQLite's limit of 32,766 bound values (and PostgreSQL's of
/// 65,535).
pub(super) const ROWS_PER_STATEMENT: usize = 1000;

/// The state of one file's import inside its transaction.
#[derive(Default)]
pub(super) struct Import {
    pub(super) ids: HashMap<String, i64>,
    pub(super) bars_changed_for: HashSet<i64>,
    pub(super) counts: ImportCounts,
}

impl Import {
    pub(super) async fn apply(&mut self, tx: &mut Tx, chunk: Chunk) -> Result<(), StoreError> {
        match chunk {
            Chunk::Instruments(updates) => {
                for update in &updates {
                    self.counts.instruments += upsert_instrument(tx, update).await?;
                }
            }
            Chunk::Bars { bars, generated } => self.bars(tx, &bars, generated).await?,
            Chunk::Minutes(minutes) => {
                for part in minutes.chunks(ROWS_PER_STATEMENT) {
                    let mut rows = Vec::with_capacity(part.len());
                    for m in part {
                        rows.push((self.id(tx, &m.symbol).await?, m));
                    }
                    self.counts.minutes += upsert_minutes(tx, &rows).await?;
                }
            }
            Chunk::Actions(actions) => {
                for (symbol, action) in &actions {
                    let id = self.id(tx, symbol).await?;
                    self.counts.actions += upsert_action(tx, "corporate_actions", id, action).await?;
                }
            }
            Chunk::Facts(facts) => {
                for part in facts.chunks(ROWS_PER_STATEMENT) {
                    self.counts.facts += upsert_facts(tx, part).await?;
                }
            }
            Chunk::Records(records) => {
                for part in records.chunks(ROWS_PER_STATEMENT) {
                    let mut rows = Vec::with_capacity(part.len());
                    for r in part {
                        rows.push((self.id(tx, &r.symbol).await?, r));
                    }
                    self.counts.records += upsert_records(tx, &rows).await?;
                }
            }
            Chunk::Reported {
                cik,
                shares_outstanding,
                eps_ttm_e6,
            } => {
                self.counts.instruments += query(
                    "UPDATE instruments AS t SET shares_outstanding = COALESCE($1, t.shares_outstanding),
                         eps_ttm_e6 = COALESCE($2, t.eps_ttm_e6)
                     WHERE cik = $3 AND (shares_outstanding IS DISTINCT FROM COALESCE($1, t.shares_outstanding)
                         OR eps_ttm_e6 IS DISTINCT FROM COALESCE($2, t.eps_ttm_e6))",
                )
                .bind(shares_outstanding)
                .bind(eps_ttm_e6)
                .bind(&cik)
                .execute(&mut *tx)
                .await?;
            }
        }
        Ok(())
    }

    /// The id of `symbol`, creating a bare instrument (named after its symbol) for prices that
    /// arrive before the instrument's listing.
    async fn id(&mut self, tx: &mut Tx, symbol: &str) -> Result<i64, StoreError> {
        if let Some(&id) = self.ids.get(symbol) {
            return Ok(id);
        }
        let existing: Option<(i64,)> = query("SELECT instrument_id FROM instruments WHERE symbol = $1")
            .bind(symbol)
            .fetch_optional(&mut *tx)
            .await?;
        let id = match existing {
            Some((id,)) => id,
            None => {
                self.counts.instruments += 1;
                let (id,): (i64,) =
                    query("INSERT INTO instruments (symbol, name) VALUES ($1, $1) RETURNING instrument_id")
                        .bind(symbol)
                        .fetch_one(&mut *tx)
                        .await?;
                id
            }
        };
        self.ids.insert(symbol.to_owned(), id);
        Ok(id)
    }

    async fn bars(&mut self, tx: &mut Tx, bars: &[SymbolBar], generated: bool) -> Result<(), StoreError> {
        for part in bars.chunks(ROWS_PER_STATEMENT) {
            let mut rows = Vec::with_capacity(part.len());
            for b in part {
                rows.push((self.id(tx, &b.symbol).await?, b.bar));
            }
            self.write_bars(tx, "daily_bars", &rows, generated).await?;
        }
        Ok(())
    }

    /// Inserts or updates bars of `table` (`daily_bars`, or the table a staged import builds),
    /// counting the rows changed and noting the instruments whose derived actions may change.
    pub(super) async fn write_bars(
        &mut self,
        tx: &mut Tx,
        table: &str,
        rows: &[(i64, Bar)],
        generated: bool,
    ) -> Result<(), StoreError> {
        let mut insert = query(format!(
            "INSERT INTO {table} AS t (instrument_id, day, open_e6, high_e6, low_e6, close_e6, volume, adj_close_e6, generated) "
        ));
        insert.push_values(rows, |row, (id, bar)| {
            row.bind(*id)
                .bind(bar.day)
                .bind(bar.open)
                .bind(bar.high)
                .bind(bar.low)
                .bind(bar.close)
                .bind(bar.volume)
                .bind(bar.adj_close)
                .bind(generated);
        });
        insert.push(&update_changed(
            "instrument_id, day",
            &[
                "open_e6",
                "high_e6",
                "low_e6",
                "close_e6",
                "volume",
                "adj_close_e6",
                "generated",
            ],
        ));
        let changed = insert.execute(tx).await?;
        if changed > 0 {
            self.counts.bars += changed;
            self.bars_changed_for
                .extend(rows.iter().filter(|(_, b)| b.adj_close.is_some()).map(|(id, _)| *id));
        }
        Ok(())
    }
}

/// `ON CONFLICT (…) DO UPDATE` of `columns` from the row proposed, when any of them differs.
fn update_changed(conflict: &str, columns: &[&str]) -> String {
    update_with(conflict, columns, |c, _| format!("excluded.{c}"))
}

/// `ON CONFLICT (…) DO UPDATE` of each of `columns` to `value(column, its index)`, when any of
/// them changes.
fn update_with(conflict: &str, columns: &[&str], value: impl Fn(&str, usize) -> String) -> String {
    let set: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(n, c)| format!("{c} = {}", value(c, n)))
        .collect();
    let differs: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(n, c)| format!("t.{c} IS DISTINCT FROM {}", value(c, n)))
        .collect();
    format!(
        " ON CONFLICT ({conflict}) DO UPDATE SET {} WHERE {}",
        set.join(", "),
        differs.join(" OR ")
    )
}

/// Inserts or updates an instrument, leaving fields the update does not know as they are.
async fn upsert_instrument(tx: &mut Tx, u: &InstrumentUpdate) -> Result<u64, StoreError> {
    const KNOWN: [&str; 9] = [
        "name",
        "exchange",
        "cik",
        "sector",
        "industry",
        "instrument_type",
        "indices",
        "shares_outstanding",
        "eps_ttm_e6",
    ];
    // Parameter n + 2 is column n of KNOWN.
    let update = update_with("symbol", &KNOWN, |c, n| format!("COALESCE(${}, t.{c})", n + 2));
    query(format!(
        "INSERT INTO instruments AS t (symbol, {})
         VALUES ($1, COALESCE($2, $1), $3, $4, $5, $6, COALESCE($7, 'EQUITY'), $8, $9, $10){update}",
        KNOWN.join(", ")
    ))
    .bind(&u.symbol)
    .bind(u.name.as_ref())
    .bind(u.exchange.as_ref())
    .bind(u.cik.as_ref())
    .bind(u.sector.as_ref())
    .bind(u.industry.as_ref())
    .bind(u.instrument_type.map(InstrumentType::as_str))
    .bind(u.indices.as_ref())
    .bind(u.shares_outstanding)
    .bind(u.eps_ttm_e6)
    .execute(tx)
    .await
}

async fn upsert_facts(tx: &mut Tx, facts: &[Fact]) -> Result<u64, StoreError> {
    let mut insert = query(format!("INSERT INTO facts AS t ({FACT_COLUMNS}) "));
    insert.push_values(facts, |row, f| {
        row.bind(&f.cik)
            .bind(&f.taxonomy)
            .bind(&f.concept)
            .bind(&f.unit)
            .bind(&f.start)
            .bind(&f.end)
            .bind(&f.accn)
            .bind(f.value.to_string())
            .bind(f.fy)
            .bind(f.fp.as_ref())
            .bind(&f.form)
            .bind(&f.filed)
            .bind(f.frame.as_ref());
    });
    insert.push(&update_changed(
        "cik, taxonomy, concept, unit, start, \"end\", accn",
        &["value", "fy", "fp", "form", "filed", "frame"],
    ));
    insert.execute(tx).await
}

/// Inserts or updates minute bars, each with its instrument's id, skipping equal ones.
async fn upsert_minutes(tx: &mut Tx, rows: &[(i64, &SymbolMinute)]) -> Result<u64, StoreError> {
    let mut insert =
        query("INSERT INTO minute_bars AS t (instrument_id, day, minute, open_e6, high_e6, low_e6, close_e6, volume) ");
    insert.push_values(rows, |row, (instrument_id, m)| {
        row.bind(*instrument_id)
            .bind(m.day)
            .bind(i32::from(m.bar.minute))
            .bind(m.bar.open)
            .bind(m.bar.high)
            .bind(m.bar.low)
            .bind(m.bar.close)
            .bind(m.bar.volume);
    });
    insert.push(&update_changed(
        "instrument_id, day, minute",
        &["open_e6", "high_e6", "low_e6", "close_e6", "volume"],
    ));
    insert.execute(tx).await
}

/// Inserts or replaces fundamentals records, skipping equal ones.
async fn upsert_records(tx: &mut Tx, rows: &[(i64, &SymbolRecord)]) -> Result<u64, StoreError> {
    let mut insert = query("INSERT INTO fundamentals AS t (instrument_id, data_set, record_key, payload, source) ");
    insert.push_values(rows, |row, (instrument_id, r)| {
        row.bind(*instrument_id)
            .bind(r.record.data_set().as_str())
            .bind(r.record.key())
            .bind(r.record.payload())
            .bind(r.source.as_str());
    });
    insert.push(&update_changed(
        "instrument_id, data_set, record_key",
        &["payload", "source"],
    ));
    insert.execute(tx).await
}

/// Inserts or updates corporate actions of one instrument in `table` (`corporate_actions`, or
/// the table a staged import builds): `(day, kind, value, source)`.
async fn upsert_actions<'a>(
    tx: &mut Tx,
    table: &str,
    instrument_id: i64,
    actions: impl IntoIterator<Item = (i32, &'a str, String, &'a str)>,
) -> Result<u64, StoreError> {
    let mut insert = query(format!(
        "INSERT INTO {table} AS t (instrument_id, day, kind, value, source) "
    ));
    insert.push_values(actions, |row, (day, kind, value, source)| {
        row.bind(instrument_id).bind(day).bind(kind).bind(value).bind(source);
    });
    insert.push(&update_changed("instrument_id, day, kind", &["value", "source"]));
    insert.execute(tx).await
}

/// Inserts or updates a reported or generated action (derived ones come from the bars).
pub(super) async fn upsert_action(
    tx: &mut Tx,
    table: &str,
    instrument_id: i64,
    a: &CorporateAction,
) -> Result<u64, StoreError> {
    let action = (
        a.day,
        a.kind.as_str(),
        a.value.normalize().to_string(),
        a.source.as_str(),
    );
    upsert_actions(tx, table, instrument_id, [action]).await
}

/// A derived corporate action: `(day, kind, value)`.
pub(super) type DerivedAction = (i32, String, String);

/// The corporate actions the bars of `instrument_id` in `table` imply.
pub(super) async fn derived_actions<'c>(
    conn: impl Into<Conn<'c>>,
    table: &str,
    instrument_id: i64,
) -> Result<HashSet<DerivedAction>, StoreError> {
    let closes: Vec<(i32, i64, i64)> = query(format!(
        "SELECT day, close_e6, adj_close_e6 FROM {table}
         WHERE instrument_id = $1 AND adj_close_e6 IS NOT NULL ORDER BY day"
    ))
    .bind(instrument_id)
    .fetch_all(conn)
    .await?;
    let closes: Vec<AdjustedClose> = closes
        .into_iter()
        .map(|(day, close, adj_close)| AdjustedClose { day, close, adj_close })
        .collect();
    Ok(derive_actions(&closes)
        .into_iter()
        .map(|a| (a.day, a.kind.as_str().to_owned(), a.value.normalize().to_string()))
        .collect())
}

/// The derived corporate actions of `instrument_id` that `table` holds.
pub(super) async fn stored_derived_actions<'c>(
    conn: impl Into<Conn<'c>>,
    table: &str,
    instrument_id: i64,
) -> Result<HashSet<DerivedAction>, StoreError> {
    let stored: Vec<DerivedAction> = query(format!(
        "SELECT day, kind, value FROM {table} WHERE instrument_id = $1 AND source = 'DERIVED'"
    ))
    .bind(instrument_id)
    .fetch_all(conn)
    .await?;
    Ok(stored.into_iter().collect())
}

/// Replaces an instrument's derived corporate actions in `table` by `wanted`; returns how many
/// rows changed.
pub(super) async fn replace_derived_actions(
    tx: &mut Tx,
    table: &str,
    instrument_id: i64,
    wanted: &HashSet<DerivedAction>,
) -> Result<u64, StoreError> {
    let stored = stored_derived_actions(&mut *tx, table, instrument_id).await?;
    let mut changed = 0;
    for (day, kind, _) in stored.difference(wanted) {
        changed += query(format!(
            "DELETE FROM {table} WHERE instrument_id = $1 AND day = $2 AND kind = $3 AND source = 'DERIVED'"
        ))
        .bind(instrument_id)
        .bind(*day)
        .bind(kind.as_str())
        .execute(&mut *tx)
        .await?;
    }
    let new: Vec<&DerivedAction> = wanted.difference(&stored).collect();
    for part in new.chunks(ROWS_PER_STATEMENT) {
        let derived = part
            .iter()
            .map(|(day, kind, value)| (*day, kind.as_str(), value.clone(), ActionSource::Derived.as_str()));
        changed += upsert_actions(tx, table, instrument_id, derived).await?;
    }
    Ok(changed)
}
