"""The OpenAPI 3.1 document, generated from the request and answer models (never written by hand).

pydantic gives each model's JSON Schema (2020-12, which OpenAPI 3.1 uses as is) with every constraint the
validator enforces; this module wraps them in the contract's envelopes and lists each route's forms: JSON,
bytes, the 303 to a stored file, and every error with its envelope.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, models_json_schema

from webcapture.credits import cost_of
from webcapture.openapi import answer_models
from webcapture.openapi.endpoints import ENDPOINTS, Endpoint

OPENAPI_VERSION = "3.1.0"
_REF = "#/components/schemas/{model}"
_JSON = "application/json"


class SchemaGenerator(GenerateJsonSchema):
    """pydantic's schemas without the titles it makes up from field names ("Waittime"): noise here."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def _ref(model: type[BaseModel]) -> dict[str, str]:
    return {"$ref": _REF.format(model=model.__name__)}


def _success_envelope(data: dict[str, Any], cost: int | None) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["success", "data", "requestId", "timestamp", "creditsCost"],
        "properties": {
            "success": {"const": True},
            "data": data,
            "requestId": {"type": "string", "format": "uuid"},
            "timestamp": {"type": "string", "description": "ISO 8601 UTC with milliseconds"},
            # 0 when the answer came from the cache (maxAge,
            # docs/cache-and-signed-links.md#cache-and-signed-links).
            "creditsCost": {"type": "integer", "enum": sorted({cost, 0})} if cost is not None
            else {"type": "integer", "minimum": 0},
        },
    }


def _header(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"description": description, "schema": schema or {"type": "string"}}


_REQUEST_ID = {"X-Request-Id": _header("The request's id, also in the body", {"type": "string"})}


def _error_response(description: str, model: type[BaseModel] = answer_models.ErrorEnvelope) -> dict[str, Any]:
    return {"description": description, "headers": _REQUEST_ID, "content": {_JSON: {"schema": _ref(model)}}}


def _success_responses(endpoint: Endpoint) -> dict[str, Any]:
    envelope = _success_envelope(_ref(endpoint.data),
                                 cost_of(endpoint.operation) if endpoint.credits is None else None) \
        if endpoint.envelope else _ref(endpoint.data)
    ok: dict[str, Any] = {"description": "Accepted" if endpoint.status == 202 else "Success",
                          "headers": dict(_REQUEST_ID), "content": {_JSON: {"schema": envelope}}}
    responses: dict[str, Any] = {str(endpoint.status): ok}
    if endpoint.binary_types:
        ok["description"] = ("The bytes by default; JSON with base64 (screenshots also encoding base64), or "
                             "when Accept prefers application/json")
        ok["headers"] = {**_REQUEST_ID, "X-Webcapture-Warning": _header(
            "Set when the answer is partial (a full page cut to the pixel limit, a wait that ran out)"),
            "X-Webcapture-Target-Status": _header("The target page's HTTP status (metadata.statusCode)")}
        for media in endpoint.binary_types:
            ok["content"][media] = {"schema": {"type": "string", "format": "binary"}}
    if endpoint.stores_files:
        responses["303"] = {
            "description": "Too large to answer inline: stored, and found at Location (its permanentUrl)",
            "headers": {**_REQUEST_ID, "Location": _header("The stored file's permanentUrl")},
            "content": {_JSON: {"schema": envelope}},
        }
    return responses


def _operation(endpoint: Endpoint) -> dict[str, Any]:
    responses = _success_responses(endpoint)
    own_errors = {status for status, _ in endpoint.errors}
    for status, text in endpoint.error_statuses().items():
        responses[str(status)] = _error_response(text) if endpoint.envelope or status not in own_errors \
            else _error_response(text, endpoint.data)
    if endpoint.request is not None and endpoint.envelope:
        responses["422"] = _error_response(
            "The body fails validation: every issue, in Zod's vocabulary",
            answer_models.ValidationErrorEnvelope)
    elif any(p["in"] == "query" for p in endpoint.parameters):
        responses["422"] = _error_response(
            "A parameter fails validation: every issue, in Zod's vocabulary",
            answer_models.ValidationErrorEnvelope)
    if endpoint.public:
        responses.pop("401", None)
    responses["429"]["headers"] = {**_REQUEST_ID, "Retry-After": _header(
        "Seconds to wait (CONCURRENCY_LIMIT_EXCEEDED)", {"type": "integer"})}
    credits = endpoint.credits or cost_of(endpoint.operation)
    operation: dict[str, Any] = {
        "operationId": endpoint.operation_id,
        "tags": [endpoint.path.split("/")[2]],
        "summary": endpoint.summary,
        "description": f"{endpoint.description}\n\nCredits: {credits}.",
        "security": [] if endpoint.public else [{"bearerAuth": []}],
        "responses": dict(sorted(responses.items())),
    }
    if endpoint.parameters:
        operation["parameters"] = list(endpoint.parameters)
    if endpoint.request is not None:
        media: dict[str, Any] = {"schema": _ref(endpoint.request)}
        if endpoint.example is not None:
            media["example"] = endpoint.example
        operation["requestBody"] = {"required": True, "content": {_JSON: media}}
    return operation


def _schemas() -> dict[str, Any]:
    models: set[type[BaseModel]] = {answer_models.ErrorEnvelope, answer_models.ValidationErrorEnvelope}
    for endpoint in ENDPOINTS:
        models.add(endpoint.data)
        if endpoint.request is not None:
            models.add(endpoint.request)
    ordered = sorted(models, key=lambda model: model.__name__)
    _, top = models_json_schema([(model, "validation") for model in ordered], ref_template=_REF,
                                schema_generator=SchemaGenerator)
    return dict(sorted(top.get("$defs", {}).items()))


@cache
def _document() -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in ENDPOINTS:
        paths.setdefault(endpoint.path, {})[endpoint.method] = _operation(endpoint)
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "webcapture",
            "version": "1",
            "description": (
                "Loads a web page in headless Chromium and returns something derived from it: a screenshot, "
                "a PDF, its links, Markdown or HTML, or data extracted by an AI model. Every JSON answer "
                "reports the credits it cost (`creditsCost`). Every request the browser makes passes an "
                "egress guard: non-public targets are refused (400 URL_NOT_ALLOWED)."),
        },
        # Relative to where the document is served (<base>/v1/openapi.json), so "Try it out" works under a
        # stage prefix (/Prod) or a custom domain alike.
        "servers": [{"url": "..", "description": "this deployment"}],
        "security": [{"bearerAuth": []}],
        "tags": [{"name": "web", "description": "Pages in the browser, and whole sites (metered)"},
                 {"name": "files", "description": "Stored screenshots and PDFs"},
                 {"name": "api-keys", "description": "Your keys"},
                 {"name": "batch", "description": "Asynchronous jobs: many pages, or pages longer than 29 s"},
                 {"name": "jobs", "description": "A job's status, results and cancellation"},
                 {"name": "webhooks", "description": "The secret webhooks are signed with"},
                 {"name": "mcp", "description": "The API's tools for AI agents (Model Context Protocol)"}],
        "paths": paths,
        "components": {
            "securitySchemes": {"bearerAuth": {
                "type": "http", "scheme": "bearer",
                "description": "An API key (`wc_...`) or a JWT session token"}},
            "schemas": _schemas(),
        },
    }


def openapi_document() -> dict[str, Any]:
    """The document; a copy, so a caller cannot change the cached one."""
    return copy.deepcopy(_document())
