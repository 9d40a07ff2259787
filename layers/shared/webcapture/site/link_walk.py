"""Map without a sitemap (docs/crawl-and-map.md#map-without-a-sitemap): when the sitemaps and the start page
give fewer URLs than `limit`, the site's pages are fetched over HTTP (the fast path: no browser) and their
links followed, breadth first, in scope, robots.txt honoured, until `limit` URLs are listed, the walk's
time (about 20 s) is spent, or no page is left to read.

A few pages are fetched at once (the host is asked for at most WALK_CONCURRENCY at a time); each is read
up to MAX_PAGE_BYTES, only when it answers HTML, and only its links are kept, with those of its menu when a
script builds it (site.script_menus: each such menu's scripts read once).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Final

from webcapture.content.page_links import page_links
from webcapture.egress.fetch import FetchFailed, FetchRefused, get
from webcapture.errors import NavigationTimeout
from webcapture.fastpath.decoding import (
    ACCEPT_ENCODING,
    BrokenCoding,
    DecodedBody,
    UnknownCoding,
    decode_html,
)
from webcapture.fastpath.render_decision import navigation_scripts
from webcapture.site.robots import USER_AGENT
from webcapture.site.script_menus import menu_links

WALK_BUDGET_S: Final = 20.0
WALK_CONCURRENCY: Final = 4
MAX_PAGE_BYTES: Final = 5 * 1024 * 1024
# Paths that are not pages: never fetched to look for links (they are still listed when linked).
_NOT_PAGES: Final = (".pdf", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico", ".css", ".js",
                     ".zip", ".gz", ".tgz", ".bz2", ".xz", ".mp3", ".mp4", ".webm", ".woff", ".woff2",
                     ".ttf", ".txt", ".xml", ".json", ".epub", ".tar")
_HTML_ACCEPT: Final = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"


@dataclass
class Walk:
    """What the walk needs from the map's gathering: whether a URL is in scope (canonical or None), how to
    list a found link (True when it was new), whether the map is full, whether robots.txt lets us fetch."""

    canonical_in_scope: Callable[[str], str | None]
    add: Callable[[str, str], bool]
    full: Callable[[], bool]
    allowed: Callable[[str], bool]
    deadline: float
    pages_read: int = 0
    seen: set[str] = field(default_factory=set)
    menus_read: set[tuple[str, ...]] = field(default_factory=set)  # the scripts of each menu read
    lock: threading.Lock = field(default_factory=threading.Lock)

    def first_to_read(self, scripts: list[str]) -> bool:
        """Whether these scripts' menu is not read yet (and from now on is): a worker thread's question."""
        menu = tuple(scripts)
        with self.lock:
            if menu in self.menus_read:
                return False
            self.menus_read.add(menu)
            return True


def _links_of(url: str, walk: Walk) -> list[tuple[str, str]]:
    """The links of one page (and of its menu, when a script builds it and no page read it yet), or none
    when it is not an HTML page that could be read."""
    deadline = walk.deadline
    try:
        with get(url, deadline=deadline, headers={"User-Agent": USER_AGENT, "Accept": _HTML_ACCEPT,
                                                  "Accept-Encoding": ACCEPT_ENCODING}) as response:
            content_type = response.header("Content-Type")
            if response.status >= 400 or ("html" not in content_type.lower() and content_type):
                return []
            body = DecodedBody(response.chunks(MAX_PAGE_BYTES), response.header("Content-Encoding"),
                               MAX_PAGE_BYTES)
            data = b"".join(body)
            final_url = response.url
    except (FetchFailed, FetchRefused, NavigationTimeout, UnknownCoding, BrokenCoding):
        return []
    html = decode_html(data, content_type)
    links = page_links(html, final_url).links
    scripts = navigation_scripts(html, final_url)
    if scripts and walk.first_to_read(scripts):
        links += menu_links(scripts, final_url, deadline)
    return links


def _worth_reading(canonical: str) -> bool:
    path = canonical.split("?", 1)[0].lower()
    return not path.endswith(_NOT_PAGES)


def walk_links(walk: Walk, start_pages: Iterable[str]) -> None:
    """Read pages from `start_pages` on, listing every in-scope link each holds, until the map is full or
    the walk's time is spent."""
    queue: deque[str] = deque()
    for url in start_pages:
        canonical = walk.canonical_in_scope(url)
        if canonical is not None and canonical not in walk.seen:
            walk.seen.add(canonical)
            queue.append(canonical)
    with ThreadPoolExecutor(WALK_CONCURRENCY, thread_name_prefix="map-walk") as pool:
        while queue and not walk.full() and time.monotonic() < walk.deadline:
            batch: list[str] = []
            while queue and len(batch) < WALK_CONCURRENCY * 2:
                url = queue.popleft()
                if _worth_reading(url) and walk.allowed(url):
                    batch.append(url)
            for links in pool.map(lambda url: _links_of(url, walk), batch):
                walk.pages_read += 1
                for link, text in links:
                    canonical = walk.canonical_in_scope(link)
                    if canonical is None:
                        continue
                    walk.add(link, text)
                    if canonical not in walk.seen:
                        walk.seen.add(canonical)
                        queue.append(canonical)
                if walk.full():
                    return
