//! Checkpoints of the whole sandbox (`/admin/checkpoints/...`, `signet checkpoint`): saved,
//! changed, restored while the server runs, and compared with what was saved.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};
use signet_client::Client;
use signet_model::ErrorCode;

use crate::common::{TestServer, market_buy, place, rows, send};

/// Everything a client sees of the sandbox: both accounts (balance, positions, orders,
/// executions, activities), the app's watchlists, the clock, a pinned and a free quote, and the
/// scenario rules in force.
async fn everything(server: &TestServer, client: &Client, ops: &Client) -> Value {
    let mut state = serde_json::Map::new();
    for account in &server.app.account_ids {
        for path in [
            "/trading/assets/balances/get",
            "/trading/assets/positions/list",
            "/trading/orders/open-orders/list",
            "/trading/orders/historical-orders/list",
            "/trading/orders/executions/list",
            "/trading/activities/cash-activities/list",
        ] {
            let mut query = vec![("account_id", account.as_str())];
            if path.contains("/orders/") || path.contains("/activities/") {
                query.push(("page_size", "100"));
            }
            let answer: Value = client.get(path, &query).await.unwrap();
            state.insert(format!("{account} {path}"), answer);
        }
    }
    let watchlists = client.watchlists().list().await.unwrap();
    state.insert("watchlists".into(), serde_json::to_value(&watchlists).unwrap());
    for watchlist in &watchlists {
        let items = client.watchlists().instruments(&watchlist.watchlist_id).await.unwrap();
        state.insert(
            format!("watchlist {}", watchlist.watchlist_id),
            serde_json::to_value(items).unwrap(),
        );
    }
    let market = ops.market();
    state.insert(
        "clock".into(),
        serde_json::to_value(market.clock().await.unwrap()).unwrap(),
    );
    for symbol in ["AAPL", "MSFT"] {
        state.insert(
            format!("quote {symbol}"),
            serde_json::to_value(market.quote(symbol).await.unwrap()).unwrap(),
        );
    }
    let mut scenarios = serde_json::to_value(ops.scenarios().list().await.unwrap()).unwrap();
    // When the rules were loaded is the wall clock's; the restore keeps it as saved, but a
    // rule's hits move with every request they see.
    scenarios["changed"] = Value::Null;
    state.insert("scenarios".into(), scenarios);
    Value::Object(state)
}

fn limit_buy(account: &str, id: &str, price: &str) -> Value {
    let mut body = market_buy(account, id, "AAPL");
    body["new_orders"][0]["order_type"] = json!("LIMIT");
    body["new_orders"][0]["limit_price"] = json!(price);
    body["new_orders"][0]["time_in_force"] = json!("GTC");
    body
}

const RULES: &str = r#"
[[rule]]
name = "big"
when = { path = "/trading/orders/place", min_quantity = 1001 }
then = { reject = "INSUFFICIENT_BUYING_POWER", message = "too big for this test" }
"#;

