//! Interoperability: the official Python client (webull-openapi-python-sdk 3.0.4, unmodified)
//! against a real server. `scripts/test.sh` prepares a virtualenv and sets `SIGNET_PYTHON`;
//! without it these tests say so and pass, unless `SIGNET_REQUIRE_INTEROP=1` (set by the
//! script and CI), which makes a missing interpreter a failure.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use signet_store::TokenSelector;

use crate::common::{LATE, TestServer};

fn python() -> Option<String> {
    crate::common::interpreter("SIGNET_PYTHON")
}

fn command(python: &str, server: &TestServer, scenario: &str) -> Command {
    crate::common::python_script(python, "official_client.py", server, scenario)
}

/// Runs a scenario to its end and reads its answer.
async fn run(python: &str, server: &TestServer, scenario: &str) -> serde_json::Value {
    let mut command = command(python, server, scenario);
    parse(
        tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap(),
    )
}

fn parse(output: std::process::Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "the official client failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .rev()
            .take(30)
            .collect::<Vec<_>>()
            .join("\n")
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object on stdout")
}

/// A scenario that talks with the test over its standard input and output, given the quotes
/// feed's port: a first line, the test's answer, a last line.
struct Dialogue {
    child: std::process::Child,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Dialogue {
    /// Starts `scenario` and reads its first line (on failure, shows the client's errors).
    async fn start(python: &str, server: &TestServer, scenario: &str) -> (serde_json::Value, Dialogue) {
        use std::io::BufRead;
        let mut command = command(python, server, scenario);
        command
            .env("SIGNET_MQTT_PORT", server.mqtt_addr.unwrap().port().to_string())
            .stdin(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (line, stdout) = tokio::task::spawn_blocking(move || {
            let mut reader = std::io::BufReader::new(stdout);
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            (line, reader)
        })
        .await
        .unwrap();
        let Ok(first) = serde_json::from_str(&line) else {
            let output = child.wait_with_output().unwrap();
            panic!(
                "the official client failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        };
        (first, Dialogue { child, stdout })
    }

    /// Writes `answer` on its standard input, and reads its last line once it ended well.
    async fn finish(self, answer: &'static [u8]) -> serde_json::Value {
        let Dialogue { mut child, mut stdout } = self;
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), answer).unwrap();
        let (output, rest) = tokio::task::spawn_blocking(move || {
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
            (child.wait_with_output().unwrap(), rest)
        })
        .await
        .unwrap();
        assert!(
            output.status.success(),
            "the official client failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_str(&rest).expect("a last JSON line")
    }
}

fn account_ids(out: &serde_json::Value) -> Vec<String> {
    out["accounts"]
        .as_array()
        .expect("accounts")
        .iter()
        .map(|a| a["account_id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn the_official_client_lists_accounts_and_reads_refusals() {
    let Some(python) = python() else { return };
    let server = TestServer::start().await;
    let out = run(&python, &server, "accounts").await;
    assert_eq!(out["status"], 200);
    assert_eq!(account_ids(&out), server.app.account_ids);
    let account = &out["accounts"][0];
    assert_eq!(account["account_type"], "CASH");
    assert_eq!(account["account_class"], "INDIVIDUAL_CASH");
    assert_eq!(out["refusal"]["http_status"], 401);
    assert_eq!(out["refusal"]["error_code"], "INCORRECT_SIGN");
    assert!(
        out["refusal"]["request_id"].is_string(),
        "X-Request-Id reaches the client"
    );
}

#[tokio::test]
async fn the_official_client_signing_the_host_without_its_port() {
    let Some(python) = python() else { return };
    let server = TestServer::start().await;
    let out = run(&python, &server, "accounts-no-port").await;
    assert_eq!(account_ids(&out), server.app.account_ids);
}

#[tokio::test]
async fn the_official_client_waits_for_token_approval() {
    let Some(python) = python() else { return };
    let server = TestServer::start_with(|c| c.require_token = true).await;
    let mut child = command(&python, &server, "token").spawn().unwrap();

    // Approve the client's token as soon as it is created, as its owner would in the broker's app.
    let started = Instant::now();
    let admin = server.admin();
    loop {
        if admin
            .approve_tokens(TokenSelector::App(&server.app.app_key))
            .await
            .unwrap()
            > 0
        {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the client stopped before creating a token"
        );
        assert!(started.elapsed() < Duration::from_secs(30), "no token was created");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let out = parse(
        tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
            .await
            .unwrap(),
    );
    assert_eq!(account_ids(&out), server.app.account_ids);
}

#[tokio::test]
async fn the_official_client_reads_snapshots_and_the_book_the_engine_trades_on() {
    let Some(python) = python() else { return };
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    ops.market().step(600).await.unwrap();
    let out = run(&python, &server, "quotes").await;
    // The clock is manual: the quote has not moved since the client read it.
    let quote = ops.market().quote("AAPL").await.unwrap();
    assert_eq!(out["snapshot"]["status"], 200);
    let snapshots = out["snapshot"]["body"].as_array().unwrap();
    assert_eq!(snapshots.len(), 2);
    let aapl = &snapshots[0];
    assert_eq!(
        (&aapl["symbol"], &aapl["price"], &aapl["bid"], &aapl["ask"]),
        (&json!("AAPL"), &json!(quote.last), &json!(quote.bid), &json!(quote.ask))
    );
    assert_eq!(aapl["pre_close"], "450.81");
    assert_eq!(snapshots[1]["symbol"], "MSFT");
    assert!(aapl.get("extend_hour_last_price").is_none(), "the core session");
    assert_eq!(out["depth"]["status"], 200);
    let depth = &out["depth"]["body"];
    assert_eq!(depth["asks"].as_array().unwrap().len(), 3);
    assert_eq!(depth["asks"][0]["price"], json!(quote.ask));
    assert_eq!(depth["bids"][0]["price"], json!(quote.bid));
    assert_eq!(depth["bids"][0]["size"], json!(quote.bid_size.to_string()));
    assert_eq!(out["ticks"]["status"], 200);
    let ticks = out["ticks"]["body"]["result"].as_array().unwrap();
    assert_eq!(ticks.len(), 5);
    assert_eq!(ticks[0]["price"], json!(quote.last), "the newest tick is the quote now");
    assert_eq!(out["bars"]["status"], 200);
    let bars = &out["bars"]["body"]["result"][0]["result"];
    let price = |v: &serde_json::Value| v.as_str().unwrap().parse::<f64>().unwrap();
    assert_eq!(price(&bars[0]["open"]), 453.85, "today, the real open");
    assert_eq!(
        bars[0]["close"],
        json!(quote.last),
        "today's bar closes at the quote so far"
    );
    assert_eq!(price(&bars[1]["close"]), 450.81, "Friday's real close");
    // The deprecated single-symbol call sends the batch one; 09:40:00 is the minute under way.
    assert_eq!(out["minutes"]["status"], 200);
    let minutes = out["minutes"]["body"]["result"][0]["result"].as_array().unwrap();
    let times: Vec<&str> = minutes.iter().map(|b| b["time"].as_str().unwrap()).collect();
    assert_eq!(
        times,
        [
            "2013-02-25T14:40:00.000+0000",
            "2013-02-25T14:39:00.000+0000",
            "2013-02-25T14:38:00.000+0000"
        ]
    );
    assert_eq!(minutes[0]["close"], json!(quote.last));
    assert_eq!(out["footprint"]["status"], 200);
    let prints = out["footprint"]["body"][0]["result"].as_array().unwrap();
    assert_eq!(prints.len(), 3);
    for (print, bar) in prints.iter().zip(minutes) {
        assert_eq!((&print["time"], &print["total"]), (&bar["time"], &bar["volume"]));
    }
}

#[tokio::test]
async fn the_official_client_lists_option_contracts_and_reads_their_market() {
    let Some(python) = python() else { return };
    let server = TestServer::start_market("2013-02-25", 2013).await;
    server.ops().await.market().step(3600).await.unwrap();
    let out = run(&python, &server, "options").await;
    for call in ["calls", "earlier", "snapshot", "ticks", "minutes", "days"] {
        assert_eq!(out[call]["status"], 200, "{call}: {}", out[call]["body"]);
    }
    let calls = out["calls"]["body"]["data"].as_array().unwrap();
    let symbols: Vec<&str> = calls.iter().map(|c| c["symbol"].as_str().unwrap()).collect();
    assert_eq!(symbols.len(), 11, "400 to 500 by $10: {symbols:?}");
    assert_eq!(symbols[5], "AAPL130315C00450000");
    assert!(
        calls
            .iter()
            .all(|c| c["option_type"] == "CALL" && c["expiration_date"] == "2013-03-15")
    );
    assert!(out["calls"]["body"].get("pagination_key").is_none(), "one page");
    // The whole chain in pages of 1000, the last one short.
    let pages: Vec<u64> = out["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert!(
        pages.len() >= 2 && pages[..pages.len() - 1].iter().all(|&n| n == 1000),
        "{pages:?}"
    );
    assert_eq!(out["earlier"]["body"].as_array().unwrap().len(), 5);
    let snapshots = out["snapshot"]["body"].as_array().unwrap();
    assert_eq!(snapshots[0]["symbol"], "AAPL130315C00450000");
    assert_eq!(snapshots[1]["symbol"], "AAPL130315P00450000");
    let price = |v: &serde_json::Value| v.as_str().unwrap().parse::<f64>().unwrap();
    for s in snapshots {
        assert!(price(&s["bid"]) < price(&s["ask"]), "{s}");
        assert!(s["imp_vol"].is_string() && s["delta"].is_string() && s["open_interest"].is_string());
    }
    let ticks = out["ticks"]["body"]["result"].as_array().unwrap();
    assert_eq!(ticks.len(), 10, "an hour at the money trades more than ten times");
    assert_eq!(
        ticks[0]["price"], snapshots[0]["price"],
        "the newest tick is the last price"
    );
    let minutes = out["minutes"]["body"]["result"][0]["result"].as_array().unwrap();
    assert_eq!(minutes.len(), 3);
    let days = out["days"]["body"]["result"].as_array().unwrap();
    assert_eq!(days.len(), 2);
    assert_eq!(
        days[0]["result"][0]["volume"], snapshots[0]["volume"],
        "today's bar so far"
    );
    assert_eq!(days[1]["result"].as_array().unwrap().len(), 5);
}

/// The official client buys a call through both of its option paths, holds two contracts and
/// sells them: the cash moves 100 times the premium a contract.
#[tokio::test]
async fn the_official_client_buys_and_sells_a_call() {
    let Some(python) = python() else { return };
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let out = run(&python, &server, "option-buy").await;
    for call in ["preview", "market", "limit"] {
        assert_eq!(out[call]["status"], 200, "{call}: {}", out[call]["body"]);
    }
    let ask: f64 = out["ask"].as_str().unwrap().parse().unwrap();
    let cost: f64 = out["preview"]["body"]["estimated_cost"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((cost - ask * 100.0).abs() < 0.01, "one contract at the ask: {cost}");
    ops.market().step(1).await.unwrap();
    let held = run(&python, &server, "option-held").await;
    let filled: Vec<f64> = ["market", "limit"]
        .iter()
        .map(|o| {
            let order = &held[o]["orders"][0];
            assert_eq!(order["status"], "FILLED", "{order}");
            assert_eq!(order["legs"][0]["option_type"], "CALL");
            order["filled_price"].as_str().unwrap().parse().unwrap()
        })
        .collect();
    let position = &held["positions"][0];
    assert_eq!(
        (&position["instrument_type"], &position["symbol"], &position["quantity"]),
        (&json!("OPTION"), &json!("AAPL"), &json!("2"))
    );
    assert_eq!(position["legs"][0]["symbol"], "AAPL130315C00450000");
    let cash: f64 = held["balance"]["total_cash_balance"].as_str().unwrap().parse().unwrap();
    assert!(
        (cash - (100_000.0 - 100.0 * (filled[0] + filled[1]))).abs() < 1e-6,
        "{cash}"
    );
    ops.market().step(1).await.unwrap();
    let account = server.app.account_ids[0].clone();
    assert!(server.client().accounts().positions(&account).await.unwrap().is_empty());
    let sold = server.client().orders().get(&account, "pyOpt3").await.unwrap();
    assert_eq!(sold.orders[0].status, signet_model::orders::OrderStatus::Filled);
}

/// A vertical through the client's v3 order path: previewed at its debit, placed, filled at once
/// (both legs), and read back with its legs, one execution a leg, and a position a leg.
#[tokio::test]
async fn the_official_client_trades_a_vertical() {
    let Some(python) = python() else { return };
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let out = run(&python, &server, "option-spread").await;
    for call in ["preview", "place", "rest", "replace", "cancel", "covered"] {
        assert_eq!(out[call]["status"], 200, "{call}: {}", out[call]["body"]);
    }
    assert_eq!(
        out["replaced"],
        json!({"total_quantity": "3", "limit_price": "0.4", "legs": ["3", "3"]})
    );
    assert_eq!(out["covered_legs"], json!([["EQUITY", "100"], ["OPTION", "1"]]));
    let cost: f64 = out["preview"]["body"]["estimated_cost"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(cost > 0.0 && cost < 2000.0, "2 units of a 10-wide debit spread: {cost}");
    ops.market().step(1).await.unwrap();
    let held = run(&python, &server, "option-spread-held").await;
    let order = &held["detail"]["orders"][0];
    assert_eq!(
        (&order["status"], &order["option_strategy"]),
        (&json!("FILLED"), &json!("VERTICAL")),
        "{order}"
    );
    let legs: Vec<(&str, &str)> = order["legs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["side"].as_str().unwrap(), l["strike_price"].as_str().unwrap()))
        .collect();
    assert_eq!(legs, vec![("BUY", "450"), ("SELL", "460")]);
    let executions = held["executions"]["data"]
        .as_array()
        .or(held["executions"].as_array())
        .unwrap();
    assert_eq!(executions.len(), 2, "{executions:?}");
    let mut positions: Vec<(String, String)> = held["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["legs"][0]["symbol"].as_str().unwrap().into(),
                p["quantity"].as_str().unwrap().into(),
            )
        })
        .collect();
    positions.sort();
    assert_eq!(
        positions,
        vec![
            ("AAPL130315C00450000".into(), "2".into()),
            ("AAPL130315C00460000".into(), "-2".into())
        ]
    );
}

#[tokio::test]
async fn the_official_client_calls_the_screeners_and_fundamentals_on_the_demo() {
    let Some(python) = python() else { return };
    // Legacy mode changes nothing for the current calls, and lets the deprecated ones run too.
    let server = TestServer::start_with(|c| c.compat = signet_server::generations::compat::Compat::Legacy).await;
    signet_import::demo::ensure_loaded(server.database.store.clone())
        .await
        .unwrap()
        .expect("loaded");
    // The market simulator lists what the database held when it started.
    let server = server.restart().await;
    check_fundamentals(&run(&python, &server, "fundamentals").await);
    let out = run(&python, &server, "screeners").await;

    let items = |name: &str| -> Vec<serde_json::Value> {
        assert_eq!(out[name]["status"], 200, "{name}");
        out[name]["body"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: a list"))
            .clone()
    };
    let ratio = |item: &serde_json::Value| item["change_ratio"].as_str().unwrap().parse::<f64>().unwrap();
    let gainers = items("gainers");
    assert_eq!(gainers.len(), 200, "the top 200");
    assert!(gainers.windows(2).all(|w| ratio(&w[0]) >= ratio(&w[1])) && ratio(&gainers[199]) > 0.0);
    let losers = items("losers");
    assert!(!losers.is_empty() && losers.windows(2).all(|w| ratio(&w[0]) <= ratio(&w[1])) && ratio(&losers[0]) < 0.0);
    let volume = |item: &serde_json::Value| item["volume"].as_str().unwrap().parse::<u64>().unwrap();
    let actives = items("actives");
    assert!(actives.len() == 200 && actives.windows(2).all(|w| volume(&w[0]) >= volume(&w[1])));
    let dividends = items("dividends");
    assert!(
        dividends.len() == 200
            && dividends
                .iter()
                .all(|d| d["yield"].is_string() && d["ex_date"].is_string())
    );
    let week52 = items("week52");
    assert!(week52.iter().all(|w| w["change_ratio_52w"].is_string()));
    for field in [
        "instrument_id",
        "symbol",
        "name",
        "exchange_code",
        "currency_code",
        "pre_close",
        "open",
        "high",
        "low",
        "close",
        "price",
        "change",
        "change_ratio",
        "volume",
        "turnover_rate",
        "market_value",
        "amplitude",
        "relative_volume_10d",
        "pe_ttm",
    ] {
        assert!(gainers.iter().any(|g| g[field].is_string()), "gainers carry {field}");
    }

    assert_eq!(out["sectors"]["status"], 200);
    let sectors = out["sectors"]["body"]["data"].as_array().unwrap();
    assert_eq!(sectors.len(), 11, "the GICS sectors of the index members");
    let value = |s: &serde_json::Value| s["market_value"].as_str().unwrap().parse::<f64>().unwrap();
    assert!(sectors.windows(2).all(|w| value(&w[0]) >= value(&w[1])));
    assert_eq!(out["sector"]["status"], 200);
    let detail = &out["sector"]["body"];
    assert_eq!(detail["id"], sectors[0]["id"]);
    assert!(!detail["data"].as_array().unwrap().is_empty());

    check_legacy(&run(&python, &server, "legacy").await);
}

/// The deprecated calls shipped code still makes, against `--compat legacy`.
fn check_legacy(out: &serde_json::Value) {
    let ids = |rows: &serde_json::Value| -> Vec<String> {
        let rows = rows.as_array().unwrap_or_else(|| panic!("a bare list: {rows}"));
        rows.iter()
            .map(|r| r["client_order_id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&out["open_first"]), ["pyOld2", "pyOld1"]);
    assert_eq!(ids(&out["open_next"]), ["pyOld0"]);
    assert_eq!(ids(&out["history"]), ["pyOld2", "pyOld1", "pyOld0"]);
    for name in [
        "gainers",
        "actives",
        "sectors",
        "dividends",
        "week52",
        "fund_dividends",
        "sector",
    ] {
        assert_eq!(out[name]["status"], 200, "{name}: {}", out[name]);
    }
    let gainers = &out["gainers"]["body"];
    assert_eq!(gainers["has_more"], true);
    assert_eq!(gainers["data"].as_array().map(Vec::len), Some(2));
    assert!(gainers["data"][0]["symbol"].is_string() && gainers["data"][0]["change_ratio"].is_string());
    for name in ["actives", "dividends"] {
        assert!(!out[name]["body"]["data"].as_array().unwrap().is_empty(), "{name}");
    }
    let sectors = out["sectors"]["body"].as_array().expect("sectors: a bare list");
    assert_eq!(sectors.len(), 3);
    assert!(sectors.iter().all(|s| s["data"].is_array() && s["name"].is_string()));
    assert_eq!(out["sector"]["body"]["id"], sectors[0]["id"]);
    assert_eq!(out["sector"]["body"]["data"].as_array().map(Vec::len), Some(2));
    let dividends = out["fund_dividends"]["body"]
        .as_array()
        .expect("fund dividends: a bare list");
    assert!(!dividends.is_empty() && dividends.len() <= 5);
    assert!(
        dividends
            .iter()
            .all(|d| d["dps"].is_string() && d["share_date"].is_string())
    );

    // order_v2: the current calls under their earlier paths, the lists a bare array.
    assert_eq!(out["v2_preview"]["estimated_cost"], "100", "{}", out["v2_preview"]);
    assert_eq!(out["v2_place"]["client_order_id"], "pyV2a");
    assert_eq!(out["v2_replace"]["client_order_id"], "pyV2a");
    for detail in ["v2_detail", "v2_query_detail"] {
        let order = &out[detail]["orders"][0];
        assert_eq!(
            (&order["client_order_id"], &order["total_quantity"], &order["status"]),
            (&json!("pyV2a"), &json!("2"), &json!("SUBMITTED")),
            "{detail}: {}",
            out[detail]
        );
    }
    assert_eq!(ids(&out["v2_open"]), ["pyV2a", "pyOld2"]);
    assert_eq!(ids(&out["v2_open_next"]), ["pyOld1", "pyOld0"]);
    for history in ["v2_history", "v2_history_request"] {
        assert_eq!(ids(&out[history]), ["pyV2a", "pyOld2", "pyOld1", "pyOld0"], "{history}");
    }
    assert_eq!(out["v2_cancel"]["status"], "CANCELLED");
    assert_eq!(out["v2_cancel_v2"]["client_order_id"], "pyOld0");
    assert_eq!(ids(&out["v2_open_after"]), ["pyOld2", "pyOld1"]);
}

#[tokio::test]
async fn the_official_client_places_replaces_cancels_and_reads_orders() {
    use signet_model::orders::OrderStatus;

    let Some(python) = python() else { return };
    let server = TestServer::start_market("2013-02-25", 2013).await;

    let out = run(&python, &server, "orders").await;
    let account = out["account_id"].as_str().unwrap().to_owned();
    assert_eq!(account, server.app.account_ids[1]);
    assert!(
        out["preview"]["estimated_cost"].as_str() == Some("200"),
        "{}",
        out["preview"]
    );
    assert_eq!(out["place"]["client_order_id"], "pyLimit1");
    assert!(out["place"]["order_id"].is_string());
    let detail = &out["detail"]["orders"][0];
    assert_eq!(
        (detail["status"].as_str(), detail["limit_price"].as_str()),
        (Some("SUBMITTED"), Some("100"))
    );
    assert!(detail["place_time"].is_string() && detail.get("place_time_at").is_none());
    assert_eq!(out["open"]["data"][0]["client_order_id"], "pyLimit1");
    assert!(out["open"].get("pagination_key").is_none(), "a single page");
    assert_eq!(out["replaced"]["orders"][0]["total_quantity"], "3");
    assert_eq!(out["replaced"]["orders"][0]["limit_price"], "101");
    assert_eq!(out["cancel"]["status"], "CANCELLED");
    let history: Vec<&str> = out["history"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["client_order_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        history,
        ["pyMarket1", "pyLimit1"],
        "newest first; the preview placed nothing"
    );
    assert_eq!(
        out["bracket_preview"]["estimated_cost"], "180",
        "the entry, 2 at 90: {}",
        out["bracket_preview"]
    );
    let bracket = &out["bracket"];
    assert_eq!(bracket["client_combo_order_id"], "pyBracket1");
    assert_eq!(bracket["orders"].as_array().map(Vec::len), Some(3), "{bracket}");
    let leg = &out["bracket_leg"];
    assert_eq!(
        (leg["combo_type"].as_str(), leg["combo_order_id"].as_str()),
        (Some("OTOCO"), bracket["combo_order_id"].as_str())
    );
    assert_eq!(
        (
            leg["orders"][0]["combo_type"].as_str(),
            leg["orders"][0]["stop_price"].as_str()
        ),
        (Some("STOP_LOSS"), Some("80"))
    );

    // The market order fills on the next tick of the (manual) clock.
    let ops = server
        .admin()
        .create_app_with_role("ops", rust_decimal::Decimal::ZERO, true)
        .await
        .unwrap();
    server.client_for(&ops).market().step(1).await.unwrap();
    let filled = server.client().orders().get(&account, "pyMarket1").await.unwrap();
    assert_eq!(filled.orders[0].status, OrderStatus::Filled);
}

/// `TradeClient.order` and `TradeClient.account`, the v1 calls: an order placed through them is
/// the v3 order, and the v1 balance is the v3 balance.
#[tokio::test]
async fn the_official_clients_v1_calls_trade_the_same_orders_and_balance_as_v3() {
    let Some(python) = python() else { return };
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(10_000))
        .await
        .unwrap();
    let placed = run(&python, &server, "v1-place").await;
    let account = server.app.account_ids[0].clone();
    assert_eq!(placed["account_id"], json!(account));
    assert_eq!(placed["market"]["client_order_id"], "pyV1Buy");
    assert_eq!(placed["replace_v2"]["client_order_id"], "pyV1Rest");
    let v3 = server.client().orders().get(&account, "pyV1Buy").await.unwrap();
    assert_eq!(
        json!(v3.orders[0].order_id),
        placed["market"]["order_id"],
        "one order, two doors"
    );
    let resting = server.client().orders().get(&account, "pyV1Rest").await.unwrap();
    assert_eq!(
        (
            resting.orders[0].total_quantity.as_str(),
            resting.orders[0].limit_price.as_deref()
        ),
        ("7", Some("392")),
        "replaced twice"
    );
    ops.market().step(1).await.unwrap();

    let out = run(&python, &server, "v1").await;
    let item = &out["detail"]["items"][0];
    assert_eq!(
        (
            &item["order_status"],
            &item["filled_qty"],
            &item["filled_price"],
            &item["instrument_id"]
        ),
        (
            &json!("FILLED"),
            &json!("10"),
            &json!("400.01"),
            &placed["instrument_id"]
        )
    );
    assert_eq!(out["resting"]["items"][0]["order_status"], "SUBMITTED");
    let today: Vec<&str> = out["today"]["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["client_order_id"].as_str().unwrap())
        .collect();
    assert_eq!(today, ["pyV1Rest", "pyV1Buy"]);
    assert_eq!(out["open"]["has_next"], json!(false));
    assert_eq!(out["open"]["orders"][0]["client_order_id"], "pyV1Rest");
    let (b, b3) = (&out["balance"], &out["balance_v3"]);
    assert_eq!(b["total_cash_balance"], b3["total_cash_balance"]);
    assert_eq!(b["total_market_value"], b3["total_market_value"]);
    assert_eq!(b["total_asset"], b3["total_net_liquidation_value"]);
    assert_eq!(
        b["account_currency_assets"][0]["margin_power"],
        b3["account_currency_assets"][0]["buying_power"]
    );
    let holding = &out["positions"]["holdings"][0];
    assert_eq!((&holding["symbol"], &holding["qty"]), (&json!("AAPL"), &json!("10")));
    assert_eq!(out["profile"]["account_type"], "CASH");
    assert_eq!(out["cancel"]["client_order_id"], "pyV1Rest");
    assert_eq!(out["open_after"]["orders"], json!([]));
    let days: Vec<&str> = out["calendar"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["trade_day"].as_str().unwrap())
        .collect();
    assert_eq!(days.len(), 9, "{days:?}");
    assert!(!days.contains(&"2013-03-29"), "Good Friday");
    assert_eq!(out["instrument"]["symbol"], "AAPL");
    assert_eq!(out["instrument"]["instrument_id"], placed["instrument_id"]);
    assert_eq!(out["security"], out["instrument"]);
    assert_eq!(out["tradable"].as_array().map(Vec::len), Some(3));
    assert_eq!(out["transfers"], json!({"data": []}));
    // The cash ledger: the market buy of 10 at 400.01 (no commission here), then the deposit.
    let activities: Vec<(&str, &str)> = out["activities"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["activity_type"].as_str().unwrap(), a["amount"].as_str().unwrap()))
        .collect();
    assert_eq!(activities, [("TRADE", "-4000.1"), ("DEPOSIT", "100000")]);
    assert_eq!(
        out["transfer"],
        json!({"http_status": 404, "error_code": "TRANSFER_NOT_FOUND"})
    );
}

/// AAPL went ex-dividend on 2012-08-09: a position the official client bought the day before,
/// in a replayed 2012 day, is paid the dividend that `get_corp_action` lists, and
/// `list_activities` shows it.
#[tokio::test]
async fn the_official_client_sees_the_2012_dividend_of_a_position_held_across_its_ex_date() {
    let Some(python) = python() else { return };
    let server = TestServer::start_market("2012-08-08", 2012).await;
    let ops = server.ops().await;
    ops.market().step(1).await.unwrap();
    run(&python, &server, "companions-buy").await;
    ops.market().step(1).await.unwrap();
    ops.market().step(15 * 3600).await.unwrap();
    let out = run(&python, &server, "dividend").await;
    let amount = out["corp_actions"][0]["amount"]
        .as_str()
        .expect("AAPL's dividend of 2012-08-09");
    let per_share: rust_decimal::Decimal = amount.parse().unwrap();
    let paid = (per_share * rust_decimal::Decimal::from(10))
        .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let dividends = out["activities"]["data"].as_array().unwrap();
    assert_eq!(dividends.len(), 1, "{out}");
    assert_eq!(
        (
            &dividends[0]["activity_type"],
            &dividends[0]["symbol"],
            &dividends[0]["amount"]
        ),
        (&json!("DIVIDEND"), &json!("AAPL"), &json!(paid.normalize().to_string()))
    );
    assert_eq!(out["positions"][0]["quantity"], "10", "a dividend leaves the position");
}

#[tokio::test]
async fn the_official_client_reads_balance_positions_executions_and_instruments_after_a_fill() {
    let Some(python) = python() else { return };
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server
        .admin()
        .create_app_with_role("ops", rust_decimal::Decimal::ZERO, true)
        .await
        .unwrap();
    let ops = server.client_for(&ops);
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(10_000))
        .await
        .unwrap();
    let bought = run(&python, &server, "companions-buy").await;
    assert_eq!(bought["place"]["client_order_id"], "pyBuy10");
    ops.market().step(1).await.unwrap();

    let out = run(&python, &server, "companions").await;
    let account = out["account_id"].as_str().unwrap();
    assert_eq!(account, server.app.account_ids[0]);
    // 10 bought at the ask, 400.01, no commission; valued at the last price, 400.
    let positions = out["positions"].as_array().expect("a bare array");
    assert_eq!(positions.len(), 1, "{positions:?}");
    let p = &positions[0];
    let detail = &out["position_detail"]["data"][0];
    assert_eq!(
        (&detail["id"], &detail["quantity"], &detail["average_price"]),
        (&p["position_id"], &json!("10"), &json!("400.01")),
        "{:?}",
        out["position_detail"]
    );
    assert_eq!(
        (
            p["symbol"].as_str(),
            p["quantity"].as_str(),
            p["cost_price"].as_str(),
            p["last_price"].as_str(),
            p["market_value"].as_str(),
            p["unrealized_profit_loss"].as_str(),
        ),
        (
            Some("AAPL"),
            Some("10"),
            Some("400.01"),
            Some("400"),
            Some("4000"),
            Some("-0.1")
        )
    );
    let b = &out["balance"];
    assert_eq!(
        (
            b["total_asset_currency"].as_str(),
            b["total_cash_balance"].as_str(),
            b["total_market_value"].as_str(),
            b["total_net_liquidation_value"].as_str(),
        ),
        (Some("USD"), Some("95999.9"), Some("4000"), Some("99999.9"))
    );
    assert_eq!(b["account_currency_assets"][0]["buying_power"], "95999.9");
    let executions = out["executions"]["data"].as_array().expect("a page");
    assert!(out["executions"].get("pagination_key").is_none(), "one page");
    assert_eq!(executions.len(), 1);
    let e = &executions[0];
    assert_eq!(
        (
            e["client_order_id"].as_str(),
            e["side"].as_str(),
            e["filled_quantity"].as_str(),
            e["filled_price"].as_str(),
            e["status"].as_str(),
        ),
        (Some("pyBuy10"), Some("BUY"), Some("10"), Some("400.01"), Some("FILLED"))
    );
    assert_eq!(out["executions_of_order"]["data"].as_array().map(Vec::len), Some(1));
    let found = out["instruments"]["data"].as_array().expect("a page");
    let mut symbols: Vec<&str> = found.iter().map(|i| i["symbol"].as_str().unwrap()).collect();
    symbols.sort_unstable();
    assert_eq!(symbols, ["AAPL", "MSFT"]);
    let aapl = found.iter().find(|i| i["symbol"] == "AAPL").unwrap();
    assert_eq!(aapl["instrument_id"], p["instrument_id"], "the id positions use");
    assert_eq!(aapl["fractionable"], serde_json::json!(true));
    assert_eq!(out["all_instruments"]["data"].as_array().map(Vec::len), Some(5));
    let eod = &out["eod"][0];
    assert_eq!(eod["symbol"], "AAPL");
    let days: Vec<&str> = eod["bars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["time"].as_str().unwrap())
        .collect();
    assert_eq!(days, ["2013-02-21", "2013-02-22"]);
    let splits: Vec<&str> = out["corp_actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["ex_date"].as_str().unwrap())
        .collect();
    assert_eq!(splits, ["2000-06-21", "2005-02-28"]);
}

#[tokio::test]
async fn the_official_client_makes_the_eight_watchlist_calls() {
    let Some(python) = python() else { return };
    let server = TestServer::start().await;
    let universe = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/demo/us_listed_companies.csv");
    let progress = std::sync::Arc::new(signet_import::Progress::default());
    signet_import::import_file(server.database.store.clone(), &universe, &Default::default(), progress)
        .await
        .unwrap();
    let out = run(&python, &server, "watchlists").await;
    assert_eq!(
        out["create"]["name"], "Tech 股票 <&>",
        "the name round-trips, signed as raw UTF-8"
    );
    assert_eq!(
        (out["update"]["name"].as_str(), out["update"]["sort"].as_i64()),
        (Some("Tech"), Some(7))
    );
    assert_eq!(out["list"][0]["watchlist_id"], out["create"]["watchlist_id"]);
    assert_eq!(out["add"]["instruments"].as_array().unwrap().len(), 2);
    assert_eq!(
        out["sort"]["instruments"][0]["symbol"], "MSFT",
        "sorted by the new sort"
    );
    let left: Vec<&str> = out["instruments"]["instruments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(left, ["MSFT"]);
    assert_eq!(out["delete"]["deleted"], true);
    assert_eq!(out["after"], serde_json::json!([]));
}

/// The 23 fundamentals calls: each answered 200 with the shape the catalog names.
fn check_fundamentals(out: &serde_json::Value) {
    let calls = out.as_object().unwrap();
    assert_eq!(calls.len(), 23);
    for (name, call) in calls {
        assert_eq!(call["status"], 200, "{name}: {}", call["body"]);
    }
    let body = |name: &str| &out[name]["body"];
    assert_eq!(body("company_profile")["symbol"], "SNOW");
    assert!(body("target_price")["mean"].is_string());
    assert!(body("rating")["number"].as_u64().unwrap() > 0);
    assert_eq!(body("forecast_eps").as_array().unwrap().len(), 5);
    assert!(!body("filings")["filings"].as_array().unwrap().is_empty());
    assert_eq!(body("capital_flow").as_array().unwrap().len(), 3);
    assert_eq!(body("industry_comparison")["type"], "PE_TTM");
    assert_eq!(body("indicators")["values"]["net_margin"].as_array().unwrap().len(), 5);
    let income = body("income").as_array().unwrap();
    assert_eq!(income.len(), 3);
    assert!(
        income
            .iter()
            .all(|y| y["fiscal_period"] == "FY" && y["revenue"].is_string())
    );
    assert_eq!(body("cash_flow").as_array().unwrap().len(), 5);
    assert!(body("balance_sheet")[0]["total_assets"].is_string());
    assert!(body("alert")["fiscal_period"].is_string());
    assert_eq!(body("fund_brief")["benchmark"], "S&P 500 Index");
    assert!(body("fund_performance")["return_1m"].is_string());
    assert_eq!(body("fund_net_value").as_array().unwrap().len(), 3);
    assert_eq!(body("fund_holdings").as_array().unwrap().len(), 10);
    assert!(body("fund_dividends")["data"].is_array());
    assert_eq!(body("fund_rating").as_array().unwrap().len(), 3);
    assert!(body("fund_splits").as_array().unwrap().is_empty());
    assert_eq!(body("fund_files").as_array().unwrap().len(), 3);
    assert!(body("fund_allocation")[0]["stock"]["ratio"].is_string());
}

#[tokio::test]
async fn the_official_events_client_gets_a_fill_its_position_and_a_cancel_and_is_refused_a_wrong_secret_and_another_apps_account()
 {
    let Some(python) = python() else { return };
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    ops.market()
        .set("AAPL", "400.00", Some("399.99"), Some("400.01"), Some(10_000))
        .await
        .unwrap();
    // The manual clock moves on while the client runs, so that its market order fills.
    let stepping = {
        let ops = server.ops().await;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let _ = ops.market().step(1).await;
            }
        })
    };
    let other = server
        .admin()
        .create_app("another app", rust_decimal::Decimal::from(1000))
        .await
        .unwrap();
    let mut command = command(&python, &server, "events");
    command.env("SIGNET_OTHER_ACCOUNT", &other.account_ids[0]);
    let out = parse(
        tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap(),
    );
    stepping.abort();
    let account = server.app.account_ids[0].as_str();
    assert_eq!(out["account_id"], account);
    let fill = &out["fill"];
    assert_eq!(
        (&fill["event_type"], &fill["subscribe_type"]),
        (&json!(1024), &json!(1))
    );
    let payload = &fill["payload"];
    assert_eq!(
        (
            &payload["client_order_id"],
            &payload["scene_type"],
            &payload["order_status"]
        ),
        (&json!("pyEvtBuy"), &json!("FINAL_FILLED"), &json!("FILLED")),
        "{payload}"
    );
    assert_eq!(payload["account_id"], account);
    assert!(payload["request_id"].is_string());
    // Filled within a second of the market's ticks, and its event pushed at once.
    assert!(
        out["fill_seconds"].as_f64().unwrap() < 1.0 + LATE.as_secs_f64(),
        "{}",
        out["fill_seconds"]
    );
    // The client subscribes to every type (7): the fill's position event, as the list shows it.
    let position = &out["position"];
    assert_eq!(
        (&position["event_type"], &position["subscribe_type"]),
        (&json!(1028), &json!(2))
    );
    let listed = out["positions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["symbol"] == "AAPL")
        .expect("an AAPL position");
    let payload = &position["payload"];
    assert_eq!(
        (&payload["account_id"], &payload["symbol"]),
        (&json!(account), &json!("AAPL"))
    );
    assert_eq!(
        (&payload["quantity"], &payload["cost_price"]),
        (&listed["quantity"], &listed["cost_price"]),
        "{payload} {listed}"
    );
    assert!(payload["request_id"].is_string());
    assert_eq!(out["cancel"]["payload"]["scene_type"], "CANCEL_SUCCESS");
    assert_eq!(out["refused"]["code"], "UNAUTHENTICATED", "{}", out["refused"]);
    assert_eq!(out["refused_events"], 0);
    let fatal = out["refused_fatal_logs"].as_array().unwrap();
    assert!(
        fatal.iter().any(|l| l.as_str().unwrap().contains("INCORRECT_SIGN")),
        "the AuthError message reached the client: {fatal:?}"
    );
    assert_eq!(
        out["other_account_refused"]["code"], "PERMISSION_DENIED",
        "{}",
        out["other_account_refused"]
    );
}

#[tokio::test]
async fn the_official_streaming_client_receives_the_prices_of_the_http_calls() {
    let Some(python) = python() else { return };
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| {
        c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap());
        c.streaming.max_sessions_per_app = 1;
    })
    .await;
    let ops = server.ops().await;
    ops.market().step(600).await.unwrap();
    // Five connections made with the app key alone (any password, keep-alive 0) took every
    // session of the app, and the client was refused with 105: they now hold none.
    let mut hostile = Vec::new();
    for n in 0..5 {
        let session = format!("hostile-{n}");
        let socket = crate::streaming::socket();
        let (stream, connack) = crate::streaming::raw_connect(&server, socket, &session, &server.app.app_key, 0).await;
        assert_eq!(connack, [0x20, 2, 0, 0]);
        hostile.push(stream);
    }
    let (first, dialogue) = Dialogue::start(&python, &server, "streaming").await;

    // The clock is manual: the HTTP calls answer for the second the messages were pushed at.
    let client = server.client();
    let received = &first["received"];
    for symbol in ["AAPL", "MSFT"] {
        let http = &client.stocks().snapshots(&[symbol], false, false).await.unwrap()[0];
        let snapshot = &received[format!("{symbol} snapshot")];
        assert_eq!(snapshot["price"], http.price.as_str(), "{first}");
        assert_eq!(snapshot["pre_close"], http.pre_close.as_str());
        assert_eq!(snapshot["timestamp"], http.last_trade_time);
        let depth = client.stocks().depth(symbol, None).await.unwrap();
        let quote = &received[format!("{symbol} quote")];
        assert_eq!(quote["bid"], depth.bids[0].price.as_str());
        assert_eq!(quote["ask"], depth.asks[0].price.as_str());
        assert_eq!(quote["levels"], 10);
        let ticks = client.stocks().ticks(symbol, Some(1)).await.unwrap();
        let tick = &received[format!("{symbol} tick")];
        assert_eq!(tick["time"], ticks.result[0].time.as_str());
        assert_eq!(tick["price"], ticks.result[0].price.as_str());
    }
    assert!(
        first["seconds"].as_f64().unwrap() < 1.0 + LATE.as_secs_f64(),
        "every kind within a second's ticks: {first}"
    );

    // MSFT is unsubscribed: the market moves and AAPL is pinned; only AAPL comes.
    ops.market().step(3).await.unwrap();
    ops.market().set("AAPL", "123.45", None, None, None).await.unwrap();
    let out = dialogue.finish(b"123.45\n").await;
    assert_eq!(
        out["subscribed"],
        json!([out["session_id"], out["session_id"]]),
        "on_subscribe_success after a 200, and again after the reconnection"
    );
    // The client reconnects 10 s after its connection dropped, subscribes again and receives.
    let reconnected = out["reconnected_seconds"].as_f64().unwrap();
    assert!((9.0..10.0 + LATE.as_secs_f64()).contains(&reconnected), "{reconnected}");
    let later = out["later"].as_array().unwrap();
    assert!(later.iter().all(|m| m[0] == "AAPL"), "no more MSFT: {later:?}");
    assert!(later.iter().any(|m| m[1] == "tick"), "the ticks of the step: {later:?}");
    assert!(
        later.iter().any(|m| m[1] == "snapshot" && m[2] == "123.45"),
        "the pinned price: {later:?}"
    );
    let refused = &out["refused"];
    assert_eq!(refused["loop_exception"], "ServerException", "{refused}");
    assert_eq!(refused["connack"], 4, "{refused}");
    assert_eq!(refused["retried"], false, "{refused}");
    // A second session of an app allowed one: Webull's "connection limit exceeded", final too.
    let crowded = &out["crowded"];
    assert_eq!(crowded["connack"], 105, "{crowded}");
    assert_eq!(crowded["retried"], false, "{crowded}");
    drop(hostile);
}

/// Revoking an app stops both its streaming clients for good: the events client's stream ends
/// with UNAUTHENTICATED (after an AuthError it logs), which it does not retry; the quotes
/// client's connection is closed, and its reconnection 10 s later is refused with 4, which it
/// does not retry either.
#[tokio::test]
async fn the_official_clients_stop_when_their_app_is_revoked() {
    let Some(python) = python() else { return };
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| {
        c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap());
    })
    .await;
    let (ready, dialogue) = Dialogue::start(&python, &server, "revoked").await;
    assert_eq!(ready["ready"], true, "{ready}");
    server.admin().revoke_app(&server.app.app_key).await.unwrap();
    let out = dialogue.finish(b"revoked\n").await;
    eprintln!("the official clients after the revocation: {out}");
    let events = &out["events"];
    assert_eq!(events["code"], "UNAUTHENTICATED", "{out}");
    // Each node looks for revoked apps every second.
    assert!(events["seconds"].as_f64().unwrap() < 1.0 + LATE.as_secs_f64(), "{out}");
    let fatal = out["events_fatal_logs"].as_array().unwrap();
    assert!(
        fatal.iter().any(|l| l.as_str().unwrap().contains("revoked")),
        "the AuthError reached the client: {out}"
    );
    let disconnected = out["streaming_disconnected_seconds"][0].as_f64().unwrap();
    assert!(disconnected < 1.0 + LATE.as_secs_f64(), "{out}");
    let streaming = &out["streaming"];
    assert_eq!(streaming["connack"], 4, "{out}");
    assert!(
        streaming["seconds"].as_f64().unwrap() < 20.0,
        "one reconnection, 10 s later: {out}"
    );
}

/// Every HTTP method of the official client's `TradeClient` (but `order.place_option`, which
/// fails in the client before sending anything): what each
/// answers on a strict server and under `--compat legacy`. Any answer other than 2xx must be a
/// deliberate, documented one, listed here; the list shrinks as the interface grows.
#[tokio::test]
async fn every_trade_client_method_answers_or_is_refused_on_purpose() {
    use std::collections::BTreeMap;

    let Some(python) = python() else { return };
    let refusals = |out: &serde_json::Value| -> BTreeMap<String, String> {
        assert_eq!(
            out["left_out"],
            json!([]),
            "methods of the client the sweep does not call"
        );
        out["answers"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, a)| !(200..300).contains(&a["status"].as_u64().unwrap_or(0)))
            .map(|(name, a)| {
                let code = a["error_code"].as_str().unwrap_or("?");
                (name.clone(), format!("{} {code}", a["status"]))
            })
            .collect()
    };
    // One deliberate answer in both modes: signet has no transfers.
    let always = [("activity.get_transfer_activity_detail", "404 TRANSFER_NOT_FOUND")];
    // Retired by the specification: served only under --compat legacy (404 naming the current
    // call; x-version v2 is refused before routing, 400).
    let retired_paths = [
        "account.get_app_subscriptions",
        "order_v2.preview_order",
        "order_v2.place_order",
        "order_v2.replace_order",
        "order_v2.get_order_detail",
        "order_v2.query_order_detail",
        "order_v2.get_order_open",
        "order_v2.get_order_history",
        "order_v2.get_order_history_request",
        "order_v2.cancel_order",
        "order_v2.cancel_order_v2",
    ];
    let version_v2 = [
        "activity.get_activities",
        "account_v2.get_account_position_details",
        "order_v3.get_order_open",
        "order_v3.get_order_history",
        "order_v3.get_order_executions",
    ];
    let expected = |strict: bool| -> BTreeMap<String, String> {
        let mut expected: BTreeMap<String, String> =
            always.iter().map(|(m, a)| ((*m).to_owned(), (*a).to_owned())).collect();
        if strict {
            expected.extend(
                retired_paths
                    .iter()
                    .map(|m| ((*m).to_owned(), "404 NOT_FOUND".to_owned())),
            );
            expected.extend(
                version_v2
                    .iter()
                    .map(|m| ((*m).to_owned(), "400 UNSUPPORTED_API_VERSION".to_owned())),
            );
        }
        expected
    };

    let strict = TestServer::start_market("2013-02-25", 2013).await;
    let out = run(&python, &strict, "sweep").await;
    let methods = out["answers"].as_object().unwrap().len();
    assert_eq!(methods, 54, "TradeClient's HTTP methods but order.place_option");
    assert_eq!(refusals(&out), expected(true), "strict");

    let legacy = TestServer::start_market_with("2013-02-25", 2013, |c| {
        c.compat = signet_server::generations::compat::Compat::Legacy;
    })
    .await;
    let out = run(&python, &legacy, "sweep").await;
    assert_eq!(refusals(&out), expected(false), "--compat legacy");
}
