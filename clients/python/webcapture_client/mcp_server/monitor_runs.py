"""How the monitor tools run (the service's docs/monitors.md): each is one call to one monitor route, its
answer's data as JSON. The tools that name a monitor take its `monitorId` beside the body's fields; it goes
into the path, never into the body.

A check carries the operation's whole answer (a page's Markdown, a capture's link), so the checks tool
answers a few at a time unless the model asks for more, and says how to read on (`cursor`).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

from mcp_types import ContentBlock, TextContent

from webcapture_client.mcp_server.api import Run, ToolApi, ToolFailure
from webcapture_client.mcp_server.schemas import request_schema, schema_method, schema_source

MONITORS = "/v1/monitors"
DEFAULT_CHECKS = 5
MONITOR_ID: dict[str, Any] = {"type": "string", "minLength": 1,
                              "description": "the monitorId monitor_create or monitor_list answered"}


def _path(monitor_id: str, suffix: str = "") -> str:
    return f"{MONITORS}/{quote(monitor_id, safe='')}{suffix}"


def _monitor_id(arguments: dict[str, Any]) -> str:
    monitor_id = arguments.pop("monitorId", None)
    if not isinstance(monitor_id, str) or not monitor_id:
        raise ToolFailure("monitorId is required: the id monitor_create or monitor_list answered.")
    return monitor_id


def _as_json(data: dict[str, Any]) -> list[ContentBlock]:
    return [TextContent(text=json.dumps(data, ensure_ascii=False, indent=1))]


def body_schema(tool: str, path: str, method: str) -> dict[str, Any]:
    """The tool's schema from tool_schemas.json, which must be the request model of `method` `path`."""
    if (schema_source(tool), schema_method(tool)) != ((path, ()), method):
        raise LookupError(f"tool_schemas.json's {tool} is not {method.upper()} {path}: "
                          "run `make tool-schemas`")
    return request_schema(tool)


def with_monitor_id(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with monitorId first among its properties, required."""
    schema["properties"] = {"monitorId": MONITOR_ID, **schema["properties"]}
    schema["required"] = ["monitorId", *schema.get("required", [])]
    return schema


def id_only_schema(**more: Any) -> dict[str, Any]:
    return {"type": "object", "required": ["monitorId"], "properties": {"monitorId": MONITOR_ID, **more}}


def create() -> Run:
    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        return _as_json(api.data(await api.post(MONITORS, arguments)))

    return run


def list_all() -> Run:
    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        return _as_json(api.data(await api.get(MONITORS)))

    return run


def get_one() -> Run:
    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        return _as_json(api.data(await api.get(_path(_monitor_id(dict(arguments))))))

    return run


def update() -> Run:
    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        changes = dict(arguments)
        monitor_id = _monitor_id(changes)
        return _as_json(api.data(await api.patch(_path(monitor_id), changes)))

    return run


def delete() -> Run:
    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        return _as_json(api.data(await api.delete(_path(_monitor_id(dict(arguments))))))

    return run


def run_now() -> Run:
    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        queued = api.data(await api.post(_path(_monitor_id(dict(arguments)), "/run"), {}))
        note = TextContent(text=(
            f"Check {queued.get('checkId')} is queued; it usually runs within a minute. Look at it with "
            f"monitor_checks (monitorId {queued.get('monitorId')}): the newest check comes first."))
        return [note, *_as_json(queued)]

    return run


def checks() -> Run:
    """One page of checks, newest first: `limit` (default DEFAULT_CHECKS), from `cursor`."""

    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        given = dict(arguments)
        monitor_id = _monitor_id(given)
        query = {"limit": given.get("limit") or DEFAULT_CHECKS,
                 **({"cursor": given["cursor"]} if given.get("cursor") else {})}
        page = api.data(await api.get(_path(monitor_id, f"/checks?{urlencode(query)}")))
        blocks = _as_json(page)
        if page.get("next"):
            blocks.insert(0, TextContent(text=(
                f"{len(page.get('checks', []))} checks shown, newest first; older ones follow: call "
                f"monitor_checks again with cursor {page['next']!r}.")))
        return blocks

    return run
