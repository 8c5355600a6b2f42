//! TLS on the HTTP and MQTT listeners (`--tls-cert`/`--tls-key`, `--tls self-signed`): signed
//! calls over HTTPS with HTTP/2 and HTTP/1.1 as ALPN chose, a client that does not trust the
//! authority refusing the server, plain HTTP and silent connections closed, the certificate
//! swapped for new connections while an open one keeps its own, and the trade events and the
//! quotes feed over TLS.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use secrecy::ExposeSecret;
use signet_client::{Client, Error, Pushed, SubType, Trust};
use signet_server::ServerConfig;
use signet_server::tls::{SelfSigned, self_signed, self_signed_names};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::{LATE, TestServer, until_closed};

/// A local authority and a server certificate for the loopback names, in `dir`.
pub fn authority(dir: &Path) -> SelfSigned {
    self_signed(dir, &self_signed_names("127.0.0.1".parse().unwrap(), None)).expect("self-signed certificates")
}

/// A server with TLS on the certificates of `made`.
async fn server_with(made: &SelfSigned, adjust: impl FnOnce(&mut ServerConfig)) -> TestServer {
    let files = made.files.clone();
    TestServer::start_with(move |c| {
        c.tls = Some(files);
        adjust(c);
    })
    .await
}

/// A server on the 2013 market with TLS on the certificates of `made` (and what `adjust` sets),
/// its market stepped ten minutes into the day by an operator app that trusts `made`'s authority.
pub async fn tls_market(made: &SelfSigned, adjust: impl FnOnce(&mut ServerConfig)) -> TestServer {
    let files = made.files.clone();
    let server = TestServer::start_market_with("2013-02-25", 2013, move |c| {
        c.tls = Some(files);
        adjust(c);
    })
    .await;
    let ops = server
        .admin()
        .create_app_with_role("ops", rust_decimal::Decimal::ZERO, true)
        .await
        .unwrap();
    Client::with_trust(
        &https(server.addr),
        &ops.app_key,
        ops.app_secret.expose_secret(),
        trusting(&made.ca),
    )
    .unwrap()
    .market()
    .step(600)
    .await
    .unwrap();
    server
}

pub fn https(addr: SocketAddr) -> String {
    format!("https://127.0.0.1:{}", addr.port())
}

pub fn trusting(ca: &Path) -> Trust {
    Trust::system().add_pem_file(ca).expect("the CA file")
}

fn client(server: &TestServer, trust: Trust) -> Client {
    Client::with_trust(
        &https(server.addr),
        &server.app.app_key,
        server.app.app_secret.expose_secret(),
        trust,
    )
    .expect("client")
}

