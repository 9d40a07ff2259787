"""POST /v1/web/map's gathering (docs/crawl-and-map.md#crawl-and-map): a site's URLs from its sitemaps and its
start page.

Sources, in the order the answer lists them: the start URL itself, the URLs of the sitemaps (those named
by robots.txt `Sitemap:` lines, then `/sitemap.xml`; indexes followed, gzip read), then the links of the
start page; when these give fewer than `limit`, the links of the site's pages, followed over HTTP
(site.link_walk). Each URL is canonicalised, kept when in scope and matching `search`, and listed once (the
first time it is met; a start-page link's text becomes the title of a URL the sitemap listed bare).

Everything is fetched over HTTP through the egress guard, nothing with the browser. Every read is bounded:
bytes on the wire and once inflated (a gzip bomb is read up to the limit and the answer says so), the
number of sitemap documents and how deep indexes nest, and the request's deadline; a limit reached gives
the URLs found so far with a warning, never a failure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Final, Literal

from webcapture.content.page_links import page_links
from webcapture.egress.fetch import FetchFailed, FetchRefused, get
from webcapture.errors import NavigationFailed, NavigationTimeout, UrlNotAllowed
from webcapture.fastpath.render_decision import navigation_scripts
from webcapture.site.bounded_body import BoundedBody
from webcapture.site.canonical_urls import canonical_url, canonical_urls, origin_of
from webcapture.site.link_walk import WALK_BUDGET_S, Walk, walk_links
from webcapture.site.robots import USER_AGENT, RobotsRules, fetch_robots
from webcapture.site.scope import Scope
from webcapture.site.script_menus import menu_links
from webcapture.site.sitemaps import MAX_ELEMENTS, SitemapRefused, read_sitemap

SitemapMode = Literal["include", "skip", "only"]

# sitemaps.org: a sitemap holds at most 50,000 URLs and 50 MB uncompressed; an index at most 50,000 sitemaps.
MAX_SITEMAP_BYTES: Final = 50 * 1024 * 1024
# On the wire: a gzip sitemap of 50 MB is a few MB; a bigger download is not a sitemap.
MAX_SITEMAP_WIRE_BYTES: Final = 20 * 1024 * 1024
MAX_SITEMAP_DOCUMENTS: Final = 100
MAX_INDEX_NESTING: Final = 3
MAX_PAGE_BYTES: Final = 5 * 1024 * 1024
# Kept for sorting and answering after the gathering stops.
ANSWER_RESERVE_S: Final = 1.0
_HTML_ACCEPT: Final = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
_XML_ACCEPT: Final = "application/xml,text/xml;q=0.9,*/*;q=0.5"


@dataclass(frozen=True)
class MapOptions:
    limit: int = 1000
    search: str | None = None
    sitemap: SitemapMode = "include"
    include_subdomains: bool = False
    ignore_query_parameters: bool = True


@dataclass
class MapResult:
    links: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    start_status: int | None = None
    # How many of the URLs came from sitemaps, and how many from links (the start page's and the walk's).
    sources: dict[str, int] = field(default_factory=dict)
    pages_walked: int = 0


@dataclass
class _Gathering:
    options: MapOptions
    scope: Scope
    deadline: float
    found: dict[str, str] = field(default_factory=dict)  # canonical URL -> title ("" when none)
    warnings: list[str] = field(default_factory=list)
    sitemap_count: int = 0
    from_sitemaps: int = 0
    reached: bool = False  # at least one source answered
    robots: RobotsRules | None = None
    # The start URL's origin and "/": a URL that starts with it is on the site's own host (nearly every
    # sitemap URL), which the scope would only confirm. Empty when a search must look at every URL.
    own_origin: str = ""
    start_menu: tuple[str, ...] = ()  # the scripts of the start page's menu, when a script builds it

    def canonical(self, url: str) -> str | None:
        return canonical_url(url, drop_query=self.options.ignore_query_parameters)

    def matches(self, canonical: str, title: str) -> bool:
        search = self.options.search
        if search and search.lower() not in canonical.lower() and search.lower() not in title.lower():
            return False
        return self.scope.allows(canonical)

    def add(self, url: str, title: str = "") -> bool:
        """List `url` when new and wanted; True when it was added (called for every sitemap URL)."""
        canonical = canonical_url(url, drop_query=self.options.ignore_query_parameters)
        if canonical is None:
            return False
        found = self.found
        if canonical in found:
            if title and not found[canonical]:
                found[canonical] = title
            return False
        if len(found) >= self.options.limit:
            return False
        own = self.own_origin
        if not (own and canonical.startswith(own)) and not self.matches(canonical, title):
            return False
        found[canonical] = title
        return True

    def add_sitemap_urls(self, urls: list[str]) -> list[str]:
        """add() of each (no titles), canonicalised as one batch; the ones added, in order."""
        added: list[str] = []
        found, limit, own = self.found, self.options.limit, self.own_origin
        canonicals = canonical_urls(urls, drop_query=self.options.ignore_query_parameters)
        for url, canonical in zip(urls, canonicals, strict=True):
            if canonical is None or canonical in found:
                continue
            if len(found) >= limit:
                break
            if not (own and canonical.startswith(own)) and not self.matches(canonical, ""):
                continue
            found[canonical] = ""
            added.append(url)
        self.from_sitemaps += len(added)
        return added

    @property
    def full(self) -> bool:
        return len(self.found) >= self.options.limit

    def time_left(self) -> bool:
        return time.monotonic() < self.deadline


def _warn_once(warnings: list[str], text: str) -> None:
    if text not in warnings:
        warnings.append(text)


def _read_sitemap(gathering: _Gathering, url: str) -> list[str]:
    """Add a sitemap's page URLs; the sitemaps an index lists, to read next."""
    gathering.sitemap_count += 1
    with get(url, deadline=gathering.deadline,
             headers={"User-Agent": USER_AGENT, "Accept": _XML_ACCEPT}) as response:
        if response.status != 200:
            return []
        gathering.reached = True
        body = BoundedBody(response.chunks(MAX_SITEMAP_WIRE_BYTES), MAX_SITEMAP_BYTES, gathering.deadline)
        room = max(gathering.options.limit - len(gathering.found), 0)
        document = read_sitemap(body, max_urls=max(room, 1), select=gathering.add_sitemap_urls)
    if body.cut:
        _warn_once(gathering.warnings, f"The sitemap {url} is larger than {MAX_SITEMAP_BYTES // 2**20} MB "
                                       "once inflated; it was read up to there")
    if body.timed_out:
        _warn_once(gathering.warnings, f"The time limit was reached while reading the sitemap {url}; the "
                                       "URLs found so far are listed")
    if body.broken:
        _warn_once(gathering.warnings, f"The sitemap {url} is not valid gzip; it was read up to the break")
    if document.too_many_elements:
        _warn_once(gathering.warnings, f"The sitemap {url} has more than {MAX_ELEMENTS:,} XML elements; it "
                                       "was read up to there")
    elif document.broken is not None and not (body.cut or body.timed_out or body.broken):
        # libxml2's own limits (a text node over 10 MB, elements nested past 256) end the document as any
        # other break does: what came before stands, and the answer says the sitemap was cut.
        _warn_once(gathering.warnings, f"The sitemap {url} stops being well-formed XML part way "
                                       f"({document.broken}); it was read up to there")
    return document.locations if document.is_index else []


