"""The processes under a local API, found from /proc: its function containers, their browsers, the browsers'
renderers. For the tests that kill one of them or check that nothing of a page is left running."""

from __future__ import annotations

from pathlib import Path

from localapi.container_worker import process_name
from webcapture.browser.launch import processes


def comm(pid: int) -> str:
    """The process's name ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def containers_under(root: int, function: str) -> list[int]:
    """The containers of `function` (its logical id, e.g. "ScreenshotFunction") below `root`."""
    name = process_name(function)
    return [pid for pid in processes.descendants(root) if comm(pid) == name]


def browsers_under(root: int) -> list[int]:
    """The Chromium browser processes below `root` (not their renderers, GPU or utility children).

    A child the browser has just forked carries the browser's own command line until it execs, so it looks
    like a second browser for that moment: only the topmost of the look-alikes is a browser."""
    alike = [pid for pid in processes.descendants(root)
             if any(arg.startswith("--user-data-dir=") for arg in processes.cmdline(pid))
             and not any(arg.startswith("--type=") for arg in processes.cmdline(pid))]
    return [pid for pid in alike if not _below_any(pid, set(alike) - {pid})]


def _below_any(pid: int, ancestors: set[int]) -> bool:
    above = processes.parent(pid)
    while above not in (None, 0, 1):
        if above in ancestors:
            return True
        above = processes.parent(above)
    return False


def renderers_of(browser: int) -> list[int]:
    # A renderer rewrites its command line into one string: the switch is one of its words.
    return [pid for pid in processes.descendants(browser)
            if "--type=renderer" in " ".join(processes.cmdline(pid)).split()]
