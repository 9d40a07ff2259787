"""A fresh context and page made between requests, so the next request does not wait for them.

A warm capture of a light page spends about a third of its time before navigating: the context, then the
page, whose renderer process Chromium starts from scratch (docs/benchmarks.md, "Where a warm capture
goes"). That work needs nothing from the request but its context options, which a caller usually sends
the same every time. So after each answer the browser worker makes one spare context and page, with the
options of the request it just served, and the next request whose options are equal takes them instead of
making its own; any other request closes the spare and makes its own, as it would with no spare.

The spare is as fresh as one made on demand: nothing has loaded in it (its page is the initial
about:blank), and each spare serves one request, then is closed like any other context. Options that carry
something of the caller's own (extra headers, HTTP credentials) never go into a spare: no caller's secret
waits in the browser for the next request. A spare that crashed or whose browser died is dropped, never
used. Everything here runs on the browser worker thread (webcapture.browser.lifecycle).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page

from webcapture import egress
from webcapture.browser.page.page_context import close_quietly

log = logging.getLogger(__name__)

# Context options that are the caller's own: a context holding them is never kept for a later request.
# `storage_state` is a profile's session (docs/profiles.md).
# `proxy` marks a context that leaves through an operator's upstream pool (its scope is on that pool's
# proxy, not the container's): made on demand only.
_PRIVATE_OPTIONS = frozenset({"extra_http_headers", "http_credentials", "proxy", "storage_state"})


def options_key(options: dict[str, Any]) -> str | None:
    """A comparable form of browser.new_context's keyword arguments; None when they must not be kept."""
    if _PRIVATE_OPTIONS & options.keys():
        return None
    return json.dumps(options, sort_keys=True, default=str)


@dataclass(frozen=True)
class _Spare:
    key: str
    browser: Browser
    context: BrowserContext
    page: Page
    scope: egress.ProxyScope

    def close(self) -> None:
        close_quietly(self.context)
        self.scope.close()


def new_context(
    browser: Browser, options: dict[str, Any], through: egress.EgressProxy | None = None
) -> tuple[BrowserContext, egress.ProxyScope]:
    """A context whose requests go through a proxy listener of its own: its host answers are this
    context's, so one request's lookups are never another's (webcapture.egress.proxy). `through`: the
    egress proxy to listen on (an upstream pool's), else the container's."""
    scope = through.open_scope() if through is not None else egress.open_scope()
    try:
        return browser.new_context(**{**options, "proxy": {"server": scope.url}}), scope
    except BaseException:
        scope.close()
        raise


class SpareContext:
    """At most one spare context and page, for the browser they were made in."""

    def __init__(self) -> None:
        self._spare: _Spare | None = None
        # The options of the last request served: what the next spare is made with.
        self._wanted: tuple[str, dict[str, Any]] | None = None

    def take(
        self, browser: Browser, options: dict[str, Any]
    ) -> tuple[BrowserContext, Page, egress.ProxyScope] | None:
        """The spare's context and page if they were made with these options in this browser and are
        intact; otherwise None (a spare that does not fit is closed)."""
        key = options_key(options)
        self._wanted = (key, dict(options)) if key is not None else None
        spare, self._spare = self._spare, None
        if spare is None:
            return None
        if key == spare.key and spare.browser is browser and _alive(spare.page):
            return spare.context, spare.page, spare.scope
        spare.close()
        return None

    def prepare(self, browser: Browser) -> None:
        """Make the spare for the last request's options, unless one is there or there is nothing to make.
        The caller has checked the browser is alive."""
        if self._spare is not None or self._wanted is None:
            return
        key, options = self._wanted
        made: tuple[BrowserContext, egress.ProxyScope] | None = None
        try:
            made = new_context(browser, options)
            context, scope = made
            self._spare = _Spare(key, browser, context, context.new_page(), scope)
        except Exception as exc:
            log.info("no spare context: %r", exc)
            if made is not None:
                close_quietly(made[0])
                made[1].close()

    def discard(self) -> None:
        """Close the spare, if any (the browser is going away, or the worker is shutting down)."""
        spare, self._spare = self._spare, None
        if spare is not None:
            spare.close()


def _alive(page: Page) -> bool:
    """A round trip to the page's renderer: one that died while the worker was idle (crashed, killed) fails
    it, whatever events the driver has not delivered yet (the sync API only takes them in during a call)."""
    if page.is_closed():
        return False
    try:
        page.evaluate("0")
    except Exception:
        return False
    return True
