"""A fresh context and page made between requests, so the next request does not wait for them.

A warm capture of a light page spends about a third of its time before navigating: the context, then the
page, whose renderer process Chromium starts from scratch (docs/benchmarks.md, "Where a warm capture
goes"). That work needs nothing from the request but its context options, which a caller usually sends
the same every time. So after each answer the browser worker makes one spare context and page, with the
options of the request it just served, and the next request whose options are equal takes them instead of
making its own; any other request closes the spare and makes its own, as before.

The spare is as fresh as one made on demand: nothing has loaded in it (its page is the initial
about:blank), and each spare serves one request, then is closed like any other context. Options that carry
something of the caller's own (extra headers, HTTP credentials) never go into a spare: no caller's secret
waits in the browser for the next request. A spare that crashed or whose browser died is dropped, never
used. Everything here runs on the browser worker thread (webcapture.browser.lifecycle).
"""

from __future__ import annotations

import contextlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page

log = logging.getLogger(__name__)

# Context options that are the caller's own: a context holding them is never kept for a later request.
_PRIVATE_OPTIONS = frozenset({"extra_http_headers", "http_credentials"})


def options_key(options: dict[str, Any]) -> str | None:
    """A comparable form of browser.new_context's keyword arguments; None when they must not be kept."""
    if _PRIVATE_OPTIONS & options.keys():
        return None
    return json.dumps(options, sort_keys=True, default=str)


@dataclass
class _Spare:
    key: str
    context: BrowserContext
    page: Page
    crashed: list[bool] = field(default_factory=list)


class SpareContext:
    """At most one spare context and page, for the browser they were made in."""

    def __init__(self) -> None:
        self._spare: _Spare | None = None
        self._browser: Browser | None = None
        # The options of the last request served: what the next spare is made with.
        self._wanted: tuple[str, dict[str, Any]] | None = None

    def take(self, browser: Browser, options: dict[str, Any]) -> tuple[BrowserContext, Page] | None:
        """The spare's context and page if they were made with these options in this browser and are
        intact; otherwise None (a spare that does not fit is closed)."""
        key = options_key(options)
        self._wanted = (key, dict(options)) if key is not None else None
        spare, self._spare = self._spare, None
        if spare is None:
            return None
        if key == spare.key and self._browser is browser and _intact(browser, spare):
            return spare.context, spare.page
        _close(spare)
        return None

    def prepare(self, browser: Browser) -> None:
        """Make the spare for the last request's options, unless one is there or there is nothing to make."""
        if self._spare is not None or self._wanted is None or not browser.is_connected():
            return
        key, options = self._wanted
        try:
            context = browser.new_context(**options)
        except Exception as exc:
            log.info("no spare context: %r", exc)
            return
        try:
            page = context.new_page()
        except Exception as exc:
            log.info("no spare page: %r", exc)
            _close_context(context)
            return
        spare = _Spare(key, context, page)
        page.on("crash", lambda _page: spare.crashed.append(True))
        self._spare, self._browser = spare, browser

    def discard(self) -> None:
        """Close the spare, if any (the browser is going away, or the worker is shutting down)."""
        spare, self._spare = self._spare, None
        if spare is not None:
            _close(spare)


def _intact(browser: Browser, spare: _Spare) -> bool:
    if not browser.is_connected() or spare.page.is_closed():
        return False
    try:
        # A round trip to the page's renderer: it is alive, and the driver has delivered any crash event
        # that came while the worker was idle (the sync API only takes events in during a call).
        spare.page.evaluate("0")
    except Exception:
        return False
    return not spare.crashed


def _close(spare: _Spare) -> None:
    _close_context(spare.context)


def _close_context(context: BrowserContext) -> None:
    with contextlib.suppress(Exception):
        context.close()
