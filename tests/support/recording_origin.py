"""A loopback origin that serves pages given per path and records every request's headers.

Two of them on different ports are two origins, so a test can tell what reached the target's origin from
what reached another one the page embeds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


@dataclass
class RecordingOrigin:
    host: str
    port: int
    pages: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # path -> (content type, body)
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def serve(self, path: str, body: str | bytes, content_type: str = "text/html; charset=utf-8") -> str:
        self.pages[path] = (content_type, body.encode() if isinstance(body, str) else body)
        return self.url(path)

    def requests(self) -> list[Seen]:
        with self.lock:
            return list(self.seen)

    def header_values(self, name: str) -> list[str]:
        """Every value of header `name` (any case) this origin received."""
        lowered = name.lower()
        return [value for seen in self.requests() for key, value in seen.headers.items() if key.lower() == lowered]


def _handler(origin: RecordingOrigin) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # quiet test output
            pass

        def do_GET(self) -> None:
            with origin.lock:
                origin.seen.append(Seen(self.path, dict(self.headers.items())))
            path = self.path.split("?", 1)[0]
            content_type, body = origin.pages.get(path, ("text/plain", b""))
            self.send_response(200 if path in origin.pages else 404)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextmanager
def recording_origin(host: str = "127.0.0.1") -> Iterator[RecordingOrigin]:
    origin = RecordingOrigin(host, 0)
    server = ThreadingHTTPServer((host, 0), _handler(origin))
    server.daemon_threads = True
    origin.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, name=f"origin-{origin.port}", daemon=True)
    thread.start()
    try:
        yield origin
    finally:
        server.shutdown()
        server.server_close()
