//! The operator console in a real headless browser (Debian's chromium, driven through
//! chromedriver by fantoccini): a person signs in through a link, watches an order appear and
//! fill and a pinned price move the position's P&L without reloading, finds why a signature was
//! refused, and is refused a used link and an action without its CSRF token. Every page passes
//! an accessibility check (our own rules, and axe-core's when `SIGNET_AXE_JS` names its
//! `axe.min.js`, as `scripts/axe-core.sh` prints) and is saved as a screenshot under
//! `target/console-screenshots/`.
//!
//! Skipped when chromedriver is missing, unless `SIGNET_REQUIRE_BROWSER` is set (as
//! `scripts/test.sh` does, after installing it).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client as Browser, ClientBuilder, Locator};
use serde_json::{Value, json};
use signet_client::Client;

use crate::common::{TestServer, market_buy};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// chromedriver on a free loopback port, killed when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn start_browser() -> Option<(Driver, Browser)> {
    let driver = std::env::var("SIGNET_CHROMEDRIVER").unwrap_or_else(|_| CHROMEDRIVER.to_owned());
    if !std::path::Path::new(&driver).exists() {
        assert!(
            std::env::var_os("SIGNET_REQUIRE_BROWSER").is_none(),
            "SIGNET_REQUIRE_BROWSER is set but {driver} is missing (apt-get install chromium chromium-driver)"
        );
        eprintln!("skipped: {driver} is missing (apt-get install chromium chromium-driver)");
        return None;
    }
    let port = free_port();
    let child = Command::new(&driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({"args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"]}),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let started = Instant::now();
    loop {
        match ClientBuilder::new(connector.clone())
            .capabilities(capabilities.clone())
            .connect(&driver.url)
            .await
        {
            Ok(browser) => return Some((driver, browser)),
            Err(e) if started.elapsed() < Duration::from_secs(20) => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("chromedriver does not answer: {e}"),
        }
    }
}

fn screenshots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/console-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn screenshot(browser: &Browser, name: &str) {
    let png = browser.screenshot().await.unwrap();
    std::fs::write(screenshots().join(format!("{name}.png")), png).unwrap();
}

