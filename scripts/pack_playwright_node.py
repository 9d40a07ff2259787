"""Shrink Playwright's bundled Node for a node layer: <driver>/node -> <dest>/node.lz4 or node.zst.

Playwright's wheel ships a 150 MB Node binary with its debug info, too big for Lambda's 250 MB (function +
layers, unzipped) beside a 100 MB Chromium pack. Stripped it is ~117 MB and runs the same (the driver loads no
native addons, and strip keeps the dynamic symbol table). Packed (scripts/pack_zstd.py):
    lz4    49 MB, inflated in about 0.15 s of CPU: the NodeLayer, for the browser functions' cold start
    zstd   29 MB, about 0.5 s of CPU: the NodeCompactLayer, for the function whose 250 MB has no room for lz4
           (ai-extract, which also carries the openai client)
webcapture.browser.launch.node_runtime unpacks either to /tmp.

Usage: pack_playwright_node.py <playwright/driver dir> <dest dir> lz4|zst    (run by layers/node/Makefile)
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

CODECS = ("lz4", "zst")


def pack(driver: Path, dest: Path, codec: str) -> Path:
    node = driver / "node"
    if not node.is_file():
        raise SystemExit(f"{node} not found: is {driver} Playwright's driver folder?")
    if codec not in CODECS:
        raise SystemExit(f"codec {codec!r}: one of {', '.join(CODECS)}")
    dest.mkdir(parents=True, exist_ok=True)
    packed = dest / f"node.{codec}"
    with tempfile.TemporaryDirectory() as work:
        stripped = Path(work) / "node"
        shutil.copyfile(node, stripped)
        strip = shutil.which("strip")
        if strip is None:
            raise SystemExit("strip (binutils) is needed to shrink Playwright's Node")
        subprocess.run([strip, "--strip-all", str(stripped)], check=True)
        compress(stripped, packed)
    return packed


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    packed = pack(Path(argv[1]), Path(argv[2]), argv[3])
    print(f"packed Playwright's Node: {packed} ({packed.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
