#!/usr/bin/env bash
# Fetch the one Chromium build webcapture runs everywhere (Lambda, dev, CI) into a "pack" folder:
#
#   chromium.br, al2023.tar.br, fonts.tar.br, swiftshader.tar.br   from the pinned @sparticuz/chromium (npm)
#   fonts-extra/NotoSansCJK-Regular.ttc, fonts-extra/NotoColorEmoji.ttf   from Debian (apt)
#   PACK                                                             what is in here (the idempotence stamp)
#
# The pack stays compressed; webcapture.browser.launch.chromium_pack unpacks it once per container. The same folder
# is what the Lambda layer ships at /opt/chromium.
#
# Usage: scripts/fetch_chromium.sh [dest]   (default: $WEBCAPTURE_CHROMIUM_PACK or <repo>/.cache/chromium-pack)
# Needs: npm, apt-get (with package lists; run `apt-get update` once on a fresh machine), dpkg-deb, python3.
set -euo pipefail

SPARTICUZ_VERSION="153.0.0"
# From `npm view @sparticuz/chromium@153.0.0 dist.integrity`: refuse a tarball that changed under the same version.
SPARTICUZ_INTEGRITY="sha512-jiGWqSvPMdu4+P9TilYqAR7yEGPEHINx+lCvE/NqNO/EHYzF/x1hUiI5T6ioVIt7dEy7n88byyT0vk+dnsgQwA=="
# Debian bookworm packages; apt checks them against the signed archive index.
NOTO_CJK_DEB="${WEBCAPTURE_NOTO_CJK_DEB:-fonts-noto-cjk=1:20220127+repack1-1}"
NOTO_EMOJI_DEB="${WEBCAPTURE_NOTO_EMOJI_DEB:-fonts-noto-color-emoji=2.042-0+deb12u1}"

# shellcheck source=scripts/fetch_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/fetch_common.sh"  # sets $repo
dest="${1:-${WEBCAPTURE_CHROMIUM_PACK:-$repo/.cache/chromium-pack}}"
want="sparticuz-chromium=$SPARTICUZ_VERSION $NOTO_CJK_DEB $NOTO_EMOJI_DEB"

up_to_date "$dest/PACK" "$want" "chromium pack"
stage "$dest" webcapture-pack
mkdir -p "$staging/fonts-extra" "$work/deb"

echo "fetching @sparticuz/chromium@$SPARTICUZ_VERSION"
tarball="$(npm_pack_checked "$work" "@sparticuz/chromium@$SPARTICUZ_VERSION" "$SPARTICUZ_INTEGRITY")"
tar -xzf "$tarball" -C "$work" package/bin
cp "$work"/package/bin/{chromium.br,al2023.tar.br,fonts.tar.br,swiftshader.tar.br} "$staging/"

echo "fetching $NOTO_CJK_DEB $NOTO_EMOJI_DEB"
apt_download "$work/deb" "$work/apt.log" "$NOTO_CJK_DEB" "$NOTO_EMOJI_DEB"
for deb in "$work"/deb/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
# One regular CJK face only: the Bold and Serif collections would add 73 MB to a size-bounded layer, and
# Chromium synthesises bold from the regular face.
cp "$work/root/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc" "$staging/fonts-extra/"
cp "$work/root/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf" "$staging/fonts-extra/"

publish "$dest" PACK "$want"

echo "chromium pack ready: $dest"
du -b "$dest"/*.br "$dest"/fonts-extra/* | awk '{printf "  %6.1f MB  %s\n", $1 / 1e6, $2}'
du -sb "$dest" | awk '{printf "  %6.1f MB  total\n", $1 / 1e6}'
