"""The MCP monitor tools in-process (the SDK's Client) against a loopback API: each calls its route with the
monitorId in the path and the rest as the body, the update tool is typed by the PATCH route's request
schema, the checks are read a few at a time with a note that says how to read on, and a refusal is a tool
error the model can act on."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp_types import TextContent

from tests.support.json_schema_refs import resolved
from webcapture.openapi.document import openapi_document
from webcapture_client.mcp_server.server import build_server
from webcapture_client.mcp_server.tools import MONITOR_TOOLS
from webcapture_client.settings import ClientSettings

MONITOR = {"monitorId": "mon_1", "name": "Pricing", "url": "https://example.com/pricing", "operation": "markdown",
           "request": {}, "schedule": "rate(1 hour)", "timezone": None, "webhook": None, "diff": {"threshold": 0.1},
           "enabled": True, "createdAt": "t", "updatedAt": "t", "nextRunAt": "t"}


class RoutedApi(ThreadingHTTPServer):
    """Answers `METHOD path` (the query included) with its scripted (status, data); records every call."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, dict[str, Any]]] = {}
        self.calls: list[tuple[str, Any]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                api.calls.append((f"{self.command} {self.path}",
                                  json.loads(self.rfile.read(length)) if length else None))
                status, data = api.routes.get(f"{self.command} {self.path}", (404, {
                    "code": "NOT_FOUND", "message": "Monitor not found", "requestId": "r"}))
                body = json.dumps({"success": True, "data": data} if status < 400
                                  else {"success": False, "error": data}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = do_DELETE = answer

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def api() -> Iterator[RoutedApi]:
    server = RoutedApi()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def calls(api: RoutedApi, *tool_calls: tuple[str, dict[str, Any]]) -> list[Any]:
    server = build_server(ClientSettings(api_url=f"http://127.0.0.1:{api.server_address[1]}", api_key="wc_t"))

    async def main() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(name, arguments) for name, arguments in tool_calls]

    return anyio.run(main)


def text(result: Any, index: int = -1) -> str:
    block = result.content[index]
    assert isinstance(block, TextContent), block
    return block.text


def test_each_tool_calls_its_route_with_the_id_in_the_path(api: RoutedApi) -> None:
    api.routes = {
        "POST /v1/monitors": (201, MONITOR), "GET /v1/monitors": (200, {"monitors": [MONITOR], "total": 1}),
        "GET /v1/monitors/mon_1": (200, MONITOR), "PATCH /v1/monitors/mon_1": (200, {**MONITOR, "enabled": False}),
        "POST /v1/monitors/mon_1/run": (202, {"monitorId": "mon_1", "checkId": "chk_9", "status": "queued"}),
        "DELETE /v1/monitors/mon_1": (200, {"monitorId": "mon_1", "deleted": True})}
    created, listed, got, updated, ran, deleted = calls(
        api, ("monitor_create", {"url": MONITOR["url"], "operation": "markdown", "schedule": "rate(1 hour)"}),
        ("monitor_list", {}), ("monitor_get", {"monitorId": "mon_1"}),
        ("monitor_update", {"monitorId": "mon_1", "enabled": False}), ("monitor_run", {"monitorId": "mon_1"}),
        ("monitor_delete", {"monitorId": "mon_1"}))
    assert api.calls == [
        ("POST /v1/monitors", {"url": MONITOR["url"], "operation": "markdown", "schedule": "rate(1 hour)"}),
        ("GET /v1/monitors", None), ("GET /v1/monitors/mon_1", None),
        ("PATCH /v1/monitors/mon_1", {"enabled": False}), ("POST /v1/monitors/mon_1/run", {}),
        ("DELETE /v1/monitors/mon_1", None)]
    assert json.loads(text(created))["monitorId"] == "mon_1"
    assert json.loads(text(listed))["total"] == 1 and json.loads(text(got))["name"] == "Pricing"
    assert json.loads(text(updated))["enabled"] is False
    assert "chk_9" in text(ran, 0) and "monitor_checks" in text(ran, 0)
    assert json.loads(text(deleted)) == {"monitorId": "mon_1", "deleted": True}


def test_checks_come_a_few_at_a_time_with_the_cursor_to_read_on(api: RoutedApi) -> None:
    check = {"checkId": "chk_2", "at": "t", "status": "completed", "changeStatus": "same", "diff": None,
             "data": {"markdown": "# Pricing"}, "creditsCost": 1}
    api.routes = {"GET /v1/monitors/mon_1/checks?limit=5": (200, {"monitorId": "mon_1", "checks": [check],
                                                                   "next": "older"}),
                  "GET /v1/monitors/mon_1/checks?limit=2&cursor=older": (200, {"monitorId": "mon_1",
                                                                               "checks": [], "next": None})}
    first, last = calls(api, ("monitor_checks", {"monitorId": "mon_1"}),
                        ("monitor_checks", {"monitorId": "mon_1", "limit": 2, "cursor": "older"}))
    assert "cursor 'older'" in text(first, 0) and json.loads(text(first))["checks"] == [check]
    assert len(last.content) == 1 and json.loads(text(last))["next"] is None


def test_an_unknown_monitor_and_a_missing_id_are_tool_errors(api: RoutedApi) -> None:
    unknown, missing = calls(api, ("monitor_get", {"monitorId": "mon_other"}), ("monitor_delete", {}))
    assert unknown.is_error and text(unknown).startswith("webcapture API error 404 NOT_FOUND: Monitor not found")
    assert missing.is_error and text(missing).startswith("monitorId is required")
    assert [call for call, _ in api.calls] == ["GET /v1/monitors/mon_other"]


def test_the_update_tool_is_the_patch_schema_with_the_monitor_id() -> None:
    by_name = {tool.name: tool for tool in MONITOR_TOOLS}
    document = openapi_document()
    reference = document["paths"]["/v1/monitors/{monitorId}"]["patch"]["requestBody"]["content"][
        "application/json"]["schema"]
    expected = resolved(reference, document["components"]["schemas"], "#/components/schemas/")
    schema = by_name["monitor_update"].listing().input_schema
    got = resolved(schema, schema.get("$defs", {}), "#/$defs/")
    assert got.pop("required") == ["monitorId"] and got["properties"].pop("monitorId")["type"] == "string"
    assert got == {name: value for name, value in expected.items() if name != "required"}
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"monitorId": "mon_1", "schedule": "rate(2 hours)", "webhook": None})
    assert not validator.is_valid({"schedule": "rate(2 hours)"})
    listing = by_name["monitor_delete"].listing()
    assert listing.annotations is not None and listing.annotations.destructive_hint is True
    assert all(not tool.listing().annotations.read_only_hint  # type: ignore[union-attr]
               for tool in MONITOR_TOOLS if tool.name in ("monitor_create", "monitor_update", "monitor_run"))
