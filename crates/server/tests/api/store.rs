//! The storage traits against a real database: a SQLite file, or PostgreSQL with
//! `SIGNET_TEST_BACKEND=postgres`.

use std::sync::Arc;

use rust_decimal::Decimal;
use secrecy::SecretString;
use signet_model::{AccountType, TokenStatus};
use signet_server::{Database, Durability, OpenError};
use signet_store::{AccountRecord, AppRecord, AppStatus, Store, StoreError, TokenRecord, TokenSelector};

/// A new, empty store of the backend under test (see `crate::common::fresh_location`).
async fn store() -> (tempfile::TempDir, Arc<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let location = crate::common::fresh_location(dir.path()).await;
    let store = crate::common::open(&location, dir.path()).await.store;
    (dir, store)
}

fn app(key: &str) -> AppRecord {
    AppRecord {
        app_key: key.into(),
        name: format!("app {key}"),
        sealed_secret: vec![1, 2, 3],
        status: AppStatus::Active,
        user_id: "u1".into(),
        created_at: 1,
        admin: false,
    }
}

fn account(id: &str, app_key: &str, account_type: AccountType) -> AccountRecord {
    AccountRecord {
        account_id: id.into(),
        app_key: app_key.into(),
        account_type,
        account_label: "label".into(),
        currency: "USD".into(),
        cash: Decimal::new(10_000_055, 2),
        created_at: 2,
    }
}

#[tokio::test]
async fn nonces_are_single_use_until_purged() {
    let (_dir, store) = store().await;
    assert!(store.remember(&"k".into(), "n1", 1_000).await.unwrap());
    assert!(!store.remember(&"k".into(), "n1", 1_000).await.unwrap());
    assert!(
        store.remember(&"other-app".into(), "n1", 1_000).await.unwrap(),
        "nonces are per app"
    );
    assert!(store.remember(&"k".into(), "n2", 5_000).await.unwrap());
    assert_eq!(store.purge_expired(2_000).await.unwrap(), 2);
    assert!(
        !store.remember(&"k".into(), "n2", 5_000).await.unwrap(),
        "unexpired nonces stay"
    );
    assert!(
        store.remember(&"k".into(), "n1", 9_000).await.unwrap(),
        "a purged nonce is forgotten"
    );
}

#[tokio::test]
async fn purging_works_in_batches() {
    let (_dir, store) = store().await;
    for i in 0..12_000 {
        store.remember(&"k".into(), &format!("n{i}"), 10).await.unwrap();
    }
    assert_eq!(store.purge_expired(11).await.unwrap(), 12_000);
    assert_eq!(store.purge_expired(11).await.unwrap(), 0);
}

#[tokio::test]
async fn of_concurrent_copies_of_a_nonce_exactly_one_is_new() {
    let (_dir, store) = store().await;
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..64 {
        let store = store.clone();
        tasks.spawn(async move { store.remember(&"k".into(), "same", 1_000).await.unwrap() });
    }
    let mut new = 0;
    while let Some(fresh) = tasks.join_next().await {
        new += usize::from(fresh.unwrap());
    }
    assert_eq!(new, 1);
}