#[tokio::test]
async fn a_restore_puts_back_everything_saved_and_keeps_used_nonces_used() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let (first, second) = (&server.app.account_ids[0], &server.app.account_ids[1]);
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(10_000))
        .await
        .unwrap();
    ops.scenarios().load(RULES).await.unwrap();
    assert_eq!(place(&client, market_buy(first, "bought", "AAPL")).await.status, 200);
    assert_eq!(place(&client, limit_buy(second, "resting", "300")).await.status, 200);
    let watchlist = client.watchlists().create("before", None).await.unwrap();
    ops.market().step(5).await.unwrap();
    // A request whose nonce is used before the save.
    let used = client
        .prepare(
            reqwest::Method::GET,
            "/trading/assets/balances/get",
            &[("account_id", first)],
            None,
        )
        .unwrap();
    assert_eq!(send(used.clone()).await.status, 200);

    let saved = ops.checkpoints().save("base").await.unwrap();
    assert_eq!((saved.name.as_str(), saved.orders), ("base", 2), "{saved:?}");
    let before = everything(&server, &client, &ops).await;

    // Change everything: orders, fills, a cancel, the watchlists, the pin, the clock, the rules,
    // and one account started over.
    assert_eq!(place(&client, market_buy(second, "after", "AAPL")).await.status, 200);
    assert_eq!(place(&client, limit_buy(first, "also-after", "390")).await.status, 200);
    ops.market().set("AAPL", "380.00", None, None, None).await.unwrap();
    ops.market().step(3600).await.unwrap();
    client.watchlists().delete(&watchlist.watchlist_id).await.unwrap();
    client.watchlists().create("after", None).await.unwrap();
    ops.scenarios().clear().await.unwrap();
    ops.accounts().reset(first, Some("1")).await.unwrap();
    let changed = everything(&server, &client, &ops).await;
    assert_ne!(changed, before);

    let restored = ops.checkpoints().restore("base").await.unwrap();
    assert_eq!(restored.checkpoint.name, "base");
    let after = everything(&server, &client, &ops).await;
    assert_eq!(after, before, "the state after the restore is the state saved");

    // A used nonce stays used; the ids used after the save are free again.
    let replayed = send(used).await;
    assert_eq!(
        replayed.error().error_code,
        ErrorCode::DuplicatedRequest.as_str(),
        "{}",
        replayed.body
    );
    assert_eq!(place(&client, market_buy(second, "after", "AAPL")).await.status, 200);
    // The engine trades from the restored state: the order fills at the pinned price.
    ops.market().step(1).await.unwrap();
    let history: Value = client
        .get(
            "/trading/orders/historical-orders/list",
            &[("account_id", second), ("page_size", "10")],
        )
        .await
        .unwrap();
    let filled = rows(&history)
        .iter()
        .find(|o| o["client_order_id"] == "after")
        .unwrap_or_else(|| panic!("{history}"));
    assert_eq!(filled["orders"][0]["status"], "FILLED", "{filled}");

    // The list, a delete, and the refusals.
    let list = ops.checkpoints().list().await.unwrap();
    assert_eq!(list.checkpoints.len(), 1);
    assert_eq!(list.checkpoints[0].market_time, saved.market_time);
    assert!(list.checkpoints[0].bytes > 0);
    for bad in ["", "../x", "a b"] {
        let refused = ops.checkpoints().save(bad).await.unwrap_err();
        assert_eq!(refused.code(), Some(ErrorCode::IllegalParameter), "{bad:?}: {refused}");
    }
    let missing = ops.checkpoints().restore("nothing").await.unwrap_err();
    assert_eq!(missing.code(), Some(ErrorCode::NotFound), "{missing}");
    let not_admin = client.checkpoints().save("mine").await.unwrap_err();
    assert_eq!(not_admin.code(), Some(ErrorCode::PermissionDenied), "{not_admin}");
    ops.checkpoints().delete("base").await.unwrap();
    assert!(ops.checkpoints().list().await.unwrap().checkpoints.is_empty());
    let gone = ops.checkpoints().delete("base").await.unwrap_err();
    assert_eq!(gone.code(), Some(ErrorCode::NotFound), "{gone}");
}

/// While a restore runs, every other call is answered at once with 503 `RESTORING` and a
/// `Retry-After`, or served wholly before or after it: never a failure, never a half state.
#[tokio::test]
async fn calls_during_a_restore_are_refused_with_restoring_or_served_whole() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = server.app.account_ids[1].clone();
    ops.checkpoints().save("empty").await.unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let served_before = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let callers: Vec<_> = (0..4)
        .map(|caller| {
            let (client, account, done) = (client.clone(), account.clone(), done.clone());
            let served_before = served_before.clone();
            tokio::spawn(async move {
                let (mut served, mut refused) = (0, 0);
                let mut i = 0;
                while !done.load(Ordering::SeqCst) {
                    i += 1;
                    let mut body = market_buy(&account, &format!("c{caller}-{i}"), "AAPL");
                    body["new_orders"][0]["quantity"] = json!("1");
                    let answer = place(&client, body).await;
                    match answer.status.as_u16() {
                        200 => {
                            served += 1;
                            served_before.fetch_add(1, Ordering::SeqCst);
                        }
                        503 => {
                            assert_eq!(answer.error().error_code, "RESTORING", "{}", answer.body);
                            assert_eq!(answer.headers["retry-after"], "1");
                            refused += 1;
                        }
                        other => panic!("{other}: {}", answer.body),
                    }
                }
                (served, refused)
            })
        })
        .collect();
    // The callers are placing: four placements served before the first restore.
    let started = std::time::Instant::now();
    while served_before.load(Ordering::SeqCst) < 4 {
        assert!(started.elapsed() < crate::common::LATE, "no placement served");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let mut restoring_ms = Vec::new();
    for _ in 0..5 {
        restoring_ms.push(ops.checkpoints().restore("empty").await.unwrap().restoring_ms);
    }
    done.store(true, Ordering::SeqCst);
    let (mut served, mut refused) = (0, 0);
    for caller in callers {
        let (s, r) = caller.await.unwrap();
        served += s;
        refused += r;
    }
    eprintln!("{served} placements served, {refused} refused RESTORING; restores took {restoring_ms:?} ms");
    assert!(served > 0);
    // The last restore left no order: those served after it are the only ones.
    let open: Value = client
        .get(
            "/trading/orders/historical-orders/list",
            &[("account_id", account.as_str()), ("page_size", "100")],
        )
        .await
        .unwrap();
    assert!(rows(&open).len() <= served, "{open}");
}

