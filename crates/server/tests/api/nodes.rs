//! Several nodes on one PostgreSQL database, each a whole server on its own loopback port with
//! its own pools and caches, as behind a load balancer. Skipped without
//! `SIGNET_TEST_POSTGRES_URL` (a failure with `SIGNET_REQUIRE_SERVICES=1`).

use std::collections::HashMap;
use std::str::FromStr;

use reqwest::Method;
use rust_decimal::Decimal;
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use signet_client::{Client, SignedRequest};
use signet_core::simulator::MarketConfig;
use signet_domain::simulator::clock::ClockMode;
use signet_server::database::Location;
use signet_server::{Credentials, Database, Server, ServerConfig};
use sqlx::Row;
use tokio::sync::oneshot;

/// Each account's cash: less than the 1,000 orders of the order test would claim.
const CASH: i64 = 200_000;

struct Cluster {
    endpoints: Vec<String>,
    app: Credentials,
    url: String,
    _stops: Vec<oneshot::Sender<()>>,
    /// Holds the master key file.
    dir: tempfile::TempDir,
}

impl Cluster {
    /// `n` nodes on a new database holding the demo prices and one app.
    async fn start(n: usize, adjust: impl Fn(&mut ServerConfig)) -> Option<Cluster> {
        crate::common::capture_logs();
        let location = crate::common::fresh_postgres().await?;
        let Location::Postgres { url } = &location else {
            unreachable!()
        };
        let dir = tempfile::tempdir().unwrap();
        let first = crate::common::open(&location, dir.path()).await;
        crate::common::import_prices(&first).await;
        let app = crate::common::admin(&first)
            .create_app("nodes", Decimal::from(CASH))
            .await
            .unwrap();
        crate::common::record_secret(app.app_secret.expose_secret());
        let mut endpoints = Vec::new();
        let mut stops = Vec::new();
        for _ in 0..n {
            let database: Database = crate::common::open(&location, dir.path()).await;
            let mut config = ServerConfig {
                listen: "127.0.0.1:0".parse().unwrap(),
                ..ServerConfig::default()
            };
            adjust(&mut config);
            let server = Server::bind(config, &database).await.unwrap();
            endpoints.push(format!("http://{}", server.local_addr()));
            let (stop, stopped) = oneshot::channel::<()>();
            tokio::spawn(server.run(async move {
                let _ = stopped.await;
            }));
            stops.push(stop);
        }
        Some(Cluster {
            endpoints,
            app,
            url: url.clone(),
            _stops: stops,
            dir,
        })
    }

    /// A client of node A for a new app created with `--admin`, which may load scenario rules.
    async fn ops(&self) -> Client {
        let location = Location::Postgres { url: self.url.clone() };
        let database = crate::common::open(&location, self.dir.path()).await;
        let ops = crate::common::admin(&database)
            .create_app_with_role("ops", Decimal::ZERO, true)
            .await
            .unwrap();
        crate::common::record_secret(ops.app_secret.expose_secret());
        Client::new(&self.endpoints[0], &ops.app_key, ops.app_secret.expose_secret()).unwrap()
    }

    fn client(&self, node: usize) -> Client {
        Client::new(
            &self.endpoints[node],
            &self.app.app_key,
            self.app.app_secret.expose_secret(),
        )
        .unwrap()
    }

    /// The store, as a node opens it.
    async fn store(&self) -> std::sync::Arc<dyn signet_store::Store> {
        let location = Location::Postgres { url: self.url.clone() };
        crate::common::open(&location, self.dir.path()).await.store
    }

    async fn db(&self) -> sqlx::PgPool {
        sqlx::PgPool::connect(&self.url).await.unwrap()
    }
}

/// A simulated minute each second from the core open of 2013-02-25: prices move while orders
/// arrive.
fn running_market(config: &mut ServerConfig) {
    config.market = MarketConfig {
        clock: ClockMode::Running { speed: 60.0 },
        start_day: signet_domain::marketdata::units::parse_day("2013-02-25"),
        ..MarketConfig::default()
    };
}

