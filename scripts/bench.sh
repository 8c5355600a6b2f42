#!/usr/bin/env bash
# Every end-to-end scenario of the performance targets, in one run on this machine (server and
# load generator share its cores, loopback only), written into docs/performance.md between the
# "bench.sh" markers with the machine and the command:
#   B0  GET /trading/accounts/list, authentication off (the benchmark build's baseline)
#   B1  the same, signed, nonces in memory          B2  signed, nonces in SQLite (the default)
#   B2t B2 over TLS (--tls self-signed), connections kept alive (ratio to B2)
#   B3  signed, nonces in Redis                     O1  place limit orders, SQLite
#   O2  place orders, 2 nodes on PostgreSQL (fsync on) with nonces in Redis, the documented
#       deployment, with a check for duplicates; O2b the same with nonces in PostgreSQL too
#   Q1  snapshots of 50 symbols, signed   Q2  1,000 one-minute bars of one symbol, signed
#   Q3  the balance of an account holding 200 positions, signed (Q: ratios to B2)
#   P1  a page of 1,000 of AAPL's option contracts   P2  snapshots of 20 option contracts (ratios to B2)
#   V   sign + verify of a GET with 2 parameters (criterion)
# Usage: scripts/bench.sh [seconds-per-scenario]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
workers=32
place_workers=8

# One build for every scenario: the benchmark build differs from the release build only by the
# --benchmark-no-auth option, and has its own target directory so that it never replaces it.
echo "==> building (release, benchmark-no-auth)" >&2
cargo build --release --quiet -p signet-cli --features benchmark-no-auth --target-dir target/bench
cargo build --release --quiet -p signet-client --example load --target-dir target/bench
signet="$PWD/target/bench/release/signet"
load="$PWD/target/bench/release/examples/load"
services=$(scripts/services.sh start)
eval "$services"

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    psql "$SIGNET_TEST_POSTGRES_URL" -qc "ALTER SYSTEM RESET fsync" -c "ALTER SYSTEM RESET synchronous_commit" \
        -c "ALTER SYSTEM RESET full_page_writes" -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
export SIGNET_RATE_LIMITS=off
export SIGNET_MASTER_KEY="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
json() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# Starts a server with these options and waits until it listens; its pid goes to $server.
start() {
    local log="$work/server-$RANDOM.log"
    "$signet" serve "$@" 2>"$log" >/dev/null &
    server=$!
    pids+=("$server")
    for _ in $(seq 300); do grep -q 'listening' "$log" && return; sleep 0.1; done
    cat "$log" >&2
    exit 1
}
stop() { kill "$1"; wait "$1" 2>/dev/null || true; }
results="$work/results.jsonl"
record() { # id, scenario, load's JSON answer
    python3 -c 'import json,sys; r=json.loads(sys.argv[3]); r.update(id=sys.argv[1], scenario=sys.argv[2]); print(json.dumps(r))' \
        "$1" "$2" "$3" >>"$results"
    echo "$1 $2: $3" >&2
}

# B0-B3: one SQLite database with one app; accounts/list reads the app's accounts.
db="$work/b.db"
creds="$("$signet" admin apps create --db "$db" --name bench --json)"
export SIGNET_APP_KEY="$(json "$creds" app_key)" SIGNET_APP_SECRET="$(json "$creds" app_secret)"
port=18381
endpoint="http://127.0.0.1:$port"
accounts=(--endpoint "$endpoint" --path /trading/accounts/list --seconds "$seconds" --workers "$workers")
start --db "$db" --listen "127.0.0.1:$port" --benchmark-no-auth
record B0 "GET /trading/accounts/list, authentication off" "$("$load" "${accounts[@]}" --app-key-only)"
stop "$server"
start --db "$db" --listen "127.0.0.1:$port" --nonces memory
record B1 "the same, signed, nonces in memory" "$("$load" "${accounts[@]}")"
stop "$server"
start --db "$db" --listen "127.0.0.1:$port"
record B2 "the same, signed, nonces in SQLite (default)" "$("$load" "${accounts[@]}")"
stop "$server"
# B2t: B2 over TLS (--tls self-signed, its CA trusted), the workers' connections kept alive.
start --db "$db" --listen "127.0.0.1:$port" --tls self-signed
record B2t "the same over TLS, connections kept alive" "$("$load" "${accounts[@]}" \
    --endpoint "https://127.0.0.1:$port" --ca "$db.tls/ca.pem")"