/// A checkpoint whose tables do not hold what it recorded is refused, and nothing changes.
#[tokio::test]
async fn a_damaged_checkpoint_is_refused_and_nothing_changes() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = &server.app.account_ids[0];
    assert_eq!(place(&client, market_buy(account, "one", "AAPL")).await.status, 200);
    ops.checkpoints().save("damaged").await.unwrap();
    assert_eq!(place(&client, market_buy(account, "two", "AAPL")).await.status, 200);
    let before = everything(&server, &client, &ops).await;
    match &server.location {
        signet_server::database::Location::Sqlite { path, .. } => {
            let file = path.with_file_name("signet.checkpoints").join("damaged.checkpoint");
            let mut bytes = std::fs::read(&file).unwrap();
            let middle = bytes.len() / 2;
            let end = (middle + 4096).min(bytes.len());
            bytes[middle..end].fill(0x5a);
            std::fs::write(&file, bytes).unwrap();
        }
        signet_server::database::Location::Postgres { url } => {
            let mut db = <sqlx::PgConnection as sqlx::Connection>::connect(url).await.unwrap();
            sqlx::query(r#"DELETE FROM "checkpoint_damaged".orders"#)
                .execute(&mut db)
                .await
                .unwrap();
        }
    }
    let refused = ops.checkpoints().restore("damaged").await.unwrap_err();
    assert_eq!(refused.code(), Some(ErrorCode::CheckpointUnusable), "{refused}");
    assert!(refused.to_string().contains("nothing was changed"), "{refused}");
    assert_eq!(everything(&server, &client, &ops).await, before);
}

