"""The Python SDK: `Client(api_url=..., api_key=...)`, one method per endpoint.

Each method takes the endpoint's fields as keyword arguments named as the API names them (`waitUntil`,
`screenshotOptions`, ...: docs/api.md) and answers a dataclass (webcapture_client.results). An error answer
raises the exception of its family (webcapture_client.errors). 429s (except out of credits) and 5xx that a
retry can cure are retried with exponential backoff, waiting at least what `Retry-After` asks.
"""

from __future__ import annotations

import base64
import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import Message
from typing import Any
from urllib.parse import quote, urlencode

from webcapture_client import __version__
from webcapture_client import results as typed
from webcapture_client.errors import ApiConnectionError, WebcaptureError, error_class
from webcapture_client.monitor_methods import MonitorMethods
from webcapture_client.settings import client_settings

USER_AGENT = f"webcapture-python/{__version__}"
TIMEOUT_S = 60.0  # API Gateway answers within 29 s; the rest is the transfer of a large answer
# Retrying cannot cure these: out of credits, no AI model configured, a page that failed to load (a retried
# page costs another load, up to the time budget; the caller decides).
NOT_RETRIED = frozenset({"USAGE_EXCEEDED", "AI_NOT_CONFIGURED", "NAVIGATION_FAILED", "NAVIGATION_TIMEOUT"})
MAX_RETRY_WAIT_S = 60.0
Progress = Callable[[typed.JobStatus], None]


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: Message
    body: bytes


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    # A 303 points at a stored file on another host: followed by hand, without the Authorization header.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirects)


