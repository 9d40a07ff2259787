"""The MCP server's parts without the service: its footprint, its schemas against the OpenAPI document, the
text of its errors, its progress, and the server in-process (the SDK's Client) against a loopback API."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp_types import ImageContent, ResourceLink, TextContent

from tests.support.json_schema_refs import resolved
from webcapture.openapi.document import openapi_document
from webcapture_client.http import ApiAnswerError, CliFailure
from webcapture_client.mcp_server import answers, paging
from webcapture_client.mcp_server.api import ToolApi
from webcapture_client.mcp_server.failures import api_error_text, failure_text
from webcapture_client.mcp_server.jobs import look_up, start_and_follow
from webcapture_client.mcp_server.progress import Progress, while_waiting
from webcapture_client.mcp_server.server import build_server
from webcapture_client.mcp_server.tools import TOOLS, ToolEntry
from webcapture_client.settings import ClientSettings

TEXT_TOOLS = {"markdown", "content", "links", "extract"}
# The least body of the tools that need more than a url.
VALID_BODIES: dict[str, dict[str, Any]] = {
    "batch": {"operation": "links", "requests": [{"url": "https://example.com/"}]},
    "monitor_create": {"url": "https://example.com/", "operation": "markdown", "schedule": "rate(1 hour)"}}
SERVER_SIDE = ("webcapture", "boto3", "botocore", "playwright", "aws_lambda_powertools", "openai")


def test_the_mcp_server_imports_nothing_of_the_service() -> None:
    probe = ("import json, sys\n"
             "import webcapture_client.cli, webcapture_client.mcp_server.server, webcapture_client.mcp_server.tools\n"
             "webcapture_client.cli.build_parser().parse_args(['mcp'])\n"
             "print(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                       check=True, timeout=120).stdout)
    assert "mcp.server.lowlevel" in loaded and "webcapture_client.mcp_server.tools" in loaded  # it worked
    found = [name for name in loaded if any(name == part or name.startswith(part + ".") for part in SERVER_SIDE)]
    assert found == []


@pytest.mark.parametrize("tool", [tool for tool in TOOLS if tool.path is not None], ids=lambda tool: tool.name)
def test_input_schema_is_the_documents_request_schema(tool: Any) -> None:
    document = openapi_document()
    components = document["components"]["schemas"]
    reference = document["paths"][tool.path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    expected = resolved(reference, components, "#/components/schemas/")
    for name in tool.fixed:
        del expected["properties"][name]
    if tool.name in TEXT_TOOLS:  # the tool's own: how much of the text to answer, from where
        expected["properties"].update(paging.SCHEMA_PROPERTIES)
    schema = tool.listing().input_schema
    Draft202012Validator.check_schema(schema)
    assert resolved(schema, schema.get("$defs", {}), "#/$defs/") == expected
    validator = Draft202012Validator(schema)
    valid = VALID_BODIES.get(tool.name, {"url": "https://example.com/"})
    assert validator.is_valid(valid)
    assert not validator.is_valid({**valid, "url": 5} if "url" in valid else {**valid, "requests": 5})
    assert not validator.is_valid({})


def test_the_job_status_tool_takes_a_job_id() -> None:
    (tool,) = [tool for tool in TOOLS if tool.name == "job_status"]
    validator = Draft202012Validator(tool.listing().input_schema)
    assert validator.is_valid({"jobId": "j-1", "limit": 100, "cursor": "c"})
    assert not validator.is_valid({}) and not validator.is_valid({"jobId": "j-1", "limit": 101})


def test_tool_names_are_unique_and_the_fixed_fields_are_left_out() -> None:
    assert len({tool.name for tool in TOOLS}) == len(TOOLS)
    by_name = {tool.name: tool for tool in TOOLS}
    assert dict(by_name["screenshot"].fixed) == {"base64": True}
    assert dict(by_name["pdf"].fixed) == {"base64": False}
    assert "base64" not in by_name["screenshot"].input_schema["properties"]


def validation_error() -> ApiAnswerError:
    issues = [{"code": "invalid_string", "validation": "url", "path": ["url"], "message": "Invalid url"},
              {"code": "invalid_enum_value", "options": ["png", "jpeg", "webp"], "received": "gif",
               "path": ["screenshotOptions", "type"], "message": "Invalid enum value"}]
    return ApiAnswerError("422 invalid request", 4, 422, {"name": "ZodError", "issues": issues})


def test_a_422_lists_every_issue_with_its_path() -> None:
    lines = api_error_text(validation_error()).splitlines()
    assert lines[0] == ("webcapture API error 422 VALIDATION_ERROR: the arguments are invalid (2 issues); "
                        "correct them and call again.")
    assert lines[1] == "- url: Invalid url (invalid_string)"
    assert lines[2] == "- screenshotOptions.type: Invalid enum value (invalid_enum_value); allowed: png, jpeg, webp"
    assert json.loads(lines[3].removeprefix("issues: "))[1]["received"] == "gif"


def test_general_errors_keep_code_message_and_request_id() -> None:
    refused = ApiAnswerError("x", 3, 401, {"code": "UNAUTHORIZED", "message": "Authentication required",
                                     "requestId": "r-1"})
    first, hint = api_error_text(refused).splitlines()
    assert first == "webcapture API error 401 UNAUTHORIZED: Authentication required (requestId r-1)"
    assert "WEBCAPTURE_API_KEY" in hint
    odd = ApiAnswerError("x", 7, 500, {"code": "SOMETHING_NEW", "message": "what happened"})
    assert api_error_text(odd) == "webcapture API error 500 SOMETHING_NEW: what happened"
    unreachable = CliFailure("cannot reach the API at http://h/v1/web/links: refused", 8)
    assert failure_text(unreachable, "http://h").startswith("The webcapture API at http://h cannot be reached")


def test_progress_is_reported_while_the_work_runs_and_errors_come_through_unwrapped() -> None:
    reports: list[tuple[float, float | None, str | None]] = []
    reported = threading.Event()

    async def report(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))
        if len(reports) == 2:
            reported.set()

    def work() -> str:  # ends only once two reports came: no timing involved
        reported.wait()
        return "done"

    def failing() -> str:
        raise CliFailure("nope", 7)

    async def main() -> None:
        progress = Progress(report)
        assert await while_waiting(progress, "waiting for /v1/x", work, tick_s=0.01) == "done"
        with pytest.raises(CliFailure, match="nope"):
            await while_waiting(progress, "waiting", failing, tick_s=0.01)
        await progress(0.0)  # not above the last value: not sent
        await Progress(None)(5.0)  # the client asked for no progress

    anyio.run(main)
    assert len(reports) >= 2 and [value for value, _, _ in reports] == sorted({v for v, _, _ in reports})
    assert all(total is None and message and message.startswith("waiting for /v1/x: ")
               for _, total, message in reports)


def test_a_report_that_fails_does_not_fail_the_call() -> None:
    async def broken(progress: float, total: float | None, message: str | None) -> None:
        raise RuntimeError("client went away")

    async def main() -> None:
        await Progress(broken)(1.0)

    anyio.run(main)


def test_an_image_too_large_to_answer_inline_is_a_link_to_the_stored_one() -> None:
    data: dict[str, Any] = {
        "metadata": {"width": 1280, "height": 16384, "format": "jpeg", "size": 7_000_000,
                     "url": "https://example.com/", "timestamp": "t"},
        "permanentUrl": "https://files.example/screenshots/u/f.jpeg", "fileId": "f",
        "warning": "too large to answer inline"}
    link, about = answers.screenshot(data)
    assert isinstance(link, ResourceLink) and link.uri == data["permanentUrl"]
    assert link.mime_type == "image/jpeg" and link.size == 7_000_000
    assert isinstance(about, TextContent) and json.loads(about.text)["warning"] == "too large to answer inline"
    tall = {**data, "image": base64.b64encode(b"jpeg").decode()}
    link, note, about = answers.screenshot(tall)
    assert isinstance(link, ResourceLink) and isinstance(note, TextContent) and isinstance(about, TextContent)
    assert note.text.startswith("The screenshot is 1280x16384 px, more than models take as an image")
    assert "image" not in json.loads(about.text)
    inline, _ = answers.screenshot({**tall, "metadata": {**data["metadata"], "height": 8000}})
    assert isinstance(inline, ImageContent) and inline.mime_type == "image/jpeg"


class FakeApi(ThreadingHTTPServer):
    """Answers every POST with the next scripted (status, content type, body); records the bodies."""

    def __init__(self) -> None:
        self.script: list[tuple[int, str, bytes]] = []
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers_seen: list[dict[str, str]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                api.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.do_GET()

            def do_GET(self) -> None:
                api.paths.append(f"{self.command} {self.path}")
                api.headers_seen.append(dict(self.headers))
                status, content_type, body = api.script.pop(0)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def fake_api() -> Iterator[FakeApi]:
    server = FakeApi()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def envelope(data: dict[str, Any]) -> bytes:
    return json.dumps({"success": True, "data": data, "creditsCost": 1}).encode()


def test_in_process_calls_send_the_tools_body_and_survive_odd_answers(
        fake_api: FakeApi, monkeypatch: pytest.MonkeyPatch) -> None:
    markdown = {"markdown": "# Title", "metadata": {"url": "https://example.com/", "title": "T",
                                                      "statusCode": 200, "timestamp": "t", "truncated": False}}
    fake_api.script = [
        (502, "text/html", b"<html>Bad gateway</html>"),  # a proxy in front of the API, not the API
        (200, "application/json", envelope(markdown)),
        (200, "application/json", envelope(markdown)),
        (200, "application/json", envelope({"permanentUrl": "https://f/p.pdf", "fileId": "p",
                                            "metadata": {"url": "u", "timestamp": "t", "size": 10, "pages": 2,
                                                         "format": "A4"}})),
    ]
    server = build_server(ClientSettings(api_url=fake_api.url, api_key="wc_test"))
    broken = {"done": False}
    original = ToolApi.data

    def data_once_broken(answer: Any) -> dict[str, Any]:
        if not broken["done"]:
            broken["done"] = True
            raise KeyError("a bug")
        return original(answer)

    async def main() -> None:
        async with Client(server) as client:
            gateway = await client.call_tool("markdown", {"url": "https://example.com/"})
            assert gateway.is_error and isinstance(gateway.content[0], TextContent)
            assert gateway.content[0].text.startswith("webcapture API error 502, without the API's error body")
            with monkeypatch.context() as patch:
                patch.setattr(ToolApi, "data", staticmethod(data_once_broken))
                bug = await client.call_tool("markdown", {"url": "https://example.com/"})
            assert bug.is_error and isinstance(bug.content[0], TextContent)
            assert "failed on this call (KeyError)" in bug.content[0].text and "a bug" not in bug.content[0].text
            fine = await client.call_tool("markdown", {"url": "https://example.com/", "onlyMainContent": False})
            assert not fine.is_error and isinstance(fine.content[0], TextContent)
            assert fine.content[0].text == "# Title"
            pdf = await client.call_tool("pdf", {"url": "https://example.com/", "base64": True})
            assert isinstance(pdf.content[0], ResourceLink) and pdf.content[0].uri == "https://f/p.pdf"

    anyio.run(main)
    # maxAge: the text tools take a cached answer, so that reading on with offset is served the same text.
    assert fake_api.bodies[2] == {"url": "https://example.com/", "onlyMainContent": False, "maxAge": 900}
    assert fake_api.bodies[3] == {"url": "https://example.com/", "base64": False}  # the tool's field wins
    assert fake_api.headers_seen[3]["Accept"] == "application/json"
    assert all(headers["Authorization"] == "Bearer wc_test" for headers in fake_api.headers_seen)


def test_a_long_markdown_is_cut_and_read_on_with_offset(fake_api: FakeApi) -> None:
    text = "".join(f"paragraph {number} " + "word " * 30 + "\n" for number in range(200))
    answer = envelope({"markdown": text, "metadata": {"url": "https://example.com/", "truncated": False}})
    fake_api.script = [(200, "application/json", answer)] * 20
    server = build_server(ClientSettings(api_url=fake_api.url, api_key="wc_test"))
    pieces: list[str] = []

    async def main() -> None:
        async with Client(server) as client:
            wrong = await client.call_tool("markdown", {"url": "https://example.com/", "maxChars": 100_001})
            assert wrong.is_error and isinstance(wrong.content[0], TextContent)
            assert "maxChars must be an integer from 1 to 100,000" in wrong.content[0].text
            offset = 0
            while True:
                result = await client.call_tool("markdown", {"url": "https://example.com/", "maxChars": 8000,
                                                             "offset": offset})
                assert not result.is_error and isinstance(result.content[0], TextContent)
                body, _, note = result.content[0].text.partition("\n\n[cut: ")
                pieces.append(body)
                if not note:
                    return
                offset = int(note.rsplit("offset ", 1)[1].rstrip(".]"))

    anyio.run(main)
    assert len(pieces) == 5 and all(len(piece) <= 8000 for piece in pieces)
    assert "\n".join(pieces) == text
    assert all(body == {"url": "https://example.com/", "maxAge": 900} for body in fake_api.bodies)


def job(status: str, completed: int, failed: int = 0, results: list[Any] | None = None) -> bytes:
    return envelope({"jobId": "job 1", "operation": "crawl", "status": status, "total": 3,
                     "completed": completed, "failed": failed, "creditsCost": completed,
                     "results": results or [], "next": None})


def crawl_tool(budget_s: float) -> ToolEntry:
    return ToolEntry("crawl", "Crawl a site", "Crawl a site.", {"type": "object"},
                     start_and_follow("/v1/web/crawl", poll_s=0, budget_s=budget_s))


def test_a_job_tool_reports_the_jobs_counts_until_it_finishes(fake_api: FakeApi) -> None:
    started = envelope({"jobId": "job 1", "status": "queued", "total": 3, "statusUrl": "/v1/jobs/job%201"})
    result = {"index": 0, "status": "completed", "data": {"url": "https://example.com/", "markdown": "# Hi"}}
    fake_api.script = [(202, "application/json", started), (200, "application/json", job("queued", 0)),
                       (200, "application/json", job("running", 1, 1)),
                       (200, "application/json", job("running", 1, 1)),
                       (200, "application/json", job("completed", 2, 1, [result]))]
    reports: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    async def main() -> list[Any]:
        server = build_server(ClientSettings(api_url=fake_api.url, api_key="wc_test"), (crawl_tool(60),))
        async with Client(server) as client:
            answer = await client.call_tool("crawl", {"url": "https://example.com/", "limit": 3},
                                            progress_callback=on_progress)
            assert not answer.is_error
            return list(answer.content)

    content = anyio.run(main)
    assert fake_api.paths == ["POST /v1/web/crawl"] + ["GET /v1/jobs/job%201"] * 4
    assert fake_api.bodies == [{"url": "https://example.com/", "limit": 3}]
    assert reports == [(0, 3, "queued: 0 of 3 done"), (2, 3, "running: 2 of 3 done"),
                       (3, 3, "completed: 3 of 3 done")]
    assert len(content) == 1 and isinstance(content[0], TextContent)
    assert json.loads(content[0].text)["results"] == [result]


def test_a_job_that_outlasts_the_call_is_answered_with_its_id(fake_api: FakeApi) -> None:
    started = envelope({"jobId": "job 1", "status": "queued", "total": 3, "statusUrl": "/v1/jobs/job%201"})
    fake_api.script = [(202, "application/json", started), (200, "application/json", job("running", 1))]

    async def main() -> list[Any]:
        server = build_server(ClientSettings(api_url=fake_api.url, api_key="wc_test"), (crawl_tool(0),))
        async with Client(server) as client:
            answer = await client.call_tool("crawl", {"url": "https://example.com/"})
            return list(answer.content)

    first, whole = anyio.run(main)
    assert isinstance(first, TextContent) and isinstance(whole, TextContent)
    assert first.text.startswith("The job job 1 is still running (1 of 3 done): look again later")
    assert json.loads(whole.text)["status"] == "running"


def test_the_job_status_run_looks_a_job_up_once(fake_api: FakeApi) -> None:
    fake_api.script = [(200, "application/json", job("completed", 3)),
                       (404, "application/json", json.dumps({"success": False, "error": {
                           "code": "NOT_FOUND", "message": "No such job", "requestId": "r"}}).encode())]
    status = ToolEntry("job_status", "A job's status", "A job's status.", {"type": "object"}, look_up())

    async def main() -> tuple[Any, Any, Any]:
        server = build_server(ClientSettings(api_url=fake_api.url, api_key="wc_test"), (status,))
        async with Client(server) as client:
            return (await client.call_tool("job_status", {"jobId": "job 1", "limit": 10, "cursor": "c/2"}),
                    await client.call_tool("job_status", {"jobId": "other"}),
                    await client.call_tool("job_status", {}))

    found, unknown, missing = anyio.run(main)
    assert fake_api.paths == ["GET /v1/jobs/job%201?limit=10&cursor=c%2F2", "GET /v1/jobs/other"]
    assert not found.is_error and json.loads(found.content[0].text)["status"] == "completed"
    assert unknown.is_error and unknown.content[0].text.startswith("webcapture API error 404 NOT_FOUND: No such job")
    assert missing.is_error and missing.content[0].text.startswith("jobId is required")


def test_the_fast_path_fields_are_in_the_tools_schemas_and_reach_the_service(fake_api: FakeApi) -> None:
    by_name = {tool.name: tool for tool in TOOLS}
    for name in ("markdown", "content", "links", "extract", "crawl"):
        validator = Draft202012Validator(by_name[name].listing().input_schema)
        assert validator.is_valid({"url": "https://example.com/", "engine": "http"}), name
        assert not validator.is_valid({"url": "https://example.com/", "engine": "fast"}), name
    crawl_schema = Draft202012Validator(by_name["crawl"].listing().input_schema)
    assert crawl_schema.is_valid({"url": "https://example.com/", "since": "job 0"})
    assert not crawl_schema.is_valid({"url": "https://example.com/", "since": ""})
    markdown = {"markdown": "# Title", "metadata": {"url": "https://example.com/", "engine": "http"}}
    started = envelope({"jobId": "job 1", "status": "queued", "total": 1, "statusUrl": "/v1/jobs/job%201"})
    finished = envelope({"jobId": "job 1", "operation": "crawl", "status": "completed", "total": 1,
                         "completed": 1, "failed": 0, "since": "job 0",
                         "changes": {"new": 0, "changed": 0, "same": 1, "removed": 0}, "results": [],
                         "next": None})
    fake_api.script = [(200, "application/json", envelope(markdown)), (202, "application/json", started),
                       (200, "application/json", finished)]
    server = build_server(ClientSettings(api_url=fake_api.url, api_key="wc_test"))

    async def main() -> list[Any]:
        async with Client(server) as client:
            page = await client.call_tool("markdown", {"url": "https://example.com/", "engine": "http"})
            assert not page.is_error
            crawl = await client.call_tool("crawl", {"url": "https://example.com/", "engine": "auto",
                                                     "since": "job 0"})
            assert not crawl.is_error
            return list(crawl.content)

    (answer,) = anyio.run(main)
    assert fake_api.bodies == [{"url": "https://example.com/", "engine": "http", "maxAge": 900},
                               {"url": "https://example.com/", "engine": "auto", "since": "job 0"}]
    assert isinstance(answer, TextContent)
    assert json.loads(answer.text)["changes"] == {"new": 0, "changed": 0, "same": 1, "removed": 0}
