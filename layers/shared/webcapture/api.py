"""The HTTP edge every function shares: a Powertools resolver that speaks the contract.

One middleware gives every response its request id (body and `X-Request-Id` header), turns errors into the
contract's envelopes (never a stack trace), and counts requests that fail before metering.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable
from contextlib import suppress
from typing import Any, Protocol, TypeVar

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.utilities.typing import LambdaContext
from botocore.exceptions import BotoCoreError, ClientError
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

from webcapture import aws, metering, request_scope
from webcapture.answer_warnings import warning_headers
from webcapture.auth.caller import Caller, caller_from_event
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import error_body, success_body, validation_error_body
from webcapture.errors import ApiError, InvalidJson, NavigationTimeout, NotFound, RequestValidationError
from webcapture.observability import logger, metrics, tracer
from webcapture.operations.file_answers import FileAnswer
from webcapture.settings import get_settings
from webcapture.unicode_text import well_formed
from webcapture.validation import parse_json_body, validate_request, validation_message

ModelT = TypeVar("ModelT", bound=BaseModel)
REQUEST_ID_HEADER = "X-Request-Id"
TARGET_STATUS_HEADER = "X-Webcapture-Target-Status"


def _json(body: dict[str, Any]) -> str:
    # well_formed: a page's text (link texts, a title, extracted strings) may hold a lone surrogate, which
    # no UTF-8 answer can carry; it becomes U+FFFD instead of failing the whole answer with a 500.
    return well_formed(json.dumps(body, separators=(",", ":"), ensure_ascii=False))


def _json_of_strings(body: dict[str, Any]) -> str:
    """`_json(body)` for a body of strings, integers, booleans and null only (no floats: pydantic-core writes
    1e-7 where json writes 1e-07), byte for byte, by pydantic-core's encoder: 26 ms instead of 90 for
    100,000 links."""
    try:
        return to_json(body).decode()
    except PydanticSerializationError:  # a lone surrogate, which it cannot write and _json replaces
        return _json(body)


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


def _scope_of(app: APIGatewayRestResolver, request_id: str) -> request_scope.RequestScope:
    """The request's deadline, from the function's remaining time and when API Gateway received it."""
    context = getattr(app, "lambda_context", None)
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    received = (app.current_event.raw_event.get("requestContext") or {}).get("requestTimeEpoch")
    return request_scope.derive(
        request_id,
        lambda_remaining_ms=float(remaining()) if callable(remaining) else None,
        request_time_epoch_ms=float(received) if isinstance(received, int | float) else None,
    )


def _work(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[Any]:
    if request_scope.gateway_gave_up():
        # API Gateway has answered 504 already (this invocation waited too long to start): do nothing,
        # and above all charge nothing, for an answer nobody will read.
        logger.warning("request started after API Gateway's timeout; not run")
        raise NavigationTimeout("The request could not start before the gateway's time limit")
    return next_middleware(app)


def _unexpected_error_response(exc: Exception, request_id: str) -> Response[str]:
    """AWS throttling or out of reach (after botocore's retries) is a 503 to retry; anything else a 500."""
    unavailable = aws.unavailable(exc)
    if unavailable is not None:
        logger.warning("aws unavailable", extra={"error": repr(exc)})
        metrics.add_metric(name="AwsUnavailable", unit="Count", value=1)
        return error_response(unavailable, request_id)
    logger.exception("unhandled error")
    metrics.add_metric(name="InternalErrors", unit="Count", value=1)
    return error_response(ApiError(), request_id)


def _contract_middleware(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[Any]:
    request_id = request_id_of(app.current_event.raw_event)
    app.append_context(request_id=request_id)  # type: ignore[no-untyped-call]
    logger.set_correlation_id(request_id)
    scope = request_scope.begin(_scope_of(app, request_id))
    try:
        return _answer(app, next_middleware, request_id)
    finally:
        request_scope.end(scope)  # a warm container's next request, or a test, starts without it


def _answer(app: APIGatewayRestResolver, next_middleware: NextMiddleware, request_id: str) -> Response[Any]:
    metering.start_request()
    try:
        response = _work(app, next_middleware)
    except RequestValidationError as exc:
        message = validation_message(exc.issues, exc.payload)
        response = Response(422, content_types.APPLICATION_JSON,
                            _json(validation_error_body(exc.issues, message, request_id)))
    except ApiError as exc:
        logger.info("request refused", extra={"status": exc.status, "code": exc.code, "reason": exc.message})
        response = error_response(exc, request_id)
    except Exception as exc:
        response = _unexpected_error_response(exc, request_id)
    if response.status_code >= 400:
        caller = _caller_or_none(app)
        if caller is not None:
            # AWS that is down or throttling must not turn the answer into a crash (a bare 502).
            with suppress(BotoCoreError, ClientError):
                metering.count_request(caller)
    response.headers[REQUEST_ID_HEADER] = request_id
    return response


def _public_middleware(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[Any]:
    """The contract's envelope and request id for routes without credentials: no caller, nothing metered
    or counted (so a public function needs no access to the keys table)."""
    request_id = request_id_of(app.current_event.raw_event)
    logger.set_correlation_id(request_id)
    try:
        response = next_middleware(app)
    except ApiError as exc:
        response = error_response(exc, request_id)
    except Exception:
        logger.exception("unhandled error")
        metrics.add_metric(name="InternalErrors", unit="Count", value=1)
        response = error_response(ApiError(), request_id)
    response.headers[REQUEST_ID_HEADER] = request_id
    return response


def _resolver(middleware: Callable[[APIGatewayRestResolver, NextMiddleware], Response[Any]],
              ) -> APIGatewayRestResolver:
    app = APIGatewayRestResolver()
    app.use(middlewares=[middleware])

    @app.not_found
    def _not_found(_exc: NotFoundError) -> Response[str]:
        return error_response(NotFound(), request_id_of(app.current_event.raw_event))

    return app


def create_resolver() -> APIGatewayRestResolver:
    """The resolver every authenticated function uses: envelopes, request id, metering's request count."""
    return _resolver(_contract_middleware)


def create_public_resolver() -> APIGatewayRestResolver:
    """For routes served without credentials (the docs): envelopes and request id only."""
    return _resolver(_public_middleware)


LambdaHandler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


class QueueWork(Protocol):
    """What a function runs from its SQS event source: a batch's items (jobs.item_worker.ItemRunner) or a
    crawl's pages (site.crawl_worker.CrawlWorker)."""

    def handle(self, event: dict[str, Any], remaining_ms: Callable[[], float]) -> dict[str, Any]: ...


def is_sqs_event(event: dict[str, Any]) -> bool:
    records = event.get("Records")
    return isinstance(records, list) and bool(records) and records[0].get("eventSource") == "aws:sqs"


def entry_point(app: APIGatewayRestResolver, items: QueueWork | None = None) -> LambdaHandler:
    """The Lambda handler: the resolver, with the request logged, traced and its metrics flushed. With
    `items`, the same function also runs job items from its SQS event source (CONTRACT 17)."""

    @logger.inject_lambda_context
    @tracer.capture_lambda_handler
    @metrics.log_metrics
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        if items is not None and is_sqs_event(event):
            remaining = getattr(context, "get_remaining_time_in_millis", None)
            return items.handle(event, lambda: float(remaining()) if callable(remaining) else 900_000.0)
        return app.resolve(event, context)

    return lambda_handler


class _SubmittedJob(Protocol):
    job_id: str
    status: str
    total: int
    reserved: int


def job_accepted(app: APIGatewayRestResolver, job: _SubmittedJob, repeated: bool) -> Response[str]:
    """A submitted job's 202 (CONTRACT 17): its id, status, total and status URL, charged what it reserved;
    a repeated submit (the same Idempotency-Key and body) charges nothing new."""
    data = {"jobId": job.job_id, "status": job.status, "total": job.total,
            "statusUrl": job_status_url(app, job.job_id)}
    return answer(app, data, 0 if repeated else job.reserved, status=202)


def job_status_url(app: APIGatewayRestResolver, job_id: str) -> str:
    """Where a job's status is read (`statusUrl`), absolute on the request's own host."""
    event = app.current_event
    host = event.headers.get("Host") or event.headers.get("host") or ""
    context = event.raw_event.get("requestContext") or {}
    if host.endswith(".amazonaws.com"):  # API Gateway's own address carries the stage in the path
        return f"https://{host}/{context.get('stage', '')}/v1/jobs/{job_id}"
    scheme = event.headers.get("X-Forwarded-Proto") or event.headers.get("x-forwarded-proto") or "http"
    return f"{scheme}://{host}/v1/jobs/{job_id}" if host else f"/v1/jobs/{job_id}"


def request_id(app: APIGatewayRestResolver) -> str:
    return str(app.context.get("request_id") or request_id_of(app.current_event.raw_event))


def current_caller(app: APIGatewayRestResolver) -> Caller:
    return caller_from_event(app.current_event.raw_event)


def raw_body(event: dict[str, Any]) -> str | bytes | None:
    """The body as sent. Bytes when API Gateway base64-encoded it: Powertools' `decoded_body` would decode
    them as UTF-8 itself and fail with a 500 on invalid input, before our parser could answer 400."""
    body: str | None = event.get("body")
    if not event.get("isBase64Encoded") or body is None:
        return body
    try:
        return base64.b64decode(body, validate=True)
    except ValueError:
        raise InvalidJson("Request body is not valid base64") from None


def request_body(app: APIGatewayRestResolver, model: type[ModelT]) -> ModelT:
    """The validated body: 413 over the size limit, 400 if not JSON, 422 with every issue."""
    payload = parse_json_body(raw_body(app.current_event.raw_event), get_settings().max_body_bytes)
    return validate_request(model, payload)


def success(app: APIGatewayRestResolver, data: dict[str, Any], operation: Operation,
            encode: Callable[[dict[str, Any]], str] = _json, credits_cost: int | None = None,
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
                    _json(success_body(data, request_id(app), credits_cost)))


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
    return Response(303, content_types.APPLICATION_JSON, _json(body), headers=headers)


def file_response(app: APIGatewayRestResolver, answer: FileAnswer, operation: Operation,
                  credits_cost: int | None = None, *, large: bool = False) -> Response[Any]:
    """A screenshot's or a PDF's answer in the form operations.file_answers chose (or any JSON answer in
    the json form; `large`: encoded as `large_success` does)."""
    if answer.form == "binary":
        return binary(app, answer.body, answer.content_type, answer.warnings, answer.target_status)
    if answer.form == "redirect":
        return see_other(app, answer.location, answer.data or {}, operation, credits_cost)
    encode = _json_of_strings if large else _json
    return success(app, answer.data or {}, operation, encode=encode, credits_cost=credits_cost)


def json_document(document: dict[str, Any]) -> Response[str]:
    """A public JSON document (no envelope): readable by tools on other origins, cached briefly."""
    return Response(200, content_types.APPLICATION_JSON, _json(document),
                    headers={"Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*"})


def static(body: str, content_type: str) -> Response[str]:
    """A public page or asset of the docs; they change only with a deploy."""
    return Response(200, content_type, body, headers={"Cache-Control": "public, max-age=3600"})
