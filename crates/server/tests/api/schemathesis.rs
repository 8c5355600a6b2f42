//! Schemathesis (PyPI) against a real server with the demo's real prices: every operation of
//! `/openapi.json`, each request signed by `tests/python/schemathesis_hooks.py`. No answer may be
//! a 5xx, and every answer must conform to the document (status, content type, headers, body).
//!
//! Needs `SIGNET_SCHEMATHESIS`, a python with schemathesis installed (`scripts/test.sh` sets it);
//! without it the test is skipped, unless `SIGNET_REQUIRE_INTEROP=1`.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rust_decimal::Decimal;
use secrecy::ExposeSecret;
use serde_json::json;
use signet_import::{Progress, import_file};
use signet_model::orders::OrderAck;
use signet_model::watchlists::Watchlist;
use signet_server::generations::compat::Compat;
use signet_store::refresh_snapshots;

use crate::common::TestServer;

/// Runs `command` to its end (killed after `limit`), while the server answers it: its exit
/// status, standard output and standard error.
async fn run(mut command: std::process::Command, limit: Duration) -> (std::process::ExitStatus, String, String) {
    let mut child = command.spawn().expect("schemathesis starts");
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().expect("stdout")));
    let stderr = read(Box::new(child.stderr.take().expect("stderr")));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for schemathesis") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("schemathesis did not finish within {limit:?}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    (
        status,
        stdout.join().unwrap_or_default(),
        stderr.join().unwrap_or_default(),
    )
}

fn python() -> Option<String> {
    crate::common::interpreter("SIGNET_SCHEMATHESIS")
}

