"""The site the crawl tests crawl, served on loopback by the tests themselves: the sample site
(tests/support/sample_site.py: 500 pages over 6 levels, a sitemap index with a gzip sitemap, a calendar trap
of endless next-month links, one page under several spellings, a redirect off site, a link to an internal
canary) with a robots.txt of its own.

robots.txt gives our product token its own group: `/private/` disallowed and no Crawl-delay, while the
`*` group asks for `Crawl-delay: 1`. A crawler reading the group for its own token (RFC 9309) loads the
500 pages as fast as `maxConcurrency` allows; one that fell back to `*` would take minutes (one page a
second). How a Crawl-delay paces a host is tested without waiting on it (tests/unit).

The off-site redirect's target is served too (OTHER_ADDRESS), so the redirect completes and is recorded as
skipped for leaving the site, not as a failed navigation.

A test that needs the site's shape but not its size asks for fewer pages per level (`level_sizes`); one that
needs many pages without a deep tree asks for `/many/` (`many`: a page linking to that many pages, linked
from nowhere else and listed in no sitemap, so a crawl of `/` never sees it).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from tests.support.sample_site import (
    LEVEL_SIZES,
    OTHER_ADDRESS,
    SITE_ADDRESS,
    Route,
    SampleSite,
    SiteServer,
    _html,
)

CALENDAR_MONTHS = 5  # the trap's months within the default maxDepth (5): 2026/01 at depth 1 .. 2026/05


def crawl_robots(site: SampleSite) -> Route:
    origin = site.origin
    return Route(body=(
        "User-agent: *\nDisallow: /private/\nCrawl-delay: 1\n\n"
        "User-agent: webcapture\nDisallow: /private/\n\n"
        f"Sitemap: {origin}/sitemaps/index.xml\n"
        f"Sitemap: http://{site.canary}/sitemap.xml\n"
        f"Sitemap: {origin}/sitemaps/to-internal.xml\n").encode(), headers=(("Content-Type", "text/plain"),))


@dataclass
class CrawlSite:
    """The crawl's site and the off-site redirect's target, served until `stop`."""

    canary: str  # host:port of the internal service
    level_sizes: tuple[int, ...] = LEVEL_SIZES
    many: int = 0  # pages under /many/
    # Each HTML page's body comes this much after its headers: a crawl that lasts, for tests that act
    # while it runs (a fetched crawl of 80 fast pages ends in about a second).
    page_delay_s: float = 0.0
    site: SampleSite = field(init=False)
    servers: list[SiteServer] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.site = SampleSite(SITE_ADDRESS, canary=self.canary, level_sizes=self.level_sizes)
        routes = self.site.routes()
        routes["/robots.txt"] = crawl_robots(self.site)
        if self.many:
            pages = [f"/many/p{n}.html" for n in range(self.many)]
            routes["/many/"] = _html("Many", [(path, f"Page {path}") for path in pages])
            routes.update({path: _html(f"Page {path}", []) for path in pages})
        if self.page_delay_s:
            routes = {path: _slowed(route, self.page_delay_s) if _is_html(route) else route
                      for path, route in routes.items()}
        self.main = SiteServer(routes)
        self.other = SiteServer({"/landing": _html("Elsewhere", [])}, address=OTHER_ADDRESS)
        self.servers = [self.main, self.other]

    def url(self, path: str) -> str:
        return self.site.url(path)

    def expected_pages(self) -> set[str]:
        """The canonical URLs a default crawl of `/` (maxDepth 5, sitemap include, query kept) records:
        the tree's pages (500 unless `level_sizes` says fewer), /about.html, the page under its query
        spelling, the trap's first months and the
        redirect off site (recorded as skipped). Not /private/ (robots.txt), not the canary (another
        host), not the calendar past depth 5."""
        paths = [path for path, _ in self.site.pages]
        paths += ["/about.html", "/l1/p2.html?a=1&b=2", "/moved"]
        paths += [f"/calendar/2026/{month:02d}" for month in range(1, CALENDAR_MONTHS + 1)]
        return {self.url(path) for path in paths}

    def stop(self) -> None:
        for server in self.servers:
            server.stop()


def _is_html(route: Route) -> bool:
    return any(name == "Content-Type" and value.startswith("text/html") for name, value in route.headers)


def _slowed(route: Route, delay_s: float) -> Route:
    """The route with its body sent `delay_s` after its headers."""
    body = route.body

    def pieces() -> Iterable[bytes]:
        time.sleep(delay_s)
        yield from (body() if callable(body) else [body])

    return replace(route, body=pieces)
