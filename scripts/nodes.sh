#!/usr/bin/env bash
# Several signet nodes on one machine sharing one PostgreSQL and one Redis, as behind a load
# balancer: the example of docs/operations.md's "Several nodes" section.
#
#   scripts/nodes.sh start [N]   # N nodes (default 3) on 127.0.0.1:8081...808N
#   scripts/nodes.sh stop
#
# PostgreSQL and Redis come from scripts/services.sh. The first start loads the demo dataset
# into the database "signet_nodes" and prints the demo app's key and secret; the master key that
# seals app secrets is kept in target/nodes/master.key and given to every node. The nodes run on
# the real clock (the same simulated prices on every node at the same moment).
set -euo pipefail
cd "$(dirname "$0")/.."

work="$PWD/target/nodes"
mkdir -p "$work"

stop_nodes() {
    for pid_file in "$work"/node*.pid; do
        [ -f "$pid_file" ] || continue
        kill "$(cat "$pid_file")" 2>/dev/null || true
        rm -f "$pid_file"
    done
}

case "${1:-start}" in
stop)
    stop_nodes
    exit 0
    ;;
start) ;;
*)
    echo "usage: $0 start [N] | stop" >&2
    exit 2
    ;;
esac
count="${2:-3}"

services=$(scripts/services.sh start)
eval "$services"
cargo build --release --quiet -p signet-cli
signet="$PWD/target/release/signet"

if [ ! -f "$work/master.key" ]; then
    (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/master.key")
fi
export SIGNET_MASTER_KEY="$(cat "$work/master.key")"
server_url="${SIGNET_TEST_POSTGRES_URL%/*}"
psql "$SIGNET_TEST_POSTGRES_URL" -qtAc "SELECT 1 FROM pg_database WHERE datname = 'signet_nodes'" | grep -q 1 ||
    psql "$SIGNET_TEST_POSTGRES_URL" -qc "CREATE DATABASE signet_nodes"
export SIGNET_DATABASE_URL="$server_url/signet_nodes"
export SIGNET_REDIS_URL="$SIGNET_TEST_REDIS_URL"

stop_nodes
for n in $(seq "$count"); do
    port=$((8080 + n))
    # The first node loads the demo dataset (once) before it listens; the others wait for it.
    demo=()
    [ "$n" = 1 ] && demo=(--demo)
    "$signet" serve "${demo[@]}" --listen "127.0.0.1:$port" --market-clock real \
        >"$work/node$n.out" 2>"$work/node$n.log" &
    echo $! >"$work/node$n.pid"
    for _ in $(seq 1200); do
        grep -q 'listening' "$work/node$n.log" 2>/dev/null && break
        kill -0 "$(cat "$work/node$n.pid")" 2>/dev/null || { cat "$work/node$n.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "node $n: http://127.0.0.1:$port (log: $work/node$n.log)"
done
if grep -q SIGNET_APP_KEY "$work/node1.out"; then
    cp "$work/node1.out" "$work/demo-app.txt"
fi
if [ -f "$work/demo-app.txt" ]; then
    echo "demo app (from the first start, $work/demo-app.txt):"
    grep -E '^  (SIGNET_APP_KEY|SIGNET_APP_SECRET|accounts)' "$work/demo-app.txt"
fi
echo "stop with: $0 stop"
