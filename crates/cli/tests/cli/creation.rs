//! Eight processes creating one new SQLite database at the same instant: every one succeeds, and
//! they leave one master key, which sealed every app's secret, and one schema.

use std::io::Write as _;
use std::process::{Command, Stdio};

use crate::common::isolated;
use secrecy::ExposeSecret;
use signet_server::{Database, Durability};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};

const PROCESSES: usize = 8;

#[test]
fn processes_creating_one_database_at_once_share_one_key_and_one_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    // Each process waits for a line on its standard input before it becomes `signet`, so that
    // all of them are spawned first and then released together.
    let mut children: Vec<_> = (0..PROCESSES)
        .map(|n| {
            isolated(Command::new("sh"))
                .args(["-c", r#"read go && exec "$0" "$@""#, env!("CARGO_BIN_EXE_signet")])
                .args(["admin", "apps", "create", "--json", "--name", &format!("p{n}"), "--db"])
                .arg(&db)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in &mut children {
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    }
    let outputs: Vec<_> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    let failed: Vec<String> = outputs
        .iter()
        .enumerate()
        .filter(|(_, output)| !output.status.success())
        .map(|(n, output)| format!("process {n}: {}", String::from_utf8_lossy(&output.stderr)))
        .collect();
    assert!(failed.is_empty(), "every process succeeds:\n{}", failed.join("\n"));
    let created: Vec<serde_json::Value> = outputs
        .iter()
        .map(|output| serde_json::from_slice(&output.stdout).unwrap())
        .collect();

    let key_file = dir.path().join("new.db.key");
    let text = std::fs::read_to_string(&key_file).unwrap();
    let key = text.strip_suffix('\n').unwrap_or(&text);
    assert!(
        key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()),
        "one key of 64 hex characters: {text:?}"
    );
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| !["new.db", "new.db-wal", "new.db-shm", "new.db.key", "new.db.lock"].contains(&name.as_str()))
        .collect();
    left.sort();
    assert!(left.is_empty(), "no temporary file is left behind: {left:?}");

    tokio::runtime::Runtime::new().unwrap().block_on(async {
        // Opening checks the key file against the fingerprint the first process stored.
        let database = Database::open_sqlite(&db, Durability::Normal, None).await.unwrap();
        for app in &created {
            let app_key = app["app_key"].as_str().unwrap();
            let sealed = database
                .store
                .app(&app_key.into())
                .await
                .unwrap()
                .unwrap()
                .sealed_secret;
            let secret = database.key.open(app_key, &sealed).expect("sealed with the one key");
            assert_eq!(secret.expose_secret(), app["app_secret"].as_str().unwrap());
        }
        database.store.close().await;

        let pool = SqlitePool::connect_with(SqliteConnectOptions::new().filename(&db).read_only(true))
            .await
            .unwrap();
        let applied: Vec<(i64, i64, bool)> = sqlx::query_as(
            "SELECT version, COUNT(*), MIN(success) FROM _sqlx_migrations GROUP BY version ORDER BY version",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        let versions = signet_store::sql::migrate::versions();
        let expected: Vec<(i64, i64, bool)> = versions.iter().map(|&v| (v, 1, true)).collect();
        assert_eq!(applied, expected, "each step applied once");
        let (integrity,): (String,) = sqlx::query_as("PRAGMA integrity_check").fetch_one(&pool).await.unwrap();
        assert_eq!(integrity, "ok");
        pool.close().await;
    });
}
