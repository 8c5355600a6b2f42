//! The earlier SDK generation's quotes gateway (`openapi.Quote/StreamRequest`, bidirectional
//! gRPC on the HTTP address): refused by a strict server; under `--compat legacy`, signed once
//! as an HTTP request of its path and checked as one, capped per app, each request answered as
//! the HTTP call it names; and the unmodified SDK (`webull-python-sdk-quotes-core` and `-mdata`
//! 0.1.18) reading its market data through it and streaming quotes over MQTT with its token,
//! each value checked against the current HTTP calls.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use prost::Message as _;
use serde_json::{Value, json};
use signet_model::gateway::{self as pb, STREAM_PATH, msg_type, path};
use signet_server::generations::compat::Compat;
use signet_signing::{Algorithm, SigningHeaders, format_timestamp};
use tokio::sync::mpsc;
use tonic::{Code, Status, Streaming};

use crate::common::TestServer;

/// What the client writes on the stream, as it comes.
struct Outgoing(mpsc::Receiver<Bytes>);

impl futures_core::Stream for Outgoing {
    type Item = Bytes;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        self.0.poll_recv(cx)
    }
}

/// An open stream: what to send on it and what it answers.
struct Stream {
    sender: mpsc::Sender<Bytes>,
    answers: Streaming<Bytes>,
}

/// Opens the stream as the earlier SDK does: its metadata signed with HMAC-SHA1 as an HTTP
/// request of the method's path, over the host and port it dials; `secret` may be wrong.
async fn open(server: &TestServer, secret: &str, nonce: &str) -> Result<Stream, Status> {
    let host = format!("127.0.0.1:{}", server.addr.port());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let timestamp = format_timestamp(now.as_secs() as i64);
    let app_key = server.app.app_key.as_str();
    let signed = signet_signing::Request::new(
        STREAM_PATH,
        SigningHeaders {
            app_key,
            algorithm: Algorithm::LegacyHmacSha1,
            signature_version: "1.0",
            nonce,
            timestamp: &timestamp,
            host: &host,
        },
    );
    let signature = signet_signing::sign(&signed, secret);
    let (sender, outgoing) = mpsc::channel(16);
    // The client's first message, a keep-alive.
    sender.send(message(msg_type::PONG, "", Vec::new())).await.unwrap();
    let mut request = tonic::Request::new(Outgoing(outgoing));
    for (name, value) in [
        ("x-app-key", app_key),
        ("x-signature-algorithm", "HMAC-SHA1"),
        ("x-signature-version", "1.0"),
        ("x-signature-nonce", nonce),
        ("x-timestamp", &timestamp),
        ("x-signature", &signature),
    ] {
        request.metadata_mut().insert(name, value.parse().unwrap());
    }
    let endpoint = tonic::transport::Endpoint::from_shared(format!("http://{host}")).unwrap();
    let mut grpc = tonic::client::Grpc::new(endpoint.connect().await.expect("an HTTP/2 connection"));
    grpc.ready().await.unwrap();
    let answers = grpc
        .streaming(
            request,
            STREAM_PATH.parse().unwrap(),
            signet_server::grpc::codec::RawCodec,
        )
        .await?
        .into_inner();
    Ok(Stream { sender, answers })
}

fn message(kind: i32, path: &str, payload: Vec<u8>) -> Bytes {
    let request = pb::ClientRequest {
        r#type: kind,
        request_id: format!("req-{path}"),
        path: path.to_owned(),
        payload,
    };
    Bytes::from(request.encode_to_vec())
}

impl Stream {
    /// Sends one request and reads its answer.
    async fn ask(&mut self, path: &str, payload: Vec<u8>) -> pb::ClientResponse {
        self.sender
            .send(message(msg_type::PAYLOAD, path, payload))
            .await
            .unwrap();
        let bytes = self.answers.message().await.unwrap().expect("an answer");
        let response = pb::ClientResponse::decode(bytes).unwrap();
        assert_eq!(
            (response.r#type, response.request_id.as_str(), response.path.as_str()),
            (msg_type::PAYLOAD, format!("req-{path}").as_str(), path)
        );
        response
    }
}

/// The error body of a refusal, from a status's message or a response's `msg`.
fn error_code(text: &str) -> String {
    let body: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("an error body: {text}"));
    body["error_code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_strict_server_refuses_the_gateway() {
    let server = TestServer::start().await;
    let secret = secrecy::ExposeSecret::expose_secret(&server.app.app_secret).to_owned();
    let status = open(&server, &secret, "strict-1").await.err().expect("refused");
    assert_eq!(status.code(), Code::Unimplemented, "{status:?}");
    assert!(status.message().contains("--compat legacy"), "{status:?}");
}

#[tokio::test]
async fn the_gateway_checks_what_http_checks_and_answers_as_the_http_calls() {
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| c.compat = Compat::Legacy).await;
    server.ops().await.market().step(600).await.unwrap();
    let secret = secrecy::ExposeSecret::expose_secret(&server.app.app_secret).to_owned();

