"""An HTTP proxy on loopback in front of moto's server, able to answer like a throttled DynamoDB.

The local API's functions talk to AWS through it. It forwards every request to moto unchanged, except
while `throttle(n)` is set: then the next n DynamoDB calls (optionally only one operation, e.g. UpdateItem)
are answered the way DynamoDB answers when a table is over its throughput, HTTP 400 with
ProvisionedThroughputExceededException, so botocore's own retry logic (standard mode, backoff) is what
runs. While `lose_answers(n)` is set, the next n DynamoDB calls reach moto and take effect, but their answer
is lost (the connection closes before it): what botocore then retries is a write that already happened. Every response closes its connection, so stopping the proxy leaves no pooled keep-alive connection
behind that would hide the outage from the client.
"""

from __future__ import annotations

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

THROTTLED = json.dumps({
    "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
    "message": "The level of configured provisioned throughput for the table was exceeded. "
               "Consider increasing your provisioning level with the UpdateTable API.",
}).encode()
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "te", "upgrade"}


class _Handler(BaseHTTPRequestHandler):
    server: _ProxyServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        target = self.headers.get("X-Amz-Target", "")
        if target.startswith("DynamoDB_") and self.server.proxy.take_throttle(target.rsplit(".", 1)[-1]):
            self._answer(400, {"Content-Type": "application/x-amz-json-1.0"}, THROTTLED)
            return
        upstream = http.client.HTTPConnection(self.server.proxy.upstream_host, self.server.proxy.upstream_port,
                                              timeout=30)
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
            upstream.request(self.command, self.path, body=body, headers=headers)
            reply = upstream.getresponse()
            payload = reply.read()
            if target.startswith("DynamoDB_") and self.server.proxy.take_loss(target.rsplit(".", 1)[-1]):
                self.close_connection = True  # done upstream; the client hears nothing
                return
            kept = {k: v for k, v in reply.getheaders() if k.lower() not in _HOP_BY_HOP | {"content-length"}}
            self._answer(reply.status, kept, payload)
        except OSError:
            # moto is not there: drop the connection, as a host with nothing listening would refuse it.
            self.close_connection = True
        finally:
            upstream.close()

    def _answer(self, status: int, headers: dict[str, str], payload: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
        self.close_connection = True

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, proxy: AwsFaultProxy) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.proxy = proxy


class AwsFaultProxy:
    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream_host, self.upstream_port = parts.hostname or "127.0.0.1", parts.port or 80
        self._lock = threading.Lock()
        self._throttle_left = 0
        self._throttle_operation: str | None = None
        self.throttled = 0  # how many answers were throttles
        self._losses_left = 0
        self._loss_operation: str | None = None
        self._losses_after = 0
        self.lost = 0  # how many answers were lost after moto had acted
        self._server: _ProxyServer | None = None
        self.port = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Listen (again, on the same port once it has had one)."""
        self._server = _ProxyServer(self.port, self)
        self.port = int(self._server.server_address[1])
        threading.Thread(target=self._server.serve_forever, name="aws-fault-proxy", daemon=True).start()

    def stop(self) -> None:
        """Stop listening: connections to the endpoint are refused until start()."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def throttle(self, count: int, operation: str | None = None) -> None:
        with self._lock:
            self._throttle_left, self._throttle_operation, self.throttled = count, operation, 0

    def take_throttle(self, operation: str) -> bool:
        with self._lock:
            if self._throttle_left <= 0 or self._throttle_operation not in (None, operation):
                return False
            self._throttle_left -= 1
            self.throttled += 1
            return True

    def lose_answers(self, count: int, operation: str | None = None, *, after: int = 0) -> None:
        """Lose the answers of the `count` calls (of `operation`) that follow the next `after` ones."""
        with self._lock:
            self._losses_left, self._loss_operation, self.lost = count, operation, 0
            self._losses_after = after

    def take_loss(self, operation: str) -> bool:
        with self._lock:
            if self._losses_left <= 0 or self._loss_operation not in (None, operation):
                return False
            if self._losses_after > 0:
                self._losses_after -= 1
                return False
            self._losses_left -= 1
            self.lost += 1
            return True