/// The same signed request, to another node: the client signed the host without a port, which
/// every node on 127.0.0.1 accepts (as behind a load balancer with one public name).
fn to_node(request: &SignedRequest, endpoint: &str) -> SignedRequest {
    let mut copy = request.clone();
    let port = endpoint.rsplit(':').next().unwrap().parse().unwrap();
    copy.url.set_port(Some(port)).unwrap();
    copy
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_request_sent_to_three_nodes_at_once_succeeds_once_of_1000_times() {
    let Some(cluster) = Cluster::start(3, |_| {}).await else {
        return;
    };
    let signer = Client::new(
        "http://127.0.0.1",
        &cluster.app.app_key,
        cluster.app.app_secret.expose_secret(),
    )
    .unwrap();
    let mut outcomes: HashMap<(u32, u32), u32> = HashMap::new();
    for _ in 0..50 {
        let mut rounds = tokio::task::JoinSet::new();
        for _ in 0..20 {
            let request = signer
                .prepare(Method::GET, "/trading/accounts/list", &[], None)
                .unwrap();
            let copies: Vec<SignedRequest> = cluster.endpoints.iter().map(|e| to_node(&request, e)).collect();
            rounds.spawn(async move {
                let answers = crate::common::send_together(copies).await;
                let ok = u32::try_from(answers.iter().filter(|a| a.status == 200).count()).unwrap();
                let replayed = answers
                    .iter()
                    .filter(|a| a.status == 401 && a.body["error_code"] == "DUPPLICATED_REQUEST")
                    .count();
                let replayed = u32::try_from(replayed).unwrap();
                (ok, replayed)
            });
        }
        while let Some(round) = rounds.join_next().await {
            *outcomes.entry(round.unwrap()).or_default() += 1;
        }
    }
    assert_eq!(
        outcomes,
        HashMap::from([((1, 2), 1000)]),
        "(successes, replays) per round"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn placements_sent_to_two_nodes_at_once_are_accepted_as_far_as_the_buying_power_goes() {
    let Some(cluster) = Cluster::start(2, running_market).await else {
        return;
    };
    let clients: Vec<Client> = (0..2).map(|n| cluster.client(n)).collect();
    // CASH: CASH USD of buying power; MARGIN: twice its equity.
    let powers = [CASH, 2 * CASH].map(|p| u64::try_from(p).unwrap());
    for (account, power) in cluster.app.account_ids.iter().zip(powers) {
        for round in 0..4 {
            // 24 placements at once, half to each node, each claiming 30 % of the buying power:
            // three fit.
            let quantity = power * 3 / 10 / 10;
            let mut requests = Vec::new();
            for (node, client) in clients.iter().enumerate() {
                let prefix = format!("r{round}-n{node}");
                requests.extend(crate::claims::placements(client, account, &prefix, 12, quantity));
            }
            let answers = crate::common::send_together(requests).await;
            let claims = crate::claims::claimed(&clients[0], account).await;
            assert_eq!(
                (crate::claims::accepted(&answers), claims),
                (3, Decimal::from(3 * quantity * 10)),
                "account {account}, round {round}"
            );
            crate::claims::cancel_all(&clients[1], account).await;
        }
    }
}

/// Option buys at once over three nodes, in both accounts: each claims 10 contracts at 10.00
/// (10,000 USD of premium); the CASH account's 200,000 takes twenty, and the MARGIN account's
/// 400,000 of buying power takes twenty too, options taking twice their cost of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn option_buys_spread_over_three_nodes_never_claim_beyond_the_buying_power() {
    let Some(cluster) = Cluster::start(3, running_market).await else {
        return;
    };
    let clients: Vec<Client> = (0..3).map(|n| cluster.client(n)).collect();
    for account in &cluster.app.account_ids {
        let mut requests = Vec::new();
        for n in 0..36 {
            // AAPL's March call at 450 asks about 15: a bid of 10.00 rests.
            let order = json!({
                "client_order_id": format!("opt-{n}"), "combo_type": "NORMAL", "order_type": "LIMIT",
                "limit_price": "10.00", "quantity": "10", "option_strategy": "SINGLE", "side": "BUY",
                "time_in_force": "DAY", "entrust_type": "QTY", "instrument_type": "OPTION", "market": "US",
                "symbol": "AAPL",
                "legs": [{"side": "BUY", "quantity": "10", "symbol": "AAPL", "strike_price": "450",
                          "option_expire_date": "2013-03-15", "instrument_type": "OPTION",
                          "option_type": "CALL", "market": "US"}]
            });
            let body = serde_json::to_vec(&json!({"account_id": account, "new_orders": [order]})).unwrap();
            requests.push(
                clients[n % 3]
                    .prepare(Method::POST, "/trading/orders/place", &[], Some(body))
                    .unwrap(),
            );
        }
        let answers = crate::common::send_together(requests).await;
        let accepted = answers.iter().filter(|a| a.status == 200).count();
        for refused in answers.iter().filter(|a| a.status != 200) {
            assert_eq!(
                refused.body["error_code"], "INSUFFICIENT_BUYING_POWER",
                "{}",
                refused.body
            );
        }
        assert_eq!(accepted, 20, "account {account}");
        // Open contracts × limit, a price per share: a contract is 100 shares.
        let claims = crate::claims::claimed(&clients[1], account).await * Decimal::ONE_HUNDRED;
        assert_eq!(claims, Decimal::from(200_000), "account {account}");
    }
}

/// Credit put spreads at once over three nodes in the MARGIN account: each of 10 units claims
/// its width while it rests, 10,000 held in full (20,000 of the 400,000 of buying power), so
/// exactly twenty are taken whichever node each reaches.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn spreads_spread_over_three_nodes_never_claim_beyond_the_buying_power() {
    let Some(cluster) = Cluster::start(3, running_market).await else {
        return;
    };
    let clients: Vec<Client> = (0..3).map(|n| cluster.client(n)).collect();
    let account = &cluster.app.account_ids[1];
    let leg = |side: &str, strike: &str| {
        json!({"side": side, "quantity": "10", "symbol": "AAPL", "strike_price": strike,
               "option_expire_date": "2013-03-15", "instrument_type": "OPTION", "option_type": "PUT",
               "market": "US"})
    };
    let requests = (0..36)
        .map(|n| {
            // A credit of 9.00 on a spread 10 wide rests.
            let order = json!({
                "client_order_id": format!("spread-{n}"), "combo_type": "NORMAL", "order_type": "LIMIT",
                "limit_price": "9.00", "quantity": "10", "option_strategy": "VERTICAL", "side": "SELL",
                "time_in_force": "DAY", "entrust_type": "QTY", "instrument_type": "OPTION", "market": "US",
                "symbol": "AAPL", "legs": [leg("SELL", "450"), leg("BUY", "440")]
            });
            let body = serde_json::to_vec(&json!({"account_id": account, "new_orders": [order]})).unwrap();
            clients[n % 3]
                .prepare(Method::POST, "/trading/orders/place", &[], Some(body))
                .unwrap()
        })
        .collect();
    let answers = crate::common::send_together(requests).await;
    let accepted = answers.iter().filter(|a| a.status == 200).count();
    for refused in answers.iter().filter(|a| a.status != 200) {
        assert_eq!(
            refused.body["error_code"], "INSUFFICIENT_BUYING_POWER",
            "{}",
            refused.body
        );
    }
    assert_eq!(accepted, 20);
    let balance = clients[2].accounts().balance(account).await.unwrap();
    assert_eq!(balance.account_currency_assets[0].buying_power, "0");
}

/// Symbols and their closes of 2013-02-22. An order rests at half the close, or trades at its
/// market or a limit at twice the close; together they claim more than the account's cash, so
/// that the last ones find it spent.
const SYMBOLS: [(&str, &str); 3] = [("MSFT", "27.76"), ("FB", "27.13"), ("IBM", "201.09")];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn orders_spread_over_three_nodes_are_each_stored_and_filled_once() {
    let Some(cluster) = Cluster::start(3, running_market).await else {
        return;
    };
    let account = cluster.app.account_ids[0].clone();
    let clients: Vec<Client> = (0..3).map(|n| cluster.client(n)).collect();
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..10 {
        let clients = clients.clone();
        let account = account.clone();
        tasks.spawn(async move {
            let mut placed = Vec::new();
            let mut refused = 0;
            for i in (worker..1000).step_by(10) {
                let (symbol, close) = SYMBOLS[i % SYMBOLS.len()];
                let close = Decimal::from_str(close).unwrap();
                let id = format!("o{i}");
                let mut order = json!({
                    "client_order_id": id, "combo_type": "NORMAL", "symbol": symbol, "side": "BUY",
                    "time_in_force": "GTC", "entrust_type": "QTY", "quantity": (1 + i % 3).to_string(),
                    "instrument_type": "EQUITY", "market": "US", "support_trading_session": "CORE",
                    "order_type": "LIMIT",
                });
                let resting = i % 3 == 0;
                match i % 3 {
                    0 => order["limit_price"] = json!((close / Decimal::TWO).round_dp(2).to_string()),
                    1 => order["limit_price"] = json!((close * Decimal::TWO).round_dp(2).to_string()),
                    _ => order["order_type"] = json!("MARKET"),
                }
                let body = json!({"account_id": account, "new_orders": [order]});
                match clients[i % 3].post::<_, Value>("/trading/orders/place", &body).await {
                    Ok(_) => placed.push((id, resting)),
                    Err(e) if e.code() == Some(signet_model::ErrorCode::InsufficientBuyingPower) => refused += 1,
                    Err(e) => panic!("{id}: {e}"),
                }
            }
            (placed, refused)
        });
    }
    let mut placed = Vec::new();
    let mut refused = 0;
    while let Some(done) = tasks.join_next().await {
        let (p, r) = done.unwrap();
        placed.extend(p);
        refused += r;
    }
    assert_eq!(placed.len() + refused, 1000);
    // Every node ticks four times a second; wait until each marketable order has filled or
    // failed. On a loaded machine the three nodes take turns on the account's lock for a while.
    let db = cluster.db().await;
    let marketable: Vec<&String> = placed
        .iter()
        .filter(|(_, resting)| !resting)
        .map(|(id, _)| id)
        .collect();
    let waited = std::time::Instant::now();
    loop {
        let open: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM orders WHERE account_id = $1 AND status = 'SUBMITTED'
               AND client_order_id = ANY($2)",
        )
        .bind(account.as_str())
        .bind(&marketable)
        .fetch_one(&db)
        .await
        .unwrap();
        if open == 0 || waited.elapsed() > std::time::Duration::from_secs(60) {
            eprintln!("{open} marketable orders open after {:?}", waited.elapsed());
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let orders = sqlx::query(
        "SELECT o.client_order_id, o.status, o.quantity, o.filled_quantity,
                (SELECT COUNT(*) FROM fills f WHERE f.order_id = o.order_id) AS fills,
                (SELECT string_agg(f.quantity, ',') FROM fills f WHERE f.order_id = o.order_id) AS filled
         FROM orders o WHERE o.account_id = $1",
    )
    .bind(account.as_str())
    .fetch_all(&db)
    .await
    .unwrap();
    assert_eq!(
        orders.len(),
        placed.len(),
        "each acknowledged order is stored once, and no other"
    );
    let by_id: HashMap<String, &sqlx::postgres::PgRow> = orders
        .iter()
        .map(|r| (r.get::<String, _>("client_order_id"), r))
        .collect();
    let mut filled = 0;
    for (id, resting) in &placed {
        let row = by_id[id];
        let status: String = row.get("status");
        let quantity = Decimal::from_str(&row.get::<String, _>("quantity")).unwrap();
        let filled_quantity = Decimal::from_str(&row.get::<String, _>("filled_quantity")).unwrap();
        let fill_sum: Decimal = row
            .get::<Option<String>, _>("filled")
            .unwrap_or_default()
            .split(',')
            .filter(|q| !q.is_empty())
            .map(|q| Decimal::from_str(q).unwrap())
            .sum();
        assert_eq!(
            fill_sum, filled_quantity,
            "{id}: the fills add up to the filled quantity"
        );
        assert!(filled_quantity <= quantity, "{id}: never filled beyond its quantity");
        if *resting {
            assert_eq!(status, "SUBMITTED", "{id} rests at half the price");
        } else {
            // A marketable order fills, or fails when the cash ran out meanwhile.
            assert!(matches!(status.as_str(), "FILLED" | "FAILED"), "{id}: {status}");
            filled += usize::from(status == "FILLED");
        }
    }
    let failed = placed.iter().filter(|(_, resting)| !resting).count() - filled;
    eprintln!(
        "placed {}, refused {refused}, filled {filled}, failed at the fill {failed}",
        placed.len()
    );
    assert!(placed.len() > 700 && filled > 400, "{filled} of {}", placed.len());
    assert!(refused + failed > 0, "the cash ran out");

    // The account as the fills left it: cash never below zero, and equal to what they cost.
    let cash: String = sqlx::query_scalar("SELECT cash FROM accounts WHERE account_id = $1")
        .bind(account.as_str())
        .fetch_one(&db)
        .await
        .unwrap();
    let cash = Decimal::from_str(&cash).unwrap();
    let fills = sqlx::query(
        "SELECT o.symbol, f.quantity, f.price, f.commission FROM fills f JOIN orders o ON o.order_id = f.order_id
         WHERE o.account_id = $1",
    )
    .bind(account.as_str())
    .fetch_all(&db)
    .await
    .unwrap();
    let mut spent = Decimal::ZERO;
    let mut bought: HashMap<String, Decimal> = HashMap::new();
    for f in &fills {
        let decimal = |c: &str| Decimal::from_str(&f.get::<String, _>(c)).unwrap();
        spent += decimal("quantity") * decimal("price") + decimal("commission");
        *bought.entry(f.get("symbol")).or_default() += decimal("quantity");
    }
    assert!(cash >= Decimal::ZERO, "a CASH account never goes below zero: {cash}");
    assert_eq!(cash, Decimal::from(CASH) - spent);
    let positions = sqlx::query("SELECT symbol, quantity FROM positions WHERE account_id = $1")
        .bind(account.as_str())
        .fetch_all(&db)
        .await
        .unwrap();
    let held: HashMap<String, Decimal> = positions
        .iter()
        .map(|p| {
            (
                p.get("symbol"),
                Decimal::from_str(&p.get::<String, _>("quantity")).unwrap(),
            )
        })
        .filter(|(_, q)| !q.is_zero())
        .collect();
    assert_eq!(held, bought, "positions are the sum of their fills");
}

/// A resting buy of `quantity` IBM at $100.50 (half its close: it never fills here).
fn resting_ibm(id: &str, quantity: u32) -> signet_model::orders::NewOrder {
    signet_model::orders::NewOrder {
        client_order_id: Some(id.into()),
        combo_type: Some("NORMAL".into()),
        instrument_type: Some("EQUITY".into()),
        market: Some("US".into()),
        symbol: Some("IBM".into()),
        side: Some("BUY".into()),
        order_type: Some("LIMIT".into()),
        limit_price: Some(json!("100.50")),
        time_in_force: Some("GTC".into()),
        entrust_type: Some("QTY".into()),
        quantity: Some(json!(quantity.to_string())),
        support_trading_session: Some("CORE".into()),
        ..signet_model::orders::NewOrder::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_sees_what_another_placed_and_cancelled_in_the_buying_power() {
    let Some(cluster) = Cluster::start(2, |_| {}).await else {
        return;
    };
    let account = cluster.app.account_ids[0].clone();
    let clients = [cluster.client(0), cluster.client(1)];
    let (first, second) = (clients[0].orders(), clients[1].orders());
    // The first node follows the account from here on.
    first.place(&account, resting_ibm("small", 1)).await.unwrap();
    // The second claims $140,700 of the $200,000.
    second.place(&account, resting_ibm("big", 1_400)).await.unwrap();
    let refused = first.place(&account, resting_ibm("more", 700)).await.unwrap_err();
    assert_eq!(
        refused.code(),
        Some(signet_model::ErrorCode::InsufficientBuyingPower),
        "{refused}"
    );
    second.cancel(&account, "big").await.unwrap();
    first.place(&account, resting_ibm("more", 700)).await.unwrap();
}

/// The change feed's trap: a transaction that wrote first may commit last. A reader that moved
/// its cursor past the later one's change would never see the earlier one's.
#[tokio::test]
async fn a_change_committed_after_a_later_one_is_still_read() {
    let Some(cluster) = Cluster::start(1, |_| {}).await else {
        return;
    };
    let account = cluster.app.account_ids[0].clone();
    let client = cluster.client(0);
    let orders = client.orders();
    orders.place(&account, resting_ibm("early", 1)).await.unwrap();
    let store = cluster.store().await;
    let first = store.order_changes(Some(&account), None).await.unwrap();
    assert_eq!(first.orders.len(), 1);

    // Cancelled in a transaction that stays open while another order is placed and committed.
    let db = cluster.db().await;
    let mut slow = db.begin().await.unwrap();
    sqlx::query("UPDATE orders SET status = 'CANCELLED' WHERE client_order_id = 'early'")
        .execute(&mut *slow)
        .await
        .unwrap();
    orders.place(&account, resting_ibm("late", 1)).await.unwrap();
    let second = store.order_changes(Some(&account), first.cursor).await.unwrap();
    let ids: Vec<&str> = second.orders.iter().map(|o| o.client_order_id.as_str()).collect();
    assert!(ids.contains(&"late"), "{ids:?}");
    slow.commit().await.unwrap();

    let third = store.order_changes(Some(&account), second.cursor).await.unwrap();
    let early = third
        .orders
        .iter()
        .find(|o| o.client_order_id == "early")
        .expect("the earlier transaction's change, committed last, is read");
    assert_eq!(early.status, signet_model::orders::OrderStatus::Cancelled);
}

/// Makes the cluster's database refuse connections and drops those it has, as a restart of
/// PostgreSQL does to a node, until `refuse` is false.
async fn refuse_connections(cluster: &Cluster, refuse: bool) {
    let admin_url = std::env::var("SIGNET_TEST_POSTGRES_URL").unwrap();
    let name = cluster.url.rsplit('/').next().unwrap().to_owned();
    let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(&admin_url)
        .await
        .unwrap();
    let allow = if refuse { "false" } else { "true" };
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE {name} ALLOW_CONNECTIONS {allow}"
    )))
    .execute(&mut admin)
    .await
    .unwrap();
    if refuse {
        sqlx::query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1")
            .bind(&name)
            .execute(&mut admin)
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_goes_away_means_503_until_it_is_back_then_the_node_recovers_alone() {
    let Some(cluster) = Cluster::start(1, |_| {}).await else {
        return;
    };
    let client = cluster.client(0);
    client.accounts().list().await.unwrap();
    let health = || async {
        crate::common::http()
            .get(format!("{}/health", cluster.endpoints[0]))
            .send()
            .await
            .unwrap()
            .status()
    };

    refuse_connections(&cluster, true).await;
    for _ in 0..3 {
        let started = std::time::Instant::now();
        let refused = client.accounts().list().await.unwrap_err();
        assert_eq!(
            refused.code(),
            Some(signet_model::ErrorCode::ServiceNotAvailable),
            "{refused}"
        );
        // At most the pool's 5 s wait for a connection.
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5) + crate::common::LATE,
            "a refusal, not a hang"
        );
    }
    assert_eq!(health().await, 503);

    refuse_connections(&cluster, false).await;
    let back = std::time::Instant::now();
    loop {
        match client.accounts().list().await {
            Ok(accounts) => {
                assert_eq!(accounts.len(), 2);
                break;
            }
            Err(e) if back.elapsed() < std::time::Duration::from_secs(20) => {
                assert_eq!(e.code(), Some(signet_model::ErrorCode::ServiceNotAvailable), "{e}");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(e) => panic!("not recovered 20 s after the database came back: {e}"),
        }
    }
    eprintln!(
        "recovered {:.2} s after the database came back",
        back.elapsed().as_secs_f64()
    );
    assert_eq!(health().await, 200);
}

/// Order events are read from the database: a subscriber on one node receives those of orders
/// placed through, and filled by, any node: each once, and those of one order in order; and
/// each fill's position event after its order event, the position growing one share a fill.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_subscriber_on_one_node_receives_the_events_of_orders_placed_through_another() {
    use crate::events::{next_event, nonce, subscribe_with};

    let Some(cluster) = Cluster::start(2, running_market).await else {
        return;
    };
    let account = cluster.app.account_ids[0].clone();
    let node_b = cluster.endpoints[1].trim_start_matches("http://");
    let secret = cluster.app.app_secret.expose_secret().to_owned();
    let mut stream = subscribe_with(node_b, &cluster.app.app_key, &secret, &[&account], &nonce())
        .await
        .unwrap();
    assert_eq!(
        stream.message().await.unwrap().unwrap().event_type,
        0,
        "SubscribeSuccess"
    );

    const ORDERS: usize = 200;
    let node_a = cluster.client(0);
    let placing = tokio::spawn(async move {
        for i in 0..ORDERS {
            let order = json!({
                "client_order_id": format!("ev{i}"), "combo_type": "NORMAL", "symbol": "MSFT", "side": "BUY",
                "time_in_force": "DAY", "entrust_type": "QTY", "quantity": "1", "instrument_type": "EQUITY",
                "market": "US", "support_trading_session": "CORE", "order_type": "MARKET",
            });
            let body = json!({"account_id": account, "new_orders": [order]});
            let _: Value = node_a.post("/trading/orders/place", &body).await.unwrap();
        }
    });
    let started = std::time::Instant::now();
    let mut request_ids = std::collections::HashSet::new();
    let mut scenes: HashMap<String, Vec<String>> = HashMap::new();
    let mut done = 0;
    while done < ORDERS {
        let (m, payload) = tokio::time::timeout(std::time::Duration::from_secs(30), next_event(&mut stream))
            .await
            .unwrap_or_else(|_| panic!("{done} orders' events of {ORDERS} after {:?}", started.elapsed()));
        assert!(request_ids.insert(m.request_id.clone()), "sent once: {payload}");
        let scene = if m.event_type == 1028 {
            done += 1;
            assert_eq!(payload["quantity"], done.to_string(), "in commit order: {payload}");
            "POSITION".to_owned()
        } else {
            payload["scene_type"].as_str().unwrap().to_owned()
        };
        scenes
            .entry(payload["client_order_id"].as_str().unwrap().to_owned())
            .or_default()
            .push(scene);
    }
    placing.await.unwrap();
    assert_eq!(scenes.len(), ORDERS);
    for (id, seen) in &scenes {
        assert_eq!(seen, &["PLACE_SUCCESS", "FINAL_FILLED", "POSITION"], "{id}");
    }
    eprintln!(
        "{} events of {ORDERS} orders in {:?}",
        request_ids.len(),
        started.elapsed()
    );
}

/// A revocation is written to the database by any node or by `signet admin`: every node finds
/// it by itself, and ends the app's streams it holds within 5 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn revoking_an_app_through_one_node_ends_its_stream_on_another() {
    use crate::events::{nonce, subscribe_with};

    let Some(cluster) = Cluster::start(2, |_| {}).await else {
        return;
    };
    let node_b = cluster.endpoints[1].trim_start_matches("http://");
    let secret = cluster.app.app_secret.expose_secret().to_owned();
    let mut stream = subscribe_with(node_b, &cluster.app.app_key, &secret, &[], &nonce())
        .await
        .unwrap();
    assert_eq!(
        stream.message().await.unwrap().unwrap().event_type,
        0,
        "SubscribeSuccess"
    );
    // Node A's handle on the database, as node A's console revokes with.
    let location = Location::Postgres {
        url: cluster.url.clone(),
    };
    let node_a = crate::common::open(&location, cluster.dir.path()).await;
    crate::common::admin(&node_a)
        .revoke_app(&cluster.app.app_key)
        .await
        .unwrap();
    let revoked = std::time::Instant::now();
    let (auth_error, status) =
        crate::revocation::revoked_end(&mut stream, std::time::Duration::from_secs(1) + crate::common::LATE).await;
    assert_eq!(status.code(), tonic::Code::Unauthenticated, "{status:?}");
    assert_eq!(auth_error["error_code"], "UNAUTHORIZED", "{auth_error}");
    eprintln!(
        "node B ended the stream {:?} after node A's revocation",
        revoked.elapsed()
    );
}

