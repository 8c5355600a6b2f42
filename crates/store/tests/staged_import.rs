//! A large import of bars on SQLite is staged beside the live tables (`sql/staged_import.rs`);
//! what it leaves must be what the same rows leave when imported in small imports, each in one
//! transaction: the same instruments, bars and corporate actions (the live ones copied, the
//! generated ones kept, the derived ones derived again for the instruments whose bars changed),
//! and the minutes of the file.

use signet_domain::marketdata::import::{Chunk, ImportMessage};
use signet_domain::marketdata::{ActionKind, ActionSource, Bar, CorporateAction, MinuteBar, SymbolBar, SymbolMinute};
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

/// `count` minutes of `symbol` on `day`, from the open.
fn minutes(symbol: &str, day: i32, count: u16) -> Chunk {
    let minutes = (0..count)
        .map(|minute| {
            let price = 100_000_000 + i64::from(minute) * 10_000;
            SymbolMinute {
                symbol: symbol.to_owned(),
                day,
                bar: MinuteBar {
                    minute,
                    open: price,
                    high: price + 20_000,
                    low: price - 20_000,
                    close: price + 10_000,
                    volume: 100,
                },
            }
        })
        .collect();
    Chunk::Minutes(minutes)
}

/// Minutes sent before enough bars to stage wait for the swap: written once, with the bars,
/// and counted; they name an instrument the staged import creates.
#[tokio::test]
async fn minutes_in_a_staged_import_are_written_with_the_swap() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqlStore::sqlite(&dir.path().join("staged.db"), Durability::Normal)
        .await
        .unwrap();
    let mut file = vec![minutes("NEW", 900, 390), minutes("S0", 900, 10)];
    file.extend(large_file());
    let (tx, rx) = mpsc::channel(file.len() + 1);
    for chunk in file {
        tx.send(ImportMessage::Chunk(chunk)).await.unwrap();
    }
    tx.send(ImportMessage::Commit).await.unwrap();
    drop(tx);
    let counts = store.import(rx).await.unwrap();
    assert_eq!((counts.minutes, counts.bars, counts.instruments), (400, 20_000, 21));
    let new = store.instrument("NEW").await.unwrap().unwrap();
    let s0 = store.instrument("S0").await.unwrap().unwrap();
    let Chunk::Minutes(sent) = minutes("NEW", 900, 390) else {
        unreachable!()
    };
    let sent: Vec<MinuteBar> = sent.into_iter().map(|m| m.bar).collect();
    assert_eq!(store.minute_bars(new.instrument_id, 900).await.unwrap(), sent);
    // By instrument id: staged, the import reserved the ids of the bars' instruments first, and
    // NEW got its id at the swap (in one transaction it would have had the first).
    assert!(s0.instrument_id < new.instrument_id);
    let on_day = store.minutes_on(900).await.unwrap();
    assert_eq!(
        on_day.iter().map(|(id, m)| (*id, m.len())).collect::<Vec<_>>(),
        [(s0.instrument_id, 10), (new.instrument_id, 390)]
    );
    assert!(store.minute_bars(new.instrument_id, 901).await.unwrap().is_empty());
}
