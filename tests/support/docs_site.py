"""A real documentation site (one of Debian's documentation packages) served as files on a loopback
address, for the fast path's tests and benchmarks. HTTP/1.0 with Last-Modified as any static server
sends it; no sitemap (Debian's docs have none)."""

from __future__ import annotations

import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SPHINX_DOCS = Path("/usr/share/doc/sphinx-doc/html")
PYTHON_DOCS = Path("/usr/share/doc/python3.11-doc/html")
POSTGRES_DOCS = Path("/usr/share/doc/postgresql-doc-15/html")
GIT_DOCS = Path("/usr/share/doc/git-doc")
DJANGO_DOCS = Path("/usr/share/doc/python-django-doc/html")


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *_: Any) -> None:
        pass


class DocsServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, root: Path, address: str = "127.0.0.2", port: int = 0) -> None:
        super().__init__((address, port), partial(_Quiet, directory=str(root)))
        self.root = root
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def origin(self) -> str:
        host, port = str(self.server_address[0]), int(self.server_address[1])
        return f"http://{host}:{port}" if port != 80 else f"http://{host}"

    def html_pages(self) -> list[str]:
        """Every HTML file of the site as a URL path."""
        return sorted("/" + str(path.relative_to(self.root)) for path in self.root.rglob("*.html"))

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that stopped reading (a walk at its limit) is not the server's error

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
