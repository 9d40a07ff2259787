"""A loopback stand-in for the API: answers queued per route, records every request it was sent. Standard
library only, so the client's tests run in a venv that holds nothing but the client."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int
    body: Any = None  # a dict is sent as JSON; bytes as they are
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeApi:
    def __init__(self) -> None:
        self.replies: dict[str, list[Reply]] = {}
        self.seen: list[Seen] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                fake.seen.append(Seen(self.command, self.path, dict(self.headers.items()),
                                      json.loads(raw) if raw else None))
                queue = fake.replies.get(f"{self.command} {self.path}") or fake.replies.get(
                    f"{self.command} {self.path.split('?')[0]}")
                reply = queue.pop(0) if queue and len(queue) > 1 else (queue[0] if queue else Reply(404, {
                    "success": False, "error": {"code": "NOT_FOUND", "message": "no such route"}}))
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_DELETE = do_PATCH = do_PUT = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def on(self, route: str, *replies: Reply) -> None:
        """`route` ("POST /v1/web/markdown", or with its query) answers `replies` in turn, the last one
        again and again."""
        self.replies[route] = list(replies)

    def __enter__(self) -> FakeApi:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def ok(data: dict[str, Any], status: int = 200) -> Reply:
    return Reply(status, {"success": True, "data": data})


def failed(status: int, code: str, message: str = "it failed", **headers: str) -> Reply:
    return Reply(status, {"success": False, "error": {"code": code, "message": message,
                                                      "requestId": "req-1"}}, headers)


def monitor_data(**fields: Any) -> dict[str, Any]:
    """A monitor as the monitor routes answer it, with `fields` over it."""
    return {"monitorId": "mon_1", "name": "Pricing", "url": "https://example.com/pricing", "operation": "markdown",
            "request": {}, "schedule": "rate(1 hour)", "timezone": None, "webhook": None,
            "diff": {"threshold": 0.1}, "enabled": True, "createdAt": "2026-11-27T10:00:00.000Z",
            "updatedAt": "2026-11-27T10:00:00.000Z", "nextRunAt": "2026-11-27T11:00:00.000Z", **fields}


def check_data(check_id: str, status: str = "completed", change: str | None = "same", **fields: Any) -> dict[str, Any]:
    return {"checkId": check_id, "at": f"2026-11-27T10:00:00.000Z#{check_id}", "status": status,
            "changeStatus": change if status == "completed" else None, "diff": None,
            "data": {"markdown": "# Pricing"} if status == "completed" else None, "creditsCost": 1, **fields}


def serve_check_pages(api: FakeApi, monitor_id: str, pages: list[list[dict[str, Any]]], limit: int) -> None:
    """The monitor's checks as `pages` (newest first), each asked with `limit` and the cursor of the one
    before: `next` names the following page, null on the last. A page may be short, even empty, and not be
    the last, as the API's are when a page fills its answer's size."""
    for number, checks in enumerate(pages):
        cursor = "" if number == 0 else f"&cursor=c{number}"
        following = f"c{number + 1}" if number + 1 < len(pages) else None
        api.on(f"GET /v1/monitors/{monitor_id}/checks?limit={limit}{cursor}",
               ok({"monitorId": monitor_id, "checks": checks, "next": following}))
