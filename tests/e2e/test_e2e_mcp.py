"""`webcapture mcp` as an MCP client starts it: the SDK's own stdio client runs the installed command in a
subprocess against the local API, lists the tools, checks their schemas against the API's OpenAPI document,
calls each one on fixture pages, and meets every kind of failure as a tool error."""

from __future__ import annotations

import base64
import json
import os
import socket
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
import requests
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp_types import CallToolResult, ImageContent, ResourceLink, TextContent

from tests.support.client_cli import CLI
from tests.support.fake_openai import FakeOpenAI, json_completion
from tests.support.fixture_server import get_server
from tests.support.json_schema_refs import resolved
from tests.support.local_api import LocalApi
from tests.support.png_pixels import png_size
from webcapture_client.mcp_server import paging

# Each tool, the route whose request body it takes, and the body fields the tool sets itself.
TOOL_ROUTES = {
    "screenshot": ("/v1/web/screenshot", {"base64"}),
    "markdown": ("/v1/web/markdown", set()),
    "content": ("/v1/web/content", set()),
    "links": ("/v1/web/links", set()),
    "extract": ("/v1/web/ai-extract", set()),
    "pdf": ("/v1/web/pdf", {"base64"}),
    "map": ("/v1/web/map", set()),
    "crawl": ("/v1/web/crawl", set()),
    "batch": ("/v1/batch", set()),
    "monitor_create": ("/v1/monitors", set()),
}
# Tools whose text answer is paged (maxChars, offset: properties of the tool's own).
TEXT_TOOLS = {"markdown", "content", "links", "extract"}
# Tools whose input is no request body (a GET's path and query parameters).
OTHER_TOOLS = {"job_status", "monitor_list", "monitor_get", "monitor_update", "monitor_delete", "monitor_run",
               "monitor_checks"}
# The fields a tool's body must have, where it is more than the url.
REQUIRED = {"batch": ["operation", "requests"], "monitor_create": ["schedule", "url", "operation"]}


@asynccontextmanager
async def mcp_client(api_url: str, api_key: str | None) -> AsyncIterator[ClientSession]:
    # The SDK gives the server only a minimal environment (PATH, HOME...): the rest is passed by hand.
    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "WEBCAPTURE_API_URL": api_url}
    if api_key is not None:
        env["WEBCAPTURE_API_KEY"] = api_key
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(StdioServerParameters(command=CLI, args=["mcp"], env=env),
                                errlog=errlog) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            yield client


def run(api_url: str, api_key: str | None, scenario: Callable[[ClientSession], Awaitable[None]]) -> None:
    async def main() -> None:
        async with mcp_client(api_url, api_key) as client:
            await scenario(client)

    anyio.run(main)


def text(result: CallToolResult, index: int = 0) -> str:
    block = result.content[index]
    assert isinstance(block, TextContent), block
    return block.text


def facts(result: CallToolResult) -> dict[str, Any]:
    """The metadata block each answer ends with."""
    loaded: dict[str, Any] = json.loads(text(result, len(result.content) - 1))
    return loaded



def test_tools_are_typed_by_the_openapi_request_schemas(local_api: LocalApi) -> None:
    document = requests.get(local_api.url + "/v1/openapi.json", timeout=30).json()
    components = document["components"]["schemas"]
    listed: dict[str, Any] = {}

    async def scenario(client: ClientSession) -> None:
        listed.update({tool.name: tool for tool in (await client.list_tools()).tools})

    run(local_api.url, local_api.api_key, scenario)
    assert set(listed) == set(TOOL_ROUTES) | OTHER_TOOLS
    for name, (path, set_by_tool) in TOOL_ROUTES.items():
        tool = listed[name]
        reference = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        expected = resolved(reference, components, "#/components/schemas/")
        for field in set_by_tool:
            del expected["properties"][field]
        if name in TEXT_TOOLS:
            expected["properties"].update(paging.SCHEMA_PROPERTIES)
        got = resolved(tool.input_schema, tool.input_schema.get("$defs", {}), "#/$defs/")
        assert got == expected, name
        assert got["type"] == "object" and got["required"] == REQUIRED.get(name, ["url"])
        assert tool.description and len(tool.description) > 200  # written for a model to choose by
        assert tool.annotations is not None and tool.annotations.open_world_hint is True
    # The fields a tool sets itself are really in the API's schema (a rename would show here).
    assert "base64" in components["ScreenshotRequest"]["properties"]
    assert "base64" in components["PdfRequest"]["properties"]