stop "$server"
redis-cli -u "$SIGNET_TEST_REDIS_URL" flushall >/dev/null
start --db "$db" --listen "127.0.0.1:$port" --redis-url "$SIGNET_TEST_REDIS_URL"
record B3 "the same, signed, nonces in Redis" "$("$load" "${accounts[@]}")"
stop "$server"

# O1: placements on SQLite, the market running (a limit buy of one AAPL share at $1 each).
db="$work/o.db"
"$signet" data import --db "$db" --json data/demo/daily_ohlcv_2000_2013.csv.gz >/dev/null
creds="$("$signet" admin apps create --db "$db" --name bench --json)"
export SIGNET_APP_KEY="$(json "$creds" app_key)" SIGNET_APP_SECRET="$(json "$creds" app_secret)"
account="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["account_ids"][1])' "$creds")"
start --db "$db" --listen "127.0.0.1:$port"
record O1 "place limit orders, SQLite" \
    "$("$load" --endpoint "$endpoint" --place "$account" --seconds "$seconds" --workers "$place_workers")"
stop "$server"

# Q1-Q3: market data and the balance, on a database with the demo's listed companies (the
# simulator quotes each of them) and price history, the market running.
db="$work/q.db"
"$signet" data import --db "$db" --json data/demo/us_listed_companies.csv data/demo/daily_ohlcv_2000_2013.csv.gz >/dev/null
creds="$("$signet" admin apps create --db "$db" --name bench --json)"
export SIGNET_APP_KEY="$(json "$creds" app_key)" SIGNET_APP_SECRET="$(json "$creds" app_secret)"
start --db "$db" --listen "127.0.0.1:$port"
read -ra symbols <<<"$(python3 -c '
import csv, re
rows = csv.DictReader(open("data/demo/us_listed_companies.csv"))
print(" ".join([r["ticker"] for r in rows if re.fullmatch("[A-Z]{1,5}", r["ticker"])][:200]))')"
fifty="$(IFS=,; echo "${symbols[*]:0:50}")"
query=(--endpoint "$endpoint" --seconds "$seconds" --workers "$workers")
record Q1 "GET /market-data/stocks/snapshots/list, 50 symbols" \
    "$("$load" "${query[@]}" --path /market-data/stocks/snapshots/list --query "symbols=$fifty")"
record Q2 "POST /market-data/stocks/bars/list, 1,000 M1 bars of AAPL" \
    "$("$load" "${query[@]}" --path /market-data/stocks/bars/list \
        --post '{"symbols": ["AAPL"], "category": "US_STOCK", "timespan": "M1", "count": 1000}')"
record P1 "GET /trading/instruments/options/contracts/list, AAPL's chain, a page of 1,000" \
    "$("$load" "${query[@]}" --path /trading/instruments/options/contracts/list \
        --query category=US_OPTION --query underlying_symbols=AAPL)"
# Twenty contracts of AAPL's third expiry around the money, calls and puts.
expiry="$("$signet" options --json --endpoint "$endpoint" chain AAPL | python3 -c 'import json,sys; print(json.load(sys.stdin)[2]["expiry"])')"
twenty="$("$signet" options --json --endpoint "$endpoint" chain AAPL --expiry "$expiry" | python3 -c '
import json, sys
chain = json.load(sys.stdin)
middle = len(chain) // 2 - 10
print(",".join(c["symbol"] for c in chain[middle:middle + 20]))')"
record P2 "GET /market-data/options/snapshots/list, 20 contracts" \
    "$("$load" "${query[@]}" --path /market-data/options/snapshots/list --query category=US_OPTION --query "symbols=$twenty")"
