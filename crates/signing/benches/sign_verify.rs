//! Sign and verify for the two shapes that dominate traffic: a GET with two query parameters
//! and a POST with a 1 KiB JSON body.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use signet_signing::{Algorithm, Request, SigningHeaders, sign, verify};

const SECRET: &str = "5ecret0f0123456789abcdef01234567";

fn headers() -> SigningHeaders<'static> {
    SigningHeaders {
        app_key: "a1b2c3d4e5f60718293a4b5c6d7e8f90",
        algorithm: Algorithm::HmacSha256,
        signature_version: "1.0",
        nonce: "0123456789abcdef0123456789abcdef",
        timestamp: "2026-09-21T08:15:30Z",
        host: "127.0.0.1:8080",
    }
}

fn bench(c: &mut Criterion) {
    let get = Request::new("/trading/orders/open-orders/list", headers())
        .with_raw_query("account_id=A1B2C3D4E5F6&pagination_key=eyJ0IjoxNzAwfQ");
    let body = format!(
        "{{\"account_id\":\"A1B2C3D4E5F6\",\"memo\":\"{}\"}}",
        "x".repeat(1024 - 39)
    );
    assert_eq!(body.len(), 1024);
    let post = Request::new("/trading/orders/place", headers()).with_body(body.as_bytes());

    for (name, request) in [("get_2_params", &get), ("post_1KiB", &post)] {
        let signature = sign(request, SECRET);
        c.bench_function(&format!("sign/{name}"), |b| b.iter(|| sign(black_box(request), SECRET)));
        c.bench_function(&format!("verify/{name}"), |b| {
            b.iter(|| verify(black_box(request), SECRET, &signature));
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
