"""The `POST /v1/batch` body (docs/jobs.md#jobs): an operation, 1..1,000 request bodies of that operation, and
an optional webhook. Every item is validated as its endpoint's own body; its issues carry the path
`["requests", i, ...]`, and every issue of every item is listed."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webcapture import request_scope
from webcapture.credits import Operation
from webcapture.errors import RequestValidationError
from webcapture.models.page_control import PageControl
from webcapture.models.requests import (
    AiExtractRequest,
    ContentRequest,
    LinksRequest,
    MarkdownRequest,
    PdfRequest,
    ScreenshotRequest,
    _check_target_url,
)
from webcapture.unicode_text import well_formed
from webcapture.unknown_fields import unknown_field_warning
from webcapture.validation import received_type, validate_request

MAX_ITEMS = 1_000
MAX_METADATA_BYTES = 2_048
# An async item's own time budget (its `timeout`, ms): up to 120 s, where a synchronous request has 29 s.
MAX_ITEM_TIMEOUT_MS = 120_000
MIN_ITEM_TIMEOUT_MS = 1_000
# The status a job is created with: what its 202 says, the first answer and every Idempotency-Key replay.
ACCEPTED = "queued"
EVENTS = ("job.completed", "job.failed", "job.cancelled", "item.completed")
DEFAULT_EVENTS = ("job.completed", "job.failed", "job.cancelled")

REQUEST_MODELS: dict[Operation, type[PageControl]] = {
    Operation.SCREENSHOT: ScreenshotRequest,
    Operation.LINKS: LinksRequest,
    Operation.AI_EXTRACT: AiExtractRequest,
    Operation.MARKDOWN: MarkdownRequest,
    Operation.CONTENT: ContentRequest,
    Operation.PDF: PdfRequest,
}
OPERATIONS = tuple(op.value for op in REQUEST_MODELS)
BATCH_FIELDS = ("operation", "requests", "webhook")


@dataclass(frozen=True)
class Webhook:
    url: str
    events: tuple[str, ...] = DEFAULT_EVENTS
    metadata: dict[str, Any] = field(default_factory=dict)

    def as_item(self) -> dict[str, Any]:
        return {"url": self.url, "events": list(self.events), "metadata": self.metadata}


@dataclass(frozen=True)
class BatchRequest:
    operation: Operation
    # Each item's body as sent (validated); the work function validates it again into its model.
    requests: tuple[dict[str, Any], ...]
    timeouts_ms: tuple[int | None, ...]
    webhook: Webhook | None


def _type_issue(path: list[str | int], expected: str, value: Any) -> dict[str, Any]:
    received = "undefined" if value is _MISSING else received_type(value)
    message = "Required" if value is _MISSING else f"Expected {expected}, received {received}"
    return {
        "code": "invalid_type",
        "expected": expected,
        "received": received,
        "path": path,
        "message": message,
    }


_MISSING = object()


def _size_issue(path: list[str | int], *, code: str, bound: int, kind: str, message: str) -> dict[str, Any]:
    key = "minimum" if code == "too_small" else "maximum"
    return {"code": code, key: bound, "inclusive": True, "type": kind, "path": path, "message": message}


def _operation(payload: dict[str, Any], issues: list[dict[str, Any]]) -> Operation | None:
    value = payload.get("operation", _MISSING)
    if not isinstance(value, str):
        issues.append(_type_issue(["operation"], "string", value))
        return None
    if value not in OPERATIONS:
        issues.append(
            {
                "code": "invalid_enum_value",
                "options": list(OPERATIONS),
                "received": value,
                "path": ["operation"],
                "message": "Invalid enum value. Expected "
                + " | ".join(f"'{o}'" for o in OPERATIONS)
                + f", received '{value}'",
            }
        )
        return None
    return Operation(value)


def _timeout(item: dict[str, Any], index: int, issues: list[dict[str, Any]]) -> int | None:
    value = item.get("timeout")
    path: list[str | int] = ["requests", index, "timeout"]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        issues.append(_type_issue(path, "integer", value))
        return None
    if value < MIN_ITEM_TIMEOUT_MS:
        issues.append(
            _size_issue(
                path,
                code="too_small",
                bound=MIN_ITEM_TIMEOUT_MS,
                kind="number",
                message=f"Number must be greater than or equal to {MIN_ITEM_TIMEOUT_MS}",
            )
        )
    elif value > MAX_ITEM_TIMEOUT_MS:
        issues.append(
            _size_issue(
                path,
                code="too_big",
                bound=MAX_ITEM_TIMEOUT_MS,
                kind="number",
                message=f"Number must be less than or equal to {MAX_ITEM_TIMEOUT_MS}",
            )
        )
    return value


def _requests(
    payload: dict[str, Any], operation: Operation | None, issues: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[int | None]]:
    value = payload.get("requests", _MISSING)
    if not isinstance(value, list):
        issues.append(_type_issue(["requests"], "array", value))
        return [], []
    if not value:
        issues.append(
            _size_issue(
                ["requests"],
                code="too_small",
                bound=1,
                kind="array",
                message="Array must contain at least 1 element(s)",
            )
        )
    if len(value) > MAX_ITEMS:
        issues.append(
            _size_issue(
                ["requests"],
                code="too_big",
                bound=MAX_ITEMS,
                kind="array",
                message=f"Array must contain at most {MAX_ITEMS} element(s)",
            )
        )
        return [], []  # one clear issue, not a thousand items' worth of them
    timeouts: list[int | None] = []
    for index, item in enumerate(value):
        if operation is None:
            break
        # An item's `timeout` is the batch's own field, not its endpoint's: no warning for it.
        body = {k: v for k, v in item.items() if k != "timeout"} if isinstance(item, dict) else item
        try:
            validate_request(REQUEST_MODELS[operation], body, path=("requests", index))
        except RequestValidationError as invalid:
            issues.extend({**issue, "path": ["requests", index, *issue["path"]]} for issue in invalid.issues)
        timeouts.append(_timeout(item, index, issues) if isinstance(item, dict) else None)
    return value, timeouts


def _json_bytes(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass"))


def _webhook(payload: dict[str, Any], issues: list[dict[str, Any]]) -> Webhook | None:
    value = payload.get("webhook")
    if value is None:
        return None
    if not isinstance(value, dict):
        issues.append(_type_issue(["webhook"], "object", value))
        return None
    before = len(issues)
    url = value.get("url", _MISSING)
    if not isinstance(url, str):
        issues.append(_type_issue(["webhook", "url"], "string", url))
    else:
        try:
            _check_target_url(url)
        except ValueError:
            issues.append(
                {
                    "code": "invalid_string",
                    "validation": "url",
                    "path": ["webhook", "url"],
                    "message": "Invalid url",
                }
            )
    events = value.get("events", list(DEFAULT_EVENTS))
    if not isinstance(events, list):
        issues.append(_type_issue(["webhook", "events"], "array", events))
    else:
        if not events:
            issues.append(
                _size_issue(
                    ["webhook", "events"],
                    code="too_small",
                    bound=1,
                    kind="array",
                    message="Array must contain at least 1 element(s)",
                )
            )
        for i, event in enumerate(events):
            if event not in EVENTS:
                issues.append(
                    {
                        "code": "invalid_enum_value",
                        "options": list(EVENTS),
                        "received": event,
                        "path": ["webhook", "events", i],
                        "message": "Invalid enum value. Expected "
                        + " | ".join(f"'{e}'" for e in EVENTS)
                        + f", received '{event}'",
                    }
                )
    metadata = value.get("metadata", {})
    if not isinstance(metadata, dict):
        issues.append(_type_issue(["webhook", "metadata"], "object", metadata))
    elif _json_bytes(metadata) > MAX_METADATA_BYTES:
        issues.append(
            {
                "code": "custom",
                "path": ["webhook", "metadata"],
                "message": f"metadata must be at most {MAX_METADATA_BYTES} bytes as JSON",
            }
        )
    if len(issues) > before:
        return None
    # A lone surrogate (JSON allows "\ud800") cannot be stored or sent as UTF-8: U+FFFD instead.
    metadata = json.loads(well_formed(json.dumps(metadata, ensure_ascii=False)))
    return Webhook(url=str(url), events=tuple(dict.fromkeys(events)), metadata=metadata)


def parse_batch(payload: Any) -> BatchRequest:
    """The batch, or a RequestValidationError with every issue of the body and of each item."""
    if not isinstance(payload, dict):
        received = received_type(payload)
        raise RequestValidationError(
            [
                {
                    "code": "invalid_type",
                    "expected": "object",
                    "received": received,
                    "path": [],
                    "message": f"Expected object, received {received}",
                }
            ]
        )
    issues: list[dict[str, Any]] = []
    operation = _operation(payload, issues)
    requests, timeouts = _requests(payload, operation, issues)
    webhook = _webhook(payload, issues)
    if issues or operation is None:
        raise RequestValidationError(issues, payload=payload)
    for name in payload:
        if name not in BATCH_FIELDS:
            request_scope.note_warning(unknown_field_warning(name, BATCH_FIELDS))
    return BatchRequest(operation, tuple(requests), tuple(timeouts), webhook)
