"""The earlier SDK generation's market data over its quotes gateway (webull-python-sdk-quotes-core
and -mdata 0.1.18, unmodified): gRPC requests on one signed stream, and the MQTT feed whose token
and subscriptions come from that stream, against a signet server started with --compat legacy.
Written for signet's tests (tests/api/gateway.rs), making the calls of that generation's
documented examples (webullsdktrade.grpc_api.API and DefaultQuotesClient).

Usage: earlier_quotes.py SCENARIO HOST PORT, with SIGNET_APP_KEY and SIGNET_APP_SECRET set.
  data:   the instrument lookup, snapshots, the book, ticks, bars and batch bars of AAPL and
          MSFT, and a snapshot of an unknown symbol (refused).
  stream: DefaultQuotesClient on SIGNET_MQTT_PORT, subscribed to AAPL's snapshot, book and
          ticks, until one of each arrived (or 20 s), then unsubscribed over gRPC.
Prints one JSON object: each call's answer (or its error code and message).
"""

import json
import os
import sys
import threading
import time

from webullsdkquotescore.grpc.grpc_client import GrpcApiClient
from webullsdkmdata.quotes.subscribe.default_client import DefaultQuotesClient
from webullsdktrade.grpc_api import API

scenario, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
app_key, app_secret = os.environ["SIGNET_APP_KEY"], os.environ["SIGNET_APP_SECRET"]

# The gateway is a process-wide singleton: made first, it points every later user (the quotes
# client's own, made with the default port 443) at signet's plain-HTTP port.
grpc_client = GrpcApiClient(app_key, app_secret, "us", host=host, port=port, tls_enable=False)
api = API(grpc_client)
out = {}


def record(name, call):
    """Runs one call and keeps its answer (the payload as JSON) or its refusal under `name`."""
    try:
        response = call()
        out[name] = {"status": response.status_code, "body": response.json()}
    except RuntimeError as e:
        code, msg = e.args if len(e.args) == 2 else (None, str(e))
        out[name] = {"status": code, "error": json.loads(msg) if msg.startswith("{") else msg}
    return out[name]


if scenario == "data":
    record("instruments", lambda: api.instrument.get_instrument(["AAPL", "MSFT"], "US_STOCK"))
    record("instruments_etf", lambda: api.instrument.get_instrument("AAPL,MSFT", "US_ETF"))
    record("snapshot", lambda: api.market_data.get_snapshot(["AAPL", "MSFT"], "US_STOCK"))
    record("quote", lambda: api.market_data.get_quote("AAPL", "US_STOCK"))
    record("tick", lambda: api.market_data.get_tick("AAPL", "US_STOCK", "5"))
    record("bars", lambda: api.market_data.get_history_bar("AAPL", "US_STOCK", "D", "3"))
    record("batch_bars", lambda: api.market_data.get_batch_history_bar(["AAPL", "MSFT"], "US_STOCK", "M1", 2))
    record("unknown", lambda: api.market_data.get_snapshot(["NOPE"], "US_STOCK"))
    record("token", lambda: api.market_data.get_token())
    record("unconnected", lambda: api.market_data.create_subscription_rel("no-such-token", ["AAPL"], "US_STOCK",
                                                                          ["SNAPSHOT"]))
elif scenario == "stream":
    received = {}
    all_kinds = threading.Event()

    def on_message(client, topic, decoded):
        # The topic names the instrument and the kind (0 the book, 1 a snapshot, 2 a tick).
        received.setdefault(str(topic.data_type), {"topic": str(topic), "instrument_id": topic.instrument_id,
                                                   "message": str(decoded)})
        if len(received) == 3:
            all_kinds.set()

    client = DefaultQuotesClient(app_key, app_secret, "us", host=host, tls_enable=False)
    client._mqtt_post = int(os.environ["SIGNET_MQTT_PORT"])
    client.init_default_settings(["AAPL"], "US_STOCK", ["SNAPSHOT", "QUOTE", "TICK"])
    client.on_quotes_message = on_message
    subscribed = threading.Event()
    client.on_subscribe_success = lambda *args: subscribed.set()
    client.connect_and_loop_start()
    out["subscribed"] = subscribed.wait(20)
    out["all_kinds"] = all_kinds.wait(20)
    out["received"] = received
    token = client._quotes_token
    out["token_shape"] = [len(part) for part in token.split("-")]
    # The SDK's request class refuses None for symbols and sub types, even with unsubscribe_all.
    record("unsubscribe", lambda: api.market_data.remove_subscription_rel(token, "", "", [], True))
    client.loop_stop()
    client.disconnect()
else:
    sys.exit("unknown scenario %r" % scenario)

json.dump(out, sys.stdout)
sys.stdout.flush()
# The gateway's threads are not daemons: leave without waiting for them.
os._exit(0)
