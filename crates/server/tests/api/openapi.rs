//! The OpenAPI document: served unsigned at `/openapi.json`, equal to the committed
//! `docs/openapi.json`, and describing every operation the router mounts (and none it does not).
//!
//! `SIGNET_UPDATE_OPENAPI=1 cargo test -p signet-server --test api openapi` writes the served
//! document to `docs/openapi.json`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use reqwest::Method;
use signet_server::config::ServerConfig;
use signet_server::generations::compat::Compat;
use signet_server::router::Mounted;

use crate::common::TestServer;

fn committed_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

#[tokio::test]
async fn the_served_document_is_the_committed_one() {
    let server = TestServer::start().await;
    let response = crate::common::http()
        .get(server.url("/openapi.json"))
        .send()
        .await
        .expect("GET /openapi.json");
    assert_eq!(response.status(), 200, "/openapi.json is unsigned");
    assert_eq!(
        response.headers()["content-type"],
        "application/json",
        "the document is JSON"
    );
    let served = response.text().await.expect("the document");
    let document: serde_json::Value = serde_json::from_str(&served).expect("the document is JSON");
    assert!(
        document["openapi"].as_str().is_some_and(|v| v.starts_with("3.1.")),
        "OpenAPI 3.1"
    );
    let path = committed_path();
    if std::env::var("SIGNET_UPDATE_OPENAPI").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &served).expect("write docs/openapi.json");
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == served,
        "docs/openapi.json differs from what the server serves at /openapi.json (it is {}): \
         regenerate it with `SIGNET_UPDATE_OPENAPI=1 cargo test -p signet-server --test api openapi` \
         and commit it",
        if serde_json::from_str::<serde_json::Value>(&committed).ok() == Some(document) {
            "the same JSON, written differently"
        } else {
            "another document"
        }
    );
    server.stop().await;
}

/// The operations of an OpenAPI document, as (METHOD, path).
fn operations_of(api: &utoipa::openapi::OpenApi) -> BTreeSet<(String, String)> {
    let doc = serde_json::to_value(api).expect("the document serializes");
    let mut operations = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("a path item").keys() {
            operations.insert((method.to_uppercase(), path.clone()));
        }
    }
    operations
}

/// The routes a server mounts are read from its routers (each `routes!(handler)` mounts the
/// method and path of the handler's `#[utoipa::path]`, with its entry): the document describes
/// them all and nothing else, but for the routes another configuration mounts.
#[test]
fn every_route_is_documented_and_every_operation_routed() {
    let documented: BTreeSet<(String, String)> =
        signet_server::openapi::operations(&signet_server::router::openapi_document())
            .into_iter()
            .collect();
    assert_eq!(
        operations_of(&signet_server::router::documented_routes()),
        documented,
        "the document describes what the routers declare"
    );
    let mounted = |adjust: fn(&mut ServerConfig)| {
        let mut config = ServerConfig::default();
        adjust(&mut config);
        let Mounted { unsigned, signed } = signet_server::router::mounted(&config);
        (
            operations_of(unsigned.get_openapi()),
            operations_of(signed.get_openapi()),
        )
    };
    let get = |path: &str| ("GET".to_owned(), path.to_owned());

    let (unsigned, signed) = mounted(|_| {});
    let expected: BTreeSet<_> = signet_server::openapi::UNSIGNED.iter().map(|p| get(p)).collect();
    assert_eq!(unsigned, expected, "the unsigned operations are openapi::UNSIGNED");
    let legacy: BTreeSet<_> = signet_server::generations::compat::PATHS
        .iter()
        .map(|r| (r.method.to_owned(), r.path.to_owned()))
        .collect();
    let strict: BTreeSet<_> = documented.difference(&unsigned).cloned().collect();
    assert_eq!(
        strict.difference(&signed).cloned().collect::<BTreeSet<_>>(),
        legacy,
        "a strict server mounts every signed operation but the legacy paths"
    );
    assert!(signed.is_subset(&strict));
    assert!(signed.len() >= 50, "{} signed routes", signed.len());

    let (unsigned, signed) = mounted(|c| c.compat = Compat::Legacy);
    assert_eq!(
        unsigned.union(&signed).cloned().collect::<BTreeSet<_>>(),
        documented,
        "with --compat legacy, a server mounts every documented operation"
    );

    let (unsigned, _) = mounted(|c| c.metrics_listen = Some("127.0.0.1:0".parse().unwrap()));
    assert!(
        !unsigned.contains(&get("/metrics")),
        "--metrics-listen serves /metrics on its own address"
    );
}

