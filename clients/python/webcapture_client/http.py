"""One call to the API, as the client CLI makes it: stdlib only, errors as one line with an exit code.

Exit codes, for scripts (README "Client CLI"):
0 success · 2 usage · 3 authentication (401) · 4 the request was refused (other 4xx) · 5 out of credits or
throttled (429) · 6 the page could not be loaded (NAVIGATION_*) · 7 the service failed (other 5xx) ·
8 the API could not be reached.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import Message
from typing import Any, TextIO

USER_AGENT = "webcapture-cli/1"
TIMEOUT_S = 60  # API Gateway answers within 29 s; the rest is transfer of large answers
PROGRESS_AFTER_S = 2.0


class CliFailure(Exception):
    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class ApiAnswerError(CliFailure):
    """An error answer of the API: its status and its error object as sent (`code` and `message`, or the
    422's `issues`), for callers that show more than the one line (the MCP server)."""

    def __init__(self, message: str, exit_code: int, status: int, error: dict[str, Any]) -> None:
        super().__init__(message, exit_code)
        self.status = status
        self.error = error


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Message
    body: bytes

    @property
    def content_type(self) -> str:
        return (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()

    def json(self) -> dict[str, Any]:
        loaded = json.loads(self.body)
        if not isinstance(loaded, dict):
            raise CliFailure(f"unexpected answer from the API (HTTP {self.status})", 7)
        return loaded


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    # A 303 points at a stored file on another host: followed by hand, without the Authorization header.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirects)


def _exit_code(status: int, code: str) -> int:
    if status == 401:
        return 3
    if status == 429:
        return 5
    if code.startswith("NAVIGATION_"):
        return 6
    return 4 if status < 500 else 7


def _failure(answer: Answer) -> ApiAnswerError:
    try:
        error = answer.json().get("error") or {}
    except (ValueError, CliFailure):
        status = answer.status
        return ApiAnswerError(f"HTTP {status} from the API", _exit_code(status, ""), status, {})
    if not isinstance(error, dict):
        error = {}
    if error.get("name") == "ZodError" and error.get("message"):  # the service's own line, as it is
        return ApiAnswerError(f"422 VALIDATION_ERROR: {error['message']}", 4, answer.status, error)
    if error.get("name") == "ZodError":  # a service that names no message: the issues, one by one
        issues = "; ".join(
            f"{'.'.join(str(p) for p in issue.get('path', [])) or 'body'}: {issue.get('message', '')}"
            for issue in error.get("issues", [])
        )
        return ApiAnswerError(f"422 invalid request: {issues}", 4, answer.status, error)
    code = str(error.get("code", "ERROR"))
    message = f"{answer.status} {code}: {error.get('message', '')}"
    retry = answer.headers.get("Retry-After")
    if retry:
        message += f" (retry after {retry} s)"
    return ApiAnswerError(message, _exit_code(answer.status, code), answer.status, error)


@contextmanager
def progress(label: str, stream: TextIO | None = None) -> Iterator[None]:
    """After PROGRESS_AFTER_S, say on stderr that the request is still running (a line every few seconds,
    or one line rewritten in place on a terminal); cleared when the answer comes."""
    out = stream or sys.stderr
    done = threading.Event()
    started = time.monotonic()
    interactive = out.isatty()

    def report() -> None:
        wait = PROGRESS_AFTER_S
        while not done.wait(wait):
            line = f"webcapture: {label}… {time.monotonic() - started:.0f} s"
            out.write(f"\r{line}" if interactive else f"{line}\n")
            out.flush()
            wait = 1.0 if interactive else 5.0

    thread = threading.Thread(target=report, name="webcapture-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if interactive and time.monotonic() - started >= PROGRESS_AFTER_S:
            out.write("\r\033[K")
            out.flush()


def call(api_url: str, api_key: str, path: str, body: dict[str, Any] | None, *,
         accept: str = "application/json", method: str | None = None, headers: dict[str, str] | None = None,
         ) -> Answer:
    """Send body to the API (POST; GET when body is None, unless `method` says otherwise); an error answer
    raises CliFailure (ApiAnswerError) with its one-line message."""
    sent = {"Authorization": f"Bearer {api_key}", "Accept": accept, "User-Agent": USER_AGENT,
            **(headers or {})}
    if body is not None:
        sent["Content-Type"] = "application/json"
    request = urllib.request.Request(  # noqa: S310 - the API URL is the user's own configuration
        api_url + path, data=None if body is None else json.dumps(body).encode(),
        method=method or ("GET" if body is None else "POST"), headers=sent,
    )
    answer = _send(request)
    if answer.status >= 400:
        raise _failure(answer)
    return answer


def fetch(url: str) -> bytes:
    """A stored file at its permanent URL (no credentials sent)."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})  # noqa: S310
    answer = _send(request)
    if answer.status >= 400:
        raise CliFailure(f"HTTP {answer.status} fetching {url}", 7)
    return answer.body


def _send(request: urllib.request.Request) -> Answer:
    try:
        with _opener.open(request, timeout=TIMEOUT_S) as response:
            return Answer(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.headers, error.read())
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise CliFailure(f"cannot reach the API at {request.full_url}: {reason}", 8) from None
