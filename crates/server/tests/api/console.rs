//! The operator console over plain HTTP: login links, the session cookie, CSRF tokens, the limit
//! on failed logins, what its pages show (and never show), and the scenario rules' controls. The browser test is in
//! `console_browser.rs`.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use secrecy::ExposeSecret;
use signet_client::Client;

use crate::common::{TestServer, http, market_buy};

/// A client that leaves redirects to the test.
fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn link(server: &TestServer) -> String {
    server
        .admin()
        .console_link(&server.endpoint, Duration::from_secs(600))
        .await
        .unwrap()
}

/// Signs in through a new link: the session cookie (`name=value`).
pub async fn sign_in(server: &TestServer) -> String {
    let response = browser().get(link(server).await).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let cookie = response.headers()[SET_COOKIE].to_str().unwrap();
    cookie.split(';').next().unwrap().to_owned()
}

pub async fn page(server: &TestServer, cookie: &str, path: &str) -> (StatusCode, String) {
    let response = browser()
        .get(server.url(path))
        .header(COOKIE, cookie)
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

/// A form body, as a browser encodes it.
fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// Posts a form of the console.
fn post(server: &TestServer, cookie: &str, path: &str, pairs: &[(&str, &str)]) -> reqwest::RequestBuilder {
    browser()
        .post(server.url(path))
        .header(COOKIE, cookie)
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(form(pairs))
}

/// The value of the first hidden `csrf` field of a page.
fn csrf(html: &str) -> String {
    let at = html.find(r#"name="csrf" value=""#).expect("a form with a CSRF token") + 19;
    html[at..at + 64].to_owned()
}

#[tokio::test]
async fn a_login_link_works_once_and_becomes_a_session_cookie() {
    let server = TestServer::start().await;
    let link = link(&server).await;
    assert!(
        link.starts_with(&format!("{}/console/login?token=", server.endpoint)),
        "{link}"
    );

    let first = browser().get(&link).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::SEE_OTHER);
    assert_eq!(first.headers()[LOCATION], "/console/");
    let cookie = first.headers()[SET_COOKIE].to_str().unwrap().to_owned();
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/console"] {
        assert!(cookie.contains(flag), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "no Secure flag over plain HTTP: {cookie}");
    let session = cookie.split(';').next().unwrap();

    let again = browser().get(&link).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::UNAUTHORIZED, "a link works once");
    assert!(again.text().await.unwrap().contains("already used"));

    let (status, html) = page(&server, session, "/console/").await;
    assert_eq!(status, StatusCode::OK);
    for account in &server.app.account_ids {
        assert!(html.contains(account.as_str()), "the overview lists {account}");
    }
    let (status, _) = page(&server, "signet_console=00", "/console/").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a made-up cookie");
    let anonymous = http().get(server.url("/console/apps")).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let headers = anonymous.headers();
    let policy = headers["content-security-policy"].to_str().unwrap();
    assert!(
        policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"),
        "{policy}"
    );

    // Behind a proxy that terminates TLS, the cookie is Secure.
    let link = crate::console::link(&server).await;
    let behind_tls = browser()
        .get(&link)
        .header("x-forwarded-proto", "https")
        .send()
        .await
        .unwrap();
    assert!(behind_tls.headers()[SET_COOKIE].to_str().unwrap().contains("; Secure"));

    // Signing out ends the session.
    let (_, html) = page(&server, session, "/console/").await;
    let out = post(&server, session, "/console/logout", &[("csrf", &csrf(&html))])
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    assert_eq!(page(&server, session, "/console/").await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn an_action_needs_the_sessions_csrf_token() {
    let server = TestServer::start_market("2013-02-25", 7).await;
    let ops = server.ops().await;
    let session = sign_in(&server).await;
    let (_, html) = page(&server, &session, "/console/market?symbol=AAPL").await;
    let token = csrf(&html);
    let pin = |csrf: Option<&str>| {
        let mut pairs = vec![("symbol", "AAPL"), ("price", "123.45")];
        if let Some(csrf) = csrf {
            pairs.push(("csrf", csrf));
        }
        post(&server, &session, "/console/market/set", &pairs).send()
    };
    assert_eq!(pin(None).await.unwrap().status(), StatusCode::FORBIDDEN);
    let other = "ab".repeat(32);
    assert_eq!(pin(Some(&other)).await.unwrap().status(), StatusCode::FORBIDDEN);
    assert!(
        !ops.market().quote("AAPL").await.unwrap().pinned,
        "a refused action changes nothing"
    );

    // Another session's token is refused too.
    let other_session = sign_in(&server).await;
    let (_, other_html) = page(&server, &other_session, "/console/market").await;
    assert_ne!(csrf(&other_html), token);
    assert_eq!(
        pin(Some(&csrf(&other_html))).await.unwrap().status(),
        StatusCode::FORBIDDEN
    );

    // A symbol that is not one: the instruments whose symbol or name matches.
    let (_, found) = page(&server, &session, "/console/market?symbol=APPL").await;
    assert!(
        found.contains("APPL is no symbol") || found.contains("matches APPL"),
        "{found}"
    );
    let (_, found) = page(&server, &session, "/console/market?symbol=AAP").await;
    assert!(
        found.contains(r#"href="/console/market?symbol=AAPL"#),
        "AAPL starts with AAP: {found}"
    );

    let done = pin(Some(&token)).await.unwrap();
    assert_eq!(done.status(), StatusCode::SEE_OTHER);
    let quote = ops.market().quote("AAPL").await.unwrap();
    assert!(quote.pinned);
    assert_eq!(quote.last, "123.45");
}

/// Five failed logins a minute from an address are answered, then it waits; but its valid link
/// still opens a session (a stranger's five bad links locked the operator out).
#[tokio::test]
async fn failed_logins_are_limited_per_address_and_never_block_a_valid_link() {
    let server = TestServer::start().await;
    let bad = format!("{}/console/login?token={}", server.endpoint, "0".repeat(64));
    for _ in 0..5 {
        assert_eq!(
            browser().get(&bad).send().await.unwrap().status(),
            StatusCode::UNAUTHORIZED
        );
    }
    let refused = browser().get(&bad).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.text().await.unwrap().contains("too many failed logins"));
    let good = link(&server).await;
    let admitted = browser().get(&good).send().await.unwrap();
    assert_eq!(admitted.status(), StatusCode::SEE_OTHER);
    assert!(admitted.headers()["set-cookie"].to_str().unwrap().contains("HttpOnly"));
    // Spent, the same link is refused: waiting, as a bad one.
    let again = browser().get(&good).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn a_refused_signature_is_explained_without_the_secret() {
    let server = TestServer::start().await;
    let session = sign_in(&server).await;
    let secret = server.app.app_secret.expose_secret().to_owned();
    server.client().accounts().list().await.unwrap();
    let wrong = Client::new(&server.endpoint, &server.app.app_key, "not-the-secret").unwrap();
    wrong.accounts().list().await.unwrap_err();

    let (_, list) = page(&server, &session, "/console/requests").await;
    assert!(list.contains("GET /trading/accounts/list"), "{list}");
    assert!(list.contains("INCORRECT_SIGN (explain)"));
    let at = list.find("/console/requests/").unwrap();
    let href: String = list[at..].chars().take_while(|c| *c != '"').collect();

    let (status, explained) = page(&server, &session, &href).await;
    assert_eq!(status, StatusCode::OK);
    assert!(explained.contains("String to sign (str3)"));
    assert!(explained.contains("/trading/accounts/list"), "str3 holds the path");
    assert!(explained.contains("x-signature-nonce"), "the headers received");
    let host = server.endpoint.trim_start_matches("http://");
    assert!(explained.contains(&format!("<code>{host}</code>")), "the host tried");

    // No page shows the secret; only the explanation shows signatures and strings to sign.
    for path in ["/console/", "/console/requests", "/console/apps", &href] {
        let (_, html) = page(&server, &session, path).await;
        assert!(!html.contains(&secret), "{path} shows the app's secret");
        if path != href {
            assert!(!html.contains("x-signature"), "{path} shows signing headers");
        }
    }
    let (_, overview) = page(&server, &session, "/console/").await;
    assert!(overview.contains("INCORRECT_SIGN"), "the overview counts the refusal");
}

#[tokio::test]
async fn the_account_page_shows_an_orders_events_and_filters() {
    let server = TestServer::start_market("2013-02-25", 11).await;
    let ops = server.ops().await;
    let client = server.client();
    let account = server.app.account_ids[0].clone();
    for (id, symbol) in [("console-aapl", "AAPL"), ("console-msft", "MSFT")] {
        let _: serde_json::Value = client
            .post("/trading/orders/place", &market_buy(&account, id, symbol))
            .await
            .unwrap();
    }
    ops.market().step(2).await.unwrap();
    let positions = client.accounts().positions(&account).await.unwrap();
    let session = sign_in(&server).await;

    let path = format!("/console/accounts/{account}");
    let (status, html) = page(&server, &session, &path).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("console-aapl") && html.contains("console-msft"));
    assert!(html.contains("PLACE") && html.contains("FILL"), "the timeline's events");
    let aapl = positions.iter().find(|p| p.symbol == "AAPL").unwrap();
    let cost: rust_decimal::Decimal = aapl.cost_price.parse().unwrap();
    assert!(
        html.contains(&format!("{:.2}", cost.round_dp(2))),
        "the position's average cost as the API answers it ({cost})"
    );
    assert!(html.contains("Account value: from"), "the value chart");
    // Everything happened today: today's P&L is the value now less the starting cash.
    let balance = client.accounts().balance(&account).await.unwrap();
    let value: rust_decimal::Decimal = balance.total_net_liquidation_value.parse().unwrap();
    let today = format!(
        "Today's P&amp;L</dt><dd>{:.2}</dd>",
        (value - rust_decimal::Decimal::from(100_000)).round_dp(2)
    );
    assert!(html.contains(&today), "{today}");

    let (_, filtered) = page(&server, &session, &format!("{path}?symbol=msft&status=FILLED")).await;
    assert!(filtered.contains("console-msft") && !filtered.contains("console-aapl"));
    let (_, none) = page(&server, &session, &format!("{path}?status=CANCELLED")).await;
    assert!(none.contains("No orders."));
    assert_eq!(
        page(&server, &session, "/console/accounts/NOPE").await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_console_can_be_off() {
    let server = TestServer::start_with(|c| c.console = false).await;
    let made = server
        .admin()
        .console_link(&server.endpoint, Duration::from_secs(60))
        .await;
    assert!(made.is_ok(), "a link can be made, for another node");
    let response = http().get(server.url("/console/")).send().await.unwrap();
    assert_ne!(response.status(), StatusCode::OK);
    let body = response.text().await.unwrap();
    assert!(
        body.starts_with('{') && body.contains("error_code"),
        "the interface's JSON refusal: {body}"
    );
}

#[tokio::test]
async fn the_market_page_shows_how_a_day_behaved() {
    let server = TestServer::start_market("2013-02-28", 7).await;
    let session = sign_in(&server).await;
    let (status, html) = page(&server, &session, "/console/market?symbol=AAPL&date=2013-02-27").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("How the market behaved"), "{html}");
    assert!(html.contains("AAPL on 2013-02-27, 390 one-minute bars."), "{html}");
    for figure in [
        "kurtosis of one-minute log returns",
        "bars whose low is the day's low",
        "2 to 4",
    ] {
        assert!(html.contains(figure), "{figure}: {html}");
    }
    let (status, html) = page(&server, &session, "/console/market?symbol=AAPL&date=2013-03-08").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("AAPL has no minutes on 2013-03-08"), "{html}");
}

/// docs/scenarios.md's example rules, as the scenario tests load them.
const RULES: &str = include_str!("../../../../testdata/scenarios/unhappy-paths.toml");
const BIG_MSFT: &str = "reject big MSFT buys";

/// Places a buy of `quantity` MSFT: whether it was taken.
async fn buy_msft(server: &TestServer, id: &str, quantity: &str) -> bool {
    let mut body = market_buy(&server.app.account_ids[1], id, "MSFT");
    body["new_orders"][0]["quantity"] = quantity.into();
    let placed: Result<serde_json::Value, _> = server.client().post("/trading/orders/place", &body).await;
    placed.is_ok()
}

#[tokio::test]
async fn the_scenarios_page_loads_switches_and_clears_the_rules() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let session = sign_in(&server).await;
    let (status, html) = page(&server, &session, "/console/scenarios").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("No rules have been loaded."), "{html}");
    let token = csrf(&html);

    let loaded = post(
        &server,
        &session,
        "/console/scenarios/load",
        &[("csrf", &token), ("text", RULES)],
    )
    .send()
    .await
    .unwrap();
    assert_eq!(loaded.status(), StatusCode::SEE_OTHER);
    assert_eq!(loaded.headers()[LOCATION], "/console/scenarios");
    let listed = ops.scenarios().list().await.unwrap();
    assert_eq!(listed.rules.len(), 6);
    let (_, html) = page(&server, &session, "/console/scenarios").await;
    for rule in &listed.rules {
        let row = format!("<td>{}</td><td>{}</td><td>{}</td>", rule.name, rule.stage, rule.outcome);
        assert!(html.contains(&row), "{row}: {html}");
    }
    let figures = format!(
        "<dt>Seed</dt><dd>7</dd></div><div><dt>Version</dt><dd>{}</dd></div><div><dt>Changed</dt><dd>{}</dd>",
        listed.version, listed.changed
    );
    assert!(html.contains(&figures), "{figures}: {html}");
    assert!(html.contains("Switch off reject big MSFT buys"));

    // The rule refuses a big buy until it is switched off through the form.
    assert!(!buy_msft(&server, "big-1", "100").await, "the rule refuses it");
    let switched = post(
        &server,
        &session,
        "/console/scenarios/switch",
        &[("csrf", &token), ("name", BIG_MSFT), ("enabled", "false")],
    )
    .send()
    .await
    .unwrap();
    assert_eq!(switched.status(), StatusCode::SEE_OTHER);
    let listed = ops.scenarios().list().await.unwrap();
    let rule = listed.rules.iter().find(|r| r.name == BIG_MSFT).unwrap();
    assert!(!rule.enabled, "the admin API sees the switch");
    assert_eq!(rule.hits, 1);
    assert!(buy_msft(&server, "big-2", "100").await, "the rule is off");
    let (_, html) = page(&server, &session, "/console/scenarios").await;
    assert!(html.contains("Switch on reject big MSFT buys"), "{html}");
    let unknown = post(
        &server,
        &session,
        "/console/scenarios/switch",
        &[("csrf", &token), ("name", "nope"), ("enabled", "true")],
    )
    .send()
    .await
    .unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert!(unknown.text().await.unwrap().contains("no rule in force is named"));

    // Only the refused buy is marked on the Requests page, in the list and in its detail.
    let (_, requests) = page(&server, &session, "/console/requests").await;
    let badge = format!(r#"<span class="badge">scenario: {BIG_MSFT}</span>"#);
    assert_eq!(requests.matches(&badge).count(), 1, "{requests}");
    let mut marked = String::new();
    for id in 0..100 {
        let (_, detail) = page(&server, &session, &format!("/console/requests/{id}")).await;
        if detail.contains(&badge) {
            marked = detail;
            break;
        }
    }
    assert!(marked.contains("POST /trading/orders/place"), "{marked}");

    let cleared = post(&server, &session, "/console/scenarios/clear", &[("csrf", &token)])
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status(), StatusCode::SEE_OTHER);
    assert!(ops.scenarios().list().await.unwrap().rules.is_empty());
    let (_, html) = page(&server, &session, "/console/scenarios").await;
    assert!(html.contains("No rule is in force."), "{html}");
}

