"""Shrink Playwright's bundled Node for the BrowserLayer: driver/node -> driver/node.zst.

Playwright's wheel ships a 150 MB Node binary with its debug info, too big for Lambda's 250 MB (function +
layers, unzipped) beside a 100 MB Chromium pack. Stripped it is ~117 MB and runs the same (the driver loads no
native addons, and strip keeps the dynamic symbol table); zstd (scripts/pack_zstd.py, level 19, long window)
makes that ~30 MB, smaller than brotli at quality 6 (34 MB) and faster to inflate.
webcapture.browser.node_runtime unpacks it to /tmp.

Usage: pack_playwright_node.py <playwright/driver dir>    (run by layers/browser/Makefile)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.pack_zstd import compress  # noqa: E402


def pack(driver: Path) -> Path:
    node = driver / "node"
    packed = driver / "node.zst"
    if not node.is_file():
        raise SystemExit(f"{node} not found: is {driver} Playwright's driver folder?")
    with tempfile.TemporaryDirectory() as work:
        stripped = Path(work) / "node"
        shutil.copyfile(node, stripped)
        strip = shutil.which("strip")
        if strip is None:
            raise SystemExit("strip (binutils) is needed to shrink Playwright's Node")
        subprocess.run([strip, "--strip-all", str(stripped)], check=True)
        compress(stripped, packed)
    node.unlink()
    return packed


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    packed = pack(Path(argv[1]))
    print(f"packed Playwright's Node: {packed} ({packed.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
