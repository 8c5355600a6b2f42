//! `signet sign`: every step of a section 5 signature.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;
use signet_signing::{Algorithm, Request, SigningHeaders};

#[derive(Args)]
#[command(
    after_help = "Example:\n  signet sign --method GET --host api.example.test --path /trading/accounts/list \\\n    \
    --app-key a1b2c3d4e5f60718293a4b5c6d7e8f90 --secret 5ecret0f0123456789abcdef01234567 \\\n    \
    --timestamp 2026-09-21T08:15:30Z --nonce 0123456789abcdef0123456789abcdef"
)]
pub struct SignArgs {
    /// HTTP method (not signed; a body goes with POST)
    #[arg(long, default_value = "GET")]
    method: String,
    /// The host value signed: the Host header the server receives, e.g. 127.0.0.1:8080
    #[arg(long)]
    host: String,
    /// The path alone, as in the request line, e.g. /trading/accounts/list
    #[arg(long)]
    path: String,
    /// A query parameter NAME=VALUE with its decoded value; repeat for more, or for a repeated name
    #[arg(long = "query", value_name = "NAME=VALUE", value_parser = parse_pair)]
    query: Vec<(String, String)>,
    #[arg(long, env = "SIGNET_APP_KEY")]
    app_key: String,
    #[arg(long, env = "SIGNET_APP_SECRET", hide_env_values = true)]
    secret: String,
    /// x-timestamp, YYYY-MM-DDThh:mm:ssZ
    #[arg(long)]
    timestamp: String,
    /// x-signature-nonce
    #[arg(long)]
    nonce: String,
    /// The exact body, sent byte for byte
    #[arg(long, conflicts_with = "body_file")]
    body: Option<String>,
    /// A file holding the exact body
    #[arg(long)]
    body_file: Option<PathBuf>,
    /// x-signature-algorithm: HMAC-SHA256, or HMAC-SHA1 for the legacy scheme
    #[arg(long, default_value = "HMAC-SHA256", value_parser = parse_algorithm)]
    algorithm: Algorithm,
    /// x-signature-version
    #[arg(long, default_value = "1.0")]
    signature_version: String,
    /// Print one JSON object: str1, str2 (null without a body), str3, encoded, signature
    #[arg(long)]
    json: bool,
}

fn parse_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("expected NAME=VALUE, got {s:?}")),
    }
}

fn parse_algorithm(s: &str) -> Result<Algorithm, String> {
    Algorithm::from_name(s).ok_or_else(|| format!("unknown algorithm {s:?}: HMAC-SHA256 or HMAC-SHA1"))
}

#[derive(Serialize)]
struct Steps<'a> {
    str1: &'a str,
    str2: Option<&'a str>,
    str3: &'a str,
    encoded: &'a str,
    signature: &'a str,
}

pub fn run(args: SignArgs) -> anyhow::Result<()> {
    let body: Option<Vec<u8>> = match (&args.body, &args.body_file) {
        (Some(text), _) => Some(text.clone().into_bytes()),
        (None, Some(path)) => {
            Some(std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?)
        }
        (None, None) => None,
    };
    if body.as_ref().is_some_and(|b| !b.is_empty()) && !args.method.eq_ignore_ascii_case("POST") {
        eprintln!(
            "note: a request with a body must be a POST; the server refuses {} with a body",
            args.method
        );
    }
    let headers = SigningHeaders {
        app_key: &args.app_key,
        algorithm: args.algorithm,
        signature_version: &args.signature_version,
        nonce: &args.nonce,
        timestamp: &args.timestamp,
        host: &args.host,
    };
    let mut request = Request::new(&args.path, headers);
    for (name, value) in &args.query {
        request = request.with_param(name.as_str(), value.as_str());
    }
    if let Some(body) = &body {
        request = request.with_body(body);
    }
    let e = signet_signing::explain(&request, &args.secret);
    let steps = Steps {
        str1: &e.str1,
        str2: e.str2.as_deref(),
        str3: &e.str3,
        encoded: &e.encoded,
        signature: &e.signature,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&steps)?);
    } else {
        println!("str1 (parameters and signing headers, sorted)\n  {}", steps.str1);
        match steps.str2 {
            Some(digest) => println!(
                "str2 ({} of the body, upper-case hex)\n  {digest}",
                digest_name(args.algorithm)
            ),
            None => println!("str2\n  (none: no body, so str2 and its & are left out)"),
        }
        println!("str3 (path & str1 [& str2])\n  {}", steps.str3);
        println!(
            "encoded (str3 percent-encoded, A-Z a-z 0-9 - . _ ~ kept)\n  {}",
            steps.encoded
        );
        println!(
            "signature (Base64 {} of encoded, key = secret + \"&\"): the x-signature header\n  {}",
            args.algorithm.name(),
            steps.signature
        );
    }
    Ok(())
}

fn digest_name(algorithm: Algorithm) -> &'static str {
    match algorithm {
        Algorithm::HmacSha256 => "SHA-256",
        Algorithm::LegacyHmacSha1 => "MD5",
    }
}
