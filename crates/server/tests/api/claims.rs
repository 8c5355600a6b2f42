//! Buying power under concurrency: placements, batches and replacements sent at the same moment
//! on one account, against a real server on the suite's backend (SQLite, or PostgreSQL in the
//! PostgreSQL pass). However they interleave, the account never holds more accepted claims than
//! its buying power, and nothing that fits is refused. The same on two nodes sharing PostgreSQL
//! is in `nodes.rs`.

use rust_decimal::Decimal;
use serde_json::{Value, json};
use signet_client::{Client, SignedRequest};
use signet_model::orders::OrderDetail;

use crate::common::{Answer, TestServer, send_together};

/// A resting limit buy of AAPL (about 450 USD a share in February 2013) at 10 USD: it never
/// fills, so each accepted one keeps its claim of `quantity` × 10 USD.
pub fn resting_buy(client_order_id: &str, quantity: u64) -> Value {
    json!({
        "client_order_id": client_order_id, "combo_type": "NORMAL", "symbol": "AAPL", "side": "BUY",
        "order_type": "LIMIT", "limit_price": "10", "time_in_force": "GTC", "entrust_type": "QTY",
        "quantity": quantity.to_string(), "instrument_type": "EQUITY", "market": "US",
        "support_trading_session": "CORE"
    })
}

/// A signed POST of `body` to `path`, ready to send.
pub fn signed_post(signer: &Client, path: &str, body: &Value) -> SignedRequest {
    signer
        .prepare(reqwest::Method::POST, path, &[], Some(body.to_string().into_bytes()))
        .unwrap()
}

/// Signed placements of one order each, ready to send together.
pub fn placements(signer: &Client, account: &str, prefix: &str, count: usize, quantity: u64) -> Vec<SignedRequest> {
    (0..count)
        .map(|n| {
            let body = json!({"account_id": account, "new_orders": [resting_buy(&format!("{prefix}-{n}"), quantity)]});
            signed_post(signer, "/trading/orders/place", &body)
        })
        .collect()
}

/// How many answers accepted, after checking that every refusal was for buying power.
pub fn accepted(answers: &[Answer]) -> usize {
    for a in answers.iter().filter(|a| a.status != 200) {
        assert_eq!(
            (a.status.as_u16(), a.body["error_code"].as_str()),
            (400, Some("INSUFFICIENT_BUYING_POWER")),
            "{}",
            a.body
        );
    }
    answers.iter().filter(|a| a.status == 200).count()
}

/// The account's open orders, read back from the server page by page.
pub async fn open_orders(client: &Client, account: &str) -> Vec<OrderDetail> {
    let (mut open, mut key) = (Vec::new(), None::<String>);
    loop {
        let page = client.orders().open(account, key.as_deref()).await.unwrap();
        let last = page.data.is_empty();
        open.extend(page.data.into_iter().flat_map(|record| record.orders));
        match page.pagination_key {
            Some(next) if !last => key = Some(next),
            _ => return open,
        }
    }
}

/// The cash the account's open buys claim.
pub async fn claimed(client: &Client, account: &str) -> Decimal {
    let number = |text: &str| text.parse::<Decimal>().unwrap();
    open_orders(client, account)
        .await
        .iter()
        .map(|o| (number(&o.total_quantity) - number(&o.filled_quantity)) * number(o.limit_price.as_deref().unwrap()))
        .sum()
}

