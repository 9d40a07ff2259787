"""The answers a function gives: the success envelope (JSON, large JSON), a file's bytes or a 303 to it, the
error envelope, and the public documents of the docs function."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from pydantic_core import PydanticSerializationError, to_json

from webcapture.answer_forms import FileAnswer
from webcapture.answer_warnings import warning_headers
from webcapture.credits import Operation, cost_of
from webcapture.edge.requests import request_id
from webcapture.envelopes import error_body, success_body
from webcapture.errors import ApiError
from webcapture.observability import metrics
from webcapture.unicode_text import well_formed

REQUEST_ID_HEADER = "X-Request-Id"
TARGET_STATUS_HEADER = "X-Webcapture-Target-Status"


def json_text(body: dict[str, Any]) -> str:
    # well_formed: a page's text (link texts, a title, extracted strings) may hold a lone surrogate, which
    # no UTF-8 answer can carry; it becomes U+FFFD instead of failing the whole answer with a 500.
    return well_formed(json.dumps(body, separators=(",", ":"), ensure_ascii=False))


def _json_of_strings(body: dict[str, Any]) -> str:
    """`json_text(body)` for a body of strings, integers, booleans and null only (no floats: pydantic-core
    writes 1e-7 where json writes 1e-07), byte for byte, by pydantic-core's encoder: 26 ms instead of 90
    for 100,000 links."""
    try:
        return to_json(body).decode()
    except PydanticSerializationError:  # a lone surrogate, which it cannot write and json_text replaces
        return json_text(body)


def error_response(error: ApiError, request_id: str) -> Response[str]:
    return Response(
        status_code=error.status,
        content_type=content_types.APPLICATION_JSON,
        body=json_text(error_body(error.code, error.message, request_id)),
        headers={REQUEST_ID_HEADER: request_id, **error.headers},
    )





def success(app: APIGatewayRestResolver, data: dict[str, Any], operation: Operation,
            encode: Callable[[dict[str, Any]], str] = json_text, credits_cost: int | None = None,
            ) -> Response[str]:
    """`credits_cost`: what the envelope reports when it is not the operation's price (0 for a cache hit)."""
    metrics.add_metric(name=f"{operation.value}.Success", unit="Count", value=1)
    cost = cost_of(operation) if credits_cost is None else credits_cost
    body = success_body(data, request_id(app), cost)
    return Response(200, content_types.APPLICATION_JSON, encode(body))


def answer(app: APIGatewayRestResolver, data: dict[str, Any], credits_cost: int,
           status: int = 200) -> Response[str]:
    """A success envelope whose cost is not an operation's fixed price (a batch: its items' sum)."""
    return Response(status, content_types.APPLICATION_JSON,
                    json_text(success_body(data, request_id(app), credits_cost)))


def large_success(app: APIGatewayRestResolver, data: dict[str, Any], operation: Operation) -> Response[str]:
    """`success` for a large answer of strings, integers, booleans and null (the links of a page)."""
    return success(app, data, operation, encode=_json_of_strings)


def binary(
    app: APIGatewayRestResolver, body: bytes, content_type: str, warnings: tuple[str, ...] = (),
    target_status: int | None = None,
) -> Response[bytes]:
    """Raw bytes; Powertools base64-encodes them for API Gateway's binary media types."""
    headers = {"Cache-Control": "no-store", **warning_headers(warnings)}
    if target_status is not None:
        headers[TARGET_STATUS_HEADER] = str(target_status)  # CONTRACT 20: metadata.statusCode, for bytes
    return Response(200, content_type, body, headers=headers)


def see_other(app: APIGatewayRestResolver, location: str, data: dict[str, Any],
              operation: Operation, credits_cost: int | None = None) -> Response[str]:
    """303 to where the result was stored, with the JSON envelope for clients that read the body."""
    body = success_body(data, request_id(app), cost_of(operation) if credits_cost is None else credits_cost)
    headers = {"Location": location, **warning_headers([data["warning"]] if data.get("warning") else [])}
    return Response(303, content_types.APPLICATION_JSON, json_text(body), headers=headers)


def file_response(app: APIGatewayRestResolver, answer: FileAnswer, operation: Operation,
                  credits_cost: int | None = None, *, large: bool = False) -> Response[Any]:
    """A screenshot's or a PDF's answer in the form operations.file_answers chose (or any JSON answer in
    the json form; `large`: encoded as `large_success` does)."""
    if answer.form == "binary":
        return binary(app, answer.body, answer.content_type, answer.warnings, answer.target_status)
    if answer.form == "redirect":
        return see_other(app, answer.location, answer.data or {}, operation, credits_cost)
    encode = _json_of_strings if large else json_text
    return success(app, answer.data or {}, operation, encode=encode, credits_cost=credits_cost)


def json_document(document: dict[str, Any]) -> Response[str]:
    """A public JSON document (no envelope): readable by tools on other origins, cached briefly."""
    return Response(200, content_types.APPLICATION_JSON, json_text(document),
                    headers={"Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*"})


def static(body: str, content_type: str) -> Response[str]:
    """A public page or asset of the docs; they change only with a deploy."""
    return Response(200, content_type, body, headers={"Cache-Control": "public, max-age=3600"})