#[tokio::test]
async fn a_refused_file_or_form_changes_no_rule() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let before = ops.scenarios().load(RULES).await.unwrap();
    let session = sign_in(&server).await;
    let (_, html) = page(&server, &session, "/console/scenarios").await;
    let token = csrf(&html);
    let load = |pairs: &[(&str, &str)]| post(&server, &session, "/console/scenarios/load", pairs).send();

    let bad = "[[rule]]\nname = \"ok\"\nthen = { delay_ms = 5 }\n\n[[rule]]\nname = \"x\"\nwhen = { sidee = \"BUY\" }\nthen = { status = 503 }\n";
    let refused = load(&[("csrf", &token), ("text", bad)]).await.unwrap();
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let html = refused.text().await.unwrap();
    assert!(html.contains("The file is refused, nothing changed: line 7:"), "{html}");
    assert!(html.contains("sidee"), "the reason: {html}");
    assert!(
        html.contains("name = &quot;ok&quot;"),
        "the file is shown again to be fixed: {html}"
    );
    assert!(!html.contains("data-live"), "a POST's page is not refreshed");

    let large = format!("# {}\n", "x".repeat(70 * 1024));
    let refused = load(&[("csrf", &token), ("text", &large)]).await.unwrap();
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert!(
        refused
            .text()
            .await
            .unwrap()
            .contains("line 1: the file is larger than 65536 bytes")
    );
    let beyond = "é".repeat(40 * 1024);
    let refused = load(&[("csrf", &token), ("text", &beyond)]).await.unwrap();
    assert_eq!(
        refused.status(),
        StatusCode::PAYLOAD_TOO_LARGE,
        "the form's body is bounded"
    );

    // Without the session's token, no action is taken.
    let empty = "seed = 1\n";
    assert_eq!(load(&[("text", empty)]).await.unwrap().status(), StatusCode::FORBIDDEN);
    let switch = post(
        &server,
        &session,
        "/console/scenarios/switch",
        &[("name", BIG_MSFT), ("enabled", "false")],
    );
    assert_eq!(switch.send().await.unwrap().status(), StatusCode::FORBIDDEN);
    let other = "ab".repeat(32);
    let clear = post(&server, &session, "/console/scenarios/clear", &[("csrf", &other)]);
    assert_eq!(clear.send().await.unwrap().status(), StatusCode::FORBIDDEN);

    assert_eq!(ops.scenarios().list().await.unwrap(), before, "the rules in force stay");
}

