//! The gRPC trade-events subscription vectors (`testdata/grpc-signing-vectors.json`), computed
//! with the official client's own code: each verifies, and each stops verifying when one byte of
//! the request or one character of a signed metadata value changes.

use serde::Deserialize;
use signet_signing::{GrpcSigningMetadata, grpc_sign, grpc_string_to_sign, grpc_verify, percent_encode};

#[derive(Deserialize)]
struct VectorFile {
    count: usize,
    vectors: Vec<Vector>,
}

#[derive(Deserialize)]
struct Vector {
    name: String,
    inputs: Inputs,
    expected: Expected,
}

#[derive(Deserialize)]
struct Inputs {
    app_key: String,
    app_secret: String,
    nonce: String,
    timestamp: String,
    request_bytes_hex: String,
}

#[derive(Deserialize)]
struct Expected {
    string_to_sign: String,
    string_to_sign_quoted: String,
    signature: String,
    metadata: Vec<(String, String)>,
}

fn load() -> Vec<Vector> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/grpc-signing-vectors.json");
    let file: VectorFile =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vector file")).expect("vector JSON");
    assert_eq!(file.vectors.len(), file.count, "every vector is read");
    assert!(!file.vectors.is_empty());
    file.vectors
}

/// The five signed values, taken from the vector's metadata as the client sent them.
fn metadata(v: &Vector) -> [String; 5] {
    let get = |name: &str| {
        v.expected
            .metadata
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{}: metadata {name}", v.name))
            .1
            .clone()
    };
    [
        get("x-app-key"),
        get("x-signature-algorithm"),
        get("x-signature-version"),
        get("x-signature-nonce"),
        get("x-timestamp"),
    ]
}

fn signing(values: &[String; 5]) -> GrpcSigningMetadata<'_> {
    GrpcSigningMetadata {
        app_key: &values[0],
        algorithm: &values[1],
        signature_version: &values[2],
        nonce: &values[3],
        timestamp: &values[4],
    }
}

#[test]
fn every_vector_verifies_and_matches_each_step() {
    for v in load() {
        let values = metadata(&v);
        assert_eq!(values[0], v.inputs.app_key, "{}", v.name);
        assert_eq!(values[3], v.inputs.nonce, "{}", v.name);
        assert_eq!(values[4], v.inputs.timestamp, "{}", v.name);
        let sent_signature = &v
            .expected
            .metadata
            .iter()
            .find(|(n, _)| n == "x-signature")
            .expect("x-signature")
            .1;
        assert_eq!(sent_signature, &v.expected.signature, "{}", v.name);
        let bytes = hex::decode(&v.inputs.request_bytes_hex).expect("hex");
        let m = signing(&values);
        let string = grpc_string_to_sign(&m, &bytes);
        assert_eq!(string, v.expected.string_to_sign, "{}", v.name);
        assert_eq!(percent_encode(&string), v.expected.string_to_sign_quoted, "{}", v.name);
        assert_eq!(
            grpc_sign(&m, &bytes, &v.inputs.app_secret),
            v.expected.signature,
            "{}",
            v.name
        );
        assert!(
            grpc_verify(&m, &bytes, &v.inputs.app_secret, &v.expected.signature),
            "{}",
            v.name
        );
    }
}

#[test]
fn one_changed_byte_of_the_request_breaks_every_vector() {
    for v in load() {
        let values = metadata(&v);
        let bytes = hex::decode(&v.inputs.request_bytes_hex).expect("hex");
        for i in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[i] ^= 0x01;
            assert!(
                !grpc_verify(&signing(&values), &changed, &v.inputs.app_secret, &v.expected.signature),
                "{}: byte {i}",
                v.name
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(!grpc_verify(
            &signing(&values),
            &longer,
            &v.inputs.app_secret,
            &v.expected.signature
        ));
        if !bytes.is_empty() {
            let shorter = &bytes[..bytes.len() - 1];
            assert!(!grpc_verify(
                &signing(&values),
                shorter,
                &v.inputs.app_secret,
                &v.expected.signature
            ));
        }
    }
}

#[test]
fn one_changed_metadata_value_or_secret_breaks_every_vector() {
    for v in load() {
        let values = metadata(&v);
        let bytes = hex::decode(&v.inputs.request_bytes_hex).expect("hex");
        for k in 0..values.len() {
            let mut changed = values.clone();
            let last = changed[k].pop().expect("non-empty value");
            changed[k].push(if last == 'A' { 'B' } else { 'A' });
            assert!(
                !grpc_verify(&signing(&changed), &bytes, &v.inputs.app_secret, &v.expected.signature),
                "{}: value {k}",
                v.name
            );
        }
        let wrong_secret = format!("{}x", v.inputs.app_secret);
        assert!(!grpc_verify(
            &signing(&values),
            &bytes,
            &wrong_secret,
            &v.expected.signature
        ));
    }
}

#[test]
fn malformed_signatures_are_mismatches() {
    let v = &load()[0];
    let values = metadata(v);
    let bytes = hex::decode(&v.inputs.request_bytes_hex).expect("hex");
    for bad in ["", "not base64!", "AAAA", &"A".repeat(45), &v.expected.signature[1..]] {
        assert!(
            !grpc_verify(&signing(&values), &bytes, &v.inputs.app_secret, bad),
            "{bad}"
        );
    }
}
