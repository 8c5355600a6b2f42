"""Drives the official Python client (webull-openapi-python-sdk 3.0.4), unmodified, against a
signet server, configured as the interface catalog (section 1.10) shows.

Usage: SIGNET_APP_KEY=... SIGNET_APP_SECRET=... official_client.py SCENARIO HOST PORT
Prints one JSON object on stdout; any failure is an exception and a non-zero exit.

Scenarios:
  accounts          endpoint "host:port", port 80: signed host == Host header
  accounts-no-port  endpoint "host", port=PORT: the client signs the host without its port
  token             the server requires tokens; the client creates one and polls until approved
  screeners         the six current screener calls of DataClient (list_*)
  orders            the v3 order calls of TradeClient.order_v3
  watchlists        the eight watchlist calls of DataClient
  fundamentals      the 23 fundamentals calls of DataClient (instrument and fundamentals)
  quotes            DataClient.market_data: get_snapshot (two symbols, extended hours asked) and
                    get_quotes (depth 3), get_tick (5) and get_batch_history_bar (2 daily)
  options           DataClient's option calls: instrument.list_option_contracts (AAPL's calls
                    of one expiry, then every page of its chain) and get_option_contracts (page 5),
                    option_market_data.get_option_snapshot (a call and a put), get_option_tick (10)
                    and get_option_history_bars (M5 and D)
  option-buy        buys AAPL's 2013-03-15 call at 450 in the CASH account with the client's two
                    option paths: order_v2.preview_option and place_option (1 at market), and
                    order_v3.place_order with the leg (1 at a limit of the ask the snapshot shows)
  option-held       once the test filled them: account_v2's balance and positions,
                    order_v3.get_order_detail of both, then order_v2.place_option selling the 2
  option-spread     in the MARGIN account, order_v3.preview_order and place_order of a VERTICAL
                    (2 units: AAPL's 2013-03-15 call at 450 bought, the 460 sold) at market; and
                    one resting at a net of 0.50: replace_order (3 units by a leg, a net of
                    0.40), get_order_detail, cancel_order; a COVERED_STOCK (100 shares and
                    the 460 call sold) resting at 100.00, its detail, cancel_order
  option-spread-held once the test filled it: order_v3.get_order_detail, list_order_executions
                    and account_v2.get_account_position
  companions-buy    buys 10 AAPL at market in the CASH account (the test fills it, then runs:)
  companions        balance, positions and executions of that account (TradeClient), the
                    instrument lookup (DataClient.instrument.list_instruments), and
                    market_data.get_eod_bar and get_corp_action of the instrument held
  events-ended      TradeEventsClient subscribed while a scenario rule ends the subscription after
                    one event: the order events before and after it subscribes again by itself
  events            TradeEventsClient(key, secret, "us", host=HOST, port=PORT, tls_enable=False)
                    subscribed to the CASH account: a market buy's fill event (the test steps the
                    market meanwhile), a cancelled limit order's CANCEL_SUCCESS, and a wrong
                    secret's refusal (AuthError logged, then UNAUTHENTICATED, no event); with
                    SIGNET_OTHER_ACCOUNT, that account of another app (PERMISSION_DENIED)
  streaming         DataStreamingClient(key, secret, "us", SESSION, http_host="http://HOST:PORT",
                    mqtt_host=HOST, mqtt_port=$SIGNET_MQTT_PORT, tls_enable=False): connects, subscribes
                    AAPL and MSFT to SNAPSHOT, QUOTE and TICK in on_connect_success, unsubscribes MSFT
                    once the first message of each (symbol, topic) came and prints them on one line;
                    reads the price the test pinned AAPL at on stdin and waits for it; closes its own
                    socket and waits for the client to reconnect (10 s later), subscribe again and
                    receive; then a second session of the app and a client with an unknown app key,
                    each refused at CONNECT. Prints a second line at the end
  revoked           TradeEventsClient and DataStreamingClient (as above, SNAPSHOT of AAPL), both
                    subscribed; prints a line, then reads one on stdin when the test has revoked
                    the app, and waits for both clients to stop: how and when each did
  dividend          after the test bought 10 AAPL (companions-buy) on 2012-08-08 and moved the
                    market into 2012-08-09, its ex-date: activity.list_activities of DIVIDEND,
                    the position, and market_data.get_corp_action of AAPL's dividends that day
  v1-place          TradeClient.order (v1): place_order, a market buy of 10 AAPL by instrument id
                    in the CASH account, and place_order_v2 (the stock_order object) a resting
                    limit buy, then replace_order and replace_order_v2 of that limit order
  v1                once the test stepped the market: query_order_detail, list_today_orders,
                    list_open_orders, cancel_order, and TradeClient.account (v1): get_account_profile,
                    get_account_balance, get_account_position; with account_v2's balance beside;
                    trade_calendar.get_trade_calendar around Good Friday 2013, the three
                    trade_instrument calls, activity.list_activities and the two transfer calls
  sweep             every HTTP method of TradeClient (but order.place_option, broken in the
                    client), one after another in
                    an order that makes each meaningful (placed before replaced, replaced before
                    cancelled): the status of each, or the error code of a refusal; and the
                    methods the client has that the table leaves out (to be none)
  legacy            the deprecated calls shipped code still makes (server with --compat legacy):
                    order_v3.get_order_open / get_order_history (x-version v2), the six get_*
                    screeners and get_fund_dividends, and the ten stock calls of order_v2 (the
                    order calls' earlier paths)
"""

import contextlib
import json
import logging
import os
import sys
import tempfile
import time

import webull.core.request as wreq
from webull.core.client import ApiClient
from webull.trade.trade_client import TradeClient


