"""`make tool-schemas`: the MCP tools' input schemas, written into the client (clients/python) as a static
file, so the client carries them without importing the service's request models (pydantic, the service).

Each tool's schema is the JSON Schema of its endpoint's request model, made by the generator the OpenAPI
document uses, but self-contained (`$defs` inside the schema rather than `#/components/schemas`). A tool
may set some fields of the body itself (the screenshot tool always asks for the image inline): those fields
are left out of its schema, so the model is never offered a choice the tool overrides.
tests/unit/test_tool_schemas.py fails when the committed file differs from what the models give.

    python scripts/write_tool_schemas.py [--check]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "layers" / "shared"), str(REPO)]

from scripts.generated_file import write_or_check  # noqa: E402
from webcapture.openapi.document import SchemaGenerator  # noqa: E402
from webcapture.openapi.endpoints import ENDPOINTS, Endpoint  # noqa: E402

SCHEMAS = REPO / "clients" / "python" / "webcapture_client" / "mcp_server" / "tool_schemas.json"
_DEFS = "#/$defs/{model}"

# Each tool typed by an endpoint's request model: its route and the body fields the tool sets itself.
TOOL_REQUESTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "markdown": ("/v1/web/markdown", ()),
    "screenshot": ("/v1/web/screenshot", ("base64",)),
    "links": ("/v1/web/links", ()),
    "extract": ("/v1/web/ai-extract", ()),
    "content": ("/v1/web/content", ()),
    "pdf": ("/v1/web/pdf", ("base64",)),
    "map": ("/v1/web/map", ()),
    "crawl": ("/v1/web/crawl", ()),
    "batch": ("/v1/batch", ()),
    "monitor_create": ("/v1/monitors", ()),
    "monitor_update": ("/v1/monitors/{monitorId}", ()),
}
# The tools whose route is not a POST (the rest are); a path parameter (monitorId) is the tool's own
# property, added by the client beside the body's.
TOOL_METHODS: dict[str, str] = {"monitor_update": "patch"}


def endpoint(path: str, method: str = "post") -> Endpoint:
    """The endpoint of the OpenAPI document's table, by its route."""
    for candidate in ENDPOINTS:
        if (candidate.method, candidate.path) == (method, path):
            return candidate
    raise LookupError(f"no endpoint {method.upper()} {path}")


def request_schema(path: str, *, without: Iterable[str] = (), method: str = "post") -> dict[str, Any]:
    """The request model's schema of `method` `path`, minus the top-level fields named in `without`."""
    model = endpoint(path, method).request
    if model is None:
        raise LookupError(f"{method.upper()} {path} takes no request body")
    schema = model.model_json_schema(ref_template=_DEFS, schema_generator=SchemaGenerator)
    properties: dict[str, Any] = schema["properties"]
    for name in without:
        if name not in properties:  # a field renamed in the model must not silently reappear here
            raise LookupError(f"{model.__name__} has no field {name}")
        del properties[name]
    if "required" in schema:
        schema["required"] = [name for name in schema["required"] if name not in set(without)]
    return schema


def tool_schemas() -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    for name, (path, without) in TOOL_REQUESTS.items():
        method = TOOL_METHODS.get(name, "post")
        schemas[name] = {"path": path, "without": list(without), **({"method": method} if name in TOOL_METHODS
                                                                     else {}),
                         "inputSchema": request_schema(path, without=without, method=method)}
    return schemas


def render() -> str:
    return json.dumps(tool_schemas(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    return write_or_check(SCHEMAS, render, "tool-schemas", (__doc__ or "").splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
