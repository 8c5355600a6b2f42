#!/usr/bin/env bash
# What the metrics layers cost: B0 of scripts/bench.sh (GET /trading/accounts/list, authentication
# off) with the metrics layers and without them (--benchmark-no-metrics), taking turns in one run
# (each round in another order), so that the machine's drift falls on both alike. With
# SIGNET_BIN_BEFORE, the B0 of another benchmark build takes turns too (two builds, one run).
# Usage: [SIGNET_BIN_BEFORE=PATH] scripts/bench-metrics.sh [seconds] [rounds]   (default 10 s, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
rounds="${2:-3}"
workers=32

echo "==> building (release, benchmark-no-auth)" >&2
cargo build --release --quiet -p signet-cli --features benchmark-no-auth --target-dir target/bench
cargo build --release --quiet -p signet-client --example load --target-dir target/bench
signet="$PWD/target/bench/release/signet"
load="$PWD/target/bench/release/examples/load"

work="$(mktemp -d)"
server=""
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
export SIGNET_RATE_LIMITS=off
export SIGNET_MASTER_KEY="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
db="$work/b.db"
creds="$("$signet" admin apps create --db "$db" --name bench --json)"
SIGNET_APP_KEY="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["app_key"])' "$creds")"
export SIGNET_APP_KEY
port=18481

# name, then the server binary and its options
variants=("metrics|$signet --benchmark-no-auth" "no-metrics|$signet --benchmark-no-auth --benchmark-no-metrics")
if [ -n "${SIGNET_BIN_BEFORE:-}" ]; then variants+=("before|$SIGNET_BIN_BEFORE --benchmark-no-auth"); fi
results="$work/results.txt"
# The server's CPU time so far, in clock ticks: CPU per request moves less than requests per
# second when other work shares the machine.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for round in $(seq "$rounds"); do
    for i in "${!variants[@]}"; do
        variant="${variants[$(((i + round - 1) % ${#variants[@]}))]}"
        name="${variant%%|*}"
        read -r -a command <<<"${variant#*|}"
        # A log of its own: a reused one could show the previous server's "listening" line.
        log="$work/server-$round-$name.log"
        "${command[@]:0:1}" serve --db "$db" --listen "127.0.0.1:$port" "${command[@]:1}" 2>"$log" >/dev/null &
        server=$!
        for _ in $(seq 300); do grep -q 'listening' "$log" && break; sleep 0.1; done
        before="$(cpu "$server")"
        out="$("$load" --endpoint "http://127.0.0.1:$port" --path /trading/accounts/list --seconds "$seconds" \
            --workers "$workers" --app-key-only)"
        out="${out%\}}, \"server_cpu_s\": $(python3 -c "print(($(cpu "$server") - $before) / $(getconf CLK_TCK))")}"
        kill "$server"
        wait "$server" 2>/dev/null || true
        server=""
        echo "round $round $name: $out" >&2
        echo "$round $name $out" >>"$results"
    done
done

python3 - "$results" <<'EOF'
import json, statistics, sys
rps, cpu = {}, {}
for line in open(sys.argv[1]):
    _, name, answer = line.split(" ", 2)
    answer = json.loads(answer)
    rps.setdefault(name, []).append(answer["rps"])
    cpu.setdefault(name, []).append(answer["server_cpu_s"] * 1e6 / answer["requests"])
base, base_cpu = statistics.median(rps["no-metrics"]), statistics.median(cpu["no-metrics"])
for name, values in rps.items():
    median, median_cpu = statistics.median(values), statistics.median(cpu[name])
    print(f"{name:>10}: {' / '.join(f'{v:,}' for v in values)} req/s, median {median:,.0f} "
          f"({median / base:.3f} of no-metrics); server CPU per request "
          f"{' / '.join(f'{v:.1f}' for v in cpu[name])} µs, median {median_cpu:.1f} ({median_cpu / base_cpu:.3f})")
EOF
