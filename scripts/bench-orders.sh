#!/usr/bin/env bash
# Place-order throughput and latency on the embedded database: the release server (running
# market clock, ticking) and the load generator on this machine, loopback only. Each request
# places a new GTC limit buy of one AAPL share at $1 (accepted, never filled).
# Usage: scripts/bench-orders.sh [seconds] [workers...]   (default: 10 s, 8 and 32 workers)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
shift || true
workers=("$@")
[ "${#workers[@]}" -gt 0 ] || workers=(8 32)
# Two commands: with --example, cargo would build the example only and leave a stale server.
cargo build --release --quiet -p signet-cli
cargo build --release --quiet -p signet-client --example load
# SIGNET_BIN: another build of the server, to compare two builds in one session.
signet="${SIGNET_BIN:-$PWD/target/release/signet}"
load="$PWD/target/release/examples/load"
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
port=18282

"$signet" data import --db "$work/bench.db" --json data/demo/daily_ohlcv_2000_2013.csv.gz >/dev/null 2>&1
creds="$("$signet" admin apps create --db "$work/bench.db" --name bench --json)"
export SIGNET_APP_KEY="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["app_key"])' "$creds")"
export SIGNET_APP_SECRET="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["app_secret"])' "$creds")"
account="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["account_ids"][1])' "$creds")"

# Rate limits off: the published ones would hold placement to 600 a minute.
SIGNET_RATE_LIMITS=off "$signet" serve --listen "127.0.0.1:$port" --db "$work/bench.db" ${MARKET_CLOCK:+--market-clock "$MARKET_CLOCK"} 2>"$work/server.log" &
server=$!
for _ in $(seq 100); do grep -q 'listening' "$work/server.log" 2>/dev/null && break; sleep 0.1; done
# The baseline, in the same run: a signed read (the nonce is the one write).
for w in "${workers[@]}"; do
    printf 'signed GET /trading/accounts/list, workers=%s seconds=%s: ' "$w" "$seconds"
    "$load" --endpoint "http://127.0.0.1:$port" --path /trading/accounts/list --seconds "$seconds" --workers "$w"
    printf 'place LIMIT orders, workers=%s seconds=%s:          ' "$w" "$seconds"
    "$load" --endpoint "http://127.0.0.1:$port" --place "$account" --seconds "$seconds" --workers "$w"
done
