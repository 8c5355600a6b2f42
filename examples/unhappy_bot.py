"""A small trading bot that survives every rule of testdata/scenarios/unhappy-paths.toml
(docs/scenarios.md, "Testing a bot against the unhappy paths"), written on the official Python client
(webull-openapi-python-sdk 3.0.4), unmodified.

What it does about each unhappy path:
- a fault (5xx, 429) or a lost answer: it looks the order up by its client_order_id before
  placing it again, so that an order is never placed twice;
- a refusal (4xx: a rejection, a halt, no buying power): it gives the order up and says why;
- fills in slices, or a share then a cancel: it waits for the order to be final and reports
  what filled, not what it asked for;
- slow market data: nothing but patience.

Usage: SIGNET_APP_KEY=... SIGNET_APP_SECRET=... python3 examples/unhappy_bot.py HOST:PORT [RUN]
Prints one JSON line per order: its client order id, what placing it came to, its final status
and what filled. RUN (default: the time) makes the client order ids of a run its own.
"""

import json
import os
import sys
import tempfile
import time

import webull.core.request as wreq
from webull.core.client import ApiClient
from webull.core.exception.exceptions import ClientException, ServerException
from webull.data.data_client import DataClient
from webull.trade.trade_client import TradeClient

FINAL = {"FILLED", "CANCELLED", "FAILED"}


def find(trade, account_id, client_order_id):
    """The order with this client order id, or None when the account has none."""
    try:
        return trade.order_v3.get_order_detail(account_id, client_order_id).json()["orders"][0]
    except ServerException as e:
        if e.get_error_code() == "ORDER_NOT_FOUND":
            return None
        raise


def place(trade, account_id, order, attempts=5):
    """Places `order` at most once: "placed", or the error code that refused it for good."""
    for attempt in range(attempts):
        try:
            trade.order_v3.place_order(account_id, [order])
            return "placed"
        except ServerException as e:
            status = e.get_http_status()
            if status < 500 and status != 429:
                return e.get_error_code()
        except ClientException:
            pass  # No answer: the order may have been stored all the same.
        if find(trade, account_id, order["client_order_id"]) is not None:
            return "placed"
        time.sleep(min(2**attempt, 8))  # The example's Retry-After is 1 s.
    return "gave up"


def settle(trade, account_id, client_order_id, timeout=30):
    """The order once it is final (it may fill in slices, or in part and then be cancelled)."""
    deadline = time.time() + timeout
    while True:
        order = find(trade, account_id, client_order_id)
        if order["status"] in FINAL or time.time() > deadline:
            return order
        time.sleep(0.2)


def main():
    host = sys.argv[1]
    run = sys.argv[2] if len(sys.argv) > 2 else str(int(time.time()))
    wreq.set_default_protocol_type("http")
    api = ApiClient(os.environ["SIGNET_APP_KEY"], os.environ["SIGNET_APP_SECRET"], "us", port=80)
    api.add_endpoint("us", host)
    api.set_token_dir(tempfile.mkdtemp(prefix="signet-token-"))
    trade, data = TradeClient(api), DataClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]
    data.market_data.get_snapshot("AAPL,MSFT", "US_STOCK")  # Slow, and that is all.

    for prefix, symbol, quantity in [
        ("slices", "AAPL", "30"),
        ("half", "AAPL", "10"),
        ("flaky", "AAPL", "1"),
        ("lost", "AAPL", "1"),
        ("big", "MSFT", "100"),
    ]:
        client_order_id = f"{prefix}-{run}"
        order = {
            "client_order_id": client_order_id, "combo_type": "NORMAL", "symbol": symbol,
            "instrument_type": "EQUITY", "market": "US", "order_type": "MARKET",
            "quantity": quantity, "side": "BUY", "time_in_force": "DAY", "entrust_type": "QTY",
            "support_trading_session": "CORE",
        }
        placed = place(trade, account_id, order)
        final = settle(trade, account_id, client_order_id) if placed == "placed" else None
        print(json.dumps({
            "client_order_id": client_order_id,
            "placed": placed,
            "status": final and final["status"],
            "filled": final and final["filled_quantity"],
        }), flush=True)


if __name__ == "__main__":
    main()
