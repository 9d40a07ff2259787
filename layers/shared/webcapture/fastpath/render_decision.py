"""When `engine: auto` renders a fetched page in the browser instead of answering from its HTML
(docs/fast-path.md#when-auto-renders).

The page needs a browser when its HTML does not hold what a reader sees:
- an app root (`#root`, `#app`, `#__next`, ...) with little text around it: a script builds the page;
- a `<noscript>` asking for JavaScript on a page whose own text is thin;
- visible text much thinner than the markup: a shell of scripts with a few words;
- a redirect done by a script or a `<meta http-equiv=refresh>`: the page to answer is elsewhere;
- a bot wall (webcapture.content.bot_walls), which a browser may pass.
Fields only a browser honours (models.engines) decide before anything is fetched.

A crawl also needs the links a page's reader can follow. Where the site's menu is built by a script (an
empty navigation element the page's scripts fill: Doxygen's `#main-nav`), its HTML has the article but not
the menu: `script_built_navigation` names that navigation, and an `auto` crawl renders one page of each
(site.navigation_renders) and fetches the others.

Only regular expressions over the served HTML: a decision costs milliseconds on a large page, never a
parse. The thresholds were measured on real documentation sites and script-built fixtures
(tests/unit/test_render_decision.py, docs/fast-path.md#when-auto-renders).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from html import unescape
from typing import Final
from urllib.parse import urljoin

from webcapture.content.bot_walls import detect_wall, signals_from_html

APP_ROOT_IDS: Final = ("root", "app", "__next", "__nuxt", "___gatsby", "svelte", "q-app", "react-root",
                       "main-app", "application")
# Below this much visible text a page with an app root, or a <noscript> asking for scripts, is a shell.
THIN_TEXT_CHARS: Final = 400
NOSCRIPT_THIN_TEXT_CHARS: Final = 1500
# A page whose visible text is under this share of its scripts' bytes, and short, is built by them.
SCRIPT_TO_TEXT_RATIO: Final = 50
SCRIPT_HEAVY_TEXT_CHARS: Final = 3000
# Any page with less text than this and at least one script is a shell waiting for it.
EMPTY_TEXT_CHARS: Final = 40

_FLAGS: Final = re.IGNORECASE | re.DOTALL
_INVISIBLE = re.compile(r"<(script|style|noscript|template|svg|head)\b[^>]*>.*?</\1\s*>", _FLAGS)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", _FLAGS)
_NOSCRIPT = re.compile(r"<noscript\b[^>]*>(.*?)</noscript\s*>", _FLAGS)
_APP_ROOT = re.compile(r"<(?:div|main|section|body)\b[^>]*\bid\s*=\s*[\"']?(" +
                       "|".join(re.escape(name) for name in APP_ROOT_IDS) + r")[\"'\s>]", re.IGNORECASE)
_META_REFRESH = re.compile(r"<meta\b[^>]*http-equiv\s*=\s*[\"']?refresh[\"']?[^>]*>", re.IGNORECASE)
_REFRESH_URL = re.compile(r"content\s*=\s*[\"']?\s*\d*\s*[;,]\s*url\s*=", re.IGNORECASE)
_SCRIPT_REDIRECT = re.compile(
    r"\b(?:window\.|document\.|top\.|self\.)?location(?:\.href)?\s*=(?!=)|"
    r"\blocation\.(?:replace|assign)\s*\(", re.IGNORECASE)
_ASKS_FOR_SCRIPTS = re.compile(r"javascript|enable\s+js|\bJS\b", re.IGNORECASE)
# The ids and classes a site's menu is put in, whole (a `nav-sync` button in Doxygen's tree view is not).
NAVIGATION_NAMES: Final = frozenset({"nav", "navbar", "navigation", "menu", "main-nav", "main-menu",
                                     "mainmenu", "site-nav", "side-nav", "sidebar", "nav-tree", "navtree",
                                     "menubar"})
_EMPTY_CONTAINER = re.compile(r"<(div|nav|ul|aside|header)\b([^>]*)>\s*</\1\s*>", re.IGNORECASE)
_NAMES = re.compile(r"""\b(?:id|class)\s*=\s*["']([^"']*)["']""", re.IGNORECASE)
_SCRIPT_SOURCE = re.compile(r"""<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


