"""The decompressing half of an unpack, run as a script in a child Python
(webcapture.browser.launch.unpack_once).

Why a child process: at a cold start Chromium (209 MB) and Node (117 MB) inflate while the handler's imports
run on the main thread. In threads of one process they hand the GIL back and forth at every chunk, and a
busy main thread starved them: Chromium's unpack took 2.1-2.6 s instead of 0.9-1.4 s (docs/benchmarks.md,
"Cold start"). A child holds its own GIL and does nothing else; the parent only waits (without the GIL).

Standard library plus the decompressor (lz4, zstandard or brotli, found on the parent's sys.path, passed in
the first argument): it runs as `python -I -S -B inflate_process.py <path> <niceness> <kind> <source> <dest>
...`, which
imports nothing of webcapture. kind is `file` (source inflated to the file dest) or `tar` (source is a
compressed tarball, extracted into the folder dest with the "data" filter: no absolute paths, links out of
dest or device files).

Exit status 0 when all went well; TRUNCATED with the truncated sources on stdout, one a line; anything else
is a crash (its traceback on stderr).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO

TRUNCATED = 3
LZ4_SUFFIX = ".lz4"
ZSTD_SUFFIX = ".zst"
# Small pieces cost less than large ones: each is a fresh bytes object, and the larger ones come from fresh
# pages (page faults, zeroing) every time. lz4 reading 4 MB at a time (8 MB out) takes 0.72 s of CPU for
# Chromium and 0.38 s for Node, 128 KB at a time 0.50 s and 0.29 s; zstd writing 4 MB at a time takes
# 0.64 s for Node, 1 MB at a time 0.50 s (docs/benchmarks.md, "Unpacking").
_CHUNK = 1 << 20
_LZ4_READ = 1 << 17


def inflate_into(source: Path, out: IO[bytes]) -> bool:
    """Decompress source (.lz4, .zst, else brotli) into out, streamed; False when source is truncated."""
    with source.open("rb") as src:
        if source.suffix == LZ4_SUFFIX:
            return _lz4(src, out)
        if source.suffix == ZSTD_SUFFIX:
            return _zstd(src, out)
        return _brotli(src, out)


def _lz4(src: IO[bytes], out: IO[bytes]) -> bool:
    import lz4.frame

    # pack_zstd.py writes lz4 frames with the content size and a content checksum: a frame cut short never
    # reaches its end mark (eof stays False), one damaged inside fails the checksum (RuntimeError).
    decompressor = lz4.frame.LZ4FrameDecompressor()
    written = 0
    try:
        expected = int(lz4.frame.get_frame_info(src.read(32))["content_size"])
        src.seek(0)
        while not decompressor.eof and (chunk := src.read(_LZ4_READ)):
            written += out.write(decompressor.decompress(chunk))
    except RuntimeError:
        return False
    return decompressor.eof and (expected == 0 or written == expected)


def _zstd(src: IO[bytes], out: IO[bytes]) -> bool:
    import zstandard

    # pack_zstd.py writes the content size in the frame header, so a short output means a truncated input
    # (copy_stream stops quietly at the end of the input). Windows are at most 2**27, zstd's default limit.
    expected = zstandard.frame_content_size(src.read(18))
    src.seek(0)
    try:
        _, written = zstandard.ZstdDecompressor().copy_stream(
            src, out, read_size=_CHUNK, write_size=_CHUNK
        )
    except zstandard.ZstdError:
        return False
    return expected < 0 or written == expected


def _brotli(src: IO[bytes], out: IO[bytes]) -> bool:
    import brotli

    decompressor = brotli.Decompressor()
    try:
        while chunk := src.read(_CHUNK):
            out.write(decompressor.process(chunk))
    except brotli.error:
        return False
    return bool(decompressor.is_finished())


def run(kind: str, source: Path, dest: Path) -> bool:
    if kind == "file":
        with dest.open("wb") as out:
            return inflate_into(source, out)
    # The tarballs are small (at most 8 MB unpacked): inflated in memory, then extracted. Imported here:
    # the parent imports this module for its constants, at a cold start's very beginning.
    import io
    import tarfile

    dest.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    if not inflate_into(source, buffer):
        return False
    buffer.seek(0)
    with tarfile.open(fileobj=buffer) as archive:
        archive.extractall(dest, filter="data")
    return True


def main(argv: list[str]) -> int:
    sys.path[:0] = [entry for entry in argv[1].split(os.pathsep) if entry]
    if niceness := int(argv[2]):
        os.nice(niceness)  # here, not in the parent's fork: it has threads running
    jobs = argv[3:]
    truncated = [
        source for kind, source, dest in zip(jobs[0::3], jobs[1::3], jobs[2::3], strict=True)
        if not run(kind, Path(source), Path(dest))
    ]
    for source in truncated:
        print(source)
    return TRUNCATED if truncated else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
