//! Orders and positions of option contracts (migration step 17), on SQLite and on PostgreSQL: a
//! contract's id is no row of `instruments`, so an option order stores its underlying's id in
//! `orders.instrument_id` and the contract's in `option_contract_id`, and is read back with the
//! contract's; a position holds the contract's id itself. Shares of the underlying trade beside
//! them as before, a split of the underlying leaves the contracts' orders and positions alone,
//! and checkpoints keep them, also one saved by the build before the step.

use rust_decimal::Decimal;
use signet_domain::checkpoint::{CheckpointName, MarketState, SavedClock};
use signet_domain::marketdata::import::{Chunk, ImportMessage};
use signet_domain::marketdata::{ActionKind, ActionSource, Bar, CorporateAction, SymbolBar};
use signet_domain::options::{Contract, Right};
use signet_domain::times::{SimTime, WallTime};
use signet_domain::trading::accounting::{Commission, Holding};
use signet_domain::trading::order::Order;
use signet_model::AccountType;
use signet_model::orders::{ComboType, OrderStatus, OrderType, Side, TimeInForce, TradingSession};
use signet_store::{
    AccountRecord, AppRecord, AppStatus, AppStore, CheckpointStore, ConsoleStore, Durability, ExecutionQuery,
    FillOutcome, FillRequest, MarketDataStore, MetaStore, SqlStore, TradingStore,
};
use sqlx::postgres::PgPool;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};
use tokio::sync::mpsc;

const ACCOUNT: &str = "OPTIONS1";
/// The ex-date of the underlying's split, and the day before it.
const SPLIT_DAY: i32 = 15_790;
const DAY_BEFORE: i32 = SPLIT_DAY - 1;

