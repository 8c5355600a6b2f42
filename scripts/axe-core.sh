#!/usr/bin/env bash
# Fetches axe-core (MPL-2.0), the accessibility rules the console's browser test runs in each
# page, from the npm registry into target/ (never into the repository), checks it against the
# registry's published sha512, and prints the path of its axe.min.js.
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.14.1
integrity="sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
dir="target/axe-core-$version"
if [ ! -f "$dir/package/axe.min.js" ]; then
    mkdir -p "$dir"
    python3 - "$version" "$integrity" "$dir" <<'PY'
import base64, hashlib, io, sys, tarfile, urllib.request
version, integrity, target = sys.argv[1:]
url = f"https://registry.npmjs.org/axe-core/-/axe-core-{version}.tgz"
data = urllib.request.urlopen(url, timeout=60).read()
digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
if digest != integrity:
    sys.exit(f"axe-core {version}: the download's {digest} is not the published {integrity}")
with tarfile.open(fileobj=io.BytesIO(data)) as archive:
    for name in ("package/axe.min.js", "package/LICENSE"):
        archive.extract(name, target, filter="data")
PY
fi
echo "$PWD/$dir/package/axe.min.js"
