"""JSON Schemas compared with their `$ref`s resolved, so two documents that name their parts differently
(the OpenAPI document's components, a tool's `$defs`) compare by what they say."""

from __future__ import annotations

from typing import Any


def resolved(node: Any, definitions: dict[str, Any], prefix: str) -> Any:
    """`node` with every `$ref` (under `prefix`) replaced by what it names."""
    if isinstance(node, dict):
        if "$ref" in node:
            assert node["$ref"].startswith(prefix), node
            return resolved(definitions[node["$ref"][len(prefix):]], definitions, prefix)
        return {key: resolved(value, definitions, prefix) for key, value in node.items() if key != "$defs"}
    if isinstance(node, list):
        return [resolved(item, definitions, prefix) for item in node]
    return node
