"""Unpacking once per container: what Chromium's pack and Playwright's Node both need.

Once: the first caller fills the target, later calls and other processes reuse it. Safely: under a file
lock, into a staging folder renamed into place, so a process killed half-way leaves a stray staging
folder (removed by the next unpack), never a target that looks complete. The lock is per target folder:
two threads or processes wanting the same target wait for one unpack; different targets (Chromium and
Node) unpack at the same time.

Packed files are brotli (`.br`, the pack as @sparticuz/chromium publishes it, used in development) or
zstandard (`.zst`, what `make build` recompresses the BrowserLayer to: it inflates about twice as fast, see
docs/benchmarks.md). Both are streamed, and both decompressors let go of the GIL while they work, so
unpacks in threads overlap each other and the handler's imports.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Protocol

import brotli

_CHUNK = 1 << 20
ZSTD_SUFFIX = ".zst"
BROTLI_SUFFIX = ".br"


class _Inflater(Protocol):
    def feed(self, chunk: bytes) -> bytes: ...
    def finished(self) -> bool: ...


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def unpack_once(
    target: Path, is_complete: Callable[[Path], bool], fill: Callable[[Path], None], *, family: str
) -> bool:
    """Make `target` complete, calling fill(staging) at most once across processes; True if this call did.

    `family` is the name prefix of every version of this target (e.g. "chromium-"): a dead process's
    staging folder of any version is removed before unpacking.
    """
    if is_complete(target):
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(target.parent / f"{target.name}.lock"):
        # Another process may have finished while we waited for the lock.
        if is_complete(target):
            return False
        # Holding the lock, any staging folder is a dead process's; /tmp is too small to keep it.
        for stale in target.parent.glob(f"{family}*.partial-*"):
            shutil.rmtree(stale, ignore_errors=True)
        staging = target.with_name(f"{target.name}.partial-{os.getpid()}")
        staging.mkdir(parents=True)
        try:
            fill(staging)
            shutil.rmtree(target, ignore_errors=True)
            staging.rename(target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return True


def packed_file(folder: Path, name: str) -> Path | None:
    """folder/name.zst, else folder/name.br, else None: the built layer ships the first, a fetched pack
    the second."""
    for suffix in (ZSTD_SUFFIX, BROTLI_SUFFIX):
        candidate = folder / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def inflate(source: Path, dest: Path) -> bool:
    """Decompress source (.br or .zst) into dest, streamed (the binaries are 100-200 MB unpacked, more than
    a Lambda should hold in memory at once). False when source is truncated."""
    with dest.open("wb") as out:
        return inflate_into(source, out)


def inflate_into(source: Path, out: IO[bytes]) -> bool:
    """Like inflate, into an open binary stream."""
    inflater = _inflater(source)
    with source.open("rb") as src:
        while chunk := src.read(_CHUNK):
            out.write(inflater.feed(chunk))
    return inflater.finished()




class _Brotli:
    def __init__(self) -> None:
        self._decompressor = brotli.Decompressor()

    def feed(self, chunk: bytes) -> bytes:
        return bytes(self._decompressor.process(chunk))

    def finished(self) -> bool:
        return bool(self._decompressor.is_finished())


class _Zstd:
    def __init__(self) -> None:
        # Imported here: only the BrowserLayer ships zstandard, and only a .zst file needs it.
        import zstandard

        # The layer's files are compressed with a window of at most 2**27 bytes, zstd's default limit.
        self._decompressor = zstandard.ZstdDecompressor().decompressobj(write_size=_CHUNK)

    def feed(self, chunk: bytes) -> bytes:
        return bytes(self._decompressor.decompress(chunk))

    def finished(self) -> bool:
        return bool(self._decompressor.eof)


def _inflater(source: Path) -> _Inflater:
    if source.suffix == ZSTD_SUFFIX:
        return _Zstd()
    return _Brotli()
