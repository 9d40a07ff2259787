"""The HTTP edge every function shares: a Powertools resolver that speaks the contract.

One middleware gives every response its request id (body and `X-Request-Id` header), turns errors into the
contract's envelopes (never a stack trace), and counts requests that fail before metering.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from botocore.exceptions import BotoCoreError, ClientError

from webcapture import aws, metering, request_scope
from webcapture.auth.caller import Caller, caller_from_event
from webcapture.edge.requests import request_id_of
from webcapture.edge.responses import REQUEST_ID_HEADER, error_response, json_text
from webcapture.envelopes import validation_error_body
from webcapture.errors import ApiError, NavigationTimeout, NotFound, RequestValidationError
from webcapture.observability import logger, metrics
from webcapture.validation import validation_message


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
                            json_text(validation_error_body(exc.issues, message, request_id)))
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