#[tokio::test]
async fn signed_calls_over_https_with_http2_and_http1_as_alpn_chose() {
    let dir = tempfile::tempdir().unwrap();
    let made = authority(dir.path());
    let server = server_with(&made, |_| {}).await;

    // The SDK's client: HTTP/2 by ALPN.
    let started = Instant::now();
    let accounts = client(&server, trusting(&made.ca))
        .accounts()
        .list()
        .await
        .expect("a signed call over TLS");
    let first_call = started.elapsed();
    assert_eq!(accounts.len(), server.app.account_ids.len());

    for (http1, version) in [(false, reqwest::Version::HTTP_2), (true, reqwest::Version::HTTP_11)] {
        let builder = trusting(&made.ca).apply(reqwest::Client::builder()).unwrap();
        let builder = if http1 { builder.http1_only() } else { builder };
        let http = builder.build().unwrap();
        let health = http.get(format!("{}/health", https(server.addr))).send().await.unwrap();
        assert_eq!(health.status(), 200);
        assert_eq!(health.version(), version, "http1_only: {http1}");
        // A signed call on the same kind of connection, then more on the kept-alive one.
        let signed = Client::with_http_client(
            http,
            &https(server.addr),
            &server.app.app_key,
            server.app.app_secret.expose_secret(),
        )
        .unwrap();
        signed.accounts().list().await.expect("a signed call");
        let started = Instant::now();
        for _ in 0..20 {
            signed.accounts().list().await.unwrap();
        }
        eprintln!(
            "{version:?}: first call with a handshake {first_call:?}; kept alive, {:?} a call",
            started.elapsed() / 20
        );
    }

    // gRPC (the trade events) rides on the same listener over HTTP/2.
    let mut events = client(&server, trusting(&made.ca))
        .events()
        .subscribe(&[])
        .await
        .expect("the trade events over TLS");
    assert!(
        tokio::time::timeout(Duration::from_millis(300), events.next())
            .await
            .is_err(),
        "the subscription stays open, waiting for events"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_client_that_does_not_trust_the_authority_refuses_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let made = authority(&dir.path().join("server"));
    let other = authority(&dir.path().join("other"));
    let server = server_with(&made, |_| {}).await;

    let system_only = Client::new(
        &https(server.addr),
        &server.app.app_key,
        server.app.app_secret.expose_secret(),
    )
    .unwrap();
    for (who, refused) in [
        ("the system's roots", system_only),
        ("another authority", client(&server, trusting(&other.ca))),
    ] {
        match refused.accounts().list().await {
            Err(Error::Transport(e)) => assert!(e.is_connect(), "{who}: {e:?}"),
            other => panic!("{who}: expected a refused connection, got {other:?}"),
        }
    }
    // The same with the wrong name: the certificate is for the loopback names only.
    let wrong_name = tls_connect(server.addr, "signet.example", &made.ca).await;
    assert!(wrong_name.is_err(), "a name the certificate does not cover");
    assert!(tls_connect(server.addr, "localhost", &made.ca).await.is_ok());
    server.stop().await;
}

/// A TLS connection to `addr` for `name`, trusting only `ca`; its ALPN asks for HTTP/1.1.
pub async fn tls_connect(
    addr: SocketAddr,
    name: &str,
    ca: &Path,
) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let mut config =
        rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let stream = TcpStream::connect(addr).await?;
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from(name.to_owned()).unwrap(), stream)
        .await
}

#[tokio::test]
async fn plain_http_and_plain_mqtt_to_a_tls_port_are_closed_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let made = authority(dir.path());
    let server = server_with(&made, |c| c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap())).await;

    // At once: within LATE, where the header timeout would take 10 s.
    let started = Instant::now();
    let mut plain = TcpStream::connect(server.addr).await.unwrap();
    plain
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let (closed_after, received) = until_closed(&mut plain, started, LATE).await;
    eprintln!("plain HTTP to the TLS port: closed after {closed_after:?}");
    assert!(!received.starts_with(b"HTTP/"), "no HTTP answer: {received:?}");

    // An MQTT 3.1.1 CONNECT in the clear (client id "c", keep-alive 30).
    let started = Instant::now();
    let mut plain = TcpStream::connect(server.mqtt_addr.unwrap()).await.unwrap();
    plain
        .write_all(&[0x10, 13, 0, 4, b'M', b'Q', b'T', b'T', 4, 2, 0, 30, 0, 1, b'c'])
        .await
        .unwrap();
    let (closed_after, received) = until_closed(&mut plain, started, LATE).await;
    eprintln!("plain MQTT to the TLS port: closed after {closed_after:?}");
    assert!(received.first() != Some(&0x20), "no CONNACK: {received:?}");
    server.stop().await;
}

