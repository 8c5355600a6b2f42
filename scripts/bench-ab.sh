#!/usr/bin/env bash
# Two builds of signet in one run, taking turns scenario by scenario and round by round (each
# round in the other order), so that this noisy machine's drift falls on both alike: B0, B1, B2
# and O1 of scripts/bench.sh. Prints each run and, per scenario, the medians and their ratio.
# Usage: scripts/bench-ab.sh BEFORE_DIR AFTER_DIR [seconds] [rounds]   (default 10 s, 3 rounds)
# where each DIR holds a benchmark build's `signet` and `examples/load`
# (cargo build --release -p signet-cli --features benchmark-no-auth, and the load example).
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$1" "$2")
names=(before after)
seconds="${3:-10}"
rounds="${4:-3}"

work="$(mktemp -d)"
server=""
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
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

for round in $(seq "$rounds"); do
    for id in B0 B1 B2 O1; do
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
