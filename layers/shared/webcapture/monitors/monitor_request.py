"""The monitor bodies (docs/monitors.md#routes): `POST /v1/monitors` and `PATCH /v1/monitors/{id}`, read by
hand so that every issue, the nested `request`'s included (its paths start `["request"]`), is listed at once.

`request` is the operation's own body without `url`: it is validated as that endpoint's body with the
monitor's URL put in, so a check can never be refused for a body that was accepted here.
"""

from __future__ import annotations

import json
import zoneinfo
from dataclasses import dataclass
from typing import Any

from webcapture import request_scope
from webcapture.credits import Operation
from webcapture.errors import RequestValidationError
from webcapture.jobs.batch_request import (
    MAX_ITEM_TIMEOUT_MS,
    MAX_METADATA_BYTES,
    MIN_ITEM_TIMEOUT_MS,
    REQUEST_MODELS,
    Webhook,
)
from webcapture.models.requests import _check_target_url
from webcapture.monitors.schedule_expressions import BadSchedule, Schedule, parse_schedule
from webcapture.unicode_text import well_formed
from webcapture.unknown_fields import unknown_field_warning
from webcapture.validation import received_type, validate_request

OPERATIONS = ("screenshot", "markdown", "ai-extract")
EVENTS = ("monitor.changed", "monitor.checked", "monitor.failed")
DEFAULT_EVENTS = ("monitor.changed",)
MAX_NAME = 100
MAX_SCHEDULE = 256
DEFAULT_THRESHOLD = 0.1
CREATE_FIELDS = ("url", "operation", "request", "schedule", "timezone", "name", "webhook", "diff", "enabled")
# PATCH changes what a monitor does and when, never what it watches: that is a new monitor.
FIXED_FIELDS = ("url", "operation")
UPDATE_FIELDS = tuple(name for name in CREATE_FIELDS if name not in FIXED_FIELDS)
_MISSING = object()


@dataclass(frozen=True)
class MonitorChanges:
    """The fields a body set (None: not given; for webhook, `clear_webhook` says it was null)."""

    request: dict[str, Any] | None = None
    schedule: Schedule | None = None
    timezone: str | None = None
    clear_timezone: bool = False
    name: str | None = None
    webhook: Webhook | None = None
    clear_webhook: bool = False
    threshold: float | None = None
    enabled: bool | None = None


@dataclass(frozen=True)
class NewMonitor:
    url: str
    operation: Operation
    settings: MonitorChanges


def _issue_type(path: list[str | int], expected: str, value: Any) -> dict[str, Any]:
    received = "undefined" if value is _MISSING else received_type(value)
    message = "Required" if value is _MISSING else f"Expected {expected}, received {received}"
    return {"code": "invalid_type", "expected": expected, "received": received, "path": path,
            "message": message}


def _issue_custom(path: list[str | int], message: str) -> dict[str, Any]:
    return {"code": "custom", "path": path, "message": message}


def _issue_enum(path: list[str | int], options: tuple[str, ...], value: Any) -> dict[str, Any]:
    return {"code": "invalid_enum_value", "options": list(options), "received": value, "path": path,
            "message": "Invalid enum value. Expected " + " | ".join(f"'{o}'" for o in options)
            + f", received '{value}'"}


def _issue_length(path: list[str | int], code: str, bound: int, kind: str) -> dict[str, Any]:
    key = "minimum" if code == "too_small" else "maximum"
    unit = "character(s)" if kind == "string" else "element(s)"
    bound_words = "at least" if code == "too_small" else "at most"
    message = f"{'String' if kind == 'string' else 'Array'} must contain {bound_words} {bound} {unit}"
    return {"code": code, key: bound, "inclusive": True, "type": kind, "path": path, "message": message}


def _object(payload: Any) -> dict[str, Any]:
    if not isinstance(payload, dict):
        received = received_type(payload)
        raise RequestValidationError([{"code": "invalid_type", "expected": "object", "received": received,
                                       "path": [], "message": f"Expected object, received {received}"}])
    return payload