@dataclass(frozen=True)
class PageShape:
    """What the decision reads from the HTML (also what the benchmark reports per page)."""

    text_chars: int
    script_bytes: int
    scripts: int
    app_root: str | None
    noscript_asks: bool
    meta_refresh: bool
    script_redirect: bool


def visible_text(html: str) -> str:
    without = _INVISIBLE.sub(" ", _COMMENT.sub(" ", html))
    return _SPACE.sub(" ", unescape(_TAG.sub(" ", without))).strip()


def shape_of(html: str) -> PageShape:
    text = visible_text(html)
    scripts = _SCRIPT.findall(html)
    inline = [body for _, body in scripts]
    root = _APP_ROOT.search(html)
    noscripts = _NOSCRIPT.findall(html)
    refresh = any(_REFRESH_URL.search(tag) for tag in _META_REFRESH.findall(html))
    return PageShape(
        text_chars=len(text),
        script_bytes=sum(len(body) for body in inline),
        scripts=len(scripts),
        app_root=root.group(1) if root else None,
        noscript_asks=any(_ASKS_FOR_SCRIPTS.search(_TAG.sub(" ", body)) for body in noscripts),
        meta_refresh=refresh,
        # Only a short page's script redirect counts: a long page with `location =` in a click handler is
        # still the page.
        script_redirect=len(text) < THIN_TEXT_CHARS and any(_SCRIPT_REDIRECT.search(body) for body in inline),
    )


def render_reason(html: str, status: int | None = None,
                  headers: Mapping[str, str] | None = None) -> str | None:
    """Why this served page must be rendered in a browser, or None when its HTML is the page."""
    wall = detect_wall(signals_from_html(html, status, headers))
    if wall is not None:
        return f"bot wall ({wall.vendor})"
    shape = shape_of(html)
    if shape.meta_refresh:
        return "meta refresh redirect"
    if shape.script_redirect:
        return "script redirect"
    if shape.app_root is not None and shape.text_chars < THIN_TEXT_CHARS:
        return f"app root #{shape.app_root} with little text"
    if shape.noscript_asks and shape.text_chars < NOSCRIPT_THIN_TEXT_CHARS:
        return "noscript asks for JavaScript"
    if shape.scripts and shape.text_chars < EMPTY_TEXT_CHARS:
        return "no text but scripts"
    if shape.text_chars < SCRIPT_HEAVY_TEXT_CHARS and shape.script_bytes > SCRIPT_TO_TEXT_RATIO * max(
            shape.text_chars, 1):
        return "text much thinner than its scripts"
    return None


def navigation_scripts(html: str, url: str) -> list[str] | None:
    """The scripts (resolved against `url`, sorted) of a page whose navigation a script builds; None when
    the page has none (its menu is in its HTML, or it has no script)."""
    if "<script" not in html and "<SCRIPT" not in html:
        return None
    if not any(not NAVIGATION_NAMES.isdisjoint(names.lower().split())
               for found in _EMPTY_CONTAINER.finditer(html) for names in _NAMES.findall(found.group(2))):
        return None
    return sorted({urljoin(url, source.strip()) for source in _SCRIPT_SOURCE.findall(html)})


def script_built_navigation(html: str, url: str) -> str | None:
    """What names the navigation a script builds on this page, or None when the page has none. Pages whose
    navigation has the same name get the same menu from the same scripts: the name is a hash of the
    scripts the page loads (navigation_scripts)."""
    sources = navigation_scripts(html, url)
    if sources is None:
        return None
    named_by = "\n".join(sources) if sources else urljoin(url, ".")  # inline scripts: the page's folder
    return hashlib.sha256(named_by.encode()).hexdigest()[:32]
