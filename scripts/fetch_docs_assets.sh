#!/usr/bin/env bash
# Fetch Swagger UI's two files for GET /v1/docs into the docs function's folder (functions/docs/assets),
# from the pinned swagger-ui-dist npm package, checked against its registry integrity. Build time only:
# the page never loads anything from a CDN. Idempotent (the PACK stamp).
set -euo pipefail

VERSION="5.35.0"
# `npm view swagger-ui-dist@5.35.0 dist.integrity`: refuse a tarball that changed under the same version.
INTEGRITY="sha512-U06rpMtW9V3XPGOBeamTUSr0Z09jMX4IJuANpE/EZbAhw0G8CgwrzU4YmXkn/h0wCDNsXdGarTNNHC3sU8yVUQ=="

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$repo/functions/docs/assets}"
want="swagger-ui-dist=$VERSION"
if [[ -f "$dest/PACK" && "$(cat "$dest/PACK")" == "$want" ]]; then
    echo "docs assets up to date: $dest"
    exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/webcapture-docs.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "fetching swagger-ui-dist@$VERSION"
tarball="$(cd "$work" && npm pack --silent "swagger-ui-dist@$VERSION" 2>/dev/null | tail -n1)"
got="$(python3 -c 'import base64, hashlib, sys
print("sha512-" + base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$work/$tarball")"
if [[ "$got" != "$INTEGRITY" ]]; then
    echo "integrity mismatch for $tarball: $got" >&2
    exit 1
fi
tar -xzf "$work/$tarball" -C "$work" package/swagger-ui-bundle.js package/swagger-ui.css
mkdir -p "$dest"
cp "$work/package/swagger-ui-bundle.js" "$work/package/swagger-ui.css" "$dest/"
echo "$want" > "$dest/PACK"
ls -l "$dest"
