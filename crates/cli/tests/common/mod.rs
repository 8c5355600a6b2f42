//! What the binary's tests share: running `signet`, and a server on a free port.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::Value;

pub fn signet() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_signet"));
    for var in [
        "SIGNET_DB",
        "SIGNET_APP_KEY",
        "SIGNET_APP_SECRET",
        "SIGNET_ENDPOINT",
        "SIGNET_MASTER_KEY",
    ] {
        command.env_remove(var);
    }
    command
}

pub fn run_json(command: &mut Command) -> Value {
    let output = command.output().expect("signet runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))
}

pub struct Serving {
    pub child: Child,
    pub endpoint: String,
    pub stdout: Receiver<String>,
    pub _stderr: Receiver<String>,
}

/// The lines of `reader`, read on a thread until end of file.
pub fn lines(reader: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    rx
}

/// The first line that satisfies `wanted`, within two minutes (`--demo` loads its dataset first).
pub fn wait_for(lines: &Receiver<String>, wanted: impl Fn(&str) -> bool) -> String {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(120))
            .expect("the server printed what was expected");
        if wanted(&line) {
            return line;
        }
    }
}

/// Starts `signet serve` on a free port and waits for it to log where it listens.
pub fn serve(db: &str, extra: &[&str]) -> Serving {
    serve_with(&[&["--db", db], extra].concat(), &[])
}

/// Starts `signet serve` with these options and environment on a free port.
pub fn serve_with(options: &[&str], env: &[(&str, &str)]) -> Serving {
    let mut child = signet()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(options)
        .envs(env.iter().copied())
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    let stderr = lines(child.stderr.take().unwrap());
    let line = wait_for(&stderr, |l| l.contains("address="));
    let address = line
        .split("address=")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    Serving {
        child,
        endpoint: format!("http://{address}"),
        stdout,
        _stderr: stderr,
    }
}

/// Stops the server with SIGTERM and returns what it printed on stdout.
pub fn stop(mut serving: Serving) -> Vec<String> {
    let pid = serving.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let status = serving.child.wait().unwrap();
    assert!(status.success(), "SIGTERM stops the server cleanly: {status}");
    serving.stdout.iter().collect()
}

pub fn credential(stdout: &Receiver<String>, name: &str) -> String {
    let prefix = format!("{name}=");
    wait_for(stdout, |l| l.trim().starts_with(&prefix)).trim()[prefix.len()..].to_owned()
}