    // A wrong secret, then a nonce spent twice: refused before anything is served.
    let status = open(&server, "not-the-secret", "gw-bad").await.err().expect("refused");
    assert_eq!(status.code(), Code::Unauthenticated);
    assert_eq!(error_code(status.message()), "INCORRECT_SIGN");
    let mut stream = open(&server, &secret, "gw-1").await.expect("open");
    let status = open(&server, &secret, "gw-1").await.err().expect("refused");
    assert_eq!(
        error_code(status.message()),
        "DUPPLICATED_REQUEST",
        "the spec's spelling"
    );

    // A snapshot: the numbers of the current call.
    let request = pb::SnapshotRequest {
        symbols: "AAPL,MSFT".into(),
        category: "US_STOCK".into(),
    };
    let answer = stream.ask(path::SNAPSHOT, request.encode_to_vec()).await;
    assert_eq!((answer.code, answer.msg.as_str()), (200, ""));
    let snapshots = pb::SnapshotResponse::decode(answer.payload.as_slice()).unwrap().result;
    let current = crate::common::send(
        server
            .client()
            .prepare(
                reqwest::Method::GET,
                "/market-data/stocks/snapshots/list",
                &[("symbols", "AAPL,MSFT"), ("category", "US_STOCK")],
                None,
            )
            .unwrap(),
    )
    .await;
    let current = current.body.as_array().unwrap();
    assert_eq!(snapshots.len(), 2);
    for (got, want) in snapshots.iter().zip(current) {
        assert_eq!(
            json!([got.symbol, got.instrument_id, got.price, got.pre_close, got.volume]),
            json!([
                want["symbol"],
                want["instrument_id"],
                want["price"],
                want["pre_close"],
                want["volume"]
            ])
        );
        assert_eq!(got.trade_time, want["last_trade_time"].to_string());
    }

    // Keep-alives are not answered; a refusal is the HTTP one; an unknown path is 404.
    stream
        .sender
        .send(message(msg_type::PONG, "", Vec::new()))
        .await
        .unwrap();
    let unknown = pb::SnapshotRequest {
        symbols: "NOPE".into(),
        category: "US_STOCK".into(),
    };
    let answer = stream.ask(path::SNAPSHOT, unknown.encode_to_vec()).await;
    assert_eq!(error_code(&answer.msg), "INSTRUMENT_NOT_FOUND");
    assert!(answer.code >= 400 && answer.payload.is_empty(), "{answer:?}");
    let answer = stream.ask("/trading/accounts/list", Vec::new()).await;
    assert_eq!((answer.code, error_code(&answer.msg).as_str()), (404, "NOT_FOUND"));
    let answer = stream.ask(path::QUOTES, b"\xff\xff".to_vec()).await;
    assert_eq!(
        (answer.code, error_code(&answer.msg).as_str()),
        (400, "ILLEGAL_PARAMETER")
    );
    // A subscribe naming a token no connection of the app used.
    let subscribe = pb::SubscribeRequest {
        token: "no-such-token".into(),
        symbols: vec!["AAPL".into()],
        category: "US_STOCK".into(),
        sub_types: vec!["SNAPSHOT".into()],
        unsubscribe_all: String::new(),
    };
    let answer = stream.ask(path::SUBSCRIBE, subscribe.encode_to_vec()).await;
    assert_eq!(error_code(&answer.msg), "SESSION_NOT_CONNECTED");