pub async fn cancel_all(client: &Client, account: &str) {
    for o in open_orders(client, account).await {
        client.orders().cancel(account, &o.client_order_id).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn placements_sent_at_once_are_accepted_as_far_as_the_buying_power_goes() {
    let server = TestServer::start_market("2013-02-25", 7).await;
    let client = server.client();
    // CASH: 100,000 USD of buying power; MARGIN: twice its equity, 200,000 USD.
    for (account, power) in [
        (&server.app.account_ids[0], 100_000u64),
        (&server.app.account_ids[1], 200_000),
    ] {
        for round in 0..4 {
            // 24 placements at once, each claiming 30 % of the buying power: three fit.
            let quantity = power * 3 / 10 / 10;
            let answers = send_together(placements(&client, account, &format!("r{round}"), 24, quantity)).await;
            let claims = claimed(&client, account).await;
            assert_eq!(
                (accepted(&answers), claims),
                (3, Decimal::from(3 * quantity * 10)),
                "account {account}, round {round}"
            );
            let balance = client.accounts().balance(account).await.unwrap();
            let buying_power: Decimal = balance.account_currency_assets[0].buying_power.parse().unwrap();
            assert_eq!(
                buying_power,
                Decimal::from(power) - claims,
                "what the balance shows is what is left"
            );
            cancel_all(&client, account).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn replacements_batches_and_placements_at_once_never_claim_beyond_the_buying_power() {
    let server = TestServer::start_market("2013-02-25", 7).await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    // 100,000 USD; four orders of 10,000 USD each are open.
    for n in 0..4 {
        let body = json!({"account_id": account, "new_orders": [resting_buy(&format!("open-{n}"), 1_000)]});
        let _: Value = client.post("/trading/orders/place", &body).await.unwrap();
    }
    // At once: each open order raised to 25,000 (+15,000), eight placements of 20,000, and four
    // batches of two orders of 15,000 (+30,000 each).
    let mut requests: Vec<(Decimal, SignedRequest)> = Vec::new();
    let post = |path: &str, body: Value| signed_post(&client, path, &body);
    for n in 0..4 {
        let body = json!({"account_id": account, "modify_orders": [{"client_order_id": format!("open-{n}"), "quantity": "2500"}]});
        requests.push((Decimal::from(15_000), post("/trading/orders/replace", body)));
    }
    for n in 0..8 {
        let body = json!({"account_id": account, "new_orders": [resting_buy(&format!("new-{n}"), 2_000)]});
        requests.push((Decimal::from(20_000), post("/trading/orders/place", body)));
    }
    for n in 0..4 {
        let orders = [
            resting_buy(&format!("batch-{n}-a"), 1_500),
            resting_buy(&format!("batch-{n}-b"), 1_500),
        ];
        let body = json!({"account_id": account, "batch_orders": orders});
        requests.push((Decimal::from(30_000), post("/trading/orders/batch-place", body)));
    }
    let (raises, signed): (Vec<Decimal>, Vec<SignedRequest>) = requests.into_iter().unzip();
    let answers = send_together(signed).await;
    accepted(&answers);
    let claims = claimed(&client, &account).await;
    let accepted_raises: Decimal = raises
        .iter()
        .zip(&answers)
        .filter(|(_, a)| a.status == 200)
        .map(|(r, _)| r)
        .sum();
    assert_eq!(
        claims,
        Decimal::from(40_000) + accepted_raises,
        "every accepted change is open as accepted"
    );
    assert!(
        claims <= Decimal::from(100_000),
        "the open orders claim {claims} of 100,000 USD"
    );
    // Claims only grew: each refusal would still be refused, so none was refused while it fit.
    let left = Decimal::from(100_000) - claims;
    for (raise, _) in raises.iter().zip(&answers).filter(|(_, a)| a.status != 200) {
        assert!(*raise > left, "a change of {raise} was refused although {left} is left");
    }
}

/// A server keeps what a SQLite file's orders claim in its memory: a second server on the same
/// file would promise the same cash again, so it is refused (several nodes share PostgreSQL).
#[tokio::test]
async fn a_second_server_on_the_same_sqlite_file_is_refused() {
    let server = TestServer::start().await;
    if std::env::var("SIGNET_TEST_BACKEND").as_deref() == Ok("postgres") {
        return;
    }
    let database = server.open_again().await;
    let config = signet_server::ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        ..signet_server::ServerConfig::default()
    };
    let refused = signet_server::Server::bind(config, &database)
        .await
        .err()
        .expect("refused");
    assert!(refused.to_string().contains("one server per SQLite file"), "{refused}");
    // Once the first stops, the file can be served again.
    let server = server.restart().await;
    assert!(server.client().accounts().list().await.is_ok());
}

/// A client resending an order it placed (a retry) at the moment it places a new one: the resent
/// order is refused as a duplicate and claims nothing, so it cannot refuse the new one. The
/// account's lock is held from outside so that all of them share one turn (PostgreSQL pass).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_resent_order_in_the_same_turn_does_not_refuse_a_new_one() {
    if std::env::var("SIGNET_TEST_BACKEND").as_deref() != Ok("postgres") {
        return;
    }
    let server = TestServer::start_market("2013-02-25", 7).await;
    let signet_server::database::Location::Postgres { url } = &server.location else {
        unreachable!()
    };
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    // 100,000 USD; "first" claims 10,000.
    let body = json!({"account_id": account, "new_orders": [resting_buy("first", 1_000)]});
    let _: Value = client.post("/trading/orders/place", &body).await.unwrap();

    let db = sqlx::PgPool::connect(url).await.unwrap();
    let mut held = db.begin().await.unwrap();
    sqlx::query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
        .bind(0x7369_676e_i32)
        .bind(account.as_str())
        .execute(&mut *held)
        .await
        .unwrap();
    // Ten resends of "first" for 50,000, then a new order of 45,000: 10,000 + 45,000 fits.
    let prepare = |id: &str, quantity: u64| {
        let body = json!({"account_id": account, "new_orders": [resting_buy(id, quantity)]});
        signed_post(&client, "/trading/orders/place", &body)
    };
    let resends: Vec<_> = (0..10)
        .map(|_| tokio::spawn(crate::common::send(prepare("first", 5_000))))
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let new = tokio::spawn(crate::common::send(prepare("new", 4_500)));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    held.commit().await.unwrap();

    let new = new.await.unwrap();
    assert_eq!(new.status, 200, "{}", new.body);
    for resend in resends {
        let resend = resend.await.unwrap();
        resend.assert_error(409, "DUPLICATE_CLIENT_ORDER_ID");
    }
    assert_eq!(claimed(&client, &account).await, Decimal::from(10_000 + 45_000));
}
