#!/usr/bin/env bash
# The container image's test (issue 31). These machines build images but cannot start
# containers (no cgroup controllers), so it builds the image with scripts/image.sh from a built
# binary, mounts it (`podman image mount`, a read-only overlay), binds a temporary directory on
# its /data volume, and runs the image's own entrypoint and command (read from the image's
# configuration) inside that root as the image's user, in the image's working directory, with
# the image's environment: `nsenter --root --wd --setuid --setgid`, which is `chroot --userspec`
# plus the WORKDIR that chroot cannot set. Only the port of the command's --listen changes (a
# free one). It checks the image's files and configuration, `serve --demo` (the demo app, the
# demo market, the console off on 0.0.0.0), /health, signed calls with the binary as the client,
# an admin command beside the server inside the image, and a second start on the same /data.
#
#   scripts/test-image.sh [BINARY]   # default target/debug/signet, which the test suite built
#
# Needs root (mount, chroot) and podman. Removes the image and its mounts on exit. With
# SIGNET_TEST_LOG_DIR set (scripts/test.sh sets it), leaves the server's log lines and the app
# secret there for the suite's check that no log line holds a secret.
set -euo pipefail
started=$SECONDS
# A binary named on the command line is relative to the caller's directory.
binary=""
[ $# -gt 0 ] && binary=$(realpath -m "$1")
cd "$(dirname "$0")/.."
binary="${binary:-$PWD/target/debug/signet}"
[ -x "$binary" ] || { echo "no binary at $binary: build it first (cargo build -p signet-cli)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "the image test needs root (podman image mount, mount --bind, chroot)" >&2; exit 1; }
command -v podman >/dev/null || { echo "podman is missing (apt-get install podman)" >&2; exit 1; }

work=$(mktemp -d -t signet-image-test.XXXXXX)
tag="localhost/signet-test:$$"
id=""
root=""
data_mounted=""
server=""
cleanup() {
    local status=$?
    if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    if [ -n "$data_mounted" ]; then
        umount "$data_mounted" 2>/dev/null || true
    fi
    if [ -n "$id" ]; then
        podman image umount "$id" >/dev/null 2>&1 || true
        podman rmi -f "$id" >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
    if [ $status -ne 0 ]; then
        echo "image test FAILED after $((SECONDS - started)) s" >&2
    fi
    exit $status
}
trap cleanup EXIT
fail() {
    echo "FAILED: $*" >&2
    for log in "$work"/*.log "$work"/*.out; do
        [ -f "$log" ] && { echo "--- $log" >&2; tail -n 40 "$log" >&2; }
    done
    exit 1
}

echo "building the image from $binary"
build_started=$SECONDS
scripts/image.sh --binary "$binary" --tag "$tag" --iidfile "$work/iid"
id=$(cat "$work/iid")
echo "    (built in $((SECONDS - build_started)) s)"

# The configuration the Containerfile promises.
config() { podman image inspect --format "$1" "$id"; }
expect() { [ "$2" = "$3" ] || fail "$1: expected '$3', found '$2'"; }
expect "user" "$(config '{{.Config.User}}')" "10001:10001"
expect "working directory" "$(config '{{.Config.WorkingDir}}')" "/data"
expect "entrypoint" "$(config '{{json .Config.Entrypoint}}')" '["/usr/local/bin/signet"]'
expect "command" "$(config '{{json .Config.Cmd}}')" '["serve","--listen","0.0.0.0:8080"]'
expect "volumes" "$(config '{{json .Config.Volumes}}')" '{"/data":{}}'
expect "exposed ports" "$(config '{{json .Config.ExposedPorts}}')" '{"8080/tcp":{}}'
expect "title label" "$(config '{{index .Labels "org.opencontainers.image.title"}}')" "signet"
licenses=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^license *= *"\(.*\)"/\1/p' Cargo.toml)
expect "licenses label" "$(config '{{index .Labels "org.opencontainers.image.licenses"}}')" "$licenses"
mapfile -t entrypoint < <(config '{{range .Config.Entrypoint}}{{println .}}{{end}}' | sed '/^$/d')
mapfile -t cmd < <(config '{{range .Config.Cmd}}{{println .}}{{end}}' | sed '/^$/d')
mapfile -t environment < <(config '{{range .Config.Env}}{{println .}}{{end}}' | sed '/^$/d')

root=$(podman image mount "$id")
# Nothing but the binary, /etc's four files and the shared libraries: no shell, no package manager.
unexpected=$(find "$root" \( -type f -o -type l \) -printf './%P\n' |
    grep -vE '^\./(usr/local/bin/signet|etc/(passwd|group|nsswitch\.conf|ssl/certs/ca-certificates\.crt)|(usr/)?lib(64|x32|32)?/([^/]+/)?(ld-linux[^/]*|lib[^/]*\.so[.0-9]*))$' || true)
[ -z "$unexpected" ] || fail "unexpected files in the image: $unexpected"
for program in bin/sh bin/bash usr/bin/sh usr/bin/apt usr/bin/dpkg; do
    [ ! -e "$root/$program" ] || fail "the image holds /$program"
done
expect "owner and mode of /data" "$(stat -c '%u:%g %a' "$root/data")" "10001:10001 700"
grep -q '^signet:x:10001:10001:' "$root/etc/passwd" || fail "no user signet (10001) in /etc/passwd"
echo "image files: $(cd "$root" && find . -type f | wc -l), $(du -sh --apparent-size "$root" | cut -f1) unpacked"

# The /data volume: a fresh directory, as a new named volume would be (owned by the image's user).
volume="$work/volume"
mkdir -m 0700 "$volume"
chown 10001:10001 "$volume"
mount --bind "$volume" "$root/data"
data_mounted="$root/data"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run_command=()
for argument in "${cmd[@]}"; do
    run_command+=("${argument/#0.0.0.0:8080/0.0.0.0:$port}")
done
# Inside the image as a container runtime starts it: its environment (and HOME from its passwd),
# its user, its working directory. env and nsenter exec what follows: one process, the server.
user=$(config '{{.Config.User}}')
in_image=(env -i "${environment[@]}" HOME=/data
    nsenter --root="$root" --wd="$root$(config '{{.Config.WorkingDir}}')" --setuid="${user%:*}" --setgid="${user#*:}")
start_server() { # NAME ARGS...: starts the image's entrypoint, waits until it listens
    local name=$1
    shift
    "${in_image[@]}" "${entrypoint[@]}" "$@" >"$work/$name.out" 2>"$work/$name.log" &
    server=$!
    for _ in $(seq 1200); do
        grep -q 'signet listening' "$work/$name.log" 2>/dev/null && return 0
        kill -0 "$server" 2>/dev/null || fail "$name: the server exited before listening"
        sleep 0.1
    done
    fail "$name: not listening after 120 s"
}
stop_server() { # NAME: SIGTERM, as `podman stop` sends; the server must stop cleanly
    local status=0
    kill -TERM "$server"
    wait "$server" || status=$?
    server=""
    expect "$1: exit status after SIGTERM" "$status" 0
    grep -q 'signet stopped' "$work/$1.log" || fail "$1: no 'signet stopped' in its log"
}
base="http://127.0.0.1:$port"
# Status and body of an unsigned GET.
unsigned_get() { curl -s -w ' %{http_code}' "$base$1"; }
client() {
    env SIGNET_ENDPOINT="$base" SIGNET_APP_KEY="$app_key" SIGNET_APP_SECRET="$app_secret" "$binary" "$@"
}

echo "serve --demo in the image: ${entrypoint[*]} ${run_command[*]} --demo"
demo_started=$SECONDS
start_server demo "${run_command[@]}" --demo
echo "    (listening after $((SECONDS - demo_started)) s, the demo market loaded)"
app_key=$(sed -n 's/^  SIGNET_APP_KEY=//p' "$work/demo.out")
app_secret=$(sed -n 's/^  SIGNET_APP_SECRET=//p' "$work/demo.out")
[ -n "$app_key" ] || fail "serve --demo printed no app key"
[ -n "$app_secret" ] || fail "serve --demo printed no app secret"
accounts=$(sed -n 's/^  accounts: \([^ ]*\) (CASH), \([^ ]*\) (MARGIN).*/\1 \2/p' "$work/demo.out")
[ -n "$accounts" ] || fail "serve --demo printed no accounts"
if [ -n "${SIGNET_TEST_LOG_DIR:-}" ]; then
    echo "$app_secret" >"$SIGNET_TEST_LOG_DIR/image.secrets"
fi

health=$(curl -fsS "$base/health") || fail "/health did not answer"
echo "/health: $health"
# On 0.0.0.0 the console and /metrics are off unless asked for: their paths are then the signed
# interface's, which refuses an unsigned request.
! grep -q '^Console' "$work/demo.out" || fail "serve printed a console link on 0.0.0.0"
refused='{"error_code":"MISSING_APP_KEY","message":"the x-app-key header is required"} 401'
expect "GET /console/" "$(unsigned_get /console/)" "$refused"
expect "GET /metrics" "$(unsigned_get /metrics)" "$refused"
echo "the console and /metrics: off"

listed=$(client accounts list) || fail "signed accounts list failed"
for account in $accounts; do
    grep -qF "$account" <<<"$listed" || fail "accounts list lacks the demo account $account: $listed"
done
echo "signed accounts list: the demo's two accounts"
client instruments AAPL | grep -q AAPL || fail "the demo market has no AAPL"
# An admin command beside the running server, in the image, on the same /data.
"${in_image[@]}" "${entrypoint[@]}" admin apps list | grep -qF "$app_key" || fail "admin apps list in the image lacks the demo app"
echo "admin apps list in the image: the demo app"
[ -f "$volume/signet.db" ] || fail "no signet.db in /data"
expect "owner of signet.db" "$(stat -c '%u:%g' "$volume/signet.db")" "10001:10001"
expect "owner and mode of signet.db.key" "$(stat -c '%u:%g %a' "$volume/signet.db.key")" "10001:10001 600"
stop_server demo

echo "the image's command again on the same /data: ${entrypoint[*]} ${run_command[*]}"
start_server again "${run_command[@]}"
listed=$(client accounts list) || fail "signed accounts list after the restart failed"
for account in $accounts; do
    grep -qF "$account" <<<"$listed" || fail "after the restart, accounts list lacks $account"
done
echo "signed accounts list after the restart: the same accounts"
stop_server again

if [ -n "${SIGNET_TEST_LOG_DIR:-}" ]; then
    cat "$work/demo.log" "$work/again.log" >"$SIGNET_TEST_LOG_DIR/image.log"
fi
echo "image size: $(config '{{.Size}}') bytes ($(numfmt --to=iec-i --suffix=B "$(config '{{.Size}}')"))"
echo "image test passed in $((SECONDS - started)) s"
