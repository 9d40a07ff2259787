"""Progress notifications for a tool call (MCP `notifications/progress`), when the client asked for them.

A call to the API is one HTTP request that can take up to the gateway's 29 s: while it runs, the elapsed
seconds are reported every few seconds, so a client can show that the tool is working. Tools that follow
a job (a crawl, a batch) report their own counts through the same `Progress` (done, total, message).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.to_thread

Report = Callable[[float, float | None, str | None], Awaitable[None]]
T = TypeVar("T")

TICK_S = 2.0
_log = logging.getLogger(__name__)


class Progress:
    """Reports progress for one tool call; values only ever increase, as the protocol requires."""

    def __init__(self, report: Report | None) -> None:
        self._report = report
        self._last: float | None = None

    async def __call__(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        if self._report is None or (self._last is not None and progress <= self._last):
            return
        self._last = progress
        try:
            await self._report(progress, total, message)
        except Exception:  # a client that went away must not fail the call it is waiting for
            _log.debug("progress notification not sent", exc_info=True)


async def while_waiting(progress: Progress, label: str, work: Callable[[], T], tick_s: float = TICK_S) -> T:
    """Run blocking `work` in a worker thread; every `tick_s` until it ends, report the seconds waited.
    What `work` raises is raised here as it is (not wrapped in an exception group)."""
    started = time.monotonic()
    done = anyio.Event()
    outcome: list[T] = []
    failure: list[Exception] = []

    async def run() -> None:
        try:
            outcome.append(await anyio.to_thread.run_sync(work, abandon_on_cancel=True))
        except Exception as error:
            failure.append(error)
        finally:
            done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        while not done.is_set():
            with anyio.move_on_after(tick_s):
                await done.wait()
            if not done.is_set():
                waited = time.monotonic() - started
                await progress(round(waited, 1), None, f"{label}: {waited:.0f} s")
    if failure:
        raise failure[0]
    return outcome[0]