/// Runs `statements` on the checkpoint `name` itself, each with `{s}` naming where its tables
/// are: in its file, with SQLite, or in its schema.
async fn tamper(server: &TestServer, name: &str, statements: &[&str]) {
    match &server.location {
        signet_server::database::Location::Sqlite { path, .. } => {
            let file = path
                .with_file_name("signet.checkpoints")
                .join(format!("{name}.checkpoint"));
            let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&file);
            let mut db = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
                .await
                .unwrap();
            for statement in statements {
                let changed = sqlx::raw_sql(sqlx::AssertSqlSafe(statement.replace("{s}", "")))
                    .execute(&mut db)
                    .await
                    .unwrap();
                assert!(changed.rows_affected() > 0, "{statement}");
            }
        }
        signet_server::database::Location::Postgres { url } => {
            let mut db = <sqlx::PgConnection as sqlx::Connection>::connect(url).await.unwrap();
            for statement in statements {
                let statement = statement.replace("{s}", &format!(r#""checkpoint_{name}"."#));
                let changed = sqlx::raw_sql(sqlx::AssertSqlSafe(statement.clone()))
                    .execute(&mut db)
                    .await
                    .unwrap();
                assert!(changed.rows_affected() > 0, "{statement}");
            }
        }
    }
}

/// Sets what the checkpoint `name` records of the market to `market`.
async fn tamper_market(server: &TestServer, name: &str, market: &str) {
    let market = market.replace('\'', "''");
    tamper(
        server,
        name,
        &[&format!("UPDATE {{s}}checkpoint_info SET market = '{market}'")],
    )
    .await;
}

/// A checkpoint is sealed under the master key: one changed after its save (a balance, an app
/// made admin, the key's fingerprint or the seal removed) is refused and nothing changes, until
/// an operator adopts it (not one whose fingerprint is gone: its secrets may be sealed under
/// another key). Its folder and files are the server's user's alone.
#[tokio::test]
async fn a_checkpoint_changed_after_its_save_is_refused_until_adopted() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = &server.app.account_ids[0];
    assert_eq!(place(&client, market_buy(account, "one", "AAPL")).await.status, 200);
    ops.checkpoints().save("sealed").await.unwrap();
    #[cfg(unix)]
    if let signet_server::database::Location::Sqlite { path, .. } = &server.location {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = path.with_file_name("signet.checkpoints");
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("sealed.checkpoint")), 0o600);
    }
    assert_eq!(place(&client, market_buy(account, "two", "AAPL")).await.status, 200);
    ops.checkpoints().save("before").await.unwrap();
    let before = everything(&server, &client, &ops).await;
    for (what, statement, adoptable) in [
        ("a balance", "UPDATE {s}accounts SET cash = '99999999'", true),
        (
            "an app made admin",
            "UPDATE {s}apps SET admin = TRUE WHERE NOT admin",
            true,
        ),
        ("an order grown", "UPDATE {s}orders SET quantity = '1000'", true),
        (
            "the key's fingerprint gone",
            "UPDATE {s}checkpoint_info SET key_fingerprint = NULL",
            false,
        ),
        ("the seal gone", "UPDATE {s}checkpoint_info SET seal = NULL", true),
    ] {
        ops.checkpoints().save("sealed").await.unwrap();
        tamper(&server, "sealed", &[statement]).await;
        let refused = ops.checkpoints().restore("sealed").await.unwrap_err();
        assert_eq!(refused.code(), Some(ErrorCode::CheckpointUnusable), "{what}: {refused}");
        assert!(refused.to_string().contains("nothing was changed"), "{what}: {refused}");
        eprintln!("{what}: {refused}");
        assert_eq!(everything(&server, &client, &ops).await, before, "{what}");
        let adopted = ops.checkpoints().adopt("sealed").await;
        if adoptable {
            adopted.unwrap();
            ops.checkpoints().restore("sealed").await.unwrap();
            ops.checkpoints().restore("before").await.unwrap();
        } else {
            let refused = adopted.unwrap_err();
            assert_eq!(refused.code(), Some(ErrorCode::CheckpointUnusable), "{what}: {refused}");
        }
    }
    // A trigger slipped into a file would run when a migration changes its tables: the file's
    // schema is sealed too.
    if matches!(server.location, signet_server::database::Location::Sqlite { .. }) {
        ops.checkpoints().save("sealed").await.unwrap();
        let file = match &server.location {
            signet_server::database::Location::Sqlite { path, .. } => {
                path.with_file_name("signet.checkpoints").join("sealed.checkpoint")
            }
            signet_server::database::Location::Postgres { .. } => unreachable!(),
        };
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&file);
        let mut db = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
            .await
            .unwrap();
        sqlx::raw_sql("CREATE TRIGGER promote AFTER UPDATE ON orders BEGIN UPDATE apps SET admin = 1; END")
            .execute(&mut db)
            .await
            .unwrap();
        drop(db);
        let refused = ops.checkpoints().restore("sealed").await.unwrap_err();
        assert!(refused.to_string().contains("seal does not verify"), "{refused}");
    }
    // An adopted change is restored as it is: the operator asked for it.
    ops.checkpoints().save("sealed").await.unwrap();
    tamper(&server, "sealed", &["UPDATE {s}accounts SET cash = '123456.78'"]).await;
    ops.checkpoints().adopt("sealed").await.unwrap();
    ops.checkpoints().restore("sealed").await.unwrap();
    let balance: Value = client
        .get("/trading/assets/balances/get", &[("account_id", account.as_str())])
        .await
        .unwrap();
    assert!(balance.to_string().contains("123456.78"), "{balance}");
    let missing = ops.checkpoints().adopt("nowhere").await.unwrap_err();
    assert_eq!(missing.code(), Some(ErrorCode::NotFound), "{missing}");
}

