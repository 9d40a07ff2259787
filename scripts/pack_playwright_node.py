"""Shrink Playwright's bundled Node for the BrowserLayer: driver/node -> driver/node.br.

Playwright's wheel ships a 150 MB Node binary with its debug info, too big for Lambda's 250 MB (function +
layers, unzipped) beside a 100 MB Chromium pack. Stripped it is ~117 MB and runs the same (the driver loads no
native addons, and strip keeps the dynamic symbol table); brotli at quality 6 makes that ~34 MB, and it
inflates in about half a second. Higher qualities save ~1 MB for 10x the build time; xz saves 7 MB but
takes about 3.4 s to inflate on every cold start. webcapture.browser.node_runtime unpacks it to /tmp.

Usage: pack_playwright_node.py <playwright/driver dir>    (run by layers/browser/Makefile)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import brotli

QUALITY = 6
WINDOW_BITS = 24  # brotli's largest window: a 117 MB binary has long-range repeats
_CHUNK = 1 << 22


def pack(driver: Path) -> Path:
    node = driver / "node"
    packed = driver / "node.br"
    if not node.is_file():
        raise SystemExit(f"{node} not found: is {driver} Playwright's driver folder?")
    with tempfile.TemporaryDirectory() as work:
        stripped = Path(work) / "node"
        shutil.copyfile(node, stripped)
        strip = shutil.which("strip")
        if strip is None:
            raise SystemExit("strip (binutils) is needed to shrink Playwright's Node")
        subprocess.run([strip, "--strip-all", str(stripped)], check=True)
        compressor = brotli.Compressor(quality=QUALITY, lgwin=WINDOW_BITS)
        with stripped.open("rb") as src, packed.open("wb") as out:
            while chunk := src.read(_CHUNK):
                out.write(compressor.process(chunk))
            out.write(compressor.finish())
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
