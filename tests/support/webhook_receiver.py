"""A webhook receiver on loopback, as a user would run one: it verifies every delivery with the
`standardwebhooks` package and answers the statuses it is told to (500, 500, 200, ...)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook, WebhookVerificationError


@dataclass
class Delivery:
    headers: dict[str, str]
    body: bytes
    verified: dict[str, Any] | None  # the payload when the signature checked out


class WebhookReceiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str = "127.0.0.1", statuses: list[int] | None = None) -> None:
        super().__init__((host, 0), _Handler)
        self.secret: str | None = None
        self.statuses = list(statuses or [])  # answered in turn; 200 once they run out
        self.deliveries: list[Delivery] = []
        self.arrived = threading.Condition()
        threading.Thread(target=self.serve_forever, daemon=True, name="webhook-receiver").start()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/hooks"

    def wait_for(self, count: int, timeout_s: float) -> list[Delivery]:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.deliveries) >= count, timeout=timeout_s)
            return list(self.deliveries)

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: WebhookReceiver

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {name.lower(): value for name, value in self.headers.items()}
        verified = None
        if self.server.secret is not None:
            try:
                verified = Webhook(self.server.secret).verify(body, headers)
            except WebhookVerificationError:
                verified = None
        with self.server.arrived:
            status = self.server.statuses.pop(0) if self.server.statuses else 200
            self.server.deliveries.append(Delivery(headers, body, verified))
            self.server.arrived.notify_all()
        answer = json.dumps({"received": True}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