/// Examples per operation and phase: enough to reach every documented answer of the 63
/// operations in about a minute on two cores.
const MAX_EXAMPLES: &str = "12";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_no_server_error_and_no_answer_outside_the_document() {
    let Some(python) = python() else { return };
    // With --compat legacy, so that the legacy operations of the document answer too.
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| c.compat = Compat::Legacy).await;
    // The demo's companies too (names, exchanges, sectors), so that the sector calls have sectors.
    let companies = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/demo/us_listed_companies.csv");
    let store = server.database.store.clone();
    import_file(
        store.clone(),
        &companies,
        &Default::default(),
        Arc::new(Progress::default()),
    )
    .await
    .expect("companies");
    refresh_snapshots(store.as_ref(), None).await.expect("snapshots");
    let server = server.restart().await;
    let client = server.client();
    let ops = server
        .admin()
        .create_app_with_role("schemathesis ops", Decimal::ZERO, true)
        .await
        .expect("an admin app");
    crate::common::record_secret(ops.app_secret.expose_secret());
    // Something for the generated requests to find: an open order and a watchlist.
    let account = &server.app.account_ids[0];
    let order: OrderAck = client
        .post(
            "/trading/orders/place",
            &json!({"account_id": account, "new_orders": [{
                "client_order_id": "schemathesis-1", "combo_type": "NORMAL", "instrument_type": "EQUITY",
                "market": "US", "symbol": "AAPL", "side": "BUY", "order_type": "LIMIT", "time_in_force": "GTC",
                "entrust_type": "QTY", "quantity": "1", "limit_price": "100", "support_trading_session": "CORE",
            }]}),
        )
        .await
        .expect("an order");
    let watchlist: Watchlist = client
        .post("/market-data/watchlists/create", &json!({"name": "schemathesis"}))
        .await
        .expect("a watchlist");

    let dir = tempfile::tempdir().expect("a directory");
    let stats_path = dir.path().join("stats.json");
    let hooks = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/schemathesis_hooks.py");
    let started = Instant::now();
    let mut command = std::process::Command::new(&python);
    command
        .args(["-m", "schemathesis.cli", "run"])
        .arg(server.url("/openapi.json"))
        .args([
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance",
            "--phases",
            "examples,coverage,fuzzing",
            "--max-examples",
            MAX_EXAMPLES,
            "--seed",
            "2013",
            // One worker: with two, schemathesis parses lambdas' source in two threads at once, and
            // CPython 3.11's AST constructor is not thread-safe (cpython#106905: "AST constructor
            // recursion depth mismatch"), which failed a CI run with no fault of the server's.
            "--workers",
            "1",
            "--generation-database",
            "none",
            "--suppress-health-check",
            "all",
            "--request-timeout",
            "30",
            "--no-color",
        ])
        .current_dir(dir.path())
        .env("SCHEMATHESIS_HOOKS", hooks)
        .env("SIGNET_APP_KEY", &server.app.app_key)
        .env("SIGNET_APP_SECRET", server.app.app_secret.expose_secret())
        .env("SIGNET_ADMIN_KEY", &ops.app_key)
        .env("SIGNET_ADMIN_SECRET", ops.app_secret.expose_secret())
        .env("SIGNET_ACCOUNT_IDS", server.app.account_ids.join(","))
        .env("SIGNET_CLIENT_ORDER_ID", &order.client_order_id)
        .env("SIGNET_WATCHLIST_ID", &watchlist.watchlist_id)
        .env("SIGNET_SCHEMATHESIS_STATS", &stats_path)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (status, stdout, stderr) = run(command, Duration::from_secs(600)).await;
    let elapsed = started.elapsed();
    let tail: String = {
        let lines: Vec<&str> = stdout.lines().collect();
        lines[lines.len().saturating_sub(60)..].join("\n")
    };
    assert!(status.success(), "schemathesis failed ({status}):\n{stdout}\n{stderr}");

    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_path).expect("the hook's counts")).expect("JSON counts");
    let by_status = stats["by_status"].as_object().expect("counts by status");
    let count = |class: char| -> u64 {
        by_status
            .iter()
            .filter(|(status, _)| status.starts_with(class))
            .map(|(_, n)| n.as_u64().unwrap_or(0))
            .sum()
    };
    let total = stats["requests"].as_u64().unwrap_or(0);
    let (ok, server_errors, unauthorized) = (
        count('2'),
        count('5'),
        by_status.get("401").and_then(serde_json::Value::as_u64).unwrap_or(0),
    );
    // The coverage phase also sends methods the document does not list (405, or 415 for a body
    // sent with them): those count in the totals, not as operations.
    let documented: BTreeSet<String> = signet_server::openapi::operations(&signet_server::router::openapi_document())
        .into_iter()
        .map(|(method, path)| format!("{method} {path}"))
        .collect();
    let operations: BTreeMap<&String, &serde_json::Value> = stats["by_operation"]
        .as_object()
        .expect("counts by operation")
        .iter()
        .filter(|(operation, _)| documented.contains(*operation))
        .collect();
    let answered_2xx: Vec<&&String> = operations
        .iter()
        .filter(|(_, statuses)| statuses.as_object().unwrap().keys().any(|s| s.starts_with('2')))
        .map(|(operation, _)| operation)
        .collect();
    let never_2xx: Vec<&String> = documented
        .iter()
        .filter(|operation| !answered_2xx.contains(&operation) && *operation != "GET /openapi.json")
        .collect();
    for operation in &never_2xx {
        eprintln!("never 2xx: {operation}: {}", stats["samples"][operation.as_str()]);
    }
    eprintln!(
        "schemathesis: {total} requests over {} operations in {:.0?}: {ok} 2xx, {unauthorized} 401, \
         {server_errors} 5xx; {} operations answered 2xx at least once (never: {never_2xx:?}); by status {by_status:?}\n{tail}",
        operations.len(),
        elapsed,
        answered_2xx.len(),
    );
    assert_eq!(server_errors, 0, "no 5xx: {by_status:?}");
    // Every operation but the document itself, which schemathesis does not call.
    assert_eq!(
        operations.len(),
        documented.len() - 1,
        "every operation was exercised: {operations:?}"
    );
    // The signing works: a good share of the answers are successes, and the operations that
    // need nothing the generator cannot guess answered 2xx.
    assert!(ok * 4 >= total, "only {ok} of {total} answers were 2xx: {by_status:?}");
    assert!(
        unauthorized * 10 <= total,
        "{unauthorized} of {total} answers were 401: {by_status:?}"
    );
    assert!(
        answered_2xx.len() * 10 >= documented.len() * 8,
        "only {} of {} operations answered 2xx: {operations:?}",
        answered_2xx.len(),
        documented.len()
    );
    server.stop().await;
}