def _gather_sitemaps(gathering: _Gathering, origin: str) -> None:
    robots = gathering.robots = fetch_robots(origin, gathering.deadline)
    queue: list[tuple[str, int]] = [(url, 0) for url in (*robots.sitemaps, origin + "/sitemap.xml")]
    seen: set[str] = set()
    while queue and not gathering.full:
        url, nesting = queue.pop(0)
        canonical = canonical_url(url)
        if canonical is None or canonical in seen:
            continue
        seen.add(canonical)
        if not gathering.time_left():
            _warn_once(gathering.warnings, "The time limit was reached before every sitemap was read; the "
                                           "URLs found so far are listed")
            return
        if gathering.sitemap_count >= MAX_SITEMAP_DOCUMENTS:
            _warn_once(gathering.warnings, f"Only the first {MAX_SITEMAP_DOCUMENTS} sitemaps were read")
            return
        try:
            children = _read_sitemap(gathering, url)
        except FetchRefused:
            _warn_once(gathering.warnings, f"The sitemap {url} is refused by the egress policy; not read")
            continue
        except SitemapRefused as refused:
            _warn_once(gathering.warnings, f"The sitemap {url} was not read: {refused}")
            continue
        except (FetchFailed, NavigationTimeout) as failed:
            _warn_once(gathering.warnings, f"The sitemap {url} could not be read completely ({failed})")
            continue
        if children and nesting + 1 > MAX_INDEX_NESTING:
            _warn_once(gathering.warnings, f"Sitemap indexes nest deeper than {MAX_INDEX_NESTING}; the "
                                           "deeper ones were not read")
            continue
        queue.extend((child, nesting + 1) for child in children)


def _charset(content_type: str) -> str:
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return "utf-8"


