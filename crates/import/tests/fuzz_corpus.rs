//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) and the inputs of bugs the fuzzer
//! found (`fuzz/regressions/<target>/`) through the fuzz targets' own bodies, on stable, in the
//! normal test suite. Fuzzing itself is `cargo +nightly fuzz run <target>` (see fuzz/README.md).
//!
//! It lives here because the harness needs this crate and the crates below it, not the server:
//! the signing and order-body targets use signet-signing, signet-model and signet-domain (this
//! crate's dev-dependencies), the import targets this crate with a store of their own.

#[path = "../../../fuzz/harness.rs"]
mod harness;

use std::path::{Path, PathBuf};

/// Runs every file of the target's corpus and regressions through `run`. A missing or empty
/// corpus fails, so that the test cannot pass by testing nothing.
fn replay(target: &str, run: fn(&[u8])) {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let corpus = files(&fuzz.join("corpus").join(target));
    assert!(!corpus.is_empty(), "fuzz/corpus/{target} is missing or empty");
    let regressions = files(&fuzz.join("regressions").join(target));
    // Every input runs; the panic messages (printed as they happen) say what failed, the list
    // at the end on which inputs.
    let failed: Vec<String> = corpus
        .iter()
        .chain(&regressions)
        .filter(|file| {
            let data = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            std::panic::catch_unwind(|| run(&data)).is_err()
        })
        .map(|file| file.display().to_string())
        .collect();
    println!(
        "{target}: ran {} corpus inputs and {} regressions",
        corpus.len(),
        regressions.len()
    );
    assert!(failed.is_empty(), "{target} failed on:\n{}", failed.join("\n"));
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn query() {
    replay("query", harness::query);
}

#[test]
fn timestamp() {
    replay("timestamp", harness::timestamp);
}

#[test]
fn order_body() {
    replay("order_body", harness::order_body);
}

#[test]
fn import_tickers() {
    replay("import_tickers", harness::import_tickers);
}

#[test]
fn import_nasdaq() {
    replay("import_nasdaq", harness::import_nasdaq);
}

#[test]
fn import_ohlcv() {
    replay("import_ohlcv", harness::import_ohlcv);
}

#[test]
fn import_minutes() {
    replay("import_minutes", harness::import_minutes);
}

#[test]
fn import_sectors() {
    replay("import_sectors", harness::import_sectors);
}

#[test]
fn import_fundamentals() {
    replay("import_fundamentals", harness::import_fundamentals);
}

#[test]
fn import_companyfacts() {
    replay("import_companyfacts", harness::import_companyfacts);
}
