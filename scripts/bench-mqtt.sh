#!/usr/bin/env bash
# The quotes feed's bench (issue 18): 1,000 MQTT sessions of 5 symbols each (SNAPSHOT, QUOTE and
# TICK; the market running at speed 1, so one push a second) on one release server, and B2
# (GET /trading/accounts/list, signed, nonces in SQLite; 32 closed-loop workers) against the same
# server. Each round measures, without the sessions and with them (the order alternates from one
# round to the next):
#   - the server's CPU (utime + stime of /proc/PID/stat) over CPU_SECONDS with no other load;
#   - B2's throughput over B2_SECONDS.
# The sessions are a separate process (crates/client/examples/mqtt_sessions.rs) on the same
# cores. Prints one JSON line per phase and a Markdown table of the rounds.
# Usage: scripts/bench-mqtt.sh [rounds] [cpu-seconds] [b2-seconds] [sessions]   (3 60 10 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
cpu_seconds="${2:-60}"
b2_seconds="${3:-10}"
sessions="${4:-1000}"

echo "==> building (release)" >&2
cargo build --release --quiet -p signet-cli
cargo build --release --quiet -p signet-client --example load --example mqtt_sessions
signet="$PWD/target/release/signet"
load="$PWD/target/release/examples/load"
feed="$PWD/target/release/examples/mqtt_sessions"

