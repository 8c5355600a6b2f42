//! `signet serve --tls self-signed` as an operator runs it: the files it makes beside the
//! database and what it prints, `signet accounts list --ca` over HTTPS, SIGHUP putting new files
//! in force, and a second start reusing the authority; `signet events` and `signet quote
//! --stream` over TLS with `--ca`, and the address of `--mqtt-ws-listen`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Serving, credential, lines, run_json, serve, signet, stop, wait_for};

/// `signet accounts list` against `serving` over HTTPS, trusting `ca` (none: the system's roots).
fn accounts(serving: &Serving, key: &str, secret: &str, ca: Option<&Path>) -> std::process::Output {
    let endpoint = serving.endpoint.replace("http://", "https://");
    let mut command = signet();
    command.args(["accounts", "list", "--json", "--endpoint", &endpoint]);
    command
        .env("SIGNET_APP_KEY", key)
        .env("SIGNET_APP_SECRET", secret)
        .env_remove("SIGNET_CA");
    if let Some(ca) = ca {
        command.arg("--ca").arg(ca);
    }
    command.output().unwrap()
}

#[test]
fn serve_tls_self_signed_prints_its_ca_reloads_on_sighup_and_reuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tls.db");
    let db = db.to_str().unwrap();
    let app = run_json(signet().args(["admin", "apps", "create", "--db", db, "--name", "bot", "--json"]));
    let (key, secret) = (app["app_key"].as_str().unwrap(), app["app_secret"].as_str().unwrap());
    crate::common::append_to_log_dir("secrets", secret);

    let serving = serve(db, &["--tls", "self-signed"]);
    let tls = dir.path().join("tls.db.tls");
    let ca = tls.join("ca.pem");
    let printed = wait_for(&serving.stdout, |l| l.contains("CA certificate"));
    assert!(
        printed.ends_with(ca.canonicalize().unwrap().to_str().unwrap()),
        "{printed}"
    );
    let hint = wait_for(&serving.stdout, |l| l.contains("WEBULL_API_CA_BUNDLE="));
    assert!(hint.contains(ca.canonicalize().unwrap().to_str().unwrap()), "{hint}");
    #[cfg(unix)]
    for private in ["ca.key", "server.key"] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(tls.join(private)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{private}");
    }

    let trusted = accounts(&serving, key, secret, Some(&ca));
    assert!(trusted.status.success(), "{}", String::from_utf8_lossy(&trusted.stderr));
    let listed: Value = serde_json::from_slice(&trusted.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2);
    let untrusted = accounts(&serving, key, secret, None);
    assert!(
        !untrusted.status.success(),
        "the system's roots do not know the local authority"
    );

    // New files from another authority, then SIGHUP: they are in force, the server runs on.
    let other =
        signet_server::tls::self_signed(&dir.path().join("other"), &["localhost".into(), "127.0.0.1".into()]).unwrap();
    std::fs::copy(&other.files.cert, tls.join("server.pem")).unwrap();
    std::fs::copy(&other.files.key, tls.join("server.key")).unwrap();
    let pid = serving.child.id().to_string();
    assert!(Command::new("kill").args(["-HUP", &pid]).status().unwrap().success());
    wait_for(&serving.stderr, |l| {
        l.contains("SIGHUP: TLS certificate and key read again")
    });
    let renewed = accounts(&serving, key, secret, Some(&other.ca));
    assert!(renewed.status.success(), "{}", String::from_utf8_lossy(&renewed.stderr));
    assert!(
        !accounts(&serving, key, secret, Some(&ca)).status.success(),
        "the old authority no longer"
    );
    stop(serving);

    // A second start reuses the authority and issues the certificate again (its files changed,
    // but their names record did not: the pair on disk is reused as it is).
    let ca_before = std::fs::read(&ca).unwrap();
    let again = serve(db, &["--tls", "self-signed"]);
    wait_for(&again.stdout, |l| l.contains("of an earlier start"));
    assert_eq!(std::fs::read(&ca).unwrap(), ca_before);
    stop(again);
}

/// The address a log line gives after `field=`.
fn logged_address(line: &str, field: &str) -> String {
    let after = line.split_once(&format!("{field}=")).unwrap().1;
    after.split_whitespace().next().unwrap().to_owned()
}

