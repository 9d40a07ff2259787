"""The pages a menu script lists, for map (docs/crawl-and-map.md#a-menu-built-by-script).

Map reads pages over HTTP and runs no script, so a menu a script builds (Doxygen's `menudata.js`, which
fills every page's empty `#main-nav` with the project's class, file and example lists) holds links map
never sees. Generators that build menus this way ship them as data: the page addresses are string
literals in the site's own scripts. So for a page with such a navigation
(fastpath.render_decision.navigation_scripts), map reads each of its scripts from the page's own origin
once, and lists the literals that are relative addresses of pages (`.html`, `.htm`), resolved against the
page as the menu's script resolves them. A literal that names no page is a URL map lists and a crawl
would find missing; nothing else is read from scripts, and other origins' scripts are never fetched.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urljoin, urlsplit

from webcapture.egress.fetch import FetchFailed, FetchRefused, get
from webcapture.errors import NavigationTimeout
from webcapture.fastpath.decoding import ACCEPT_ENCODING, BrokenCoding, DecodedBody, UnknownCoding
from webcapture.site.robots import USER_AGENT

MAX_SCRIPT_BYTES: Final = 1024 * 1024
MAX_SCRIPTS: Final = 8  # of one page: a menu's data and its code, a library or two
# A quoted relative address of a page: a path of plain characters ending in .html or .htm, an optional
# fragment; no scheme, no spaces, no template marks.
_PAGE_LITERAL = re.compile(r"""["']((?:/|(?:\.{1,2}/)*)[\w\-]+(?:/[\w\-.]+)*\.html?(?:#[\w\-.:]*)?)["']""")


def page_literals(source: str, page_url: str) -> list[str]:
    """The page addresses a script's string literals hold, resolved against `page_url`, in order, once."""
    found = dict.fromkeys(urljoin(page_url, literal) for literal in _PAGE_LITERAL.findall(source))
    return list(found)


def menu_links(scripts: list[str], page_url: str, deadline: float) -> list[tuple[str, str]]:
    """The page addresses listed by the scripts of `page_url` served from its origin (text left empty)."""
    origin = urlsplit(page_url)[:2]
    links: dict[str, None] = {}
    for script in [url for url in scripts if urlsplit(url)[:2] == origin][:MAX_SCRIPTS]:
        source = _read(script, deadline)
        if source is not None:
            links.update(dict.fromkeys(page_literals(source, page_url)))
    return [(link, "") for link in links]


def _read(url: str, deadline: float) -> str | None:
    try:
        with get(url, deadline=deadline, headers={"User-Agent": USER_AGENT, "Accept": "*/*",
                                                  "Accept-Encoding": ACCEPT_ENCODING}) as response:
            if response.status >= 400 or "html" in response.header("Content-Type").lower():
                return None
            body = DecodedBody(response.chunks(MAX_SCRIPT_BYTES), response.header("Content-Encoding"),
                               MAX_SCRIPT_BYTES)
            return b"".join(body).decode("utf-8", errors="replace")
    except (FetchFailed, FetchRefused, NavigationTimeout, UnknownCoding, BrokenCoding):
        return None