#[tokio::test]
async fn silent_connections_are_closed_after_the_header_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let made = authority(dir.path());
    let server = server_with(&made, |c| {
        c.connections.header_timeout = Duration::from_secs(1);
        c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap());
    })
    .await;

    // Nothing at all: no handshake.
    for addr in [server.addr, server.mqtt_addr.unwrap()] {
        let started = Instant::now();
        let mut silent = TcpStream::connect(addr).await.unwrap();
        let (closed_after, _) = until_closed(&mut silent, started, Duration::from_secs(1) + LATE).await;
        eprintln!("a silent connection to {addr}: closed after {closed_after:?}");
        assert!(closed_after >= Duration::from_millis(900), "{closed_after:?}");
    }

    // A handshake, then no request: the same timeout, counted from the connection's start.
    let started = Instant::now();
    let mut handshaken = tls_connect(server.addr, "localhost", &made.ca).await.unwrap();
    let handshake = started.elapsed();
    let mut buffer = [0u8; 64];
    let read = tokio::time::timeout_at(
        (started + Duration::from_secs(1) + LATE).into(),
        handshaken.read(&mut buffer),
    )
    .await
    .expect("closed by the server");
    let closed_after = started.elapsed();
    eprintln!("TLS handshake {handshake:?}; a handshaken connection with no request closed after {closed_after:?}");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    assert!(closed_after >= Duration::from_millis(900), "{closed_after:?}");
    server.stop().await;
}

/// Sends `GET /health` on a kept-alive HTTP/1.1 connection and reads its answer.
async fn health(stream: &mut tokio_rustls::client::TlsStream<TcpStream>) -> String {
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    // The answer is small: its head and body arrive before the server waits again.
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") || !String::from_utf8_lossy(&answer).contains('}') {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
            .await
            .expect("an answer")
            .unwrap();
        assert!(n > 0, "closed: {}", String::from_utf8_lossy(&answer));
        answer.extend_from_slice(&buffer[..n]);
    }
    String::from_utf8_lossy(&answer).into_owned()
}

fn peer_certificate(stream: &tokio_rustls::client::TlsStream<TcpStream>) -> Vec<u8> {
    stream.get_ref().1.peer_certificates().unwrap()[0].as_ref().to_vec()
}

/// The console's session cookie is `Secure` when the server itself speaks TLS: no proxy header
/// and no `--public-host` say so there, and the cookie went out without it.
#[tokio::test]
async fn the_consoles_cookie_is_secure_under_the_servers_own_tls() {
    let dir = tempfile::tempdir().unwrap();
    let made = authority(dir.path());
    let server = server_with(&made, |_| {}).await;
    let link = server
        .admin()
        .console_link(&https(server.addr), Duration::from_secs(60))
        .await
        .unwrap();
    let browser = trusting(&made.ca)
        .apply(reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()))
        .unwrap()
        .build()
        .unwrap();
    let response = browser.get(link).send().await.unwrap();
    assert_eq!(response.status(), 303);
    let cookie = response.headers()[reqwest::header::SET_COOKIE].to_str().unwrap();
    assert!(cookie.contains("; Secure"), "{cookie}");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    server.stop().await;
}

#[tokio::test]
async fn a_reload_swaps_the_certificate_for_new_connections_and_keeps_open_ones() {
    let dir = tempfile::tempdir().unwrap();
    let first = authority(&dir.path().join("first"));
    let second = authority(&dir.path().join("second"));
    let server = server_with(&first, |_| {}).await;
    let old_cert = CertificateDer::from_pem_file(&first.files.cert)
        .unwrap()
        .as_ref()
        .to_vec();

    let mut kept = tls_connect(server.addr, "localhost", &first.ca).await.unwrap();
    assert!(health(&mut kept).await.starts_with("HTTP/1.1 200"));
    assert_eq!(peer_certificate(&kept), old_cert);

    // What an operator does before SIGHUP: new files in place of the old.
    std::fs::copy(&second.files.cert, &first.files.cert).unwrap();
    std::fs::copy(&second.files.key, &first.files.key).unwrap();
    let started = Instant::now();
    server.certificates.as_ref().unwrap().reload().expect("reloaded");
    eprintln!("reload: {:?}", started.elapsed());

    let fresh = tls_connect(server.addr, "localhost", &second.ca)
        .await
        .expect("the new certificate");
    assert_ne!(peer_certificate(&fresh), old_cert);
    assert!(
        tls_connect(server.addr, "localhost", &first.ca).await.is_err(),
        "a new connection no longer gets the old certificate"
    );
    // The signed calls of a client trusting the new authority.
    client(&server, trusting(&second.ca)).accounts().list().await.unwrap();
    // The connection opened before the reload goes on with its own.
    assert!(health(&mut kept).await.starts_with("HTTP/1.1 200"));
    assert_eq!(peer_certificate(&kept), old_cert);

    // A broken file is refused, and the pair in force stays.
    std::fs::write(&first.files.key, "not a key").unwrap();
    assert!(server.certificates.as_ref().unwrap().reload().is_err());
    tls_connect(server.addr, "localhost", &second.ca)
        .await
        .expect("still the second certificate");
    server.stop().await;
}