/// A checkpoint whose market state the simulator would not take (a clock speed of -5 or 1e300, a
/// time far beyond the calendar, a crossed pin) is refused before anything changes: the tables
/// were put back and committed before, then every tick of the market panicked and the clock,
/// the quotes and the orders answered 500.
#[tokio::test]
async fn a_checkpoint_whose_market_is_out_of_range_is_refused_and_nothing_changes() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = &server.app.account_ids[0];
    assert_eq!(place(&client, market_buy(account, "one", "AAPL")).await.status, 200);
    ops.checkpoints().save("bad-market").await.unwrap();
    assert_eq!(place(&client, market_buy(account, "two", "AAPL")).await.status, 200);
    ops.market().step(60).await.unwrap();
    let before = everything(&server, &client, &ops).await;
    let pin = r#"{"last": "100", "bid": "101", "ask": "99", "size": 100}"#;
    for market in [
        r#"{"now_ms": 1361889000000, "clock": {"mode": "RUNNING", "speed": -5.0}, "seed": 1, "pins": []}"#.to_owned(),
        r#"{"now_ms": 1361889000000, "clock": {"mode": "RUNNING", "speed": 1e300}, "seed": 1, "pins": []}"#.to_owned(),
        r#"{"now_ms": 9000000000000000000, "clock": {"mode": "MANUAL"}, "seed": 1, "pins": []}"#.to_owned(),
        format!(r#"{{"now_ms": 1361889000000, "clock": {{"mode": "MANUAL"}}, "seed": 1, "pins": [["AAPL", {pin}]]}}"#),
    ] {
        tamper_market(&server, "bad-market", &market).await;
        let refused = ops.checkpoints().restore("bad-market").await.unwrap_err();
        assert_eq!(
            refused.code(),
            Some(ErrorCode::CheckpointUnusable),
            "{market}: {refused}"
        );
        assert!(refused.to_string().contains("nothing was changed"), "{refused}");
        assert!(refused.to_string().contains("market state"), "{refused}");
        assert_eq!(everything(&server, &client, &ops).await, before, "{market}");
    }
    // The market goes on, and so do the orders.
    ops.market().step(60).await.unwrap();
    assert_eq!(place(&client, market_buy(account, "three", "AAPL")).await.status, 200);
}

/// Save, revoke an app, restore: the revoked key stays refused (the restore brought it back, and
/// with it every caller that had its secret).
#[tokio::test]
async fn an_app_revoked_after_the_save_stays_revoked_after_the_restore() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    client.accounts().list().await.unwrap();
    ops.checkpoints().save("before-revoking").await.unwrap();
    server.admin().revoke_app(&server.app.app_key).await.unwrap();
    ops.checkpoints().restore("before-revoking").await.unwrap();
    let refused = client.accounts().list().await.unwrap_err();
    assert_eq!(refused.code(), Some(ErrorCode::Unauthorized), "{refused}");
    // The operator's app, active at the save, still is; the revoked one is stored revoked.
    assert_eq!(ops.checkpoints().list().await.unwrap().checkpoints.len(), 1);
    let apps = server.admin().apps().await.unwrap();
    let revoked = apps.iter().find(|a| a.app_key == server.app.app_key).unwrap();
    assert_eq!(revoked.status, signet_store::AppStatus::Revoked);
}

/// An answer without what differs from run to run: order ids (drawn at random) and wall-clock
/// times.
fn comparable(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(key, _)| {
                    let drawn_id = key.ends_with("order_id") && key.as_str() != "client_order_id";
                    !drawn_id && !key.contains("time")
                })
                .map(|(key, v)| (key.clone(), comparable(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(comparable).collect()),
        other => other.clone(),
    }
}

