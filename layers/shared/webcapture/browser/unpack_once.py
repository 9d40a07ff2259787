"""Unpacking once per container: what Chromium's pack and Playwright's Node both need.

Once: the first caller fills the target, later calls and other processes reuse it. Safely: under a file
lock, into a staging folder renamed into place, so a process killed half-way leaves a stray staging
folder (removed by the next unpack), never a target that looks complete.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import brotli

_CHUNK = 1 << 20


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


def inflate_brotli(source: Path, dest: Path) -> bool:
    """Decompress source into dest, streamed (the binaries are 100-200 MB unpacked, more than a Lambda
    should hold in memory at once). False when source is truncated."""
    decompressor = brotli.Decompressor()
    with source.open("rb") as src, dest.open("wb") as out:
        while chunk := src.read(_CHUNK):
            out.write(decompressor.process(chunk))
    return bool(decompressor.is_finished())
