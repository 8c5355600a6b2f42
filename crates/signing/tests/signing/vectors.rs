//! The shared conformance vectors of section 5 (`testdata/signing-vectors.json`).

use std::collections::BTreeMap;

use serde::Deserialize;
use signet_signing::{Algorithm, Request, SigningHeaders, decode_query, explain, verify};

#[derive(Deserialize)]
struct VectorFile {
    meta: Meta,
    vectors: Vec<Vector>,
}

#[derive(Deserialize)]
struct Meta {
    count: usize,
}

#[derive(Deserialize)]
struct Vector {
    name: String,
    path: String,
    query: Vec<(String, String)>,
    query_string_on_wire: String,
    headers: BTreeMap<String, String>,
    body: Option<String>,
    secret: String,
    expected_str1: String,
    expected_str2: Option<String>,
    expected_str3: String,
    expected_encoded: String,
    expected_signature: String,
}

fn load() -> Vec<Vector> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/signing-vectors.json");
    let file: VectorFile =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vector file")).expect("vector JSON");
    assert_eq!(file.vectors.len(), file.meta.count, "every vector is read");
    file.vectors
}

fn request(v: &Vector) -> Request<'_> {
    let h = |name: &str| {
        v.headers
            .get(name)
            .unwrap_or_else(|| panic!("{}: header {name}", v.name))
            .as_str()
    };
    let algorithm = Algorithm::from_name(h("x-signature-algorithm")).expect("known algorithm");
    let headers = SigningHeaders {
        app_key: h("x-app-key"),
        algorithm,
        signature_version: h("x-signature-version"),
        nonce: h("x-signature-nonce"),
        timestamp: h("x-timestamp"),
        host: h("host"),
    };
    let mut request = Request::new(&v.path, headers);
    for (name, value) in &v.query {
        request = request.with_param(name.as_str(), value.as_str());
    }
    if let Some(body) = &v.body {
        request = request.with_body(body.as_bytes());
    }
    request
}

#[test]
fn every_vector_matches_at_every_step() {
    let vectors = load();
    assert!(vectors.len() >= 13);
    for v in &vectors {
        let got = explain(&request(v), &v.secret);
        assert_eq!(got.str1, v.expected_str1, "{}: str1", v.name);
        assert_eq!(got.str2, v.expected_str2, "{}: str2", v.name);
        assert_eq!(got.str3, v.expected_str3, "{}: str3", v.name);
        assert_eq!(got.encoded, v.expected_encoded, "{}: encoded", v.name);
        assert_eq!(got.signature, v.expected_signature, "{}: signature", v.name);
        assert!(
            verify(&request(v), &v.secret, &v.expected_signature),
            "{}: verify",
            v.name
        );
    }
}

#[test]
fn the_query_on_the_wire_decodes_to_the_signed_values() {
    for v in &load() {
        let decoded: Vec<(String, String)> = decode_query(&v.query_string_on_wire)
            .into_iter()
            .map(|(n, v)| (n.into_owned(), v.into_owned()))
            .collect();
        assert_eq!(decoded, v.query, "{}", v.name);

        let from_wire = request(v).clone();
        let from_wire = Request {
            query: decode_query(&v.query_string_on_wire),
            ..from_wire
        };
        assert_eq!(
            explain(&from_wire, &v.secret).signature,
            v.expected_signature,
            "{}",
            v.name
        );
    }
}

#[test]
fn a_wrong_secret_or_signature_does_not_verify() {
    for v in &load() {
        let r = request(v);
        assert!(
            !verify(&r, &format!("{}x", v.secret), &v.expected_signature),
            "{}",
            v.name
        );
        let mut flipped = v.expected_signature.clone().into_bytes();
        flipped[0] = if flipped[0] == b'A' { b'B' } else { b'A' };
        assert!(
            !verify(&r, &v.secret, std::str::from_utf8(&flipped).unwrap()),
            "{}",
            v.name
        );
    }
}

#[test]
fn malformed_signatures_are_a_mismatch_not_a_panic() {
    let v = &load()[0];
    let r = request(v);
    let too_long = "A".repeat(10_000);
    for bad in [
        "",
        "=",
        "not base64!",
        "AAAA",
        "////",
        &v.expected_signature[..43],
        too_long.as_str(),
        "é",
    ] {
        assert!(!verify(&r, &v.secret, bad), "{bad:?}");
    }
    // The right bytes without padding are not the Base64 the clients send.
    assert!(!verify(&r, &v.secret, v.expected_signature.trim_end_matches('=')));
}

#[test]
fn an_empty_body_is_no_body() {
    let v = load().into_iter().find(|v| v.body.is_none()).unwrap();
    let without = explain(&request(&v), &v.secret);
    let with_empty = explain(&request(&v).with_body(b""), &v.secret);
    assert_eq!(without, with_empty);
    assert_eq!(with_empty.str2, None);
}

#[test]
fn the_java_url_encoding_agrees_exactly_where_no_star_or_tilde_is_signed() {
    use signet_signing::{Encoding, sign_with, verify_with};
    let vectors = load();
    let java = Encoding::JavaUrlEncoder;
    for v in &vectors {
        let r = request(v);
        let differs = java.differs_for(&v.expected_str3);
        assert_eq!(
            verify_with(&r, &v.secret, &v.expected_signature, java),
            !differs,
            "{}",
            v.name
        );
        let java_signature = sign_with(&r, &v.secret, java);
        assert!(verify_with(&r, &v.secret, &java_signature, java), "{}", v.name);
        assert_eq!(verify(&r, &v.secret, &java_signature), !differs, "{}", v.name);
    }
    assert!(
        vectors.iter().any(|v| java.differs_for(&v.expected_str3)),
        "a vector signs a * or a ~"
    );
}