def main():
    scenario, host, port = sys.argv[1:4]
    app_key, app_secret = os.environ["SIGNET_APP_KEY"], os.environ["SIGNET_APP_SECRET"]
    port = int(port)
    wreq.set_default_protocol_type("http")
    if scenario == "accounts-no-port":
        api = ApiClient(app_key, app_secret, "us", port=port)
        api.add_endpoint("us", host)
    else:
        kwargs = {}
        if scenario == "token":
            kwargs = {"token_check_duration_seconds": 60, "token_check_interval_seconds": 1}
        api = ApiClient(app_key, app_secret, "us", port=80, **kwargs)
        api.add_endpoint("us", f"{host}:{port}")
    api.set_stream_logger(stream=sys.stderr)
    # The token file goes to a throwaway directory, not ./conf.
    api.set_token_dir(tempfile.mkdtemp(prefix="signet-token-"))

    if scenario == "screeners":
        print(json.dumps(screeners(api)))
        return
    if scenario == "orders":
        print(json.dumps(orders(api)))
        return
    if scenario == "unhappy":
        retrying = ApiClient(app_key, app_secret, "us", port=80, auto_retry=True)
        retrying.add_endpoint("us", f"{host}:{port}")
        retrying.set_token_dir(tempfile.mkdtemp(prefix="signet-token-"))
        retrying.set_stream_logger(stream=sys.stderr)
        # What the client logs about the faults it meets is kept off this script's one line.
        with contextlib.redirect_stdout(sys.stderr):
            out = unhappy(api, retrying)
        print(json.dumps(out))
        return
    if scenario == "watchlists":
        print(json.dumps(watchlists(api)))
        return
    if scenario == "fundamentals":
        print(json.dumps(fundamentals(api)))
        return
    if scenario == "legacy":
        print(json.dumps(legacy(api)))
        return
    if scenario == "streaming":
        print(json.dumps(streaming(host, port, app_key, app_secret)))
        return
    if scenario == "revoked":
        # As for "events": what the events client prints is kept off this script's lines.
        lines = sys.stdout
        with contextlib.redirect_stdout(sys.stderr):
            out = revoked(api, host, port, app_key, app_secret, lines)
        print(json.dumps(out))
        return
    if scenario == "events":
        # The events client prints its request, signature and metadata on stdout: kept off the
        # one JSON object this script answers with.
        with contextlib.redirect_stdout(sys.stderr):
            out = events(api, host, port, app_key, app_secret)
        print(json.dumps(out))
        return
    if scenario == "events-ended":
        with contextlib.redirect_stdout(sys.stderr):
            out = events_ended(api, host, port, app_key, app_secret)
        print(json.dumps(out))
        return
    if scenario == "quotes":
        print(json.dumps(quotes(api)))
        return
    if scenario == "options":
        print(json.dumps(options(api)))
        return
    if scenario == "option-buy":
        print(json.dumps(option_buy(api)))
        return
    if scenario == "option-held":
        print(json.dumps(option_held(api)))
        return
    if scenario == "option-spread":
        print(json.dumps(option_spread(api)))
        return
    if scenario == "option-spread-held":
        print(json.dumps(option_spread_held(api)))
        return
    if scenario == "companions-buy":
        print(json.dumps(companions_buy(api)))
        return
    if scenario == "companions":
        print(json.dumps(companions(api)))
        return
    if scenario == "sweep":
        print(json.dumps(sweep(api)))
        return
    if scenario == "dividend":
        print(json.dumps(dividend(api)))
        return
    if scenario == "v1-place":
        print(json.dumps(v1_place(api)))
        return
    if scenario == "v1":
        print(json.dumps(v1(api)))
        return
    trade = TradeClient(api)  # GET /openapi/config (+ token create and check)
    response = trade.account_v2.get_account_list()
    out = {"status": response.status_code, "accounts": response.json()}
    if scenario == "accounts":
        # A refusal reaches the caller as the client's ServerException with our error code.
        from webull.core.exception.exceptions import ServerException

        bad = ApiClient(app_key, "wrong-secret", "us", port=80)
        bad.add_endpoint("us", f"{host}:{port}")
        bad.set_stream_logger(stream=sys.stderr)
        try:
            TradeClient(bad)
            out["refusal"] = None
        except ServerException as e:
            out["refusal"] = {"http_status": e.http_status, "error_code": e.error_code, "request_id": e.request_id}
    print(json.dumps(out))


def orders(api):
    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[1]["account_id"]  # the MARGIN account
    o = trade.order_v3
    limit = {
        "client_order_id": "pyLimit1", "combo_type": "NORMAL", "symbol": "AAPL", "instrument_type": "EQUITY",
        "market": "US", "order_type": "LIMIT", "quantity": "2", "limit_price": "100", "side": "BUY",
        "time_in_force": "GTC", "entrust_type": "QTY", "support_trading_session": "CORE",
    }
    market = dict(limit, client_order_id="pyMarket1", order_type="MARKET", time_in_force="DAY")
    del market["limit_price"]
    out = {"account_id": account_id}
    out["preview"] = o.preview_order(account_id, [dict(limit, client_order_id="pyPreview")]).json()
    out["place"] = o.place_order(account_id, [limit]).json()
    out["detail"] = o.get_order_detail(account_id, "pyLimit1").json()
    out["open"] = o.list_order_open(account_id).json()
    modify = [{"client_order_id": "pyLimit1", "quantity": "3", "limit_price": "101"}]
    out["replace"] = o.replace_order(account_id, modify).json()
    out["replaced"] = o.get_order_detail(account_id, "pyLimit1").json()
    out["cancel"] = o.cancel_order(account_id, "pyLimit1").json()
    out["market"] = o.place_order(account_id, [market]).json()
    out["history"] = o.list_order_history(account_id).json()
    # An OTOCO bracket: the exits work once the entry has filled.
    entry = dict(limit, client_order_id="pyEntry", combo_type="MASTER", limit_price="90")
    profit = dict(limit, client_order_id="pyProfit", combo_type="STOP_PROFIT", side="SELL", limit_price="120")
    loss = dict(limit, client_order_id="pyLoss", combo_type="STOP_LOSS", side="SELL", order_type="STOP_LOSS",
                stop_price="80")
    del loss["limit_price"]
    bracket = [entry, profit, loss]
    out["bracket_preview"] = o.preview_order(account_id, bracket, client_combo_order_id="pyBracket1").json()
    out["bracket"] = o.place_order(account_id, bracket, client_combo_order_id="pyBracket1").json()
    out["bracket_leg"] = o.get_order_detail(account_id, "pyLoss").json()
    return out


def unhappy(api, retrying):
    """The scenario rules' outcomes as the client meets them, without and with its retries."""
    from webull.core.exception.exceptions import ClientException, ServerException

    trade, again = TradeClient(api), TradeClient(retrying)
    # A GET is retried (the client's RetryableMethods), each attempt signed anew: the fault the
    # first attempt meets is not seen.
    account_id = again.account_v2.get_account_list().json()[1]["account_id"]
    order = {
        "combo_type": "NORMAL", "symbol": "AAPL", "instrument_type": "EQUITY", "market": "US",
        "order_type": "MARKET", "quantity": "1", "side": "BUY", "time_in_force": "DAY",
        "entrust_type": "QTY", "support_trading_session": "CORE",
    }

    def attempt(client, client_order_id):
        try:
            return {"placed": client.order_v3.place_order(account_id, [dict(order, client_order_id=client_order_id)]).json()}
        except ServerException as e:
            return {"status": e.get_http_status(), "code": e.get_error_code()}
        except ClientException as e:
            return {"client_error": e.get_error_code()}

    out = {}
    out["flaky"] = attempt(trade, "flaky-1")
    # A placement (a POST) is never retried, auto_retry or not: the bot sees the fault.
    out["flaky_retrying"] = attempt(again, "flaky-2")
    out["lost"] = attempt(trade, "lost-1")
    out["lost_found"] = trade.order_v3.get_order_detail(account_id, "lost-1").json()
    out["lost_retrying"] = attempt(again, "lost-2")
    out["lost_retrying_found"] = trade.order_v3.get_order_detail(account_id, "lost-2").json()
    return out