#[tokio::test]
async fn the_checkpoints_page_saves_restores_and_deletes() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let ops = server.ops().await;
    let session = sign_in(&server).await;
    let (status, html) = page(&server, &session, "/console/checkpoints").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("No checkpoint has been saved."), "{html}");
    let token = csrf(&html);
    let action = |path: &'static str, name: &'static str| {
        let (server, session, token) = (&server, &session, token.clone());
        async move {
            let answer = post(server, session, path, &[("csrf", &token), ("name", name)])
                .send()
                .await
                .unwrap();
            answer.status()
        }
    };
    assert_eq!(
        action("/console/checkpoints/save", "from-console").await,
        StatusCode::SEE_OTHER
    );
    let listed = ops.checkpoints().list().await.unwrap().checkpoints;
    assert_eq!(listed.len(), 1);
    let (_, html) = page(&server, &session, "/console/checkpoints").await;
    let row = format!(
        "<td>from-console</td><td>{}</td><td>{}</td>",
        listed[0].saved, listed[0].market_time
    );
    assert!(html.contains(&row), "{row}: {html}");
    assert!(html.contains("Restore from-console"), "{html}");

    // An order placed after the save is gone once the page restores it.
    assert!(buy_msft(&server, "after-save", "1").await);
    assert_eq!(
        action("/console/checkpoints/restore", "from-console").await,
        StatusCode::SEE_OTHER
    );
    let open: serde_json::Value = server
        .client()
        .get(
            "/trading/orders/historical-orders/list",
            &[("account_id", server.app.account_ids[1].as_str())],
        )
        .await
        .unwrap();
    assert_eq!(open.as_array().map_or(0, Vec::len), 0, "{open}");

    assert_eq!(
        action("/console/checkpoints/save", "../bad").await,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        action("/console/checkpoints/delete", "from-console").await,
        StatusCode::SEE_OTHER
    );
    assert!(ops.checkpoints().list().await.unwrap().checkpoints.is_empty());
    assert_eq!(
        action("/console/checkpoints/delete", "from-console").await,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_options_page_shows_a_chain_with_the_money_marked() {
    let server = TestServer::start_market("2013-02-25", 2013).await;
    let session = sign_in(&server).await;
    let (status, html) = page(&server, &session, "/console/options?underlying=aapl&expiry=2013-03-15").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("Options of AAPL"), "{html}");
    assert!(html.contains(r#"<option value="2013-03-15" selected>"#), "{html}");
    assert!(html.contains(r#"href="/console/options""#), "the tab");
    // 45 strikes, a row each; the lowest strikes' calls and the highest strikes' puts in the money.
    let rows: Vec<&str> = html.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), 45, "{html}");
    assert!(rows[0].starts_with("<td>ITM</td>") && rows[0].contains(r#"<th class="num" scope="row">230</th>"#));
    assert!(!rows[44].starts_with("<td>ITM</td>") && rows[44].contains("<td>ITM</td>"));
    // The snapshot call shows the same market.
    let snapshot: Vec<signet_model::options::OptionSnapshot> = server
        .client()
        .get(
            "/market-data/options/snapshots/list",
            &[("symbols", "AAPL130315C00450000"), ("category", "US_OPTION")],
        )
        .await
        .unwrap();
    let row = rows.iter().find(|r| r.contains(r#"scope="row">450</th>"#)).unwrap();
    let cell = |v: &str| format!(r#"<td class="num">{v}</td>"#);
    assert!(row.contains(&cell(&snapshot[0].bid)), "{row} {}", snapshot[0].bid);
    assert!(row.contains(&cell(&snapshot[0].ask)), "{row} {}", snapshot[0].ask);
    // An expiry not listed is refused with a page that says so.
    let (status, html) = page(&server, &session, "/console/options?underlying=AAPL&expiry=2013-03-16").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("not an expiry listed today"), "{html}");
}
