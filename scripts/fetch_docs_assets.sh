#!/usr/bin/env bash
# Fetch Swagger UI's two files for GET /v1/docs into the docs function's folder (functions/docs/assets),
# from the pinned swagger-ui-dist npm package, checked against its registry integrity. Build time only:
# the page never loads anything from a CDN. Idempotent (the PACK stamp).
set -euo pipefail

VERSION="5.35.0"
# `npm view swagger-ui-dist@5.35.0 dist.integrity`: refuse a tarball that changed under the same version.
INTEGRITY="sha512-U06rpMtW9V3XPGOBeamTUSr0Z09jMX4IJuANpE/EZbAhw0G8CgwrzU4YmXkn/h0wCDNsXdGarTNNHC3sU8yVUQ=="

# shellcheck source=scripts/fetch_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/fetch_common.sh"  # sets $repo
dest="${1:-$repo/functions/docs/assets}"
up_to_date "$dest/PACK" "swagger-ui-dist=$VERSION" "docs assets"
stage "$dest" webcapture-docs
echo "fetching swagger-ui-dist@$VERSION"
tarball="$(npm_pack_checked "$work" "swagger-ui-dist@$VERSION" "$INTEGRITY")"
tar -xzf "$tarball" -C "$work" package/swagger-ui-bundle.js package/swagger-ui.css
mkdir -p "$staging"
cp "$work/package/swagger-ui-bundle.js" "$work/package/swagger-ui.css" "$staging/"
publish "$dest" PACK "swagger-ui-dist=$VERSION"
ls -l "$dest"
