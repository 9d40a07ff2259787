"""The SDK for asyncio: `AsyncClient`, the same methods as `Client`, awaitable.

Each call is the synchronous client's, run in a worker thread (`asyncio.to_thread`): the standard library
has no asynchronous HTTP client, and the calls wait on the network, not the CPU, so a thread each is what
a hand-written one would cost. `asyncio.gather` runs calls side by side (as many as the default executor's
threads); retries and their backoff wait in the thread, never blocking the event loop. Jobs poll with
`asyncio.sleep`.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from webcapture_client import results as typed
from webcapture_client.monitor_methods import checks_path, stuck_cursor
from webcapture_client.sdk import TIMEOUT_S, Client, Job

AsyncProgress = Callable[[typed.JobStatus], Awaitable[None] | None]


class AsyncClient:
    """A webcapture API, for asyncio: the arguments of `Client` (`api_url`, `api_key`, `max_retries`,
    `timeout_s`, `backoff_s`), the same environment variables."""

    def __init__(self, api_url: str | None = None, api_key: str | None = None, *, max_retries: int = 3,
                 timeout_s: float = TIMEOUT_S, backoff_s: float = 0.5) -> None:
        self.sync = Client(api_url, api_key, max_retries=max_retries, timeout_s=timeout_s,
                           backoff_s=backoff_s)

    async def screenshot(self, url: str, **fields: Any) -> typed.Screenshot:
        return await asyncio.to_thread(self.sync.screenshot, url, **fields)

    async def pdf(self, url: str, **fields: Any) -> typed.Pdf:
        return await asyncio.to_thread(self.sync.pdf, url, **fields)

    async def markdown(self, url: str, **fields: Any) -> typed.Markdown:
        return await asyncio.to_thread(self.sync.markdown, url, **fields)

    async def content(self, url: str, **fields: Any) -> typed.Content:
        return await asyncio.to_thread(self.sync.content, url, **fields)

    async def links(self, url: str, **fields: Any) -> typed.Links:
        return await asyncio.to_thread(self.sync.links, url, **fields)

    async def extract(self, url: str, **fields: Any) -> typed.Extraction:
        return await asyncio.to_thread(self.sync.extract, url, **fields)

    async def map(self, url: str, **fields: Any) -> typed.SiteMap:
        return await asyncio.to_thread(self.sync.map, url, **fields)

    async def crawl(self, url: str, *, idempotency_key: str | None = None, **fields: Any) -> AsyncJob:
        started = await asyncio.to_thread(self.sync.crawl, url, idempotency_key=idempotency_key, **fields)
        return AsyncJob(started)

    async def batch(self, operation: str, requests: list[dict[str, Any]], *,
                    idempotency_key: str | None = None, **fields: Any) -> AsyncJob:
        started = await asyncio.to_thread(self.sync.batch, operation, requests,
                                          idempotency_key=idempotency_key, **fields)
        return AsyncJob(started)

    def job(self, job_id: str) -> AsyncJob:
        """A job started earlier (by its jobId); nothing is sent until it is asked something."""
        return AsyncJob(self.sync.job(job_id))

    async def delete_file(self, fileId: str) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.delete_file, fileId)

    async def api_keys(self) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.api_keys)

    async def signing_secret(self, *, rotate: bool = False) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.signing_secret, rotate=rotate)

    async def webhook_secret(self, *, rotate: bool = False) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.webhook_secret, rotate=rotate)

    async def fetch(self, url: str) -> bytes:
        return await asyncio.to_thread(self.sync.fetch, url)

    # -- monitors (Client's, awaitable; the checks as an async iterator) ------------------------------

    async def create_monitor(self, url: str, operation: str, schedule: str, **fields: Any) -> typed.Monitor:
        return await asyncio.to_thread(self.sync.create_monitor, url, operation, schedule, **fields)

    async def monitors(self) -> list[typed.Monitor]:
        return await asyncio.to_thread(self.sync.monitors)

    async def get_monitor(self, monitor_id: str) -> typed.Monitor:
        return await asyncio.to_thread(self.sync.get_monitor, monitor_id)

    async def update_monitor(self, monitor_id: str, **fields: Any) -> typed.Monitor:
        return await asyncio.to_thread(self.sync.update_monitor, monitor_id, **fields)

    async def delete_monitor(self, monitor_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.delete_monitor, monitor_id)

    async def run_monitor(self, monitor_id: str) -> typed.MonitorRun:
        return await asyncio.to_thread(self.sync.run_monitor, monitor_id)

    async def monitor_checks_page(self, monitor_id: str, *, limit: int | None = None,
                                  cursor: str | None = None) -> typed.MonitorChecks:
        return await asyncio.to_thread(self.sync.monitor_checks_page, monitor_id, limit=limit, cursor=cursor)

    async def monitor_checks(self, monitor_id: str, *,
                             page_size: int = 100) -> AsyncIterator[typed.MonitorCheck]:
        """Every check, newest first, page after page until `next` is null."""
        cursor: str | None = None
        while True:
            page = await self.monitor_checks_page(monitor_id, limit=page_size, cursor=cursor)
            for check in page.checks:
                yield check
            if page.next is None:
                return
            if page.next == cursor:
                raise stuck_cursor(checks_path(monitor_id, page_size, cursor), page.next)
            cursor = page.next

    async def wait_for_check(self, monitor_id: str, check_id: str, *, poll_s: float = 1.0,
                             timeout_s: float | None = None) -> typed.MonitorCheck:
        """Poll (with asyncio.sleep) until the check has run. TimeoutError after `timeout_s`."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            check = await asyncio.to_thread(self.sync.find_check, monitor_id, check_id)
            if check is not None and check.finished:
                return check
            if deadline is not None and time.monotonic() >= deadline:
                state = check.status if check is not None else "not listed yet"
                raise TimeoutError(f"check {check_id} of {monitor_id} still {state} after {timeout_s} s")
            await asyncio.sleep(poll_s)


class AsyncJob:
    """A batch or a crawl, for asyncio: `await status()`, `await wait()`, `async for result in job`."""

    def __init__(self, job: Job) -> None:
        self.sync = job
        self.id = job.id
        self.accepted = job.accepted

    def __repr__(self) -> str:
        return f"AsyncJob({self.id!r})"

    async def status(self, *, limit: int | None = None, cursor: str | None = None) -> typed.JobStatus:
        return await asyncio.to_thread(self.sync.status, limit=limit, cursor=cursor)

    async def wait(self, progress: AsyncProgress | None = None, *, poll_s: float = 1.0,
                   timeout_s: float | None = None) -> typed.JobStatus:
        """Poll until the job ends; `progress(status)` (a function or a coroutine function) after each
        poll. TimeoutError after `timeout_s` (the job goes on)."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            current = await self.status(limit=1)
            if progress is not None:
                told = progress(current)
                if inspect.isawaitable(told):
                    await told
            if current.finished:
                return current
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"job {self.id} still {current.status} after {timeout_s} s")
            await asyncio.sleep(poll_s)

    async def results(self, *, page_size: int = 100) -> AsyncIterator[typed.JobResult]:
        """Every result so far, in index order, page after page through the cursors."""
        cursor: str | None = None
        while True:
            page = await self.status(limit=page_size, cursor=cursor)
            for result in page.results:
                yield result
            if page.next is None:
                return
            cursor = page.next

    __aiter__ = results

    async def cancel(self) -> typed.JobStatus:
        return await asyncio.to_thread(self.sync.cancel)