def streaming(host, port, app_key, app_secret):
    import threading
    import uuid

    from webull.data.data_streaming_client import DataStreamingClient

    mqtt_port = int(os.environ["SIGNET_MQTT_PORT"])
    # The client's own default, which main() changed: with "http" the client would append its
    # port (443) to http_host; with "https" an endpoint written with a scheme is used as it is.
    wreq.set_default_protocol_type("https")

    def streaming_client(key, session_id):
        client = DataStreamingClient(key, app_secret, "us", session_id, http_host=f"http://{host}:{port}",
                                     mqtt_host=host, mqtt_port=mqtt_port, tls_enable=False)
        client.set_token_dir(tempfile.mkdtemp(prefix="signet-token-"))
        client.set_stream_logger(stream=sys.stderr)
        return client

    session_id = uuid.uuid4().hex
    client = streaming_client(app_key, session_id)
    received = {}  # the first message of each (symbol, topic), as "SYMBOL topic"
    later = []  # (symbol, topic, price) of every message after the unsubscribe
    unsubscribed = threading.Event()
    changed = threading.Condition()
    subscribed = []
    connections = set()  # the connections messages came on: 1, then 2 after the reconnection

    def on_connect_success(c, _api_client, sid):
        c.subscribe(["AAPL", "MSFT"], "US_STOCK", ["SNAPSHOT", "QUOTE", "TICK"])

    def on_subscribe_success(_c, _api_client, sid):
        subscribed.append(sid)

    def on_quotes_message(_c, topic, decoded):
        # Called on the client's thread, after on_subscribe_success of the connection it came on.
        connections.add(len(subscribed))
        symbol = decoded.basic.symbol
        basic = {"symbol": symbol, "timestamp": decoded.basic.timestamp}
        if topic == "snapshot":
            first = dict(basic, price=str(decoded.price), pre_close=str(decoded.pre_close),
                         last_trade_time=decoded.last_trade_time)
        elif topic == "quote":
            first = dict(basic, bid=str(decoded.bids[0].price), ask=str(decoded.asks[0].price),
                         levels=len(decoded.bids))
        else:
            first = dict(basic, time=decoded.time, price=str(decoded.price))
        with changed:
            received.setdefault(f"{symbol} {topic}", first)
            if unsubscribed.is_set():
                later.append((symbol, topic, first.get("price")))
            changed.notify_all()

    def wait_for(what, timeout):
        with changed:
            if not changed.wait_for(what, timeout):
                raise AssertionError(f"not within {timeout} s: {received} {later}")

    client.on_connect_success = on_connect_success
    client.on_subscribe_success = on_subscribe_success
    client.on_quotes_message = on_quotes_message
    started = time.time()
    thread = threading.Thread(target=client.connect_and_loop_forever, kwargs={"logger_enable": False},
                              daemon=True)
    thread.start()
    wait_for(lambda: len(received) == 6, 10)
    seconds = time.time() - started
    client.unsubscribe(symbols=["MSFT"], category="US_STOCK")
    unsubscribed.set()
    # The test reads this line, steps the market and pins AAPL's price, then answers on stdin.
    print(json.dumps({"received": received, "seconds": round(seconds, 3)}), flush=True)
    pinned = sys.stdin.readline().strip()
    wait_for(lambda: ("AAPL", "snapshot", pinned) in later, 15)
    with changed:
        unsubscribed_later = list(later)  # the reconnection subscribes MSFT again

    # The connection drops: the client reconnects with the same session id and password after
    # its 10 s, subscribes again in on_connect_success (which binds the session again) and
    # receives.
    import socket

    dropped = time.time()
    client.socket().shutdown(socket.SHUT_RDWR)
    wait_for(lambda: 2 in connections, 20)
    reconnected = round(time.time() - dropped, 3)

    # The MQTT half alone (the client's own connect and loop, which connect_and_loop_forever
    # runs after its start-up call): the CONNACK code it is refused with, and whether its retry
    # policy would retry it.
    from webull.core.retry.retry_condition import RetryCondition
    from webull.data.internal.default_retry_policy import QuotesRetryPolicyContext
    from webull.data.internal.exceptions import ConnectException

    def refusal(refused):
        try:
            refused._quotes_connect(host, mqtt_port)
            refused.loop_forever(1)
        except ConnectException as e:
            context = QuotesRetryPolicyContext(None, 0, e.error_code)
            return {"connack": e.error_code,
                    "retried": not (refused._retry_policy.should_retry(context) & RetryCondition.NO_RETRY)}
        return {}

    # A second session of the app while the server allows one (the test sets the limit to 1).
    crowded = refusal(streaming_client(app_key, uuid.uuid4().hex))
    time.sleep(0.5)
    client.disconnect()
    thread.join(5)

    # An unknown app key. The whole loop stops at its first call, the signed start-up GET
    # /openapi/config; the MQTT half alone is refused at CONNECT.
    refused = streaming_client("no-such-app-key", uuid.uuid4().hex)
    refused.on_connect_success = on_connect_success
    outcome = {}
    try:
        refused.connect_and_loop_forever(logger_enable=False)
    except Exception as e:  # noqa: BLE001: what the client raises is the answer
        outcome["loop_exception"] = type(e).__name__
    outcome.update(refusal(refused))
    return {"session_id": session_id, "subscribed": subscribed, "later": unsubscribed_later, "refused": outcome,
            "crowded": crowded, "reconnected_seconds": reconnected}


def revoked(api, host, port, app_key, app_secret, lines):
    import grpc
    import threading
    import uuid

    from webull.data.data_streaming_client import DataStreamingClient
    from webull.data.internal.exceptions import ConnectException
    from webull.trade.trade_events_client import TradeEventsClient

    account_id = TradeClient(api).account_v2.get_account_list().json()[0]["account_id"]
    mqtt_port = int(os.environ["SIGNET_MQTT_PORT"])
    ready = {"events": threading.Event(), "streaming": threading.Event()}
    ended = {}  # what ended each client, and when
    disconnected = []

    events = TradeEventsClient(app_key, app_secret, "us", host=host, port=port, tls_enable=False)
    events_logs = []
    events.on_connect = lambda *_: ready["events"].set()
    events.on_events_message = lambda *_: None
    events.on_log = lambda level, text: events_logs.append((level, text))

    def run_events():
        try:
            events.do_subscribe([account_id])
            ended["events"] = {"returned": True}
        except grpc.RpcError as e:
            ended["events"] = {"code": e.code().name}
        ended["events"]["at"] = time.time()

    wreq.set_default_protocol_type("https")  # as in streaming(): http_host keeps its scheme
    streaming = DataStreamingClient(app_key, app_secret, "us", uuid.uuid4().hex, http_host=f"http://{host}:{port}",
                                    mqtt_host=host, mqtt_port=mqtt_port, tls_enable=False)
    streaming.set_token_dir(tempfile.mkdtemp(prefix="signet-token-"))
    streaming.set_stream_logger(stream=sys.stderr)
    streaming.on_connect_success = lambda c, _api, _sid: c.subscribe(["AAPL"], "US_STOCK", ["SNAPSHOT"])
    streaming.on_subscribe_success = lambda *_: ready["streaming"].set()
    streaming.on_quotes_message = lambda *_: None
    streaming.on_disconnect = lambda *_: disconnected.append(time.time())

    def run_streaming():
        try:
            streaming.connect_and_loop_forever(logger_enable=False)
            ended["streaming"] = {"returned": True}
        except ConnectException as e:
            ended["streaming"] = {"connack": e.error_code}
        except Exception as e:  # noqa: BLE001: what the client raises is the answer
            ended["streaming"] = {"exception": type(e).__name__}
        ended["streaming"]["at"] = time.time()

    threads = [threading.Thread(target=run, daemon=True) for run in (run_events, run_streaming)]
    for thread in threads:
        thread.start()
    for name, event in ready.items():
        if not event.wait(10):
            raise AssertionError(f"{name} not subscribed within 10 s")
    print(json.dumps({"ready": True}), file=lines, flush=True)
    sys.stdin.readline()
    revoked_at = time.time()
    for thread in threads:
        thread.join(30)
    out = {name: dict(how, seconds=round(how.pop("at") - revoked_at, 3)) for name, how in ended.items()}
    out["streaming_disconnected_seconds"] = [round(t - revoked_at, 3) for t in disconnected]
    out["events_fatal_logs"] = [text for level, text in events_logs if level >= logging.CRITICAL]
    return out