#[tokio::test]
async fn the_quotes_feed_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let made = authority(&dir.path().join("server"));
    let other = authority(&dir.path().join("other"));
    let server = tls_market(&made, |c| c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap())).await;
    let mqtt = server.mqtt_addr.unwrap().to_string();

    // A client that does not trust the authority does not connect.
    match client(&server, trusting(&other.ca)).quotes().connect(&mqtt).await {
        Err(Error::Feed(e)) => assert!(e.contains("cannot reach"), "{e}"),
        other => panic!(
            "expected a refused connection, got {:?}",
            other.map(|s| s.session_id().to_owned())
        ),
    }
    // One that does connects over TLS, subscribes over HTTPS and receives its quotes.
    let mut stream = client(&server, trusting(&made.ca))
        .quotes()
        .stream(&mqtt, &["AAPL"], &[SubType::Snapshot])
        .await
        .expect("connected and subscribed over TLS");
    let first = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("a message within 5 s")
        .expect("the stream is open")
        .expect("a message");
    assert!(matches!(first, Pushed::Snapshot(_)), "{first:?}");
    drop(stream);
    server.stop().await;
}

/// The official Python client, unmodified and with its defaults (HTTPS, `tls_enable=True`),
/// against a server with a self-signed authority: which variable makes each of its parts trust
/// the CA file, found by trying them.
#[tokio::test]
async fn the_official_client_trusts_the_authority_by_its_variables() {
    let Some(python) = crate::common::interpreter("SIGNET_PYTHON") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let made = authority(dir.path());
    let server = tls_market(&made, |c| c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap())).await;
    let ca = made.ca.to_str().unwrap().to_owned();
    let run = |scenario: &str, variables: &[&str]| {
        let mut command = crate::common::python_script(&python, "tls_client.py", &server, scenario);
        // What should fail is over sooner (the clients retry for ever).
        command.env("SIGNET_TLS_WAIT", if variables.len() < 2 { "3" } else { "10" });
        for variable in [
            "WEBULL_API_CA_BUNDLE",
            "REQUESTS_CA_BUNDLE",
            "CURL_CA_BUNDLE",
            "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH",
            "SSL_CERT_FILE",
            "SSL_CERT_DIR",
        ] {
            command.env_remove(variable);
        }
        for variable in variables {
            command.env(variable, &ca);
        }
        command.env("SIGNET_MQTT_PORT", server.mqtt_addr.unwrap().port().to_string());
        let scenario = scenario.to_owned();
        let variables: Vec<String> = variables.iter().map(ToString::to_string).collect();
        async move {
            let output = tokio::task::spawn_blocking(move || command.output().unwrap())
                .await
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            assert!(
                output.status.success(),
                "{scenario}: {}",
                stderr.lines().rev().take(30).collect::<Vec<_>>().join("\n")
            );
            let answer: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
            eprintln!("{scenario} {variables:?}: {answer}");
            answer
        }
    };

    // Its HTTP calls: requests is handed `verify=WEBULL_API_CA_BUNDLE` (or True) by the client
    // and sends with Session.send, which never reads REQUESTS_CA_BUNDLE.
    let trusted = run("http", &["WEBULL_API_CA_BUNDLE"]).await;
    assert_eq!(trusted["status"], 200, "{trusted}");
    for variables in [&[][..], &["REQUESTS_CA_BUNDLE"], &["SSL_CERT_FILE"]] {
        let refused = run("http", variables).await;
        let error = refused["error"].as_str().unwrap_or_default();
        assert!(error.contains("CERTIFICATE_VERIFY_FAILED"), "{variables:?}: {refused}");
    }
    // The trade events: grpc.ssl_channel_credentials() reads GRPC_DEFAULT_SSL_ROOTS_FILE_PATH.
    let events = run("events", &["WEBULL_API_CA_BUNDLE", "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"]).await;
    assert_eq!(events["subscribed"], true, "{events}");
    let untrusted = run("events", &["WEBULL_API_CA_BUNDLE"]).await;
    assert_eq!(untrusted["subscribed"], false, "without the gRPC variable: {untrusted}");
    // The quotes feed: paho's tls_set() loads OpenSSL's default roots, which SSL_CERT_FILE names.
    let streaming = run("streaming", &["WEBULL_API_CA_BUNDLE", "SSL_CERT_FILE"]).await;
    assert_eq!(streaming["received"], true, "{streaming}");
    assert_eq!(streaming["topic"], "snapshot", "{streaming}");
    assert_eq!(streaming["symbol"], "AAPL", "{streaming}");
    let untrusted = run("streaming", &["WEBULL_API_CA_BUNDLE"]).await;
    assert_eq!(untrusted["received"], false, "without SSL_CERT_FILE: {untrusted}");
    server.stop().await;
}

