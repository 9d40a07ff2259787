"""POST /v1/mcp: the MCP server over the Streamable HTTP transport, stateless, answering JSON.

Each request is one MCP message answered whole (no session, no stream), by the official SDK's transport
driven here as an ASGI app from API Gateway's proxy event. The tools are the stdio server's
(webcapture_client.mcp_server); each calls the API back over HTTP with the caller's own bearer key, so the
key spends its credits, keeps to its concurrency limit and is refused as any call would be
(docs/decisions.md, MCP over HTTP). The authorizer has already checked the key before this runs.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import MutableMapping
from dataclasses import replace
from typing import Any

import anyio
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from webcapture.envelopes import error_body
from webcapture_client.mcp_server import jobs
from webcapture_client.mcp_server.server import build_server
from webcapture_client.mcp_server.tools import TOOLS, ToolEntry
from webcapture_client.settings import ClientSettings

# API Gateway gives an integration 29 s: a tool that follows a job answers with it as it stands after this
# long (with its jobId for job_status), leaving room for one last poll and the answer.
JOB_BUDGET_S = 18.0
HTTP_TOOLS: tuple[ToolEntry, ...] = tuple(
    replace(tool, run=jobs.start_and_follow(tool.path, budget_s=JOB_BUDGET_S))
    if tool.name in ("crawl", "batch") and tool.path else tool for tool in TOOLS)

# As every endpoint's (docs/api.md, Limits): an MCP message is small, a tool's arguments a request body.
MAX_BODY_BYTES = 100 * 1024

logging.getLogger().setLevel(logging.WARNING)


def api_url(event: dict[str, Any]) -> str:
    """Where the API this request came through is: $MCP_API_URL when set, else the request's own host (with
    the stage in the path on API Gateway's own address), as jobs' statusUrl is made."""
    configured = os.environ.get("MCP_API_URL", "").strip()
    if configured:
        return configured.rstrip("/")
    headers = {name.lower(): value for name, value in (event.get("headers") or {}).items()}
    host = headers.get("host", "")
    if host.endswith(".amazonaws.com"):
        return f"https://{host}/{(event.get('requestContext') or {}).get('stage', '')}"
    return f"{headers.get('x-forwarded-proto', 'http')}://{host}"


def bearer_key(event: dict[str, Any]) -> str | None:
    headers = {name.lower(): value for name, value in (event.get("headers") or {}).items()}
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def _scope(event: dict[str, Any]) -> dict[str, Any]:
    headers = [(name.lower().encode("latin-1"), str(value).encode("latin-1"))
               for name, value in (event.get("headers") or {}).items()]
    path = event.get("path") or "/v1/mcp"
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": event.get("httpMethod", "POST"), "scheme": "https", "path": path,
            "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": headers, "client": None, "server": None}


def _body(event: dict[str, Any]) -> bytes:
    body = event.get("body") or ""
    return base64.b64decode(body) if event.get("isBase64Encoded") else body.encode()


async def answer(event: dict[str, Any]) -> dict[str, Any]:
    """The proxy response to one MCP request."""
    request_id = str((event.get("requestContext") or {}).get("requestId", ""))
    body, sent = _body(event), False
    if len(body) > MAX_BODY_BYTES:
        refused = error_body("PAYLOAD_TOO_LARGE", "Request body is over 100 KB", request_id)
        return {"statusCode": 413, "body": json.dumps(refused), "isBase64Encoded": False,
                "headers": {"Content-Type": "application/json", "X-Request-Id": request_id}}
    server = build_server(ClientSettings(api_url=api_url(event), api_key=bearer_key(event)), HTTP_TOOLS)
    manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True)
    status, headers, chunks = 500, {"X-Request-Id": request_id}, []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:  # the request is whole: what comes next is the client going away, once the answer is out
            await anyio.sleep_forever()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            headers.update({name.decode("latin-1"): value.decode("latin-1")
                            for name, value in message.get("headers", [])})
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    async with manager.run():
        await manager.handle_request(_scope(event), receive, send)
    payload = b"".join(chunks)
    return {"statusCode": status, "headers": headers, "body": payload.decode("utf-8", "replace"),
            "isBase64Encoded": False}


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return anyio.run(answer, event)
