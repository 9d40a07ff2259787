"""blockAds (docs/api.md#page-control): network and cosmetic blocking with EasyList, EasyPrivacy and uBlock
Origin's lists, through Brave's adblock-rust engine (webcapture.browser.filters.filter_lists).

The Lambda Chromium is a headless shell that cannot load extensions, so the engine runs here:
- network: a context route asks the engine about every request (URL, resource type, the document that
  made it) and aborts the blocked ones as the browser's own blocker would ("blockedbyclient"); all others
  fall back to the next handler and then to the network, where the egress proxy still sees every request;
- cosmetic: after the load, the lists' element-hiding rules for the page's host, plus the generic ones that
  match a class or id the page uses, go into a constructed stylesheet (no DOM node, no CSP involvement).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from playwright.sync_api import BrowserContext, Frame, Page, Request, Route
from playwright.sync_api import Error as PlaywrightError

from webcapture.browser.filters.filter_lists import shared_engine

log = logging.getLogger(__name__)

# Playwright's resource types in the engine's vocabulary (uBlock Origin's); "document" depends on the frame.
_REQUEST_TYPES = {
    "stylesheet": "stylesheet",
    "image": "image",
    "media": "media",
    "texttrack": "media",
    "font": "font",
    "script": "script",
    "xhr": "xmlhttprequest",
    "fetch": "xmlhttprequest",  # uBlock Origin's lists treat fetch() as xhr
    "websocket": "websocket",
    "eventsource": "other",
    "manifest": "other",
    "ping": "ping",
    "other": "other",
}

# The page's classes and ids, for the generic hiding rules (EasyList's "##.ad-banner" kind): the engine
# answers only those that apply, rather than the page matching thousands of selectors.
_CLASSES_AND_IDS = """() => {
    const classes = new Set(), ids = new Set();
    for (const el of document.querySelectorAll('[class], [id]')) {
        if (el.id) ids.add(el.id);
        for (const name of el.classList) classes.add(name);
    }
    return [[...classes], [...ids]];
}"""

# One rule per selector: a selector this Chromium does not know (the lists have a few) would void a
# whole grouped rule.
_HIDE = """(rules) => {
    const sheet = new CSSStyleSheet();
    for (const rule of rules) {
        try { sheet.insertRule(rule, sheet.cssRules.length); } catch (e) { /* not CSS this browser knows */ }
    }
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    return sheet.cssRules.length;
}"""


def enable_ad_blocking(context: BrowserContext, page_url: str) -> None:
    """At context creation: requests the lists block are aborted before they leave the browser."""
    context.route("**/*", _network_rule(page_url))


def _network_rule(page_url: str) -> Callable[[Route, Request], None]:
    engine = shared_engine()

    def handle(route: Route, request: Request) -> None:
        kind, source = _kind_and_source(request, page_url)
        if kind is not None and engine.check_network_urls(request.url, source, kind).matched:
            route.abort("blockedbyclient")
        else:
            route.fallback()

    return handle


def _kind_and_source(request: Request, page_url: str) -> tuple[str | None, str]:
    """The engine's request type and the URL of the document the request comes from; kind None for the
    page itself (the caller asked for it: never blocked)."""
    frame = _frame_of(request)
    if request.resource_type == "document":
        parent = frame.parent_frame if frame is not None else None
        if frame is None or parent is None:
            return None, page_url
        return "sub_frame", _document_url(parent, page_url)
    return _REQUEST_TYPES.get(request.resource_type, "other"), _document_url(frame, page_url)


def _frame_of(request: Request) -> Frame | None:
    try:
        return request.frame
    except PlaywrightError:  # a service worker's request has no frame
        return None


def _document_url(frame: Frame | None, page_url: str) -> str:
    url = frame.url if frame is not None else ""
    # A frame still at about:blank (or srcdoc) loads on behalf of the page.
    return url if url.startswith(("http://", "https://")) else page_url


def hide_ad_elements(page: Page) -> None:
    """After the load, before the capture: the lists' element-hiding rules applied to the page."""
    engine = shared_engine()
    resources = engine.url_cosmetic_resources(page.url)
    selectors = set(resources.hide_selectors)
    # generichide: the lists exempt this site from generic hiding (the attribute is missing from the stubs).
    if not getattr(resources, "generichide", False):
        classes, ids = page.evaluate(_CLASSES_AND_IDS)
        selectors.update(engine.hidden_class_id_selectors(classes, ids, resources.exceptions))
    rules = [f"{selector} {{ display: none !important; }}" for selector in sorted(selectors)]
    styled = sorted(resources.style_selectors.items())
    rules += [f"{selector} {{ {'; '.join(styles)} }}" for selector, styles in styled]
    if rules:
        applied = page.evaluate(_HIDE, rules)
        log.debug("ad hiding: %d of %d rules applied on %s", applied, len(rules), page.url)
