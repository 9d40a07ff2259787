"""Unpacking once per container: what Chromium's pack and Playwright's Node both need.

Once: the first caller fills the target, later calls and other processes reuse it. Safely: under a file
lock, into a staging folder renamed into place, so a process killed half-way leaves a stray staging
folder (removed by the next unpack), never a target that looks complete. The lock is per target folder:
two threads or processes wanting the same target wait for one unpack; different targets (Chromium and
Node) unpack at the same time.

Packed files are brotli (`.br`, the pack as @sparticuz/chromium publishes it, used in development), or
what `make build` recompresses the BrowserLayer to (scripts/pack_zstd.py): lz4 (`.lz4`, Chromium's binary:
the fastest to inflate) and zstandard (`.zst`, the rest: smaller), see docs/benchmarks.md. All are
streamed, in a child Python per unpack (webcapture.browser.launch.inflate_process), so unpacks started from
threads overlap each other and the handler's imports on all cores without fighting over the GIL; the lock,
staging and rename stay here, in the process that asked.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from webcapture.browser.launch import inflate_process
from webcapture.browser.launch.inflate_process import LZ4_SUFFIX, TRUNCATED, ZSTD_SUFFIX

BROTLI_SUFFIX = ".br"
_WORKER = Path(inflate_process.__file__)


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
    """folder/name.lz4, else .zst, else .br, else None: the built layer ships one of the first two, a
    fetched pack the third."""
    for suffix in (LZ4_SUFFIX, ZSTD_SUFFIX, BROTLI_SUFFIX):
        candidate = folder / f"{name}{suffix}"
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class InflateJob:
    """A packed file to inflate: to the file dest, or (tar=True) a tarball extracted into the folder dest."""

    source: Path
    dest: Path
    tar: bool = False


def inflate(jobs: list[InflateJob], niceness: int = 0) -> list[Path]:
    """Run the jobs, in order, in one child Python (webcapture.browser.launch.inflate_process says why
    a child) at `niceness` (0: as this process); the sources found truncated, empty when all went well.
    Streamed: the binaries are 100-200 MB unpacked, more than a Lambda should hold in memory at once."""
    command = [sys.executable, "-I", "-S", "-B", str(_WORKER), os.pathsep.join(sys.path), str(niceness)]
    for job in jobs:
        command += ["tar" if job.tar else "file", str(job.source), str(job.dest)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603  our own paths
    if done.returncode == TRUNCATED:
        return [Path(line) for line in done.stdout.splitlines() if line]
    if done.returncode != 0:
        raise RuntimeError(f"inflating {jobs[0].source.name} failed: {done.stderr.strip()[-2000:]}")
    return []