def _send(request: urllib.request.Request, timeout_s: float) -> _Answer:
    try:
        with _opener.open(request, timeout=timeout_s) as response:
            return _Answer(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return _Answer(error.code, error.headers, error.read())
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ApiConnectionError(f"cannot reach the API at {request.full_url}: {reason}",
                                 code="CONNECTION_ERROR", status=0) from None


def _retry_after(headers: Message) -> float | None:
    value = headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:  # an HTTP date: rare from this API; wait the backoff instead
        return None


def _error(answer: _Answer) -> WebcaptureError:
    try:
        loaded = json.loads(answer.body)
        error = loaded.get("error") if isinstance(loaded, dict) else None
    except ValueError:
        error = None
    error = error if isinstance(error, dict) else {}
    request_id = error.get("requestId") or answer.headers.get("x-amzn-RequestId")
    if error.get("name") == "ZodError":
        code = "VALIDATION_ERROR"
        issues = "; ".join(
            f"{'.'.join(str(part) for part in issue.get('path', [])) or 'body'}: {issue.get('message')}"
            for issue in error.get("issues", []) if isinstance(issue, dict))
        message = f"422 invalid request: {issues}"
    else:
        code = str(error.get("code") or f"HTTP_{answer.status}")
        message = f"{answer.status} {code}: {error.get('message') or 'error answer without a body'}"
    return error_class(answer.status, code)(message, code=code, status=answer.status, request_id=request_id,
                                            error=error, retry_after_s=_retry_after(answer.headers))


class Client(MonitorMethods):
    """A webcapture API: where it is (`api_url`, else $WEBCAPTURE_API_URL, else http://127.0.0.1:3000) and
    the key (`api_key`, else $WEBCAPTURE_API_KEY)."""

    def __init__(self, api_url: str | None = None, api_key: str | None = None, *, max_retries: int = 3,
                 timeout_s: float = TIMEOUT_S, backoff_s: float = 0.5) -> None:
        settings = client_settings()
        self.api_url = (api_url or settings.api_url).rstrip("/")
        key = api_key or settings.api_key
        if not key:
            raise ValueError("no API key: pass api_key= or set WEBCAPTURE_API_KEY")
        self.api_key = key
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.backoff_s = backoff_s

    # -- the endpoints --------------------------------------------------------------------------------

    def screenshot(self, url: str, **fields: Any) -> typed.Screenshot:
        """POST /v1/web/screenshot; the image's bytes (fetched from its permanentUrl when the API stores an
        image too large to answer inline)."""
        data = self._data("POST", "/v1/web/screenshot", {"url": url, "base64": True, **fields})
        image = self._inline_or_stored(data, "image")
        return typed.Screenshot(image, data.get("metadata") or {}, data.get("permanentUrl"),
                                  data.get("fileId"), data.get("warning"), data)

    def pdf(self, url: str, **fields: Any) -> typed.Pdf:
        """POST /v1/web/pdf; the PDF's bytes (from its permanentUrl when stored rather than inline)."""
        data = self._data("POST", "/v1/web/pdf", {"url": url, "base64": True, **fields})
        pdf = self._inline_or_stored(data, "pdf")
        return typed.Pdf(pdf, data.get("metadata") or {}, data.get("permanentUrl"), data.get("fileId"),
                           data.get("warning"), data)

    def markdown(self, url: str, **fields: Any) -> typed.Markdown:
        return typed.markdown(self._data("POST", "/v1/web/markdown", {"url": url, **fields}))

    def content(self, url: str, **fields: Any) -> typed.Content:
        return typed.content(self._data("POST", "/v1/web/content", {"url": url, **fields}))

    def links(self, url: str, **fields: Any) -> typed.Links:
        return typed.links(self._data("POST", "/v1/web/links", {"url": url, **fields}))

    def extract(self, url: str, **fields: Any) -> typed.Extraction:
        """POST /v1/web/ai-extract: `prompt`, `response_format`, `responseType`, ... as the API names them."""
        return typed.extraction(self._data("POST", "/v1/web/ai-extract", {"url": url, **fields}))

    def map(self, url: str, **fields: Any) -> typed.SiteMap:
        return typed.site_map(self._data("POST", "/v1/web/map", {"url": url, **fields}))

    def crawl(self, url: str, *, idempotency_key: str | None = None, **fields: Any) -> Job:
        """POST /v1/web/crawl: the crawl as a Job (`wait()`, iterate its pages)."""
        return self._start("/v1/web/crawl", {"url": url, **fields}, idempotency_key)

    def batch(self, operation: str, requests: list[dict[str, Any]], *, idempotency_key: str | None = None,
              **fields: Any) -> Job:
        """POST /v1/batch: `operation` on every body of `requests`, as a Job."""
        return self._start("/v1/batch", {"operation": operation, "requests": requests, **fields},
                           idempotency_key)

    def job(self, job_id: str) -> Job:
        """A job started earlier (by its jobId)."""
        return Job(self, job_id)

    def delete_file(self, fileId: str) -> dict[str, Any]:
        return self._data("POST", "/v1/files/delete", {"fileId": fileId})

    def api_keys(self) -> dict[str, Any]:
        """GET /v1/api-keys/list: the caller's keys (`apiKeys`, `total`), never the keys themselves."""
        return self._data("GET", "/v1/api-keys/list")

    def signing_secret(self, *, rotate: bool = False) -> dict[str, Any]:
        """GET /v1/signing/secret (`secret`, `userId`), or POST .../rotate for a new one."""
        return self._data("POST", "/v1/signing/secret/rotate", {}) if rotate else \
            self._data("GET", "/v1/signing/secret")

    def webhook_secret(self, *, rotate: bool = False) -> dict[str, Any]:
        """GET /v1/webhooks/secret (`secret`), or POST .../rotate for a new one."""
        return self._data("POST", "/v1/webhooks/secret/rotate", {}) if rotate else \
            self._data("GET", "/v1/webhooks/secret")

    # -- the transport -------------------------------------------------------------------------------

    def _start(self, path: str, body: dict[str, Any], idempotency_key: str | None) -> Job:
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        accepted = self._data("POST", path, body, headers=headers)
        return Job(self, str(accepted["jobId"]), accepted)

    def _inline_or_stored(self, data: dict[str, Any], name: str) -> bytes:
        if data.get(name):
            return base64.b64decode(data[name])
        if data.get("permanentUrl"):
            return self.fetch(str(data["permanentUrl"]))
        return b""

    def fetch(self, url: str) -> bytes:
        """A stored file at its permanent URL (no credentials sent)."""
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})  # noqa: S310
        answer = _send(request, self.timeout_s)
        if answer.status >= 400:
            raise _error(answer)
        return answer.body

    def _data(self, method: str, path: str, body: dict[str, Any] | None = None,
              headers: dict[str, str] | None = None) -> dict[str, Any]:
        answer = self.request(method, path, body, headers=headers)
        loaded = json.loads(answer.body)
        data = loaded.get("data") if isinstance(loaded, dict) else None
        if not isinstance(data, dict):
            raise WebcaptureError(f"unexpected answer from {path}: no data", code="UNEXPECTED_ANSWER",
                                  status=answer.status)
        return data

    def request(self, method: str, path: str, body: dict[str, Any] | None = None, *,
                headers: dict[str, str] | None = None, accept: str = "application/json") -> _Answer:
        """One call, retried while the error is one a retry can cure; an error answer raises."""
        sent = {"Authorization": f"Bearer {self.api_key}", "Accept": accept, "User-Agent": USER_AGENT,
                **(headers or {})}
        if body is not None:
            sent["Content-Type"] = "application/json"
        payload = None if body is None else json.dumps(body).encode()
        attempt = 0
        while True:
            request = urllib.request.Request(  # noqa: S310 - the API URL is the caller's own configuration
                self.api_url + path, data=payload, method=method, headers=sent)
            try:
                answer = _send(request, self.timeout_s)
                if answer.status < 400:
                    return answer
                failure = _error(answer)
            except ApiConnectionError as unreachable:
                failure = unreachable
            if attempt >= self.max_retries or not self._retryable(failure, method):
                raise failure
            time.sleep(self._wait_s(attempt, failure.retry_after_s))
            attempt += 1

    @staticmethod
    def _retryable(failure: WebcaptureError, method: str) -> bool:
        # A read (a job's status, a key's credits) is free and changes nothing: whatever made it fail, even
        # a time limit, a retry may cure at no cost.
        if failure.code in NOT_RETRIED and method != "GET":
            return False
        return failure.status == 0 or failure.status == 429 or failure.status >= 500

    def _wait_s(self, attempt: int, retry_after_s: float | None) -> float:
        """Exponential backoff with jitter, never shorter than Retry-After asks."""
        backoff = self.backoff_s * (2 ** attempt) * (0.5 + random.random() / 2)
        return float(min(MAX_RETRY_WAIT_S, max(backoff, retry_after_s or 0.0)))


