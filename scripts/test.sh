#!/usr/bin/env bash
# Runs every test of the project: formatting and lints, the Rust suite (signing vectors and
# properties, a real server on loopback ports, the CLI binary), and interoperability with the
# official Python client, for which it prepares a virtualenv (.venv, or $SIGNET_VENV).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${SIGNET_VENV:-$PWD/.venv}"
if [ ! -x "$venv/bin/python" ]; then
    echo "==> creating the Python virtualenv $venv"
    python3 -m venv "$venv"
fi
echo "==> official Python client (webull-openapi-python-sdk 3.0.4)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'webull-openapi-python-sdk==3.0.4'
export SIGNET_PYTHON="$venv/bin/python"
export SIGNET_REQUIRE_INTEROP=1

echo "==> cargo fmt"
cargo fmt --all -- --check
echo "==> cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "==> cargo test"
cargo test --workspace --locked
echo "==> all tests passed"