def events_ended(api, host, port, app_key, app_secret):
    """A trade-events subscription that a scenario rule ends after its first event: the client
    subscribes again as its retry policy says (UNAVAILABLE is retried, 5 s later) and receives
    the next event."""
    import threading
    import time

    from webull.trade.trade_events_client import TradeEventsClient

    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]
    changed = threading.Condition()
    connects, orders = [], []
    client = TradeEventsClient(app_key, app_secret, "us", host=host, port=port, tls_enable=False)

    def on_connect(*_):
        with changed:
            connects.append(time.time())
            changed.notify_all()

    def on_events_message(event_type, _subscribe_type, payload, _response):
        with changed:
            if event_type == 1024:
                orders.append(payload.get("client_order_id"))
            changed.notify_all()

    client.on_connect = on_connect
    client.on_events_message = on_events_message
    threading.Thread(target=client.do_subscribe, args=([account_id],), daemon=True).start()

    def wait_until(done, timeout, what):
        with changed:
            if not changed.wait_for(done, timeout):
                raise AssertionError(f"{what} within {timeout} s: {connects} {orders}")

    resting = {
        "combo_type": "NORMAL", "symbol": "AAPL", "instrument_type": "EQUITY", "market": "US",
        "order_type": "LIMIT", "limit_price": "1.00", "quantity": "1", "side": "BUY",
        "time_in_force": "GTC", "entrust_type": "QTY", "support_trading_session": "CORE",
    }
    wait_until(lambda: len(connects) == 1, 10, "no SubscribeSuccess")
    trade.order_v3.place_order(account_id, [dict(resting, client_order_id="pyEnd1")])
    wait_until(lambda: len(connects) == 2, 15, "no second subscription")
    trade.order_v3.place_order(account_id, [dict(resting, client_order_id="pyEnd2")])
    wait_until(lambda: "pyEnd2" in orders, 10, "no event of the second order")
    return {"orders": orders, "connects": len(connects), "resubscribed_after": connects[1] - connects[0]}


def events(api, host, port, app_key, app_secret):
    import threading
    import time

    import grpc
    from webull.trade.trade_events_client import TradeEventsClient

    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]  # the CASH account
    received = []
    changed = threading.Condition()
    connected = threading.Event()
    client = TradeEventsClient(app_key, app_secret, "us", host=host, port=port, tls_enable=False)
    client.on_connect = lambda *_: connected.set()

    def on_events_message(event_type, subscribe_type, payload, _response):
        with changed:
            received.append({"event_type": event_type, "subscribe_type": subscribe_type, "payload": payload})
            changed.notify_all()

    client.on_events_message = on_events_message
    threading.Thread(target=client.do_subscribe, args=([account_id],), daemon=True).start()
    if not connected.wait(10):
        raise AssertionError("no SubscribeSuccess within 10 s")

    def wait_for(client_order_id, scenes, timeout=15.0, event_type=1024):
        deadline = time.time() + timeout
        with changed:
            while True:
                for event in received:
                    payload = event["payload"]
                    if (
                        event["event_type"] == event_type
                        and payload.get("client_order_id") == client_order_id
                        and (scenes is None or payload.get("scene_type") in scenes)
                    ):
                        return event
                left = deadline - time.time()
                if left <= 0:
                    raise AssertionError(f"no {scenes} event of {client_order_id} within {timeout} s: {received}")
                changed.wait(left)

    o = trade.order_v3
    market = {
        "client_order_id": "pyEvtBuy", "combo_type": "NORMAL", "symbol": "AAPL", "instrument_type": "EQUITY",
        "market": "US", "order_type": "MARKET", "quantity": "10", "side": "BUY", "time_in_force": "DAY",
        "entrust_type": "QTY", "support_trading_session": "CORE",
    }
    placed_at = time.time()
    o.place_order(account_id, [market])
    fill = wait_for("pyEvtBuy", ("FILLED", "FINAL_FILLED"))
    fill_seconds = time.time() - placed_at
    # The client asks for every subscribe type (7): the fill's position event follows.
    position = wait_for("pyEvtBuy", None, event_type=1028)
    positions = trade.account_v2.get_account_position(account_id).json()
    limit = dict(market, client_order_id="pyEvtRest", order_type="LIMIT", limit_price="300", time_in_force="GTC")
    o.place_order(account_id, [limit])
    o.cancel_order(account_id, "pyEvtRest")
    cancel = wait_for("pyEvtRest", ("CANCEL_SUCCESS",))

    bad = TradeEventsClient(app_key, "wrong-secret", "us", host=host, port=port, tls_enable=False)
    bad_events, bad_logs = [], []
    bad.on_events_message = lambda *args: bad_events.append(args)
    bad.on_log = lambda level, text: bad_logs.append((level, text))
    refused = None
    try:
        bad.do_subscribe([account_id])
    except grpc.RpcError as e:
        refused = {"code": e.code().name, "details": e.details()}
    auth_errors = [text for level, text in bad_logs if level >= logging.CRITICAL]
    other_refused = None
    other_account = os.environ.get("SIGNET_OTHER_ACCOUNT")
    if other_account:
        theirs = TradeEventsClient(app_key, app_secret, "us", host=host, port=port, tls_enable=False)
        try:
            theirs.do_subscribe([other_account])
        except grpc.RpcError as e:
            other_refused = {"code": e.code().name, "details": e.details()}
    return {
        "account_id": account_id,
        "fill": fill,
        "fill_seconds": fill_seconds,
        "position": position,
        "positions": positions,
        "cancel": cancel,
        "refused": refused,
        "refused_events": len(bad_events),
        "refused_fatal_logs": auth_errors,
        "other_account_refused": other_refused,
    }


