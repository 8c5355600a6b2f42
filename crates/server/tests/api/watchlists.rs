//! Watchlists against a real server: the life cycle, ownership, limits, Unicode names, unknown
//! symbols, idempotent adds, and concurrent adds to one watchlist.

use std::sync::Arc;

use serde_json::{Value, json};
use signet_client::{Client, Error};
use signet_import::{Progress, import_file};
use signet_model::ErrorCode;
use signet_model::watchlists::{Watchlist, WatchlistInstruments};

use crate::common::TestServer;

async fn server(adjust: impl FnOnce(&mut signet_server::ServerConfig)) -> TestServer {
    let server = TestServer::start_with(adjust).await;
    let universe = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/demo/us_listed_companies.csv");
    import_file(
        server.database.store.clone(),
        &universe,
        &Default::default(),
        Arc::new(Progress::default()),
    )
    .await
    .unwrap();
    server
}

async fn create(client: &Client, name: &str, sort: Option<i64>) -> Result<Watchlist, Error> {
    let mut body = json!({"name": name});
    if let Some(sort) = sort {
        body["sort"] = json!(sort);
    }
    client.post("/market-data/watchlists/create", &body).await
}

async fn change(client: &Client, what: &str, id: &str, instruments: Value) -> Result<WatchlistInstruments, Error> {
    client
        .post(
            &format!("/market-data/watchlists/instruments/{what}"),
            &json!({"watchlist_id": id, "instruments": instruments}),
        )
        .await
}

async fn contents(client: &Client, id: &str) -> Result<Vec<(String, i64)>, Error> {
    let list: WatchlistInstruments = client
        .get("/market-data/watchlists/instruments/list", &[("watchlist_id", id)])
        .await?;
    Ok(list.instruments.into_iter().map(|i| (i.symbol, i.sort)).collect())
}

