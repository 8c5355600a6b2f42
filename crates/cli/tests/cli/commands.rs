//! The `signet` binary: the signature calculator against the shared vectors, the admin
//! commands, and `serve --demo` answering `signet accounts list` and following `signet events`.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{credential, lines, run_json, serve, signet, status_line, stop, wait_for};

#[test]
fn sign_reproduces_every_shared_vector() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/signing-vectors.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for v in file["vectors"].as_array().unwrap() {
        let h = |name: &str| v["headers"][name].as_str().unwrap().to_owned();
        let mut command = signet();
        command.args(["sign", "--json", "--method", v["method"].as_str().unwrap()]);
        command.args(["--host", &h("host"), "--path", v["path"].as_str().unwrap()]);
        command.args(["--app-key", &h("x-app-key"), "--secret", v["secret"].as_str().unwrap()]);
        command.args(["--timestamp", &h("x-timestamp"), "--nonce", &h("x-signature-nonce")]);
        command.args([
            "--algorithm",
            &h("x-signature-algorithm"),
            "--signature-version",
            &h("x-signature-version"),
        ]);
        for pair in v["query"].as_array().unwrap() {
            command.arg(format!(
                "--query={}={}",
                pair[0].as_str().unwrap(),
                pair[1].as_str().unwrap()
            ));
        }
        if let Some(body) = v["body"].as_str() {
            command.args(["--body", body]);
        }
        let out = run_json(&mut command);
        let name = v["name"].as_str().unwrap();
        assert_eq!(out.as_object().unwrap().len(), 5, "{name}: exactly five keys");
        assert_eq!(out["str1"], v["expected_str1"], "{name}");
        assert_eq!(out["str2"], v["expected_str2"], "{name}");
        assert_eq!(out["str3"], v["expected_str3"], "{name}");
        assert_eq!(out["encoded"], v["expected_encoded"], "{name}");
        assert_eq!(out["signature"], v["expected_signature"], "{name}");
    }
}

#[test]
fn sign_reads_the_body_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.json");
    std::fs::write(&body, "{}").unwrap();
    let out = run_json(signet().args([
        "sign",
        "--json",
        "--method",
        "POST",
        "--host",
        "api.example.test",
        "--path",
        "/trading/token/create",
        "--app-key",
        "a1b2c3d4e5f60718293a4b5c6d7e8f90",
        "--secret",
        "5ecret0f0123456789abcdef01234567",
        "--timestamp",
        "2026-09-21T08:15:30Z",
        "--nonce",
        "0123456789abcdef0123456789abcdef",
        "--body-file",
        body.to_str().unwrap(),
    ]));
    assert_eq!(out["signature"], "j7Vz4SlSisFaE0U0206WjLhKWQVg6sY6YZJ765ThOw0=");
}

#[test]
fn admin_commands_create_list_and_revoke() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("admin.db");
    let db = db.to_str().unwrap();
    let created = run_json(signet().args(["admin", "apps", "create", "--db", db, "--name", "bot", "--json"]));
    let mut keys: Vec<&str> = created.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["account_ids", "app_key", "app_secret"]);
    let app_key = created["app_key"].as_str().unwrap();
    assert_eq!(created["account_ids"].as_array().unwrap().len(), 2);

    let extra = run_json(signet().args([
        "admin", "accounts", "create", "--db", db, "--app", app_key, "--type", "margin", "--cash", "2500.50", "--json",
    ]));
    assert_eq!(extra[0]["cash"], "2500.50");
    let accounts = run_json(signet().args(["admin", "accounts", "list", "--db", db, "--app", app_key, "--json"]));
    assert_eq!(accounts.as_array().unwrap().len(), 3);

    let apps = run_json(signet().args(["admin", "apps", "list", "--db", db, "--json"]));
    assert_eq!(apps[0]["status"], "ACTIVE");
    assert!(
        !apps.to_string().contains(created["app_secret"].as_str().unwrap()),
        "secrets are never listed"
    );
    run_json(signet().args(["admin", "apps", "revoke", "--db", db, app_key, "--json"]));
    let apps = run_json(signet().args(["admin", "apps", "list", "--db", db, "--json"]));
    assert_eq!(apps[0]["status"], "REVOKED");

    let unknown = signet()
        .args(["admin", "apps", "revoke", "--db", db, "nope"])
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no app has the key nope"));

    let link = run_json(signet().args([
        "admin",
        "console-link",
        "--db",
        db,
        "--url",
        "http://127.0.0.1:9/",
        "--ttl",
        "2m",
        "--json",
    ]));
    assert!(
        link["url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:9/console/login?token="),
        "{link}"
    );
    assert_eq!(link["expires_in_secs"], 120);
    let too_long = signet()
        .args(["admin", "console-link", "--db", db, "--url", "http://x", "--ttl", "2d"])
        .output()
        .unwrap();
    assert!(!too_long.status.success());

    let raw = std::fs::read(dir.path().join("admin.db")).unwrap();
    let secret = created["app_secret"].as_str().unwrap().as_bytes();
    assert!(
        !raw.windows(secret.len()).any(|w| w == secret),
        "the secret is not stored in the clear"
    );
}

