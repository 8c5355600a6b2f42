//! SEC XBRL companyfacts JSON (`data.sec.gov/api/xbrl/companyfacts/CIK##########.json`):
//! every fact as reported, the latest shares outstanding, and trailing EPS (for P/E).

use std::collections::BTreeMap;
use std::io::BufRead;

use rust_decimal::Decimal;
use serde::Deserialize;
use signet_domain::marketdata::Fact;
use signet_domain::marketdata::fundamentals::statements::{self, Statements};
use signet_domain::marketdata::units::to_micros;

use super::tickers::cik_value;
use super::{Batcher, Chunk, Emitter, ParseStats, RowError};

#[derive(Deserialize)]
struct CompanyFacts {
    cik: serde_json::Value,
    facts: BTreeMap<String, BTreeMap<String, Concept>>,
}

#[derive(Deserialize)]
struct Concept {
    units: BTreeMap<String, Vec<RawFact>>,
}

#[derive(Deserialize)]
struct RawFact {
    start: Option<String>,
    end: String,
    val: serde_json::Number,
    accn: String,
    fy: Option<i32>,
    fp: Option<String>,
    form: String,
    filed: String,
    frame: Option<String>,
}

pub fn parse(reader: impl BufRead, emitter: &Emitter) -> Result<ParseStats, RowError> {
    let file: CompanyFacts = serde_json::from_reader(reader).map_err(|e| {
        RowError::new(
            e.line() as u64,
            e.column(),
            "",
            format!("not a companyfacts document: {e}"),
        )
    })?;
    let cik_text = match &file.cik {
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::String(s) => s.clone(),
        _ => String::new(),
    };
    let cik = cik_value(&cik_text, 1, 0)?;

    let mut stats = ParseStats::default();
    let mut latest_shares: Option<(String, String, i64)> = None;
    let mut eps_facts = Vec::new();
    let mut out = Batcher::new(emitter, Chunk::Facts);
    for (taxonomy, concepts) in &file.facts {
        for (concept, body) in concepts {
            for (unit, facts) in &body.units {
                for raw in facts {
                    stats.rows += 1;
                    let value: Decimal = raw.val.to_string().parse().map_err(|_| {
                        RowError::new(0, 0, concept.as_str(), format!("{} is not a decimal value", raw.val))
                    })?;
                    if taxonomy == "dei" && concept == "EntityCommonStockSharesOutstanding" {
                        let key = (raw.end.clone(), raw.filed.clone());
                        if latest_shares
                            .as_ref()
                            .is_none_or(|(end, filed, _)| (end, filed) < (&key.0, &key.1))
                        {
                            let shares = raw.val.as_i64().unwrap_or_default();
                            latest_shares = Some((key.0, key.1, shares));
                        }
                    }
                    let fact = Fact {
                        cik: cik.clone(),
                        taxonomy: taxonomy.clone(),
                        concept: concept.clone(),
                        unit: unit.clone(),
                        start: raw.start.clone().unwrap_or_default(),
                        end: raw.end.clone(),
                        accn: raw.accn.clone(),
                        value,
                        fy: raw.fy,
                        fp: raw.fp.clone(),
                        form: raw.form.clone(),
                        filed: raw.filed.clone(),
                        frame: raw.frame.clone(),
                    };
                    if taxonomy == "us-gaap" && statements::eps_concepts().contains(&concept.as_str()) {
                        eps_facts.push(fact.clone());
                    }
                    out.push(fact)?;
                }
            }
        }
    }
    out.finish()?;
    let eps_ttm_e6 = Statements::new(&eps_facts)
        .and_then(|st| statements::eps_ttm(&st.rows(statements::INCOME, false, true)))
        .and_then(to_micros);
    emitter.send(Chunk::Reported {
        cik,
        shares_outstanding: latest_shares.map(|(_, _, s)| s).filter(|s| *s > 0),
        eps_ttm_e6,
    })?;
    Ok(stats)
}