def option_order(cid, side, quantity, limit=None, strike="450"):
    """A single-leg order of AAPL's 2013-03-15 call, as Webull's options guide shows it."""
    order = {
        "client_order_id": cid, "combo_type": "NORMAL", "order_type": "MARKET", "quantity": quantity,
        "option_strategy": "SINGLE", "side": side, "time_in_force": "DAY", "entrust_type": "QTY",
        "instrument_type": "OPTION", "market": "US", "symbol": "AAPL",
        "legs": [{"side": side, "quantity": quantity, "symbol": "AAPL", "strike_price": strike,
                  "option_expire_date": "2013-03-15", "instrument_type": "OPTION", "option_type": "CALL",
                  "market": "US"}],
    }
    if limit:
        order.update({"order_type": "LIMIT", "limit_price": limit})
    return order


def option_buy(api):
    from webull.data.data_client import DataClient

    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]
    snapshot = DataClient(api).option_market_data.get_option_snapshot(["AAPL130315C00450000"], "US_OPTION").json()
    ask = snapshot[0]["ask"]
    preview = trade.order_v2.preview_option(account_id, [option_order("pyOpt1", "BUY", "1")])
    market = trade.order_v2.place_option(account_id, [option_order("pyOpt1", "BUY", "1")])
    limit = trade.order_v3.place_order(account_id, [option_order("pyOpt2", "BUY", "1", limit=ask)])
    return {
        "account_id": account_id, "ask": ask,
        "preview": {"status": preview.status_code, "body": preview.json()},
        "market": {"status": market.status_code, "body": market.json()},
        "limit": {"status": limit.status_code, "body": limit.json()},
    }


def option_held(api):
    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]
    out = {
        "balance": trade.account_v2.get_account_balance(account_id).json(),
        "positions": trade.account_v2.get_account_position(account_id).json(),
        "market": trade.order_v3.get_order_detail(account_id, "pyOpt1").json(),
        "limit": trade.order_v3.get_order_detail(account_id, "pyOpt2").json(),
    }
    out["sell"] = trade.order_v2.place_option(account_id, [option_order("pyOpt3", "SELL", "2")]).json()
    return out


def margin_account(trade):
    accounts = trade.account_v2.get_account_list().json()
    return next(a["account_id"] for a in accounts if a.get("account_type") == "MARGIN")


def option_spread(api):
    trade = TradeClient(api)
    account_id = margin_account(trade)

    def leg(side, strike):
        return {"side": side, "quantity": "2", "symbol": "AAPL", "strike_price": strike,
                "option_expire_date": "2013-03-15", "instrument_type": "OPTION", "option_type": "CALL",
                "market": "US"}

    order = {
        "client_order_id": "pySpread", "combo_type": "NORMAL", "option_strategy": "VERTICAL", "side": "BUY",
        "order_type": "MARKET", "quantity": "2", "time_in_force": "DAY", "entrust_type": "QTY",
        "instrument_type": "OPTION", "market": "US", "symbol": "AAPL", "legs": [leg("BUY", "450"), leg("SELL", "460")],
    }
    preview = trade.order_v3.preview_order(account_id, [order])
    place = trade.order_v3.place_order(account_id, [order])
    # A second one resting at a net of 0.50, replaced (3 units through a leg's quantity, a
    # lower net), then cancelled.
    resting = dict(order, client_order_id="pySpreadRest", order_type="LIMIT", limit_price="0.50")
    rest = trade.order_v3.place_order(account_id, [resting])
    leg_id = trade.order_v3.get_order_detail(account_id, "pySpreadRest").json()["orders"][0]["legs"][1]["id"]
    modify = {"client_order_id": "pySpreadRest", "limit_price": "0.40", "legs": [{"id": leg_id, "quantity": "3"}]}
    replace = trade.order_v3.replace_order(account_id, [modify])
    replaced = trade.order_v3.get_order_detail(account_id, "pySpreadRest").json()["orders"][0]
    cancel = trade.order_v3.cancel_order(account_id, "pySpreadRest")
    # A buy-write resting at a net of 100.00 a share: 100 shares bought, the 460 call sold.
    shares = {"side": "BUY", "quantity": "100", "symbol": "AAPL", "instrument_type": "EQUITY", "market": "US"}
    call = dict(leg("SELL", "460"), quantity="1")
    buy_write = dict(order, client_order_id="pyBuyWrite", option_strategy="COVERED_STOCK", quantity="1",
                     order_type="LIMIT", limit_price="100.00", legs=[shares, call])
    covered = trade.order_v3.place_order(account_id, [buy_write])
    covered_detail = trade.order_v3.get_order_detail(account_id, "pyBuyWrite").json()["orders"][0]
    trade.order_v3.cancel_order(account_id, "pyBuyWrite")
    return {
        "covered": {"status": covered.status_code, "body": covered.json()},
        "covered_legs": [[leg["instrument_type"], leg["quantity"]] for leg in covered_detail["legs"]],
        "account_id": account_id,
        "preview": {"status": preview.status_code, "body": preview.json()},
        "place": {"status": place.status_code, "body": place.json()},
        "rest": {"status": rest.status_code, "body": rest.json()},
        "replace": {"status": replace.status_code, "body": replace.json()},
        "replaced": {"total_quantity": replaced["total_quantity"], "limit_price": replaced["limit_price"],
                     "legs": [leg["quantity"] for leg in replaced["legs"]]},
        "cancel": {"status": cancel.status_code, "body": cancel.json()},
    }


def option_spread_held(api):
    trade = TradeClient(api)
    account_id = margin_account(trade)
    return {
        "detail": trade.order_v3.get_order_detail(account_id, "pySpread").json(),
        "executions": trade.order_v3.list_order_executions(account_id, client_order_id="pySpread").json(),
        "positions": trade.account_v2.get_account_position(account_id).json(),
    }


def companions_buy(api):
    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]  # the CASH account
    market = {
        "client_order_id": "pyBuy10", "combo_type": "NORMAL", "symbol": "AAPL", "instrument_type": "EQUITY",
        "market": "US", "order_type": "MARKET", "quantity": "10", "side": "BUY", "time_in_force": "DAY",
        "entrust_type": "QTY", "support_trading_session": "CORE",
    }
    return {"account_id": account_id, "place": trade.order_v3.place_order(account_id, [market]).json()}


def companions(api):
    from webull.data.data_client import DataClient

    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]
    out = {"account_id": account_id}
    out["balance"] = trade.account_v2.get_account_balance(account_id).json()
    out["positions"] = trade.account_v2.get_account_position(account_id).json()
    held = out["positions"][0]["instrument_id"]
    out["position_detail"] = trade.account_v2.list_position_details(account_id, held).json()
    out["executions"] = trade.order_v3.list_order_executions(account_id).json()
    out["executions_of_order"] = trade.order_v3.list_order_executions(account_id, client_order_id="pyBuy10").json()
    instrument = DataClient(api).instrument
    out["instruments"] = instrument.list_instruments(symbols=["AAPL", "MSFT"]).json()
    out["all_instruments"] = instrument.list_instruments().json()
    market_data = DataClient(api).market_data
    out["eod"] = market_data.get_eod_bar(held, date="2013-02-22", count="2").json()
    out["corp_actions"] = market_data.get_corp_action(held, "SPLIT").json()
    return out