#[test]
fn serve_demo_creates_an_app_once_and_answers_accounts_list() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let db = db.to_str().unwrap();
    let serving = serve(db, &["--demo", "--rate-limits", "off", "--mqtt-listen", "127.0.0.1:0"]);
    let key = credential(&serving.stdout, "SIGNET_APP_KEY");
    let secret = credential(&serving.stdout, "SIGNET_APP_SECRET");
    // The console's login link, which works once.
    let printed = wait_for(&serving.stdout, |l| l.starts_with("Console ("));
    let link = printed.split_whitespace().last().unwrap().to_owned();
    let prefix = format!("{}/console/login?token=", serving.endpoint);
    assert!(link.starts_with(&prefix), "{printed}");
    let login = |path: &str| status_line(&serving.endpoint, path);
    let path = &link[serving.endpoint.len()..];
    assert_eq!(login(path), "HTTP/1.1 303 See Other");
    assert_eq!(login(path), "HTTP/1.1 401 Unauthorized");

    let listed = run_json(
        signet()
            .args(["accounts", "list", "--json", "--endpoint", &serving.endpoint])
            .env("SIGNET_APP_KEY", &key)
            .env("SIGNET_APP_SECRET", &secret),
    );
    let types: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["account_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["CASH", "MARGIN"]);

    // A market order fills within a second on the running demo clock.
    let cash_account = listed[0]["account_id"].as_str().unwrap().to_owned();
    let with_app = |command: &mut Command| {
        command.env("SIGNET_APP_KEY", &key).env("SIGNET_APP_SECRET", &secret);
    };
    // `signet events` follows the account's order and position events from before the order is
    // placed.
    let mut events = signet();
    events.args([
        "events",
        "--json",
        "--positions",
        "--endpoint",
        &serving.endpoint,
        "--account",
        &cash_account,
    ]);
    with_app(&mut events);
    let mut events = events.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let event_lines = lines(events.stdout.take().unwrap());
    wait_for(&lines(events.stderr.take().unwrap()), |l| {
        l.starts_with("following the order and position events")
    });
    let mut place = signet();
    place.args([
        "orders",
        "place",
        "--json",
        "--endpoint",
        &serving.endpoint,
        "--account",
        &cash_account,
    ]);
    place.args(["--side", "buy", "--id", "cli1", "AAPL", "2"]);
    with_app(&mut place);
    assert_eq!(run_json(&mut place)["status"], "SUBMITTED");
    // The engine fills it on one of its ticks, four a second; a loaded machine may take longer.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let mut show = signet();
        show.args([
            "orders",
            "show",
            "--json",
            "--endpoint",
            &serving.endpoint,
            "--account",
            &cash_account,
            "cli1",
        ]);
        with_app(&mut show);
        let shown = run_json(&mut show);
        if shown[0]["orders"][0]["status"] == "FILLED" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not filled: {shown}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let scenes: Vec<Value> = (0..3)
        .map(|_| serde_json::from_str(&wait_for(&event_lines, |_| true)).unwrap())
        .collect();
    let position = scenes[2].clone();
    let scenes: Vec<(&str, &str)> = scenes[..2]
        .iter()
        .map(|e| {
            (
                e["client_order_id"].as_str().unwrap(),
                e["scene_type"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(scenes, [("cli1", "PLACE_SUCCESS"), ("cli1", "FINAL_FILLED")]);
    // The fill's position event: the position line of --json has `quantity` and `cost_price`.
    assert_eq!(
        (&position["client_order_id"], &position["symbol"], &position["quantity"]),
        (&json!("cli1"), &json!("AAPL"), &json!("2")),
        "{position}"
    );
    assert!(position["cost_price"].is_string(), "{position}");
    events.kill().unwrap();
    events.wait().unwrap();

    // The simulator's quotes, as any app reads them: snapshots and the book.
    let mut snapshot = signet();
    snapshot.args(["quote", "--json", "--endpoint", &serving.endpoint, "aapl", "MSFT"]);
    with_app(&mut snapshot);
    let snapshots = run_json(&mut snapshot);
    let symbols: Vec<&str> = snapshots
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(symbols, ["AAPL", "MSFT"]);
    assert!(snapshots[0]["price"].as_str().unwrap().parse::<f64>().unwrap() > 0.0);
    let mut depth = signet();
    depth.args(["depth", "--endpoint", &serving.endpoint, "AAPL", "--levels", "2"]);
    with_app(&mut depth);
    let shown = depth.output().unwrap();
    assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
    let text = String::from_utf8(shown.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("AAPL (") && lines[1].starts_with("BID SIZE"),
        "{text}"
    );
    assert_eq!(lines.len(), 4, "a title, a header and two levels: {text}");
    let mut ticks = signet();
    ticks.args([
        "ticks",
        "--json",
        "--endpoint",
        &serving.endpoint,
        "AAPL",
        "--count",
        "3",
    ]);
    with_app(&mut ticks);
    let ticks = run_json(&mut ticks);
    assert!(ticks.as_array().is_some_and(|t| t.len() <= 3), "{ticks}");
    // Options: AAPL's expiries, one expiry's chain with the money marked, contracts' quotes.
    let mut expiries = signet();
    expiries.args(["options", "--json", "--endpoint", &serving.endpoint, "chain", "aapl"]);
    with_app(&mut expiries);
    let expiries = run_json(&mut expiries);
    let first = expiries[0]["expiry"].as_str().unwrap().to_owned();
    assert!(expiries.as_array().unwrap().len() >= 18, "{expiries}");
    let mut chain = signet();
    chain.args([
        "options",
        "--endpoint",
        &serving.endpoint,
        "chain",
        "AAPL",
        "--expiry",
        &first,
    ]);
    with_app(&mut chain);
    let shown = chain.output().unwrap();
    assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
    let text = String::from_utf8(shown.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows[0].starts_with("AAPL at ") && rows[1].contains("STRIKE"), "{text}");
    // The lowest strikes' calls are in the money, the highest strikes' puts.
    assert!(rows[2].starts_with('*') && !rows[2].ends_with('*'), "{text}");
    assert!(
        rows[rows.len() - 1].ends_with('*') && !rows[rows.len() - 1].starts_with('*'),
        "{text}"
    );
    let symbol = format!("AAPL{}{}{}C", &first[2..4], &first[5..7], &first[8..10]);
    let mut quote = signet();
    quote.args(["options", "--json", "--endpoint", &serving.endpoint, "quote"]);
    let strike = rows[2].split_whitespace().nth(6).unwrap();
    let strike: u64 = strike.parse().unwrap();
    quote.arg(format!("{symbol}{:08}", strike * 1000));
    with_app(&mut quote);
    let quoted = run_json(&mut quote);
    assert!(
        quoted[0]["bid"].is_string() && quoted[0]["imp_vol"].is_string(),
        "{quoted}"
    );
    // That deep call bought with --leg at 0.05, far below its market: acknowledged, it rests as
    // an option order of contracts (whether or not the market is open) until cancelled.
    let leg = format!("BUY:AAPL:{first}:C:{strike}");
    let orders = |args: &[&str]| {
        let mut command = signet();
        command.arg("orders").args(args);
        command.args(["--endpoint", &serving.endpoint, "--account", &cash_account]);
        with_app(&mut command);
        command
    };
    let placed = run_json(&mut orders(&[
        "place", "--json", "--id", "cliCall", "--leg", &leg, "1", "--limit", "0.05",
    ]));
    assert_eq!(placed["status"], "SUBMITTED", "{placed}");
    let shown = run_json(&mut orders(&["show", "--json", "cliCall"]));
    let o = &shown[0]["orders"][0];
    assert_eq!(
        (&o["instrument_type"], &o["symbol"], &o["status"], &o["total_quantity"]),
        (&json!("OPTION"), &json!("AAPL"), &json!("SUBMITTED"), &json!("1")),
        "{shown}"
    );
    let occ = format!("{symbol}{:08}", strike * 1000);
    assert_eq!(
        (&o["legs"][0]["option_symbol"], &o["legs"][0]["option_type"]),
        (&json!(occ), &json!("CALL")),
        "{shown}"
    );
    let open = orders(&["open"]).output().unwrap();
    assert!(open.status.success(), "{}", String::from_utf8_lossy(&open.stderr));
    let text = String::from_utf8(open.stdout).unwrap();
    let row = text.lines().find(|l| l.starts_with("cliCall")).unwrap_or_default();
    assert!(
        row.contains(&format!("AAPL {first} {strike} C")) && row.contains("1 contract"),
        "the contract, in contracts: {text}"
    );
    assert!(text.contains("a contract is 100 shares"), "{text}");
    let cancelled = run_json(&mut orders(&["cancel", "--json", "cliCall"]));
    assert_eq!(cancelled["status"], "CANCELLED", "{cancelled}");
    // A straddle of that strike, the legs given again with --strategy, at a net of 0.05: it rests
    // as one order of two legs.
    let put = format!("BUY:AAPL:{first}:P:{strike}");
    let placed = run_json(&mut orders(&[
        "place",
        "--json",
        "--id",
        "cliStraddle",
        "--leg",
        &leg,
        "--leg",
        &put,
        "--strategy",
        "straddle",
        "2",
        "--limit",
        "0.05",
    ]));
    assert_eq!(placed["status"], "SUBMITTED", "{placed}");
    let shown = run_json(&mut orders(&["show", "--json", "cliStraddle"]));
    let o = &shown[0]["orders"][0];
    assert_eq!(o["option_strategy"], "STRADDLE", "{shown}");
    let legs: Vec<(&Value, &Value)> = o["legs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (&l["option_type"], &l["quantity"]))
        .collect();
    assert_eq!(
        legs,
        vec![(&json!("CALL"), &json!("2")), (&json!("PUT"), &json!("2"))],
        "{shown}"
    );
    let text = String::from_utf8(orders(&["open"]).output().unwrap().stdout).unwrap();
    let row = text.lines().find(|l| l.starts_with("cliStraddle")).unwrap_or_default();
    assert!(
        row.contains("AAPL STRADDLE (2 legs)") && row.contains("2 units"),
        "{text}"
    );
    let cancelled = run_json(&mut orders(&["cancel", "--json", "cliStraddle"]));
    assert_eq!(cancelled["status"], "CANCELLED", "{cancelled}");
    // Two legs without their strategy are refused before anything is sent.
    let unnamed = orders(&["place", "--leg", &leg, "--leg", &put, "1"]).output().unwrap();
    assert!(!unnamed.status.success());
    assert!(String::from_utf8_lossy(&unnamed.stderr).contains("--strategy"));
    // A leg without its right's letter is refused before anything is sent.
    let malformed = orders(&["place", "--leg", &format!("BUY:AAPL:{first}:CALLS:{strike}"), "1"])
        .output()
        .unwrap();
    assert!(!malformed.status.success());
    let said = String::from_utf8_lossy(&malformed.stderr);
    assert!(
        said.contains("--leg") && said.contains(r#"the right "CALLS" is not C (a call) or P (a put)"#),
        "{said}"
    );
    let mut bars = signet();
    bars.args([
        "bars",
        "--endpoint",
        &serving.endpoint,
        "AAPL",
        "--timespan",
        "w",
        "--count",
        "4",
    ]);
    with_app(&mut bars);
    let shown = bars.output().unwrap();
    assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
    let text = String::from_utf8(shown.stdout).unwrap();
    let closes = text
        .lines()
        .find_map(|l| l.strip_prefix("closes, oldest first: "))
        .unwrap_or_default();
    assert_eq!(closes.chars().count(), 4, "a block a week: {text}");
    let mut minutes = signet();
    minutes.args([
        "bars",
        "--json",
        "--endpoint",
        &serving.endpoint,
        "AAPL",
        "--timespan",
        "M5",
        "--count",
        "50",
    ]);
    with_app(&mut minutes);
    let minutes = run_json(&mut minutes);
    let rows = minutes["result"][0]["result"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        50,
        "today's five minutes so far, then the days before: {minutes}"
    );
    assert!(rows.iter().all(|r| r["trading_session"] == "RTH"), "{minutes}");
    let mut prints = signet();
    prints.args([
        "footprints",
        "--endpoint",
        &serving.endpoint,
        "AAPL",
        "--count",
        "3",
        "--unfinished",
    ]);
    with_app(&mut prints);
    let shown = prints.output().unwrap();
    assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
    let text = String::from_utf8(shown.stdout).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    assert!(
        lines[1].starts_with("TIME (UTC)") && lines[1].contains("BOUGHT"),
        "{text}"
    );
    assert_eq!(lines.len(), 5, "a title, a header and three bars: {text}");

    // The sandbox's controls, with an app created with --admin beside the running server: how
    // the market behaved on a day of the history, and a scenario rule that faults one call.
    let ops = run_json(signet().args([
        "admin", "apps", "create", "--db", db, "--name", "ops", "--admin", "--json",
    ]));
    let with_ops = |command: &mut Command| {
        command
            .env("SIGNET_APP_KEY", ops["app_key"].as_str().unwrap())
            .env("SIGNET_APP_SECRET", ops["app_secret"].as_str().unwrap());
    };
    let mut stats = signet();
    stats.args([
        "market",
        "stats",
        "--json",
        "--endpoint",
        &serving.endpoint,
        "AAPL",
        "--date",
        "2013-02-27",
    ]);
    with_ops(&mut stats);
    let stats = run_json(&mut stats);
    assert_eq!(stats["minutes"], 390, "{stats}");
    assert!(stats["figures"].as_array().is_some_and(|f| f.len() >= 6), "{stats}");
    let rules = dir.path().join("rules.toml");
    std::fs::write(
        &rules,
        "[[rule]]\nname = \"down once\"\nwhen = { path = \"/trading/accounts/list\", times = 1 }\nthen = { status = 503 }\n",
    )
    .unwrap();
    let mut load = signet();
    load.args([
        "scenarios",
        "load",
        "--endpoint",
        &serving.endpoint,
        rules.to_str().unwrap(),
    ]);
    with_ops(&mut load);
    let loaded = load.output().unwrap();
    assert!(loaded.status.success(), "{}", String::from_utf8_lossy(&loaded.stderr));
    let shown = String::from_utf8(loaded.stdout).unwrap();
    assert!(shown.contains("down once") && shown.contains("status 503"), "{shown}");
    let accounts = || {
        let mut list = signet();
        list.args(["accounts", "list", "--json", "--endpoint", &serving.endpoint]);
        with_app(&mut list);
        list.output().unwrap()
    };
    let faulted = accounts();
    assert!(!faulted.status.success());
    assert!(String::from_utf8_lossy(&faulted.stderr).contains("SERVICE_NOT_AVAILABLE"));
    assert!(accounts().status.success(), "times = 1");
    let mut clear = signet();
    clear.args(["scenarios", "clear", "--json", "--endpoint", &serving.endpoint]);
    with_ops(&mut clear);
    assert_eq!(run_json(&mut clear)["rules"], json!([]));
    // An account started over (not the one the checks below read), with the cash asked for.
    let listed: Value = serde_json::from_slice(&accounts().stdout).unwrap();
    let account = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["account_id"].as_str())
        .find(|id| *id != cash_account)
        .unwrap();
    let mut reset = signet();
    reset.args([
        "accounts",
        "reset",
        "--json",
        "--endpoint",
        &serving.endpoint,
        account,
        "--cash",
        "2500",
    ]);
    with_ops(&mut reset);
    assert_eq!(run_json(&mut reset), json!({"account_id": account, "cash": "2500"}));

    // --watch redraws the table until interrupted.
    let mut watch = signet();
    watch
        .args(["quote", "--endpoint", &serving.endpoint, "AAPL", "--watch", "1"])
        .stdout(Stdio::piped());
    with_app(&mut watch);
    let mut watching = watch.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    watching.kill().unwrap();
    let watched = String::from_utf8(watching.wait_with_output().unwrap().stdout).unwrap();
    assert!(
        watched.matches("SYMBOL").count() >= 2,
        "drawn at least twice: {watched}"
    );
    assert!(watched.contains("\x1b[2J"), "the screen is cleared between draws");

    // --stream prints the snapshots the server pushes over its quotes feed (--mqtt-listen).
    let mqtt = feed_address(&serving);
    let mut streaming = signet();
    streaming
        .args([
            "quote",
            "--json",
            "--endpoint",
            &serving.endpoint,
            "--mqtt",
            &mqtt,
            "AAPL",
            "--stream",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    with_app(&mut streaming);
    let mut streamer = streaming.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    streamer.kill().unwrap();
    let output = streamer.wait_with_output().unwrap();
    let streamed: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        streamed.len() >= 2,
        "the snapshot at once, then as it changes: {streamed:?} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        streamed
            .iter()
            .all(|s| s["symbol"] == "AAPL" && s["price"].as_str().is_some_and(|p| !p.is_empty()))
    );
    assert!(
        streamed
            .windows(2)
            .all(|w| w[0]["timestamp"].as_i64() <= w[1]["timestamp"].as_i64())
    );

    // What the fill left: the position at its fill price, the balance, the execution, the instrument.
    let companion = |args: &[&str]| {
        let mut command = signet();
        command.args(args).args(["--json", "--endpoint", &serving.endpoint]);
        with_app(&mut command);
        run_json(&mut command)
    };
    let positions = companion(&["positions", "--account", &cash_account]);
    assert_eq!(
        (positions[0]["symbol"].as_str(), positions[0]["quantity"].as_str()),
        (Some("AAPL"), Some("2")),
        "{positions}"
    );
    let executions = companion(&["executions", "--account", &cash_account, "--order", "cli1"]);
    let fill = &executions[0];
    assert_eq!(fill["filled_price"], positions[0]["cost_price"], "{executions}");
    let activities = companion(&["activities", "--account", &cash_account, "--types", "TRADE,DEPOSIT"]);
    let kinds: Vec<&str> = activities
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["activity_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds.last(),
        Some(&"DEPOSIT"),
        "newest first, the deposit last: {activities}"
    );
    assert!(kinds.contains(&"TRADE"), "{activities}");
    let balance = companion(&["balance", "--account", &cash_account]);
    assert_eq!(balance["account_currency_assets"][0]["currency"], "USD", "{balance}");
    let instruments = companion(&["instruments", "aapl", "MSFT"]);
    assert_eq!(instruments.as_array().map(Vec::len), Some(2), "{instruments}");
    let calendar = companion(&["calendar", "2013-03-25", "2013-04-05"]);
    let days: Vec<&str> = calendar
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["trade_day"].as_str().unwrap())
        .collect();
    assert_eq!(days.len(), 9, "{calendar}");
    assert!(!days.contains(&"2013-03-29"), "Good Friday: {calendar}");

    // Exits make a bracket: the entry, then a take-profit and a stop-loss waiting for it.
    let mut bracket = signet();
    bracket.args([
        "orders",
        "place",
        "--json",
        "--endpoint",
        &serving.endpoint,
        "--account",
        &cash_account,
    ]);
    bracket.args(["--side", "buy", "--id", "cli2", "AAPL", "1", "--limit", "1"]);
    bracket.args([
        "--take-profit",
        "1000",
        "--stop-loss",
        "0.5",
        "--combo-id",
        "cliBracket",
    ]);
    with_app(&mut bracket);
    let placed = run_json(&mut bracket);
    assert_eq!(placed["client_combo_order_id"], "cliBracket", "{placed}");
    assert_eq!(placed["orders"].as_array().map(Vec::len), Some(3), "{placed}");

    let mut create = signet();
    create.args([
        "watchlists",
        "create",
        "Tech",
        "--json",
        "--endpoint",
        &serving.endpoint,
    ]);
    with_app(&mut create);
    let watchlist_id = run_json(&mut create)[0]["watchlist_id"].as_str().unwrap().to_owned();
    let mut add = signet();
    add.args([
        "watchlists",
        "add",
        &watchlist_id,
        "aapl",
        "msft",
        "--json",
        "--endpoint",
        &serving.endpoint,
    ]);
    with_app(&mut add);
    assert_eq!(run_json(&mut add)["instruments"].as_array().unwrap().len(), 2);

    // Fundamentals: a statement from Snowflake's filings, as JSON and as a table.
    let mut income = signet();
    income.args(["fundamentals", "income", "snow", "--type", "annual", "--count", "2"]);
    income.args(["--endpoint", &serving.endpoint]);
    with_app(&mut income);
    let table = income.output().unwrap();
    assert!(table.status.success(), "{}", String::from_utf8_lossy(&table.stderr));
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.starts_with("FISCAL_YEAR") && table.contains("2025-01-31"),
        "{table}"
    );
    income.arg("--json");
    let years = run_json(&mut income);
    assert_eq!(years.as_array().unwrap().len(), 2);
    assert_eq!(years[0]["revenue"], "3626396000");

    let refused = signet()
        .args([
            "accounts",
            "list",
            "--endpoint",
            &serving.endpoint,
            "--app-key",
            &key,
            "--app-secret",
            "wrong",
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("INCORRECT_SIGN"));
    stop(serving);

    let again = serve(db, &["--demo"]);
    let printed = stop(again);
    assert!(
        !printed.iter().any(|l| l.contains("SIGNET_APP_KEY")),
        "a second --demo keeps the existing app"
    );
    let apps = run_json(signet().args(["admin", "apps", "list", "--db", db, "--json"]));
    assert_eq!(
        apps.as_array().unwrap().len(),
        2,
        "the demo's app and the ops app, no other"
    );
}

/// Where a server started with `--mqtt-listen` serves its quotes feed, from its log.
fn feed_address(serving: &crate::common::Serving) -> String {
    let feed = wait_for(&serving.stderr, |l| l.contains("quotes feed served over MQTT"));
    let after = feed.split_once("mqtt=").unwrap().1;
    after.split_whitespace().next().unwrap().to_owned()
}

#[test]
fn serve_limits_the_quotes_feed_by_its_mqtt_flags() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("feed.db");
    let serving = serve(
        db.to_str().unwrap(),
        &[
            "--demo",
            "--rate-limits",
            "off",
            "--mqtt-listen",
            "127.0.0.1:0",
            "--mqtt-max-symbols",
            "1",
            "--mqtt-max-sessions",
            "1",
            "--mqtt-max-unbound-per-address",
            "1",
            "--mqtt-bind-timeout",
            "1",
        ],
    );
    let key = credential(&serving.stdout, "SIGNET_APP_KEY");
    let secret = credential(&serving.stdout, "SIGNET_APP_SECRET");
    let mqtt = feed_address(&serving);
    // A connection that says nothing holds the address's one unbound place: another is closed at
    // once, so before it, and it is closed after the bind timeout (1 s, before the header
    // timeout's 10). Both read from `started`, before the silent one connected.
    let started = std::time::Instant::now();
    let read_until_closed = |mut stream: std::net::TcpStream| {
        stream
            .set_read_timeout(Some(Duration::from_secs(1) + crate::common::LATE))
            .unwrap();
        let closed = std::io::Read::read(&mut stream, &mut [0u8; 16]).is_ok_and(|n| n == 0);
        (closed, started.elapsed())
    };
    let silent = std::net::TcpStream::connect(&mqtt).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let (closed, another_closed) = read_until_closed(std::net::TcpStream::connect(&mqtt).unwrap());
    assert!(closed, "{another_closed:?}");
    let (closed, silent_closed) = read_until_closed(silent);
    assert!(
        closed && silent_closed >= Duration::from_millis(900),
        "{silent_closed:?}"
    );
    assert!(another_closed < silent_closed, "{another_closed:?}, {silent_closed:?}");
    let quote = |symbols: &[&str]| {
        let mut command = signet();
        command
            .args([
                "quote",
                "--json",
                "--stream",
                "--endpoint",
                &serving.endpoint,
                "--mqtt",
                &mqtt,
            ])
            .args(symbols)
            .env("SIGNET_APP_KEY", &key)
            .env("SIGNET_APP_SECRET", &secret)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    // Two symbols for a session allowed one: the subscribe call's refusal ends the command.
    let refused = quote(&["AAPL", "MSFT"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(stderr.contains("TOO_MANY_SYMBOLS"), "{stderr}");
    // Its session is gone with it; one session then holds the app's only place.
    std::thread::sleep(Duration::from_millis(300));
    let mut holder = quote(&["AAPL"]).spawn().unwrap();
    let held = lines(holder.stdout.take().unwrap());
    let first = wait_for(&held, |_| true);
    assert!(first.contains(r#""symbol":"AAPL""#), "{first}");
    let crowded = quote(&["MSFT"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&crowded.stderr);
    assert!(!crowded.status.success());
    assert!(stderr.contains("code 105"), "{stderr}");
    holder.kill().unwrap();
    holder.wait().unwrap();
    stop(serving);
}

#[test]
fn data_import_prints_a_summary_per_file_and_status_counts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data.db");
    let db = db.to_str().unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let nasdaq = format!("{root}/testdata/import/nasdaqlisted.txt");
    let yahoo = format!("{root}/testdata/import/yahoo/AAPL.csv");
    let output = signet()
        .args(["data", "import", "--db", db, "--json", &nasdaq, &yahoo])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let summaries: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(summaries.len(), 2);
    assert_eq!(summaries[0]["format"], "nasdaq-listed");
    assert_eq!(summaries[1]["bars_changed"], 4);
    let status = run_json(signet().args(["data", "status", "--db", db, "--json"]));
    assert_eq!(
        (status["instruments"].as_u64(), status["bars"].as_u64()),
        (Some(3), Some(4))
    );

    let bad = format!("{root}/testdata/import/bad/prices.csv");
    let refused = signet().args(["data", "import", "--db", db, &bad]).output().unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("line 4, column 4 (high)"));
}

#[test]
fn a_reader_that_stops_reading_ends_signet_quietly() {
    let child = signet()
        .args([
            "sign",
            "--method",
            "GET",
            "--host",
            "h",
            "--path",
            "/p",
            "--app-key",
            "k",
            "--secret",
            "s",
            "--timestamp",
            "2026-09-21T08:15:30Z",
            "--nonce",
            "n",
        ])
        // As `| head -0` would: the read end is closed before signet writes.
        .stdout({
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            writer
        })
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!output.status.success(), "it had something to print, and could not");
}

#[test]
fn json_logs_are_one_object_a_line_with_the_request_and_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("logs.db");
    let db = db.to_str().unwrap();
    let created = run_json(signet().args(["admin", "apps", "create", "--db", db, "--name", "logs", "--json"]));
    let (key, secret) = (
        created["app_key"].as_str().unwrap().to_owned(),
        created["app_secret"].as_str().unwrap().to_owned(),
    );
    // Debug shows each request's span and every query: the most a log can hold.
    let crate::common::Serving {
        mut child,
        endpoint,
        stderr,
        ..
    } = crate::common::serve_with(
        &["--db", db, "--log-format", "json", "--rate-limits", "off"],
        &[("RUST_LOG", "debug")],
    );
    let listed = run_json(
        signet()
            .args(["accounts", "list", "--json", "--endpoint", &endpoint])
            .env("SIGNET_APP_KEY", &key)
            .env("SIGNET_APP_SECRET", &secret),
    );
    assert_eq!(listed.as_array().unwrap().len(), 2);
    let refused = signet()
        .args(["accounts", "list", "--json", "--endpoint", &endpoint])
        .env("SIGNET_APP_KEY", &key)
        .env("SIGNET_APP_SECRET", "not-the-secret")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&refused.stderr).contains("INCORRECT_SIGN"));
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    assert!(child.wait().unwrap().success());

    let lines: Vec<String> = stderr.iter().collect();
    assert!(lines.len() > 5, "{lines:?}");
    for line in &lines {
        let object: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(object["level"].is_string() && object["fields"].is_object(), "{line}");
        // Neither the secret, nor a string to sign (str1 or the encoded string).
        for secret_part in [secret.as_str(), "x-signature-nonce=", "x-signature-nonce%3D"] {
            assert!(!line.contains(secret_part), "{secret_part:?} in a log line: {line}");
        }
    }
    assert!(
        lines
            .iter()
            .any(|l| l.contains(r#""request_id":""#) && l.contains(r#""app_key":""#)),
        "the request's span is in its lines"
    );
}

/// The variables of the settings these tests give by file, removed so that they decide.
const SETTING_VARIABLES: [&str; 8] = [
    "SIGNET_CONFIG",
    "SIGNET_LISTEN",
    "SIGNET_HEADER_TIMEOUT",
    "SIGNET_DATABASE_URL",
    "SIGNET_REDIS_URL",
    "SIGNET_COMPAT",
    "SIGNET_MAX_HEADER_BYTES",
    "SIGNET_TIMESTAMP_WINDOW",
];

fn config_check(args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = signet();
    for var in SETTING_VARIABLES {
        command.env_remove(var);
    }
    command
        .args(["config", "check"])
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

#[test]
fn config_check_layers_a_flag_over_its_variable_over_the_file_and_masks_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("signet.toml");
    std::fs::write(
        &file,
        r#"
listen = "0.0.0.0:9090"
timestamp_window = 60
header-timeout = 30
database_url = "postgres://signet:hunter2@db:5432/signet"
redis_url = "redis://:hunter3@cache:6379/2"
compat = "legacy"
rate_limit = ["place=10/60", "preview=5/10"]
"#,
    )
    .unwrap();
    let output = config_check(
        &[
            "--config".as_ref(),
            file.as_os_str(),
            "--listen".as_ref(),
            "127.0.0.1:7000".as_ref(),
        ],
        &[("SIGNET_TIMESTAMP_WINDOW", "120")],
    );
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for line in [
        r#"listen = "127.0.0.1:7000"  # flag"#,
        "timestamp_window = 120  # env SIGNET_TIMESTAMP_WINDOW",
        "header_timeout = 30  # file",
        r#"compat = "legacy"  # file"#,
        r#"database_url = "postgres://signet:***@db:5432/signet"  # file"#,
        r#"redis_url = "redis://:***@cache:6379/2"  # file"#,
        r#"rate_limit = ["place=10/60", "preview=5/10"]  # file"#,
        "max_body_bytes = 262144  # default",
        "mqtt_bind_timeout = 30  # default",
        "# valid",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
    }
    assert!(!text.contains("hunter"), "{text}");

    // What it prints is a configuration file: read back, it gives the same settings.
    let again = dir.path().join("again.toml");
    std::fs::write(&again, text.replace("***", "secret")).unwrap();
    let output = config_check(&["--config".as_ref(), again.as_os_str()], &[]);
    let second = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{second}");
    let settings = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split("  # ").next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(settings(&second), settings(&text));
}

#[test]
fn a_config_file_with_an_unknown_or_bad_setting_is_refused_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("listn = \"127.0.0.1:1\"", "unknown setting `listn`"),
        ("timestamp_window = \"soon\"", "--timestamp-window"),
        (
            "rate_limit = { place = 1 }",
            "`rate_limit` has a value of the wrong kind",
        ),
        (
            "listen = \"0.0.0.0:1\"\ndebug_signatures = true",
            "not a loopback address",
        ),
        ("listen = ", "not a TOML file"),
        // A clock this fast overflowed its arithmetic at the first tick.
        (
            "market_speed = 1e300",
            "--market-speed must be a number above 0 and at most 1000000",
        ),
        ("market_speed = -5.0", "--market-speed must be a number above 0"),
    ];
    for (content, expected) in cases {
        let file = dir.path().join("bad.toml");
        std::fs::write(&file, content).unwrap();
        let output = config_check(&["--config".as_ref(), file.as_os_str()], &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{content}");
        assert!(stderr.contains(expected), "{content}: {stderr}");
    }
}

/// The master key of the tests' servers on PostgreSQL.
const TEST_MASTER_KEY: &str = "4d61736b65642070617373776f72647320696e206c6f67732c2074657374206b";

/// sqlx reads a PostgreSQL password from the query string too (`?password=`), which only the
/// user info's was masked for; Redis's unix sockets take theirs as `?pass=`.
#[test]
fn config_check_masks_passwords_in_a_query() {
    let database = "postgres://signet@db:5432/signet?sslmode=prefer&password=hunter4";
    let redis = "unix:///run/redis.sock?db=2&pass=hunter5";
    let output = config_check(
        &["--database-url".as_ref(), database.as_ref()],
        &[("SIGNET_REDIS_URL", redis)],
    );
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for line in [
        r#"database_url = "postgres://signet@db:5432/signet?sslmode=prefer&password=***"  # flag"#,
        r#"redis_url = "unix:///run/redis.sock?db=2&pass=***"  # env SIGNET_REDIS_URL"#,
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
    }
    assert!(!text.contains("hunter"), "{text}");
}

/// A used nonce kept in one node's memory is not seen by the other nodes that share a PostgreSQL
/// database: a request replayed to another node would be accepted there. `--nonces memory` is
/// refused there, by `config check` and at start (the latter needs `SIGNET_TEST_POSTGRES_URL`),
/// unless Redis keeps the nonces.
#[test]
fn nonces_in_memory_are_refused_on_a_database_that_nodes_share() {
    let database = "postgres://signet@db:5432/signet";
    let output = config_check(
        &["--nonces".as_ref(), "memory".as_ref()],
        &[("SIGNET_DATABASE_URL", database)],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("replayed to another node would be accepted"),
        "{stderr}"
    );
    for (args, env) in [
        (
            &["--nonces", "memory", "--redis-url", "redis://cache:6379"][..],
            &[("SIGNET_DATABASE_URL", database)][..],
        ),
        (&["--nonces", "memory"][..], &[][..]),
    ] {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(AsRef::as_ref).collect();
        let output = config_check(&args, env);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let Some(url) = crate::nodes::fresh_database(&runtime, "signet_test_memory_nonces") else {
        return;
    };
    let refused = signet()
        .args(["serve", "--listen", "127.0.0.1:0", "--nonces", "memory"])
        .env("SIGNET_MASTER_KEY", TEST_MASTER_KEY)
        .env("SIGNET_DATABASE_URL", &url)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("replayed to another node would be accepted"),
        "{stderr}"
    );
}

/// `--metrics auto` (the default) follows the console's rule: on `--listen` only when that is a
/// loopback address, where anyone who reaches the port would otherwise read the server's traffic.
#[test]
fn metrics_are_served_on_every_address_only_when_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("metrics.db");
    let db = db.to_str().unwrap();
    for (options, expected) in [
        (&["--listen", "0.0.0.0:0"][..], "HTTP/1.1 401 Unauthorized"),
        (&["--listen", "0.0.0.0:0", "--metrics", "on"][..], "HTTP/1.1 200 OK"),
        (&["--metrics", "off"][..], "HTTP/1.1 401 Unauthorized"),
        (&[][..], "HTTP/1.1 200 OK"),
    ] {
        let serving = serve(db, options);
        assert_eq!(status_line(&serving.endpoint, "/metrics"), expected, "{options:?}");
        stop(serving);
    }
}

/// sqlx takes a PostgreSQL password from the URL's query too: no log line shows it, whether the
/// server cannot reach the database or runs on it (at debug level, sqlx's lines included; the
/// latter needs `SIGNET_TEST_POSTGRES_URL`).
#[test]
fn serve_logs_no_password_of_the_database_urls_query() {
    let serve = |url: &str, extra: &[&str]| {
        let mut command = signet();
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(extra)
            .env("SIGNET_MASTER_KEY", TEST_MASTER_KEY)
            .env("SIGNET_DATABASE_URL", url)
            .env("RUST_LOG", "debug,hyper=info,hyper_util=info,h2=info");
        command
    };
    let unreachable = serve("postgres://signet@127.0.0.1:1/signet?password=hunter6", &[])
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&unreachable.stdout),
        String::from_utf8_lossy(&unreachable.stderr)
    );
    assert!(!unreachable.status.success(), "{said}");
    assert!(!said.contains("hunter6"), "{said}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let Some(url) = crate::nodes::fresh_database(&runtime, "signet_test_masked") else {
        return;
    };
    // The test server trusts its clients: the password is not checked, only carried.
    let url = format!("{url}?password=hunter7");
    let mut child = serve(&url, &["--rate-limits", "off"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = crate::common::log_lines(child.stderr.take().unwrap());
    let mut logged: Vec<String> = Vec::new();
    while !logged.last().is_some_and(|l| l.contains("signet listening")) {
        logged.push(
            stderr
                .recv_timeout(Duration::from_secs(120))
                .expect("the server starts"),
        );
    }
    let listening = logged.last().unwrap();
    assert!(listening.contains("password=***"), "{listening}");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success() && child.wait().unwrap().success());
    logged.extend(stderr.iter());
    assert!(logged.iter().all(|l| !l.contains("hunter7")), "{logged:#?}");
}

#[test]
fn serve_runs_with_the_settings_of_its_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("signet.toml");
    let db = dir.path().join("from-file.db");
    std::fs::write(
        &file,
        format!(
            "db = {:?}\nmax_header_bytes = 200\nrate_limits = \"off\"\n",
            db.to_str().unwrap()
        ),
    )
    .unwrap();
    let serving = crate::common::serve_with(&["--config", file.to_str().unwrap()], &[]);
    let head = format!(
        "GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: {}\r\nConnection: close\r\n\r\n",
        "a".repeat(300)
    );
    let addr = serving.endpoint.trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    std::io::Write::write_all(&mut stream, head.as_bytes()).unwrap();
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut stream, &mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    assert!(answer.contains("HEADERS_TOO_LARGE"), "{answer}");
    assert!(db.exists(), "the database named in the file was created");
    stop(serving);
}
