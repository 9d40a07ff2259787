"""`waitUntil: networkidle0 / networkidle2` (docs/api.md#page-control): at most 0 / 2 requests in flight for
500 ms.

Playwright has no such event for these thresholds (its own "networkidle" is 0 in flight, and is
discouraged), so requests are counted here from the page's request events: `request` adds one,
`requestfinished` and `requestfailed` take it away. Counting at the egress proxy instead would count the
wrong thing: an https request travels inside a CONNECT tunnel the proxy cannot see into, and one kept-alive
tunnel carries many requests in turn, so the proxy knows connections, not requests. The page's events see
every request of every frame (service workers are blocked, so none is missed), routed or aborted ones
included (an abort fires `requestfailed`).
"""

from __future__ import annotations

from playwright.sync_api import Page, Request

from webcapture.browser.budget import MIN_STEP_MS

IDLE_MS = 500
# How often the count is looked at; events are delivered while the sync API waits.
_POLL_MS = 50


class InFlightRequests:
    """Counts the page's requests in flight from construction (before navigation) until close()."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self._in_flight: set[Request] = set()
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    @property
    def count(self) -> int:
        return len(self._in_flight)

    def close(self) -> None:
        self._page.remove_listener("request", self._started)
        self._page.remove_listener("requestfinished", self._ended)
        self._page.remove_listener("requestfailed", self._ended)

    def wait_until_idle(self, max_in_flight: int, within_ms: float) -> bool:
        """Whether at most max_in_flight requests stayed in flight for IDLE_MS, within within_ms."""
        waited, quiet_for = 0.0, 0.0
        while waited + MIN_STEP_MS <= within_ms:
            step = min(_POLL_MS, within_ms - waited)
            quiet = self.count <= max_in_flight
            self._page.wait_for_timeout(step)
            waited += step
            # Quiet over the whole step: quiet at its start and at its end (a request that came and went
            # inside one 50 ms step is missed, as it would be by any sampling; it is short by definition).
            quiet_for = quiet_for + step if quiet and self.count <= max_in_flight else 0.0
            if quiet_for >= IDLE_MS:
                return True
        return False

    def _started(self, request: Request) -> None:
        self._in_flight.add(request)

    def _ended(self, request: Request) -> None:
        self._in_flight.discard(request)
