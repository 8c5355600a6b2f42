#!/usr/bin/env bash
# Two builds of signet in one run, taking turns scenario by scenario and round by round (each
# round in the other order), so that this noisy machine's drift falls on both alike: B0, B1, B2,
# O1 and O2 of scripts/bench.sh (O2: two nodes on PostgreSQL with fsync on and nonces in Redis,
# started by scripts/services.sh). Prints each run and, per scenario, the medians and their ratio.
# Usage: scripts/bench-ab.sh BEFORE_DIR AFTER_DIR [seconds] [rounds]   (default 10 s, 3 rounds)
# where each DIR holds a benchmark build's `signet` and `examples/load`
# (cargo build --release -p signet-cli --features benchmark-no-auth, and the load example).
# SCENARIOS="O1 O2" runs only those.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$1" "$2")
names=(before after)
seconds="${3:-10}"
rounds="${4:-3}"

scenarios=(${SCENARIOS:-B0 B1 B2 O1 O2})

work="$(mktemp -d)"
server=""
nodes=()
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
    for node in "${nodes[@]}"; do kill "$node" 2>/dev/null || true; done
    if [ -n "${SIGNET_TEST_POSTGRES_URL:-}" ]; then
        psql "$SIGNET_TEST_POSTGRES_URL" -qc "ALTER SYSTEM RESET fsync" -c "ALTER SYSTEM RESET synchronous_commit" \
            -c "ALTER SYSTEM RESET full_page_writes" -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
        psql "$SIGNET_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS signet_ab_$$_t0" \
            -c "DROP DATABASE IF EXISTS signet_ab_$$_t1" >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
export SIGNET_RATE_LIMITS=off
export SIGNET_MASTER_KEY="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
json() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
port=18581

# Each build gets databases of its own (the two may differ in schema): an app, and the demo
# prices for O1.
for i in 0 1; do
    signet="${dirs[$i]}/signet"
    "$signet" data import --db "$work/o$i.db" --json data/demo/daily_ohlcv_2000_2013.csv.gz >/dev/null
    echo "$("$signet" admin apps create --db "$work/o$i.db" --name bench --json)" >"$work/creds$i"
done

run() { # build index, scenario
    local i="$1" id="$2" signet="${dirs[$1]}/signet" load="${dirs[$1]}/examples/load" creds options
    if [ "$id" = O2 ]; then
        local out
        out="$(run_two_nodes "$i")"
        echo "round $round $id ${names[$i]}: $out" >&2
        echo "$id ${names[$i]} $out" >>"$work/results"
        return
    fi
    creds="$(cat "$work/creds$i")"
    export SIGNET_APP_KEY="$(json "$creds" app_key)" SIGNET_APP_SECRET="$(json "$creds" app_secret)"
    local target=(--endpoint "http://127.0.0.1:$port" --seconds "$seconds")
    case "$id" in
        B0) options=(--benchmark-no-auth); target+=(--path /trading/accounts/list --workers 32 --app-key-only) ;;
        B1) options=(--nonces memory); target+=(--path /trading/accounts/list --workers 32) ;;
        B2) options=(); target+=(--path /trading/accounts/list --workers 32) ;;
        O1) options=()
            target+=(--place "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["account_ids"][1])' "$creds")" --workers 8) ;;
    esac
    # A log of its own: a reused one could show the previous server's "listening" line.
    local log="$work/server-$round-$id-$i.log"
    "$signet" serve --db "$work/o$i.db" --listen "127.0.0.1:$port" "${options[@]}" 2>"$log" >/dev/null &
    server=$!
    for _ in $(seq 300); do grep -q 'listening' "$log" && break; sleep 0.1; done
    local out
    out="$("$load" "${target[@]}")"
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=""
    echo "round $round $id ${names[$i]}: $out" >&2
    echo "$id ${names[$i]} $out" >>"$work/results"
}

