"""The error catalogue (docs/api.md#errors): every failure a caller can see, with its status and code.

Core code raises these; the API layer turns them into the general error envelope. Anything else that
escapes becomes a 500 INTERNAL_SERVER_ERROR with no detail.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ApiError(Exception):
    status: ClassVar[int] = 500
    code: ClassVar[str] = "INTERNAL_SERVER_ERROR"
    default_message: ClassVar[str] = "Internal server error"
    # Whether a metered operation that fails with this error gets its credits back (docs/api.md#credits).
    refundable: ClassVar[bool] = True

    def __init__(self, message: str | None = None, *, headers: dict[str, str] | None = None) -> None:
        self.message = message or self.default_message
        self.headers = headers or {}
        super().__init__(self.message)


class Unauthorized(ApiError):
    status, code = 401, "UNAUTHORIZED"
    default_message = "Authentication required"


class InvalidSignature(ApiError):
    """A signed link (docs/cache-and-signed-links.md#cache-and-signed-links) that does not verify: one message
    whatever the reason, so a caller learns nothing about which part was wrong (or whether the user
    exists)."""

    status, code = 403, "INVALID_SIGNATURE"
    default_message = "The link's signature is missing, wrong or expired"


class InvalidJson(ApiError):
    status, code = 400, "INVALID_JSON"
    default_message = "Request body is not valid JSON"


class UrlNotAllowed(ApiError):
    status, code = 400, "URL_NOT_ALLOWED"
    default_message = "The target URL is not allowed by the egress policy"


class ElementNotFound(ApiError):
    """docs/api.md#page-control: screenshotOptions.selector (or a selector to wait for) matches nothing."""

    status, code = 400, "ELEMENT_NOT_FOUND"
    default_message = "No element matches the selector"


class ActionFailed(ApiError):
    """docs/actions-and-blocked-pages.md#actions-and-blocked-pages: a step of `actions` failed (no element,
    its timeout); the message names the step."""

    status, code = 400, "ACTION_FAILED"
    default_message = "An action step failed"


class NotFound(ApiError):
    status, code = 404, "NOT_FOUND"
    default_message = "Route not found"


class MethodNotAllowed(ApiError):
    status, code = 405, "METHOD_NOT_ALLOWED"
    default_message = "Method not allowed"


class IdempotencyConflict(ApiError):
    status, code = 409, "IDEMPOTENCY_CONFLICT"
    default_message = "This Idempotency-Key was used with another request body"


class LimitReached(ApiError):
    """A count the service caps per user is reached (profiles: docs/profiles.md#limits)."""

    status, code = 409, "LIMIT_REACHED"


class PayloadTooLarge(ApiError):
    status, code = 413, "PAYLOAD_TOO_LARGE"
    default_message = "Request body exceeds 100 KB"


class UsageExceeded(ApiError):
    status, code = 429, "USAGE_EXCEEDED"
    default_message = "Out of credits for this API key"


class ConcurrencyLimitExceeded(ApiError):
    status, code = 429, "CONCURRENCY_LIMIT_EXCEEDED"
    default_message = "Too many requests in flight for this API key"


class NavigationFailed(ApiError):
    status, code = 502, "NAVIGATION_FAILED"
    default_message = "The page could not be loaded"


class NavigationTimeout(ApiError):
    status, code = 504, "NAVIGATION_TIMEOUT"
    default_message = "The page did not load within the time budget"


class TargetHttpError(ApiError):
    """docs/actions-and-blocked-pages.md#actions-and-blocked-pages: the target answered a status the caller
    listed in failOnStatus."""

    status, code = 502, "TARGET_HTTP_ERROR"
    default_message = "The target answered an HTTP status the request refuses"


class TargetBlocked(ApiError):
    """docs/actions-and-blocked-pages.md#actions-and-blocked-pages: the final page is a bot wall (a challenge
    or captcha), never charged as a capture."""

    status, code = 502, "TARGET_BLOCKED"
    default_message = "The target answered with a bot wall instead of the page"


class AiProviderError(ApiError):
    status, code = 502, "AI_PROVIDER_ERROR"
    default_message = "The AI provider failed"


class AiAnswerMismatch(AiProviderError):
    """The model answered, twice, but not in the requested format: its work was done, so the request is
    charged (docs/decisions.md#markdown-content-pdf-and-ai-extraction)."""

    refundable = False


class AiProviderTimeout(ApiError):
    status, code = 504, "AI_PROVIDER_TIMEOUT"
    default_message = "The AI provider did not answer in time"


class AiNotConfigured(ApiError):
    status, code = 503, "AI_NOT_CONFIGURED"
    default_message = (
        "No AI provider is configured: set OPENAI_API_KEY (or OPENAI_API_KEY_SECRET), "
        "and OPENAI_BASE_URL for an OpenAI-compatible server"
    )


class ServiceUnavailable(ApiError):
    """AWS (DynamoDB, S3) throttled or could not be reached even after botocore's retries: a passing
    condition, worth retrying later, not a fault of the request."""

    status, code = 503, "SERVICE_UNAVAILABLE"
    default_message = "The service is temporarily unavailable; retry shortly"

    def __init__(self, message: str | None = None, *, retry_after_s: int = 1) -> None:
        super().__init__(message, headers={"Retry-After": str(retry_after_s)})


class RequestValidationError(Exception):
    """A 422: carries Zod-style issues (docs/api.md#validation-errors). Not an ApiError: its envelope keeps
    `name` and `issues` beside the code, message and request id. `payload`: the body the issues' paths
    point into, so the message can quote a value (a URL sent without its scheme)."""

    status = 422
    code = "VALIDATION_ERROR"

    def __init__(self, issues: list[dict[str, Any]], *, payload: Any = None) -> None:
        self.issues = issues
        self.payload = payload
        super().__init__(f"{len(issues)} validation issue(s)")
