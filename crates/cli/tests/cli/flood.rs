//! A flood of refused requests against the real binary, with the web console on (as `serve` on
//! a loopback address has it): what it costs the server is measured in its resident memory.

use signet_model::ErrorCode;

use crate::common::{run_json, serve, signet, stop};

/// The server's resident memory, from `/proc/PID/status`.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Sends `count` requests with a wrong secret and a query of `query_bytes`, eight at a time, and
/// checks each is refused with `expected`.
async fn refused(client: &signet_client::Client, count: usize, query_bytes: usize, expected: ErrorCode) {
    let query = "a".repeat(query_bytes);
    let mut flood = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (client, query) = (client.clone(), query.clone());
        flood.spawn(async move {
            for _ in 0..count / 8 {
                let error = client
                    .get::<serde_json::Value>("/trading/accounts/list", &[("q", &query)])
                    .await
                    .unwrap_err();
                let shown: String = error.to_string().chars().take(200).collect();
                assert_eq!(error.code(), Some(expected), "{shown}");
            }
        });
    }
    while let Some(done) = flood.join_next().await {
        done.unwrap();
    }
}

#[test]
fn refused_requests_with_long_queries_cost_the_server_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("flood.db");
    let db = db.to_str().unwrap();
    let created = run_json(signet().args(["admin", "apps", "create", "--db", db, "--name", "flood", "--json"]));
    let key = created["app_key"].as_str().unwrap();
    // Without rate limits every request reaches the signature check (the costliest refusal).
    let serving = serve(db, &["--rate-limits", "off"]);
    let pid = serving.child.id();
    let wrong = signet_client::Client::new(&serving.endpoint, key, "not-the-secret").unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(refused(&wrong, 80, 100, ErrorCode::IncorrectSign));
    let before = resident_kib(pid);

    // 60 KB queries, as the measurement sent them: refused before anything keeps them.
    runtime.block_on(refused(&wrong, 2_000, 60_000, ErrorCode::UriTooLong));
    // Just under the target's limit: each refused signature is explained in the console's ring.
    runtime.block_on(refused(&wrong, 2_000, 8_000, ErrorCode::IncorrectSign));
    let after = resident_kib(pid);
    let grown = after.saturating_sub(before);
    eprintln!("resident memory: {before} KiB before, {after} KiB after 4,000 refused requests");
    assert!(grown < 64 * 1024, "the server grew by {grown} KiB");
    stop(serving);
}
