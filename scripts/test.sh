#!/usr/bin/env bash
# Runs every test of the project: formatting and lints, the Rust suite (signing vectors and
# properties, a real server on loopback ports, the CLI binary), and interoperability with the
# official Python client, for which it prepares a virtualenv (.venv, or $SIGNET_VENV), and with
# the earlier SDK generation (.venv-sdk01, or $SIGNET_SDK01_VENV); then the
# server's suite again on PostgreSQL, and the tests that need PostgreSQL and Redis together
# (several nodes), on servers that scripts/services.sh starts on loopback; the web console in
# Debian's headless Chromium; and the container image, built with podman and run from its
# mounted root (scripts/test-image.sh, as root). A fresh Debian machine needs nothing else: the
# first phase installs the Debian packages these use.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

# Each phase says how long it took, and the end how long all of them did. A phase that fails
# stops the run at once, with one line that names the phase and the cause, the command that
# failed (to run again by itself, with the SIGNET_* variables shown) and what to do.
started=$SECONDS
phase_started=$SECONDS
phase_name=""
phase() {
    if [ -n "$phase_name" ]; then
        echo "    ($phase_name: $((SECONDS - phase_started)) s)"
    fi
    phase_name="$1"
    phase_started=$SECONDS
    echo "==> $1"
}
fail() { # fail CAUSE [WHAT TO DO...]
    echo "==> FAILED in phase \"$phase_name\" after $((SECONDS - phase_started)) s: $1" >&2
    shift
    local line
    for line in "$@"; do
        [ -n "$line" ] && echo "    $line" >&2
    done
    exit 1
}
must() { # must WHAT-TO-DO COMMAND...: runs the command; if it fails, stops the run
    local hint=$1
    shift
    "$@" || fail "exit $? from: $(printf '%q ' "$@")" "$hint" \
        "with: $(env | grep -E '^SIGNET_[A-Z0-9_]+=' | grep -vE '_(SECRET|KEY)=' | sort | tr '\n' ' ' || true)"
}
# Anything not run through must still names its phase and command when it fails.
trap 'echo "==> FAILED in phase \"$phase_name\": exit $? from: $BASH_COMMAND" >&2' ERR

# Debian's packages the phases below use, installed once when a fresh machine lacks them (as
# root, or with sudo): the virtualenvs' python3-venv, PostgreSQL and Redis (scripts/services.sh),
# Chromium and ChromeDriver for the console's browser test (with their recommended packages, the
# fonts the test was written with), podman for the image test (none of its recommended packages:
# buildah's binary and the rootless helpers are not used).
phase "Debian's packages (python3-venv, PostgreSQL, Redis, Chromium, podman)"
sudo=()
if [ "$(id -u)" != 0 ]; then
    sudo=(sudo)
