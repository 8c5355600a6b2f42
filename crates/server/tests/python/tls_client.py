"""Drives the official Python client (webull-openapi-python-sdk 3.0.4), unmodified and with its
defaults (HTTPS, tls_enable=True), against a signet server started with TLS: the CA it trusts is
given by the variables the test sets (WEBULL_API_CA_BUNDLE, REQUESTS_CA_BUNDLE,
GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, SSL_CERT_FILE), never in code.

Usage: SIGNET_APP_KEY=... SIGNET_APP_SECRET=... tls_client.py SCENARIO HOST PORT
Prints one JSON object on stdout.

Scenarios:
  http      ApiClient(key, secret, "us", port=PORT) on endpoint HOST, the default protocol
            (HTTPS): TradeClient's GET /openapi/config and get_account_list; a failure is
            reported as {"error": ...}, not raised
  events    TradeEventsClient(key, secret, "us", host=HOST, port=PORT), tls_enable left True:
            subscribed to the CASH account: {"subscribed": true} when its SubscribeSuccess
            came within $SIGNET_TLS_WAIT seconds (10), false otherwise
  streaming DataStreamingClient(key, secret, "us", SESSION, http_host="https://HOST:PORT",
            mqtt_host=HOST, mqtt_port=$SIGNET_MQTT_PORT), tls_enable left True: connects over
            TLS, subscribes AAPL to SNAPSHOT over HTTPS: {"received": true, ...} when a snapshot
            came within $SIGNET_TLS_WAIT seconds (10), false otherwise. With
            SIGNET_MQTT_TRANSPORT=websockets, the same with transport="websockets" (paho's
            WebSocket transport, path /mqtt); with SIGNET_TLS_ENABLE=0, against a server without
            TLS: http_host="http://HOST:PORT" and tls_enable=False
"""

import contextlib
import json
import os
import sys
import tempfile
import threading
import time
import uuid

from webull.core.client import ApiClient
from webull.trade.trade_client import TradeClient

# Seconds the events and streaming scenarios wait for their first answer ($SIGNET_TLS_WAIT).
WAIT = float(os.environ.get("SIGNET_TLS_WAIT", "10"))


def api_client(host, port, app_key, app_secret):
    api = ApiClient(app_key, app_secret, "us", port=port)
    api.add_endpoint("us", host)
    api.set_stream_logger(stream=sys.stderr)
    api.set_token_dir(tempfile.mkdtemp(prefix="signet-token-"))
    return api


def http(host, port, app_key, app_secret):
    try:
        trade = TradeClient(api_client(host, port, app_key, app_secret))  # GET /openapi/config
        response = trade.account_v2.get_account_list()
        return {"status": response.status_code, "accounts": len(response.json())}
    except Exception as e:  # noqa: BLE001 - the test reads what failed
        return {"error": f"{type(e).__name__}: {e}"}


def events(host, port, app_key, app_secret):
    from webull.trade.trade_events_client import TradeEventsClient

    trade = TradeClient(api_client(host, port, app_key, app_secret))
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]
    connected = threading.Event()
    client = TradeEventsClient(app_key, app_secret, "us", host=host, port=port)
    client.on_connect = lambda *_: connected.set()
    started = time.time()
    threading.Thread(target=client.do_subscribe, args=([account_id],), daemon=True).start()
    if not connected.wait(WAIT):
        return {"subscribed": False}
    return {"subscribed": True, "seconds": round(time.time() - started, 3)}


def streaming(host, port, app_key, app_secret):
    from webull.data.data_streaming_client import DataStreamingClient

    mqtt_port = int(os.environ["SIGNET_MQTT_PORT"])
    transport = os.environ.get("SIGNET_MQTT_TRANSPORT", "tcp")
    # Only what differs from the defaults is passed.
    options = {} if transport == "tcp" else {"transport": transport}
    scheme = "https"
    if os.environ.get("SIGNET_TLS_ENABLE", "1") == "0":
        options["tls_enable"] = False
        scheme = "http"
    client = DataStreamingClient(app_key, app_secret, "us", uuid.uuid4().hex, http_host=f"{scheme}://{host}:{port}",
                                 mqtt_host=host, mqtt_port=mqtt_port, **options)
    client.set_token_dir(tempfile.mkdtemp(prefix="signet-token-"))
    client.set_stream_logger(stream=sys.stderr)
    received = threading.Event()
    first = {}

    def on_connect_success(c, _api_client, _sid):
        c.subscribe(["AAPL"], "US_STOCK", ["SNAPSHOT"])

    def on_quotes_message(_c, topic, decoded):
        first.setdefault("message", {"topic": topic, "symbol": decoded.basic.symbol})
        received.set()

    client.on_connect_success = on_connect_success
    client.on_quotes_message = on_quotes_message
    started = time.time()
    threading.Thread(target=client.connect_and_loop_forever, kwargs={"logger_enable": False}, daemon=True).start()
    if not received.wait(WAIT):
        return {"received": False}
    return dict(first["message"], received=True, seconds=round(time.time() - started, 3))


def main():
    scenario, host, port = sys.argv[1:4]
    app_key, app_secret = os.environ["SIGNET_APP_KEY"], os.environ["SIGNET_APP_SECRET"]
    port = int(port)
    # What the clients print on stdout is kept off the one JSON object this script answers with.
    with contextlib.redirect_stdout(sys.stderr):
        out = {"http": http, "events": events, "streaming": streaming}[scenario](host, port, app_key, app_secret)
    print(json.dumps(out))
    # The clients' threads loop for ever.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