/// One run of placements, a cancel and clock steps on the simulated market: every answer, then
/// both accounts' orders, executions, balance and positions, and each order's recorded events.
async fn one_run(server: &TestServer, client: &Client, ops: &Client) -> Vec<Value> {
    let (first, second) = (&server.app.account_ids[0], &server.app.account_ids[1]);
    let mut seen = Vec::new();
    let mut record = |answer: crate::common::Answer| {
        seen.push(json!([answer.status.as_u16(), comparable(&answer.body)]));
    };
    record(place(client, market_buy(first, "buy", "AAPL")).await);
    let mut resting = limit_buy(second, "resting", "1");
    resting["new_orders"][0]["symbol"] = json!("MSFT");
    record(place(client, resting).await);
    let mut dip = limit_buy(second, "dip", "0");
    dip["new_orders"][0]["quantity"] = json!("3");
    record(place(client, dip).await);
    ops.market().step(90).await.unwrap();
    let mut sell = market_buy(first, "sell", "AAPL");
    sell["new_orders"][0]["side"] = json!("SELL");
    sell["new_orders"][0]["quantity"] = json!("4");
    record(place(client, sell).await);
    ops.market().step(1800).await.unwrap();
    let cancel = json!({"account_id": second, "client_order_id": "resting"});
    record(
        send(
            client
                .prepare(
                    reqwest::Method::POST,
                    "/trading/orders/cancel",
                    &[],
                    Some(serde_json::to_vec(&cancel).unwrap()),
                )
                .unwrap(),
        )
        .await,
    );
    ops.market().step(3600).await.unwrap();
    for account in [first, second] {
        for path in [
            "/trading/orders/historical-orders/list",
            "/trading/orders/executions/list",
            "/trading/assets/balances/get",
            "/trading/assets/positions/list",
        ] {
            let answer: Value = client
                .get(path, &[("account_id", account.as_str()), ("page_size", "100")])
                .await
                .unwrap();
            seen.push(comparable(&answer));
            if path.contains("historical") {
                for order in rows(&answer) {
                    for leg in order["orders"].as_array().into_iter().flatten() {
                        let id = leg["order_id"].as_str().unwrap();
                        seen.push(json!([leg["client_order_id"], server.order_events(id).await]));
                    }
                }
            }
        }
    }
    seen
}

/// Two runs from one checkpoint on the manual clock meet the same market: the same answers, the
/// same fills at the same prices, the same events.
#[tokio::test]
async fn two_runs_from_one_checkpoint_give_the_same_answers() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    ops.checkpoints().save("start").await.unwrap();
    let first = one_run(&server, &client, &ops).await;
    ops.checkpoints().restore("start").await.unwrap();
    let second = one_run(&server, &client, &ops).await;
    assert!(first.len() > 10, "{first:?}");
    let fills = first.iter().filter(|v| v.to_string().contains("filled_price")).count();
    assert!(fills > 0, "something filled: {first:?}");
    for (n, (a, b)) in first.iter().zip(&second).enumerate() {
        assert_eq!(a, b, "answer {n} differs");
    }
    assert_eq!(first.len(), second.len());
}

