"""A whole site on loopback for the map and crawl tests, served by the tests themselves.

`SampleSite(name)` describes it; `SiteServer(routes)` serves any route table on SITE_ADDRESS port 80 (the
default port, so `http://host:80/` is a spelling of the same page). The sample site:

- 500 pages over 6 levels (depth 0..5 from `/`): `/` and `/l<level>/p<n>.html`, each page linking to its
  children; level sizes 1, 4, 16, 64, 160, 255.
- robots.txt: `Disallow: /private/`, `Crawl-delay: 1`, `Sitemap:` lines naming the sitemap index, a
  sitemap on an internal address and one that redirects to it.
- `/sitemaps/index.xml` (an index) -> `/sitemaps/pages-1.xml` (plain) and `/sitemaps/pages-2.xml.gz`
  (gzip); together they list the pages of levels 0..4 (245 URLs) and `/about.html`.
- `/private/` (disallowed) linking to `/private/secret.html`.
- `/calendar/2026/01` and on: a calendar trap, each month linking to the next, endlessly.
- The home page links to one page under several spellings (fragment, parameter order, the default port,
  the host's case), to `/moved` (a redirect off site) and to the internal canary.

Every request is recorded in `server.hits` (path), so a test can tell what was fetched.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.support import port80_lock

SITE_ADDRESS = "127.0.8.2"  # the site; allowed by the tests' egress allow-list
OTHER_ADDRESS = "127.0.8.3"  # where the off-site redirect points ("elsewhere")
BOMB_ADDRESS = "127.0.8.4"  # a site whose sitemap is a bomb
LEVEL_SIZES = (1, 4, 16, 64, 160, 255)
SITEMAP_LEVELS = 5  # the sitemaps list levels 0..4


@dataclass(frozen=True)
class Route:
    status: int = 200
    body: bytes | Callable[[], Iterable[bytes]] = b""
    headers: tuple[tuple[str, str], ...] = (("Content-Type", "text/html; charset=utf-8"),)


def _html(title: str, links: Iterable[tuple[str, str]], extra: str = "") -> Route:
    anchors = "".join(f'<li><a href="{href}">{text}</a></li>' for href, text in links)
    page = (f"<!doctype html><html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
            f"<p>Text of {title}.</p><ul>{anchors}</ul>{extra}</main></body></html>")
    return Route(body=page.encode())


def _xml(body: str, gzipped: bool = False) -> Route:
    data = body.encode()
    if gzipped:
        return Route(body=gzip.compress(data), headers=(("Content-Type", "application/gzip"),))
    return Route(body=data, headers=(("Content-Type", "application/xml"),))


def urlset(urls: Iterable[str]) -> str:
    entries = "".join(f"<url><loc>{url}</loc><changefreq>daily</changefreq></url>" for url in urls)
    return ('<?xml version="1.0" encoding="UTF-8"?>'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>')


def sitemap_index(urls: Iterable[str]) -> str:
    entries = "".join(f"<sitemap><loc>{url}</loc></sitemap>" for url in urls)
    return ('<?xml version="1.0" encoding="UTF-8"?>'
            f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</sitemapindex>')


@dataclass
class SampleSite:
    """The sample site as seen at `http://<name>` (a name the test resolver maps to SITE_ADDRESS, or the
    address itself); `canary` is the internal service's `host:port`."""

    name: str = SITE_ADDRESS
    canary: str = "127.0.0.1:9"
    # Pages per level, depth 0 first: the 500-page site unless a test needs fewer.
    level_sizes: tuple[int, ...] = LEVEL_SIZES
    pages: list[tuple[str, int]] = field(default_factory=list)  # (path, depth) of the 500 pages
    children: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        levels: list[list[str]] = []
        for level, size in enumerate(self.level_sizes):
            levels.append(["/"] if level == 0 else [f"/l{level}/p{n}.html" for n in range(size)])
        for level, paths in enumerate(levels):
            self.pages += [(path, level) for path in paths]
            for path in paths:
                self.children[path] = []
            if level:
                parents = levels[level - 1]
                for index, path in enumerate(paths):
                    self.children[parents[index % len(parents)]].append(path)

    @property
    def origin(self) -> str:
        return f"http://{self.name}"

    def url(self, path: str) -> str:
        return self.origin + path

    def sitemap_paths(self) -> list[str]:
        return [path for path, depth in self.pages if depth < SITEMAP_LEVELS] + ["/about.html"]

    def home_links(self) -> list[tuple[str, str]]:
        """The home page's links as written (href, text)."""
        spelled = "/l1/p1.html"
        return [
            *[(path, f"Section {path}") for path in self.children["/"]],
            ("/about.html", "About"),
            ("/private/", "Members"),
            ("/calendar/2026/01", "Calendar"),
            (spelled + "#top", "Fragment spelling"),
            (f"http://{self.name.upper()}{spelled}", "Host case spelling"),
            (f"http://{self.name}:80{spelled}", "Default port spelling"),
            ("/l1/p2.html?b=2&a=1", "Parameters one way"),
            ("/l1/p2.html?a=1&b=2", "Parameters the other way"),
            ("/moved", "Moved"),
            (f"http://{self.canary}/secret", "Internal service"),
            ("mailto:someone@example.com", "Mail"),
        ]

    def home_link_paths_in_scope(self, *, ignore_query: bool) -> list[str]:
        """The canonical paths the home page's links name on this site (the spellings collapse)."""
        paths = [*self.children["/"], "/about.html", "/private/", "/calendar/2026/01", "/l1/p1.html"]
        paths += ["/l1/p2.html"] if ignore_query else ["/l1/p2.html?a=1&b=2"]
        return [*paths, "/moved"]

    def routes(self) -> dict[str, Route]:
        origin = self.origin
        routes: dict[str, Route] = {}
        for path, depth in self.pages:
            links = [(child, f"Page {child}") for child in self.children[path]]
            if path == "/":
                routes[path] = _html("Home", self.home_links())
            else:
                routes[path] = _html(f"Page {path} at depth {depth}", links)
        routes["/about.html"] = _html("About", [("/", "Home")])
        routes["/private/"] = _html("Members", [("/private/secret.html", "Secret")])
        routes["/private/secret.html"] = _html("Secret", [])
        routes["/moved"] = Route(302, headers=(("Location", f"http://{OTHER_ADDRESS}/landing"),))
        routes["/robots.txt"] = Route(body=(
            "User-agent: *\nDisallow: /private/\nCrawl-delay: 1\n\n"
            f"Sitemap: {origin}/sitemaps/index.xml\n"
            f"Sitemap: http://{self.canary}/sitemap.xml\n"
            f"Sitemap: {origin}/sitemaps/to-internal.xml\n").encode(),
            headers=(("Content-Type", "text/plain"),))
        paths = self.sitemap_paths()
        half = len(paths) // 2
        routes["/sitemaps/index.xml"] = _xml(sitemap_index(
            [f"{origin}/sitemaps/pages-1.xml", f"{origin}/sitemaps/pages-2.xml.gz"]))
        routes["/sitemaps/pages-1.xml"] = _xml(urlset(origin + path for path in paths[:half]))
        routes["/sitemaps/pages-2.xml.gz"] = _xml(urlset(origin + path for path in paths[half:]), gzipped=True)
        routes["/sitemaps/to-internal.xml"] = Route(302, headers=(
            ("Location", f"http://{self.canary}/sitemap.xml"),))
        return routes