/// Scenario rules loaded through one node are followed by the others within a second of the
/// change, and their matches are counted once for all of them.
#[tokio::test]
async fn every_node_follows_the_scenario_rules_loaded_on_one() {
    let Some(cluster) = Cluster::start(2, |_| {}).await else {
        return;
    };
    let ops = cluster.ops().await;
    // A second rule, on a path the test uses for nothing else, tells when node B holds them.
    let rules = "[[rule]]\nname = \"down\"\nwhen = { path = \"/trading/accounts/list\", times = 3 }\nthen = { status = 503 }\n\
        [[rule]]\nname = \"probe\"\nwhen = { path = \"/market-data/stocks/snapshots/list\" }\nthen = { status = 503 }\n";
    ops.scenarios().load(rules).await.unwrap();
    let loaded = std::time::Instant::now();
    while cluster
        .client(1)
        .get::<Value>("/market-data/stocks/snapshots/list", &[("symbols", "AAPL")])
        .await
        .is_ok()
    {
        assert!(
            loaded.elapsed() < signet_core::scenarios::REFRESH + crate::common::LATE,
            "node B never follows the rules"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mut refused = 0;
    for node in [1, 0, 1, 0, 1] {
        match cluster.client(node).accounts().list().await {
            Err(e) if e.code() == Some(signet_model::ErrorCode::ServiceNotAvailable) => refused += 1,
            Err(e) => panic!("{e}"),
            Ok(_) => {}
        }
    }
    assert_eq!(refused, 3, "times = 3, counted across the nodes");
    assert_eq!(ops.scenarios().list().await.unwrap().rules[0].hits, 5);
    ops.scenarios().clear().await.unwrap();
}

/// A freeze loaded through one node holds the symbol's quotes on the others too: each node's
/// simulator follows the rules in force (`Scenarios::follow`), not only the node that loaded them.
#[tokio::test]
async fn a_freeze_loaded_on_one_node_holds_the_quotes_of_every_node() {
    let Some(cluster) = Cluster::start(2, running_market).await else {
        return;
    };
    let ops = cluster.ops().await;
    let snapshot = async || -> Value {
        let answer: Value = cluster
            .client(1)
            .get("/market-data/stocks/snapshots/list", &[("symbols", "AAPL")])
            .await
            .unwrap();
        answer[0].clone()
    };
    // A simulated minute a second: the quotes move between two looks 1.5 s apart...
    let pause = std::time::Duration::from_millis(1500);
    let before = snapshot().await;
    tokio::time::sleep(pause).await;
    assert_ne!(snapshot().await, before, "the market runs");
    // ...until a rule loaded on node A freezes them on node B as well.
    let rules = "[[rule]]\nname = \"frozen\"\nwhen = { symbol = \"AAPL\", from = \"00:00\" }\nthen = { freeze_quotes = true }\n";
    ops.scenarios().load(rules).await.unwrap();
    // Node B follows within REFRESH (on a busy machine, within LATE more): two looks a pause
    // apart then see the same quote, and go on seeing it.
    let loaded = std::time::Instant::now();
    let mut frozen = snapshot().await;
    loop {
        tokio::time::sleep(pause).await;
        let now = snapshot().await;
        if now == frozen {
            break;
        }
        assert!(
            loaded.elapsed() < signet_core::scenarios::REFRESH + crate::common::LATE + pause,
            "node B never froze the quotes"
        );
        frozen = now;
    }
    tokio::time::sleep(pause).await;
    assert_eq!(snapshot().await, frozen);
    ops.scenarios().clear().await.unwrap();
}

/// A checkpoint restored through node A is what node B serves too, within the time the nodes
/// take to follow a restore: the orders placed on B after the save are gone from both.
#[tokio::test]
async fn a_checkpoint_restored_on_one_node_is_what_every_node_serves() {
    let Some(cluster) = Cluster::start(2, |config| {
        config.market = MarketConfig {
            clock: ClockMode::Manual,
            start_day: signet_domain::marketdata::units::parse_day("2013-02-25"),
            ..MarketConfig::default()
        };
    })
    .await
    else {
        return;
    };
    let ops = cluster.ops().await;
    let (a, b) = (cluster.client(0), cluster.client(1));
    let accounts = a.accounts().list().await.unwrap();
    let account = accounts[0].account_id.clone();
    let history = async |client: &Client| -> Value {
        client
            .get(
                "/trading/orders/historical-orders/list",
                &[("account_id", account.as_str()), ("page_size", "100")],
            )
            .await
            .unwrap()
    };
    let place = async |client: &Client, id: &str| {
        let answer = crate::common::place(client, &crate::common::market_buy(&account, id, "AAPL")).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    };
    place(&a, "before-save").await;
    ops.checkpoints().save("nodes").await.unwrap();
    let saved = history(&a).await;
    place(&b, "after-save-1").await;
    place(&b, "after-save-2").await;
    assert_ne!(history(&b).await, saved);

    // While A restores, B refuses calls (it closed its gate on A's announcement), and every
    // answer it gives is of the state before or after, whole.
    let restoring = tokio::spawn(async move { ops.checkpoints().restore("nodes").await });
    let mut refused = 0;
    let mut answers = Vec::new();
    while !restoring.is_finished() {
        let answer = crate::common::send(
            b.prepare(
                Method::GET,
                "/trading/orders/historical-orders/list",
                &[("account_id", account.as_str()), ("page_size", "100")],
                None,
            )
            .unwrap(),
        )
        .await;
        match answer.status.as_u16() {
            503 => {
                assert_eq!(answer.error().error_code, "RESTORING", "{}", answer.body);
                refused += 1;
            }
            200 => answers.push(answer.body),
            other => panic!("{other}: {}", answer.body),
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    restoring.await.unwrap().unwrap();
    assert!(refused > 0, "node B refused calls during the restore");
    assert_eq!(history(&a).await, saved, "node A serves the checkpoint");
    // Node B follows (its gate still closed meanwhile: RESTORING) within two of its looks, on a
    // busy machine within LATE more.
    let restored = std::time::Instant::now();
    loop {
        let served: Result<Value, _> = b
            .get(
                "/trading/orders/historical-orders/list",
                &[("account_id", account.as_str()), ("page_size", "100")],
            )
            .await;
        match served {
            Ok(served) if served == saved => break,
            Ok(_) => {}
            Err(e) => assert_eq!(e.code(), Some(signet_model::ErrorCode::Restoring), "{e}"),
        }
        assert!(
            restored.elapsed() < signet_core::checkpoints::FOLLOW_EVERY * 2 + crate::common::LATE,
            "node B never serves the checkpoint"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let after: Vec<&Value> = answers.iter().filter(|body| **body == saved).collect();
    assert!(
        answers
            .iter()
            .all(|body| crate::common::rows(body).len() == 3 || *body == saved),
        "each answer of B is the state before (3 orders) or the checkpoint's: {answers:?}"
    );
    eprintln!(
        "node B: {refused} calls refused during the restore, {} answered ({} after it)",
        answers.len(),
        after.len()
    );
    // B's caches start from the restored state: an id used after the save is free again there.
    place(&b, "after-save-1").await;
}