/// A checkpoint saved by a build before the orders had their fill plans (migration step 16) is
/// brought to this build's schema when restored: on SQLite by running the step on its file, on
/// PostgreSQL by the columns its tables share with today's.
#[tokio::test]
async fn a_checkpoint_of_an_older_build_is_migrated_as_it_is_restored() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let (first, second) = (&server.app.account_ids[0], &server.app.account_ids[1]);
    assert_eq!(place(&client, market_buy(first, "filled", "AAPL")).await.status, 200);
    assert_eq!(place(&client, limit_buy(second, "resting", "300")).await.status, 200);
    ops.market().step(5).await.unwrap();
    ops.checkpoints().save("old").await.unwrap();
    let saved = everything(&server, &client, &ops).await;
    // As the build before step 16 would have saved it: without what steps 16 to 20 added (17's
    // positions without their reference to `instruments` stay as they are: the step makes them
    // again).
    let older = [
        "DROP TABLE {settlements}",
        "UPDATE {info} SET counts = REPLACE(counts, ',option_settlements=0', '')",
        "ALTER TABLE {fills} DROP COLUMN side",
        "ALTER TABLE {fills} DROP COLUMN instrument_id",
        "ALTER TABLE {orders} DROP COLUMN legs",
        "ALTER TABLE {orders} DROP COLUMN position_intent",
        "ALTER TABLE {orders} DROP COLUMN option_contract_id",
        "ALTER TABLE {orders} DROP COLUMN fill_plan",
        "ALTER TABLE {orders} DROP COLUMN filled_at_sim",
        "UPDATE {info} SET schema_version = 15",
        // Before checkpoints were sealed.
        "ALTER TABLE {info} DROP COLUMN seal",
    ];
    match &server.location {
        signet_server::database::Location::Sqlite { path, .. } => {
            let file = path.with_file_name("signet.checkpoints").join("old.checkpoint");
            let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&file);
            let mut db = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
                .await
                .unwrap();
            for statement in older.iter().map(|s| {
                s.replace("{orders}", "orders")
                    .replace("{fills}", "fills")
                    .replace("{info}", "checkpoint_info")
                    .replace("{settlements}", "option_settlements")
            }) {
                sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                    .execute(&mut db)
                    .await
                    .unwrap();
            }
            sqlx::raw_sql("DELETE FROM _sqlx_migrations WHERE version >= 16")
                .execute(&mut db)
                .await
                .unwrap();
        }
        signet_server::database::Location::Postgres { url } => {
            let mut db = <sqlx::PgConnection as sqlx::Connection>::connect(url).await.unwrap();
            for statement in older.iter().map(|s| {
                s.replace("{orders}", r#""checkpoint_old".orders"#)
                    .replace("{fills}", r#""checkpoint_old".fills"#)
                    .replace("{info}", r#""checkpoint_old".checkpoint_info"#)
                    .replace("{settlements}", r#""checkpoint_old".option_settlements"#)
            }) {
                sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                    .execute(&mut db)
                    .await
                    .unwrap();
            }
        }
    }
    // Unsealed, it is refused until an operator adopts it.
    let refused = ops.checkpoints().restore("old").await.unwrap_err();
    assert!(refused.to_string().contains("it is not sealed"), "{refused}");
    ops.checkpoints().adopt("old").await.unwrap();
    assert_eq!(place(&client, market_buy(second, "after", "AAPL")).await.status, 200);
    let restored = ops.checkpoints().restore("old").await.unwrap();
    assert_eq!(restored.checkpoint.name, "old");
    assert_eq!(everything(&server, &client, &ops).await, saved);
    // Migrated, its file was sealed again: it restores again.
    ops.checkpoints().restore("old").await.unwrap();
    assert_eq!(everything(&server, &client, &ops).await, saved);
    if let signet_server::database::Location::Sqlite { path, .. } = &server.location {
        let file = path.with_file_name("signet.checkpoints").join("old.checkpoint");
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&file)
            .read_only(true);
        let mut db = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
            .await
            .unwrap();
        let steps: i64 = sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
            .fetch_one(&mut db)
            .await
            .unwrap();
        let latest = *signet_store::sql::migrate::versions().last().unwrap();
        assert_eq!(steps, latest, "the file was migrated");
        sqlx::query("SELECT fill_plan, filled_at_sim, option_contract_id, position_intent, legs FROM orders")
            .execute(&mut db)
            .await
            .unwrap();
    }
    // The resting order still trades after the restore.
    ops.market()
        .set("AAPL", "299.00", Some("298.99"), Some("299.01"), None)
        .await
        .unwrap();
    ops.market().step(1).await.unwrap();
    let history: Value = client
        .get(
            "/trading/orders/historical-orders/list",
            &[("account_id", second.as_str()), ("page_size", "10")],
        )
        .await
        .unwrap();
    let resting = rows(&history)
        .iter()
        .find(|o| o["client_order_id"] == "resting")
        .unwrap_or_else(|| panic!("{history}"));
    assert_eq!(resting["orders"][0]["status"], "FILLED", "{resting}");
}

/// Sends `head` and all of `body` but its last byte: a caller that sends slowly.
async fn sending_slowly(server: &TestServer, head: String, body: &[u8]) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt as _;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body[..body.len() - 1]).await.unwrap();
    stream
}

