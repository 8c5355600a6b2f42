#!/usr/bin/env bash
# End-to-end cost of authentication: the release server and the load generator
# (crates/client/examples/load.rs) on this machine, loopback only. For each SQLite durability it
# measures an unsigned baseline (GET /health, one database read) and two signed calls in the same
# run, so that ratios hold on a noisy machine. With SIGNET_BENCH_REDIS_URL set, a third scenario
# keeps the nonces in that Redis (durability normal; keys under signet:, expiring by themselves).
# Usage: [SIGNET_BENCH_REDIS_URL=redis://127.0.0.1:56379/9] scripts/bench-auth.sh [seconds-per-scenario] [workers]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-8}"
workers="${2:-32}"
# Two commands: with --example, cargo would build the example only and leave a stale server.
cargo build --release --quiet -p signet-cli
cargo build --release --quiet -p signet-client --example load
target="${CARGO_TARGET_DIR:-$PWD/target}"
signet="$target/release/signet"
load="$target/release/examples/load"
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
port=18181

for scenario in normal full ${SIGNET_BENCH_REDIS_URL:+redis}; do
    durability="$scenario" redis_url=""
    if [ "$scenario" = redis ]; then durability=normal redis_url="$SIGNET_BENCH_REDIS_URL"; fi
    rm -f "$work"/bench.db*
    SIGNET_RATE_LIMITS=off SIGNET_REDIS_URL="$redis_url" "$signet" serve --demo --listen "127.0.0.1:$port" \
        --db "$work/bench.db" --durability "$durability" >"$work/creds.txt" 2>"$work/server.log" &
    server=$!
    # The demo dataset loads first (under 10 s).
    for _ in $(seq 600); do grep -q 'listening' "$work/server.log" 2>/dev/null && break; sleep 0.1; done
    SIGNET_APP_KEY="$(sed -n 's/^  SIGNET_APP_KEY=//p' "$work/creds.txt")"
    SIGNET_APP_SECRET="$(sed -n 's/^  SIGNET_APP_SECRET=//p' "$work/creds.txt")"
    export SIGNET_APP_KEY SIGNET_APP_SECRET
    endpoint="http://127.0.0.1:$port"
    echo "durability=$durability${redis_url:+ nonces=redis} workers=$workers seconds=$seconds"
    printf '  unsigned GET /health:                '
    "$load" --endpoint "$endpoint" --path /health --unsigned --seconds "$seconds" --workers "$workers"
    printf '  signed   GET /openapi/config:        '
    "$load" --endpoint "$endpoint" --path /openapi/config --seconds "$seconds" --workers "$workers"
    printf '  signed   GET /trading/accounts/list: '
    "$load" --endpoint "$endpoint" --path /trading/accounts/list --seconds "$seconds" --workers "$workers"
    kill "$server"
    wait "$server" 2>/dev/null || true
done
