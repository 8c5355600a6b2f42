//! The OpenAPI document: served unsigned at `/openapi.json`, equal to the committed
//! `docs/openapi.json`, and describing every operation the router serves (and none it does not).
//!
//! `SIGNET_UPDATE_OPENAPI=1 cargo test -p signet-server --test openapi` writes the served
//! document to `docs/openapi.json`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::TestServer;
use reqwest::Method;
use signet_server::legacy::Compat;

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
         regenerate it with `SIGNET_UPDATE_OPENAPI=1 cargo test -p signet-server --test openapi` \
         and commit it",
        if serde_json::from_str::<serde_json::Value>(&committed).ok() == Some(document) {
            "the same JSON, written differently"
        } else {
            "another document"
        }
    );
    server.stop().await;
}

/// Every `.route(PATH, METHOD(handler)...)` in `crates/server/src`, as (METHOD, PATH), with
/// `PATH` a literal, a `const NAME: &str` of the same file, or `&format!("{P}/...")` with the
/// nearest `const P: &str` above it.
fn routes_in_source() -> BTreeSet<(String, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut routes = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let mut from = 0;
        while let Some(at) = text[from..].find(".route(") {
            let start = from + at + ".route(".len();
            from = start;
            let args = arguments(&text[start..]);
            let where_ = format!("{}:{}", file.display(), text[..start].lines().count());
            assert_eq!(args.len(), 2, "{where_}: a .route( call with two arguments");
            let path = resolve(&text, start, args[0].trim())
                .unwrap_or_else(|| panic!("{where_}: cannot read the path {:?}: teach this test", args[0]));
            let methods = methods(&args[1]);
            assert!(!methods.is_empty(), "{where_}: no method in {:?}", args[1]);
            for method in methods {
                routes.insert((method, path.clone()));
            }
        }
    }
    routes
}

/// The top-level, comma-separated arguments of the call whose text starts after its `(`.
fn arguments(text: &str) -> Vec<String> {
    let (mut depth, mut args, mut current, mut in_string) = (0, Vec::new(), String::new(), false);
    for c in text.chars() {
        match c {
            '"' => in_string = !in_string,
            '(' | '[' | '{' if !in_string => depth += 1,
            ')' | ']' | '}' if !in_string && depth == 0 => {
                if !current.trim().is_empty() {
                    args.push(current);
                }
                return args;
            }
            ')' | ']' | '}' if !in_string => depth -= 1,
            ',' if !in_string && depth == 0 => {
                args.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    panic!("an unclosed .route( call");
}

fn string_literal(text: &str) -> Option<String> {
    let start = text.find('"')? + 1;
    let end = start + text[start..].find('"')?;
    Some(text[start..end].to_owned())
}

/// The value of `const NAME: &str = "...";` in `text`, the last one before `before`.
fn constant(text: &str, name: &str, before: usize) -> Option<String> {
    let declaration = format!("const {name}: &str = ");
    let at = text[..before].rfind(&declaration).or_else(|| text.find(&declaration))?;
    string_literal(&text[at + declaration.len()..])
}

fn resolve(text: &str, at: usize, expression: &str) -> Option<String> {
    if expression.starts_with('"') {
        return string_literal(expression);
    }
    if let Some(format) = expression.strip_prefix("&format!(") {
        let template = string_literal(format)?;
        let mut path = String::new();
        let mut rest = template.as_str();
        while let Some(open) = rest.find('{') {
            let close = open + rest[open..].find('}')?;
            path.push_str(&rest[..open]);
            path.push_str(&constant(text, &rest[open + 1..close], at)?);
            rest = &rest[close + 1..];
        }
        path.push_str(rest);
        return Some(path);
    }
    if expression.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
        return constant(text, expression, at);
    }
    None
}

/// The methods of a method router such as `get(list)` or `get(a).post(b)`.
fn methods(expression: &str) -> Vec<String> {
    let mut found = Vec::new();
    for method in ["get", "post", "put", "delete", "patch", "head", "options"] {
        let mut rest = expression;
        while let Some(at) = rest.find(&format!("{method}(")) {
            let before = rest[..at].chars().last();
            if before.is_none_or(|c| c == '.' || c.is_whitespace() || c == ':') {
                found.push(method.to_uppercase());
            }
            rest = &rest[at + method.len()..];
        }
    }
    found
}

#[test]
fn every_route_is_documented_and_every_operation_routed() {
    let routed = routes_in_source();
    let documented: BTreeSet<(String, String)> = signet_server::openapi::operations().into_iter().collect();
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        undocumented.is_empty(),
        "routes without a description in the OpenAPI document: {undocumented:?}: add a #[utoipa::path] \
         attribute to the handler and list it in crates/server/src/openapi.rs"
    );
    assert!(
        unrouted.is_empty(),
        "operations of the OpenAPI document that no .route( serves: {unrouted:?}"
    );
    // The scan found the areas it should: a change in how routes are written must not empty it.
    assert!(routed.len() >= 60, "{} routes found", routed.len());
}

#[test]
fn every_signed_operation_describes_the_headers_the_scheme_and_the_errors() {
    let doc = signet_server::openapi::document();
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
    let operations = signet_server::openapi::operations();
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
    let doc = signet_server::openapi::document();
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
    for (method, path) in signet_server::openapi::operations() {
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
