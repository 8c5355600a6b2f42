//! A large price file imported beside a running server on the same SQLite file: the server's
//! signed writes go on, none refused and none held for long, and the import completes whole.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::common::{BigFileBeside, big_file_beside, market_buy, run_json, signet, stop};

/// 1,000 made-up symbols × 500 days: 500,000 bars, several seconds of import in a debug build.
/// (The 1,000,000-row measurement of `docs/performance.md` is the same file with 2,000.)
const SYMBOLS: usize = 1000;
const WORKERS: usize = 4;

#[test]
fn signed_writes_beside_a_large_import_neither_fail_nor_wait_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let BigFileBeside {
        db,
        big,
        rows,
        account,
        serving,
        client,
        ..
    } = big_file_beside(dir.path(), SYMBOLS);
    let db = db.as_str();
    let client = Arc::new(client);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // Nonces in the database, and market buys the engine fills on its ticks: every call
    // writes, and so does the engine.
    runtime
        .block_on(client.orders().place(&account, market_buy("warm-up".into())))
        .unwrap();

    let import = signet()
        .args(["data", "import", "--db", db, "--json"])
        .arg(&big)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let (output, mut latencies) = runtime.block_on(async {
        let done = Arc::new(AtomicBool::new(false));
        let mut workers = Vec::new();
        for worker in 0..WORKERS {
            let (client, account, done) = (client.clone(), account.clone(), done.clone());
            workers.push(tokio::spawn(async move {
                let mut latencies = Vec::new();
                for n in 0.. {
                    if done.load(Ordering::Relaxed) {
                        break;
                    }
                    let sent = Instant::now();
                    let placed = client
                        .orders()
                        .place(&account, market_buy(format!("w{worker}n{n}")))
                        .await;
                    let took = sent.elapsed();
                    if let Err(e) = placed {
                        panic!("a placement failed after {took:?} during the import: {e}");
                    }
                    latencies.push(took);
                }
                latencies
            }));
        }
        let output = tokio::task::spawn_blocking(move || import.wait_with_output())
            .await
            .unwrap()
            .unwrap();
        done.store(true, Ordering::Relaxed);
        let mut latencies = Vec::new();
        for worker in workers {
            latencies.extend(worker.await.unwrap());
        }
        (output, latencies)
    });
    let seconds = started.elapsed().as_secs_f64();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["rows"], rows);
    assert_eq!(summary["bars_changed"], rows);
    assert_eq!(summary["instruments_changed"], SYMBOLS);
    stop(serving);

    latencies.sort();
    let at = |percent: usize| latencies[(latencies.len() - 1) * percent / 100];
    let max = *latencies.last().unwrap();
    eprintln!(
        "{rows} bars imported in {seconds:.1} s beside {} placements: p50 {:?}, p99 {:?}, max {:?}",
        latencies.len(),
        at(50),
        at(99),
        max
    );
    assert!(latencies.len() >= 20, "only {} placements", latencies.len());
    // The import held SQLite's write lock for the whole file before: every call made meanwhile
    // waited for all of it (seconds for this file in a debug build) or failed after the 5 s busy
    // timeout. A debug build beside the rest of the suite on two cores answered in at most
    // 0.14 s alone and 0.69 s in the suite; the release build's p99 is in
    // `docs/performance.md` (14 to 22 ms for twice this file). The bound is 2 s, or half the
    // import's own time where a busy machine makes that longer: a call that waited for the
    // import would have waited for most of it.
    let bound = Duration::from_secs(2).max(Duration::from_secs_f64(seconds / 2.0));
    assert!(max < bound, "a placement took {max:?}, the import {seconds:.1} s");

    // All of the file is there, once.
    let status = run_json(signet().args(["data", "status", "--db", db, "--json"]));
    // The five instruments of the real prices, and the new ones.
    assert_eq!(status["instruments_with_bars"].as_u64().unwrap(), 5 + SYMBOLS as u64);
}
