"""Response bodies of the contract (docs/api.md#envelopes): success, general error, validation error."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from webcapture import request_scope
from webcapture.answer_warnings import with_warnings

VALIDATION_ERROR_NAME = "ZodError"  # kept for wire compatibility (docs/api.md#validation-errors)
VALIDATION_ERROR_CODE = "VALIDATION_ERROR"


def utc_timestamp(moment: datetime | None = None) -> str:
    """ISO 8601 UTC with milliseconds and `Z`, e.g. 2026-11-21T12:00:00.000Z."""
    moment = (moment or datetime.now(UTC)).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def success_body(data: dict[str, Any], request_id: str, credits_cost: int) -> dict[str, Any]:
    """The success envelope; `data.warning` also names what the request sent that was ignored."""
    return {
        "success": True,
        "data": with_warnings(data, request_scope.request_warnings()),
        "requestId": request_id,
        "timestamp": utc_timestamp(),
        "creditsCost": credits_cost,
    }


def error_body(code: str, message: str, request_id: str) -> dict[str, Any]:
    return {"success": False, "error": {"code": code, "message": message, "requestId": request_id}}


def validation_error_body(issues: list[dict[str, Any]], message: str, request_id: str) -> dict[str, Any]:
    """A 422: Zod's `name` and `issues` (wire compatibility) and the code, one-line message and request id
    every other error has (docs/api.md#validation-errors)."""
    return {"success": False, "error": {"name": VALIDATION_ERROR_NAME, "code": VALIDATION_ERROR_CODE,
                                        "message": message, "requestId": request_id, "issues": issues}}