fn code(e: Error) -> (u16, ErrorCode) {
    match &e {
        Error::Api { status, .. } => (*status, e.code().unwrap()),
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn a_watchlist_lives_from_create_to_delete() {
    let server = server(|_| {}).await;
    let client = server.client();
    let tech = create(&client, "Tech", Some(5)).await.unwrap();
    let other = create(&client, "Banks", None).await.unwrap();
    assert_eq!(other.sort, 6, "without a sort, at the top");
    let lists: Vec<Watchlist> = client.get("/market-data/watchlists/list", &[]).await.unwrap();
    assert_eq!(
        lists.iter().map(|w| w.name.as_str()).collect::<Vec<_>>(),
        ["Banks", "Tech"],
        "by sort, highest first"
    );
    assert!(tech.create_time.ends_with('Z'));

    let renamed: Watchlist = client
        .post(
            "/market-data/watchlists/update",
            &json!({"watchlist_id": tech.watchlist_id, "sort": 10}),
        )
        .await
        .unwrap();
    assert_eq!(
        (renamed.name.as_str(), renamed.sort),
        ("Tech", 10),
        "only the fields given change"
    );

    let id = tech.watchlist_id.as_str();
    change(&client, "add", id, json!([{"symbol": "AAPL", "category": "US_STOCK", "sort": 3}, {"symbol": "msft", "category": "US_STOCK", "sort": 1}])).await.unwrap();
    change(&client, "add", id, json!([{"symbol": "NVDA", "category": "US_STOCK"}]))
        .await
        .unwrap();
    assert_eq!(
        contents(&client, id).await.unwrap(),
        [("NVDA".into(), 4), ("AAPL".into(), 3), ("MSFT".into(), 1)]
    );
    let again = change(
        &client,
        "add",
        id,
        json!([{"symbol": "AAPL", "category": "US_STOCK", "sort": 99}]),
    )
    .await
    .unwrap();
    assert_eq!(
        again.instruments.len(),
        3,
        "adding an instrument present changes nothing"
    );

    change(
        &client,
        "update",
        id,
        json!([{"symbol": "MSFT", "category": "US_STOCK", "sort": 9}]),
    )
    .await
    .unwrap();
    assert_eq!(contents(&client, id).await.unwrap()[0], ("MSFT".into(), 9));
    let removed = change(
        &client,
        "remove",
        id,
        json!([{"symbol": "NVDA", "category": "US_STOCK"}, {"symbol": "IBM", "category": "US_STOCK"}]),
    )
    .await
    .unwrap();
    assert_eq!(
        removed.instruments.len(),
        2,
        "removing an absent instrument is no error"
    );

    let deleted: Value = client
        .post("/market-data/watchlists/delete", &json!({"watchlist_id": id}))
        .await
        .unwrap();
    assert_eq!(deleted["deleted"], true);
    assert_eq!(
        code(contents(&client, id).await.unwrap_err()),
        (404, ErrorCode::WatchlistNotFound)
    );
}

#[tokio::test]
async fn another_apps_watchlist_does_not_exist() {
    let server = server(|_| {}).await;
    let mine = create(&server.client(), "Mine", None).await.unwrap();
    let other = server
        .admin()
        .create_app("other", rust_decimal::Decimal::ZERO)
        .await
        .unwrap();
    let theirs = server.client_for(&other);
    let id = mine.watchlist_id.as_str();
    assert_eq!(
        code(contents(&theirs, id).await.unwrap_err()),
        (404, ErrorCode::WatchlistNotFound)
    );
    let add = change(&theirs, "add", id, json!([{"symbol": "AAPL", "category": "US_STOCK"}]))
        .await
        .unwrap_err();
    assert_eq!(code(add).1, ErrorCode::WatchlistNotFound);
    let rename = theirs
        .post::<_, Value>(
            "/market-data/watchlists/update",
            &json!({"watchlist_id": id, "name": "x"}),
        )
        .await;
    assert_eq!(code(rename.unwrap_err()).1, ErrorCode::WatchlistNotFound);
    let delete = theirs
        .post::<_, Value>("/market-data/watchlists/delete", &json!({"watchlist_id": id}))
        .await;
    assert_eq!(code(delete.unwrap_err()).1, ErrorCode::WatchlistNotFound);
    let lists: Vec<Watchlist> = theirs.get("/market-data/watchlists/list", &[]).await.unwrap();
    assert!(lists.is_empty());
}

#[tokio::test]
async fn limits_are_enforced_with_clear_errors() {
    let server = server(|c| {
        c.watchlists.watchlists_per_app = 2;
        c.watchlists.instruments_per_watchlist = 3;
    })
    .await;
    let client = server.client();
    let first = create(&client, "one", None).await.unwrap();
    create(&client, "two", None).await.unwrap();
    let (status, error) = code(create(&client, "three", None).await.unwrap_err());
    assert_eq!((status, error), (400, ErrorCode::LimitExceeded));

    let id = first.watchlist_id.as_str();
    change(&client, "add", id, json!([{"symbol": "AAPL"}, {"symbol": "MSFT"}]))
        .await
        .unwrap();
    let over = change(&client, "add", id, json!([{"symbol": "IBM"}, {"symbol": "NVDA"}]))
        .await
        .unwrap_err();
    assert_eq!(code(over), (400, ErrorCode::LimitExceeded));
    assert_eq!(contents(&client, id).await.unwrap().len(), 2, "nothing added");
}

#[tokio::test]
async fn names_are_any_unicode_up_to_64_characters() {
    let server = server(|_| {}).await;
    let client = server.client();
    let name = "科技 股票 <&> 🚀";
    assert_eq!(create(&client, name, None).await.unwrap().name, name);
    assert!(create(&client, &"é".repeat(64), None).await.is_ok());
    for bad in ["", "   ", &"é".repeat(65), "tab\there"] {
        assert_eq!(
            code(create(&client, bad, None).await.unwrap_err()).1,
            ErrorCode::IllegalParameter,
            "{bad:?}"
        );
    }
    let null = client
        .post::<_, Value>("/market-data/watchlists/create", &json!({"name": null}))
        .await
        .unwrap_err();
    assert_eq!(code(null).1, ErrorCode::IllegalParameter);
}

#[tokio::test]
async fn unknown_symbols_and_categories_are_refused() {
    let server = server(|_| {}).await;
    let client = server.client();
    let id = create(&client, "x", None).await.unwrap().watchlist_id;
    let unknown = change(&client, "add", &id, json!([{"symbol": "AAPL"}, {"symbol": "NOPE"}]))
        .await
        .unwrap_err();
    assert_eq!(code(unknown), (400, ErrorCode::InstrumentNotFound));
    assert!(contents(&client, &id).await.unwrap().is_empty(), "nothing added");
    let crypto = change(
        &client,
        "add",
        &id,
        json!([{"symbol": "AAPL", "category": "US_CRYPTO"}]),
    )
    .await
    .unwrap_err();
    assert_eq!(code(crypto), (400, ErrorCode::IllegalParameter));
}

#[tokio::test]
async fn concurrent_adds_lose_nothing_and_duplicate_nothing() {
    let server = server(|_| {}).await;
    let client = server.client();
    let id = create(&client, "busy", None).await.unwrap().watchlist_id;
    let symbols = ["AAPL", "MSFT", "IBM", "NVDA", "GOOGL", "AMZN", "META", "TSLA"];
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..16 {
        let (client, id) = (client.clone(), id.clone());
        let batch: Vec<Value> = (0..3)
            .map(|k| json!({"symbol": symbols[(i + k) % symbols.len()]}))
            .collect();
        tasks.spawn(async move { change(&client, "add", &id, json!(batch)).await });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap().unwrap();
    }
    let mut held: Vec<String> = contents(&client, &id)
        .await
        .unwrap()
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    held.sort();
    let mut expected: Vec<String> = symbols.iter().map(ToString::to_string).collect();
    expected.sort();
    assert_eq!(held, expected);
}

/// A `sort` at `i64::MAX` was accepted, after which "at the top" (the highest plus one)
/// overflowed: every later watchlist or instrument created without a sort failed with 500. A
/// sort is now within ±(2^53 - 1), and the top stays at that bound.
#[tokio::test]
async fn a_sort_is_bounded_so_that_the_top_always_fits() {
    use signet_model::watchlists::MAX_SORT;
    let server = server(|_| {}).await;
    let client = server.client();
    for sort in [i64::MAX, i64::MIN, MAX_SORT + 1, -MAX_SORT - 1] {
        let refused = code(create(&client, "far", Some(sort)).await.unwrap_err());
        assert_eq!(refused, (400, ErrorCode::IllegalParameter), "{sort}");
    }
    let top = create(&client, "top", Some(MAX_SORT)).await.unwrap();
    create(&client, "bottom", Some(-MAX_SORT)).await.unwrap();
    // Created a moment later, so that the tie is broken by the creation time.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let next = create(&client, "next", None).await.unwrap();
    assert_eq!(next.sort, MAX_SORT, "at the top, level with the highest");
    let list = client.watchlists().list().await.unwrap();
    let names: Vec<&str> = list.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["next", "top", "bottom"], "a tie lists the newest first");
    let refused = client
        .watchlists()
        .update(&top.watchlist_id, None, Some(i64::MAX))
        .await;
    assert_eq!(code(refused.unwrap_err()), (400, ErrorCode::IllegalParameter));

    let id = top.watchlist_id.as_str();
    change(&client, "add", id, json!([{"symbol": "AAPL", "sort": MAX_SORT}]))
        .await
        .unwrap();
    change(&client, "add", id, json!([{"symbol": "MSFT"}])).await.unwrap();
    for (what, symbol) in [("add", "IBM"), ("update", "AAPL")] {
        let far = change(&client, what, id, json!([{"symbol": symbol, "sort": i64::MAX}])).await;
        assert_eq!(code(far.unwrap_err()), (400, ErrorCode::IllegalParameter), "{what}");
    }
    let mut sorted = contents(&client, id).await.unwrap();
    sorted.sort();
    assert_eq!(sorted, [("AAPL".to_owned(), MAX_SORT), ("MSFT".to_owned(), MAX_SORT)]);
}
