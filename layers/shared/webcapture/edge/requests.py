"""What a function reads from its API Gateway event: the request id, the caller, the validated body."""

from __future__ import annotations

import base64
import uuid
from typing import Any, TypeVar

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from pydantic import BaseModel

from webcapture.auth.caller import Caller, caller_from_event
from webcapture.errors import InvalidJson
from webcapture.settings import get_settings
from webcapture.validation import parse_json_body, validate_request

ModelT = TypeVar("ModelT", bound=BaseModel)


def request_id_of(event: dict[str, Any]) -> str:
    """API Gateway's request id when it is a UUID (it is for REST APIs), else a fresh one."""
    candidate = str((event.get("requestContext") or {}).get("requestId") or "")
    try:
        return str(uuid.UUID(candidate))
    except ValueError:
        return str(uuid.uuid4())


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


def json_payload(app: APIGatewayRestResolver, max_bytes: int | None = None) -> Any:
    """The body as JSON, not yet validated: 413 over `max_bytes` (the settings' body limit by default),
    400 if not JSON."""
    limit = get_settings().max_body_bytes if max_bytes is None else max_bytes
    return parse_json_body(raw_body(app.current_event.raw_event), limit)


def request_body(app: APIGatewayRestResolver, model: type[ModelT]) -> ModelT:
    """The validated body: 413 over the size limit, 400 if not JSON, 422 with every issue."""
    return validate_request(model, json_payload(app))