def _decode(body: bytes, charset: str) -> str:
    try:
        return body.decode(charset, errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


def _read_start_page(gathering: _Gathering, url: str) -> tuple[int, str, list[tuple[str, str]]]:
    """(status, title, links) of the start page; its own canonical URL is added by the caller."""
    with get(url, deadline=gathering.deadline,
             headers={"User-Agent": USER_AGENT, "Accept": _HTML_ACCEPT}) as response:
        gathering.reached = True
        content_type = response.header("Content-Type")
        body = BoundedBody(response.chunks(MAX_PAGE_BYTES), MAX_PAGE_BYTES, gathering.deadline)
        data = b"".join(body)
        final_url = response.url
        if final_url != url and not gathering.scope.allows(gathering.canonical(final_url) or ""):
            _warn_once(gathering.warnings, f"The start page redirected to {final_url}, outside the site; "
                                           "its links are not listed")
            return response.status, "", []
    if body.cut:
        _warn_once(gathering.warnings, f"The start page is larger than {MAX_PAGE_BYTES // 2**20} MB; only "
                                       "the links up to there are listed")
    if "html" not in content_type.lower() and content_type:
        return response.status, "", []
    html = _decode(data, _charset(content_type))
    found = page_links(html, final_url)
    scripts = navigation_scripts(html, final_url)
    if not scripts:
        return response.status, found.title, found.links
    gathering.start_menu = tuple(scripts)
    return response.status, found.title, found.links + menu_links(scripts, final_url, gathering.deadline)


def _walk(gathering: _Gathering, start: str, start_links: list[str]) -> int:
    """Follow the site's links over HTTP (site.link_walk) until the map is full or the walk's time is
    spent; the number of pages read."""
    if gathering.robots is None:
        gathering.robots = fetch_robots(origin_of(start), gathering.deadline)
    robots = gathering.robots

    def in_scope(url: str) -> str | None:
        canonical = gathering.canonical(url)
        return canonical if canonical is not None and gathering.scope.allows(canonical) else None

    walk = Walk(canonical_in_scope=in_scope, add=gathering.add, full=lambda: gathering.full,
                allowed=robots.allowed, deadline=min(gathering.deadline, time.monotonic() + WALK_BUDGET_S))
    walk.seen.add(start)
    if gathering.start_menu:
        walk.menus_read.add(gathering.start_menu)
    walk_links(walk, [*start_links, *list(gathering.found)])
    if not gathering.full and time.monotonic() >= walk.deadline:
        _warn_once(gathering.warnings, f"The time limit was reached while following the site's links "
                                       f"({walk.pages_read} pages read); the URLs found so far are listed")
    return walk.pages_read


def map_site(url: str, options: MapOptions, deadline: float) -> MapResult:
    """The site's URLs. UrlNotAllowed when the start page (or its redirect) is refused by the egress
    policy; NavigationFailed when no source could be reached at all."""
    start = canonical_url(url, drop_query=options.ignore_query_parameters)
    if start is None:
        raise UrlNotAllowed("The URL cannot be mapped: it is not an http(s) URL with a valid host, or it is "
                            "longer than 2,048 characters")
    scope = Scope.of(start, include_subdomains=options.include_subdomains)
    gathering = _Gathering(options, scope, deadline - ANSWER_RESERVE_S,
                           own_origin="" if options.search else origin_of(start) + "/")
    result = MapResult()
    page: tuple[int, str, list[tuple[str, str]]] | None = None
    failure: str | None = None
    if options.sitemap != "only":
        try:
            page = _read_start_page(gathering, url)
        except FetchRefused as refused:
            raise UrlNotAllowed(f"The start page, or where it redirects ({refused.url}), is refused by the "
                                "egress policy") from None
        except (FetchFailed, NavigationTimeout) as failed:
            failure = str(failed)
        if page is not None:
            result.start_status = page[0]
            if page[0] < 400:  # an error page is not a page of the site (its links may still be)
                gathering.add(start, page[1])
    if options.sitemap != "skip" and gathering.time_left():
        _gather_sitemaps(gathering, origin_of(start))
    if page is not None:
        for link, text in page[2]:
            gathering.add(link, text)
    if failure is not None:
        if not gathering.reached:
            raise NavigationFailed(f"The site could not be reached: {failure}")
        _warn_once(gathering.warnings, f"The start page could not be read ({failure}); its links are missing")
    if page is not None and not gathering.full and gathering.time_left():
        result.pages_walked = _walk(gathering, start, [link for link, _ in page[2]])
    result.sources = {"sitemaps": gathering.from_sitemaps,
                      "links": len(gathering.found) - gathering.from_sitemaps}
    result.links = [{"url": link, "title": title} if title else {"url": link}
                    for link, title in gathering.found.items()]
    result.warnings = gathering.warnings
    return result

