use async_trait::async_trait;
use sqlx::{QueryBuilder, Sqlite};

use super::{SqliteStore, map_err};
use crate::marketdata::Fact;
use crate::marketdata::fundamentals::layout::{DataSet, Record};
use crate::store::rows::{FactRow, fact_from_row};
use crate::store::{FilingRow, FundamentalsStore, Peer, StoreError};

#[async_trait]
impl FundamentalsStore for SqliteStore {
    async fn records(&self, instrument_id: i64, data_set: DataSet) -> Result<Vec<Record>, StoreError> {
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT payload FROM fundamentals WHERE instrument_id = ? AND data_set = ? ORDER BY record_key",
        )
        .bind(instrument_id)
        .bind(data_set.as_str())
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        rows.iter()
            .map(|(payload,)| {
                Record::from_payload(data_set, payload)
                    .map_err(|e| StoreError::Other(format!("a stored {} record is invalid: {e}", data_set.as_str())))
            })
            .collect()
    }

    async fn company_facts(&self, cik: &str, concepts: &[&str]) -> Result<Vec<Fact>, StoreError> {
        let mut query: QueryBuilder<Sqlite> = QueryBuilder::new(
            "SELECT cik, taxonomy, concept, unit, start, end, accn, value, fy, fp, form, filed, frame FROM facts
             WHERE cik = ",
        );
        query.push_bind(cik).push(" AND taxonomy = 'us-gaap' AND concept IN (");
        let mut list = query.separated(", ");
        for concept in concepts {
            list.push_bind(*concept);
        }
        query.push(")");
        let rows: Vec<FactRow> = query.build_query_as().fetch_all(&self.reader).await.map_err(map_err)?;
        rows.into_iter().map(fact_from_row).collect()
    }

    async fn filings(&self, cik: &str) -> Result<Vec<FilingRow>, StoreError> {
        let rows: Vec<(String, String, String, String)> = sqlx::query_as(
            // The period a filing reports is its latest financial (us-gaap) date; cover-page facts
            // (dei) are dated later.
            "SELECT accn, form, MIN(filed), MAX(CASE WHEN taxonomy = 'us-gaap' THEN end END) AS period_end
             FROM facts WHERE cik = ? GROUP BY accn, form HAVING period_end IS NOT NULL
             ORDER BY MIN(filed) DESC, accn DESC",
        )
        .bind(cik)
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)?;
        Ok(rows
            .into_iter()
            .map(|(accn, form, filed, period_end)| FilingRow {
                accn,
                form,
                filed,
                period_end,
            })
            .collect())
    }

    async fn peers(&self, industry: Option<&str>, sector: Option<&str>) -> Result<Vec<Peer>, StoreError> {
        let (column, value) = match (industry, sector) {
            (Some(industry), _) => ("industry", industry),
            (None, Some(sector)) => ("sector", sector),
            (None, None) => return Ok(Vec::new()),
        };
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT i.instrument_id, i.symbol, i.name, i.cik, i.eps_ttm_e6, i.shares_outstanding,
                    s.price_e6, s.pe_ttm, s.dividend_e6, s.dividend_yield, s.day,
                    EXISTS (SELECT 1 FROM facts f WHERE f.cik = i.cik) AS has_facts
             FROM instruments i LEFT JOIN snapshots s ON s.instrument_id = i.instrument_id
             WHERE i.{column} = ? AND i.instrument_type = 'EQUITY' AND i.status = 'ACTIVE'
             ORDER BY i.symbol"
        )))
        .bind(value)
        .fetch_all(&self.reader)
        .await
        .map_err(map_err)
    }

    async fn ciks_with_facts(&self) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> = sqlx::query_as("SELECT DISTINCT cik FROM facts")
            .fetch_all(&self.reader)
            .await
            .map_err(map_err)?;
        Ok(rows.into_iter().map(|(c,)| c).collect())
    }
}