class _SiteHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _SiteHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        with self.server.lock:
            self.server.hits.append(self.path)
        route = self.server.routes.get(path) or _calendar(path) or Route(404, b"not here")
        self.send_response(route.status)
        for name, value in route.headers:
            self.send_header(name, value)
        if callable(route.body):
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for piece in route.body():
                    self.wfile.write(piece)
            except OSError:
                pass  # the reader stopped at its limit
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(route.body)))
        self.end_headers()
        self.wfile.write(route.body)


def _calendar(path: str) -> Route | None:
    """`/calendar/<year>/<month>`: every month links to the next, without end."""
    parts = path.strip("/").split("/")
    if len(parts) != 3 or parts[0] != "calendar" or not (parts[1].isdigit() and parts[2].isdigit()):
        return None
    year, month = int(parts[1]), int(parts[2])
    year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return _html(f"Calendar {parts[1]}-{parts[2]}", [(f"/calendar/{year}/{month:02d}", "Next month")])


class _SiteHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], routes: dict[str, Route]) -> None:
        self.lock = threading.Lock()
        self.hits: list[str] = []
        self.routes = routes
        super().__init__(address, _SiteHandler)


class SiteServer:
    """Serves a route table on `address`:80 until stopped."""

    def __init__(self, routes: dict[str, Route], address: str = SITE_ADDRESS, port: int = 80) -> None:
        self._takes_turns = port == 80
        if self._takes_turns:
            port80_lock.take()
        try:
            self.server = _SiteHTTPServer((address, port), routes)
        except BaseException:
            self._give_back_turn()
            raise
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()

    @property
    def hits(self) -> list[str]:
        with self.server.lock:
            return list(self.server.hits)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)
        self._give_back_turn()

    def _give_back_turn(self) -> None:
        if self._takes_turns:
            self._takes_turns = False
            port80_lock.give_back()


