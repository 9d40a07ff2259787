"""A loaded page may still navigate itself (a script's `location = ...`, a meta refresh, a form it submits)
while the caller's work runs on it. Work that straddles such a navigation is not a capture of anything: a
screenshot of the old document's last frame, links of the new one with the old URL, DOM with hidden text
stripped from one document and serialised from the next. Chromium can even leave a CDP screenshot
unanswered when the document it was drawing is replaced under it.

So the main frame's navigations are watched: the work is run again once the page is at rest (the navigation
committed or given up, the new document's load event fired), and a call that would otherwise wait forever
(the screenshot's) is interrupted when one starts.

A navigation the page starts just after the work has finished would be missed that way: under CPU load a
page's `setTimeout(() => location = ..., 5)` can run after a whole links listing. So the page's own
Navigation API `navigate` event is listened to from the moment the work begins, for
settings.script_navigation_window_ms (the work's own time counts towards it): a navigation to another
document requested in that window is waited for, and the work runs again where it lands. A timer the page
set before the window (the 5 ms one) is due before the window ends, so it is seen however slow the machine.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from playwright.sync_api import Frame, Page, Request, Response

from webcapture import egress
from webcapture.browser.budget import Deadline
from webcapture.errors import NavigationFailed
from webcapture.settings import get_settings

# How often a wait for a navigation in flight looks again; events arrive during the wait.
_POLL_MS = 10
# A page that navigates this often while the service waits for it to settle is never at rest (a refresh
# loop, say).
_MAX_NAVIGATIONS_SETTLING = 4
RESTLESS = "The page kept navigating itself, so it was never at rest to be captured"
# How long a navigation the page requested (its `navigate` event fired) may take to reach the browser
# before the page counts as staying (it cancelled the navigation, or asked for something that is not a
# document: a mailto: link, say).
_REQUESTED_START_MS = 2000
# How long a failed navigation's error document (or the proxy's answer for it) may take to commit after its
# request ended; one that never commits leaves the page where it was.
_FAILED_COMMIT_MS = 2000

# In every document of the page, from before its own scripts run: the page's requests to leave for another
# document (not a fragment or history-state change, not a download), counted. Read back synchronously:
# nothing waits on the page's own timers, which it may have replaced.
_COUNTER = "__webcaptureLeaving"
_LISTEN = f"""(() => {{
  if (typeof navigation === "undefined") return;
  const asked = {{count: 0}};
  Object.defineProperty(window, "{_COUNTER}", {{value: asked, enumerable: false}});
  navigation.addEventListener("navigate", (event) => {{
    if (event.destination.sameDocument || event.downloadRequest) return;
    // Counted once every listener has run: one the service itself cancelled (a navigation that already
    // failed once) is not a request to leave.
    queueMicrotask(() => {{ if (!event.defaultPrevented) asked.count += 1; }});
  }});
}})();"""
_ASKED = f"() => (window.{_COUNTER} || {{count: 0}}).count"


# The proxy's own answers for plain http when the next address cannot be loaded, as the net error Chromium
# would have reported going direct (over https Chromium reports the failed tunnel itself).
PROXY_FAILURES = {
    egress.UNRESOLVED: "net::ERR_NAME_NOT_RESOLVED",
    egress.UNREACHABLE: "net::ERR_CONNECTION_FAILED",
    egress.TIMED_OUT: "net::ERR_CONNECTION_TIMED_OUT",
}


@dataclass(frozen=True)
class FailedMove:
    """A navigation of the main frame that could not be loaded, from a page that had loaded."""

    url: str
    reason: str  # net::ERR_...
    left: str  # the URL of the document it left


@dataclass(frozen=True)
class LeavingWatch:
    """A window in which the page's requests to navigate are followed (`MainFrameMotion.watch_leaving`)."""

    moves: int
    ends: float  # time.monotonic()


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
        # The last document that loaded from a real answer, and the navigation after it that failed, if any.
        self.landed: str | None = None
        self.failed: FailedMove | None = None
        self._failing: tuple[str, str] | None = None
        # Navigation requests the browser started since the current document committed: each answers one of
        # the document's requests to leave (a redirect hop adds one more).
        self._started_here = 0
        page.add_init_script(_LISTEN)
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
        """A navigation of the main frame is in flight, or it failed and what it leaves (an error page, the
        proxy's answer) has not committed yet: until then the page still shows the document it is leaving,
        and a look at it would not see the failure."""
        return self._in_flight is not None or self._failing is not None

    def watch_leaving(self) -> LeavingWatch:
        """Start a window of settings.script_navigation_window_ms in which the page's own navigations are
        followed (`leaving`)."""
        window_s = get_settings().script_navigation_window_ms / 1000
        return LeavingWatch(self.moves, time.monotonic() + window_s)

    def leaving(self, watch: LeavingWatch, deadline: Deadline) -> bool:
        """Whether the page moved since `watch` began, or its document asked to leave (before the window or
        in it) for a navigation the browser has not started yet: then this waits until it has, or for up
        to _REQUESTED_START_MS (the page cancelled it, or asked for something that is not a document)."""
        if self.moves != watch.moves:
            return True
        if (left_ms := (watch.ends - time.monotonic()) * 1000) > 0:
            self._page.wait_for_timeout(min(left_ms, deadline.timeout_ms()))  # events arrive meanwhile
        if self.moves != watch.moves:
            return True
        try:
            asked = int(self._page.evaluate(_ASKED))
        except Exception:
            return True  # its document is gone: the page moved
        gives_up = time.monotonic() + _REQUESTED_START_MS / 1000
        while asked > self._started_here and self.moves == watch.moves and time.monotonic() < gives_up:
            self._page.wait_for_timeout(min(_POLL_MS, deadline.timeout_ms()))
        return self.moves != watch.moves

    def settle(self, deadline: Deadline) -> None:
        """Wait until the navigation in flight has committed (or ended without a document, as a 204 or a
        download does) and the main document has fired its load event."""
        # At least one look: a navigation the work noticed first (PageMoving) has its events on the way.
        self._page.wait_for_timeout(min(_POLL_MS, deadline.timeout_ms()))
        start = self.moves
        while True:
            if self.moves - start > 2 * _MAX_NAVIGATIONS_SETTLING:  # a request and a commit each
                raise NavigationFailed(RESTLESS)
            while self._in_flight is not None:
                self._page.wait_for_timeout(min(_POLL_MS, deadline.timeout_ms()))
            commits_by = time.monotonic() + _FAILED_COMMIT_MS / 1000
            while self._failing is not None and self._in_flight is None and time.monotonic() < commits_by:
                self._page.wait_for_timeout(min(_POLL_MS, deadline.timeout_ms()))
            self._page.wait_for_load_state("load", timeout=deadline.timeout_ms())
            # Playwright's load state can still be the previous document's for a moment after a commit (seen
            # on a busy machine: links listed from the landing page before it was parsed); the document's own
            # readyState cannot.
            if self._in_flight is None and self._ready_state() == "complete":
                return
            self._page.wait_for_timeout(min(_POLL_MS, deadline.timeout_ms()))

    def _ready_state(self) -> str:
        try:
            return str(self._page.evaluate("document.readyState"))
        except Exception:
            return ""  # the document is being replaced

    def _moved(self) -> None:
        self.moves += 1
        interrupts, self._interrupts = self._interrupts, []
        for interrupt in interrupts:
            with contextlib.suppress(Exception):
                interrupt()

    def _on_request(self, request: Request) -> None:
        if request.is_navigation_request() and request.frame == self._page.main_frame:
            self._in_flight = request  # a redirect hop replaces its predecessor
            self._failing = None
            self._started_here += 1
            self._moved()

    def _on_response(self, response: Response) -> None:
        if response.request is self._in_flight:
            self.status, self.document = response.status, response
            outcome = egress.egress_outcome(response.headers)
            if outcome in PROXY_FAILURES:
                self._failing = (response.url, PROXY_FAILURES[outcome])

    def _on_request_over(self, request: Request) -> None:
        # Finished without a commit (a 204, a download) or failed: nothing is coming for this navigation.
        if request is self._in_flight:
            self._in_flight = None
            failure = request.failure
            # An aborted navigation leaves the document where it is; any other failure commits an error page.
            if failure is not None and "ERR_ABORTED" not in failure:
                self._failing = (request.url, failure)

    def _on_frame_navigated(self, frame: Frame) -> None:
        if frame == self._page.main_frame:
            self._in_flight = None
            if self._failing is not None and self.landed is not None:
                self.failed = FailedMove(self._failing[0], self._failing[1], self.landed)
            elif frame.url.startswith(("http:", "https:")):
                self.landed, self.failed = frame.url, None
            self._failing = None
            self._started_here = 0
            self._moved()
