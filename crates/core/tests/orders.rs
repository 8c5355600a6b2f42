//! The order operations and the engine's tick, on a real SQLite store with one instrument whose
//! quote is pinned and a manual clock: no server, no protocol. What the doors add (parsing,
//! authentication, the wire's shapes) is tested through the server; what an order's life is,
//! here.

use std::sync::Arc;
use std::time::Duration;

use rust_decimal::Decimal;
use signet_core::CoreError;
use signet_core::claims::ClaimsCache;
use signet_core::engine::Engine;
use signet_core::engine::book::Book;
use signet_core::hub::EventHub;
use signet_core::options::Options;
use signet_core::orders::Orders;
use signet_core::scenarios::Scenarios;
use signet_core::simulator::{MarketConfig, Simulator};
use signet_core::turns::Turns;
use signet_domain::marketdata::import::{Chunk, ImportMessage};
use signet_domain::marketdata::units::parse_day;
use signet_domain::marketdata::{InstrumentType, InstrumentUpdate};
use signet_domain::simulator::clock::ClockMode;
use signet_domain::trading::accounting::Commission;
use signet_model::ids::ClientOrderId;
use signet_model::orders::{NewOrder, OrderStatus};
use signet_model::{AccountType, ErrorCode};
use signet_store::{AccountRecord, AppRecord, AppStatus, Durability, SqlStore, Store};

const CASH: &str = "100000";

struct Broker {
    _dir: tempfile::TempDir,
    store: Arc<dyn Store>,
    simulator: Arc<Simulator>,
    engine: Engine,
    orders: Orders,
    account: AccountRecord,
}

/// A store with AAPL pinned at 100.00 (bid 99.99, ask 100.01), a CASH account of 100,000 and
/// the clock still at the core open of 2013-03-04.
async fn broker() -> Broker {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> = Arc::new(
        SqlStore::sqlite(&dir.path().join("core.db"), Durability::Normal)
            .await
            .unwrap(),
    );
    let (send, messages) = tokio::sync::mpsc::channel(2);
    send.send(ImportMessage::Chunk(Chunk::Instruments(vec![InstrumentUpdate {
        symbol: "AAPL".into(),
        name: Some("Apple Inc.".into()),
        exchange: Some("NASDAQ".into()),
        cik: None,
        sector: None,
        industry: None,
        instrument_type: Some(InstrumentType::Equity),
        indices: None,
        shares_outstanding: None,
        eps_ttm_e6: None,
    }])))
    .await
    .unwrap();
    send.send(ImportMessage::Commit).await.unwrap();
    store.import(messages).await.unwrap();
    let account = AccountRecord {
        account_id: "ACCOUNT1".into(),
        app_key: "app".into(),
        account_type: AccountType::Cash,
        account_label: "cash".into(),
        currency: "USD".into(),
        cash: CASH.parse().unwrap(),
        created_at: 0,
    };
    let app = AppRecord {
        app_key: "app".into(),
        name: "core tests".into(),
        sealed_secret: vec![0; 16],
        status: AppStatus::Active,
        user_id: "user".into(),
        created_at: 0,
        admin: false,
    };
    store.create_app(&app, std::slice::from_ref(&account)).await.unwrap();
    let simulator = Simulator::start(
        store.clone(),
        MarketConfig {
            seed: 2013,
            clock: ClockMode::Manual,
            start_day: parse_day("2013-03-04"),
            tick: Duration::from_millis(250),
        },
    )
    .await
    .unwrap();
    simulator.pin("AAPL", "100".parse().unwrap(), None, None, None).unwrap();
    let (claims, book, hub) = (
        Arc::new(ClaimsCache::default()),
        Arc::new(Book::default()),
        Arc::new(EventHub::new(1024)),
    );
    let engine = Engine::new(
        hub.clone(),
        store.clone(),
        simulator.clone(),
        book.clone(),
        claims.clone(),
        Commission::default(),
        || {},
    );
    let orders = Orders {
        store: store.clone(),
        simulator: simulator.clone(),
        options: Options::start(simulator.clone(), store.clone()),
        claims,
        turns: Arc::new(Turns::default()),
        book,
        hub,
        scenarios: Scenarios::start(store.clone(), simulator.clone()).await.unwrap(),
        commission: Commission::default(),
    };
    Broker {
        _dir: dir,
        store,
        simulator,
        engine,
        orders,
        account,
    }
}

