//! A large import of bars on SQLite is staged beside the live tables (`sql/staged_import.rs`);
//! what it leaves must be what the same rows leave when imported in small imports, each in one
//! transaction: the same instruments, bars and corporate actions (the live ones copied, the
//! generated ones kept, the derived ones derived again for the instruments whose bars changed).

use signet_domain::marketdata::import::{Chunk, ImportMessage};
use signet_domain::marketdata::{ActionKind, ActionSource, Bar, CorporateAction, SymbolBar};
use signet_store::{Durability, MarketDataStore, SqlStore};
use tokio::sync::mpsc;

/// Imports `chunks` as one file.
async fn import(store: &SqlStore, chunks: Vec<Chunk>) {
    let (tx, rx) = mpsc::channel(chunks.len() + 1);
    for chunk in chunks {
        tx.send(ImportMessage::Chunk(chunk)).await.unwrap();
    }
    tx.send(ImportMessage::Commit).await.unwrap();
    drop(tx);
    store.import(rx).await.unwrap();
}

/// `days` bars of `symbol` whose adjusted close is `percent` % of the close before `step`, and
/// the close from then on (a dividend).
fn bars(symbol: &str, days: i32, step: i32, percent: i64) -> Chunk {
    let bars = (0..days)
        .map(|day| {
            let close = 100_000_000 + i64::from(day) * 1_000;
            let percent = if day < step { percent } else { 100 };
            SymbolBar {
                symbol: symbol.to_owned(),
                bar: Bar {
                    day,
                    open: close,
                    high: close + 500_000,
                    low: close - 500_000,
                    close,
                    volume: 1_000 + i64::from(day),
                    adj_close: Some(close * percent / 100),
                },
            }
        })
        .collect();
    Chunk::Bars { bars, generated: false }
}

/// A first, small file: two instruments the large one changes, one it leaves alone, and a
/// generated dividend.
fn small_file() -> Vec<Chunk> {
    let generated = CorporateAction {
        day: 50,
        kind: ActionKind::Dividend,
        value: "0.5".parse().unwrap(),
        source: ActionSource::Generated,
    };
    vec![
        bars("S0", 200, 120, 97),
        bars("S1", 200, 30, 95),
        bars("OLD", 300, 150, 99),
        Chunk::Actions(vec![("S0".to_owned(), generated)]),
    ]
}

/// A large file: 20 instruments of 1,000 days each (20,000 rows, more than an import stages
/// from), the first two known already with other adjusted closes.
fn large_file() -> Vec<Chunk> {
    (0..20)
        .map(|i| bars(&format!("S{i}"), 1_000, 100 + 37 * i, 98))
        .collect()
}

/// Every instrument with its bars and corporate actions.
async fn contents(store: &SqlStore) -> Vec<(String, Vec<Bar>, Vec<CorporateAction>)> {
    let mut all = Vec::new();
    for instrument in store.instruments().await.unwrap() {
        let id = instrument.instrument_id;
        all.push((
            instrument.symbol,
            store.daily_bars(id, 0, 10_000).await.unwrap(),
            store.corporate_actions(id).await.unwrap(),
        ));
    }
    all
}

#[tokio::test]
async fn a_staged_import_leaves_what_small_imports_of_the_same_rows_leave() {
    let dir = tempfile::tempdir().unwrap();
    let staged = SqlStore::sqlite(&dir.path().join("staged.db"), Durability::Normal)
        .await
        .unwrap();
    let small = SqlStore::sqlite(&dir.path().join("small.db"), Durability::Normal)
        .await
        .unwrap();
    import(&staged, small_file()).await;
    import(&small, small_file()).await;
    import(&staged, large_file()).await;
    for chunk in large_file() {
        import(&small, vec![chunk]).await;
    }
    let (staged, small) = (contents(&staged).await, contents(&small).await);
    assert_eq!(staged.len(), 21);
    let s0 = &staged.iter().find(|(symbol, _, _)| symbol == "S0").unwrap().2;
    assert!(s0.iter().any(|a| a.source == ActionSource::Generated));
    assert!(s0.iter().any(|a| a.source == ActionSource::Derived));
    assert_eq!(staged, small);
}
