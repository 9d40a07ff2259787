"""The request's one clock: a deadline fixed at handler entry that every step keeps to.

API Gateway answers 504 on its own once its integration timeout (29 s) has passed since it received the
request, and Lambda stops the function at its `Timeout`. Whatever the function does after either moment is
wasted, and a credit taken for it is a credit charged for a 504. So the deadline is the earliest of: the
configured request budget from entry, the function's remaining time, and the gateway's own timeout
counted from `requestContext.requestTimeEpoch`, each less a margin for storing the result and answering.
DNS checks, metering, the browser, boto3 and the AI client all take their time limits from it.

The scope lives in a context variable set by the API middleware; code running outside a request (unit
tests, the CLI) sees a fresh full budget.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field

from webcapture.settings import get_settings

# Time kept after the deadline for storing the result, releasing the slot and sending the answer.
ANSWER_MARGIN_MS = 3_000
# An event received longer ago than Lambda's own 15-minute maximum is no live gateway request but a recorded
# one replayed (`sam local invoke -e events/...`): no gateway is waiting on it.
REPLAYED_AFTER_MS = 15 * 60 * 1000


@dataclass(frozen=True)
class RequestScope:
    request_id: str
    deadline: float  # time.monotonic() instant by which the work must be done
    gateway_deadline: float | None  # time.monotonic() instant at which API Gateway answers 504 itself
    # What the answer must tell the caller about the request itself (unknown fields it ignored).
    warnings: list[str] = field(default_factory=list)

    def remaining_ms(self) -> float:
        return (self.deadline - time.monotonic()) * 1000

    def gateway_gave_up(self) -> bool:
        return self.gateway_deadline is not None and time.monotonic() >= self.gateway_deadline


_scope: ContextVar[RequestScope | None] = ContextVar("webcapture_request_scope", default=None)


def derive(request_id: str, *, lambda_remaining_ms: float | None,
           request_time_epoch_ms: float | None) -> RequestScope:
    """The scope of a request entering the handler now."""
    settings = get_settings()
    now, wall_ms = time.monotonic(), time.time() * 1000
    limits_ms = [float(settings.request_budget_ms)]
    if lambda_remaining_ms is not None:
        limits_ms.append(lambda_remaining_ms - ANSWER_MARGIN_MS)
    gateway_deadline = None
    if request_time_epoch_ms is not None and wall_ms - request_time_epoch_ms < REPLAYED_AFTER_MS:
        # Clocks on both sides are NTP-synced; a received time in the future is read as "now".
        waited_ms = max(wall_ms - request_time_epoch_ms, 0.0)
        gateway_left_ms = settings.gateway_timeout_ms - waited_ms
        gateway_deadline = now + gateway_left_ms / 1000
        limits_ms.append(gateway_left_ms - ANSWER_MARGIN_MS)
    return RequestScope(request_id, now + min(limits_ms) / 1000, gateway_deadline)


def begin(scope: RequestScope) -> Token[RequestScope | None]:
    return _scope.set(scope)


def end(token: Token[RequestScope | None]) -> None:
    _scope.reset(token)


def current() -> RequestScope | None:
    return _scope.get()


@contextmanager
def scoped(scope: RequestScope) -> Iterator[RequestScope]:
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)


def remaining_ms() -> float:
    """Time left until the request's deadline (a full budget outside a request); negative once past."""
    scope = _scope.get()
    return float(get_settings().request_budget_ms) if scope is None else scope.remaining_ms()


def deadline() -> float:
    """The request's deadline as a time.monotonic() instant."""
    scope = _scope.get()
    return time.monotonic() + get_settings().request_budget_ms / 1000 if scope is None else scope.deadline


def request_id() -> str | None:
    scope = _scope.get()
    return None if scope is None else scope.request_id


def note_warning(text: str) -> None:
    """A warning about the request for its answer (`data.warning` / `X-Webcapture-Warning`); nothing
    outside a request."""
    scope = _scope.get()
    if scope is not None and text not in scope.warnings:
        scope.warnings.append(text)


def request_warnings() -> list[str]:
    scope = _scope.get()
    return [] if scope is None else list(scope.warnings)


def gateway_gave_up() -> bool:
    """Whether API Gateway has already answered this request with its own 504."""
    scope = _scope.get()
    return scope is not None and scope.gateway_gave_up()
