use async_trait::async_trait;
use signet_domain::marketdata::Fact;
use signet_domain::marketdata::fundamentals::Peer;
use signet_domain::marketdata::fundamentals::layout::{DataSet, Record};

use super::SqlStore;
use super::query::query;
use crate::rows::{Decoded, FACT_COLUMNS, FactRow, fact_from_row};
use crate::{FilingRow, FundamentalsStore, StoreError};

#[async_trait]
impl FundamentalsStore for SqlStore {
    async fn records(&self, instrument_id: i64, data_set: DataSet) -> Result<Vec<Record>, StoreError> {
        let rows: Vec<(String,)> =
            query("SELECT payload FROM fundamentals WHERE instrument_id = $1 AND data_set = $2 ORDER BY record_key")
                .bind(instrument_id)
                .bind(data_set.as_str())
                .fetch_all(&self.reader)
                .await?;
        rows.iter()
            .map(|(payload,)| {
                Record::from_payload(data_set, payload)
                    .map_err(|e| StoreError::Other(format!("a stored {} record is invalid: {e}", data_set.as_str())))
            })
            .collect()
    }

    async fn company_facts(&self, cik: &str, concepts: &[&str]) -> Result<Vec<Fact>, StoreError> {
        let mut select = query(format!("SELECT {FACT_COLUMNS} FROM facts WHERE cik = "));
        select
            .push_bind(cik)
            .push(" AND taxonomy = 'us-gaap' AND ")
            .push_in("concept", concepts.iter().copied());
        let rows: Vec<FactRow> = select.fetch_all(&self.reader).await?;
        rows.into_iter().map(fact_from_row).collect()
    }

    async fn filings(&self, cik: &str) -> Result<Vec<FilingRow>, StoreError> {
        query(
            // The period a filing reports is its latest financial (us-gaap) date; cover-page facts
            // (dei) are dated later.
            "SELECT accn, form, MIN(filed) AS filed, MAX(CASE WHEN taxonomy = 'us-gaap' THEN \"end\" END) AS period_end
             FROM facts WHERE cik = $1 GROUP BY accn, form
             HAVING MAX(CASE WHEN taxonomy = 'us-gaap' THEN \"end\" END) IS NOT NULL
             ORDER BY filed DESC, accn DESC",
        )
        .bind(cik)
        .fetch_all(&self.reader)
        .await
    }

    async fn peers(&self, industry: Option<&str>, sector: Option<&str>) -> Result<Vec<Peer>, StoreError> {
        let (column, value) = match (industry, sector) {
            (Some(industry), _) => ("industry", industry),
            (None, Some(sector)) => ("sector", sector),
            (None, None) => return Ok(Vec::new()),
        };
        let rows = query(format!(
            "SELECT i.instrument_id, i.symbol, i.name, i.cik, i.eps_ttm_e6, i.shares_outstanding,
                    s.price_e6, s.pe_ttm, s.dividend_e6, s.dividend_yield, s.day,
                    EXISTS (SELECT 1 FROM facts f WHERE f.cik = i.cik) AS has_facts
             FROM instruments i LEFT JOIN snapshots s ON s.instrument_id = i.instrument_id
             WHERE i.{column} = $1 AND i.instrument_type = 'EQUITY' AND i.status = 'ACTIVE'
             ORDER BY i.symbol"
        ))
        .bind(value)
        .fetch_all(&self.reader)
        .await?;
        Ok(Decoded::all(rows))
    }

    async fn ciks_with_facts(&self) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> = query("SELECT DISTINCT cik FROM facts").fetch_all(&self.reader).await?;
        Ok(rows.into_iter().map(|(cik,)| cik).collect())
    }
}