fn new_order(id: &str, side: &str, quantity: u32, limit: Option<&str>) -> NewOrder {
    serde_json::from_value(serde_json::json!({
        "client_order_id": id,
        "combo_type": "NORMAL",
        "instrument_type": "EQUITY",
        "market": "US",
        "symbol": "AAPL",
        "side": side,
        "order_type": if limit.is_some() { "LIMIT" } else { "MARKET" },
        "time_in_force": "DAY",
        "entrust_type": "QTY",
        "quantity": quantity.to_string(),
        "limit_price": limit,
        "support_trading_session": "CORE",
    }))
    .unwrap()
}

impl Broker {
    async fn place(&self, order: NewOrder) -> Result<signet_domain::trading::order::Order, CoreError> {
        let placement = self.orders.placement(&[order], None).await?;
        Ok(self.orders.place(&self.account, placement).await?.remove(0))
    }

    async fn cash(&self) -> Decimal {
        self.store
            .account(&self.account.account_id)
            .await
            .unwrap()
            .unwrap()
            .cash
    }

    async fn status(&self, client_order_id: &str) -> OrderStatus {
        self.orders
            .find(&self.account, &client_order_id.into())
            .await
            .unwrap()
            .status
    }
}

fn refused_with(result: Result<impl std::fmt::Debug, CoreError>, code: ErrorCode) {
    match result {
        Err(CoreError::Refused(r)) => assert_eq!(r.code, code, "{r:?}"),
        other => panic!("expected a refusal {code:?}, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_market_buy_is_stored_submitted_and_the_next_tick_fills_it_at_the_ask() {
    let b = broker().await;
    let placed = b.place(new_order("buy-1", "BUY", 10, None)).await.unwrap();
    assert_eq!(placed.status, OrderStatus::Submitted);
    assert_eq!(
        b.cash().await,
        CASH.parse::<Decimal>().unwrap(),
        "nothing moves before a tick"
    );

    b.engine.tick(b.simulator.now()).await.unwrap();

    let filled = b.orders.find(&b.account, &"buy-1".into()).await.unwrap();
    assert_eq!(filled.status, OrderStatus::Filled);
    assert_eq!(filled.filled_quantity, Decimal::from(10));
    assert_eq!(
        filled.filled_amount,
        "1000.10".parse::<Decimal>().unwrap(),
        "10 at the ask"
    );
    assert_eq!(b.cash().await, "98999.90".parse::<Decimal>().unwrap());
    let positions = b.store.positions(&b.account.account_id).await.unwrap();
    assert_eq!(positions.len(), 1);
    assert_eq!(positions[0].holding.quantity, Decimal::from(10));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fill_the_cash_no_longer_pays_for_is_refused_and_moves_nothing() {
    let b = broker().await;
    // 900 shares at 100.01 fit 100,000 when placed...
    b.place(new_order("big", "BUY", 900, None)).await.unwrap();
    // ...but not at 200 when the tick comes.
    b.simulator
        .pin("AAPL", "200".parse().unwrap(), None, None, None)
        .unwrap();

    b.engine.tick(b.simulator.now()).await.unwrap();

    let order = b.orders.find(&b.account, &"big".into()).await.unwrap();
    assert!(
        matches!(order.status, OrderStatus::Failed | OrderStatus::Cancelled),
        "{:?}",
        order.status
    );
    assert_eq!(order.filled_quantity, Decimal::ZERO);
    assert_eq!(b.cash().await, CASH.parse::<Decimal>().unwrap());
    assert!(b.store.positions(&b.account.account_id).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limit_below_the_ask_rests_and_a_cancel_ends_it() {
    let b = broker().await;
    b.place(new_order("rest", "BUY", 10, Some("90"))).await.unwrap();
    b.engine.tick(b.simulator.now()).await.unwrap();
    assert_eq!(b.status("rest").await, OrderStatus::Submitted);

    let cancelled = b.orders.cancel(&b.account, &"rest".into()).await.unwrap();
    assert_eq!(cancelled.status, OrderStatus::Cancelled);
    // A second cancel finds it no longer open.
    assert!(matches!(
        b.orders.cancel(&b.account, &"rest".into()).await,
        Err(CoreError::Refused(_))
    ));
    b.engine.tick(b.simulator.now()).await.unwrap();
    assert_eq!(b.status("rest").await, OrderStatus::Cancelled);
    refused_with(
        b.orders.cancel(&b.account, &"nothing".into()).await,
        ErrorCode::OrderNotFound,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_placements_take_turns_and_never_claim_more_than_the_cash() {
    let b = Arc::new(broker().await);
    // Eight resting buys of 30,000 each (300 at 100): the account's 100,000 holds three.
    let placing: Vec<_> = (0..8)
        .map(|i| {
            let b = b.clone();
            tokio::spawn(async move { b.place(new_order(&format!("rest-{i}"), "BUY", 300, Some("100"))).await })
        })
        .collect();
    let mut accepted = 0;
    for task in placing {
        match task.await.unwrap() {
            Ok(order) => {
                assert_eq!(order.status, OrderStatus::Submitted);
                accepted += 1;
            }
            Err(e) => refused_with(Err::<(), _>(e), ErrorCode::InsufficientBuyingPower),
        }
    }
    assert_eq!(accepted, 3);
    // A client order id is used once: the same id again is refused, whatever else fits.
    b.orders.cancel(&b.account, &first_open(&b).await).await.unwrap();
    let taken = first_taken(&b).await;
    refused_with(
        b.place(new_order(&taken, "BUY", 1, Some("100"))).await,
        ErrorCode::DuplicateClientOrderId,
    );
}

async fn first_open(b: &Broker) -> ClientOrderId {
    for i in 0..8 {
        let id = ClientOrderId::from(format!("rest-{i}"));
        if let Ok(o) = b.orders.find(&b.account, &id).await
            && o.status == OrderStatus::Submitted
        {
            return id;
        }
    }
    panic!("no open order");
}

async fn first_taken(b: &Broker) -> ClientOrderId {
    for i in 0..8 {
        let id = ClientOrderId::from(format!("rest-{i}"));
        if b.orders.find(&b.account, &id).await.is_ok() {
            return id;
        }
    }
    panic!("no order stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cash_ledger_opens_with_the_deposit_and_adds_up_to_the_cash() {
    let b = broker().await;
    b.place(new_order("buy-1", "BUY", 10, None)).await.unwrap();
    b.engine.tick(b.simulator.now()).await.unwrap();

    let accounts = b.orders.accounts();
    let changes = accounts.cash_changes(&b.account.account_id).await.unwrap();
    assert_eq!(changes.fills.len(), 1);
    let ledger = changes.ledger();
    let kinds: Vec<&str> = ledger.iter().map(|a| a.kind.as_str()).collect();
    assert_eq!(kinds, ["DEPOSIT", "TRADE"]);
    assert_eq!(ledger[0].amount, CASH.parse::<Decimal>().unwrap());
    assert_eq!(
        ledger[1].amount,
        "-1000.10".parse::<Decimal>().unwrap(),
        "10 bought at the ask"
    );
    let total: Decimal = ledger.iter().map(|a| a.amount).sum();
    assert_eq!(total, b.cash().await, "the ledger adds up to the cash");
    assert_eq!(
        accounts.opening_cash(&b.account.account_id).await.unwrap(),
        CASH.parse::<Decimal>().unwrap()
    );
}
