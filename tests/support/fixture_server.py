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
    /article/<id>       a real article page of the vendored main-content benchmark, as its site served it
    /repro/<name>       a page of tests/support/pages/repro (its README says what each reproduces)

    AD_PATHS            the ad scripts and frames pages/ads.html loads by their real paths (served under any
                        host name the test resolver points here), each after `ad_delay_s`

Pages may say {{PORT}} where they need the server's port (links to other host names resolved here).
Every request is recorded in `hits` as (Host header, path), so a test can tell what reached the server.

Page control (docs/api.md#page-control) routes; every request's path and query is recorded in
`server.requested`:
    /pixel.gif?name=N   a 1x1 gif            /hang-image   an image that never finishes
    /asset/<name>       site.css, app.js, injected.css (body background rgb(1, 2, 3)), injected.js
    /media/<name>       a gif                /slow?ms=M    text "arrived" after M ms
    /echo               a page whose <pre id="echo"> holds the request's headers as JSON (cookies included)
    /basic-auth         401 with a Basic challenge unless the credentials are alice:secret
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from webcapture.settings import get_settings

PAGES = Path(__file__).parent / "pages"
REPRO = PAGES / "repro"
ARTICLES = Path(__file__).parents[2] / "benchmarks" / "main-content" / "html"
# Loopback is refused by the egress policy except where the tests allow it, for their own server only.
EGRESS_ALLOW = "127.0.0.0/8,::1/128"


# Stand-ins for Google's ad tags at their real paths: they fill the slots as the real ones would, so a
# capture without blocking shows ads, and each costs `ad_delay_s` on the wire like a slow ad server.
_ADSBYGOOGLE_JS = """(function () {
  // Like the real tag: each adsbygoogle.push({}) (queued before the script ran, or made after) fills the
  // next unfilled ins.adsbygoogle with an ad frame from the ad server.
  window.__adsbygoogleLoaded = true;
  var port = new URL(document.currentScript.src).port;
  function fill() {
    document.querySelectorAll('ins.adsbygoogle:not([data-adsbygoogle-status])').forEach(function (slot) {
      slot.setAttribute('data-adsbygoogle-status', 'done');
      var frame = document.createElement('iframe');
      frame.width = '728'; frame.height = '90'; frame.style.border = '0';
      frame.src = 'http://googleads.g.doubleclick.net:' + port + '/pagead/ads?client=' +
        slot.getAttribute('data-ad-client') + '&slotname=' + slot.getAttribute('data-ad-slot');
      slot.appendChild(frame);
    });
  }
  var queued = window.adsbygoogle || [];
  window.adsbygoogle = {loaded: true, push: fill};
  if (queued.length) fill();
  document.addEventListener('DOMContentLoaded', fill);
})();
"""
_GPT_JS = """(function () {
  window.googletag = window.googletag || {cmd: []};
  window.__gptLoaded = true;
  var slots = [];
  googletag.defineSlot = function (path, size, id) { var s = {id: id}; slots.push(s);
    s.addService = function () { return s; }; return s; };
  googletag.pubads = function () { return {enableSingleRequest: function () {}}; };
  googletag.enableServices = function () {};
  googletag.display = function (id) {
    var el = document.getElementById(id);
    if (el) { el.style.background = 'rgb(255, 0, 0)'; el.textContent = 'Advertisement'; }
  };
  var queue = googletag.cmd; googletag.cmd = {push: function (f) { f(); }};
  queue.forEach(function (f) { f(); });
})();
"""
_AD_FRAME = "<!doctype html><body style='margin:0;background:rgb(255,0,0)'>Ad</body>"
AD_PATHS = {
    "/pagead/js/adsbygoogle.js": ("application/javascript", _ADSBYGOOGLE_JS),
    "/tag/js/gpt.js": ("application/javascript", _GPT_JS),
    "/pagead/ads": ("text/html; charset=utf-8", _AD_FRAME),
}
# Not an ad: a third-party script the lists leave alone (pages/ads.html loads it from cdn.news.test).
STATIC_PATHS = {"/static/app.js": ("application/javascript", "window.__appLoaded = true;")}


def many_links_html(count: int) -> str:
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Many links</title></head><body>"]
    for i in range(count):
        if i % 10 == 9:
            parts.append(f"<a href='https://ext{i}.example/'>External {i}</a>\n")
        else:
            parts.append(f"<a href='/p/{i}'>Link {i}</a>\n")
    parts.append("</body></html>")
    return "".join(parts)


GIF = bytes.fromhex("47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b")
ASSETS = {
    "site.css": ("text/css", "h1 { color: rgb(10, 20, 30); }"),
    "app.js": ("text/javascript", "window.appLoaded = true;"),
    "injected.css": ("text/css", "body { background: rgb(1, 2, 3) !important; }"),
    "injected.js": ("text/javascript", "document.title = 'injected by url';"),
}
BASIC_AUTH = "Basic " + base64.b64encode(b"alice:secret").decode()


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
        self.server.requested.append(self.path)
        with self.server.lock:
            self.server.hits.append((self.headers.get("Host", ""), path))
        if self._page_control_route(path, parse_qs(parts.query)):
            return
        if path in AD_PATHS:
            time.sleep(self.server.ad_delay_s)
            self._send(200, AD_PATHS[path][1], AD_PATHS[path][0], cors=True)  # as Google's servers do
        elif path in STATIC_PATHS:
            self._send(200, STATIC_PATHS[path][1], STATIC_PATHS[path][0])
        elif path == "/many-links":
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
        elif path.startswith("/article/") and (article := ARTICLES / f"{path[9:]}.html.gz").is_file():
            self._send_bytes(200, gzip.decompress(article.read_bytes()), "text/html; charset=utf-8")
        elif path.startswith("/repro/") and (repro := REPRO / f"{path[7:]}.html.gz").is_file():
            self._send_bytes(200, gzip.decompress(repro.read_bytes()), "text/html; charset=utf-8")
        elif (page := PAGES / path.lstrip("/")).is_file() and page.parent == PAGES:
            self._send(200, page.read_text(encoding="utf-8").replace("{{PORT}}", str(self.server.port)))
        else:
            self._send(404, error_page("No such fixture", "white"))

    def _page_control_route(self, path: str, query: dict[str, list[str]]) -> bool:
        if path == "/pixel.gif" or path.startswith("/media/"):
            self._send_bytes(200, GIF, "image/gif")
        elif path == "/hang-image":
            self.send_response(200)
            self.send_header("Content-Type", "image/gif")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(GIF[:10])
            self.wfile.flush()
            self.server.release.wait(timeout=120)
        elif path.startswith("/asset/") and path.removeprefix("/asset/") in ASSETS:
            kind, text = ASSETS[path.removeprefix("/asset/")]
            self._send_bytes(200, text.encode(), kind)
        elif path == "/slow":
            time.sleep(int(query.get("ms", ["500"])[0]) / 1000)
            self._send_bytes(200, b"arrived", "text/plain")
        elif path == "/echo":
            headers = json.dumps({name.lower(): value for name, value in self.headers.items()})
            self._send(200, f"<!doctype html><title>Echo</title><pre id='echo'>{html.escape(headers)}</pre>")
        elif path == "/basic-auth":
            if self.headers.get("Authorization") == BASIC_AUTH:
                self.server.signed_in.append(self.headers.get("Host", ""))
                # ?frame=1: the page frames the same resource on another origin (localhost), which must
                # not be answered with the target's credentials.
                frame = f"<iframe src='http://localhost:{self.server.port}/basic-auth'></iframe>"
                extra = frame if "frame" in query else ""
                self._send(200, f"<!doctype html><title>Signed in</title><h1 id='who'>alice</h1>{extra}")
            else:
                data = b"<!doctype html><title>Sign in</title><h1>401</h1>"
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="fixtures"')
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
        else:
            return False
        return True

    def _send_bytes(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send(
        self, status: int, body: str, content_type: str = "text/html; charset=utf-8", *, cors: bool = False,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if cors:
            self.send_header("Access-Control-Allow-Origin", "*")
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
        self.requested: list[str] = []  # every request's path and query, in order
        self.signed_in: list[str] = []  # the Host of every /basic-auth request with the right credentials
        self.lock = threading.Lock()
        self.hits: list[tuple[str, str]] = []  # (Host header, path) of every request
        self.ad_delay_s = 0.0

    def hits_for(self, host: str) -> list[str]:
        """Paths requested under this host name (any port)."""
        with self.lock:
            return [path for hit_host, path in self.hits if hit_host.rsplit(":", 1)[0] == host]

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
# get_server and stop_server may be called from any thread: tests start servers and clients of their own.
_lock = threading.Lock()


def _serving(server: FixtureHttpServer) -> FixtureHttpServer:
    threading.Thread(target=server.serve_forever, name="fixture-server", daemon=True).start()
    return server


def get_server() -> FixtureHttpServer:
    """The suite's one fixture server, started on first use by any test."""
    global _server
    with _lock:
        _server = _server or _serving(FixtureHttpServer())
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
