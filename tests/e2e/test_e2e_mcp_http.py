"""POST /v1/mcp through the local API with the MCP SDK's own Streamable HTTP client: the stdio server's tools
and schemas, a long page read to its end with offset, an image, a crawl then its status, a monitor made, run,
read and deleted, and the caller's key deciding what is whose."""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
import requests
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, ImageContent, TextContent

from tests.e2e.test_e2e_mcp import mcp_client
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from tests.support.png_pixels import png_size
from webcapture.auth import api_keys


def over_http(api: LocalApi, key: str, scenario: Callable[[ClientSession], Awaitable[None]]) -> None:
    async def main() -> None:
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http, \
                streamable_http_client(api.url + "/v1/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await scenario(session)

    anyio.run(main)


def text_of(result: CallToolResult) -> str:
    assert isinstance(result.content[0], TextContent), result
    return result.content[0].text


def test_the_tools_and_schemas_are_the_stdio_servers(local_api: LocalApi) -> None:
    listed: dict[str, dict[str, Any]] = {}

    async def over_stdio() -> None:
        async with mcp_client(local_api.url, local_api.api_key) as client:
            listed["stdio"] = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}

    async def listing(session: ClientSession) -> None:
        listed["http"] = {tool.name: tool.input_schema for tool in (await session.list_tools()).tools}

    anyio.run(over_stdio)
    over_http(local_api, local_api.api_key, listing)
    assert len(listed["http"]) == 17 and "maxChars" in listed["http"]["markdown"]["properties"]
    assert listed["http"] == listed["stdio"]


def test_a_long_page_is_read_to_its_end_with_offset(local_api: LocalApi) -> None:
    page = get_server().url("/many-links?n=1500")
    pieces: list[str] = []
    offsets: list[int] = []

    async def scenario(session: ClientSession) -> None:
        offset = 0
        while len(pieces) < 20:
            offsets.append(offset)
            result = await session.call_tool("markdown", {"url": page, "onlyMainContent": False,
                                                          "maxChars": 10_000, "offset": offset})
            assert not result.is_error, result
            body, _, note = text_of(result).partition("\n\n[cut: characters ")
            pieces.append(body)
            if not note:
                return
            offset = int(note.rsplit("offset ", 1)[1].rstrip(".]"))

    over_http(local_api, local_api.api_key, scenario)
    whole = local_api.call("POST", "/v1/web/markdown", json={"url": page, "onlyMainContent": False,
                                                              "maxAge": 900}).json()["data"]["markdown"]
    assert len(whole) > 30_000 and len(pieces) >= 4
    assert all(len(piece) <= 10_000 for piece in pieces)
    # Each piece is the text from its offset to the next one's, nothing lost or repeated; a cut at a line's
    # end leaves that newline to the note's blank line, a line longer than the window is cut inside it.
    for piece, start, stop in zip(pieces, offsets, [*offsets[1:], len(whole)], strict=True):
        assert whole[start:stop] in (piece, piece + "\n")


def test_a_screenshot_is_an_image(local_api: LocalApi) -> None:
    async def scenario(session: ClientSession) -> None:
        result = await session.call_tool("screenshot", {
            "url": get_server().url("/plain.html"), "viewport": {"width": 500, "height": 300},
            "screenshotOptions": {"fullPage": False}})
        assert not result.is_error, result
        image = result.content[0]
        assert isinstance(image, ImageContent) and image.mime_type == "image/png"
        assert png_size(base64.b64decode(image.data)) == (500, 300)

    over_http(local_api, local_api.api_key, scenario)


def test_a_crawl_then_its_status_and_another_users_job_is_not_found(stack_aws: LocalApi) -> None:
    api = stack_aws
    other_key, _ = api_keys.create_key("someone-else-mcp", "other")
    started: dict[str, Any] = {}

    async def crawl(session: ClientSession) -> None:
        result = await session.call_tool("crawl", {"url": get_server().url("/links.html"), "limit": 2,
                                                   "maxDepth": 1, "sitemap": "skip"})
        assert not result.is_error, result
        job = json.loads(result.content[-1].text)  # type: ignore[union-attr]
        started["jobId"] = job["jobId"]
        status = await session.call_tool("job_status", {"jobId": job["jobId"], "limit": 10})
        assert not status.is_error, status
        looked = json.loads(status.content[-1].text)  # type: ignore[union-attr]
        assert looked["jobId"] == job["jobId"] and looked["operation"] == "crawl" and looked["total"] >= 1

    async def someone_else(session: ClientSession) -> None:
        result = await session.call_tool("job_status", {"jobId": started["jobId"]})
        assert result.is_error
        assert text_of(result).startswith("webcapture API error 404 NOT_FOUND")

    over_http(api, api.api_key, crawl)
    over_http(api, other_key, someone_else)


def test_a_monitor_made_run_read_and_deleted_by_its_tools_and_not_another_users(stack_aws: LocalApi) -> None:
    api = stack_aws
    other_key, _ = api_keys.create_key("someone-else-mcp-monitors", "other")
    made: dict[str, Any] = {}

    async def watch(session: ClientSession) -> None:
        created = await session.call_tool("monitor_create", {
            "url": get_server().url("/plain.html"), "operation": "markdown", "schedule": "rate(1 day)"})
        assert not created.is_error, created
        made.update(json.loads(text_of(created)))
        run = await session.call_tool("monitor_run", {"monitorId": made["monitorId"]})
        assert not run.is_error, run
        queued = json.loads(run.content[-1].text)  # type: ignore[union-attr]
        paused = await session.call_tool("monitor_update", {"monitorId": made["monitorId"], "enabled": False})
        assert json.loads(text_of(paused))["nextRunAt"] is None
        checks = await session.call_tool("monitor_checks", {"monitorId": made["monitorId"]})
        assert [c["checkId"] for c in json.loads(text_of(checks))["checks"]] == [queued["checkId"]]

    async def someone_else(session: ClientSession) -> None:
        result = await session.call_tool("monitor_get", {"monitorId": made["monitorId"]})
        assert result.is_error and text_of(result).startswith("webcapture API error 404 NOT_FOUND")

    async def delete(session: ClientSession) -> None:
        deleted = await session.call_tool("monitor_delete", {"monitorId": made["monitorId"]})
        assert json.loads(text_of(deleted)) == {"monitorId": made["monitorId"], "deleted": True}
        listed = await session.call_tool("monitor_list", {})
        assert made["monitorId"] not in text_of(listed)

    over_http(api, api.api_key, watch)
    over_http(api, other_key, someone_else)
    over_http(api, api.api_key, delete)


def test_no_key_is_a_401(local_api: LocalApi) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    answer = requests.post(local_api.url + "/v1/mcp", json=message, timeout=30,
                           headers={"Accept": "application/json, text/event-stream"})
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "UNAUTHORIZED"
