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

            do_GET = do_POST = do_DELETE = _answer

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