#[tokio::test]
async fn the_events_address_speaks_tls_too() {
    let dir = tempfile::tempdir().unwrap();
    let made = authority(dir.path());
    let server = server_with(&made, |c| c.events.listen = Some("127.0.0.1:0".parse().unwrap())).await;
    let events_addr = server.events_addr.unwrap();
    let events = Client::with_trust(
        &https(events_addr),
        &server.app.app_key,
        server.app.app_secret.expose_secret(),
        trusting(&made.ca),
    )
    .unwrap();
    let mut stream = events.events().subscribe(&[]).await.expect("subscribed over TLS");
    assert!(
        tokio::time::timeout(Duration::from_millis(300), stream.next())
            .await
            .is_err()
    );
    // Plain HTTP/2: closed at once (where the header timeout takes 10 s).
    let started = Instant::now();
    let mut plain = TcpStream::connect(events_addr).await.unwrap();
    plain.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").await.unwrap();
    until_closed(&mut plain, started, LATE).await;
    server.stop().await;
}

#[tokio::test]
async fn an_expired_certificate_is_refused_even_from_a_trusted_authority() {
    let dir = tempfile::tempdir().unwrap();
    // A local authority and a certificate it signed that ended yesterday, written as PEM.
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now - time::Duration::days(30);
    params.not_after = now - time::Duration::days(1);
    let cert = params.signed_by(&key, &issuer).unwrap();
    let files = signet_server::tls::TlsFiles {
        cert: dir.path().join("expired.pem"),
        key: dir.path().join("expired.key"),
    };
    std::fs::write(&files.cert, cert.pem()).unwrap();
    std::fs::write(&files.key, key.serialize_pem()).unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, ca_cert.pem()).unwrap();

    let server = TestServer::start_with(move |c| c.tls = Some(files)).await;
    match client(&server, trusting(&ca)).accounts().list().await {
        Err(Error::Transport(e)) => {
            let chain = std::iter::successors(Some(&e as &dyn std::error::Error), |e| e.source())
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(": ");
            assert!(chain.to_lowercase().contains("expired"), "{chain}");
        }
        other => panic!("expected a refused connection, got {other:?}"),
    }
    server.stop().await;
}
