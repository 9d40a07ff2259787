"""Recompress the BrowserLayer's packed files for a fast cold start: chromium.br -> chromium.lz4, the other
.br files (the pack's tarballs, the adblock engine) -> .zst, and (pack_playwright_node.py) node -> node.zst.

Why: a browser function's cold start inflates 337 MB (Chromium and Playwright's Node) into /tmp before the
browser can launch, on a CPU it shares with the handler's imports. zstd at the level below inflates about
twice as fast as brotli (as @sparticuz/chromium publishes its files) for about the same size; lz4 (HC,
level 12) inflates Chromium's 209 MB in about a third of zstd's CPU time but packs it 31 MB larger, which the
browser functions can afford since the SharedLayer stopped carrying PyJWT, cryptography and brotli
(measured on the real files: docs/benchmarks.md, "Unpacking"). Both frames carry the content
size, lz4's also a checksum of the content: webcapture.browser.launch.inflate_process tells a truncated file.

The levels are high and slow to compress (minutes on two cores for zstd), so results are cached under
.cache/zstd-pack, keyed by the source bytes' hash and the settings: a rebuild with the same pack and
Playwright costs nothing.

Usage:
    pack_zstd.py pack <folder>          each <name>.br in folder -> <name>.lz4 or .zst (the .br removed)
    pack_zstd.py file <source> <dest>   one raw file -> dest (.zst or .lz4, by its suffix)
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
from pathlib import Path
from typing import IO

import brotli
import lz4.frame
import zstandard

# Level 19 with a 128 MB window and long-distance matching: see the module docstring. 2**27 is zstd's
# default decoder window limit, so webcapture.browser.launch.unpack_once needs no special decoder settings,
# and a decoder holds at most 128 MB while it inflates.
LEVEL = 19
WINDOW_LOG = 27
# lz4 HC's highest level: the slowest to compress, the smallest; lz4 inflates as fast at any level. 4 MB
# blocks, linked: the smallest frame lz4 makes.
LZ4_LEVEL = 12
# Packed as lz4 (pack_folder): what is large enough for its inflate time to matter at a cold start and worth
# its extra size. Chromium's binary only: Node as lz4 would cost 19 MB more, which the budget cannot give.
LZ4_NAMES = frozenset({"chromium"})
CACHE = Path(__file__).resolve().parent.parent / ".cache" / "zstd-pack"
_CHUNK = 1 << 22


def _parameters() -> zstandard.ZstdCompressionParameters:
    return zstandard.ZstdCompressionParameters.from_level(
        LEVEL, window_log=WINDOW_LOG, enable_ldm=True, threads=-1, write_content_size=True
    )


def _settings(codec: str) -> str:
    if codec == ".lz4":
        return f"lz4 level={LZ4_LEVEL} 4MB linked checksum"
    return f"zstd level={LEVEL} window={WINDOW_LOG} ldm"


def _cache_key(source: Path, codec: str) -> str:
    digest = hashlib.sha256(f"{_settings(codec)};{source.name};".encode())
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
    """source (raw, or .br) into dest, lz4 if dest ends in .lz4, else zstd; from the cache when it was done
    before."""
    codec = ".lz4" if dest.suffix == ".lz4" else ".zst"
    cached = CACHE / f"{_cache_key(source, codec)}{codec}"
    if not cached.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as work:
            raw = Path(work) / "raw"
            with raw.open("wb") as out:
                _copy_raw(source, out)
            partial = Path(work) / f"packed{codec}"
            with raw.open("rb") as src, partial.open("wb") as out:
                if codec == ".lz4":
                    write_lz4(src, out, raw.stat().st_size)
                else:
                    write_zstd(src, out, raw.stat().st_size)
            partial.rename(cached)
    shutil.copyfile(cached, dest)
    return dest


def write_zstd(src: IO[bytes], out: IO[bytes], size: int) -> None:
    # The size up front puts it in the frame header: the decoder sizes its window to the file.
    compressor = zstandard.ZstdCompressor(compression_params=_parameters())
    compressor.copy_stream(src, out, size=size, read_size=_CHUNK, write_size=_CHUNK)


def write_lz4(src: IO[bytes], out: IO[bytes], size: int) -> None:
    """src (size bytes) as one lz4 frame into out, as the layer ships it: content size and checksum."""
    compressor = lz4.frame.LZ4FrameCompressor(
        block_size=lz4.frame.BLOCKSIZE_MAX4MB, block_linked=True, compression_level=LZ4_LEVEL,
        content_checksum=True,
    )
    out.write(compressor.begin(source_size=size))  # the content size, in the frame header
    while chunk := src.read(_CHUNK):
        out.write(compressor.compress(chunk))
    out.write(compressor.flush())


def pack_folder(folder: Path) -> list[Path]:
    packed = []
    for source in sorted(folder.glob("*.br")):
        dest = source.with_suffix(".lz4" if source.stem in LZ4_NAMES else ".zst")
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
