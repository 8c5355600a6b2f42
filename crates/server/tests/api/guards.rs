//! What a caller who holds nothing but an app key cannot make the HTTP address hold on to:
//! refused requests cost bounded memory (a limit on the request target, a budget for the
//! console's request ring), and HTTP/2 and gRPC keep the guards of HTTP/1 (idle connections
//! closed, pings with a timeout while streams are open, the per-address limit, request ids, a
//! capped subscribe message and account list, and a timeout on a body that stops arriving).

use reqwest::Method;
use reqwest::header::COOKIE;
use signet_client::Client;
use signet_model::ErrorCode;
use signet_server::console::requests::{BUDGET, EXPLAINED, KEPT, STR3_BYTES};

use crate::common::{TestServer, http, send};

#[tokio::test]
async fn a_request_target_over_the_limit_is_refused_with_414() {
    let server = TestServer::start().await;
    let client = server.client();
    // "/trading/accounts/list?q=" and the value: the default limit, 8 KiB, exactly, then one more.
    let at_limit = "a".repeat(8 * 1024 - 25);
    let request = |value: &str| {
        client
            .prepare(Method::GET, "/trading/accounts/list", &[("q", value)], None)
            .unwrap()
    };
    assert_eq!(send(request(&at_limit)).await.status, 200);
    let over = send(request(&format!("{at_limit}a"))).await;
    let body = over.assert_error(414, "URI_TOO_LONG");
    assert!(body.message.contains("8193"), "{}", body.message);

    // Configurable, and before authentication: an unsigned request is refused the same way.
    let server = TestServer::start_with(|c| c.max_uri_bytes = 100).await;
    let answer = http()
        .get(server.url(&format!("/health?{}", "a".repeat(100))))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 414);
    let answer = http().get(server.url("/health")).send().await.unwrap();
    assert_eq!(answer.status(), 200);
}

#[tokio::test]
async fn a_flood_of_refused_signatures_keeps_the_request_ring_within_its_budget() {
    let server = TestServer::start().await;
    let session = crate::console::sign_in(&server).await;
    let wrong = Client::new(&server.endpoint, &server.app.app_key, "not-the-secret").unwrap();
    // Just under the target's limit: each is refused with an explanation whose strings to sign
    // hold the whole query.
    let query = "a".repeat(8_000);
    let mut flood = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (wrong, query) = (wrong.clone(), query.clone());
        flood.spawn(async move {
            for _ in 0..(KEPT + 100) / 8 {
                let refused = wrong
                    .get::<serde_json::Value>("/trading/accounts/list", &[("q", &query)])
                    .await
                    .unwrap_err();
                let shown: String = refused.to_string().chars().take(200).collect();
                assert_eq!(refused.code(), Some(ErrorCode::IncorrectSign), "{shown}");
            }
        });
    }
    while let Some(done) = flood.join_next().await {
        done.unwrap();
    }

    let page = |path: String| {
        let session = session.clone();
        let url = server.url(&path);
        async move {
            let answer = http().get(url).header(COOKIE, session).send().await.unwrap();
            assert_eq!(answer.status(), 200);
            answer.text().await.unwrap()
        }
    };
    let list = page("/console/requests".into()).await;
    let held = list
        .split_once(&format!("(now {KEPT}, in "))
        .and_then(|(_, rest)| rest.split_once(" KiB)"))
        .map(|(kib, _)| kib.parse::<usize>().unwrap())
        .unwrap_or_else(|| panic!("the page says what the ring holds: {list}"));
    assert!(held * 1024 <= BUDGET, "{held} KiB");
    // Of the 500 listed, the newest keep their explanation.
    assert_eq!(list.matches("INCORRECT_SIGN (explain)").count(), EXPLAINED);

    let at = list.find("/console/requests/").unwrap();
    let href: String = list[at..].chars().take_while(|c| *c != '"').collect();
    let explained = page(href).await;
    assert!(
        explained.contains(&format!("Its first {STR3_BYTES} bytes of ")),
        "{explained}"
    );
    assert!(explained.contains("x-signature-nonce"), "the headers received");
}
