"""The earlier SDK generation (webull-python-sdk-core, -trade and -mdata 0.1.18, unmodified)
against a signet server started with --compat legacy. Written for signet's tests
(tests/api/earlier_sdk.rs), making the calls that generation's documented examples make, as a
trading platform built on it does: look a symbol up per category (US_STOCK, then US_ETF), place
by instrument_id, read the order, the account and the market data.

Usage: earlier_sdk.py SCENARIO HOST PORT, with SIGNET_APP_KEY, SIGNET_APP_SECRET and
SIGNET_ACCOUNT_ID (the account to trade, one of the app's) set.
  trade: the account list, the lookups, a market buy of SPY by instrument_id, its detail.
  read:  the account (profile, balance, positions), the orders of SIGNET_CLIENT_ORDER_ID's day
         and the market data of AAPL (SIGNET_AAPL_ID, its instrument_id).
  v2:    the account_v2 calls (list, balance, positions, the position detail of SIGNET_SPY_ID, and
         account's v1 position detail beside) and
         the order_v2 stock calls: preview, place, replace, detail, history and cancel of a
         resting limit buy of AAPL (client order id SIGNET_CLIENT_ORDER_ID); the v1 order calls
         the trade scenario leaves out (place_order_v2, both replaces, cancel) on a resting buy
         of SPY; the three trade_instrument calls and the calendar around Good Friday 2013.
Prints one JSON object: each call's HTTP status and body (or error code and message).
"""

import json
import os
import sys
import uuid

from webullsdkcore.client import ApiClient
from webullsdkcore.common.region import Region
from webullsdkcore.exception.exceptions import ClientException, ServerException
from webullsdkcore.http import protocol_type
from webullsdkcore.request import ApiRequest, set_default_protocol_type
from webullsdktrade.api import API

scenario, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])

# signet serves plain HTTP on a loopback port; the SDK signs the host without the port.
set_default_protocol_type(protocol_type.HTTP)
client = ApiClient(os.environ["SIGNET_APP_KEY"], os.environ["SIGNET_APP_SECRET"], Region.US.value, port=port)
client.add_endpoint(Region.US.value, host)
api = API(client)
out = {}


def record(name, call):
    """Runs one SDK call and keeps its answer under `name`."""
    try:
        response = call()
        out[name] = {"status": response.status_code, "body": response.json()}
    except ServerException as e:
        out[name] = {"status": e.get_http_status(), "error_code": e.get_error_code(), "message": e.get_error_msg()}
    except ClientException as e:
        out[name] = {"status": None, "error_code": e.get_error_code(), "message": e.get_error_msg()}
    return out[name]


def v1_get(path, **query):
    """A GET the 0.1.18 HTTP client has no method for (its quotes and tick calls exist only over
    gRPC): the SDK's own request class, x-version v1, signed by its own signer."""
    request = ApiRequest(path, version="v1", method="GET", query_params={})
    for key, value in query.items():
        request.add_query_param(key, value)
    return client.get_response(request)


def lookup(symbol):
    """A trading platform's lookup: the symbol under US_STOCK, then under US_ETF."""
    for category in ("US_STOCK", "US_ETF"):
        found = record("lookup_%s_%s" % (symbol, category), lambda: api.instrument.get_instrument(symbol, category))
        rows = found.get("body") or []
        if rows:
            return category, rows[0]["instrument_id"]
    return None, None


def account():
    """The account list, and the account the platform is set up to trade (SIGNET_ACCOUNT_ID)."""
    subscriptions = record("subscriptions", lambda: api.account.get_app_subscriptions())
    ids = [s["account_id"] for s in subscriptions["body"]]
    wanted = os.environ["SIGNET_ACCOUNT_ID"]
    if wanted not in ids:
        sys.exit("account %s is not among the subscriptions %r" % (wanted, ids))
    return wanted


if scenario == "trade":
    account_id = account()
    out["aapl"] = lookup("AAPL")
    out["spy"] = lookup("SPY")
    category, spy_id = out["spy"]
    client_order_id = uuid.uuid4().hex
    out["client_order_id"] = client_order_id
    record(
        "place",
        lambda: api.order.place_order(
            account_id,
            qty="10",
            instrument_id=spy_id,
            side="BUY",
            client_order_id=client_order_id,
            order_type="MARKET",
            extended_hours_trading=False,
            tif="DAY",
        ),
    )
    record("detail", lambda: api.order.query_order_detail(account_id, client_order_id))
    record("open", lambda: api.order.list_open_orders(account_id, page_size=10))
