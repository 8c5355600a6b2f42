#!/usr/bin/env bash
# Issue 7 §6: no secret, signature or string to sign in any log line of the whole suite.
# Reads what the tests left in the directory SIGNET_TEST_LOG_DIR named (scripts/test.sh sets it):
# every test process's log lines (*.log, at debug level) and the app secrets it used (*.secrets).
set -euo pipefail
dir=${1:?usage: scripts/check-logs.sh DIR}
shopt -s nullglob
logs=("$dir"/*.log)
secret_files=("$dir"/*.secrets)
[ "${#logs[@]}" -gt 0 ] && [ "${#secret_files[@]}" -gt 0 ] || { echo "no logs or secrets in $dir: was SIGNET_TEST_LOG_DIR set?" >&2; exit 1; }
lines=$(cat "${logs[@]}" | wc -l)
secrets=$(sort -u "${secret_files[@]}" | grep -c .)
echo "checking $lines log lines of ${#logs[@]} test processes for $secrets app secrets, signatures and strings to sign"
failed=0
if sort -u "${secret_files[@]}" | grep -v '^$' | grep -rnF -f - "${logs[@]}"; then
    echo "an app secret is in the log lines above" >&2
    failed=1
fi
# A Base64 HMAC-SHA256 (44 characters) or HMAC-SHA1 (28) signature, alone in its word.
if grep -nE '(^|[^A-Za-z0-9+/])([A-Za-z0-9+/]{43}|[A-Za-z0-9+/]{27})=([^A-Za-z0-9+/=]|$)' "${logs[@]}"; then
    echo "something shaped like a signature is in the log lines above" >&2
    failed=1
fi
# str1 and str3 hold x-signature-nonce=...; the encoded string holds it as x-signature-nonce%3D.
if grep -nE 'x-signature-nonce(=|%3D)' "${logs[@]}"; then
    echo "a string to sign is in the log lines above" >&2
    failed=1
fi
exit $failed
