#!/usr/bin/env bash
# Import speed into the embedded database: a generated Quandl WIKI file of 1,000 symbols x 2,000
# days (2,000,000 bars, a quarterly dividend in each adjusted close, so 31,000 derived dividends),
# imported by the release binary into a fresh database.
# Usage: scripts/bench-import.sh [symbols] [days]
set -euo pipefail
cd "$(dirname "$0")/.."
symbols="${1:-1000}"
days="${2:-2000}"
cargo build --release --quiet -p signet-cli
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$work/bars.csv" "$symbols" "$days" <<'PY'
import datetime, random, sys
path, symbols, days = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(1)
calendar = [datetime.date(2005, 1, 3) + datetime.timedelta(days=i) for i in range(days * 2)]
calendar = [d for d in calendar if d.weekday() < 5][:days]
with open(path, "w") as f:
    f.write("Ticker,Date,Open,High,Low,Close,Volume,Adj Close\n")
    for s in range(symbols):
        price, closes = 50.0, []
        for d in calendar:
            close = round(max(1.0, price * (1 + random.gauss(0, 0.02))), 2)
            closes.append((d, price, close))
            price = close
        factor, rows = 1.0, []
        for i in range(len(closes) - 1, -1, -1):
            d, o, c = closes[i]
            rows.append((d, o, c, factor))
            if i % 63 == 0 and i > 0:
                factor *= 0.99
        for d, o, c, fac in reversed(rows):
            f.write(f"S{s:04d},{d},{o:.2f},{max(o, c) * 1.01:.2f},{min(o, c) * 0.99:.2f},{c:.2f},"
                    f"{random.randint(1000, 1000000)},{c * fac:.10f}\n")
PY
echo "bars: $(($(wc -l <"$work/bars.csv") - 1)), file: $(du -h "$work/bars.csv" | cut -f1)"
# SIGNET_BIN: another build, to compare two builds in one session.
"${SIGNET_BIN:-target/release/signet}" data import --db "$work/bench.db" --json "$work/bars.csv"