/// Waits until `script` (the body of a function) returns true in the page.
async fn wait_until(browser: &Browser, what: &str, script: &str) {
    let started = Instant::now();
    loop {
        if browser.execute(script, vec![]).await.unwrap() == Value::Bool(true) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{what}: not seen within 15 s in {}",
            browser.current_url().await.unwrap()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn text(browser: &Browser, css: &str) -> String {
    browser.find(Locator::Css(css)).await.unwrap().text().await.unwrap()
}

/// What the page breaks of the accessibility rules the console keeps: every control labelled,
/// every chart with text, every action reachable from the keyboard (a link or a control, never
/// a click handler on something else), a language, a title and one h1.
const ACCESSIBILITY: &str = r#"
const problems = [];
const named = (el) => (el.getAttribute('aria-label') || '').trim() !== ''
    || (el.id && document.querySelector(`label[for="${el.id}"]`)) || el.closest('label');
for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
    if (!named(el)) problems.push('unlabelled ' + el.outerHTML.slice(0, 80));
}
for (const el of document.querySelectorAll('button, a')) {
    if ((el.textContent || '').trim() === '' && !named(el)) problems.push('no text ' + el.outerHTML.slice(0, 80));
    if (el.tagName === 'A' && !el.hasAttribute('href')) problems.push('link without href');
}
for (const svg of document.querySelectorAll('svg')) {
    const holder = svg.closest('[role=img]');
    if (!holder || !named(holder)) problems.push('chart without text');
}
for (const img of document.querySelectorAll('img')) {
    if (!img.hasAttribute('alt')) problems.push('image without alt');
}
for (const el of document.querySelectorAll('[onclick]')) problems.push('click handler on ' + el.tagName);
for (const el of document.querySelectorAll('[tabindex]')) {
    if (Number(el.getAttribute('tabindex')) > 0) problems.push('positive tabindex');
}
if (!document.documentElement.lang) problems.push('no lang');
if (!document.title) problems.push('no title');
if (document.querySelectorAll('h1').length !== 1) problems.push('not one h1');
return problems;
"#;

async fn check_page(browser: &Browser, name: &str) {
    let problems = browser.execute(ACCESSIBILITY, vec![]).await.unwrap();
    assert_eq!(problems, json!([]), "accessibility of the {name} page");
    // axe-core's rules too, when `scripts/test.sh` fetched it (SIGNET_AXE_JS: its axe.min.js).
    if let Some(axe) = std::env::var_os("SIGNET_AXE_JS") {
        let source = std::fs::read_to_string(&axe).expect("SIGNET_AXE_JS names axe.min.js");
        browser.execute(&source, vec![]).await.unwrap();
        let violations = browser
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 axe.run(document, {resultTypes: ['violations']})
                    .then(r => done(r.violations.map(v => `${v.id} (${v.impact}): ${v.nodes.map(n => n.target.join(' ')).join(', ')}`)));",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(violations, json!([]), "axe-core on the {name} page");
    }
    screenshot(browser, name).await;
}

#[tokio::test]
async fn a_person_follows_and_drives_the_server_in_a_browser() {
    let Some((_driver, browser)) = start_browser().await else {
        return;
    };
    let server = TestServer::start_market("2013-02-25", 17).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();

    // Signing in: the link leads to the overview, which lists the accounts.
    let link = server
        .admin()
        .console_link(&server.endpoint, Duration::from_secs(600))
        .await
        .unwrap();
    browser.goto(&link).await.unwrap();
    assert_eq!(browser.current_url().await.unwrap().path(), "/console/");
    let overview = text(&browser, "#accounts").await;
    for id in &server.app.account_ids {
        assert!(overview.contains(id.as_str()), "{overview}");
    }
    check_page(&browser, "overview").await;

    // The account page follows an order placed through the interface, without a reload.
    browser
        .goto(&server.url(&format!("/console/accounts/{account}")))
        .await
        .unwrap();
    browser
        .execute("window.stillThisPage = true; return true;", vec![])
        .await
        .unwrap();
    let _: Value = client
        .post("/trading/orders/place", &market_buy(&account, "browser-buy", "AAPL"))
        .await
        .unwrap();
    wait_until(
        &browser,
        "the new order",
        "return document.querySelector('#orders').textContent.includes('browser-buy');",
    )
    .await;
    ops.market().step(2).await.unwrap();
    wait_until(
        &browser,
        "the fill",
        "return [...document.querySelectorAll('#orders .status')].some(s => s.dataset.status === 'FILLED');",
    )
    .await;
    wait_until(
        &browser,
        "the position",
        "return document.querySelector('#positions tr[data-symbol=AAPL]') !== null;",
    )
    .await;
    let position = client.accounts().positions(&account).await.unwrap();
    let cost: rust_decimal::Decimal = position[0].cost_price.parse().unwrap();

    // A pinned price moves the position's P&L and the value chart, still without a reload.
    let chart_before = text(&browser, "#value figcaption").await;
    ops.market().set("AAPL", "500.00", None, None, None).await.unwrap();
    let expected = format!(
        "{:.2}",
        ((rust_decimal::Decimal::from(500) - cost) * rust_decimal::Decimal::from(10)).round_dp(2)
    );
    wait_until(
        &browser,
        "the P&L at the pinned price",
        &format!(
            "return document.querySelector('#positions tr[data-symbol=AAPL] .pl').textContent.trim() === '{expected}';"
        ),
    )
    .await;
    wait_until(
        &browser,
        "the value chart at the pinned price",
        &format!(
            "return document.querySelector('#value figcaption').textContent !== {};",
            json!(chart_before)
        ),
    )
    .await;
    assert_eq!(
        browser
            .execute("return window.stillThisPage === true;", vec![])
            .await
            .unwrap(),
        json!(true),
        "the page was never reloaded"
    );
    // Its timeline opens from the keyboard and shows the fill.
    let summary = browser.find(Locator::Css("#orders summary")).await.unwrap();
    summary.send_keys("\u{e007}").await.unwrap();
    wait_until(
        &browser,
        "the open timeline",
        "return document.querySelector('#orders details').open;",
    )
    .await;
    let timeline = text(&browser, "#orders details table").await;
    assert!(timeline.contains("filled 10"), "{timeline}");
    check_page(&browser, "account").await;

    // The market page pins a price through its form, and its chart marks the fill.
    browser
        .goto(&server.url(&format!("/console/market?symbol=AAPL&account={account}")))
        .await
        .unwrap();
    let price = browser.find(Locator::Id("price")).await.unwrap();
    price.send_keys("321.09").await.unwrap();
    browser
        .find(Locator::XPath("//button[normalize-space()='Pin']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_until(
        &browser,
        "the pinned price",
        "return document.querySelector('#last-price')?.textContent === '321.09';",
    )
    .await;
    assert_eq!(ops.market().quote("AAPL").await.unwrap().last, "321.09");
    // The fill, marked on today's chart and on the daily one.
    let marks = browser
        .execute(
            "return [...document.querySelectorAll('#quote figure')].map(f => f.querySelectorAll('polygon').length);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(marks, json!([1, 1]), "the fill is marked on both charts");
    check_page(&browser, "market").await;

    // A refused signature, explained on the Requests page.
    let wrong = Client::new(&server.endpoint, &server.app.app_key, "a-wrong-secret").unwrap();
    wrong.accounts().list().await.unwrap_err();
    browser.goto(&server.url("/console/requests")).await.unwrap();
    browser
        .find(Locator::LinkText("INCORRECT_SIGN (explain)"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let explained = text(&browser, "main").await;
    assert!(explained.contains("String to sign (str3)"), "{explained}");
    assert!(
        explained.contains("GET\n") || explained.contains("/trading/accounts/list"),
        "{explained}"
    );
    check_page(&browser, "request").await;
    browser.goto(&server.url("/console/requests")).await.unwrap();
    check_page(&browser, "requests").await;
    browser.goto(&server.url("/console/apps")).await.unwrap();
    check_page(&browser, "apps").await;

    // An action without its CSRF token is refused, from the page itself.
    let status = browser
        .execute(
            "return fetch('/console/market/set', {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'symbol=AAPL&price=1'}).then(r => r.status);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(status, json!(403));
    assert_eq!(ops.market().quote("AAPL").await.unwrap().last, "321.09");

    // The used link is refused.
    browser.goto(&link).await.unwrap();
    let refused = text(&browser, "main").await;
    assert!(refused.contains("already used"), "{refused}");
    check_page(&browser, "used-link").await;
    browser.close().await.unwrap();
}
