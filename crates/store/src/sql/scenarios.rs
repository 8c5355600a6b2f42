use async_trait::async_trait;

use super::SqlStore;
use super::query::{Conn, query};
use crate::{ScenarioStore, StoreError, StoredRule, StoredScenario};

/// Sets the file in force and moves the version on; the new version.
async fn set_text(conn: impl Into<Conn<'_>>, text: &str, now: i64) -> Result<i64, StoreError> {
    let (version,): (i64,) = query(
        "INSERT INTO scenarios (id, text, version, changed) VALUES (1, $1, 1, $2)
         ON CONFLICT (id) DO UPDATE SET text = excluded.text, version = scenarios.version + 1,
             changed = excluded.changed
         RETURNING version",
    )
    .bind(text)
    .bind(now)
    .fetch_one(conn)
    .await?;
    Ok(version)
}

#[async_trait]
impl ScenarioStore for SqlStore {
    async fn load_scenario(&self, text: &str, rule_names: &[String], now: i64) -> Result<i64, StoreError> {
        let mut tx = self.writer.begin_write().await?;
        let version = set_text(&mut tx, text, now).await?;
        query("DELETE FROM scenario_rules").execute(&mut tx).await?;
        for (position, name) in rule_names.iter().enumerate() {
            query("INSERT INTO scenario_rules (position, name, enabled, hits) VALUES ($1, $2, TRUE, 0)")
                .bind(i64::try_from(position).unwrap_or(i64::MAX))
                .bind(name)
                .execute(&mut tx)
                .await?;
        }
        tx.commit().await?;
        Ok(version)
    }

    async fn clear_scenario(&self, now: i64) -> Result<i64, StoreError> {
        let mut tx = self.writer.begin_write().await?;
        let version = set_text(&mut tx, "", now).await?;
        query("DELETE FROM scenario_rules").execute(&mut tx).await?;
        tx.commit().await?;
        Ok(version)
    }

    async fn scenario(&self) -> Result<Option<StoredScenario>, StoreError> {
        // Read together: a load between the two reads would pair one file with another's rules.
        let mut tx = self.reader.begin().await?;
        let row: Option<(String, i64, i64)> = query("SELECT text, version, changed FROM scenarios WHERE id = 1")
            .fetch_optional(&mut tx)
            .await?;
        let rules: Vec<StoredRule> = query("SELECT name, enabled, hits FROM scenario_rules ORDER BY position")
            .fetch_all(&mut tx)
            .await?;
        tx.commit().await?;
        Ok(row.map(|(text, version, changed)| StoredScenario {
            text,
            version,
            changed,
            rules,
        }))
    }

    async fn scenario_version(&self) -> Result<i64, StoreError> {
        let row: Option<(i64,)> = query("SELECT version FROM scenarios WHERE id = 1")
            .fetch_optional(&self.reader)
            .await?;
        Ok(row.map_or(0, |(version,)| version))
    }

    async fn switch_scenario_rule(&self, name: &str, enabled: bool, now: i64) -> Result<bool, StoreError> {
        let mut tx = self.writer.begin_write().await?;
        let switched = query("UPDATE scenario_rules SET enabled = $1 WHERE name = $2")
            .bind(enabled)
            .bind(name)
            .execute(&mut tx)
            .await?;
        if switched == 0 {
            tx.commit().await?;
            return Ok(false);
        }
        query("UPDATE scenarios SET version = version + 1, changed = $1 WHERE id = 1")
            .bind(now)
            .execute(&mut tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn hit_scenario_rule(&self, name: &str) -> Result<Option<i64>, StoreError> {
        let row: Option<(i64,)> = query("UPDATE scenario_rules SET hits = hits + 1 WHERE name = $1 RETURNING hits")
            .bind(name)
            .fetch_optional(&self.writer)
            .await?;
        Ok(row.map(|(hits,)| hits))
    }
}