fi
apt_updated=""
apt_install() { # apt_install [apt-get install's options] PACKAGE...
    [ "$(id -u)" = 0 ] || command -v sudo >/dev/null ||
        fail "$* missing, and installing them needs root" "run as root, or install them: apt-get install $*"
    if [ -z "$apt_updated" ]; then
        echo "    apt-get update"
        must "Debian's package index must be reachable" "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        apt_updated=1
    fi
    echo "    installing $*"
    must "see apt-get's error above" "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || apt_install python3-venv
command -v podman >/dev/null || apt_install --no-install-recommends podman
[ -x /usr/bin/chromedriver ] || apt_install chromium chromium-driver
must "see the error above" scripts/services.sh install

# PostgreSQL and Redis start before anything is built: a port in use or a directory their user
# cannot write stops the run here, in seconds, not after the build.
phase "PostgreSQL and Redis"
services=$(scripts/services.sh start) ||
    fail "PostgreSQL or Redis did not start (the line above says why)" \
        "to reproduce: $(env | grep -E '^SIGNET_(PG_PORT|PG_DATA|REDIS_PORT|SERVICES_DIR)=' | tr '\n' ' ' || true)scripts/services.sh start"
eval "$services"
# Each PostgreSQL test makes a database of its own; those of earlier runs go first.
must "" scripts/services.sh clean
export SIGNET_REQUIRE_SERVICES=1
if [ "${SIGNET_SERVICES_CHECK:-on}" != off ]; then
    phase "scripts/services.sh and this script stop at once when PostgreSQL or Redis cannot start"
    must "" scripts/test-services.sh
fi

venv="${SIGNET_VENV:-$PWD/.venv}"
if [ ! -x "$venv/bin/python" ]; then
    phase "creating the Python virtualenv $venv"
    must "python3 -m venv needs Debian's python3-venv" python3 -m venv "$venv"
fi
phase "official Python client (webull-openapi-python-sdk 3.0.4)"
must "PyPI must be reachable" \
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'webull-openapi-python-sdk==3.0.4'
export SIGNET_PYTHON="$venv/bin/python"
# schemathesis checks the OpenAPI document against a running server (tests/schemathesis.rs); a
# virtualenv of its own, so that its dependencies and the official client's never meet.
st_venv="${SIGNET_SCHEMATHESIS_VENV:-$PWD/.venv-schemathesis}"
if [ ! -x "$st_venv/bin/python" ]; then
    phase "creating the Python virtualenv $st_venv"
    must "python3 -m venv needs Debian's python3-venv" python3 -m venv "$st_venv"
fi
phase "schemathesis"
must "PyPI must be reachable" \
    "$st_venv/bin/python" -m pip install --quiet --disable-pip-version-check 'schemathesis==4.32.5' 'hypothesis==6.170.15'
export SIGNET_SCHEMATHESIS="$st_venv/bin/python"
# The earlier SDK generation (tests/api/earlier_sdk.rs and gateway.rs), in a virtualenv of its
# own: its packages pin old versions of their dependencies (and RSA signing its calls never
# import), so they are installed without them, with what their imports need pinned here (the
# gRPC, protobuf and MQTT versions the current client's virtualenv uses).
sdk01_venv="${SIGNET_SDK01_VENV:-$PWD/.venv-sdk01}"
if [ ! -x "$sdk01_venv/bin/python" ]; then
    phase "creating the Python virtualenv $sdk01_venv"
    must "python3 -m venv needs Debian's python3-venv" python3 -m venv "$sdk01_venv"
fi
phase "the earlier SDK generation (webull-python-sdk-core/-trade/-mdata/-quotes-core 0.1.18)"
must "PyPI must be reachable" \
    "$sdk01_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
    'webull-python-sdk-core==0.1.18' 'webull-python-sdk-trade==0.1.18' 'webull-python-sdk-mdata==0.1.18' \
    'webull-python-sdk-quotes-core==0.1.18' 'jmespath==0.10.0' 'cachetools==5.2.0' \
    'grpcio==1.59.5' 'protobuf==4.25.9' 'paho-mqtt==1.6.1'
export SIGNET_PYTHON_SDK01="$sdk01_venv/bin/python"
export SIGNET_REQUIRE_INTEROP=1

phase "axe-core (the console's accessibility rules, from the npm registry)"
SIGNET_AXE_JS=$(scripts/axe-core.sh) || fail "axe-core could not be fetched (see above): the npm registry must be reachable" \
    "to reproduce: scripts/axe-core.sh"
export SIGNET_AXE_JS
export SIGNET_REQUIRE_BROWSER=1

phase "cargo fmt"
must "cargo fmt --all formats the code" cargo fmt --all -- --check

phase "build, with clippy's lints as errors"
# Clippy lints the workspace's own crates while they build for the tests: clippy-driver wraps
# rustc for them, as `cargo clippy` does for its check, with `-D warnings` (CLIPPY_ARGS is how
# cargo-clippy hands it arguments). Every dependency is then compiled once, instead of once
# checked for clippy and once built for the tests. The variables stay set for the cargo calls
# below, which would otherwise build the workspace's crates again.
export RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
must "the compiler's or clippy's errors are above (run again with the two variables above exported)" \
    cargo test --workspace --all-targets --locked --no-run

# Every test process keeps its log lines (debug level) and the app secrets it used here, for the
# check at the end: no secret, signature or string to sign in any log line.
export SIGNET_TEST_LOG_DIR="${SIGNET_TEST_LOG_DIR:-$(mktemp -d -t signet-test-logs.XXXXXX)}"

phase "cargo test (SQLite, the embedded default)"
must "the failing tests are named above; one alone: cargo test -p CRATE --test NAME -- TEST" \
    cargo test --workspace --locked

phase "cargo test (the server's suite on PostgreSQL)"
# The server's test binary that the workspace pass built: `cargo test -p signet-server` alone
# would unify dependency features differently and build everything again (minutes of CI).
mapfile -t server_tests < <(cargo test --workspace --locked --tests --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if (m.get("reason") == "compiler-artifact" and m["target"]["kind"] == ["test"]
            and m.get("executable") and "/crates/server#" in m["package_id"]):
        print(m["executable"])')
[ "${#server_tests[@]}" -gt 0 ] || fail "no server test binary found in cargo's list of artifacts"
# The tests of the wire alone (the OpenAPI document and schemathesis, the guards on sizes and
# times, the browser, and the Python clients' protocol suites) ran on SQLite above; what they
# would store on PostgreSQL the other tests store too. Left out here, they keep CI under its 30
# minutes.
wire_only=(schemathesis:: console_browser:: earlier_sdk:: gateway:: official_client:: streaming_measure::
    hostile:: guards:: openapi::)
skips=()
for module in "${wire_only[@]}"; do
    skips+=(--skip "$module")
done
for binary in "${server_tests[@]}"; do
    must "the failing tests are named above (run from crates/server)" \
        env -C crates/server SIGNET_TEST_BACKEND=postgres "$binary" --quiet "${skips[@]}"
done
phase "the container image (built, mounted, its entrypoint run inside as its user)"
# The binary the workspace pass built for the CLI's tests.
must "the image test's error is above" scripts/test-image.sh "${CARGO_TARGET_DIR:-target}/debug/signet"
phase "the whole suite's logs"
must "a secret reached a log line: the lines are above" scripts/check-logs.sh "$SIGNET_TEST_LOG_DIR"
echo "    ($phase_name: $((SECONDS - phase_started)) s)"
echo "==> all tests passed in $((SECONDS - started)) s"
