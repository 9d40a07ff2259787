"""Tool input schemas: the JSON Schema of an endpoint's request model, made by the generator the OpenAPI
document uses, but self-contained (`$defs` inside the schema rather than `#/components/schemas`).

A tool may set some fields of the body itself (the screenshot tool always asks for the image inline): those
fields are left out of its schema, so the model is never offered a choice the tool overrides.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from webcapture.openapi.document import SchemaGenerator
from webcapture.openapi.endpoints import ENDPOINTS, Endpoint

_DEFS = "#/$defs/{model}"


def endpoint(path: str, method: str = "post") -> Endpoint:
    """The endpoint of the OpenAPI document's table, by its route."""
    for candidate in ENDPOINTS:
        if (candidate.method, candidate.path) == (method, path):
            return candidate
    raise LookupError(f"no endpoint {method.upper()} {path}")


def request_schema(path: str, *, without: Iterable[str] = ()) -> dict[str, Any]:
    """The request model's schema of POST `path`, minus the top-level fields named in `without`."""
    model = endpoint(path).request
    if model is None:
        raise LookupError(f"POST {path} takes no request body")
    schema = model.model_json_schema(ref_template=_DEFS, schema_generator=SchemaGenerator)
    properties: dict[str, Any] = schema["properties"]
    for name in without:
        if name not in properties:  # a field renamed in the model must not silently reappear here
            raise LookupError(f"{model.__name__} has no field {name}")
        del properties[name]
    if "required" in schema:
        schema["required"] = [name for name in schema["required"] if name not in set(without)]
    return schema
