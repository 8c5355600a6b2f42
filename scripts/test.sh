#!/usr/bin/env bash
# Runs every test of the project: formatting and lints, the Rust suite (signing vectors and
# properties, a real server on loopback ports, the CLI binary), and interoperability with the
# official Python client, for which it prepares a virtualenv (.venv, or $SIGNET_VENV); then the
# server's suite again on PostgreSQL, and the tests that need PostgreSQL and Redis together
# (several nodes), on servers that scripts/services.sh installs and starts on loopback.
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
echo "==> PostgreSQL and Redis"
eval "$(scripts/services.sh start)"
# Each PostgreSQL test makes a database of its own; those of earlier runs go first.
scripts/services.sh clean
export SIGNET_REQUIRE_SERVICES=1

echo "==> cargo test (SQLite, the embedded default)"
cargo test --workspace --locked
echo "==> cargo test (the server's suite on PostgreSQL)"
SIGNET_TEST_BACKEND=postgres cargo test -p signet-server --tests --locked
echo "==> all tests passed"