# O2: each build's demo prices and app in a template database of its own, copied for each run
# (the placements of one run would slow the next); PostgreSQL with its durable settings back.
if [[ " ${scenarios[*]} " == *" O2 "* ]]; then
    services=$(scripts/services.sh start)
    eval "$services"
    psql "$SIGNET_TEST_POSTGRES_URL" -qc "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
        -c "ALTER SYSTEM SET full_page_writes = on" -c "SELECT pg_reload_conf()" >/dev/null
    for i in 0 1; do
        template="signet_ab_$$_t$i"
        psql "$SIGNET_TEST_POSTGRES_URL" -qc "CREATE DATABASE $template"
        url="${SIGNET_TEST_POSTGRES_URL%/*}/$template"
        SIGNET_DATABASE_URL="$url" "${dirs[$i]}/signet" data import --json data/demo/daily_ohlcv_2000_2013.csv.gz >/dev/null
        SIGNET_DATABASE_URL="$url" "${dirs[$i]}/signet" admin apps create --name bench --json >"$work/pg-creds$i"
    done
fi

# O2 with build $1: two nodes, each under the load O1 puts on its one node; prints the sum.
run_two_nodes() {
    local i="$1" signet="${dirs[$1]}/signet" load="${dirs[$1]}/examples/load" creds account name url n
    creds="$(cat "$work/pg-creds$i")"
    export SIGNET_APP_KEY="$(json "$creds" app_key)" SIGNET_APP_SECRET="$(json "$creds" app_secret)"
    account="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["account_ids"][1])' "$creds")"
    name="signet_ab_$$_r${round}_$i"
    psql "$SIGNET_TEST_POSTGRES_URL" -qc "CREATE DATABASE $name TEMPLATE signet_ab_$$_t$i"
    url="${SIGNET_TEST_POSTGRES_URL%/*}/$name"
    nodes=()
    for n in 1 2; do
        local log="$work/node-$round-$i-$n.log"
        "$signet" serve --database-url "$url" --redis-url "$SIGNET_TEST_REDIS_URL" --listen "127.0.0.1:$((port + n))" \
            2>"$log" >/dev/null &
        nodes+=($!)
        for _ in $(seq 300); do grep -q 'listening' "$log" && break; sleep 0.1; done
    done
    local loads=()
    for n in 1 2; do
        "$load" --endpoint "http://127.0.0.1:$((port + n))" --place "$account" --seconds "$seconds" --workers 8 \
            >"$work/o2-$n.json" &
        loads+=($!)
    done
    wait "${loads[@]}"
    for node in "${nodes[@]}"; do kill "$node"; wait "$node" 2>/dev/null || true; done
    nodes=()
    psql "$SIGNET_TEST_POSTGRES_URL" -qc "DROP DATABASE $name"
    python3 - "$work/o2-1.json" "$work/o2-2.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
print(json.dumps({"requests": a["requests"] + b["requests"], "errors": a["errors"] + b["errors"],
                  "rps": a["rps"] + b["rps"], "p50_ms": max(a["p50_ms"], b["p50_ms"]),
                  "p99_ms": max(a["p99_ms"], b["p99_ms"])}))
PY
}

for round in $(seq "$rounds"); do
    for id in "${scenarios[@]}"; do
        first=$(((round + 1) % 2))
        run "$first" "$id"
        run "$((1 - first))" "$id"
    done
done

python3 - "$work/results" <<'PY'
import json, statistics, sys
rps = {}
for line in open(sys.argv[1]):
    scenario, name, answer = line.split(" ", 2)
    rps.setdefault(scenario, {}).setdefault(name, []).append(json.loads(answer)["rps"])
for scenario, by in rps.items():
    before, after = statistics.median(by["before"]), statistics.median(by["after"])
    print(f"{scenario}: before {' / '.join(f'{v:,.0f}' for v in by['before'])} (median {before:,.0f}), "
          f"after {' / '.join(f'{v:,.0f}' for v in by['after'])} (median {after:,.0f}) req/s: "
          f"after/before {after / before:.3f}")
PY
