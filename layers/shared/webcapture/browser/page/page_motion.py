"""A loaded page may still navigate itself (a script's `location = ...`, a meta refresh, a form it submits)
while the caller's work runs on it. Work that straddles such a navigation is not a capture of anything: a
screenshot of the old document's last frame, links of the new one with the old URL, DOM with hidden text
stripped from one document and serialised from the next. Chromium can even leave a CDP screenshot
unanswered when the document it was drawing is replaced under it.

So the main frame's navigations are watched: the work is run again once the page is at rest (the navigation
committed or given up, the new document's load event fired), and a call that would otherwise wait forever
(the screenshot's) is interrupted when one starts.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from playwright.sync_api import Frame, Page, Request, Response

from webcapture.browser.budget import Deadline
from webcapture.errors import NavigationFailed

# How often a wait for a navigation in flight looks again; events arrive during the wait.
_POLL_MS = 10


class PageMoving(NavigationFailed):
    """Raised by work that found the page in the middle of replacing its document (before the navigation's
    events arrived); the work starts again once the page is at rest."""


class MainFrameMotion:
    """Counts the main frame's navigations (each request started and each document committed) and knows
    whether one is still in flight. Listens from construction until close()."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self.moves = 0
        self.status: int | None = None  # of the main document's latest response (a redirect's last hop)
        self.document: Response | None = None  # that response (its headers tell a bot wall)
        self._in_flight: Request | None = None
        self._interrupts: list[Callable[[], None]] = []
        page.on("request", self._on_request)
        page.on("response", self._on_response)
        page.on("requestfinished", self._on_request_over)
        page.on("requestfailed", self._on_request_over)
        page.on("framenavigated", self._on_frame_navigated)

    def close(self) -> None:
        self._page.remove_listener("request", self._on_request)
        self._page.remove_listener("response", self._on_response)
        self._page.remove_listener("requestfinished", self._on_request_over)
        self._page.remove_listener("requestfailed", self._on_request_over)
        self._page.remove_listener("framenavigated", self._on_frame_navigated)

    @contextlib.contextmanager
    def interrupting(self, interrupt: Callable[[], None]) -> Iterator[None]:
        """Call interrupt on the first navigation of the main frame inside the block (to unblock a call the
        navigation would otherwise leave waiting)."""
        self._interrupts.append(interrupt)
        try:
            yield
        finally:
            with contextlib.suppress(ValueError):
                self._interrupts.remove(interrupt)

    @property
    def navigating(self) -> bool:
        return self._in_flight is not None

    def settle(self, deadline: Deadline) -> None:
        """Wait until the navigation in flight has committed (or ended without a document, as a 204 or a
        download does) and the main document has fired its load event."""
        # At least one look: a navigation the work noticed first (PageMoving) has its events on the way.
        self._page.wait_for_timeout(min(_POLL_MS, deadline.timeout_ms()))
        while self._in_flight is not None:
            self._page.wait_for_timeout(min(_POLL_MS, deadline.timeout_ms()))
        self._page.wait_for_load_state("load", timeout=deadline.timeout_ms())

    def _moved(self) -> None:
        self.moves += 1
        interrupts, self._interrupts = self._interrupts, []
        for interrupt in interrupts:
            with contextlib.suppress(Exception):
                interrupt()

    def _on_request(self, request: Request) -> None:
        if request.is_navigation_request() and request.frame == self._page.main_frame:
            self._in_flight = request  # a redirect hop replaces its predecessor
            self._moved()

    def _on_response(self, response: Response) -> None:
        if response.request is self._in_flight:
            self.status, self.document = response.status, response

    def _on_request_over(self, request: Request) -> None:
        # Finished without a commit (a 204, a download) or failed: nothing is coming for this navigation.
        if request is self._in_flight:
            self._in_flight = None

    def _on_frame_navigated(self, frame: Frame) -> None:
        if frame == self._page.main_frame:
            self._in_flight = None
            self._moved()
