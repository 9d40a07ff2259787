"""Query parameters as a request model's JSON body: `screenshotOptions.type=jpeg` is
`{"screenshotOptions": {"type": "jpeg"}}`, `hideSelectors.0=.ad` the list's first item.

Each value takes the type the model's JSON Schema gives its field: integers, numbers and booleans
(`true`/`false`) are converted; a value that does not read as its type stays a string, so the model's
validation answers the usual 422 (`invalid_type`, received string). Unknown names pass through as strings
and are ignored by the model, as unknown body fields are.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from pydantic import BaseModel

from webcapture.errors import RequestValidationError

_INTEGER = re.compile(r"-?\d{1,18}")
_BOOLEANS = {"true": True, "false": False}

Schema = dict[str, Any]


@functools.cache
def _schema(model: type[BaseModel]) -> Schema:
    return model.model_json_schema()


def _resolve(schema: Schema, defs: Schema) -> Schema:
    """The schema behind a $ref, and the non-null branch of an optional field."""
    if "$ref" in schema:
        return _resolve(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    options = [option for option in schema.get("anyOf", []) if option.get("type") != "null"]
    if len(options) == 1:
        return _resolve(options[0], defs)
    return schema


def _child(schema: Schema, segment: str, defs: Schema) -> Schema:
    """The schema of `segment` inside an object or array schema; {} (anything) when unknown."""
    if schema.get("type") == "array" or ("items" in schema):
        return _resolve(schema.get("items", {}), defs)
    properties = schema.get("properties")
    if properties is not None:
        return _resolve(properties.get(segment, {}), defs)
    additional = schema.get("additionalProperties")
    return _resolve(additional, defs) if isinstance(additional, dict) else {}


def _scalar(value: str, schema: Schema) -> Any:
    kinds = [schema.get("type")] + [option.get("type") for option in schema.get("anyOf", [])]
    if "integer" in kinds and _INTEGER.fullmatch(value):
        return int(value)
    if "number" in kinds:
        if _INTEGER.fullmatch(value):
            return int(value)
        try:
            number = float(value)
        except ValueError:
            return value
        return number if math.isfinite(number) else value
    if "boolean" in kinds and value in _BOOLEANS:
        return _BOOLEANS[value]
    return value


def _conflict(path: list[str | int]) -> RequestValidationError:
    return RequestValidationError([{"code": "custom", "path": path,
                                    "message": "Given both as one value and as a nested field"}])


def _place(tree: dict[str, Any], segments: list[str], value: Any) -> None:
    node = tree
    for depth, segment in enumerate(segments[:-1]):
        child = node.setdefault(segment, {})
        if not isinstance(child, dict):
            raise _conflict(list(segments[: depth + 1]))
        node = child
    if segments[-1] in node:
        raise _conflict(list(segments))
    node[segments[-1]] = value


def _finish(node: Any, schema: Schema, defs: Schema) -> Any:
    """Nested dicts to the body: arrays (keyed by index) to lists, leaves converted to their types."""
    if isinstance(node, dict):
        if schema.get("type") == "array":
            if not all(_INTEGER.fullmatch(name) and int(name) >= 0 for name in node):
                return node  # not indexes: the model says so (invalid_type)
            ordered = sorted(node.items(), key=lambda item: int(item[0]))
            return [_finish(value, _child(schema, name, defs), defs) for name, value in ordered]
        return {name: _finish(value, _child(schema, name, defs), defs) for name, value in node.items()}
    if schema.get("type") == "array":  # one item without an index: `hideSelectors=.ad`
        return [_scalar(node, _child(schema, "0", defs))]
    return _scalar(node, schema)


def body_from_query(params: dict[str, str], model: type[BaseModel]) -> dict[str, Any]:
    schema = _schema(model)
    defs = schema.get("$defs", {})
    tree: dict[str, Any] = {}
    for name, value in params.items():
        segments = name.split(".")
        if any(not segment for segment in segments):
            continue  # "a..b", ".a": no field has that name
        _place(tree, segments, value)
    finished: dict[str, Any] = _finish(tree, schema, defs)
    return finished