elif scenario == "read":
    account_id = account()
    client_order_id = os.environ["SIGNET_CLIENT_ORDER_ID"]
    aapl_id = os.environ["SIGNET_AAPL_ID"]
    record("profile", lambda: api.account.get_account_profile(account_id))
    record("balance", lambda: api.account.get_account_balance(account_id, "USD"))
    record("positions", lambda: api.account.get_account_position(account_id, page_size=10))
    record("detail", lambda: api.order.query_order_detail(account_id, client_order_id))
    record("today", lambda: api.order.list_today_orders(account_id, page_size=10))
    record("snapshot", lambda: api.market_data.get_snapshot("AAPL,MSFT", "US_STOCK"))
    record("quotes", lambda: v1_get("/market-data/quotes", symbol="AAPL", category="US_STOCK"))
    record("tick", lambda: v1_get("/market-data/tick", symbol="AAPL", category="US_STOCK", count="5"))
    record("bars", lambda: api.market_data.get_history_bar("AAPL", "US_STOCK", "D", count="5"))
    record("minute_bars", lambda: api.market_data.get_history_bar("AAPL", "US_STOCK", "M1", count="3"))
    record("batch_bars", lambda: api.market_data.get_batch_history_bar(["AAPL", "MSFT"], "US_STOCK", "D", count="5"))
    record("eod_bars", lambda: api.market_data.get_eod_bar(aapl_id, count="3"))
    record("corp_action", lambda: api.market_data.get_corp_action(aapl_id, "SPLIT,DIVIDEND"))
elif scenario == "v2":
    account_id = os.environ["SIGNET_ACCOUNT_ID"]
    client_order_id = os.environ["SIGNET_CLIENT_ORDER_ID"]
    record("accounts", lambda: api.account_v2.get_account_list())
    record("balance", lambda: api.account_v2.get_account_balance(account_id))
    record("positions", lambda: api.account_v2.get_account_position(account_id))
    record("position_details",
           lambda: api.account_v2.get_account_position_details(account_id, 10, os.environ["SIGNET_SPY_ID"], None))
    record("v1_position_details",
           lambda: api.account.get_account_position_details(account_id, 10, os.environ["SIGNET_SPY_ID"], None))
    order = {
        "client_order_id": client_order_id, "combo_type": "NORMAL", "symbol": "AAPL", "instrument_type": "EQUITY",
        "market": "US", "order_type": "LIMIT", "limit_price": "300", "quantity": "2", "side": "BUY",
        "time_in_force": "DAY", "entrust_type": "QTY", "support_trading_session": "CORE",
    }
    record("preview", lambda: api.order_v2.preview_order(account_id, dict(order)))
    record("place", lambda: api.order_v2.place_order(account_id, dict(order)))
    modify = {"client_order_id": client_order_id, "quantity": "3", "limit_price": "301"}
    record("replace", lambda: api.order_v2.replace_order(account_id, modify))
    record("detail", lambda: api.order_v2.get_order_detail(account_id, client_order_id))
    record("history", lambda: api.order_v2.get_order_history_request(account_id, page_size=10))
    record("cancel", lambda: api.order_v2.cancel_order_v2(account_id, client_order_id))
    record("after", lambda: api.order_v2.query_order_detail(account_id, client_order_id))
    # The v1 order calls the trade scenario left out, on a resting limit buy of SPY.
    spy_id = os.environ["SIGNET_SPY_ID"]
    v1_id = client_order_id + "v1"
    stock_order = {
        "client_order_id": v1_id, "instrument_id": spy_id, "qty": "1", "side": "BUY", "tif": "DAY",
        "extended_hours_trading": False, "order_type": "LIMIT", "limit_price": "100",
    }
    record("v1_place", lambda: api.order.place_order_v2(account_id, stock_order))
    record("v1_replace", lambda: api.order.replace_order(account_id, "2", spy_id, "BUY", v1_id, "LIMIT", False,
                                                         "DAY", limit_price="101"))
    record("v1_replace_v2", lambda: api.order.replace_order_v2(account_id, dict(stock_order, qty="3",
                                                                                limit_price="102")))
    record("v1_detail", lambda: api.order.query_order_detail(account_id, v1_id))
    record("v1_cancel", lambda: api.order.cancel_order(account_id, v1_id))
    # The trade instruments and the calendar.
    record("trade_instrument", lambda: api.trade_instrument.get_trade_instrument_detail(spy_id))
    record("trade_security", lambda: api.trade_instrument.get_trade_security_detail("SPY", "US", "EQUITY", "ETF",
                                                                                    None, None))
    record("tradable", lambda: api.trade_instrument.get_tradeable_instruments(page_size=2))
    record("calendar", lambda: api.trade_calendar.get_trade_calendar("US", "2013-03-25", "2013-04-05"))
else:
    sys.exit("unknown scenario %r" % scenario)

json.dump(out, sys.stdout)
