//! Revoking an app ends what outlives a request: its trade-events streams (an `AuthError`, then
//! `UNAUTHENTICATED`, which the official client does not retry) and its MQTT sessions (closed;
//! a reconnection is refused with 4, which the client does not retry either), within 5 s. The
//! same across nodes sharing PostgreSQL is in `nodes.rs`.

use std::time::{Duration, Instant};

use secrecy::ExposeSecret;
use serde_json::Value;
use signet_server::events::proto::SubscribeResponse;
use tonic::{Code, Streaming};

use crate::common::{LATE, TestServer};

/// Reads `stream` until it ends, within `within`: the `AuthError` it ended with, and its status.
pub async fn revoked_end(stream: &mut Streaming<SubscribeResponse>, within: Duration) -> (Value, tonic::Status) {
    let deadline = tokio::time::Instant::now() + within;
    let mut auth_error = None;
    loop {
        let next = tokio::time::timeout_at(deadline, stream.message())
            .await
            .expect("the stream ends in time");
        match next {
            Ok(Some(m)) if m.event_type == 2 => auth_error = Some(serde_json::from_str(&m.payload).unwrap()),
            Ok(Some(m)) => assert!(
                auth_error.is_none() && [0, 1].contains(&m.event_type),
                "nothing but SubscribeSuccess and pings before the AuthError: {m:?}"
            ),
            Ok(None) => panic!("ended without a status"),
            Err(status) => return (auth_error.expect("an AuthError before the status"), status),
        }
    }
}

#[tokio::test]
async fn revoking_an_app_ends_its_event_streams_and_mqtt_sessions_within_5_s() {
    use rumqttc::{ConnectReturnCode, ConnectionError, Event, MqttOptions, Packet};

    let server = TestServer::start_with(|c| c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap())).await;
    let key = server.app.app_key.clone();
    let secret = server.app.app_secret.expose_secret().to_owned();
    let account = server.app.account_ids[0].clone();
    let mut stream = crate::events::subscribe_with(
        &server.addr.to_string(),
        &key,
        &secret,
        &[&account],
        &crate::events::nonce(),
    )
    .await
    .unwrap();
    assert_eq!(
        stream.message().await.unwrap().unwrap().event_type,
        0,
        "SubscribeSuccess"
    );
    // An MQTT session, bound (subscribing to an unknown symbol binds it too: the signed call
    // names it), and an unbound one.
    let mqtt = server.mqtt_addr.unwrap();
    let mut options = MqttOptions::new("revoked", mqtt.ip().to_string(), mqtt.port());
    options.set_credentials(key.as_str(), "0123456789abcdef");
    let (_client, mut events) = rumqttc::AsyncClient::new(options.clone(), 16);
    while !matches!(events.poll().await.unwrap(), Event::Incoming(Packet::ConnAck(_))) {}
    let body = serde_json::json!({"session_id": "revoked", "symbols": ["NOPE"], "category": "US_STOCK", "sub_types": ["SNAPSHOT"]});
    let request = server
        .client()
        .prepare(
            reqwest::Method::POST,
            "/market-data/streaming/subscribe",
            &[],
            Some(serde_json::to_vec(&body).unwrap()),
        )
        .unwrap();
    crate::common::send(request)
        .await
        .assert_error(400, "INSTRUMENT_NOT_FOUND");
    let (mut unbound, connack) =
        crate::streaming::raw_connect(&server, crate::streaming::socket(), "unbound", &key, 60).await;
    assert_eq!(connack, [0x20, 2, 0, 0]);
    // Another app's stream is left alone.
    let other = server
        .admin()
        .create_app("other", rust_decimal::Decimal::from(1000))
        .await
        .unwrap();
    crate::common::record_secret(other.app_secret.expose_secret());
    let mut others = crate::events::subscribe_with(
        &server.addr.to_string(),
        &other.app_key,
        other.app_secret.expose_secret(),
        &[],
        &crate::events::nonce(),
    )
    .await
    .unwrap();
    assert_eq!(others.message().await.unwrap().unwrap().event_type, 0);

    server.admin().revoke_app(&key).await.unwrap();
    let revoked = Instant::now();
    // Each node looks for revoked apps every second.
    let within = Duration::from_secs(1) + LATE;
    let (auth_error, status) = revoked_end(&mut stream, within).await;
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
    assert_eq!(auth_error["error_code"], "UNAUTHORIZED", "{auth_error}");
    assert!(
        auth_error["message"].as_str().unwrap().contains("revoked"),
        "{auth_error}"
    );
    let mqtt_closed = tokio::time::timeout_at((revoked + within).into(), async {
        loop {
            if events.poll().await.is_err() {
                return;
            }
        }
    })
    .await;
    assert!(mqtt_closed.is_ok(), "the MQTT session is closed");
    let mut byte = Vec::new();
    tokio::time::timeout_at(
        (revoked + within).into(),
        tokio::io::AsyncReadExt::read_to_end(&mut unbound, &mut byte),
    )
    .await
    .expect("the unbound connection is closed too")
    .unwrap();
    let took = revoked.elapsed();
    eprintln!("revocation ended the stream and the sessions in {took:?}");
    assert!(took < within, "{took:?}");
    // The client's reconnection is refused with a code it does not retry.
    let (_client, mut events) = rumqttc::AsyncClient::new(options, 16);
    loop {
        match events.poll().await {
            Ok(_) => continue,
            Err(ConnectionError::ConnectionRefused(code)) => {
                assert_eq!(code, ConnectReturnCode::BadUserNamePassword);
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    // The other app's stream is open: its next message is a ping, not the end.
    assert!(
        tokio::time::timeout(Duration::from_secs(1), others.message())
            .await
            .is_err(),
        "still open"
    );
}
