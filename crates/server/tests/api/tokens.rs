//! The start-up calls and the token mechanism, with and without `--require-token`.

use rust_decimal::Decimal;
use signet_model::{ErrorCode, TokenStatus};
use signet_store::TokenSelector;

use crate::common::TestServer;

#[tokio::test]
async fn config_reports_whether_tokens_are_required() {
    let server = TestServer::start().await;
    assert!(!server.client().config().await.unwrap().token_check_enabled);
    let server = TestServer::start_with(|c| c.require_token = true).await;
    assert!(server.client().config().await.unwrap().token_check_enabled);
}

#[tokio::test]
async fn a_token_is_pending_until_approved_then_opens_every_call() {
    let server = TestServer::start_with(|c| c.require_token = true).await;
    let client = server.client();

    let refused = client.accounts().list().await.unwrap_err();
    assert_eq!(refused.code(), Some(ErrorCode::InvalidToken), "{refused}");

    let created = client.tokens().create(None).await.unwrap();
    assert_eq!(created.status, TokenStatus::Pending);
    let now_ms = signet_domain::simulator::clock::wall_clock_ms();
    let fifteen_days = 15 * 24 * 3600 * 1000;
    assert!(
        (created.expires - now_ms - fifteen_days).abs() < 60_000,
        "expires in 15 days: {}",
        created.expires
    );
    assert_eq!(
        client.tokens().check(&created.token).await.unwrap().status,
        TokenStatus::Pending
    );

    let pending = client.clone().with_access_token(&created.token);
    assert_eq!(
        pending.accounts().list().await.unwrap_err().code(),
        Some(ErrorCode::InvalidToken)
    );

    let approved = server
        .admin()
        .approve_tokens(TokenSelector::App(&server.app.app_key))
        .await
        .unwrap();
    assert_eq!(approved, 1);
    assert_eq!(
        client.tokens().check(&created.token).await.unwrap().status,
        TokenStatus::Normal
    );
    assert_eq!(pending.accounts().list().await.unwrap().len(), 2);

    // A saved, approved token is handed back as it is.
    let again = client.tokens().create(Some(&created.token)).await.unwrap();
    assert_eq!(
        (again.token.as_str(), again.status),
        (created.token.as_str(), TokenStatus::Normal)
    );
}

#[tokio::test]
async fn a_token_works_only_for_its_own_app() {
    let server = TestServer::start_with(|c| c.require_token = true).await;
    let token = server.client().tokens().create(None).await.unwrap().token;
    server
        .admin()
        .approve_tokens(TokenSelector::Hash(&signet_server::tokens::hash_token(&token)))
        .await
        .unwrap();

    let other = server.admin().create_app("other", Decimal::ZERO).await.unwrap();
    let other_client = server.client_for(&other);
    assert_eq!(
        other_client.tokens().check(&token).await.unwrap().status,
        TokenStatus::Invalid
    );
    let borrowed = other_client.with_access_token(&token);
    assert_eq!(
        borrowed.accounts().list().await.unwrap_err().code(),
        Some(ErrorCode::InvalidToken)
    );
}

#[tokio::test]
async fn unknown_and_expired_tokens() {
    let server = TestServer::start_with(|c| {
        c.require_token = true;
        c.token_ttl = std::time::Duration::from_millis(1);
    })
    .await;
    let client = server.client();
    assert_eq!(
        client.tokens().check("nope").await.unwrap().status,
        TokenStatus::Invalid
    );
    let token = client.tokens().create(None).await.unwrap().token;
    server
        .admin()
        .approve_tokens(TokenSelector::App(&server.app.app_key))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    assert_eq!(
        client.tokens().check(&token).await.unwrap().status,
        TokenStatus::Expired
    );
    let expired = client.clone().with_access_token(&token);
    assert_eq!(
        expired.accounts().list().await.unwrap_err().code(),
        Some(ErrorCode::InvalidToken)
    );
    // An expired saved token is replaced by a new one.
    let fresh = client.tokens().create(Some(&token)).await.unwrap();
    assert_ne!(fresh.token, token);
}

#[tokio::test]
async fn check_needs_a_token() {
    let server = TestServer::start().await;
    let e = server
        .client()
        .post::<_, serde_json::Value>("/auth/tokens/check", &serde_json::json!({}))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::IllegalParameter));
}
