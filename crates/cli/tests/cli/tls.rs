//! `signet serve --tls self-signed` as an operator runs it: the files it makes beside the
//! database and what it prints, `signet accounts list --ca` over HTTPS, SIGHUP putting new files
//! in force, and a second start reusing the authority.

use std::path::Path;
use std::process::Command;

use crate::common::{Serving, run_json, serve, signet, stop, wait_for};

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
    let listed: serde_json::Value = serde_json::from_slice(&trusted.stdout).unwrap();
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