def test_every_tool_on_fixture_pages(local_api: LocalApi, fake_openai: FakeOpenAI) -> None:
    fixtures = get_server()
    reports: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    async def scenario(client: ClientSession) -> None:
        # waitTime keeps the call longer than the server's 2 s progress tick, so at least one report comes.
        shot = await client.call_tool("screenshot", {
            "url": fixtures.url("/plain.html"), "waitTime": 3000, "viewport": {"width": 640, "height": 480},
            "screenshotOptions": {"fullPage": False}}, progress_callback=on_progress)
        assert not shot.is_error, shot
        image = shot.content[0]
        assert isinstance(image, ImageContent) and image.mime_type == "image/png"
        assert png_size(base64.b64decode(image.data)) == (640, 480)
        about = facts(shot)
        assert about["metadata"]["url"] == fixtures.url("/plain.html") and about["metadata"]["width"] == 640
        assert requests.get(about["permanentUrl"], timeout=10).content == base64.b64decode(image.data)

        markdown = await client.call_tool("markdown", {"url": fixtures.url("/scripted.html")})
        assert not markdown.is_error, markdown
        assert text(markdown).startswith("# Static heading") and "Written by JavaScript" in text(markdown)
        assert "Home menu" not in text(markdown)
        assert facts(markdown)["metadata"]["title"] == "After scripts"

        content = await client.call_tool("content", {"url": fixtures.url("/plain.html")})
        assert not content.is_error, content
        assert '<h1 id="heading">Plain page</h1>' in text(content) and "by script" in text(content)

        links = await client.call_tool("links", {"url": fixtures.url("/links.html")})
        assert not links.is_error, links
        found = json.loads(text(links))
        assert found["links"] and all(link["url"].startswith("http") for link in found["links"])
        assert found["metadata"]["totalLinks"] == len(found["links"])

        fake_openai.script(json_completion({"title": "Boots"}))
        extract = await client.call_tool("extract", {
            "url": fixtures.url("/product.html"), "prompt": "the product's title",
            "response_format": {"type": "json_schema", "schema": {
                "type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}}})
        assert not extract.is_error, extract
        assert json.loads(text(extract)) == {"title": "Boots"}
        assert facts(extract)["metadata"]["fieldsExtracted"] == 1

        pdf = await client.call_tool("pdf", {"url": fixtures.url("/printable.html")})
        assert not pdf.is_error, pdf
        link = pdf.content[0]
        assert isinstance(link, ResourceLink) and link.mime_type == "application/pdf"
        assert link.uri == facts(pdf)["permanentUrl"] and "pdf" not in facts(pdf)
        stored = requests.get(link.uri, timeout=10).content
        assert stored.startswith(b"%PDF-") and len(stored) == link.size

        site = await client.call_tool("map", {"url": fixtures.url("/links.html"), "sitemap": "skip"})
        assert not site.is_error, site
        mapped = json.loads(text(site))
        assert mapped["total"] == len(mapped["links"]) > 1
        assert mapped["links"][0]["url"] == fixtures.url("/links.html")

        crawled = await client.call_tool("crawl", {"url": fixtures.url("/links.html"), "maxDepth": 0,
                                                   "sitemap": "skip", "limit": 2})
        assert not crawled.is_error, crawled
        crawl_job = json.loads(text(crawled))
        assert (crawl_job["operation"], crawl_job["status"], crawl_job["total"]) == ("crawl", "completed", 1)
        assert crawl_job["results"][0]["data"]["url"] == fixtures.url("/links.html")

        batch = await client.call_tool("batch", {"operation": "markdown", "requests": [
            {"url": fixtures.url("/plain.html")}, {"url": fixtures.url("/scripted.html")}]})
        assert not batch.is_error, batch
        job = json.loads(text(batch))
        assert (job["status"], job["total"], job["completed"]) == ("completed", 2, 2)
        status = await client.call_tool("job_status", {"jobId": job["jobId"], "limit": 1})
        assert not status.is_error, status
        page = json.loads(text(status))
        assert [result["index"] for result in page["results"]] == [0] and page["next"]
        assert "Plain page" in page["results"][0]["data"]["markdown"]

    run(local_api.url, local_api.api_key, scenario)
    assert reports, "no progress notification during a call of more than 3 s"
    assert [done for done, _, _ in reports] == sorted({done for done, _, _ in reports})
    assert all(message and message.startswith("waiting for /v1/web/screenshot") for _, _, message in reports)


def test_a_screenshot_taller_than_models_take_is_a_link(local_api: LocalApi) -> None:
    async def scenario(client: ClientSession) -> None:
        tall = await client.call_tool("screenshot", {"url": get_server().url("/tall.html"),
                                                      "viewport": {"deviceScaleFactor": 3}})
        assert not tall.is_error, tall
        link = tall.content[0]
        assert isinstance(link, ResourceLink) and link.mime_type == "image/png"
        assert text(tall, 1).startswith("The screenshot is 3840x9000 px, more than models take as an image")
        assert png_size(requests.get(link.uri, timeout=30).content) == (3840, 9000)

    run(local_api.url, local_api.api_key, scenario)


def test_api_errors_are_tool_errors_and_the_server_keeps_serving(local_api: LocalApi) -> None:
    async def scenario(client: ClientSession) -> None:
        invalid = await client.call_tool("screenshot", {"url": "ftp://example.com/",
                                                         "viewport": {"width": 50}})
        assert invalid.is_error
        lines = text(invalid).splitlines()
        assert lines[0].startswith("webcapture API error 422 VALIDATION_ERROR: the arguments are invalid")
        assert "- url: Invalid url (invalid_string)" in lines
        assert any(line.startswith("- viewport.width: ") and "(too_small)" in line for line in lines)
        issues = json.loads(lines[-1].removeprefix("issues: "))
        assert {tuple(issue["path"]) for issue in issues} == {("url",), ("viewport", "width")}

        internal = await client.call_tool("links", {"url": "http://169.254.169.254/latest/meta-data/"})
        assert internal.is_error
        assert text(internal).startswith("webcapture API error 400 URL_NOT_ALLOWED: ")
        assert "only loads public web pages" in text(internal)

        with pytest.raises(MCPError, match="Unknown tool: crawl-everything"):
            await client.call_tool("crawl-everything", {"url": "https://example.com/"})

        after = await client.call_tool("markdown", {"url": get_server().url("/plain.html")})
        assert not after.is_error and "Plain page" in text(after)

    run(local_api.url, local_api.api_key, scenario)


def test_a_bad_key_is_a_tool_error_on_every_call(local_api: LocalApi) -> None:
    async def scenario(client: ClientSession) -> None:
        for tool in ("links", "screenshot"):
            refused = await client.call_tool(tool, {"url": get_server().url("/plain.html")})
            assert refused.is_error
            assert text(refused).startswith("webcapture API error 401 UNAUTHORIZED: Authentication required")
            assert "check WEBCAPTURE_API_KEY" in text(refused)

    run(local_api.url, "wc_" + "x" * 64, scenario)


def test_no_key_is_a_tool_error_naming_the_variable(local_api: LocalApi) -> None:
    async def scenario(client: ClientSession) -> None:
        assert len((await client.list_tools()).tools) == len(TOOL_ROUTES) + len(OTHER_TOOLS)
        missing = await client.call_tool("markdown", {"url": get_server().url("/plain.html")})
        assert missing.is_error and text(missing).startswith("No API key: set WEBCAPTURE_API_KEY")

    run(local_api.url, None, scenario)


def test_an_api_that_is_down_is_a_tool_error_and_the_server_keeps_serving() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{closed.getsockname()[1]}"

    async def scenario(client: ClientSession) -> None:
        for _ in range(2):
            failed = await client.call_tool("links", {"url": "https://example.com/"})
            assert failed.is_error
            assert text(failed).startswith(f"The webcapture API at {down} cannot be reached (cannot reach the "
                                           f"API at {down}/v1/web/links: ")
            assert "WEBCAPTURE_API_URL" in text(failed)
        assert len((await client.list_tools()).tools) == len(TOOL_ROUTES) + len(OTHER_TOOLS)

    run(down, "wc_" + "k" * 64, scenario)