/// A connection to the store's database beside the store, to look at its rows as stored.
enum Raw {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

impl Raw {
    /// `orders.instrument_id` and `orders.option_contract_id` of an order, as stored.
    async fn stored_ids(&self, order_id: &str) -> (i64, Option<i64>) {
        let sql = "SELECT instrument_id, option_contract_id FROM orders WHERE order_id = $1";
        match self {
            Raw::Sqlite(pool) => sqlx::query_as(sql).bind(order_id).fetch_one(pool).await.unwrap(),
            Raw::Postgres(pool) => sqlx::query_as(sql).bind(order_id).fetch_one(pool).await.unwrap(),
        }
    }
}

/// A new, empty database on the test PostgreSQL server (its URL), or `None` when there is none.
async fn fresh_postgres() -> Option<String> {
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
    let name = format!("signet_test_options_{}_{nanos}", std::process::id());
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await
        .expect("a test database");
    admin.close().await;
    let (server, _) = admin_url.rsplit_once('/').expect("a URL ending in /DATABASE");
    Some(format!("{server}/{name}"))
}

/// Imports AAPL's bars up to the day before its 2-for-1 split, and the split; its id.
async fn underlying(store: &SqlStore) -> i64 {
    let bars = (DAY_BEFORE - 4..=DAY_BEFORE)
        .map(|day| SymbolBar {
            symbol: "AAPL".into(),
            bar: Bar {
                day,
                open: 100_000_000,
                high: 101_000_000,
                low: 99_000_000,
                close: 100_000_000,
                volume: 1_000,
                adj_close: None,
            },
        })
        .collect();
    let split = CorporateAction {
        day: SPLIT_DAY,
        kind: ActionKind::Split,
        value: Decimal::TWO,
        source: ActionSource::Generated,
    };
    let (tx, rx) = mpsc::channel(3);
    tx.send(ImportMessage::Chunk(Chunk::Bars { bars, generated: false }))
        .await
        .unwrap();
    tx.send(ImportMessage::Chunk(Chunk::Actions(vec![("AAPL".into(), split)])))
        .await
        .unwrap();
    tx.send(ImportMessage::Commit).await.unwrap();
    drop(tx);
    store.import(rx).await.unwrap();
    store.instrument("AAPL").await.unwrap().unwrap().instrument_id
}

async fn account(store: &SqlStore) {
    let app = AppRecord {
        app_key: "options-app".into(),
        name: "options".into(),
        sealed_secret: vec![0; 16],
        status: AppStatus::Active,
        user_id: "user".into(),
        created_at: 1,
        admin: false,
    };
    let account = AccountRecord {
        account_id: ACCOUNT.into(),
        app_key: app.app_key.clone(),
        account_type: AccountType::Cash,
        account_label: "cash".into(),
        currency: "USD".into(),
        cash: Decimal::from(1_000_000),
        created_at: 1,
    };
    store.create_app(&app, &[account]).await.unwrap();
}

/// An open GTC limit buy.
fn buy(client_order_id: &str, instrument_id: i64, symbol: &str, quantity: i64, price: &str) -> Order {
    Order {
        seq: 0,
        order_id: format!("order-{client_order_id}").into(),
        account_id: ACCOUNT.into(),
        client_order_id: client_order_id.into(),
        client_combo_order_id: None,
        combo_type: ComboType::Normal,
        combo: None,
        waits_for: None,
        instrument_id,
        symbol: symbol.into(),
        side: Side::Buy,
        order_type: OrderType::Limit,
        time_in_force: TimeInForce::Gtc,
        quantity: Decimal::from(quantity),
        cash_amount: None,
        limit_price: Some(price.parse().unwrap()),
        stop_price: None,
        trailing: None,
        triggered_at: None,
        session: TradingSession::Core,
        status: OrderStatus::Submitted,
        filled_quantity: Decimal::ZERO,
        filled_amount: Decimal::ZERO,
        reason: None,
        expires_at_sim: None,
        place_time: WallTime(1_000),
        fill_time: None,
        update_time: WallTime(1_000),
        filled_at_sim: None,
        fill_plan: None,
        position_intent: None,
        multi_leg: None,
    }
}

async fn place(store: &SqlStore, orders: Vec<Order>) {
    let mut turn = store.begin_turn(&ACCOUNT.into()).await.unwrap();
    let placed = store.insert_placements(&mut turn, &[orders]).await.unwrap();
    turn.end().await.unwrap().on_disk().await.unwrap();
    assert!(placed.iter().all(Result::is_ok), "{placed:?}");
}

async fn fill(store: &SqlStore, client_order_id: &str, quantity: i64, price: &str) -> Order {
    let request = FillRequest {
        order_id: format!("order-{client_order_id}").into(),
        quantity: Decimal::from(quantity),
        price: price.parse().unwrap(),
        commission: Commission {
            per_share: Decimal::ZERO,
            per_order: Decimal::ZERO,
        },
        time: WallTime(2_000),
        market_time: SimTime(2_000),
        filled_before: Some(Decimal::ZERO),
        leg_prices: Vec::new(),
    };
    match store.apply_fill(&request, &|_: i64| None).await.unwrap() {
        FillOutcome::Applied(order) => *order,
        other => panic!("{client_order_id}: {other:?}"),
    }
}

/// Every position of the account, as (instrument id, holding), by instrument id.
async fn positions(store: &SqlStore) -> Vec<(i64, Holding)> {
    let mut all: Vec<(i64, Holding)> = store
        .positions(&ACCOUNT.into())
        .await
        .unwrap()
        .into_iter()
        .map(|p| (p.instrument_id, p.holding))
        .collect();
    all.sort_by_key(|(id, _)| *id);
    all
}

fn holding(quantity: i64, average_cost: &str) -> Holding {
    Holding {
        quantity: Decimal::from(quantity),
        average_cost: average_cost.parse().unwrap(),
    }
}

/// The account's orders, as (client order id, instrument id, status), by client order id.
async fn orders(store: &SqlStore) -> Vec<(String, i64, OrderStatus)> {
    let mut all: Vec<(String, i64, OrderStatus)> = store
        .orders(&signet_store::OrderQuery {
            account_id: ACCOUNT.into(),
            open_only: false,
            from_ms: None,
            to_ms: None,
            before_seq: None,
            limit: 100,
            status: None,
            symbol: None,
        })
        .await
        .unwrap()
        .into_iter()
        .map(|o| (o.client_order_id.into_string(), o.instrument_id, o.status))
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

fn market() -> String {
    MarketState {
        now_ms: 2_000,
        clock: SavedClock::Manual,
        seed: 7,
        pins: Vec::new(),
    }
    .encode()
}

/// Everything, on one backend: `raw` looks at the same database as `store`.
async fn options_trade_beside_shares(store: &SqlStore, raw: &Raw) {
    let aapl = underlying(store).await;
    account(store).await;
    let call = Contract {
        underlying: "AAPL".into(),
        expiry: SPLIT_DAY + 30,
        right: Right::Call,
        strike: "102.5".parse().unwrap(),
    }
    .instrument_id(aapl)
    .unwrap();
    let put = Contract {
        underlying: "AAPL".into(),
        expiry: SPLIT_DAY + 30,
        right: Right::Put,
        strike: "95".parse().unwrap(),
    }
    .instrument_id(aapl)
    .unwrap();
    assert!(call >= 1 << 55 && put >= 1 << 55);
    store.cross_ex_dates(DAY_BEFORE, WallTime(1_500)).await.unwrap();

    place(
        store,
        vec![
            buy("shares", aapl, "AAPL", 10, "100"),
            buy("call", call, "AAPL130503C00102500", 2, "3.5"),
        ],
    )
    .await;
    place(
        store,
        vec![
            buy("shares-open", aapl, "AAPL", 5, "90"),
            buy("put-open", put, "AAPL130503P00095000", 1, "1.25"),
        ],
    )
    .await;
    // Read back with the contract's id; stored with the underlying's, which `instruments` has.
    let placed = store.order(&ACCOUNT.into(), &"call".into()).await.unwrap().unwrap();
    assert_eq!(placed.instrument_id, call);
    assert_eq!(raw.stored_ids("order-call").await, (aapl, Some(call)));
    assert_eq!(raw.stored_ids("order-shares").await, (aapl, None));
    let open: Vec<(String, i64)> = store
        .open_orders()
        .await
        .unwrap()
        .into_iter()
        .map(|o| (o.client_order_id.into_string(), o.instrument_id))
        .collect();
    assert_eq!(
        open,
        [
            ("shares".into(), aapl),
            ("call".into(), call),
            ("shares-open".into(), aapl),
            ("put-open".into(), put),
        ]
    );

    // A position of shares and one of a contract on them, side by side.
    assert_eq!(fill(store, "shares", 10, "100").await.instrument_id, aapl);
    assert_eq!(fill(store, "call", 2, "3.5").await.instrument_id, call);
    assert_eq!(
        positions(store).await,
        [(aapl, holding(10, "100")), (call, holding(2, "3.5"))]
    );
    let executions = store
        .executions(&ExecutionQuery {
            account_id: ACCOUNT.into(),
            client_order_id: None,
            from_ms: None,
            to_ms: None,
            before_fill_id: None,
            limit: 10,
        })
        .await
        .unwrap();
    let mut executed: Vec<i64> = executions.iter().map(|e| e.order.instrument_id).collect();
    executed.sort_unstable();
    assert_eq!(executed, [aapl, call]);
    let account = ACCOUNT.into();
    let of = |id| store.account_fills(&account, None, Some(id), 10);
    let (of_aapl, of_call) = (of(aapl).await.unwrap(), of(call).await.unwrap());
    assert_eq!(of_aapl.iter().map(|f| f.instrument_id).collect::<Vec<_>>(), [aapl]);
    assert_eq!(of_call.iter().map(|f| f.instrument_id).collect::<Vec<_>>(), [call]);
    assert!(of(put).await.unwrap().is_empty());

    // The checkpoint keeps both kinds; what changed after it goes.
    let name = CheckpointName::parse("options").unwrap();
    store.save_checkpoint(&name, &market(), 2_500).await.unwrap();
    let saved = (orders(store).await, positions(store).await);
    place(store, vec![buy("after", call, "AAPL130503C00102500", 1, "3")]).await;
    fill(store, "after", 1, "3").await;
    store.restore_checkpoint(&name).await.unwrap().unwrap();
    assert_eq!((orders(store).await, positions(store).await), saved);

    // AAPL splits 2 for 1: its shares and their open order only.
    let crossed = store.cross_ex_dates(SPLIT_DAY, WallTime(3_000)).await.unwrap();
    let cancelled: Vec<&str> = crossed.cancelled.iter().map(|o| o.client_order_id.as_str()).collect();
    assert_eq!(cancelled, ["shares-open"]);
    let applied: Vec<i64> = crossed.applied.iter().map(|a| a.instrument_id).collect();
    assert_eq!(applied, [aapl]);
    assert_eq!(
        positions(store).await,
        [(aapl, holding(20, "50")), (call, holding(2, "3.5"))]
    );
    let after_split = store.order(&ACCOUNT.into(), &"put-open".into()).await.unwrap().unwrap();
    assert_eq!(
        (after_split.instrument_id, after_split.status),
        (put, OrderStatus::Submitted)
    );
}

/// Makes the checkpoint `name` look as the build before step 17 saved it: no
/// `option_contract_id`, and positions referring to `instruments`.
async fn as_before_step_17(store: &SqlStore, raw: &Raw, name: &str) {
    match raw {
        Raw::Sqlite(_) => {
            let db = store.path().unwrap();
            let file = db
                .with_file_name(format!("{}.checkpoints", db.file_stem().unwrap().to_string_lossy()))
                .join(format!("{name}.checkpoint"));
            let pool = SqlitePool::connect_with(SqliteConnectOptions::new().filename(&file))
                .await
                .unwrap();
            sqlx::raw_sql(
                "ALTER TABLE orders DROP COLUMN option_contract_id;
                 CREATE TABLE positions_step_4 (
                     account_id    TEXT NOT NULL REFERENCES accounts (account_id),
                     instrument_id INTEGER NOT NULL REFERENCES instruments (instrument_id),
                     symbol        TEXT NOT NULL,
                     quantity      TEXT NOT NULL,
                     average_cost  TEXT NOT NULL,
                     PRIMARY KEY (account_id, instrument_id)
                 ) WITHOUT ROWID;
                 INSERT INTO positions_step_4 SELECT * FROM positions;
                 DROP TABLE positions;
                 ALTER TABLE positions_step_4 RENAME TO positions;
                 UPDATE checkpoint_info SET schema_version = 16;
                 DELETE FROM _sqlx_migrations WHERE version = 17;",
            )
            .execute(&pool)
            .await
            .unwrap();
            pool.close().await;
        }
        Raw::Postgres(pool) => {
            let statement = format!(
                r#"ALTER TABLE "checkpoint_{name}".orders DROP COLUMN option_contract_id;
                   UPDATE "checkpoint_{name}".checkpoint_info SET schema_version = 16;"#
            );
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                .execute(pool)
                .await
                .unwrap();
        }
    }
}

/// A checkpoint of shares only, saved by the build before step 17, is restored (on SQLite its
/// file is migrated by the step first).
async fn a_checkpoint_before_the_step_is_restored(store: &SqlStore, raw: &Raw) {
    let aapl = underlying(store).await;
    account(store).await;
    place(store, vec![buy("shares", aapl, "AAPL", 10, "100")]).await;
    fill(store, "shares", 10, "100").await;
    place(store, vec![buy("shares-open", aapl, "AAPL", 5, "90")]).await;
    let name = CheckpointName::parse("older").unwrap();
    store.save_checkpoint(&name, &market(), 2_500).await.unwrap();
    let saved = (orders(store).await, positions(store).await);
    as_before_step_17(store, raw, "older").await;
    // Changed, it is refused until adopted: as that build would have sealed it.
    assert!(matches!(
        store.restore_checkpoint(&name).await,
        Err(signet_store::StoreError::Unusable(why)) if why.contains("seal does not verify")
    ));
    store.adopt_checkpoint(&name).await.unwrap().unwrap();
    let call = Contract {
        underlying: "AAPL".into(),
        expiry: SPLIT_DAY + 30,
        right: Right::Call,
        strike: "100".parse().unwrap(),
    }
    .instrument_id(aapl)
    .unwrap();
    place(store, vec![buy("call", call, "AAPL130503C00100000", 1, "3")]).await;
    fill(store, "call", 1, "3").await;
    let restored = store.restore_checkpoint(&name).await.unwrap().unwrap();
    assert_eq!(restored.info.name, "older");
    assert_eq!((orders(store).await, positions(store).await), saved);
    assert_eq!(raw.stored_ids("order-shares-open").await, (aapl, None));
}

async fn sqlite() -> (tempfile::TempDir, SqlStore, Raw) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("options.db");
    let store = keyed(SqlStore::sqlite(&path, Durability::Normal).await.unwrap()).await;
    let raw = SqlitePool::connect_with(SqliteConnectOptions::new().filename(&path).read_only(true))
        .await
        .unwrap();
    (dir, store, Raw::Sqlite(raw))
}

/// The store with a key for its checkpoints, as the server opens it.
async fn keyed(store: SqlStore) -> SqlStore {
    store
        .init_meta(signet_store::sql::KEY_FINGERPRINT, "test-key")
        .await
        .unwrap();
    store.with_checkpoint_key(signet_store::CheckpointKey::new(zeroize::Zeroizing::new([7; 32])))
}

async fn postgres() -> Option<(SqlStore, Raw)> {
    let url = fresh_postgres().await?;
    let store = keyed(SqlStore::postgres(&url).await.unwrap()).await;
    let raw = PgPool::connect(&url).await.unwrap();
    Some((store, Raw::Postgres(raw)))
}

#[tokio::test]
async fn options_trade_beside_shares_on_sqlite() {
    let (_dir, store, raw) = sqlite().await;
    options_trade_beside_shares(&store, &raw).await;
}

#[tokio::test]
async fn options_trade_beside_shares_on_postgres() {
    let Some((store, raw)) = postgres().await else {
        return;
    };
    options_trade_beside_shares(&store, &raw).await;
}

#[tokio::test]
async fn a_checkpoint_before_the_step_is_restored_on_sqlite() {
    let (_dir, store, raw) = sqlite().await;
    a_checkpoint_before_the_step_is_restored(&store, &raw).await;
}

#[tokio::test]
async fn a_checkpoint_before_the_step_is_restored_on_postgres() {
    let Some((store, raw)) = postgres().await else {
        return;
    };
    a_checkpoint_before_the_step_is_restored(&store, &raw).await;
}
