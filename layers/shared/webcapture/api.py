"""The HTTP edge every function shares: a Powertools resolver that speaks the contract.

One middleware gives every response its request id (body and `X-Request-Id` header), turns errors into the
contract's envelopes (never a stack trace), and counts requests that fail before metering.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel

from webcapture import metering
from webcapture.auth.caller import Caller, caller_from_event
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import error_body, success_body, validation_error_body
from webcapture.errors import ApiError, NotFound, RequestValidationError
from webcapture.observability import logger, metrics, tracer
from webcapture.settings import get_settings
from webcapture.validation import parse_json_body, validate_request

ModelT = TypeVar("ModelT", bound=BaseModel)
REQUEST_ID_HEADER = "X-Request-Id"


def _json(body: dict[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def request_id_of(event: dict[str, Any]) -> str:
    """API Gateway's request id when it is a UUID (it is for REST APIs), else a fresh one."""
    candidate = str((event.get("requestContext") or {}).get("requestId") or "")
    try:
        return str(uuid.UUID(candidate))
    except ValueError:
        return str(uuid.uuid4())


def error_response(error: ApiError, request_id: str) -> Response[str]:
    return Response(
        status_code=error.status,
        content_type=content_types.APPLICATION_JSON,
        body=_json(error_body(error.code, error.message, request_id)),
        headers={REQUEST_ID_HEADER: request_id, **error.headers},
    )


def _caller_or_none(app: APIGatewayRestResolver) -> Caller | None:
    try:
        return caller_from_event(app.current_event.raw_event)
    except ApiError:
        return None


def _contract_middleware(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[Any]:
    request_id = request_id_of(app.current_event.raw_event)
    app.append_context(request_id=request_id)  # type: ignore[no-untyped-call]
    logger.set_correlation_id(request_id)
    metering.start_request()
    try:
        response = next_middleware(app)
    except RequestValidationError as exc:
        response = Response(422, content_types.APPLICATION_JSON, _json(validation_error_body(exc.issues)))
    except ApiError as exc:
        logger.info("request refused", extra={"status": exc.status, "code": exc.code, "reason": exc.message})
        response = error_response(exc, request_id)
    except Exception:
        logger.exception("unhandled error")
        metrics.add_metric(name="InternalErrors", unit="Count", value=1)
        response = error_response(ApiError(), request_id)
    if response.status_code >= 400:
        caller = _caller_or_none(app)
        if caller is not None:
            metering.count_request(caller)
    response.headers[REQUEST_ID_HEADER] = request_id
    return response


def create_resolver() -> APIGatewayRestResolver:
    app = APIGatewayRestResolver()
    app.use(middlewares=[_contract_middleware])

    @app.not_found
    def _not_found(_exc: NotFoundError) -> Response[str]:
        return error_response(NotFound(), request_id_of(app.current_event.raw_event))

    return app


LambdaHandler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


def entry_point(app: APIGatewayRestResolver) -> LambdaHandler:
    """The Lambda handler: the resolver, with the request logged, traced and its metrics flushed."""

    @logger.inject_lambda_context
    @tracer.capture_lambda_handler
    @metrics.log_metrics
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        return app.resolve(event, context)

    return lambda_handler


def request_id(app: APIGatewayRestResolver) -> str:
    return str(app.context.get("request_id") or request_id_of(app.current_event.raw_event))


def current_caller(app: APIGatewayRestResolver) -> Caller:
    return caller_from_event(app.current_event.raw_event)


def request_body(app: APIGatewayRestResolver, model: type[ModelT]) -> ModelT:
    """The validated body: 413 over the size limit, 400 if not JSON, 422 with every issue."""
    event = app.current_event
    raw: str | bytes | None = event.decoded_body if event.is_base64_encoded else event.body
    payload = parse_json_body(raw, get_settings().max_body_bytes)
    return validate_request(model, payload)


def success(app: APIGatewayRestResolver, data: dict[str, Any], operation: Operation) -> Response[str]:
    metrics.add_metric(name=f"{operation.value}.Success", unit="Count", value=1)
    body = success_body(data, request_id(app), cost_of(operation))
    return Response(200, content_types.APPLICATION_JSON, _json(body))


def binary(app: APIGatewayRestResolver, body: bytes, content_type: str) -> Response[bytes]:
    """Raw bytes; Powertools base64-encodes them for API Gateway's binary media types."""
    return Response(200, content_type, body, headers={"Cache-Control": "no-store"})


def see_other(app: APIGatewayRestResolver, location: str, data: dict[str, Any],
              operation: Operation) -> Response[str]:
    """303 to where the result was stored, with the JSON envelope for clients that read the body."""
    body = success_body(data, request_id(app), cost_of(operation))
    return Response(303, content_types.APPLICATION_JSON, _json(body), headers={"Location": location})


def json_document(document: dict[str, Any]) -> Response[str]:
    """A public JSON document (no envelope): readable by tools on other origins, cached briefly."""
    return Response(200, content_types.APPLICATION_JSON, _json(document),
                    headers={"Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*"})


def static(body: str, content_type: str) -> Response[str]:
    """A public page or asset of the docs; they change only with a deploy."""
    return Response(200, content_type, body, headers={"Cache-Control": "public, max-age=3600"})
