"""The tools' input schemas, as the service's request models give them: read from tool_schemas.json, which
the repository's `make tool-schemas` writes from those models (a unit test there keeps the two equal), so
the client carries the schemas without the service's code."""

from __future__ import annotations

import copy
import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def _schemas() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("tool_schemas.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def request_schema(tool: str) -> dict[str, Any]:
    """The input schema of the tool named `tool` (a copy: a caller may add to it)."""
    return copy.deepcopy(_schemas()[tool]["inputSchema"])


def schema_source(tool: str) -> tuple[str, tuple[str, ...]]:
    """The route whose request model the tool's schema is, and the fields left out of it."""
    entry = _schemas()[tool]
    return entry["path"], tuple(entry["without"])


def schema_method(tool: str) -> str:
    """The method of that route: post unless the file names another."""
    return str(_schemas()[tool].get("method", "post"))
