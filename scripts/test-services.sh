#!/usr/bin/env bash
# Checks that scripts/services.sh, and scripts/test.sh at its phase, stop within seconds with a
# line that names the cause when PostgreSQL or Redis cannot start: a port held by something else,
# a port held by another checkout's cluster, a data directory PostgreSQL's user cannot write.
# A phase of scripts/test.sh, after its services started (it starts them too when run alone).
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d -t signet-services-check.XXXXXX)
holder=""
cleanup() {
    [ -n "$holder" ] && kill "$holder" 2>/dev/null
    chmod -R u+rwx "$work" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

services=$(scripts/services.sh start)
eval "$services"
pg_port=${SIGNET_TEST_POSTGRES_URL##*:}
pg_port=${pg_port%%/*}
redis_port=${SIGNET_TEST_REDIS_URL##*:}

# A port that something other than PostgreSQL or Redis holds: it accepts connections (the kernel
# completes them) and never answers.
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
time.sleep(600)
' >"$work/port" &
holder=$!
for _ in $(seq 100); do
    [ -s "$work/port" ] && break
    sleep 0.1
done
busy=$(cat "$work/port")
[ -n "$busy" ] || { echo "the port holder did not start" >&2; exit 1; }
free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

failed=0
# expect_refusal NAME SECONDS PATTERN ENV... -- COMMAND...: the command must fail within SECONDS
# (a bound a machine four times slower still meets) with PATTERN in what it printed.
expect_refusal() {
    local name=$1 limit=$2 pattern=$3
    shift 3
    local environment=()
    while [ "$1" != -- ]; do
        environment+=("$1")
        shift
    done
    shift
    local began=$SECONDS status=0
    env "${environment[@]}" timeout 300 "$@" >"$work/out" 2>&1 || status=$?
    local took=$((SECONDS - began))
    if [ $status -eq 0 ]; then
        echo "FAILED: $name: it succeeded" >&2
        failed=1
    elif ! grep -qE "$pattern" "$work/out"; then
        echo "FAILED: $name: exit $status after $took s without /$pattern/ in:" >&2
        tail -n 20 "$work/out" >&2
        failed=1
    elif [ "$took" -gt "$limit" ]; then
        echo "FAILED: $name: refused, but after $took s (more than $limit s)" >&2
        failed=1
    else
        echo "    $name: refused in $took s: $(grep -E "$pattern" "$work/out" | head -n 1)"
    fi
}

expect_refusal "PostgreSQL's port held by another program" 30 "port $busy is in use" \
    SIGNET_PG_PORT="$busy" -- scripts/services.sh start
expect_refusal "PostgreSQL's port held by another cluster" 30 "port $pg_port is held by another PostgreSQL cluster" \
    SIGNET_PG_DATA="$work/other-cluster" -- scripts/services.sh start
mkdir -m 0500 "$work/locked"
expect_refusal "a data directory PostgreSQL's user cannot write" 30 "could not be created in $work/locked/postgres" \
    SIGNET_PG_PORT="$free" SIGNET_PG_DATA="$work/locked/postgres" -- scripts/services.sh start
expect_refusal "Redis's port held by another program" 30 "port $busy is in use, and not by Redis" \
    SIGNET_REDIS_PORT="$busy" -- scripts/services.sh start
# The whole test command stops at its phase, before any build (SIGNET_SERVICES_CHECK=off: not
# this check again from inside).
expect_refusal "scripts/test.sh with PostgreSQL's port held" 60 \
    "FAILED in phase \"PostgreSQL and Redis\".*did not start" \
    SIGNET_PG_PORT="$busy" SIGNET_SERVICES_CHECK=off -- scripts/test.sh
exit $failed