def parse_create(payload: Any) -> NewMonitor:
    body = _object(payload)
    issues: list[dict[str, Any]] = []
    url = body.get("url", _MISSING)
    url_ok = False
    if not isinstance(url, str):
        issues.append(_issue_type(["url"], "string", url))
    else:
        try:
            _check_target_url(url)
            url_ok = True
        except ValueError:
            issues.append({"code": "invalid_string", "validation": "url", "path": ["url"],
                           "message": "Invalid url"})
    operation = body.get("operation", _MISSING)
    if not isinstance(operation, str):
        issues.append(_issue_type(["operation"], "string", operation))
    elif operation not in OPERATIONS:
        issues.append(_issue_enum(["operation"], OPERATIONS, operation))
    if "schedule" not in body:
        issues.append(_issue_type(["schedule"], "string", _MISSING))
    chosen = Operation(operation) if isinstance(operation, str) and operation in OPERATIONS else None
    # The request is checked with the monitor's URL in it; a bad URL has its own issue already.
    checked_url = url if url_ok and isinstance(url, str) else "https://example.com/"
    changes = _settings(body, issues, chosen, checked_url, {"request": {}})
    if issues:
        raise RequestValidationError(issues, payload=body)
    assert chosen is not None and isinstance(url, str)
    _warn_unknown(body, CREATE_FIELDS)
    return NewMonitor(url=url, operation=chosen, settings=changes)


def parse_update(payload: Any, operation: Operation, url: str) -> MonitorChanges:
    body = _object(payload)
    issues: list[dict[str, Any]] = [
        _issue_custom([name], f"{name} cannot be changed: create a new monitor for another {name}")
        for name in FIXED_FIELDS if name in body]
    changes = _settings(body, issues, operation, url, {})
    if issues:
        raise RequestValidationError(issues, payload=body)
    _warn_unknown(body, CREATE_FIELDS)
    return changes


def _warn_unknown(body: dict[str, Any], known: tuple[str, ...]) -> None:
    for name in body:
        if name not in known:
            request_scope.note_warning(unknown_field_warning(name, known))


def _settings(body: dict[str, Any], issues: list[dict[str, Any]], operation: Operation | None, url: str,
              defaults: dict[str, Any]) -> MonitorChanges:
    request = _request(body.get("request", defaults.get("request", _MISSING)), issues, operation, url)
    schedule = _schedule(body.get("schedule", _MISSING), issues)
    timezone = _timezone(body.get("timezone", _MISSING), issues)
    name = _name(body.get("name", _MISSING), issues)
    webhook = _webhook(body.get("webhook", _MISSING), issues)
    threshold = _threshold(body.get("diff", _MISSING), issues)
    enabled = body.get("enabled", _MISSING)
    if enabled is not _MISSING and not isinstance(enabled, bool):
        issues.append(_issue_type(["enabled"], "boolean", enabled))
    return MonitorChanges(
        request=request, schedule=schedule, timezone=timezone, clear_timezone=body.get("timezone", 0) is None,
        name=name, webhook=webhook, clear_webhook=body.get("webhook", 0) is None, threshold=threshold,
        enabled=enabled if isinstance(enabled, bool) else None)


def _request(value: Any, issues: list[dict[str, Any]], operation: Operation | None,
             url: str) -> dict[str, Any] | None:
    if value is _MISSING:
        return None
    if not isinstance(value, dict):
        issues.append(_issue_type(["request"], "object", value))
        return None
    if operation is None:
        return None
    before = len(issues)
    if "url" in value:
        issues.append(_issue_custom(["request", "url"],
                                    "the monitor's url is the top-level url; leave it out of request"))
    # A check runs as a job item: its `timeout` may go up to an item's, beyond the synchronous limit.
    timeout = value.get("timeout")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int):
            issues.append(_issue_type(["request", "timeout"], "integer", timeout))
        elif not MIN_ITEM_TIMEOUT_MS <= timeout <= MAX_ITEM_TIMEOUT_MS:
            issues.append(_issue_custom(["request", "timeout"], f"timeout must be {MIN_ITEM_TIMEOUT_MS}.."
                                        f"{MAX_ITEM_TIMEOUT_MS} ms"))
    body = {k: v for k, v in value.items() if k not in ("url", "timeout")}
    try:
        validate_request(REQUEST_MODELS[operation], {**body, "url": url}, path=("request",))
    except RequestValidationError as invalid:
        issues.extend({**issue, "path": ["request", *issue["path"]]} for issue in invalid.issues)
    if len(issues) > before:
        return None
    return {k: v for k, v in value.items() if k != "url"}


