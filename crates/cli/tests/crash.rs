//! `kill -9` while orders are placed and filled: after a restart every acknowledged order exists
//! exactly once, the ones in flight either exist whole or not at all, the open ones fill, and the
//! account's cash and position agree with its fills to the cent.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Serving, market_buy, run_json, serve, signet, stop};
use rust_decimal::Decimal;
use signet_client::Client;
use signet_server::{Database, Durability};

const WORKERS: usize = 8;

/// Places market buys from `WORKERS` tasks until the server stops answering; returns the ids it
/// acknowledged.
async fn place_until_gone(client: Arc<Client>, account: String) -> Vec<String> {
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for worker in 0..WORKERS {
        let (client, account, acknowledged) = (client.clone(), account.clone(), acknowledged.clone());
        tasks.push(tokio::spawn(async move {
            for n in 0.. {
                let id = format!("w{worker}n{n}");
                match client.orders().place(&account, market_buy(id.clone())).await {
                    Ok(_) => acknowledged.lock().unwrap().push(id),
                    Err(e @ signet_client::Error::Api { .. }) => panic!("a placement was refused: {e}"),
                    Err(_) => return,
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    Arc::try_unwrap(acknowledged).unwrap().into_inner().unwrap()
}

#[test]
fn kill_9_while_orders_fill_loses_and_duplicates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let db = db.to_str().unwrap();
    let prices = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/demo/daily_ohlcv_2000_2013.csv.gz"
    );
    run_json(signet().args(["data", "import", "--db", db, "--json", prices]));
    // Enough cash for every order a few seconds can place (about $430 each).
    let created = run_json(signet().args([
        "admin", "apps", "create", "--db", db, "--name", "crash", "--cash", "10000000", "--json",
    ]));
    let (key, secret) = (
        created["app_key"].as_str().unwrap(),
        created["app_secret"].as_str().unwrap(),
    );
    let account = created["account_ids"][1].as_str().unwrap().to_owned();

    // The running clock starts at a core open: market orders fill on the ticks, four a second.
    let serving = serve(db, &["--rate-limits", "off"]);
    let client = Arc::new(Client::new(&serving.endpoint, key, secret).unwrap());
    let pid = serving.child.id().to_string();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let acknowledged = runtime.block_on(async {
        let killer = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let killed = std::process::Command::new("kill")
                .args(["-KILL", &pid])
                .status()
                .unwrap();
            assert!(killed.success());
        });
        let acknowledged = place_until_gone(client, account.clone()).await;
        killer.await.unwrap();
        acknowledged
    });
    let Serving { mut child, .. } = serving;
    let status = child.wait().unwrap();
    assert!(!status.success(), "killed, not stopped: {status}");
    assert!(acknowledged.len() > 100, "only {} orders placed", acknowledged.len());

    // Restarted, the engine resumes: what was open fills.
    let again = serve(db, &["--rate-limits", "off"]);
    let client = Client::new(&again.endpoint, key, secret).unwrap();
    runtime.block_on(common::wait_until_none_open(&client, &account));
    stop(again);

    runtime.block_on(async {
        let database = Database::open_sqlite(std::path::Path::new(db), Durability::Normal, None)
            .await
            .unwrap();
        common::assert_bought_once(&database, &account, &acknowledged, WORKERS, Decimal::from(10_000_000)).await;
    });
}