class Job:
    """A batch or a crawl: its status, `wait()` for its end, and every result through every cursor."""

    def __init__(self, client: Client, job_id: str, accepted: dict[str, Any] | None = None) -> None:
        self.client = client
        self.id = job_id
        self.accepted = accepted or {}

    def __repr__(self) -> str:
        return f"Job({self.id!r})"

    def status(self, *, limit: int | None = None, cursor: str | None = None) -> typed.JobStatus:
        """GET /v1/jobs/{jobId}: the counts and one page of results (`limit` 1-100, from `cursor`)."""
        query = {name: value for name, value in (("limit", limit), ("cursor", cursor)) if value is not None}
        path = f"/v1/jobs/{quote(self.id, safe='')}" + (f"?{urlencode(query)}" if query else "")
        return typed.job_status(self.client._data("GET", path))

    def wait(self, progress: Progress | None = None, *, poll_s: float = 1.0,
             timeout_s: float | None = None) -> typed.JobStatus:
        """Poll until the job ends (completed, failed or cancelled); `progress(status)` after each poll.
        TimeoutError after `timeout_s` (the job goes on)."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            current = self.status(limit=1)
            if progress is not None:
                progress(current)
            if current.finished:
                return current
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"job {self.id} still {current.status} after {timeout_s} s")
            time.sleep(poll_s)

    def results(self, *, page_size: int = 100) -> Iterator[typed.JobResult]:
        """Every result so far, in index order, page after page through the cursors."""
        cursor: str | None = None
        while True:
            page = self.status(limit=page_size, cursor=cursor)
            yield from page.results
            if page.next is None:
                return
            cursor = page.next

    __iter__ = results

    def cancel(self) -> typed.JobStatus:
        """DELETE /v1/jobs/{jobId}: items not started never run and are refunded."""
        return typed.job_status(self.client._data("DELETE", f"/v1/jobs/{quote(self.id, safe='')}"))
