//! Property tests: a signature verifies for any input, and stops verifying when any single
//! character of the path, a query value, a signing header or any byte of the body changes.

use proptest::prelude::*;
use signet_signing::{Algorithm, Request, SigningHeaders, sign, verify};

#[derive(Debug, Clone)]
struct Input {
    path: String,
    query: Vec<(String, String)>,
    headers: [String; 5],
    body: Option<Vec<u8>>,
    secret: String,
}

impl Input {
    fn request(&self) -> Request<'_> {
        let headers = SigningHeaders {
            app_key: &self.headers[0],
            algorithm: Algorithm::HmacSha256,
            signature_version: &self.headers[1],
            nonce: &self.headers[2],
            timestamp: &self.headers[3],
            host: &self.headers[4],
        };
        let mut r = Request::new(&self.path, headers);
        for (n, v) in &self.query {
            r = r.with_param(n.as_str(), v.as_str());
        }
        if let Some(body) = &self.body {
            r = r.with_body(body);
        }
        r
    }
}

fn input() -> impl Strategy<Value = Input> {
    (
        "/\\PC{0,40}",
        prop::collection::vec(("\\PC{1,12}", "\\PC{1,24}"), 0..6),
        [
            "[0-9a-f]{32}",
            "1\\.0",
            "[A-Za-z0-9_-]{1,64}",
            "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z",
            "[a-z0-9.:-]{1,30}",
        ],
        prop::option::of(prop::collection::vec(any::<u8>(), 1..2048)),
        "\\PC{1,40}",
    )
        .prop_map(|(path, query, headers, body, secret)| Input {
            path,
            query,
            headers,
            body,
            secret,
        })
}

/// `s` with the character at `index` (modulo its length) replaced by a different one.
fn mutate(s: &str, index: usize, replacement: char) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    let i = index % chars.len();
    chars[i] = if chars[i] == replacement {
        if replacement == 'a' { 'b' } else { 'a' }
    } else {
        replacement
    };
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn sign_then_verify_round_trips(input in input()) {
        let signature = sign(&input.request(), &input.secret);
        prop_assert!(verify(&input.request(), &input.secret, &signature));
    }

    #[test]
    fn changing_the_path_breaks_the_signature(input in input(), i in any::<usize>(), c in any::<char>()) {
        let signature = sign(&input.request(), &input.secret);
        let changed = Input { path: mutate(&input.path, i, c), ..input.clone() };
        prop_assert!(!verify(&changed.request(), &input.secret, &signature));
    }

    #[test]
    fn changing_a_query_value_breaks_the_signature(input in input(), which in any::<usize>(), i in any::<usize>(), c in any::<char>()) {
        prop_assume!(!input.query.is_empty());
        let signature = sign(&input.request(), &input.secret);
        let mut changed = input.clone();
        let k = which % changed.query.len();
        changed.query[k].1 = mutate(&changed.query[k].1, i, c);
        prop_assert!(!verify(&changed.request(), &input.secret, &signature));
    }

    #[test]
    fn changing_a_signing_header_breaks_the_signature(input in input(), which in 0usize..5, i in any::<usize>(), c in any::<char>()) {
        let signature = sign(&input.request(), &input.secret);
        let mut changed = input.clone();
        changed.headers[which] = mutate(&changed.headers[which], i, c);
        prop_assert!(!verify(&changed.request(), &input.secret, &signature));
    }

    #[test]
    fn changing_the_algorithm_breaks_the_signature(input in input()) {
        let signature = sign(&input.request(), &input.secret);
        let mut request = input.request();
        request.headers.algorithm = Algorithm::LegacyHmacSha1;
        prop_assert!(!verify(&request, &input.secret, &signature));
    }

    #[test]
    fn changing_a_body_byte_breaks_the_signature(input in input(), i in any::<usize>(), flip in 1u8..=255) {
        prop_assume!(input.body.is_some());
        let signature = sign(&input.request(), &input.secret);
        let mut changed = input.clone();
        let body = changed.body.as_mut().unwrap();
        let k = i % body.len();
        body[k] ^= flip;
        prop_assert!(!verify(&changed.request(), &input.secret, &signature));
    }

    #[test]
    fn verify_never_panics_on_arbitrary_signatures(input in input(), signature in "\\PC{0,100}") {
        let _ = verify(&input.request(), &input.secret, &signature);
    }
}