def dividend(api):
    from webull.data.data_client import DataClient

    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]
    out = {"account_id": account_id}
    out["activities"] = trade.activity.list_activities(account_id, activity_types="DIVIDEND").json()
    out["positions"] = trade.account_v2.get_account_position(account_id).json()
    held = out["positions"][0]["instrument_id"]
    market_data = DataClient(api).market_data
    out["corp_actions"] = market_data.get_corp_action(held, "DIVIDEND", start_date="2012-08-09",
                                                      end_date="2012-08-09").json()
    return out


def v1_place(api):
    from webull.data.data_client import DataClient

    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]  # the CASH account
    aapl = DataClient(api).instrument.list_instruments(symbols=["AAPL"]).json()["data"][0]["instrument_id"]
    o = trade.order
    out = {"account_id": account_id, "instrument_id": aapl}
    out["market"] = o.place_order(account_id, "10", aapl, "BUY", "pyV1Buy", "MARKET", False, "DAY").json()
    limit = {
        "client_order_id": "pyV1Rest", "instrument_id": aapl, "qty": "5", "side": "BUY", "tif": "DAY",
        "extended_hours_trading": False, "order_type": "LIMIT", "limit_price": "390",
    }
    out["limit"] = o.place_order_v2(account_id, limit).json()
    out["replace"] = o.replace_order(account_id, "6", aapl, "BUY", "pyV1Rest", "LIMIT", False, "DAY",
                                     limit_price="391").json()
    out["replace_v2"] = o.replace_order_v2(account_id, dict(limit, qty="7", limit_price="392")).json()
    return out


def v1(api):
    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[0]["account_id"]
    o = trade.order
    out = {"account_id": account_id}
    out["detail"] = o.query_order_detail(account_id, "pyV1Buy").json()
    out["resting"] = o.query_order_detail(account_id, "pyV1Rest").json()
    out["today"] = o.list_today_orders(account_id).json()
    out["open"] = o.list_open_orders(account_id, page_size=1).json()
    out["balance"] = trade.account.get_account_balance(account_id, "USD").json()
    out["balance_v3"] = trade.account_v2.get_account_balance(account_id).json()
    out["positions"] = trade.account.get_account_position(account_id).json()
    out["profile"] = trade.account.get_account_profile(account_id).json()
    out["cancel"] = o.cancel_order(account_id, "pyV1Rest").json()
    out["open_after"] = o.list_open_orders(account_id).json()
    out["calendar"] = trade.trade_calendar.get_trade_calendar("US", "2013-03-25", "2013-04-05").json()
    ti = trade.trade_instrument
    aapl = out["detail"]["items"][0]["instrument_id"]
    out["instrument"] = ti.get_trade_instrument_detail(aapl).json()
    out["security"] = ti.get_trade_security_detail("AAPL", "US", "EQUITY", "STOCK", None, None).json()
    out["tradable"] = ti.get_tradeable_instruments(page_size=3).json()
    from webull.core.exception.exceptions import ServerException
    from webull.trade.common.transfer_activities_param import TransferActivitiesParam

    activity = trade.activity
    out["activities"] = activity.list_activities(account_id, activity_types="DEPOSIT,TRADE").json()
    out["transfers"] = activity.list_transfers_activities(TransferActivitiesParam(account_id)).json()
    try:
        activity.get_transfer_activity_detail(account_id, "T1")
        out["transfer"] = None
    except ServerException as e:
        out["transfer"] = {"http_status": e.http_status, "error_code": e.error_code}
    return out


