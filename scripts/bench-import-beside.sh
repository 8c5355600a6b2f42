#!/usr/bin/env bash
# Signed writes beside a large import (SQLite): the release server on a file holding the real
# prices, `signet data import` of a made-up price file (the layout of the CLI tests'
# `made_up_prices`: 2,000 symbols x 500 days, 1,000,000 bars) in a process of its own, and the
# load generator placing limit orders (4 workers, closed loop) from its start to its end.
# Usage: scripts/bench-import-beside.sh [symbols] [seconds of load alone]   (default: 2000, 4)
# SIGNET_BIN: another build of the server and the importer, to compare two builds in one session.
set -euo pipefail
cd "$(dirname "$0")/.."
symbols="${1:-2000}"
seconds="${2:-4}"
cargo build --release --quiet -p signet-cli
cargo build --release --quiet -p signet-client --example load
signet="${SIGNET_BIN:-$PWD/target/release/signet}"
load="$PWD/target/release/examples/load"
work="$(mktemp -d)"
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
port=18283

python3 - "$work/prices.csv" "$symbols" <<'PY'
import datetime, sys
path, symbols = sys.argv[1], int(sys.argv[2])
days = [datetime.date(2010, 1, 4) + datetime.timedelta(days=n) for n in range(700)]
days = [d for d in days if d.weekday() < 5][:500]
with open(path, "w") as f:
    f.write("Ticker,Date,Open,High,Low,Close,Volume,Adj Close\n")
    for s in range(symbols):
        for n, d in enumerate(days):
            p = 20.0 + s % 97 + (n % 13) * 0.25
            f.write(f"Z{s:04d},{d},{p:.2f},{p + 0.5:.2f},{p - 0.5:.2f},{p:.2f},{1000 + n},{p:.2f}\n")
PY
"$signet" data import --db "$work/bench.db" --json data/demo/daily_ohlcv_2000_2013.csv.gz >/dev/null
creds="$("$signet" admin apps create --db "$work/bench.db" --name bench --json)"
export SIGNET_APP_KEY="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["app_key"])' "$creds")"
export SIGNET_APP_SECRET="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["app_secret"])' "$creds")"
account="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["account_ids"][1])' "$creds")"

SIGNET_RATE_LIMITS=off "$signet" serve --listen "127.0.0.1:$port" --db "$work/bench.db" 2>"$work/server.log" &
server=$!
for _ in $(seq 100); do grep -q 'listening' "$work/server.log" 2>/dev/null && break; sleep 0.1; done
printf 'place LIMIT orders, no import, workers=4 seconds=%s:         ' "$seconds"
"$load" --endpoint "http://127.0.0.1:$port" --place "$account" --seconds "$seconds" --workers 4

touch "$work/importing"
started=$(date +%s.%N)
(
    "$signet" data import --db "$work/bench.db" --json "$work/prices.csv" >"$work/import.json" 2>"$work/import.err" \
        || touch "$work/failed"
    rm "$work/importing"
) &
importer=$!
printf 'place LIMIT orders during the import, workers=4:              '
"$load" --endpoint "http://127.0.0.1:$port" --place "$account" --seconds 600 --workers 4 --while-file "$work/importing"
wait "$importer"
[ ! -e "$work/failed" ] || { echo "the import failed:"; cat "$work/import.err"; exit 1; }
finished=$(date +%s.%N)
python3 - "$work/import.json" "$started" "$finished" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
summary = json.JSONDecoder().raw_decode(text)[0]
print(f"import: {summary['rows']} rows, {summary['bars_changed']} bars changed, "
      f"{summary['seconds']:.2f} s (with the snapshots' refresh: {float(sys.argv[3]) - float(sys.argv[2]):.2f} s)")
PY