#[test]
fn every_signed_operation_describes_the_headers_the_scheme_and_the_errors() {
    let doc = signet_server::router::openapi_document();
    let mut signed = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            let id = operation["operationId"].as_str().unwrap_or_default();
            assert!(!id.is_empty(), "{method} {path} has an operationId");
            assert!(operation["responses"]["200"].is_object(), "{method} {path}: 200");
            if signet_server::openapi::UNSIGNED.contains(&path.as_str()) {
                assert!(operation.get("security").is_none(), "{method} {path} is unsigned");
                continue;
            }
            signed += 1;
            assert_eq!(operation["security"], serde_json::json!([{"signature": []}]), "{path}");
            let parameters: Vec<&str> = operation["parameters"]
                .as_array()
                .expect("parameters")
                .iter()
                .filter_map(|p| p["$ref"].as_str())
                .collect();
            for header in [
                "x-app-key",
                "x-timestamp",
                "x-signature",
                "x-signature-algorithm",
                "x-signature-version",
                "x-signature-nonce",
            ] {
                assert!(
                    parameters.contains(&format!("#/components/parameters/{header}").as_str()),
                    "{method} {path} lacks {header}"
                );
            }
            assert!(
                parameters
                    .iter()
                    .any(|p| p.starts_with("#/components/parameters/x-version")),
                "{method} {path} lacks x-version"
            );
            for status in ["400", "401", "404", "429", "500", "503"] {
                assert!(
                    operation["responses"][status].is_object(),
                    "{method} {path} lacks {status}"
                );
            }
        }
    }
    assert!(signed >= 60, "{signed} signed operations");
    let operations = signet_server::openapi::operations(&signet_server::router::openapi_document());
    let ids: BTreeSet<&str> = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .filter_map(|o| o["operationId"].as_str())
        .collect();
    assert_eq!(ids.len(), operations.len(), "operation ids are unique");
}

#[test]
fn every_reference_resolves() {
    fn refs<'a>(value: &'a serde_json::Value, found: &mut Vec<&'a str>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(r)) = map.get("$ref") {
                    found.push(r);
                }
                map.values().for_each(|v| refs(v, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
            _ => {}
        }
    }
    let doc = signet_server::router::openapi_document();
    let mut found = Vec::new();
    refs(&doc, &mut found);
    assert!(!found.is_empty());
    for reference in found {
        let pointer = reference.strip_prefix('#').expect("a reference inside the document");
        assert!(
            doc.pointer(pointer).is_some(),
            "{reference} does not resolve: list the type in components(schemas(...)) in crates/server/src/openapi.rs"
        );
    }
}

/// Each documented operation reaches a handler: a signed request is answered by the operation
/// (a 2xx, or its own refusal), not by the router's 404 `NOT_FOUND` or 405.
#[tokio::test]
async fn every_documented_operation_reaches_its_handler() {
    let server = TestServer::start_with(|c| c.compat = Compat::Legacy).await;
    let client = server.client();
    for (method, path) in signet_server::openapi::operations(&signet_server::router::openapi_document()) {
        if signet_server::openapi::UNSIGNED.contains(&path.as_str()) {
            let response = crate::common::http().get(server.url(&path)).send().await.expect("sent");
            assert_eq!(response.status(), 200, "GET {path}");
            continue;
        }
        let method = Method::from_bytes(method.as_bytes()).expect("a method");
        let body = (method == Method::POST).then(|| b"{}".to_vec());
        let answer = crate::common::send(client.prepare(method.clone(), &path, &[], body).expect("signed")).await;
        let routed = !(answer.status == 405 || answer.status == 404 && answer.body["error_code"] == "NOT_FOUND");
        assert!(routed, "{method} {path}: {} {}", answer.status, answer.body);
        assert_ne!(answer.status, 401, "{method} {path}: {}", answer.body);
    }
    server.stop().await;
}
