"""A loopback page that takes its time: `/slow?ms=N` answers after N ms (each request on its own thread)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PAGE = b"<!doctype html><html><body style='background:#08f'><h1>Worth the wait</h1></body></html>"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query)
        time.sleep(int(query.get("ms", ["0"])[0]) / 1000)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)


class SlowSite(ThreadingHTTPServer):
    daemon_threads = True

    def url(self, delay_ms: int) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/slow?ms={delay_ms}"


@contextmanager
def slow_site() -> Iterator[SlowSite]:
    server = SlowSite(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, name="slow-site", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
