"""Loading the target page: 'load' event, then the caller's waitTime, all inside the request's budget.

Failures become the catalogue's errors (CONTRACT 6): a network error is NAVIGATION_FAILED with Chromium's
net::ERR_* code in the message, running out of budget is NAVIGATION_TIMEOUT, and a main document (or one of
its redirect hops) that the egress proxy refused is URL_NOT_ALLOWED. An HTTP error status is not a failure:
a 404 or 500 page is still the page the caller asked for.

Every request goes through the egress proxy, which answers for the target when it refuses or cannot
connect: over https Chromium then reports a failed tunnel, so the proxy's refusal log says why; over plain
http the proxy's own response arrives as the page, marked with the egress header.
"""

from __future__ import annotations

import re

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Request, Response
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from webcapture import egress
from webcapture.browser.budget import Deadline
from webcapture.errors import ApiError, NavigationFailed, UrlNotAllowed

_NET_ERROR = re.compile(r"net::ERR_[A-Z0-9_]+")

# The proxy's own answers for plain http, as the net error Chromium would have reported going direct.
_PROXY_FAILURES = {
    egress.UNRESOLVED: "net::ERR_NAME_NOT_RESOLVED",
    egress.UNREACHABLE: "net::ERR_CONNECTION_FAILED",
    egress.TIMED_OUT: "net::ERR_CONNECTION_TIMED_OUT",
}


def navigate(page: Page, url: str, deadline: Deadline, wait_time_ms: int) -> int | None:
    """Go to url and return the main document's HTTP status (of the last redirect hop), or None when the
    navigation produced no HTTP response."""
    hops: list[str] = []  # the main frame's navigation requests: the URL, then each redirect target

    def on_request(request: Request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            hops.append(request.url)

    page.on("request", on_request)
    try:
        with egress.refusal_log() as refusals:
            try:
                response = page.goto(url, wait_until="load", timeout=deadline.timeout_ms())
            except PlaywrightTimeoutError as exc:
                raise deadline.expired() from exc
            except PlaywrightError as exc:
                failure = _refused(refusals, hops) or navigation_failure(exc)
                if failure is None:
                    raise
                raise failure from exc
            if response is not None:
                _check_proxy_answer(response, refusals, hops)
            if wait_time_ms > 0:
                # waitTime is part of the budget: when it cannot fit, say so now instead of failing later.
                if wait_time_ms >= deadline.remaining_ms:
                    raise deadline.expired()
                loaded_hops = len(hops)
                page.wait_for_timeout(wait_time_ms)
                # A script may have navigated during the wait, to somewhere the proxy refused.
                if (refused := _refused(refusals, hops[loaded_hops:], redirected=True)) is not None:
                    raise refused
    finally:
        page.remove_listener("request", on_request)
    return response.status if response is not None else None


def navigation_failure(exc: PlaywrightError) -> NavigationFailed | None:
    """The NavigationFailed for a Playwright navigation error, or None when the error is not about the
    target (a closed browser, say), which the caller handles."""
    message = exc.message or str(exc)
    if match := _NET_ERROR.search(message):
        return NavigationFailed(f"The page could not be loaded: {match.group(0)}")
    if "Download is starting" in message:
        return NavigationFailed("The URL answered with a file download, not a page")
    return None


def _check_proxy_answer(response: Response, refusals: egress.RefusalLog, hops: list[str]) -> None:
    outcome = egress.egress_outcome(response.headers)
    if outcome is None:
        return
    if outcome == egress.REFUSED:
        raise _refused(refusals, hops) or UrlNotAllowed()
    raise NavigationFailed(f"The page could not be loaded: {_PROXY_FAILURES.get(outcome, outcome)}")


def _refused(refusals: egress.RefusalLog, hops: list[str], *, redirected: bool = False) -> ApiError | None:
    for index, hop in enumerate(hops):
        if (refusal := refusals.find(hop)) is not None:
            return _not_allowed(refusal, redirected=redirected or index > 0)
    return None


def _not_allowed(refusal: egress.Refusal, *, redirected: bool) -> UrlNotAllowed:
    # Name the host (the caller's, or one the page itself redirected to), never an address it resolved to:
    # that would reveal internal DNS.
    where = f"The page redirected to {refusal.host}" if redirected else f"The target {refusal.host}"
    return UrlNotAllowed(f"{where}, which the egress policy does not allow ({refusal.reason})")