/// Sends the last byte of `body` and reads the answer to its end.
async fn finish(mut stream: tokio::net::TcpStream, body: &[u8]) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    stream.write_all(&body[body.len() - 1..]).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(crate::common::LATE, stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// A caller holds no restore up by sending slowly, signed or not (the gate is passed once a
/// call is authenticated and its body read: before, one such caller closed the server to
/// everyone for 29 s); and a call inside the gate that takes long is cut short with 503
/// `RESTORING` after the grace, not waited for.
#[tokio::test]
async fn a_caller_sending_slowly_holds_no_restore_and_a_slow_call_is_cut_short() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = &server.app.account_ids[0];
    ops.checkpoints().save("base").await.unwrap();

    // A signed placement and an unsigned gRPC subscription over HTTP/1.1, each one byte short.
    let host = server.addr.to_string();
    let order = serde_json::to_vec(&market_buy(account, "slow", "AAPL")).unwrap();
    let path = "/trading/orders/place";
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n",
        order.len()
    );
    for (name, value) in crate::common::sign_exactly(&server, &host, path, "", &order) {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let signed = sending_slowly(&server, head, &order).await;
    let frame = [0u8, 0, 0, 0, 4, 1, 2, 3, 4];
    let unsigned = sending_slowly(
        &server,
        format!(
            "POST {} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/grpc\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
            signet_model::events::SUBSCRIBE_PATH,
            frame.len()
        ),
        &frame,
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let started = std::time::Instant::now();
    let restored = ops.checkpoints().restore("base").await.unwrap();
    let took = started.elapsed();
    eprintln!(
        "restore beside two slow senders: gate closed {} ms, call answered in {took:?}",
        restored.restoring_ms
    );
    assert!(took < crate::common::LATE, "{took:?}");
    let (signed, unsigned) = (finish(signed, &order).await, finish(unsigned, &frame).await);
    assert!(signed.starts_with("HTTP/1.1 200"), "{signed}");
    assert!(
        !unsigned.contains("RESTORING") && !unsigned.starts_with("HTTP/1.1 503"),
        "{unsigned}"
    );

    // A call inside the gate that a scenario holds for 30 s.
    ops.scenarios()
        .load("[[rule]]\nname = \"held\"\nwhen = { path_prefix = \"/market-data/stocks/\" }\nthen = { delay_ms = 30000 }\n")
        .await
        .unwrap();
    let held = tokio::spawn({
        let client = client.clone();
        async move {
            let started = std::time::Instant::now();
            let request = client
                .prepare(
                    reqwest::Method::GET,
                    "/market-data/stocks/snapshots/list",
                    &[("symbols", "AAPL")],
                    None,
                )
                .unwrap();
            (send(request).await, started.elapsed())
        }
    });
    let waiting = std::time::Instant::now();
    while ops.scenarios().list().await.unwrap().rules[0].hits == 0 {
        assert!(waiting.elapsed() < crate::common::LATE, "the held call never arrived");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let restoring = tokio::spawn({
        let ops = server.ops().await;
        async move { ops.checkpoints().restore("base").await.unwrap() }
    });
    // While the restore waits for the held call, the gate is closed: a call is refused, and a
    // subscription ends with UNAVAILABLE alone (which the official client retries), no AuthError.
    let closing = std::time::Instant::now();
    loop {
        let probe = client
            .prepare(reqwest::Method::GET, "/trading/accounts/list", &[], None)
            .unwrap();
        if send(probe).await.status == 503 {
            break;
        }
        assert!(closing.elapsed() < crate::common::LATE, "the gate never closed");
    }
    let secret = secrecy::ExposeSecret::expose_secret(&server.app.app_secret).to_owned();
    let nonce = crate::events::nonce();
    let host = server.addr.to_string();
    let mut refused = crate::events::subscribe_with(&host, &server.app.app_key, &secret, &[], &nonce)
        .await
        .expect("the refusal is streamed");
    let status = crate::events::next(&mut refused)
        .await
        .expect_err("no message, the status");
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
    assert!(status.message().contains("RESTORING"), "{status:?}");
    let restored = restoring.await.unwrap();
    let (answer, held_for) = held.await.unwrap();
    eprintln!(
        "restore beside a held call: gate closed {} ms, the call answered after {held_for:?}",
        restored.restoring_ms
    );
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert_eq!(answer.error().error_code, "RESTORING", "{}", answer.body);
    assert!(
        answer.error().message.contains("cut this call short"),
        "{}",
        answer.body
    );
    // The restore waited the grace for it, and no longer than the call would have taken.
    assert!(restored.restoring_ms >= 2000, "{}", restored.restoring_ms);
    assert!(held_for < std::time::Duration::from_secs(25), "{held_for:?}");
    // The server serves on.
    assert_eq!(place(&client, market_buy(account, "after", "AAPL")).await.status, 200);
}
