"""Process hygiene: finding our browser, killing it, and leaving no zombies or stale scratch folders.

Why this is needed: when a browser dies (crash, OOM kill, or our own time-budget watchdog), its renderer and
utility processes are orphaned. Linux hands orphans to the nearest "child subreaper", else to PID 1, and on
this kind of sandbox PID 1 does not reap them (seen: zombie chromium processes under PID 1 after a kill).
So this process declares itself a subreaper, and reaps (after killing) any Chromium orphan that lands on it.
Only processes that run our browser's executable are touched, so children that other code spawned (and
waits for) are left alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Make orphaned descendants (dead browsers' renderers) our children, so we can reap them."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                found.extend(
                    int(part) for part in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
                )
    return found


def descendants(pid: int) -> Iterator[int]:
    pending = children(pid)
    while pending:
        child = pending.pop()
        yield child
        pending.extend(children(child))


def parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split(" ")[1])


def cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def state(pid: int) -> str | None:
    """The one-letter state from /proc/<pid>/stat ('Z' for a zombie), or None when the pid is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may itself contain spaces or parentheses.
    return stat[stat.rindex(")") + 2 :].split(" ", 1)[0]


def is_alive(pid: int) -> bool:
    return state(pid) not in (None, "Z", "X")


def find_browser(profile_root: Path) -> int | None:
    """The pid of the browser whose --user-data-dir lies under profile_root (our private scratch folder)."""
    for pid in descendants(os.getpid()):
        if is_browser(pid, profile_root):
            return pid
    return None


def is_browser(pid: int, profile_root: Path) -> bool:
    """Whether pid is (still) our browser's main process, not a recycled pid."""
    args = cmdline(pid)
    marker = f"--user-data-dir={profile_root}{os.sep}"
    return any(arg.startswith(marker) for arg in args) and not any(a.startswith("--type=") for a in args)


def renderers(browser: int) -> list[int]:
    """The browser's renderer processes: each runs pages with their frames, and those pages' dedicated and
    shared workers as threads of its own, so killing it ends all of them."""
    # A child process rewrites its command line into one string (its title), so the switch is looked for
    # among the words, wherever the arguments were split.
    return [pid for pid in descendants(browser) if "--type=renderer" in " ".join(cmdline(pid)).split()]


def kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def wait_gone(pids: list[int], *, wait_s: float) -> bool:
    """Wait up to wait_s until none of pids runs any more (a zombie runs nothing); whether they are gone."""
    deadline = time.monotonic() + wait_s
    while any(is_alive(pid) for pid in pids):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def runnable_threads(pids: list[int]) -> int:
    """How many threads of pids are running or waiting for a CPU (state R) at this moment. Unlike CPU used
    over a while, this does not depend on how busy the rest of the machine is: a looping thread that the
    scheduler has no core for is still R, an idle one sleeps (S)."""
    count = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{pid}/task"):
                if state_of_task(pid, task) == "R":
                    count += 1
    return count


def state_of_task(pid: int, task: str) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/task/{task}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split(" ", 1)[0]


def settle_idle(pids: list[int], *, quiet_looks: int, look_s: float, within_s: float) -> int:
    """Look at pids every look_s until `quiet_looks` looks in a row find at most one thread of theirs
    runnable (an idle browser's timers wake a thread from time to time, and on a busy machine it waits for a
    core), for up to within_s; returns the runnable threads of the last look (at most 1: they settled)."""
    deadline = time.monotonic() + within_s
    quiet = 0
    while True:
        busy = runnable_threads(pids)
        quiet = quiet + 1 if busy <= 1 else 0
        if quiet >= quiet_looks or time.monotonic() >= deadline:
            return busy
        time.sleep(look_s)


def kill_tree(pid: int) -> None:
    """SIGKILL the browser and everything it started.

    Playwright starts the browser as a process-group leader, so one killpg reaches its renderers and
    utility processes; the descendants are also killed one by one in case one moved to another group."""
    tree = [pid, *descendants(pid)]
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    for member in tree:
        with contextlib.suppress(OSError):
            os.kill(member, signal.SIGKILL)


def settle(pid: int | None, executable: Path, *, wait_s: float) -> None:
    """After a browser died or was killed: wait up to wait_s until it is gone, reaping its orphans.

    The browser itself is the driver's child and is reaped there; its children become ours (we are a
    subreaper) only once it is gone, a moment after the kill, so this waits for that before the last
    sweep."""
    deadline = time.monotonic() + wait_s
    while True:
        remaining = reap_orphans(executable)
        if (pid is None or state(pid) is None) and remaining == 0:
            return
        if time.monotonic() >= deadline:
            return
        time.sleep(0.02)


def reap_orphans(executable: Path) -> int:
    """Kill and reap every process running `executable` that is our direct child: with Playwright's driver
    between us and the browser, such a process can only be an orphan of a browser that died. Returns how
    many there were."""
    names = {executable.name[:15], executable.resolve().name[:15]}
    orphans = [pid for pid in children(os.getpid()) if _comm(pid) in names]
    for pid in orphans:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)
    return len(orphans)


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def remove_stale_scratch(root: Path) -> None:
    """Delete scratch folders (named <pid>-<start time>) of processes that no longer exist.

    On Lambda /tmp outlives the runtime process: after a timeout kills it, the next runtime on the same
    container finds the dead one's browser profile here and clears it.
    """
    with contextlib.suppress(FileNotFoundError):
        for entry in root.iterdir():
            if entry.name != scratch_name(_pid_of(entry.name)):
                shutil.rmtree(entry, ignore_errors=True)


def scratch_name(pid: int | None) -> str:
    """<pid>-<process start time>: start time tells a live process from a dead one whose pid was reused."""
    if pid is None:
        return ""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    start_ticks = stat[stat.rindex(")") + 2 :].split(" ")[19]
    return f"{pid}-{start_ticks}"


def _pid_of(name: str) -> int | None:
    head = name.split("-", 1)[0]
    return int(head) if head.isdigit() else None
