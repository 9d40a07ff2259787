"""AsyncClient against a loopback API: the same typed answers and error families as Client, calls side by
side under asyncio.gather, retries that wait without blocking the event loop, and a job awaited and read
through every cursor with `async for`."""

from __future__ import annotations

import asyncio
import base64
import time
import unittest
from typing import Any

import webcapture_client
from tests.fake_api import FakeApi, Reply, failed, ok
from webcapture_client import AsyncClient


def job(status: str, results: list[dict[str, Any]] | None = None, next_cursor: str | None = None,
        completed: int = 0) -> Reply:
    return ok({"jobId": "job-1", "operation": "links", "status": status, "total": 3, "completed": completed,
               "failed": 0, "cancelled": 0, "results": results or [], "next": next_cursor})


class AsyncSdkTest(unittest.IsolatedAsyncioTestCase):
    def client(self, api: FakeApi, **options: Any) -> AsyncClient:
        return AsyncClient(api_url=api.url, api_key="wc_test", backoff_s=0.01, **options)

    async def test_calls_run_side_by_side_and_answer_dataclasses(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/markdown", ok({"markdown": "# Hi", "metadata": {"title": "Hi"}}))
            api.on("POST /v1/web/screenshot", ok({"image": base64.b64encode(b"png!").decode(), "metadata": {}}))
            client = self.client(api)
            page, shot = await asyncio.gather(client.markdown(url="https://a.test", onlyMainContent=False),
                                              client.screenshot(url="https://b.test"))
        self.assertEqual((page.markdown, shot.image), ("# Hi", b"png!"))
        sent = {seen.path: seen.body for seen in api.seen}
        self.assertEqual(sent["/v1/web/markdown"], {"url": "https://a.test", "onlyMainContent": False})
        self.assertEqual(sent["/v1/web/screenshot"], {"url": "https://b.test", "base64": True})

    async def test_an_error_raises_its_family_with_code_status_and_request_id(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/links", failed(502, "NAVIGATION_FAILED"))
            with self.assertRaises(webcapture_client.PageError) as raised:
                await self.client(api).links(url="https://example.com")
        self.assertEqual((raised.exception.code, raised.exception.status, raised.exception.request_id),
                         ("NAVIGATION_FAILED", 502, "req-1"))

    async def test_a_retry_waits_what_retry_after_asks_while_the_loop_goes_on(self) -> None:
        ticks = 0

        async def ticking() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.05)
                ticks += 1

        with FakeApi() as api:
            api.on("POST /v1/web/content", failed(429, "CONCURRENCY_LIMIT_EXCEEDED", **{"Retry-After": "1"}),
                   ok({"html": "<p>done</p>", "metadata": {}}))
            ticker = asyncio.create_task(ticking())
            started = time.monotonic()
            answer = await self.client(api).content(url="https://example.com")
            waited = time.monotonic() - started
            ticker.cancel()
        self.assertEqual(answer.html, "<p>done</p>")
        self.assertEqual(len(api.seen), 2)
        self.assertGreaterEqual(waited, 1.0)
        self.assertGreaterEqual(ticks, 5)  # the second's wait blocked a worker thread, not the event loop

    async def test_a_batch_is_awaited_with_progress_and_read_through_every_cursor(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/batch", ok({"jobId": "job-1", "status": "queued", "total": 3}, 202))
            api.on("GET /v1/jobs/job-1?limit=1", job("running", completed=1), job("completed", completed=3))
            api.on("GET /v1/jobs/job-1?limit=100", job("completed", [{"index": 0, "status": "completed"},
                                                                     {"index": 1, "status": "completed"}], "c2"))
            api.on("GET /v1/jobs/job-1?limit=100&cursor=c2", job("completed", [{"index": 2, "status": "failed",
                                                                                "error": {"code": "X"}}]))
            api.on("DELETE /v1/jobs/job-1", job("completed", completed=3))
            batch = await self.client(api).batch(operation="links", requests=[{"url": "https://a.test"}],
                                                 idempotency_key="k1")
            seen: list[int] = []

            async def progress(status: webcapture_client.results.JobStatus) -> None:
                seen.append(status.completed)

            final = await batch.wait(progress=progress, poll_s=0.01)
            results = [(result.index, result.status) async for result in batch]
            cancelled = await batch.cancel()
        self.assertEqual(api.seen[0].headers["Idempotency-Key"], "k1")
        self.assertEqual(api.seen[0].body, {"operation": "links", "requests": [{"url": "https://a.test"}]})
        self.assertEqual((batch.id, final.status, seen), ("job-1", "completed", [1, 3]))
        self.assertEqual(results, [(0, "completed"), (1, "completed"), (2, "failed")])
        self.assertEqual((cancelled.status, api.seen[-1].method), ("completed", "DELETE"))

    async def test_waiting_past_timeout_s_is_a_timeout_error(self) -> None:
        with FakeApi() as api:
            api.on("GET /v1/jobs/job-1?limit=1", job("running"))
            with self.assertRaises(TimeoutError):
                await self.client(api).job("job-1").wait(poll_s=0.01, timeout_s=0.05)


if __name__ == "__main__":
    unittest.main()
