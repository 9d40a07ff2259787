"""POST /v1/mcp's body and answer as the OpenAPI document shows them: one JSON-RPC 2.0 message of the Model
Context Protocol each way (the MCP SDK parses and validates them; these models only describe them)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class McpMessage(BaseModel):
    """A JSON-RPC 2.0 message: a request (`id`, `method`, `params`), a notification (no `id`), or an answer
    (`id` with `result` or `error`)."""

    model_config = ConfigDict(extra="allow")

    jsonrpc: Literal["2.0"]
    id: int | str | None = None
    method: str | None = Field(default=None, description="initialize, tools/list, tools/call, ping, ...")
    params: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = Field(default=None, description="JSON-RPC error: code, message")