holder="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["account_ids"][0])' "$creds")"
for symbol in "${symbols[@]}"; do
    "$signet" orders place --endpoint "$endpoint" --account "$holder" --side BUY "$symbol" 1 --json >/dev/null
done
held=0
for _ in $(seq 100); do
    held="$("$signet" positions --endpoint "$endpoint" --account "$holder" --json |
        python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
    [ "$held" -ge 200 ] && break
    sleep 0.2
done
record Q3 "GET /trading/assets/balances/get, an account holding $held positions" \
    "$("$load" "${query[@]}" --path /trading/assets/balances/get --query "account_id=$holder")"
stop "$server"

# O2: two nodes on one PostgreSQL with its durable settings back (the test cluster runs without
# fsync), each under the load O1 puts on its one node; then every acknowledged order must be
# stored once.
psql "$SIGNET_TEST_POSTGRES_URL" -qc "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
    -c "ALTER SYSTEM SET full_page_writes = on" -c "SELECT pg_reload_conf()" >/dev/null
two_nodes() { # id, scenario, serve options for both nodes
    local id="$1" scenario="$2" name="signet_bench_$$_${1,,}" nodes=() loads=()
    shift 2
    psql "$SIGNET_TEST_POSTGRES_URL" -qc "CREATE DATABASE $name"
    export SIGNET_DATABASE_URL="${SIGNET_TEST_POSTGRES_URL%/*}/$name"
    "$signet" data import --json data/demo/daily_ohlcv_2000_2013.csv.gz >/dev/null
    creds="$("$signet" admin apps create --name bench --json)"
    export SIGNET_APP_KEY="$(json "$creds" app_key)" SIGNET_APP_SECRET="$(json "$creds" app_secret)"
    account="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["account_ids"][1])' "$creds")"
    for n in 1 2; do
        start --listen "127.0.0.1:$((port + n))" "$@"
        nodes+=("$server")
    done
    for n in 1 2; do
        "$load" --endpoint "http://127.0.0.1:$((port + n))" --place "$account" --seconds "$seconds" \
            --workers "$place_workers" >"$work/o2-$n.json" &
        loads+=($!)
    done
    wait "${loads[@]}"
    for node in "${nodes[@]}"; do stop "$node"; done
    stored="$(psql "$SIGNET_DATABASE_URL" -qtAc "SELECT COUNT(*) FROM orders")"
    distinct="$(psql "$SIGNET_DATABASE_URL" -qtAc "SELECT COUNT(DISTINCT client_order_id) FROM orders")"
    record "$id" "$scenario" "$(python3 - "$work/o2-1.json" "$work/o2-2.json" "$stored" "$distinct" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
stored, distinct = int(sys.argv[3]), int(sys.argv[4])
acknowledged = a["requests"] - a["errors"] + b["requests"] - b["errors"]
print(json.dumps({"requests": a["requests"] + b["requests"], "errors": a["errors"] + b["errors"],
                  "rps": a["rps"] + b["rps"], "p50_ms": max(a["p50_ms"], b["p50_ms"]),
                  "p99_ms": max(a["p99_ms"], b["p99_ms"]),
                  "note": f"{acknowledged} acknowledged, {stored} stored, {stored - distinct} duplicates"}))
EOF
)"
    unset SIGNET_DATABASE_URL
}
two_nodes O2 "place orders, 2 nodes on PostgreSQL, nonces in Redis, $place_workers workers each" --redis-url "$SIGNET_TEST_REDIS_URL"
two_nodes O2b "the same, nonces in PostgreSQL too"

# V: criterion, the GET case.
echo "==> criterion" >&2
v="$(cargo bench --quiet -p signet-signing --bench sign_verify -- --warm-up-time 1 --measurement-time 3 2>/dev/null |
    python3 -c '
import re, sys, json
text = sys.stdin.read()
def mid(name):
    m = re.search(re.escape(name) + r"\s*time:\s*\[\S+ \S+ (\S+) (\S+)", text)
    value, unit = float(m.group(1)), m.group(2)
    return value / 1000 if unit == "ns" else value
