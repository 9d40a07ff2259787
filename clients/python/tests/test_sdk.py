"""The SDK against a loopback API: typed answers, one exception per error family, retries that honour
Retry-After, and jobs followed to their end and read through every cursor."""

from __future__ import annotations

import base64
import time
import unittest
import unittest.mock
from typing import Any

import webcapture_client
from tests.fake_api import FakeApi, Reply, failed, ok
from webcapture_client import Client


def job(status: str, results: list[dict[str, Any]] | None = None, next_cursor: str | None = None,
        completed: int = 0) -> Reply:
    return ok({"jobId": "job-1", "operation": "markdown", "status": status, "total": 3, "completed": completed,
               "failed": 0, "cancelled": 0, "results": results or [], "next": next_cursor})


class SdkTest(unittest.TestCase):
    def client(self, api: FakeApi, **options: Any) -> Client:
        return Client(api_url=api.url, api_key="wc_test", backoff_s=0.01, **options)

    def test_a_method_sends_the_fields_as_named_and_answers_a_dataclass(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/markdown", ok({"markdown": "# Hi", "metadata": {"title": "Hi"}}))
            answer = self.client(api).markdown(url="https://example.com", onlyMainContent=False)
        self.assertEqual((answer.markdown, answer.metadata["title"]), ("# Hi", "Hi"))
        self.assertEqual(api.seen[0].body, {"url": "https://example.com", "onlyMainContent": False})
        self.assertEqual(api.seen[0].headers["Authorization"], "Bearer wc_test")

    def test_the_screenshot_is_bytes(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/screenshot", ok({"image": base64.b64encode(b"png!").decode(),
                                                   "metadata": {"width": 1}, "fileId": "f1"}))
            shot = self.client(api).screenshot(url="https://example.com", screenshotOptions={"fullPage": False})
        self.assertEqual((shot.image, shot.file_id), (b"png!", "f1"))
        self.assertIs(api.seen[0].body["base64"], True)

    def test_settings_come_from_the_environment(self) -> None:
        with FakeApi() as api, unittest.mock.patch.dict(
                "os.environ", {"WEBCAPTURE_API_URL": api.url, "WEBCAPTURE_API_KEY": "wc_env"}):
            api.on("POST /v1/web/links", ok({"links": [{"url": "https://a.test/", "text": "A"}], "metadata": {}}))
            links = Client().links(url="https://example.com")
        self.assertEqual(links.links, [webcapture_client.results.Link("https://a.test/", "A")])
        self.assertEqual(api.seen[0].headers["Authorization"], "Bearer wc_env")

    def test_each_error_family_carries_code_status_and_request_id(self) -> None:
        cases = [(failed(401, "UNAUTHORIZED"), webcapture_client.AuthenticationError),
                 (failed(400, "URL_NOT_ALLOWED"), webcapture_client.InvalidRequestError),
                 (failed(404, "NOT_FOUND"), webcapture_client.NotFoundError),
                 (failed(429, "USAGE_EXCEEDED"), webcapture_client.RateLimitError),
                 (failed(502, "NAVIGATION_FAILED"), webcapture_client.PageError),
                 (failed(503, "AI_NOT_CONFIGURED"), webcapture_client.AiError)]
        for reply, family in cases:
            with self.subTest(code=reply.body["error"]["code"]), FakeApi() as api:
                api.on("POST /v1/web/content", reply)
                with self.assertRaises(family) as raised:
                    self.client(api).content(url="https://example.com")
                self.assertEqual((raised.exception.code, raised.exception.status, raised.exception.request_id),
                                 (reply.body["error"]["code"], reply.status, "req-1"))
                self.assertEqual(len(api.seen), 1)  # none of these is retried

    def test_a_422_lists_its_issues(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/markdown", Reply(422, {"success": False, "error": {
                "name": "ZodError", "issues": [{"path": ["url"], "message": "Invalid url", "code": "invalid"}]}}))
            with self.assertRaises(webcapture_client.ValidationError) as raised:
                self.client(api).markdown(url="nope")
        self.assertEqual(raised.exception.issues[0]["path"], ["url"])
        self.assertIn("url: Invalid url", str(raised.exception))

    def test_429_and_5xx_are_retried_waiting_what_retry_after_asks(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/markdown", failed(429, "CONCURRENCY_LIMIT_EXCEEDED", **{"Retry-After": "1"}),
                   failed(503, "SERVICE_UNAVAILABLE"), ok({"markdown": "done", "metadata": {}}))
            started = time.monotonic()
            answer = self.client(api).markdown(url="https://example.com")
            waited = time.monotonic() - started
        self.assertEqual(answer.markdown, "done")
        self.assertEqual(len(api.seen), 3)
        self.assertGreaterEqual(waited, 1.0)

    def test_retries_stop_at_max_retries(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/markdown", failed(500, "INTERNAL_SERVER_ERROR"))
            with self.assertRaises(webcapture_client.ServerError):
                self.client(api, max_retries=2).markdown(url="https://example.com")
        self.assertEqual(len(api.seen), 3)

    def test_a_read_is_retried_whatever_its_5xx_but_a_page_that_timed_out_is_not(self) -> None:
        with FakeApi() as api:
            api.on("GET /v1/jobs/job-1?limit=1", failed(504, "NAVIGATION_TIMEOUT"), job("running", completed=1))
            api.on("POST /v1/web/markdown", failed(504, "NAVIGATION_TIMEOUT"))
            client = self.client(api)
            self.assertEqual(client.job("job-1").status(limit=1).completed, 1)
            with self.assertRaises(webcapture_client.PageError):
                client.markdown(url="https://example.com")
        self.assertEqual([seen.method for seen in api.seen], ["GET", "GET", "POST"])

    def test_an_unreachable_api_is_a_connection_error(self) -> None:
        client = Client(api_url="http://127.0.0.1:9", api_key="wc_test", max_retries=0)
        with self.assertRaises(webcapture_client.ApiConnectionError) as raised:
            client.markdown(url="https://example.com")
        self.assertEqual(raised.exception.status, 0)

    def test_a_crawl_is_a_job_waited_with_progress_and_read_through_every_cursor(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/crawl", ok({"jobId": "job-1", "status": "queued", "total": 3}, 202))
            api.on("GET /v1/jobs/job-1?limit=1", job("running", completed=1), job("completed", completed=3))
            api.on("GET /v1/jobs/job-1?limit=100", job("completed", [{"index": 0, "status": "completed"},
                                                                     {"index": 1, "status": "completed"}], "c2"))
            api.on("GET /v1/jobs/job-1?limit=100&cursor=c2", job("completed", [{"index": 2, "status": "failed",
                                                                                "error": {"code": "X"}}]))
            crawl = self.client(api).crawl(url="https://example.com", limit=3, idempotency_key="k1")
            seen: list[int] = []
            final = crawl.wait(progress=lambda status: seen.append(status.completed), poll_s=0.01)
            results = list(crawl.results())
        self.assertEqual(api.seen[0].headers["Idempotency-Key"], "k1")
        self.assertEqual(api.seen[0].body, {"url": "https://example.com", "limit": 3})
        self.assertEqual((final.status, seen), ("completed", [1, 3]))
        self.assertEqual([(r.index, r.status) for r in results], [(0, "completed"), (1, "completed"), (2, "failed")])

    def test_a_batch_sends_its_operation_and_requests(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/batch", ok({"jobId": "job-1", "status": "queued", "total": 1}, 202))
            batch = self.client(api).batch(operation="links", requests=[{"url": "https://a.test"}])
        self.assertEqual(batch.id, "job-1")
        self.assertEqual(api.seen[0].body, {"operation": "links", "requests": [{"url": "https://a.test"}]})
