#!/usr/bin/env bash
# Builds the container image (container/Containerfile) from a signet binary, with podman (or
# buildah when podman is missing).
#
#   scripts/image.sh [--binary PATH] [--tag NAME] [--iidfile FILE] [--strip]
#
# Without --binary it builds one: cargo build --release --locked -p signet-cli. The image is made
# FROM scratch out of a context prepared in a temporary directory: the binary, the shared
# libraries and loader `ldd` lists for it, the CA certificates of this machine, and an /etc
# naming the user the server runs as (signet, uid and gid 10001). It prints the image's id and
# size.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: scripts/image.sh [--binary PATH] [--tag NAME] [--iidfile FILE] [--strip]

Builds the signet container image FROM scratch, with podman (or buildah).

  --binary PATH   the signet binary to put in the image (default: build one with
                  `cargo build --release --locked -p signet-cli`, target/release/signet)
  --tag NAME      the image's name (default: localhost/signet:latest)
  --iidfile FILE  also write the image's id to FILE
  --strip         drop the binary's debug information instead of compressing it (a smaller
                  image; backtraces then name functions but not files and lines)
  -h, --help      this text

The image holds the binary, the shared libraries and loader it links (from this machine, which
should run the glibc it was built against), CA certificates, and /etc/passwd and /etc/group with
the user signet (uid 10001) it runs as; no shell. Its entrypoint is `signet`, its command
`serve --listen 0.0.0.0:8080`, its working directory and volume /data (signet.db and its key).
EOF
}

binary=""
tag="localhost/signet:latest"
iidfile=""
strip=""
while [ $# -gt 0 ]; do
    case "$1" in
    --binary) binary="${2:?--binary needs a path}"; shift 2 ;;
    --tag) tag="${2:?--tag needs a name}"; shift 2 ;;
    --iidfile) iidfile="${2:?--iidfile needs a file}"; shift 2 ;;
    --strip) strip=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

# Paths given are relative to the caller's directory; the rest to the repository's root.
[ -n "$binary" ] && binary=$(realpath -m "$binary")
[ -n "$iidfile" ] && iidfile=$(realpath -m "$iidfile")
cd "$(dirname "$0")/.."

if command -v podman >/dev/null; then
    build=(podman build)
elif command -v buildah >/dev/null; then
    build=(buildah build)
else
    echo "neither podman nor buildah is installed (apt-get install podman)" >&2
    exit 1
fi

if [ -z "$binary" ]; then
    cargo build --release --locked -p signet-cli
    binary=target/release/signet
fi
if [ ! -f "$binary" ] || [ ! -x "$binary" ]; then
    echo "not an executable file: $binary" >&2
    exit 1
fi
certificates=/etc/ssl/certs/ca-certificates.crt
[ -f "$certificates" ] || { echo "$certificates is missing (apt-get install ca-certificates)" >&2; exit 1; }

# From [workspace.package] in Cargo.toml.
workspace_value() {
    sed -n '/^\[workspace\.package\]/,/^\[/s/^'"$1"' *= *"\(.*\)"/\1/p' Cargo.toml
}
version=$(workspace_value version)
licenses=$(workspace_value license)

context=$(mktemp -d -t signet-image.XXXXXX)
trap 'rm -rf "$context"' EXIT
rootfs="$context/rootfs"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc/ssl/certs" "$rootfs/tmp" "$rootfs/data"
chmod 1777 "$rootfs/tmp"
chmod 0700 "$rootfs/data"
# Line tables ([profile.release] debug = "line-tables-only", for readable backtraces) are three
# quarters of the binary: compressed (zlib, which Rust's backtraces read), they are a third of that.
if ! command -v objcopy >/dev/null; then
    echo "objcopy is missing (apt-get install binutils): the binary goes in as it is" >&2
    cp "$binary" "$rootfs/usr/local/bin/signet"
elif [ -n "$strip" ]; then
    objcopy --strip-debug "$binary" "$rootfs/usr/local/bin/signet"
else
    objcopy --compress-debug-sections=zlib "$binary" "$rootfs/usr/local/bin/signet"
fi
chmod 0755 "$rootfs/usr/local/bin/signet"

# What the dynamic loader needs: each library at the path ldd resolved (following symlinks, so
# the image holds files, not links into a tree it lacks), and the loader at the path the binary
# names. A static binary needs none ("not a dynamic executable").
if ldd_output=$(ldd "$binary" 2>&1); then
    if grep -q 'not found' <<<"$ldd_output"; then
        echo "ldd cannot resolve every library of $binary:" >&2
        echo "$ldd_output" >&2
        exit 1
    fi
    mapfile -t libraries < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$ldd_output")
    for library in "${libraries[@]}"; do
        mkdir -p "$rootfs$(dirname "$library")"
        cp -L "$library" "$rootfs$library"
    done
elif ! grep -q 'not a dynamic executable' <<<"$ldd_output"; then
    echo "ldd failed on $binary: $ldd_output" >&2
    exit 1
fi

cp -L "$certificates" "$rootfs$certificates"
cat >"$rootfs/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
signet:x:10001:10001:signet:/data:/sbin/nologin
EOF
cat >"$rootfs/etc/group" <<'EOF'
root:x:0:
signet:x:10001:
EOF
# glibc's default order for hosts is DNS before /etc/hosts; containers expect the file first.
cat >"$rootfs/etc/nsswitch.conf" <<'EOF'
passwd: files
group: files
hosts: files dns
EOF
chmod 0644 "$rootfs"/etc/passwd "$rootfs"/etc/group "$rootfs"/etc/nsswitch.conf

labels=(--label "org.opencontainers.image.version=$version")
revision=$(git rev-parse HEAD 2>/dev/null || true)
if [ -n "$revision" ]; then
    git diff --quiet HEAD 2>/dev/null || revision="$revision-dirty"
    labels+=(--label "org.opencontainers.image.revision=$revision")
fi
# The source: the repository's remote, without any credentials in it.
source_url=$(git remote get-url origin 2>/dev/null | sed -E 's#^([a-z+]+://)[^/@]*@#\1#' || true)
[ -n "$source_url" ] && labels+=(--label "org.opencontainers.image.source=$source_url")
labels+=(--label "org.opencontainers.image.created=$(date -u +%Y-%m-%dT%H:%M:%SZ)")

# Owners are set in the archive, so that a build without root privileges gives the same image.
tar --create --file "$context/rootfs.tar" --directory "$rootfs" --numeric-owner --owner=0 --group=0 \
    --exclude=./data .
tar --append --file "$context/rootfs.tar" --directory "$rootfs" --numeric-owner --owner=10001 --group=10001 \
    ./data
rm -rf "$rootfs"

# One layer (--layers=false): nothing to cache between builds, and no intermediate images left.
"${build[@]}" --quiet --layers=false --file container/Containerfile --tag "$tag" \
    --build-arg "LICENSES=$licenses" "${labels[@]}" --iidfile "$context/iid" "$context" >/dev/null
id=$(cat "$context/iid")
if [ -n "$iidfile" ]; then
    cp "$context/iid" "$iidfile"
fi
echo "image $tag: $id"
if [ "${build[0]}" = podman ]; then
    size=$(podman image inspect --format '{{.Size}}' "$id")
    echo "size: $size bytes ($(numfmt --to=iec-i --suffix=B "$size"))"
else
    echo "size: $(buildah images --noheading --format '{{.Size}}' "$id")"
fi