def sweep(api):
    import inspect

    from webull.core.exception.exceptions import ServerException
    from webull.data.data_client import DataClient
    from webull.trade.common.transfer_activities_param import TransferActivitiesParam

    trade = TradeClient(api)
    accounts = trade.account_v2.get_account_list().json()
    cash = accounts[0]["account_id"]
    aapl = DataClient(api).instrument.list_instruments(symbols=["AAPL"]).json()["data"][0]["instrument_id"]

    def new(cid, limit="100"):
        return {
            "client_order_id": cid, "combo_type": "NORMAL", "symbol": "AAPL", "instrument_type": "EQUITY",
            "market": "US", "order_type": "LIMIT", "limit_price": limit, "quantity": "1", "side": "BUY",
            "time_in_force": "DAY", "entrust_type": "QTY", "support_trading_session": "CORE",
        }

    def stock(cid, qty="1", limit="100"):
        return {"client_order_id": cid, "instrument_id": aapl, "qty": qty, "side": "BUY", "tif": "DAY",
                "extended_hours_trading": False, "order_type": "LIMIT", "limit_price": limit}

    a, a2, o, o2, o3 = trade.account, trade.account_v2, trade.order, trade.order_v2, trade.order_v3
    act, ti, cal = trade.activity, trade.trade_instrument, trade.trade_calendar
    calls = [
        ("account.get_app_subscriptions", lambda: a.get_app_subscriptions()),
        ("account.get_account_profile", lambda: a.get_account_profile(cash)),
        ("account.get_account_balance", lambda: a.get_account_balance(cash, "USD")),
        ("account.get_account_position", lambda: a.get_account_position(cash)),
        ("account_v2.get_account_list", lambda: a2.get_account_list()),
        ("account_v2.get_account_balance", lambda: a2.get_account_balance(cash)),
        ("account_v2.get_account_position", lambda: a2.get_account_position(cash)),
        ("account_v2.get_account_position_details", lambda: a2.get_account_position_details(cash, aapl)),
        ("account_v2.list_position_details", lambda: a2.list_position_details(cash, aapl)),
        ("order.place_order", lambda: o.place_order(cash, "1", aapl, "BUY", "sw1", "LIMIT", False, "DAY", limit_price="100")),
        ("order.place_order_v2", lambda: o.place_order_v2(cash, stock("sw2"))),
        ("order.replace_order", lambda: o.replace_order(cash, "2", aapl, "BUY", "sw1", "LIMIT", False, "DAY", limit_price="101")),
        ("order.replace_order_v2", lambda: o.replace_order_v2(cash, stock("sw2", qty="2"))),
        ("order.query_order_detail", lambda: o.query_order_detail(cash, "sw1")),
        ("order.list_open_orders", lambda: o.list_open_orders(cash)),
        ("order.list_today_orders", lambda: o.list_today_orders(cash)),
        ("order.cancel_order", lambda: o.cancel_order(cash, "sw1")),
        ("order_v2.preview_order", lambda: o2.preview_order(cash, [new("sw3")])),
        ("order_v2.place_order", lambda: o2.place_order(cash, [new("sw3")])),
        ("order_v2.replace_order", lambda: o2.replace_order(cash, [{"client_order_id": "sw3", "quantity": "2"}])),
        ("order_v2.get_order_detail", lambda: o2.get_order_detail(cash, "sw3")),
        ("order_v2.query_order_detail", lambda: o2.query_order_detail(cash, "sw3")),
        ("order_v2.get_order_open", lambda: o2.get_order_open(cash)),
        ("order_v2.get_order_history", lambda: o2.get_order_history(cash)),
        ("order_v2.get_order_history_request", lambda: o2.get_order_history_request(cash)),
        ("order_v2.cancel_order", lambda: o2.cancel_order(cash, "sw3")),
        ("order_v2.cancel_order_v2", lambda: o2.cancel_order_v2(cash, "sw2")),
        ("order_v3.preview_order", lambda: o3.preview_order(cash, [new("sw4")])),
        ("order_v3.place_order", lambda: o3.place_order(cash, [new("sw4")])),
        ("order_v3.batch_place_order", lambda: o3.batch_place_order(cash, [new("sw5"), new("sw6")])),
        ("order_v3.replace_order", lambda: o3.replace_order(cash, [{"client_order_id": "sw4", "quantity": "2"}])),
        ("order_v3.get_order_detail", lambda: o3.get_order_detail(cash, "sw4")),
        ("order_v3.get_order_open", lambda: o3.get_order_open(cash)),
        ("order_v3.list_order_open", lambda: o3.list_order_open(cash)),
        ("order_v3.get_order_history", lambda: o3.get_order_history(cash)),
        ("order_v3.list_order_history", lambda: o3.list_order_history(cash)),
        ("order_v3.get_order_executions", lambda: o3.get_order_executions(cash)),
        ("order_v3.list_order_executions", lambda: o3.list_order_executions(cash)),
        ("order_v3.cancel_order", lambda: o3.cancel_order(cash, "sw4")),
        # Option orders resting far below the market: a bid of 1.00 for a call worth about 15.
        ("order.preview_option", lambda: o.preview_option(cash, [option_order("swo1", "BUY", "1", "1.00")])),
        ("order_v2.preview_option", lambda: o2.preview_option(cash, [option_order("swo1", "BUY", "1", "1.00")])),
        ("order_v2.place_option", lambda: [o2.place_option(cash, [option_order(c, "BUY", "1", "1.00")]) for c in ("swo2", "swo1")][-1]),
        ("order.replace_option", lambda: o.replace_option(cash, [{"client_order_id": "swo1", "limit_price": "1.05"}])),
        ("order_v2.replace_option", lambda: o2.replace_option(cash, [{"client_order_id": "swo2", "quantity": "2"}])),
        ("order.cancel_option", lambda: o.cancel_option(cash, "swo1")),
        ("order_v2.cancel_option", lambda: o2.cancel_option(cash, "swo2")),
        ("activity.get_activities", lambda: act.get_activities(cash)),
        ("activity.list_activities", lambda: act.list_activities(cash)),
        ("activity.list_transfers_activities", lambda: act.list_transfers_activities(TransferActivitiesParam(cash))),
        ("activity.get_transfer_activity_detail", lambda: act.get_transfer_activity_detail(cash, "T1")),
        ("trade_instrument.get_trade_instrument_detail", lambda: ti.get_trade_instrument_detail(aapl)),
        ("trade_instrument.get_trade_security_detail", lambda: ti.get_trade_security_detail("AAPL", "US", "EQUITY", "STOCK", None, None)),
        ("trade_instrument.get_tradeable_instruments", lambda: ti.get_tradeable_instruments()),
        ("trade_calendar.get_trade_calendar", lambda: cal.get_trade_calendar("US", "2013-03-25", "2013-04-05")),
    ]
    answers = {}
    for name, call in calls:
        try:
            response = call()
            answers[name] = {"status": response.status_code}
        except ServerException as e:
            answers[name] = {"status": e.http_status, "error_code": e.error_code}
    # Every public method of the client's parts: those the table leaves out, but the two that only
    # set headers and `order.place_option`, which fails in the client itself (it calls a method
    # its request class lacks, `add_custom_headers_from_context`) before sending anything.
    parts = {"account": a, "account_v2": a2, "order": o, "order_v2": o2, "order_v3": o3,
             "activity": act, "trade_instrument": ti, "trade_calendar": cal}
    listed = {name for name, _ in calls}
    left_out = []
    for part, obj in parts.items():
        for method, _ in inspect.getmembers(obj, inspect.ismethod):
            name = f"{part}.{method}"
            if method.startswith("_") or name == "order.place_option" or "custom_headers" in method:
                continue
            if name not in listed:
                left_out.append(name)
    return {"answers": answers, "left_out": left_out}


def watchlists(api):
    from webull.data.data_client import DataClient

    w = DataClient(api).watchlist
    out = {}
    created = w.create_watchlist(name="Tech 股票 <&>", sort=1).json()
    out["create"] = created
    wid = created["watchlist_id"]
    out["update"] = w.update_watchlist(wid, name="Tech", sort=7).json()
    out["list"] = w.get_watchlist().json()
    stocks = [{"symbol": "AAPL", "category": "US_STOCK", "sort": 2}, {"symbol": "MSFT", "category": "US_STOCK", "sort": 1}]
    out["add"] = w.add_instruments(wid, stocks).json()
    out["sort"] = w.update_instruments(wid, [{"symbol": "MSFT", "category": "US_STOCK", "sort": 5}]).json()
    out["remove"] = w.remove_instruments(wid, [{"symbol": "AAPL", "category": "US_STOCK"}]).json()
    out["instruments"] = w.get_instruments(wid).json()
    out["delete"] = w.delete_watchlist(wid).json()
    out["after"] = w.get_watchlist().json()
    return out


def quotes(api):
    from webull.data.data_client import DataClient

    m = DataClient(api).market_data
    snapshot = m.get_snapshot("AAPL,MSFT", "US_STOCK", extend_hour_required=True)
    depth = m.get_quotes("AAPL", "US_STOCK", depth=3)
    ticks = m.get_tick("AAPL", "US_STOCK", count="5", trading_sessions=["PRE", "RTH"])
    bars = m.get_batch_history_bar(["AAPL"], "US_STOCK", "D", count="2")
    minutes = m.get_history_bar("AAPL", "US_STOCK", "M1", count="3")
    footprint = m.get_footprint("AAPL", "US_STOCK", "M1", count="3", real_time_required=True, trading_sessions=["RTH"])
    return {
        "bars": {"status": bars.status_code, "body": bars.json()},
        "minutes": {"status": minutes.status_code, "body": minutes.json()},
        "footprint": {"status": footprint.status_code, "body": footprint.json()},
        "ticks": {"status": ticks.status_code, "body": ticks.json()},
        "snapshot": {"status": snapshot.status_code, "body": snapshot.json()},
        "depth": {"status": depth.status_code, "body": depth.json()},
    }


def options(api):
    from webull.data.data_client import DataClient

    data = DataClient(api)
    answer = lambda r: {"status": r.status_code, "body": r.json()}
    calls = data.instrument.list_option_contracts(
        underlying_symbols="AAPL", start_date="2013-03-15", option_type="CALL", strike_price_gte=400, strike_price_lte=500
    )
    pages, key = [], None
    while True:
        page = data.instrument.list_option_contracts(underlying_symbols="AAPL", pagination_key=key).json()
        pages.append(len(page["data"]))
        key = page.get("pagination_key")
        if not key:
            break
    earlier = data.instrument.get_option_contracts(underlying_symbols="AAPL", page_size=5)
    m = data.option_market_data
    pair = ["AAPL130315C00450000", "AAPL130315P00450000"]
    return {
        "calls": answer(calls),
        "pages": pages,
        "earlier": answer(earlier),
        "snapshot": answer(m.get_option_snapshot(pair, "US_OPTION")),
        "ticks": answer(m.get_option_tick(pair[0], "US_OPTION", count="10")),
        "minutes": answer(m.get_option_history_bars([pair[0]], "US_OPTION", "M5", count="3")),
        "days": answer(m.get_option_history_bars(pair, "US_OPTION", "D", count="5")),
    }