#[test]
fn events_and_quote_stream_over_tls_trust_the_ca() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("streams.db");
    let serving = serve(
        db.to_str().unwrap(),
        &[
            "--demo",
            "--tls",
            "self-signed",
            "--rate-limits",
            "off",
            "--mqtt-listen",
            "127.0.0.1:0",
            "--mqtt-ws-listen",
            "127.0.0.1:0",
        ],
    );
    let key = credential(&serving.stdout, "SIGNET_APP_KEY");
    let secret = credential(&serving.stdout, "SIGNET_APP_SECRET");
    let ca = dir.path().join("streams.db.tls").join("ca.pem");
    let endpoint = serving.endpoint.replace("http://", "https://");
    let mqtt = logged_address(
        &wait_for(&serving.stderr, |l| l.contains("quotes feed served over MQTT")),
        "mqtt",
    );
    let ws = logged_address(
        &wait_for(&serving.stderr, |l| {
            l.contains("quotes feed served as MQTT over WebSocket")
        }),
        "mqtt_ws",
    );
    assert_ne!(ws, mqtt, "a listener of its own");
    let with_app = |command: &mut Command| {
        command
            .env("SIGNET_APP_KEY", &key)
            .env("SIGNET_APP_SECRET", &secret)
            .env_remove("SIGNET_CA")
            .arg("--endpoint")
            .arg(&endpoint)
            .arg("--ca")
            .arg(&ca);
    };
    let mut list = signet();
    list.args(["accounts", "list", "--json"]);
    with_app(&mut list);
    let listed = run_json(&mut list);
    let cash = listed[0]["account_id"].as_str().unwrap().to_owned();

    // `signet events` over gRPC on TLS: the order placed after it started, filled.
    let mut events = signet();
    events.args(["events", "--json", "--account", &cash]);
    with_app(&mut events);
    let mut events = events.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let event_lines = lines(events.stdout.take().unwrap());
    let started = Instant::now();
    wait_for(&lines(events.stderr.take().unwrap()), |l| {
        l.starts_with("following the order")
    });
    eprintln!("signet events over TLS: following after {:?}", started.elapsed());
    let mut place = signet();
    place.args(["orders", "place", "--json", "--account", &cash]);
    place.args(["--side", "buy", "--id", "tls1", "AAPL", "1"]);
    with_app(&mut place);
    assert_eq!(run_json(&mut place)["status"], "SUBMITTED");
    let scenes: Vec<String> = (0..2)
        .map(|_| {
            let event: Value = serde_json::from_str(&wait_for(&event_lines, |_| true)).unwrap();
            assert_eq!(event["client_order_id"], "tls1", "{event}");
            event["scene_type"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(scenes, ["PLACE_SUCCESS", "FINAL_FILLED"]);
    events.kill().unwrap();
    events.wait().unwrap();

    // `signet quote --stream`: MQTT over TLS, since the endpoint is https, verified with --ca.
    let mut streaming = signet();
    streaming.args(["quote", "--json", "--mqtt", &mqtt, "AAPL", "--stream"]);
    with_app(&mut streaming);
    let mut streamer = streaming.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let streamed_lines = lines(streamer.stdout.take().unwrap());
    let started = Instant::now();
    let first: Value = serde_json::from_str(&wait_for(&streamed_lines, |_| true)).unwrap();
    eprintln!(
        "signet quote --stream over TLS: first snapshot after {:?}",
        started.elapsed()
    );
    assert_eq!(first["symbol"], "AAPL", "{first}");
    streamer.kill().unwrap();
    streamer.wait().unwrap();

    // Without --ca the local authority is not trusted: refused, not hung.
    let mut untrusted = signet();
    untrusted.args([
        "quote",
        "--json",
        "--endpoint",
        &endpoint,
        "--mqtt",
        &mqtt,
        "AAPL",
        "--stream",
    ]);
    untrusted
        .env("SIGNET_APP_KEY", &key)
        .env("SIGNET_APP_SECRET", &secret)
        .env_remove("SIGNET_CA");
    let started = Instant::now();
    let refused = untrusted.output().unwrap();
    assert!(!refused.status.success());
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    stop(serving);
}
