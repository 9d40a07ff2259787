"""Recompress the BrowserLayer's packed files to zstandard: chromium.br -> chromium.zst, node -> node.zst.

Why: a browser function's cold start inflates 337 MB (Chromium and Playwright's Node) into /tmp before the
browser can launch. zstd at the level below inflates about twice as fast as brotli (as @sparticuz/chromium
publishes its files) for about the same total size: Chromium 2.8 MB larger, Node 4.1 MB smaller (measured
on the real files: docs/benchmarks.md, "Unpacking: brotli, zstd, lz4"). zstd at low levels and lz4 inflate
faster still but pack 20-57 MB larger, which the 250 MB budget cannot give.

The level is high and slow to compress (minutes on two cores), so results are cached under
.cache/zstd-pack, keyed by the source bytes' hash and the settings: a rebuild with the same pack and
Playwright costs nothing.

Usage:
    pack_zstd.py pack <folder>          each <name>.br in folder -> <name>.zst (the .br removed)
    pack_zstd.py file <source> <dest>   one raw file -> dest (.zst)
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
from pathlib import Path
from typing import IO

import brotli
import zstandard

# Level 19 with a 128 MB window and long-distance matching: see the module docstring. 2**27 is zstd's
# default decoder window limit, so webcapture.browser.unpack_once needs no special decoder settings, and a
# decoder holds at most 128 MB while it inflates.
LEVEL = 19
WINDOW_LOG = 27
CACHE = Path(__file__).resolve().parent.parent / ".cache" / "zstd-pack"
_CHUNK = 1 << 22


def _parameters() -> zstandard.ZstdCompressionParameters:
    return zstandard.ZstdCompressionParameters.from_level(
        LEVEL, window_log=WINDOW_LOG, enable_ldm=True, threads=-1, write_content_size=True
    )


def _cache_key(source: Path) -> str:
    digest = hashlib.sha256(f"zstd level={LEVEL} window={WINDOW_LOG} ldm;{source.name};".encode())
    with source.open("rb") as src:
        while chunk := src.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()[:24]


def _copy_raw(source: Path, out: IO[bytes]) -> None:
    """source's raw bytes into out: inflated if it is brotli (.br)."""
    with source.open("rb") as src:
        if source.suffix != ".br":
            shutil.copyfileobj(src, out, _CHUNK)
            return
        decompressor = brotli.Decompressor()
        while chunk := src.read(_CHUNK):
            out.write(decompressor.process(chunk))
        if not decompressor.is_finished():
            raise SystemExit(f"{source} is truncated")


def compress(source: Path, dest: Path) -> Path:
    """source (raw, or .br) as zstd into dest, from the cache when it was done before."""
    cached = CACHE / f"{_cache_key(source)}.zst"
    if not cached.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as work:
            raw = Path(work) / "raw"
            with raw.open("wb") as out:
                _copy_raw(source, out)
            # The size up front puts it in the frame header: the decoder sizes its window to the file.
            compressor = zstandard.ZstdCompressor(compression_params=_parameters())
            partial = Path(work) / "packed.zst"
            with raw.open("rb") as src, partial.open("wb") as out:
                compressor.copy_stream(src, out, size=raw.stat().st_size, read_size=_CHUNK, write_size=_CHUNK)
            partial.rename(cached)
    shutil.copyfile(cached, dest)
    return dest


def pack_folder(folder: Path) -> list[Path]:
    packed = []
    for source in sorted(folder.glob("*.br")):
        dest = source.with_suffix(".zst")
        compress(source, dest)
        source.unlink()
        packed.append(dest)
    return packed


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[1] == "pack":
        for dest in pack_folder(Path(argv[2])):
            print(f"  {dest.stat().st_size / 1e6:6.1f} MB  {dest}")
        return 0
    if len(argv) == 4 and argv[1] == "file":
        dest = compress(Path(argv[2]), Path(argv[3]))
        print(f"  {dest.stat().st_size / 1e6:6.1f} MB  {dest}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
