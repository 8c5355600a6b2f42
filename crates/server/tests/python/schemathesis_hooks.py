"""Schemathesis hooks for tests/schemathesis.rs: sign every request as section 5 of the interface
specification says, point some generated values at data the server has, and count the answers.

Environment (set by tests/schemathesis.rs):
  SIGNET_APP_KEY, SIGNET_APP_SECRET      the app that signs every call
  SIGNET_ADMIN_KEY, SIGNET_ADMIN_SECRET  the app created with --admin that signs /admin/ calls
  SIGNET_ACCOUNT_IDS                     the app's account ids, comma-separated
  SIGNET_CLIENT_ORDER_ID                 an order of the first account
  SIGNET_WATCHLIST_ID                    a watchlist of the app
  SIGNET_SCHEMATHESIS_STATS              file the answers' counts are written to, as JSON

The signer checks itself against testdata/signing-vectors.json when it is imported, so that a
wrong signer fails loudly instead of producing 401s.
"""

import base64
import hashlib
import hmac
import json
import os
import threading
import time
import urllib.parse
import uuid
import zlib

import requests
import schemathesis

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "..", "..", "..", "testdata", "signing-vectors.json")


def quote(text):
    """Percent-encodes every UTF-8 byte but A-Z a-z 0-9 - . _ ~ (rule 6)."""
    return urllib.parse.quote(text, safe="~")


def signature(secret, path, query_pairs, headers, body):
    """(str3, encoded, signature) of section 5.3 for the decoded query pairs, the six signing
    headers (lower-case names, `host` included) and the exact body bytes (None without one)."""
    values = {}
    for name, value in list(query_pairs) + list(headers.items()):
        values.setdefault(name, []).append(value)
    pairs = []
    for name in sorted(values, key=lambda n: n.encode("utf-8")):
        joined = "&".join(sorted(values[name], key=lambda v: v.encode("utf-8")))
        pairs.append(f"{name}={joined}")
    str3 = path + "&" + "&".join(pairs)
    if body is not None:
        str3 += "&" + hashlib.sha256(body).hexdigest().upper()
    encoded = quote(str3)
    digest = hmac.new((secret + "&").encode("utf-8"), encoded.encode("utf-8"), hashlib.sha256).digest()
    return str3, encoded, base64.b64encode(digest).decode("ascii")


def _self_check():
    with open(VECTORS, encoding="utf-8") as f:
        vectors = json.load(f)["vectors"]
    checked = 0
    for v in vectors:
        if v["headers"].get("x-signature-algorithm") != "HMAC-SHA256":
            continue  # the legacy HMAC-SHA1 scheme (--compat legacy) is not what this hook signs with
        checked += 1
        body = None if v["body"] is None else v["body"].encode("utf-8")
        str3, encoded, sig = signature(v["secret"], v["path"], [tuple(p) for p in v["query"]], v["headers"], body)
        expected = (v["expected_str3"], v["expected_encoded"], v["expected_signature"])
        if (str3, encoded, sig) != expected:
            raise AssertionError(f"the hook's signer fails vector {v['name']}: {(str3, encoded, sig)} != {expected}")
    if checked == 0:
        raise AssertionError(f"no HMAC-SHA256 vector in {VECTORS}")
    return checked


VECTORS_CHECKED = _self_check()

APP = (os.environ.get("SIGNET_APP_KEY", ""), os.environ.get("SIGNET_APP_SECRET", ""))
ADMIN = (os.environ.get("SIGNET_ADMIN_KEY") or APP[0], os.environ.get("SIGNET_ADMIN_SECRET") or APP[1])
ACCOUNTS = [a for a in os.environ.get("SIGNET_ACCOUNT_IDS", "").split(",") if a]
KNOWN = {
    "account_id": ACCOUNTS[:1],  # the account of SIGNET_CLIENT_ORDER_ID
    "client_order_id": [os.environ["SIGNET_CLIENT_ORDER_ID"]] if os.environ.get("SIGNET_CLIENT_ORDER_ID") else [],
    "watchlist_id": [os.environ["SIGNET_WATCHLIST_ID"]] if os.environ.get("SIGNET_WATCHLIST_ID") else [],
    # Symbols with prices in data/demo (and so instruments on the server).
    "symbol": ["AAPL", "IBM", "MSFT", "GOOG", "FB"],
}


