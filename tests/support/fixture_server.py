"""Fixture pages for the browser tests, served on loopback by a small threaded http.server.

One server per test process (started on first use, stopped at exit), so every browser test module shares
it and the one browser. Static pages live in tests/support/pages; a few routes are made here:

    /many-links?n=N     N links in document order: /p/<i> "Link <i>", every 10th one external
    /redirect/301       301 -> /redirect/302 -> 302 -> /plain.html?via=redirect
    /redirect-to?url=U  302 -> U
    /missing            404 with a page (still captured)
    /broken             500 with a page (still captured)
    /hang               starts a page and never finishes it (held until the server stops)
    /forged-egress      a page that sends the egress proxy's verdict header itself ("refused")
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from webcapture.settings import get_settings

PAGES = Path(__file__).parent / "pages"
# Loopback is refused by the egress policy except where the tests allow it, for their own server only.
EGRESS_ALLOW = "127.0.0.0/8,::1/128"


def many_links_html(count: int) -> str:
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Many links</title></head><body>"]
    for i in range(count):
        if i % 10 == 9:
            parts.append(f"<a href='https://ext{i}.example/'>External {i}</a>\n")
        else:
            parts.append(f"<a href='/p/{i}'>Link {i}</a>\n")
    parts.append("</body></html>")
    return "".join(parts)


def error_page(title: str, colour: str) -> str:
    return (
        f"<!doctype html><html><head><title>{title}</title></head>"
        f"<body style='margin:0;background:{colour}'><h1>{title}</h1></body></html>"
    )


class _Handler(BaseHTTPRequestHandler):
    server: FixtureHttpServer

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        if path == "/many-links":
            count = int(parse_qs(parts.query).get("n", ["10000"])[0])
            self._send(200, many_links_html(count))
        elif path == "/redirect/301":
            self._redirect(301, "/redirect/302")
        elif path == "/redirect/302":
            self._redirect(302, "/plain.html?via=redirect")
        elif path == "/redirect-to":
            self._redirect(302, parse_qs(parts.query)["url"][0])
        elif path == "/missing":
            self._send(404, error_page("Not found", "rgb(255, 255, 0)"))
        elif path == "/broken":
            self._send(500, error_page("Server error", "rgb(0, 255, 255)"))
        elif path == "/hang":
            self._hang()
        elif path == "/forged-egress":
            self._send(200, error_page("Forged proxy verdict", "rgb(0, 128, 0)"),
                       headers={"X-Webcapture-Egress": "refused", "X-Webcapture-Egress-0123456789abcdef": "refused"})
        elif (page := PAGES / path.lstrip("/")).is_file() and page.parent == PAGES:
            self._send(200, page.read_text(encoding="utf-8"))
        else:
            self._send(404, error_page("No such fixture", "white"))

    def _send(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _redirect(self, status: int, location: str) -> None:
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _hang(self) -> None:
        # Headers and the start of a page, then nothing: the load event never fires.
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b"<!doctype html><html><body><p>Loading forever")
        self.wfile.flush()
        self.server.release.wait(timeout=120)


class FixtureHttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.release = threading.Event()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def stop(self) -> None:
        self.release.set()
        self.shutdown()
        self.server_close()


_server: FixtureHttpServer | None = None
_lock = threading.Lock()


def get_server() -> FixtureHttpServer:
    global _server
    with _lock:
        if _server is None:
            _server = FixtureHttpServer()
            threading.Thread(target=_server.serve_forever, name="fixture-server", daemon=True).start()
        return _server


def stop_server() -> None:
    """Stop the shared server if a test started it (the suite's conftest calls this at the end)."""
    global _server
    with _lock:
        if _server is not None:
            _server.stop()
            _server = None


# Test modules import these two (pytest finds fixtures in a module's namespace); the functions are named
# apart from the fixture names so that importing them does not shadow the test parameters.
@pytest.fixture(scope="session", name="fixture_server")
def fixture_server_fixture() -> FixtureHttpServer:
    return get_server()


@pytest.fixture(autouse=True, name="egress_allows_fixtures")
def egress_allows_fixtures_fixture(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every browser test may reach the fixture server, and only it (and only loopback)."""
    monkeypatch.setenv("WEBCAPTURE_EGRESS_ALLOW", EGRESS_ALLOW)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()