sign, verify = mid("sign/get_2_params"), mid("verify/get_2_params")
print(json.dumps({"sign_us": sign, "verify_us": verify}))')"
record V "sign + verify, GET with 2 parameters" "$v"

python3 - "$results" "$seconds" "$workers" "$place_workers" <<'EOF'
import json, platform, subprocess, sys, datetime, re
rows = [json.loads(line) for line in open(sys.argv[1])]
seconds, workers, place_workers = sys.argv[2:5]
by = {r["id"]: r for r in rows}
b0 = by["B0"]["rps"]
targets = {"B0": "baseline", "B1": "≥ 0.85 × B0", "B2": "≥ 0.40 × B0", "B3": "≥ 0.40 × B0",
           "B2t": "≥ 0.85 × B2",
           "O1": "≥ 3,000 orders/s, p99 < 10 ms", "O2": "≥ 1,000 orders/s, 0 duplicates",
           "O2b": "(for comparison)", "V": "≤ 3 µs",
           "Q1": "≥ 0.5 × B2", "Q2": "≥ 0.3 × B2", "Q3": "≥ 0.5 × B2",
           "P1": "≥ 0.2 × B2", "P2": "≥ 0.5 × B2"}
q_targets = {"Q1": 0.5, "Q2": 0.3, "Q3": 0.5, "P1": 0.2, "P2": 0.5, "B2t": 0.85}
b2 = by["B2"]["rps"]
def met(r):
    i = r["id"]
    if i in ("B1", "B2", "B3"):
        return r["rps"] / b0 >= {"B1": 0.85, "B2": 0.40, "B3": 0.40}[i]
    if i == "O1":
        return r["rps"] >= 3000 and r["p99_ms"] < 10
    if i == "O2":
        return r["rps"] >= 1000 and r["note"].endswith(" 0 duplicates")
    if i == "V":
        return r["sign_us"] + r["verify_us"] <= 3
    if i in q_targets:
        return r["rps"] / b2 >= q_targets[i]
    return None
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
out = [f"Measured {datetime.date.today()} by `scripts/bench.sh {seconds}` on {cores} cores ({cpu}), "
       f"{platform.system()} {platform.release()}, {rustc}; server and load generator on the same cores, "
       f"loopback only. B: {workers} closed-loop workers, O: {place_workers}, {seconds} s each.", "",
       "| id | scenario | req/s | p50 | p99 | ratio to B0 | target | met |", "|---|---|---|---|---|---|---|---|"]
for r in rows:
    i = r["id"]
    verdict = {True: "yes", False: "**no**", None: ""}[met(r)]
    if i == "V":
        total = r["sign_us"] + r["verify_us"]
        out.append(f"| V | {r['scenario']} | | | | | {targets[i]} | {verdict} ({r['sign_us']:.2f} + {r['verify_us']:.2f} = {total:.2f} µs) |")
        continue
    ratio = "1.00×" if i == "B0" else (f"{r['rps'] / b0:.2f}×" if i in ("B1", "B2", "B3") else "")
    if i in q_targets:
        ratio = f"{r['rps'] / b2:.2f}× B2"
    note = f" ({r['note']})" if "note" in r else ""
    errors = f", {r['errors']} errors" if r.get("errors") else ""
    out.append(f"| {i} | {r['scenario']}{note}{errors} | {r['rps']:,.0f} | {r['p50_ms']:.2f} ms | {r['p99_ms']:.2f} ms | {ratio} | {targets[i]} | {verdict} |")
text = open("docs/performance.md").read()
begin, end = "<!-- bench.sh begin -->", "<!-- bench.sh end -->"
block = begin + "\n" + "\n".join(out) + "\n" + end
if begin in text:
    text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
else:
    text = text.replace("\n## Signing (criterion)", "\n## Every target, one run\n\n" + block + "\n\n## Signing (criterion)", 1)
open("docs/performance.md", "w").write(text)
print("\n".join(out))
EOF