#[tokio::test]
async fn apps_and_accounts() {
    let (_dir, store) = store().await;
    let accounts = [
        account("A2", "k1", AccountType::Margin),
        account("A1", "k1", AccountType::Cash),
    ];
    store.create_app(&app("k1"), &accounts).await.unwrap();
    assert!(matches!(
        store.create_app(&app("k1"), &[]).await,
        Err(StoreError::Conflict(_))
    ));

    let read = store.app(&"k1".into()).await.unwrap().unwrap();
    assert_eq!((read.sealed_secret, read.status), (vec![1, 2, 3], AppStatus::Active));
    assert!(store.app(&"nope".into()).await.unwrap().is_none());

    let listed = store.accounts(Some(&"k1".into())).await.unwrap();
    let ids: Vec<&str> = listed.iter().map(|a| a.account_id.as_str()).collect();
    assert_eq!(ids, ["A1", "A2"], "CASH before MARGIN when created together");
    assert_eq!(listed[0].cash.to_string(), "100000.55", "money keeps its decimals");
    assert!(store.accounts(Some(&"k2".into())).await.unwrap().is_empty());
    assert_eq!(
        store.account(&"A2".into()).await.unwrap().unwrap().account_type,
        AccountType::Margin
    );
    assert!(store.account(&"nope".into()).await.unwrap().is_none());

    store.create_app(&app("k2"), &[]).await.unwrap();
    store
        .create_account(&account("B1", "k2", AccountType::Cash))
        .await
        .unwrap();
    assert_eq!(store.accounts(None).await.unwrap().len(), 3);
    assert!(
        store
            .create_account(&account("C1", "missing", AccountType::Cash))
            .await
            .is_err(),
        "an account belongs to an existing app"
    );

    assert!(store.set_app_status(&"k1".into(), AppStatus::Revoked).await.unwrap());
    assert_eq!(
        store.app(&"k1".into()).await.unwrap().unwrap().status,
        AppStatus::Revoked
    );
    assert!(!store.set_app_status(&"nope".into(), AppStatus::Revoked).await.unwrap());
    assert_eq!(store.apps().await.unwrap().len(), 2);
}

#[tokio::test]
async fn creating_an_app_is_atomic() {
    let (_dir, store) = store().await;
    let clash = [
        account("A1", "k1", AccountType::Cash),
        account("A1", "k1", AccountType::Margin),
    ];
    assert!(store.create_app(&app("k1"), &clash).await.is_err());
    assert!(
        store.app(&"k1".into()).await.unwrap().is_none(),
        "no app without its accounts"
    );
}

#[tokio::test]
async fn tokens_move_between_statuses() {
    let (_dir, store) = store().await;
    store.create_app(&app("k1"), &[]).await.unwrap();
    let token = |hash: &str| TokenRecord {
        token_hash: hash.into(),
        token_hint: "abcdef".into(),
        app_key: "k1".into(),
        status: TokenStatus::Pending,
        created_at: 1,
        expires_at: 100,
    };
    store.create_token(&token("h1")).await.unwrap();
    store.create_token(&token("h2")).await.unwrap();
    assert_eq!(
        store
            .set_token_status(TokenSelector::Hash("h1"), TokenStatus::Pending, TokenStatus::Normal)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .set_token_status(TokenSelector::Hash("h1"), TokenStatus::Pending, TokenStatus::Normal)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        store
            .set_token_status(TokenSelector::App("k1"), TokenStatus::Pending, TokenStatus::Normal)
            .await
            .unwrap(),
        1
    );
    let h1 = store.token("h1").await.unwrap().unwrap();
    assert_eq!(h1.status_at(50), TokenStatus::Normal);
    assert_eq!(h1.status_at(100), TokenStatus::Expired);
    assert_eq!(store.tokens(Some(&"k1".into())).await.unwrap().len(), 2);
    assert!(store.token("h3").await.unwrap().is_none());
}

#[tokio::test]
async fn meta_is_set_once() {
    let (_dir, store) = store().await;
    assert_eq!(store.meta("x").await.unwrap(), None);
    assert_eq!(store.init_meta("x", "first").await.unwrap(), "first");
    assert_eq!(store.init_meta("x", "second").await.unwrap(), "first");
    store.ping().await.unwrap();
}

#[tokio::test]
async fn a_database_refuses_another_master_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keyed.db");
    let first = Database::open_sqlite(&path, Durability::Normal, None).await.unwrap();
    first.store.close().await;
    assert!(dir.path().join("keyed.db.key").exists());
    let other = SecretString::from("11".repeat(32));
    let refused = Database::open_sqlite(&path, Durability::Normal, Some(&other))
        .await
        .unwrap_err();
    assert!(matches!(refused, OpenError::KeyMismatch { .. }), "{refused}");
    Database::open_sqlite(&path, Durability::Normal, None)
        .await
        .expect("the right key still opens it");
}