def _schedule(value: Any, issues: list[dict[str, Any]]) -> Schedule | None:
    if value is _MISSING:
        return None
    if not isinstance(value, str):
        issues.append(_issue_type(["schedule"], "string", value))
        return None
    if len(value) > MAX_SCHEDULE:
        issues.append(_issue_length(["schedule"], "too_big", MAX_SCHEDULE, "string"))
        return None
    try:
        return parse_schedule(value)
    except BadSchedule as bad:
        issues.append(_issue_custom(["schedule"], str(bad)))
        return None


def _timezone(value: Any, issues: list[dict[str, Any]]) -> str | None:
    if value is _MISSING or value is None:
        return None
    if not isinstance(value, str):
        issues.append(_issue_type(["timezone"], "string", value))
        return None
    if value != "UTC" and value not in _zones():
        issues.append(_issue_custom(["timezone"], f"{value[:100]!r} is not an IANA time zone; for example "
                                    "Europe/Berlin or America/New_York"))
        return None
    return value


def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def _name(value: Any, issues: list[dict[str, Any]]) -> str | None:
    if value is _MISSING:
        return None
    if not isinstance(value, str):
        issues.append(_issue_type(["name"], "string", value))
        return None
    if not value:
        issues.append(_issue_length(["name"], "too_small", 1, "string"))
    elif len(value) > MAX_NAME:
        issues.append(_issue_length(["name"], "too_big", MAX_NAME, "string"))
    else:
        return well_formed(value)
    return None


def _webhook(value: Any, issues: list[dict[str, Any]]) -> Webhook | None:
    if value is _MISSING or value is None:
        return None
    if not isinstance(value, dict):
        issues.append(_issue_type(["webhook"], "object", value))
        return None
    before = len(issues)
    url = value.get("url", _MISSING)
    if not isinstance(url, str):
        issues.append(_issue_type(["webhook", "url"], "string", url))
    else:
        try:
            _check_target_url(url)
        except ValueError:
            issues.append({"code": "invalid_string", "validation": "url", "path": ["webhook", "url"],
                           "message": "Invalid url"})
    events = value.get("events", list(DEFAULT_EVENTS))
    if not isinstance(events, list):
        issues.append(_issue_type(["webhook", "events"], "array", events))
    else:
        if not events:
            issues.append(_issue_length(["webhook", "events"], "too_small", 1, "array"))
        issues.extend(_issue_enum(["webhook", "events", i], EVENTS, event)
                      for i, event in enumerate(events) if event not in EVENTS)
    metadata = value.get("metadata", {})
    if not isinstance(metadata, dict):
        issues.append(_issue_type(["webhook", "metadata"], "object", metadata))
    elif len(json.dumps(metadata, ensure_ascii=False).encode("utf-8", "surrogatepass")) > MAX_METADATA_BYTES:
        issues.append(_issue_custom(["webhook", "metadata"],
                                    f"metadata must be at most {MAX_METADATA_BYTES} bytes as JSON"))
    if len(issues) > before:
        return None
    metadata = json.loads(well_formed(json.dumps(metadata, ensure_ascii=False)))
    return Webhook(url=str(url), events=tuple(dict.fromkeys(events)), metadata=metadata)


def _threshold(value: Any, issues: list[dict[str, Any]]) -> float | None:
    if value is _MISSING or value is None:
        return None
    if not isinstance(value, dict):
        issues.append(_issue_type(["diff"], "object", value))
        return None
    threshold = value.get("threshold", DEFAULT_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        issues.append(_issue_type(["diff", "threshold"], "number", threshold))
        return None
    if threshold < 0:
        issues.append({"code": "too_small", "minimum": 0, "inclusive": True, "type": "number",
                       "path": ["diff", "threshold"], "message": "Number must be greater than or equal to 0"})
        return None
    if threshold > 1:
        issues.append({"code": "too_big", "maximum": 1, "inclusive": True, "type": "number",
                       "path": ["diff", "threshold"], "message": "Number must be less than or equal to 1"})
        return None
    return float(threshold)