    // An app holds at most 10 streams: the eleventh is refused until one closes.
    let mut others = Vec::new();
    for n in 2..=10 {
        others.push(open(&server, &secret, &format!("gw-{n}")).await.expect("open"));
    }
    let status = open(&server, &secret, "gw-11").await.err().expect("refused");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(error_code(status.message()), "TOO_MANY_REQUESTS");
    drop(stream);
    let mut again = None;
    for attempt in 0..50 {
        match open(&server, &secret, &format!("gw-again-{attempt}")).await {
            Ok(stream) => {
                again = Some(stream);
                break;
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    }
    let mut again = again.expect("a place once a stream closed");
    let token = again.ask(path::TOKEN, Vec::new()).await;
    let token = pb::TokenResponse::decode(token.payload.as_slice()).unwrap().token;
    assert_eq!(token.split('-').map(str::len).collect::<Vec<_>>(), [8, 4, 4, 4, 12]);
}

/// Runs a scenario of `tests/python/earlier_quotes.py` to its end and reads its answer.
async fn run(python: &str, server: &TestServer, scenario: &str) -> Value {
    let mut command = crate::common::python_script(python, "earlier_quotes.py", server, scenario);
    if let Some(mqtt) = server.mqtt_addr {
        command.env("SIGNET_MQTT_PORT", mqtt.port().to_string());
    }
    let output = tokio::time::timeout(
        std::time::Duration::from_secs(120),
        tokio::task::spawn_blocking(move || command.output().unwrap()),
    )
    .await
    .expect("the script ends")
    .unwrap();
    assert!(
        output.status.success(),
        "the earlier SDK failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "one JSON object on stdout:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

async fn current(
    server: &TestServer,
    method: reqwest::Method,
    path: &str,
    query: &[(&str, &str)],
    body: Option<Value>,
) -> Value {
    let body = body.map(|b| serde_json::to_vec(&b).unwrap());
    let answer = crate::common::send(server.client().prepare(method, path, query, body).unwrap()).await;
    assert_eq!(answer.status.as_u16(), 200, "{path}: {}", answer.body);
    answer.body
}

/// The body of a call the script made, once it answered 200.
fn ok<'a>(out: &'a Value, name: &str) -> &'a Value {
    assert_eq!(out[name]["status"], 200, "{name}: {}", out[name]);
    &out[name]["body"]
}

#[tokio::test]
async fn the_earlier_sdk_reads_market_data_and_streams_quotes_through_its_gateway() {
    let Some(python) = crate::common::interpreter("SIGNET_PYTHON_SDK01") else {
        return;
    };
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| {
        c.compat = Compat::Legacy;
        c.mqtt_listen = Some("127.0.0.1:0".parse().unwrap());
    })
    .await;
    server.ops().await.market().step(600).await.unwrap();
    let out = run(&python, &server, "data").await;
    let get = reqwest::Method::GET;

    // The lookup: AAPL and MSFT are stocks, not funds. (protobuf's JSON names are camelCase.)
    let snapshots = current(
        &server,
        get.clone(),
        "/market-data/stocks/snapshots/list",
        &[("symbols", "AAPL,MSFT"), ("category", "US_STOCK")],
        None,
    )
    .await;
    let found: Vec<(&Value, &Value)> = ok(&out, "instruments")["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (&i["symbol"], &i["instrumentId"]))
        .collect();
    let expected: Vec<(&Value, &Value)> = snapshots
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (&s["symbol"], &s["instrument_id"]))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(out["instruments_etf"]["status"], 200);
    assert!(
        out["instruments_etf"]["body"].is_null(),
        "no fund among them: {}",
        out["instruments_etf"]
    );
    let aapl_id = snapshots[0]["instrument_id"].as_str().unwrap();

    // Snapshots, the book, ticks and bars: the current calls' numbers.
    for (got, want) in ok(&out, "snapshot")["result"]
        .as_array()
        .unwrap()
        .iter()
        .zip(snapshots.as_array().unwrap())
    {
        assert_eq!(
            [
                &got["symbol"],
                &got["price"],
                &got["preClose"],
                &got["volume"],
                &got["high"]
            ],
            [
                &want["symbol"],
                &want["price"],
                &want["pre_close"],
                &want["volume"],
                &want["high"]
            ]
        );
    }
    let depth = current(
        &server,
        get.clone(),
        "/market-data/stocks/depths/list",
        &[("symbol", "AAPL"), ("category", "US_STOCK")],
        None,
    )
    .await;
    let quote = ok(&out, "quote");
    assert_eq!(quote["instrumentId"], json!(aapl_id));
    for side in ["asks", "bids"] {
        let got: Vec<(&Value, &Value)> = quote[side]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (&l["price"], &l["size"]))
            .collect();
        let want: Vec<(&Value, &Value)> = depth[side]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (&l["price"], &l["size"]))
            .collect();
        assert_eq!(got, want, "{side}");
    }
    let ticks = current(
        &server,
        get.clone(),
        "/market-data/stocks/ticks/list",
        &[("symbol", "AAPL"), ("category", "US_STOCK"), ("count", "5")],
        None,
    )
    .await;
    let got: Vec<[&Value; 4]> = ok(&out, "tick")["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| [&t["time"], &t["price"], &t["volume"], &t["side"]])
        .collect();
    let want: Vec<[&Value; 4]> = ticks["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| [&t["time"], &t["price"], &t["volume"], &t["side"]])
        .collect();
    assert_eq!((got.len(), &got), (5, &want));
    let bars = current(
        &server,
        reqwest::Method::POST,
        "/market-data/stocks/bars/list",
        &[],
        Some(json!({"symbols": ["AAPL", "MSFT"], "category": "US_STOCK", "timespan": "D", "count": "3"})),
    )
    .await;
    let bar = |b: &Value| json!([b["time"], b["open"], b["close"], b["high"], b["low"], b["volume"]]);
    let got: Vec<Value> = ok(&out, "bars")["result"].as_array().unwrap().iter().map(bar).collect();
    let want: Vec<Value> = bars["result"][0]["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(bar)
        .collect();
    assert_eq!((got.len(), &got), (3, &want));
    let batch = ok(&out, "batch_bars")["result"].as_array().unwrap();
    assert_eq!(
        batch
            .iter()
            .map(|g| (&g["symbol"], g["result"].as_array().unwrap().len()))
            .collect::<Vec<_>>(),
        [(&json!("AAPL"), 2), (&json!("MSFT"), 2)]
    );
    // Refusals carry the HTTP status and error body.
    assert_eq!(
        out["unknown"]["error"]["error_code"], "INSTRUMENT_NOT_FOUND",
        "{}",
        out["unknown"]
    );
    assert_eq!(
        out["unconnected"]["error"]["error_code"], "SESSION_NOT_CONNECTED",
        "{}",
        out["unconnected"]
    );
    assert_eq!(ok(&out, "token")["token"].as_str().unwrap().len(), 36);

    // The feed: the client connects over MQTT with its token, subscribes through the gateway,
    // and receives a book, a snapshot and a tick of AAPL on the earlier topics.
    let out = run(&python, &server, "stream").await;
    assert_eq!(
        (&out["subscribed"], &out["all_kinds"]),
        (&json!(true), &json!(true)),
        "{out}"
    );
    for (kind, name) in [("0", "book"), ("1", "snapshot"), ("2", "tick")] {
        let received = &out["received"][kind];
        assert_eq!(received["topic"], json!(format!("{aapl_id}-{kind}-0")), "{name}: {out}");
        assert!(
            received["message"].as_str().unwrap().contains("symbol:AAPL"),
            "{name}: {out}"
        );
    }
    assert_eq!(out["token_shape"], json!([8, 4, 4, 4, 12]));
    assert_eq!(out["unsubscribe"]["status"], 200, "{out}");
}

/// One measurement, run by hand (ignored otherwise):
/// `N=2000 cargo test -p signet-server --test api -- --ignored measure_gateway --nocapture`.
/// N snapshot requests of two symbols, one after the other, on one gateway stream and as N
/// signed HTTP calls on one kept-alive connection, in turns, five rounds: the ratio of the
/// stream's time to HTTP's, per round (docs/performance.md).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, run by hand"]
async fn measure_gateway() {
    let n: usize = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    // The tests' servers have no rate limits.
    let server = TestServer::start_market_with("2013-02-25", 2013, |c| c.compat = Compat::Legacy).await;
    let secret = secrecy::ExposeSecret::expose_secret(&server.app.app_secret).to_owned();
    let mut stream = open(&server, &secret, "measure").await.expect("open");
    let client = server.client();
    let request = pb::SnapshotRequest {
        symbols: "AAPL,MSFT".into(),
        category: "US_STOCK".into(),
    }
    .encode_to_vec();
    for round in 1..=5 {
        let started = std::time::Instant::now();
        for _ in 0..n {
            assert_eq!(stream.ask(path::SNAPSHOT, request.clone()).await.code, 200);
        }
        let gateway = started.elapsed();
        let started = std::time::Instant::now();
        for _ in 0..n {
            let answer: Value = client
                .get(
                    "/market-data/stocks/snapshots/list",
                    &[("symbols", "AAPL,MSFT"), ("category", "US_STOCK")],
                )
                .await
                .unwrap();
            assert_eq!(answer.as_array().map(Vec::len), Some(2));
        }
        let http = started.elapsed();
        println!(
            "round {round}: gateway {:.1} µs a request, HTTP {:.1} µs, ratio {:.2}",
            gateway.as_secs_f64() * 1e6 / n as f64,
            http.as_secs_f64() * 1e6 / n as f64,
            gateway.as_secs_f64() / http.as_secs_f64()
        );
    }
}
