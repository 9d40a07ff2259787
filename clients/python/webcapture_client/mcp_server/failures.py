"""What a tool answers when the API (or reaching it) fails: one message a model can act on.

An API error keeps its status, code and message as the API sent them; a 422 lists every issue with its
path, so the model can correct the argument it got wrong. The hints say what to change, and where: the
server's configuration (key, URL) is the user's to fix, the arguments are the model's.
"""

from __future__ import annotations

import json
from typing import Any

from webcapture_client.http import ApiAnswerError, CliFailure

NO_KEY = ("No API key: set WEBCAPTURE_API_KEY in the environment of this MCP server (the `env` of its entry "
          "in the MCP client's configuration).")

_HINTS = {
    "UNAUTHORIZED": "The API key was refused (unknown, disabled or expired): check WEBCAPTURE_API_KEY in "
                    "this MCP server's configuration. Retrying with other arguments will not help.",
    "URL_NOT_ALLOWED": "The service only loads public web pages: this address (or where it redirects) is "
                       "private, local or otherwise refused. Do not retry it.",
    "USAGE_EXCEEDED": "The API key has no credits left. Tell the user; retrying will not help.",
    "CONCURRENCY_LIMIT_EXCEEDED": "Too many requests of this key are running: wait, then call again.",
    "TOO_MANY_REQUESTS": "The API is throttling requests: wait a little, then call again.",
    "NAVIGATION_FAILED": "The page could not be loaded: check the URL (typo, domain that does not exist).",
    "NAVIGATION_TIMEOUT": "The page did not finish loading in time: try waitUntil 'domcontentloaded', "
                          "bestAttempt true, or a shorter waitForSelector timeout.",
    "ELEMENT_NOT_FOUND": "No element matches the selector: check it, or capture the whole page.",
    "AI_NOT_CONFIGURED": "This deployment has no AI model configured: use markdown and read the page "
                         "yourself.",
}


def _issue_line(issue: dict[str, Any]) -> str:
    path = ".".join(str(part) for part in issue.get("path", [])) or "(arguments)"
    line = f"- {path}: {issue.get('message', '')} ({issue.get('code', 'invalid')})"
    if isinstance(issue.get("options"), list) and len(issue["options"]) <= 20:
        line += f"; allowed: {', '.join(map(str, issue['options']))}"
    return line


def api_error_text(error: ApiAnswerError) -> str:
    body = error.error
    if body.get("name") == "ZodError":
        issues = [issue for issue in body.get("issues", []) if isinstance(issue, dict)]
        said = f" {body['message']}." if body.get("message") else ""  # the service's one line, as it is
        count = f"{len(issues)} issue{'s' if len(issues) != 1 else ''}"
        lines = [f"webcapture API error {error.status} VALIDATION_ERROR: the arguments are invalid "
                 f"({count}); correct them and call again.{said}",
                 *(_issue_line(issue) for issue in issues),
                 "issues: " + json.dumps(issues, ensure_ascii=False)]
        return "\n".join(lines)
    if not body.get("code") and not body.get("message"):
        return (f"webcapture API error {error.status}, without the API's error body (a gateway or proxy in "
                "front of the API answered); the call may be retried.")
    code = str(body.get("code") or "ERROR")
    message = str(body.get("message") or f"HTTP {error.status}")
    text = f"webcapture API error {error.status} {code}: {message}"
    if body.get("requestId"):
        text += f" (requestId {body['requestId']})"
    hint = _HINTS.get(code)
    return f"{text}\n{hint}" if hint else text


def failure_text(failure: CliFailure, api_url: str) -> str:
    """A failed call as the model reads it."""
    if isinstance(failure, ApiAnswerError):
        return api_error_text(failure)
    if failure.exit_code == 8:  # the client could not reach the API at all
        return (f"The webcapture API at {api_url} cannot be reached ({failure}). It may be down, or "
                "WEBCAPTURE_API_URL in this MCP server's configuration may be wrong; tell the user.")
    return f"webcapture: {failure}"
