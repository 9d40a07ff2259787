"""The public site, the canaries and the guarded browser's state for the browser egress tests (kept apart
from the fixture plugin, tests/support/egress_browser.py, so that test modules can import these names
without importing the plugin before pytest can rewrite its asserts).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.egress_names import CANARY, PUBLIC
from tests.support.egress_resolvers import MapResolver, SpyConnector
from tests.support.egress_servers import CanaryServer
from webcapture.egress import EgressProxy

HOLD_LIMIT_S = 15.0  # a page's load is never held longer than this; the test then fails on its assertion
GIF = bytes.fromhex("47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b")


class V6Canary:
    """A listener on [::1]:port that counts connections and answers nothing."""

    def __init__(self, port: int) -> None:
        self._sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("::1", port))
        self._sock.listen(64)
        self._lock = threading.Lock()
        self._count = 0
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with self._lock:
                self._count += 1
            conn.close()

    @property
    def connections(self) -> int:
        with self._lock:
            return self._count

    def stop(self) -> None:
        # shutdown() wakes the accepting thread; close() alone may leave it blocked.
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(timeout=5)


class _SiteHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _SiteServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        site = self.server.site
        url = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        site.record(self.command, url.path)
        if url.path.startswith("/page/"):
            name = url.path.removeprefix("/page/")
            if name == "rebind":
                site.flipped.set()  # from now on flip.test answers with the canary
            self._reply(200, site.page(name).encode(), "text/html; charset=utf-8")
        elif url.path.startswith("/redirect/"):
            self.send_response(int(url.path.removeprefix("/redirect/")))
            self.send_header("Location", query["to"])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif url.path == "/sw.js":
            script = f'fetch("{site.canary_url}/from-service-worker");'
            self._reply(200, script.encode(), "text/javascript")
        elif url.path == "/hold":
            site.wait_for_release()
            self._reply(200, GIF, "image/gif")
        else:
            self._reply(200, b"<!doctype html><title>public</title><h1>public</h1>", "text/html")

    do_POST = do_GET

    def _reply(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64
    site: Site


class Site:
    """The public site on 127.0.0.2:port: its pages (templates), what it was asked for, the /hold
    condition. Page templates may use {canary} (http://127.0.0.1:port), {port} and {public}."""

    def __init__(self, canary_port: int) -> None:
        self.canary_port = canary_port
        self.pages: dict[str, str] = {}
        self.release: Callable[[], bool] | None = None  # /hold answers once this returns True
        self.flipped = threading.Event()
        self._requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._server = _SiteServer((PUBLIC, canary_port), _SiteHandler)
        self._server.site = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def canary_url(self) -> str:
        return f"http://{CANARY}:{self.canary_port}"

    def url(self, path: str, host: str = PUBLIC) -> str:
        return f"http://{host}:{self.canary_port}{path}"

    def page(self, name: str) -> str:
        template = self.pages.get(name, "<title>public</title><h1>public</h1>")
        return "<!doctype html><meta charset='utf-8'>" + template.format(
            canary=self.canary_url, port=self.canary_port, public=self.url("")
        )

    def record(self, method: str, path: str) -> None:
        with self._lock:
            self._requests.append((method, path))

    def asked_for(self, path: str) -> bool:
        with self._lock:
            return any(seen == path for _, seen in self._requests)

    def wait_for_release(self) -> None:
        deadline = time.monotonic() + HOLD_LIMIT_S
        while time.monotonic() < deadline:
            release = self.release
            if release is None or release():
                return
            time.sleep(0.01)

    def stop(self) -> None:
        self.release = None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@dataclass
class GuardedBrowser:
    canary: CanaryServer
    canary6: V6Canary
    site: Site
    spy: SpyConnector
    resolver: MapResolver
    proxy: EgressProxy

    @property
    def port(self) -> int:
        return self.canary.port


@dataclass
class Baseline:
    """What the canaries had seen when a test started; `assert_untouched` compares against it."""

    guarded: GuardedBrowser
    canary: int
    canary6: int
    attempts: int

    def assert_untouched(self) -> None:
        g = self.guarded
        assert g.canary.connections == self.canary, g.canary.requests
        assert g.canary6.connections == self.canary6
        # The proxy tried to connect to the public site and nowhere else.
        tried = {address for address, _ in g.spy.attempts[self.attempts :]}
        assert tried <= {PUBLIC}, tried