def gzip_bomb(inflated_mb: int = 1024) -> Callable[[], Iterable[bytes]]:
    """A sitemap that inflates to `inflated_mb` MB of valid-looking XML (one URL over and over), sent as
    gzip members: one opening `<urlset>`, then the same 1 MB member again and again (about 3 KB each). The
    URL is long (1 KB), so the byte limit is what stops it, not the count of elements."""
    head = gzip.compress(b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')
    entry = b"<url><loc>http://bomb.test/same-page-" + b"x" * 1000 + b"</loc></url>"
    member = gzip.compress(entry * (2**20 // len(entry)), compresslevel=9)

    def pieces() -> Iterable[bytes]:
        yield head
        for _ in range(inflated_mb):
            yield member

    return pieces


BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10 if n > 1 else "&lol;" * 10}">' for n in range(1, 10))
    + ']><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://bomb.test/&lol9;</loc>'
    "</url></urlset>"
).encode()


def nested_bomb(children: int = 4_194_304) -> bytes:
    """One `<url>` whose `<loc>` is followed by millions of empty children (16 MB inflated), gzipped: the
    entry never ends, so a reader that frees finished entries only holds it all."""
    head = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://bomb.test/</loc>'
    return gzip.compress(head + b"<a/>" * children + b"</url></urlset>", compresslevel=9)


def bomb_routes(kind: str) -> dict[str, Route]:
    """A site whose only sitemap is a bomb: `gzip` (1 GB inflated), `laughs`, or `nested` (/nest.xml.gz,
    named by robots.txt, one entry of four million children)."""
    home = _html("Bombed", [("/a.html", "A")])
    if kind == "nested":
        return {"/": home, "/robots.txt": Route(body=f"Sitemap: http://{BOMB_ADDRESS}/nest.xml.gz\n".encode(),
                                                                headers=(("Content-Type", "text/plain"),)),
                "/nest.xml.gz": Route(body=nested_bomb(), headers=(("Content-Type", "application/gzip"),))}
    if kind == "gzip":
        sitemap = Route(body=gzip_bomb(), headers=(("Content-Type", "application/gzip"),))
    else:
        sitemap = Route(body=BILLION_LAUGHS, headers=(("Content-Type", "application/xml"),))
    return {"/": home, "/sitemap.xml": sitemap}