def _known(name, value):
    """Three times in four, a value the server has in place of a generated one, chosen from the
    generated value so that the same input gives the same output."""
    choices = KNOWN.get(name)
    if not choices:
        return value
    if value == name.upper():
        return choices[0]  # the document's examples (ACCOUNT_ID, WATCHLIST_ID) always are
    h = zlib.crc32(repr(value).encode("utf-8"))
    return value if h % 4 == 0 else choices[h % len(choices)]


# Operations that would end what the others need, and the identifier they must never get (not
# even as a value schemathesis learnt from an answer).
DESTRUCTIVE = {"/market-data/watchlists/delete": "watchlist_id", "/trading/orders/cancel": "client_order_id"}
# Operations that create what the identifier names: a known one would only be a duplicate.
CREATING = {
    "/trading/orders/place": "client_order_id",
    "/trading/orders/preview": "client_order_id",
    "/trading/orders/batch-place": "client_order_id",
}


def _point(value, destructive, keep=None):
    """`value` with the strings of KNOWN's names replaced (three times in four) by values the
    server has; for a destructive operation, with those values replaced by unknown ones."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == destructive and isinstance(v, str):
                v = "unknown-" + v if v in KNOWN[k] else v
            elif k in KNOWN and k != keep and isinstance(v, str):
                v = _known(k, v)
            else:
                v = _point(v, destructive, keep)
            out[k] = v
        return out
    if isinstance(value, list):
        return [_point(v, destructive, keep) for v in value]
    return value


@schemathesis.hook
def before_call(context, case, kwargs):
    """Signs the request: the path and decoded query as they will be on the wire, the compact
    JSON body (sent as exactly those bytes), a fresh nonce and the current time."""
    destructive = DESTRUCTIVE.get(case.path)
    keep = CREATING.get(case.path)
    if case.query:
        case.query = _point(dict(case.query), destructive, keep)
    if isinstance(case.body, (dict, list)):
        case.body = _point(case.body, destructive, keep)
    data = case.as_transport_kwargs()
    prepared = requests.Request(method=data["method"], url=data["url"], params=data.get("params")).prepare()
    url = urllib.parse.urlsplit(prepared.url)
    query = urllib.parse.parse_qsl(url.query, keep_blank_values=True)
    body = None
    if "data" in data and isinstance(data["data"], bytes):
        body = data["data"]
    elif "json" in data:
        body = json.dumps(data["json"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if body is not None:
        kwargs["data"] = body
    key, secret = ADMIN if url.path.startswith("/admin/") else APP
    headers = {
        "x-app-key": key,
        "x-timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "x-signature-algorithm": "HMAC-SHA256",
        "x-signature-version": "1.0",
        "x-signature-nonce": uuid.uuid4().hex,
        "host": url.netloc,
    }
    _, _, sig = signature(secret, url.path, query, headers, body)
    del headers["host"]
    headers["x-signature"] = sig
    headers["x-version"] = case.headers.get("x-version", "v3") if case.headers else "v3"
    if headers["x-version"] not in ("v2", "v3"):
        headers["x-version"] = "v3"
    if case.headers is None:
        case.headers = {}
    case.headers.update(headers)


_LOCK = threading.Lock()
_STATS = {"vectors_checked": VECTORS_CHECKED, "requests": 0, "by_status": {}, "by_operation": {}, "samples": {}}


def _write_stats():
    path = os.environ.get("SIGNET_SCHEMATHESIS_STATS")
    if path:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(_STATS, f, sort_keys=True)
        os.replace(path + ".tmp", path)


@schemathesis.hook
def after_call(context, case, response):
    with _LOCK:
        status = str(response.status_code)
        _STATS["requests"] += 1
        _STATS["by_status"][status] = _STATS["by_status"].get(status, 0) + 1
        operation = _STATS["by_operation"].setdefault(f"{case.method.upper()} {case.path}", {})
        operation[status] = operation.get(status, 0) + 1
        if response.status_code >= 400:
            try:
                answer = json.loads(response.content)
                code = f"{status} {answer.get('error_code')}: {answer.get('message', '')[:100]}"
            except Exception:
                code = f"{status} (not JSON)"
            samples = _STATS["samples"].setdefault(f"{case.method.upper()} {case.path}", {})
            if code in samples or len(samples) < 8:
                samples[code] = samples.get(code, 0) + 1
        _write_stats()
