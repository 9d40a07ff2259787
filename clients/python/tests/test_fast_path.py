"""The fast path from the client (docs/fast-path.md): `--engine` on the commands whose endpoint takes one,
`crawl --since` for an incremental crawl with its counts on stderr and only new and changed pages written,
and the SDK's `engine=` / `since=` in the body as named."""

from __future__ import annotations

import asyncio
import tempfile
import unittest
from pathlib import Path
from typing import Any

from tests.fake_api import FakeApi, Reply, ok
from tests.test_cli import webcapture
from webcapture_client import AsyncClient, Client


def crawl_job(results: list[dict[str, Any]]) -> Reply:
    completed = sum(1 for result in results if result["status"] == "completed")
    return ok({"jobId": "job-2", "operation": "crawl", "status": "completed", "total": 4,
               "completed": completed, "failed": 0, "cancelled": 0, "since": "job-1",
               "changes": {"new": 1, "changed": 1, "same": 1, "removed": 2}, "results": results,
               "next": None})


def page(index: int, path: str, change: str, markdown: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"url": f"https://example.com/{path}", "depth": 1, "statusCode": 200,
                            "changeStatus": change}
    if markdown is not None:
        data["markdown"] = markdown
    if change in ("same", "removed"):
        data["sameAs"] = {"jobId": "job-1", "index": index}
    return {"index": index, "status": "completed", "data": data}


INCREMENTAL_RESULTS = [
    page(0, "", "changed", "# Home, new text"),
    page(1, "new-page", "new", "# New"),
    page(2, "kept", "same"),
    {**page(3, "deleted", "removed"), "data": {**page(3, "deleted", "removed")["data"], "statusCode": 404}},
    {"index": 4, "status": "removed",
     "data": {"url": "https://example.com/unlinked", "changeStatus": "removed",
              "sameAs": {"jobId": "job-1", "index": 7}}},
]


