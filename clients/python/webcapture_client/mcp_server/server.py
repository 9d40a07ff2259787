"""The MCP server: lists TOOLS, runs a call, and answers every failure as a tool error (`isError`) so the
model reads what went wrong and the server goes on serving."""

from __future__ import annotations

import logging
import sys
from typing import Any

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
)

from webcapture_client import __version__
from webcapture_client.mcp_server.api import ToolApi, ToolFailure
from webcapture_client.mcp_server.progress import Progress
from webcapture_client.mcp_server.tools import TOOLS, ToolEntry
from webcapture_client.settings import ClientSettings, client_settings

INSTRUCTIONS = (
    "webcapture loads web pages in a real browser and returns what you ask for. To read a page use markdown; "
    "to find a site's pages, links; to see a page, screenshot; for structured data, extract; for the HTML, "
    "content; for a file to hand over, pdf; to watch a page for changes over time, monitor_create, then "
    "monitor_checks. Every call that loads a page costs the user credits (extract 5, the others 1), so "
    "prefer one well-aimed call. Only public http(s) pages can be loaded.")

_log = logging.getLogger(__name__)
Context = ServerRequestContext[dict[str, Any]]


def tool_error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=text)], is_error=True)


def build_server(settings: ClientSettings, tools: tuple[ToolEntry, ...] = TOOLS) -> Server[Any]:
    by_name = {tool.name: tool for tool in tools}

    async def list_tools(ctx: Context, params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[tool.listing() for tool in tools])

    async def call_tool(ctx: Context, params: CallToolRequestParams) -> CallToolResult:
        tool = by_name.get(params.name)
        if tool is None:  # the protocol's error, not the tool's: the client asked for a tool never listed
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name}")
        api = ToolApi(settings, Progress(ctx.session.report_progress))
        try:
            content = await tool.run(api, dict(params.arguments or {}))
        except ToolFailure as failure:
            return tool_error(str(failure))
        except Exception as error:  # a bug here must not end the server or show the model a stack trace
            _log.exception("tool %s failed", tool.name)
            return tool_error(f"The webcapture MCP server failed on this call ({type(error).__name__}); "
                              "the call may be retried.")
        return CallToolResult(content=content)

    return Server("webcapture", version=__version__, title="webcapture",
                  description="Web pages as Markdown, screenshots, links, HTML, PDFs and extracted data",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve(settings: ClientSettings) -> None:
    server = build_server(settings)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve_stdio() -> int:
    """`webcapture mcp`: serve on stdin/stdout until the client closes them."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="webcapture mcp: %(message)s")
    settings = client_settings()
    if not settings.api_key:  # said once at start, where the client's log shows it; each call says it too
        _log.warning("WEBCAPTURE_API_KEY is not set: every tool call will answer that")
    anyio.run(serve, settings)
    return 0
