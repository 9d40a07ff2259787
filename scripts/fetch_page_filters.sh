#!/usr/bin/env bash
# Fetch what blockAds and blockCookieBanners run on into a "page filters" folder, at build time only (the
# service never fetches a list at run time):
#
#   adblock-engine.br           Brave's adblock-rust engine (PyPI `adblock`), compiled from EasyList,
#                               EasyPrivacy and uBlock Origin's own lists and serialized, brotli-compressed
#   autoconsent.playwright.js   DuckDuckGo's consent-popup library (npm @duckduckgo/autoconsent), the
#   autoconsent-rules.json      bundle made for Playwright, and its compact opt-out rule set
#   LICENSES/                   the lists' and the rules' licences
#   FILTERS                     what is in here (the idempotence stamp)
#
# The lists come from Debian's webext-ublock-origin-chromium (apt checks it against the signed archive
# index; we also check the .deb's sha256), autoconsent from npm (checked against its published integrity).
# The same folder is what the BrowserLayer ships at /opt/page-filters.
#
# Usage: scripts/fetch_page_filters.sh [dest]   (default: $WEBCAPTURE_PAGE_FILTERS or <repo>/.cache/page-filters)
# Needs: npm, apt-get (run `apt-get update` once on a fresh machine), dpkg-deb, and a Python with the pinned
# `adblock` and `brotli` (the repo's venv: $PYTHON, default <repo>/.venv/bin/python).
set -euo pipefail

UBLOCK_DEB="webext-ublock-origin-chromium=1.67.0+dfsg-1~deb12u1"
# sha256 of that .deb: refuse one that changed under the same version.
UBLOCK_DEB_SHA256="7c43dd25f680613f2a7e83bc643e42eec624a8f47a3822518123e48e87a143f4"
AUTOCONSENT_VERSION="16.23.0"
# From `npm view @duckduckgo/autoconsent@16.23.0 dist.integrity`.
AUTOCONSENT_INTEGRITY="sha512-NTmDhASFf5pUsSwg2TyT9R75GYUcuYZXPyBnRcYgJgozg6RLeXXP9uH8ADxA364yQ2gJBMu83AN/D24Y4nkPKg=="
# The network and cosmetic lists the engine is compiled from (paths inside the extension's assets/).
LISTS=(
    thirdparties/easylist/easylist.txt
    thirdparties/easylist/easyprivacy.txt
    ublock/filters.min.txt
    ublock/privacy.min.txt
    ublock/badware.min.txt
    ublock/unbreak.min.txt
    ublock/quick-fixes.min.txt
)

# shellcheck source=scripts/fetch_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/fetch_common.sh"  # sets $repo
dest="${1:-${WEBCAPTURE_PAGE_FILTERS:-$repo/.cache/page-filters}}"
python="${PYTHON:-$repo/.venv/bin/python}"
adblock_version="$("$python" -c 'import adblock; print(adblock.__version__)')"
# The serialized engine only loads in the adblock release that wrote it: its version is part of the stamp.
want="$UBLOCK_DEB @duckduckgo/autoconsent=$AUTOCONSENT_VERSION adblock=$adblock_version"

up_to_date "$dest/FILTERS" "$want" "page filters"
stage "$dest" webcapture-filters
mkdir -p "$staging/LICENSES" "$work/deb"

echo "fetching $UBLOCK_DEB"
apt_download "$work/deb" "$work/apt.log" "$UBLOCK_DEB"
deb="$(echo "$work"/deb/*.deb)"
got="$(sha256sum "$deb" | cut -d' ' -f1)"
if [[ "$got" != "$UBLOCK_DEB_SHA256" ]]; then
    echo "sha256 mismatch for $deb: $got" >&2
    exit 1
fi
dpkg-deb -x "$deb" "$work/root"
assets="$work/root/usr/share/chromium/extensions/ublock-origin/assets"
cp "$work/root/usr/share/doc/webext-ublock-origin-chromium/copyright" "$staging/LICENSES/ublock-origin-lists"

echo "compiling the filter engine (adblock $adblock_version)"
"$python" "$repo/scripts/build_filter_engine.py" "$staging/adblock-engine.br" "${LISTS[@]/#/$assets/}"

echo "fetching @duckduckgo/autoconsent@$AUTOCONSENT_VERSION"
tarball="$(npm_pack_checked "$work" "@duckduckgo/autoconsent@$AUTOCONSENT_VERSION" "$AUTOCONSENT_INTEGRITY")"
tar -xzf "$tarball" -C "$work" package/dist/autoconsent.playwright.js package/rules/compact-rules.json \
    package/LICENSE
cp "$work/package/dist/autoconsent.playwright.js" "$staging/"
cp "$work/package/rules/compact-rules.json" "$staging/autoconsent-rules.json"
cp "$work/package/LICENSE" "$staging/LICENSES/autoconsent"

publish "$dest" FILTERS "$want"

echo "page filters ready: $dest"
du -b "$dest"/* | awk '{printf "  %6.2f MB  %s\n", $1 / 1e6, $2}'
du -sb "$dest" | awk '{printf "  %6.2f MB  total\n", $1 / 1e6}'
