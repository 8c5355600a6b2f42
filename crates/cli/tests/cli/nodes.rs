//! Three `signet serve` processes on one PostgreSQL database, one of them killed with `kill -9`
//! while orders are placed on all three: every acknowledged order exists exactly once, the
//! others' engines fill what the dead node left open, and the account's cash and position agree
//! with the fills. A subscriber to the account's order events on a surviving node receives every
//! event committed, on any node, the dead one's too, once each. Skipped without `SIGNET_TEST_POSTGRES_URL` (a failure with
//! `SIGNET_REQUIRE_SERVICES=1`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use rust_decimal::Decimal;
use signet_client::Client;
use signet_server::database::Location;

use crate::common::{Serving, market_buy, run_json, serve_with, signet, stop};

const WORKERS: usize = 9;
const MASTER_KEY: &str = "4e6f64657320736861726520746869732074657374206b6579206f6e6c792e2e";

/// A new database `<name>_<pid>` on the test server, or `None` to skip.
pub fn fresh_database(runtime: &tokio::runtime::Runtime, name: &str) -> Option<String> {
    let Ok(admin_url) = std::env::var("SIGNET_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var("SIGNET_REQUIRE_SERVICES").as_deref() != Ok("1"),
            "SIGNET_REQUIRE_SERVICES=1 but SIGNET_TEST_POSTGRES_URL is not set"
        );
        eprintln!("skipped: no SIGNET_TEST_POSTGRES_URL");
        return None;
    };
    let name = format!("{name}_{}", std::process::id());
    runtime.block_on(async {
        let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(&admin_url)
            .await
            .unwrap();
        sqlx::Executor::execute(
            &mut admin,
            sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name}")),
        )
        .await
        .unwrap();
        sqlx::Executor::execute(&mut admin, sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .await
            .unwrap();
    });
    let (server, _) = admin_url.rsplit_once('/').unwrap();
    Some(format!("{server}/{name}"))
}

#[test]
fn kill_9_of_one_node_of_three_loses_and_duplicates_nothing() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let Some(url) = fresh_database(&runtime, "signet_nodes") else {
        return;
    };
    let env = [("SIGNET_MASTER_KEY", MASTER_KEY), ("SIGNET_DATABASE_URL", url.as_str())];
    let prices = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/demo/daily_ohlcv_2000_2013.csv.gz"
    );
    run_json(signet().args(["data", "import", "--json", prices]).envs(env));
    let created = run_json(
        signet()
            .args([
                "admin", "apps", "create", "--name", "nodes", "--cash", "10000000", "--json",
            ])
            .envs(env),
    );
    let (key, secret) = (
        created["app_key"].as_str().unwrap(),
        created["app_secret"].as_str().unwrap(),
    );
    let account = created["account_ids"][1].as_str().unwrap().to_owned();

    let mut nodes: Vec<Serving> = (0..3).map(|_| serve_with(&["--rate-limits", "off"], &env)).collect();
    let clients: Vec<Arc<Client>> = nodes
        .iter()
        .map(|n| Arc::new(Client::new(&n.endpoint, key, secret).unwrap()))
        .collect();
    let victim = nodes[1].child.id().to_string();

    // Every order event of the account, as a subscriber on the first node receives it, and how
    // its stream ended.
    let received = Arc::new(Mutex::new(Vec::new()));
    let mut events = runtime.block_on(clients[0].events().subscribe(&[&account])).unwrap();
    let subscriber = {
        let received = received.clone();
        runtime.spawn(async move {
            while let Some(event) = events.next().await {
                match event {
                    Ok(signet_client::Event::Order(event)) => received.lock().push(event.payload.request_id),
                    Ok(signet_client::Event::Position(_)) => return "a position event, not asked for".to_owned(),
                    Err(e) => return e.to_string(),
                }
            }
            "the stream ended without an error".to_owned()
        })
    };

    // Each worker places on its node for three seconds; the middle node dies after one.
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    runtime.block_on(async {
        let killer = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(1000)).await;
            let killed = std::process::Command::new("kill")
                .args(["-KILL", &victim])
                .status()
                .unwrap();
            assert!(killed.success());
        });
        // Three seconds, and on a machine too busy to place 100 orders in them, until it has
        // (or a minute has passed, and the count below fails).
        let until = Instant::now() + Duration::from_secs(3);
        let give_up = Instant::now() + Duration::from_secs(60);
        let mut tasks = Vec::new();
        for worker in 0..WORKERS {
            let client = clients[worker % 3].clone();
            let (account, acknowledged) = (account.clone(), acknowledged.clone());
            tasks.push(tokio::spawn(async move {
                for n in 0.. {
                    let now = Instant::now();
                    if (now > until && acknowledged.lock().len() > 100) || now > give_up {
                        return;
                    }
                    let id = format!("w{worker}n{n}");
                    match client.orders().place(&account, market_buy(id.clone())).await {
                        Ok(_) => acknowledged.lock().push(id),
                        Err(e @ signet_client::Error::Api { .. }) => panic!("a placement was refused: {e}"),
                        // The dead node: its worker stops.
                        Err(_) => return,
                    }
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        killer.await.unwrap();
    });
    let acknowledged = Arc::try_unwrap(acknowledged).unwrap().into_inner();
    let status = nodes[1].child.wait().unwrap();
    assert!(!status.success(), "killed, not stopped: {status}");
    assert!(acknowledged.len() > 100, "only {} orders placed", acknowledged.len());

    // The two live nodes fill what the dead one left open.
    runtime.block_on(crate::common::wait_until_none_open(&clients[0], &account));
    let committed = runtime.block_on(committed_events(&url, &account));
    let deadline = Instant::now() + Duration::from_secs(10);
    while received.lock().len() < committed.len() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut got = received.lock().clone();
    let sent = got.len();
    got.sort();
    got.dedup();
    assert_eq!(got.len(), sent, "each event is received once");
    assert_eq!(
        got, committed,
        "the subscriber received every event committed, and no other"
    );
    eprintln!("{} order events received", committed.len());

    let survivors: Vec<Serving> = [2, 0].into_iter().map(|i| nodes.remove(i)).collect();
    for node in survivors {
        stop(node);
    }
    let ended = runtime.block_on(subscriber).unwrap();
    assert!(
        ended.contains("Unavailable"),
        "SIGTERM ends the stream with UNAVAILABLE: {ended}"
    );

    runtime.block_on(async {
        let database = signet_server::Database::open(
            &Location::Postgres { url: url.clone() },
            Some(&secrecy::SecretString::from(MASTER_KEY)),
            None,
        )
        .await
        .unwrap();
        crate::common::assert_bought_once(&database, &account, &acknowledged, WORKERS, Decimal::from(10_000_000)).await;
    });
}

/// The ids of the order events of `account` that a subscriber receives, in text order.
async fn committed_events(url: &str, account: &str) -> Vec<String> {
    let mut db = <sqlx::PgConnection as sqlx::Connection>::connect(url).await.unwrap();
    let ids: Vec<i64> = sqlx::query_scalar(
        "SELECT e.id FROM order_events e JOIN orders o ON o.order_id = e.order_id
         WHERE o.account_id = $1 AND e.payload IS NOT NULL",
    )
    .bind(account)
    .fetch_all(&mut db)
    .await
    .unwrap();
    let mut ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    ids.sort();
    ids
}
