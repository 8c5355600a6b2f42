//! The one migration history: each step makes the same tables and columns on SQLite and on
//! PostgreSQL, and a PostgreSQL database made by the first history (two steps) is adopted into
//! this one unchanged.

use std::collections::BTreeSet;
use std::path::Path;

use signet_store::sql::migrate::{run, run_to, versions};
use signet_store::sql::query::Pool;
use sqlx::migrate::Migrator;
use sqlx::postgres::PgPool;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};

/// The columns only PostgreSQL has: the change feeds several nodes follow.
const POSTGRES_ONLY: [(&str, &str); 3] = [
    ("orders", "changed"),
    ("order_events", "changed"),
    ("accounts", "changed"),
];

/// A new, empty database on the test PostgreSQL server, or `None` when there is none.
async fn fresh_postgres() -> Option<PgPool> {
    let Ok(admin_url) = std::env::var("SIGNET_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var("SIGNET_REQUIRE_SERVICES").as_deref() != Ok("1"),
            "SIGNET_REQUIRE_SERVICES=1 but SIGNET_TEST_POSTGRES_URL is not set"
        );
        eprintln!("skipped: no SIGNET_TEST_POSTGRES_URL (eval \"$(scripts/services.sh start)\")");
        return None;
    };
    let admin = PgPool::connect(&admin_url).await.expect("the test PostgreSQL server");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let name = format!("signet_test_migrations_{}_{nanos}", std::process::id());
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await
        .expect("a test database");
    let (server, _) = admin_url.rsplit_once('/').expect("a URL ending in /DATABASE");
    Some(
        PgPool::connect(&format!("{server}/{name}"))
            .await
            .expect("the test database"),
    )
}

async fn fresh_sqlite(dir: &Path) -> SqlitePool {
    let options = SqliteConnectOptions::new()
        .filename(dir.join("schema.db"))
        .create_if_missing(true);
    SqlitePool::connect_with(options).await.unwrap()
}

async fn sqlite_columns(pool: &SqlitePool) -> BTreeSet<(String, String)> {
    sqlx::query_as(
        "SELECT m.name, c.name FROM sqlite_schema m, pragma_table_info(m.name) c
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name != '_sqlx_migrations'",
    )
    .fetch_all(pool)
    .await
    .unwrap()
    .into_iter()
    .collect()
}

async fn postgres_columns(pool: &PgPool) -> BTreeSet<(String, String)> {
    let columns: Vec<(String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name != '_sqlx_migrations'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    columns
        .into_iter()
        .filter(|(table, column)| !POSTGRES_ONLY.contains(&(table.as_str(), column.as_str())))
        .collect()
}

/// Everything PostgreSQL knows of a schema: columns with their types, nullability and
/// defaults, constraints, indexes and triggers (column order aside).
async fn postgres_schema(pool: &PgPool) -> BTreeSet<String> {
    let queries = [
        "SELECT format('%s.%s %s %s %s', table_name, column_name, data_type, is_nullable, column_default)
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name != '_sqlx_migrations'",
        "SELECT format('%s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
         FROM pg_constraint WHERE connamespace = 'public'::regnamespace",
        "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename != '_sqlx_migrations'",
        "SELECT format('%s %s', tgrelid::regclass, tgname) FROM pg_trigger WHERE NOT tgisinternal",
    ];
    let mut schema = BTreeSet::new();
    for q in queries {
        let rows: Vec<(String,)> = sqlx::query_as(q).fetch_all(pool).await.unwrap();
        schema.extend(rows.into_iter().map(|(line,)| line));
    }
    schema
}

#[tokio::test]
async fn every_step_makes_the_same_tables_and_columns_on_both_backends() {
    let Some(postgres) = fresh_postgres().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sqlite = fresh_sqlite(dir.path()).await;
    let steps = versions();
    assert_eq!(
        steps,
        (1..=steps.len() as i64).collect::<Vec<_>>(),
        "steps numbered 1, 2, ..."
    );
    let mut previous = BTreeSet::new();
    for version in steps {
        run_to(&Pool::Sqlite(sqlite.clone()), version).await.unwrap();
        run_to(&Pool::Postgres(postgres.clone()), version).await.unwrap();
        let columns = sqlite_columns(&sqlite).await;
        assert_eq!(columns, postgres_columns(&postgres).await, "step {version}");
        assert_ne!(columns, previous, "step {version} adds tables or columns");
        previous = columns;
    }
}

#[tokio::test]
async fn a_database_of_the_first_postgresql_history_is_adopted_unchanged() {
    let (Some(first), Some(fresh)) = (fresh_postgres().await, fresh_postgres().await) else {
        return;
    };
    let history = Migrator::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/postgres-first-history"))
        .await
        .unwrap();
    history.run(&first).await.unwrap();
    sqlx::query("INSERT INTO meta (key, value) VALUES ('kept', 'yes')")
        .execute(&first)
        .await
        .unwrap();

    run(&Pool::Postgres(first.clone())).await.unwrap();
    run(&Pool::Postgres(fresh.clone())).await.unwrap();
    assert_eq!(postgres_schema(&first).await, postgres_schema(&fresh).await);
    let recorded = "SELECT version, checksum FROM _sqlx_migrations ORDER BY version";
    let adopted: Vec<(i64, Vec<u8>)> = sqlx::query_as(recorded).fetch_all(&first).await.unwrap();
    let made: Vec<(i64, Vec<u8>)> = sqlx::query_as(recorded).fetch_all(&fresh).await.unwrap();
    assert_eq!(adopted, made, "the same steps, with the same checksums");
    let (kept,): (String,) = sqlx::query_as("SELECT value FROM meta WHERE key = 'kept'")
        .fetch_one(&first)
        .await
        .unwrap();
    assert_eq!(kept, "yes");
    // And once adopted, opening it again changes nothing.
    run(&Pool::Postgres(first.clone())).await.unwrap();
    let again: Vec<(i64, Vec<u8>)> = sqlx::query_as(recorded).fetch_all(&first).await.unwrap();
    assert_eq!(again, made);
}
