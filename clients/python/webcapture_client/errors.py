"""The SDK's exceptions: one class per family of the API's errors (docs/api.md, Errors), each carrying the
error's `code`, the HTTP `status` and the `request_id` to quote to the operator.

    try:
        client.markdown(url=...)
    except webcapture_client.PageError as error:      # the page could not be loaded
        print(error.code, error.status, error.request_id)
"""

from __future__ import annotations

from typing import Any


class WebcaptureError(Exception):
    """Any failure of a call: `code` (`UNAUTHORIZED`, `NAVIGATION_TIMEOUT`, ...), `status` (0 when the API
    was not reached), `request_id` (None when the answer carried none) and `error`, the error object as
    sent."""

    def __init__(self, message: str, *, code: str, status: int, request_id: str | None = None,
                 error: dict[str, Any] | None = None, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.request_id = request_id
        self.error = error or {}
        self.retry_after_s = retry_after_s


class AuthenticationError(WebcaptureError):
    """401: no key, or a key that is unknown, disabled or expired."""


class InvalidRequestError(WebcaptureError):
    """A request the API refused as it was sent (400, 405, 413): fix the request, do not retry it."""


class ValidationError(InvalidRequestError):
    """422: the body failed validation; `issues` lists each (`path`, `message`, `code`)."""

    @property
    def issues(self) -> list[dict[str, Any]]:
        return [issue for issue in self.error.get("issues", []) if isinstance(issue, dict)]


class NotFoundError(WebcaptureError):
    """404: no such job or file for this key (or no such route)."""


class RateLimitError(WebcaptureError):
    """429: too many requests in flight or per second (retried by the client, honouring Retry-After), or the
    key is out of credits (`code == "USAGE_EXCEEDED"`, never retried)."""


class PageError(WebcaptureError):
    """The page could not be loaded (`NAVIGATION_FAILED`, 502) or did not finish in time
    (`NAVIGATION_TIMEOUT`, 504)."""


class AiError(WebcaptureError):
    """The AI step failed (`AI_PROVIDER_ERROR`, `AI_PROVIDER_TIMEOUT`) or has no model
    (`AI_NOT_CONFIGURED`)."""


class ServerError(WebcaptureError):
    """Any other 5xx: the service failed (retried by the client)."""


class ApiConnectionError(WebcaptureError):
    """The API could not be reached (status 0): a wrong URL, the network, a timeout."""


_BY_STATUS: dict[int, type[WebcaptureError]] = {
    401: AuthenticationError, 404: NotFoundError, 422: ValidationError, 429: RateLimitError}


def error_class(status: int, code: str) -> type[WebcaptureError]:
    """The family of an error answer, by its code first (a page's failure is a 502 or a 504), then status."""
    if code.startswith("NAVIGATION_"):
        return PageError
    if code.startswith("AI_"):
        return AiError
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return InvalidRequestError if status < 500 else ServerError