class CliEngineTest(unittest.TestCase):
    def test_page_commands_send_the_engine_asked_for(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/markdown", ok({"markdown": "# Hi"}))
            api.on("POST /v1/web/content", ok({"html": "<p>hi</p>"}))
            api.on("POST /v1/web/links", ok({"links": []}))
            api.on("POST /v1/web/ai-extract", ok({"extracted": {}}))
            for command, engine in (("markdown", "http"), ("content", "auto"), ("links", "http"),
                                    ("extract", "browser")):
                answer = webcapture(api, command, "https://example.com/doc", "--engine", engine, "--quiet")
                self.assertEqual(answer.returncode, 0, answer.stderr)
            answer = webcapture(api, "markdown", "https://example.com/doc", "--quiet")
            self.assertEqual(answer.returncode, 0, answer.stderr)
        self.assertEqual([(seen.path, seen.body.get("engine")) for seen in api.seen],
                         [("/v1/web/markdown", "http"), ("/v1/web/content", "auto"), ("/v1/web/links", "http"),
                          ("/v1/web/ai-extract", "browser"), ("/v1/web/markdown", None)])

    def test_an_engine_the_service_does_not_have_is_a_usage_error_before_any_call(self) -> None:
        with FakeApi() as api:
            answer = webcapture(api, "markdown", "https://example.com", "--engine", "fast")
        self.assertEqual(answer.returncode, 2)
        self.assertIn("invalid choice: 'fast'", answer.stderr)
        self.assertEqual(api.seen, [])

    def test_batch_engine_is_the_default_of_each_line_and_a_line_keeps_its_own(self) -> None:
        with FakeApi() as api, tempfile.TemporaryDirectory() as folder:
            bodies = Path(folder) / "bodies.ndjson"
            bodies.write_text('{"url": "https://a.test"}\n{"url": "https://b.test", "engine": "browser"}\n')
            api.on("POST /v1/batch", ok({"jobId": "job-1", "status": "queued", "total": 2}, 202))
            answer = webcapture(api, "batch", str(bodies), "--operation", "markdown", "--engine", "http")
            self.assertEqual(answer.returncode, 0, answer.stderr)
        self.assertEqual(api.seen[0].body["requests"], [{"engine": "http", "url": "https://a.test"},
                                                        {"engine": "browser", "url": "https://b.test"}])

    def test_batch_engine_on_an_operation_that_always_renders_is_refused_before_any_call(self) -> None:
        with FakeApi() as api, tempfile.TemporaryDirectory() as folder:
            bodies = Path(folder) / "bodies.ndjson"
            bodies.write_text('{"url": "https://a.test"}\n')
            answer = webcapture(api, "batch", str(bodies), "--operation", "screenshot", "--engine", "http")
        self.assertEqual(answer.returncode, 2)
        self.assertIn("--engine is for the operations links, ai-extract, markdown, content", answer.stderr)
        self.assertEqual(api.seen, [])

    def test_crawl_sends_engine_since_and_the_limit_the_service_allows(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/crawl", ok({"jobId": "job-2", "status": "queued", "total": 1}, 202))
            answer = webcapture(api, "crawl", "https://example.com/", "--engine", "http", "--since", "job-1",
                                "--limit", "100000")
            self.assertEqual(answer.returncode, 0, answer.stderr)
        self.assertEqual(api.seen[0].body, {"url": "https://example.com/", "limit": 100000, "engine": "http",
                                            "since": "job-1"})

    def test_an_incremental_crawl_writes_new_and_changed_pages_and_says_what_changed(self) -> None:
        with FakeApi() as api, tempfile.TemporaryDirectory() as folder:
            api.on("POST /v1/web/crawl", ok({"jobId": "job-2", "status": "queued", "total": 1}, 202))
            api.on("GET /v1/jobs/job-2?limit=1", crawl_job(INCREMENTAL_RESULTS[:1]))
            api.on("GET /v1/jobs/job-2?limit=100", crawl_job(INCREMENTAL_RESULTS))
            answer = webcapture(api, "crawl", "https://example.com/", "--since", "job-1", "--wait", "--out",
                                "pages", "--quiet", cwd=folder)
            self.assertEqual(answer.returncode, 0, answer.stderr)
            written = sorted(path.name for path in (Path(folder) / "pages").iterdir())
            self.assertEqual((Path(folder) / "pages" / "0000-index.md").read_text(), "# Home, new text")
        self.assertEqual(written, ["0000-index.md", "0001-new-page.md"])
        self.assertEqual(answer.stdout.split(), ["pages/0000-index.md", "pages/0001-new-page.md"])
        self.assertIn("webcapture: crawl job-2 queued\n", answer.stderr)  # for the next --since, even --quiet
        self.assertIn("webcapture: since crawl job-1: 1 new, 1 changed, 1 same, 2 removed", answer.stderr)
        self.assertIn("webcapture: removed: https://example.com/deleted\n", answer.stderr)
        self.assertIn("webcapture: removed: https://example.com/unlinked\n", answer.stderr)
        self.assertEqual(api.seen[0].body, {"url": "https://example.com/", "since": "job-1"})


    def test_a_page_the_site_answered_with_an_error_is_named_not_written(self) -> None:
        broken = {**page(2, "broken-link", "new", "# Not Found"),
                  "data": {**page(2, "broken-link", "new", "# Not Found")["data"], "statusCode": 404}}
        results = [page(0, "", "new", "# Home"), page(1, "guide", "new", "# Guide"), broken]
        with FakeApi() as api, tempfile.TemporaryDirectory() as folder:
            api.on("POST /v1/web/crawl", ok({"jobId": "job-2", "status": "queued", "total": 3}, 202))
            api.on("GET /v1/jobs/job-2?limit=1", crawl_job(results[:1]))
            api.on("GET /v1/jobs/job-2?limit=100", crawl_job(results))
            answer = webcapture(api, "crawl", "https://example.com/", "--wait", "--out", "pages", "--quiet",
                                cwd=folder)
            self.assertEqual(answer.returncode, 0, answer.stderr)
            written = sorted(path.name for path in (Path(folder) / "pages").iterdir())
        self.assertEqual(written, ["0000-index.md", "0001-guide.md"])
        self.assertIn("webcapture: https://example.com/broken-link: HTTP 404\n", answer.stderr)


class SdkEngineTest(unittest.TestCase):
    def test_engine_and_since_reach_the_body_as_named(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/markdown", ok({"markdown": "# Hi", "metadata": {"engine": "http"}}))
            api.on("POST /v1/web/crawl", ok({"jobId": "job-2", "status": "queued", "total": 1}, 202))
            api.on("POST /v1/batch", ok({"jobId": "job-3", "status": "queued", "total": 1}, 202))
            client = Client(api_url=api.url, api_key="wc_test")
            answer = client.markdown("https://example.com", engine="http")
            crawl = client.crawl("https://example.com", engine="auto", since="job-1")
            client.batch("content", [{"url": "https://a.test", "engine": "http"}])

            async def started_async() -> str:
                job = await AsyncClient(api_url=api.url, api_key="wc_test").crawl(
                    "https://example.com", engine="http", since="job-2")
                return job.id

            async_id = asyncio.run(started_async())
        self.assertEqual(answer.metadata["engine"], "http")
        self.assertEqual((crawl.id, async_id), ("job-2", "job-2"))
        self.assertEqual([seen.body for seen in api.seen], [
            {"url": "https://example.com", "engine": "http"},
            {"url": "https://example.com", "engine": "auto", "since": "job-1"},
            {"operation": "content", "requests": [{"url": "https://a.test", "engine": "http"}]},
            {"url": "https://example.com", "engine": "http", "since": "job-2"}])


if __name__ == "__main__":
    unittest.main()