def screeners(api):
    from webull.data.data_client import DataClient

    s = DataClient(api).screener
    calls = {
        "gainers": lambda: s.list_gainers_losers("DAY_1", "US_STOCK", "CHANGE_RATIO", "DESC"),
        "losers": lambda: s.list_gainers_losers("MONTH_3", "US_STOCK", "CHANGE_RATIO", "ASC"),
        "actives": lambda: s.list_most_active("US_STOCK", "VOLUME", "VOLUME", "DESC"),
        "sectors": lambda: s.list_market_sectors("US_STOCK", "MARKET_VALUE", "D1", "DESC"),
        "dividends": lambda: s.list_high_dividend("US_STOCK", "YIELD", "DESC"),
        "week52": lambda: s.list_52whl("US_STOCK", "NEAR_HIGH", "CHANGE_RATIO_52W", "DESC"),
    }
    out = {}
    for name, call in calls.items():
        response = call()
        out[name] = {"status": response.status_code, "body": response.json()}
    first_sector = out["sectors"]["body"]["data"][0]["id"]
    detail = s.list_market_sectors_detail(first_sector, "US_STOCK", "D1", "MARKET_VALUE", "DESC")
    out["sector"] = {"status": detail.status_code, "body": detail.json()}
    return out


def fundamentals(api):
    from webull.data.data_client import DataClient

    data = DataClient(api)
    i, f = data.instrument, data.fundamentals
    stock, fund = "SNOW", "SPY"
    calls = {
        "company_profile": lambda: i.get_company_profile(stock),
        "target_price": lambda: i.get_analyst_target_price(stock),
        "rating": lambda: i.get_analyst_rating(stock),
        "forecast_eps": lambda: f.get_forecast_eps("AAPL"),
        "filings": lambda: f.get_sec_filings(stock),
        "earnings_calendar": lambda: f.get_earnings_calendar("AAPL"),
        "dividend_calendar": lambda: f.get_dividend_calendar("AAPL"),
        "capital_flow": lambda: f.get_capital_flow(stock, count=3),
        "industry_comparison": lambda: f.get_industry_comparison("AAPL", sort_by="PE_TTM"),
        "indicators": lambda: f.get_financials_indicators(stock, type="QUARTERLY", count=5),
        "income": lambda: f.get_financials_income(stock, type="ANNUAL", count=3),
        "cash_flow": lambda: f.get_financials_cashflow(stock, type="QUARTERLY", count=5),
        "balance_sheet": lambda: f.get_financials_balance_sheet(stock, type="QUARTERLY", count=5),
        "alert": lambda: f.get_financials_alert("AAPL"),
        "fund_brief": lambda: f.get_fund_brief(fund),
        "fund_performance": lambda: f.get_fund_performance(fund),
        "fund_net_value": lambda: f.get_fund_net_value(fund, last_date="2013-02-28", count=3),
        "fund_holdings": lambda: f.get_fund_holdings(fund),
        "fund_dividends": lambda: f.list_fund_dividends(fund),
        "fund_rating": lambda: f.get_fund_rating(fund),
        "fund_splits": lambda: f.get_fund_splits(fund),
        "fund_files": lambda: f.get_fund_files(fund),
        "fund_allocation": lambda: f.get_fund_allocation(fund),
    }
    out = {}
    for name, call in calls.items():
        response = call()
        out[name] = {"status": response.status_code, "body": response.json()}
    return out


def legacy(api):
    from webull.data.data_client import DataClient

    trade = TradeClient(api)
    account_id = trade.account_v2.get_account_list().json()[1]["account_id"]
    o = trade.order_v3
    limit = {
        "combo_type": "NORMAL", "symbol": "AAPL", "instrument_type": "EQUITY", "market": "US",
        "order_type": "LIMIT", "quantity": "1", "limit_price": "100", "side": "BUY", "time_in_force": "GTC",
        "entrust_type": "QTY", "support_trading_session": "CORE",
    }
    for n in range(3):
        o.place_order(account_id, [dict(limit, client_order_id=f"pyOld{n}")])
    out = {"account_id": account_id}
    first = o.get_order_open(account_id, page_size=2).json()
    out["open_first"] = first
    out["open_next"] = o.get_order_open(account_id, page_size=2, last_client_order_id=first[-1]["client_order_id"]).json()
    out["history"] = o.get_order_history(account_id, page_size=10).json()
    data = DataClient(api)
    s = data.screener
    calls = {
        "gainers": lambda: s.get_gainers_losers("DAY_1", "US_STOCK", "CHANGE_RATIO", page_index=1, page_size=2),
        "actives": lambda: s.get_most_active("US_STOCK"),
        "sectors": lambda: s.get_market_sectors("US_STOCK", page_index=1, page_size=3),
        "dividends": lambda: s.get_high_dividend("US_STOCK"),
        "week52": lambda: s.get_52whl("US_STOCK", rank_type="NEAR_HIGH"),
        "fund_dividends": lambda: data.fundamentals.get_fund_dividends("SPY", page_index=1, page_size=5),
    }
    for name, call in calls.items():
        response = call()
        out[name] = {"status": response.status_code, "body": response.json()}
    sector = out["sectors"]["body"][0]["id"]
    detail = s.get_market_sectors_detail(sector, "US_STOCK", page_index=1, page_size=2)
    out["sector"] = {"status": detail.status_code, "body": detail.json()}
    # TradeClient.order_v2: the order calls' earlier paths.
    o2 = trade.order_v2
    v2 = dict(limit, client_order_id="pyV2a")
    out["v2_preview"] = o2.preview_order(account_id, [v2]).json()
    out["v2_place"] = o2.place_order(account_id, [v2]).json()
    out["v2_replace"] = o2.replace_order(account_id, [{"client_order_id": "pyV2a", "quantity": "2"}]).json()
    out["v2_detail"] = o2.get_order_detail(account_id, "pyV2a").json()
    out["v2_query_detail"] = o2.query_order_detail(account_id, "pyV2a").json()
    out["v2_open"] = o2.get_order_open(account_id, page_size=2).json()
    out["v2_open_next"] = o2.get_order_open(account_id, page_size=2, last_client_order_id="pyOld2").json()
    out["v2_history"] = o2.get_order_history(account_id, page_size=10).json()
    out["v2_history_request"] = o2.get_order_history_request(account_id, page_size=10).json()
    out["v2_cancel"] = o2.cancel_order(account_id, "pyV2a").json()
    out["v2_cancel_v2"] = o2.cancel_order_v2(account_id, "pyOld0").json()
    out["v2_open_after"] = o2.get_order_open(account_id).json()
    return out


if __name__ == "__main__":
    main()