work="$(mktemp -d)"
pids=()
server=""
cleanup() {
    if [ -n "$server" ] && ! kill -0 "$server" 2>/dev/null; then
        echo "the server stopped; its log ends:" >&2
        tail -30 "$work/server.log" >&2
    fi
    # The sessions' process is started in a phase's subshell: its pid is in a file.
    for pid in "${pids[@]}" $(cat "$work"/reader.pid 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
export SIGNET_RATE_LIMITS=off
export SIGNET_MASTER_KEY="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"

db="$work/feed.db"
"$signet" data import --db "$db" --json data/demo/daily_ohlcv_2000_2013.csv.gz >/dev/null
creds="$("$signet" admin apps create --db "$db" --name bench --json)"
json() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
export SIGNET_APP_KEY="$(json "$creds" app_key)" SIGNET_APP_SECRET="$(json "$creds" app_secret)"
# Ports the system picks, and the server under another name: the machine is shared, and a fixed
# port, or a process named signet, may be another run's to stop.
log="$work/server.log"
cp "$signet" "$work/feed-bench-server"
"$work/feed-bench-server" serve --db "$db" --listen 127.0.0.1:0 --mqtt-listen 127.0.0.1:0 \
    --mqtt-max-sessions "$sessions" --mqtt-max-unbound-per-address "$sessions" 2>"$log" >/dev/null &
server=$!
pids+=("$server")
for _ in $(seq 300); do grep -qs 'mqtt=' "$log" && break; sleep 0.1; done
grep -q 'mqtt=' "$log" || { cat "$log" >&2; exit 1; }
endpoint="http://$(sed -n 's/.*signet listening address=\([^ ]*\).*/\1/p' "$log")"
mqtt="$(sed -n 's/.*mqtt=\([^ ]*\).*/\1/p' "$log")"
echo "server $endpoint, feed $mqtt" >&2

ticks_per_second="$(getconf CLK_TCK)"
cpu_ticks() { # utime + stime of process $1 (fields 14 and 15; its name has no space)
    awk '{print $14 + $15}' "/proc/$1/stat"
}
metric() { # the value of a metric without labels in /metrics
    curl -s "$endpoint/metrics" | awk -v name="$1" '$1 == name {print $2}'
}
cpu() { # the cores busy over cpu_seconds of the server and of process $1 (the sessions; 0 for
    # none), and the feed's messages a second meanwhile
    local t0 r0 m0 t1 r1 m1
    t0="$(cpu_ticks "$server")" r0=0 m0="$(metric signet_mqtt_messages_total)"
    [ "$1" = 0 ] || r0="$(cpu_ticks "$1")"
    sleep "$cpu_seconds"
    t1="$(cpu_ticks "$server")" r1=0 m1="$(metric signet_mqtt_messages_total)"
    [ "$1" = 0 ] || r1="$(cpu_ticks "$1")"
    python3 -c 'import sys; t0, t1, r0, r1, hz, s, m0, m1 = map(float, sys.argv[1:]); print(f"{(t1 - t0) / hz / s:.3f} {(r1 - r0) / hz / s:.3f} {(m1 - m0) / s:.0f}")' \
        "$t0" "$t1" "$r0" "$r1" "$ticks_per_second" "$cpu_seconds" "${m0:-0}" "${m1:-0}"
}
b2() {
    "$load" --endpoint "$endpoint" --path /trading/accounts/list --seconds "$b2_seconds" --workers 32 |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["rps"])'
}
alive() { kill -0 "$server" 2>/dev/null || { echo "the server is gone" >&2; exit 1; }; }
phase() { # round, with (1) or without (0) the sessions: prints one JSON line
    local round="$1" with="$2" reader="" opened=0 dropped0 dropped1
    if [ "$with" = 1 ]; then
        rm -f "$work/ready"
        "$feed" --endpoint "$endpoint" --mqtt "$mqtt" --sessions "$sessions" \
            --ready-file "$work/ready" 2>>"$work/sessions.log" >/dev/null &
        reader=$!
        echo "$reader" >"$work/reader.pid"
        for _ in $(seq 1200); do [ -f "$work/ready" ] && break; sleep 0.1; done
        opened="$(cat "$work/ready")"
        sleep 2
    fi
    alive
    dropped0="$(metric signet_mqtt_dropped_messages_total)"
    read -r cores readers messages <<<"$(cpu "${reader:-0}")"
    rps="$(b2)"
    dropped1="$(metric signet_mqtt_dropped_messages_total)"
    alive
    if [ -n "$reader" ]; then
        kill "$reader"
        wait "$reader" 2>/dev/null || true
        rm -f "$work/reader.pid"
        sleep 2 # the server forgets the sessions
    fi
    echo "{\"round\": $round, \"sessions\": $opened, \"cores\": $cores, \"reader_cores\": $readers, \"messages_per_second\": $messages, \"dropped\": $(( ${dropped1:-0} - ${dropped0:-0} )), \"b2_rps\": $rps}"
}

results="$work/results.jsonl"
sleep 5 # the server's start-up work is over
for round in $(seq "$rounds"); do
    if [ $((round % 2)) = 1 ]; then order="0 1"; else order="1 0"; fi
    for with in $order; do
        phase "$round" "$with" | tee -a "$results" >&2
    done
done

python3 - "$results" "$cpu_seconds" "$b2_seconds" "$sessions" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
cpu_seconds, b2_seconds, sessions = sys.argv[2:5]
print(f"{sessions} sessions × 5 symbols (SNAPSHOT, QUOTE, TICK); CPU over {cpu_seconds} s, B2 over {b2_seconds} s, 32 workers")
print()
print("| round | server CPU without | with | the feed (difference) | the sessions' process | messages/s | dropped | B2 without | B2 with | B2 ratio |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in sorted({row["round"] for row in rows}):
    without = next(x for x in rows if x["round"] == r and x["sessions"] == 0)
    with_ = next(x for x in rows if x["round"] == r and x["sessions"] > 0)
    print(f"| {r} | {without['cores']:.3f} core | {with_['cores']:.3f} core | {with_['cores'] - without['cores']:.3f} core "
          f"| {with_['reader_cores']:.3f} core | {with_['messages_per_second']:,} | {with_['dropped']} | {without['b2_rps']:,.0f} req/s | {with_['b2_rps']:,.0f} req/s "
          f"| {with_['b2_rps'] / without['b2_rps']:.2f}× |")
EOF
