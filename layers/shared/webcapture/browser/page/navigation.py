"""Loading the target page: 'load' event, then the caller's waitTime, all inside the request's budget.

Failures become the catalogue's errors (docs/api.md#errors): a network error is NAVIGATION_FAILED with
Chromium's net::ERR_* code in the message, running out of budget is NAVIGATION_TIMEOUT, and a main document
(or one of its redirect hops) that the egress proxy refused is URL_NOT_ALLOWED. An HTTP error status is not a
failure: a 404 or 500 page is still the page the caller asked for.

Every request goes through the egress proxy, which answers for the target when it refuses or cannot
connect: over https Chromium then reports a failed tunnel, so the proxy's refusal log says why; over plain
http the proxy's own response arrives as the page, marked with the egress header.

A loaded page can still navigate itself (meta refresh, script, form submission) while the caller waits or
works on it. The proxy refuses such a navigation to an internal address, but Chromium then shows the
proxy's answer or an error page in its place, and that must not be captured and answered as the target.
So the main frame is checked again after the load, the wait and the caller's work (`navigated`).

A navigation a loaded page starts by script to an address that cannot be loaded (a host that does not
resolve, a port that refuses) does not fail the capture: the page that did load is what the caller asked
for. It is loaded again with that one navigation stopped, so it stays, and the answer warns of the address
that failed (`return_from_failed_move`). A navigation the egress policy refused stays URL_NOT_ALLOWED. (One
asked for while the page was still parsed was held instead, and needs no second load: held_navigation.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Request, Response, Route
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from webcapture import egress
from webcapture.browser.budget import Deadline
from webcapture.browser.page.page_motion import PROXY_FAILURES as _PROXY_FAILURES
from webcapture.browser.page.page_motion import MainFrameMotion
from webcapture.browser.page.page_preparation import best_attempt_ms
from webcapture.errors import ApiError, NavigationFailed, UrlNotAllowed

_NET_ERROR = re.compile(r"net::ERR_[A-Z0-9_]+")


@contextmanager
def navigated(
    page: Page,
    url: str,
    deadline: Deadline,
    wait_time_ms: int,
    wait_until: Literal["load", "domcontentloaded"] = "load",
    motion: MainFrameMotion | None = None,
    late: list[str] | None = None,
) -> Iterator[tuple[int | None, egress.RefusalLog]]:
    """Go to url and yield the main document's HTTP status (of the last redirect hop), or None when the
    navigation produced no HTTP response, and the egress refusals seen meanwhile, for the caller's work on
    the page; then make sure the page that work saw was not replaced by a navigation the egress policy
    refused. A failed navigation away from a loaded page that `motion` saw is left to the caller
    (`return_from_failed_move`).

    With `late` (bestAttempt), the wait for the document's event stops short of the budget, and a document
    that arrived but did not fire its event by then is used as it is, `late` given the warning."""
    hops: list[str] = []  # the main frame's navigation requests: the URL, then each redirect target
    documents: list[Response] = []  # responses to those requests, latest last

    def on_request(request: Request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            hops.append(request.url)

    def on_response(response: Response) -> None:
        if response.request.is_navigation_request() and response.frame == page.main_frame:
            documents.append(response)

    page.on("request", on_request)
    page.on("response", on_response)
    try:
        with egress.refusal_log() as refusals:
            try:
                response = _goto(page, url, deadline, wait_until, late,
                                 lambda: documents[-1] if documents else None)
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
                page.wait_for_timeout(wait_time_ms)
            # A script may have navigated during the load or the wait, to somewhere the proxy refused. One
            # still under way is let land first: its answer can be in before it commits, and a failed move
            # from the loaded page (returned from by the caller) is told from a refusal only once it has.
            if motion is not None and motion.navigating:
                motion.settle(deadline)
            if not _returns(motion, refusals):
                _check_main_frame(page, refusals, hops, documents)
            try:
                yield (response.status if response is not None else None), refusals
            except Exception as exc:
                # The work may have failed because the page navigated away under it ("execution context was
                # destroyed"); when it went somewhere refused, that is the answer.
                if (failure := _main_frame_failure(page, refusals, hops, documents)) is not None:
                    raise failure from exc
                raise
            # ...or while the work ran: a refused navigation committed before a capture would be captured.
            _check_main_frame(page, refusals, hops, documents)
    finally:
        page.remove_listener("request", on_request)
        page.remove_listener("response", on_response)


def _goto(
    page: Page,
    url: str,
    deadline: Deadline,
    wait_until: Literal["load", "domcontentloaded"],
    late: list[str] | None,
    arrived: Callable[[], Response | None],
) -> Response | None:
    """page.goto within the budget; with `late` (bestAttempt), within the budget less the capture's reserve,
    and a main document that committed without firing its event by then is the answer."""
    timeout_ms = best_attempt_ms(deadline) if late is not None else deadline.timeout_ms()
    try:
        return page.goto(url, wait_until=wait_until, timeout=timeout_ms)
    except PlaywrightTimeoutError as exc:
        document = arrived()
        if late is None or document is None or not egress.navigation_allowed(page.url):
            raise deadline.expired() from exc
        late.append(f"The page's {wait_until} event did not fire within the time budget; the document "
                    "that arrived was used as it was.")
        return document


def _returns(motion: MainFrameMotion | None, refusals: egress.RefusalLog) -> bool:
    """Whether the page failed to leave a loaded document for an address that could not be loaded (not one
    the policy refused), so that the caller returns it to the document it left."""
    failed = motion.failed if motion is not None else None
    return failed is not None and refusals.find(failed.url) is None


def return_from_failed_move(
    page: Page,
    motion: MainFrameMotion,
    refusals: egress.RefusalLog,
    deadline: Deadline,
    wait_until: Literal["load", "domcontentloaded"] = "load",
    late: list[str] | None = None,
) -> str | None:
    """When the page failed to navigate away from a loaded document (`_returns`): load that document again
    with the navigation to the failed address stopped (an aborted navigation leaves the document where it
    is), and return the warning for the answer. None when there is nothing to return from."""
    if not _returns(motion, refusals) or motion.failed is None:
        return None
    failed, motion.failed = motion.failed, None

    def stay(route: Route) -> None:
        request = route.request
        if request.is_navigation_request() and request.frame == page.main_frame:
            route.abort("aborted")
        else:
            route.fallback()

    # The page's own request to leave is cancelled before it starts (its Navigation API `navigate` event),
    # so the document loads on as if it had never asked: a navigation that starts and is then stopped
    # stops the document's own loading with it, and its DOMContentLoaded never fires. The route stops one
    # the page could not cancel (a browser without the Navigation API, a navigation not cancelable).
    page.add_init_script(_STAY_JS % json.dumps(failed.url))
    page.route(lambda address: address == failed.url, stay)
    try:
        _goto(page, failed.left, deadline, wait_until, late, lambda: motion.document)
    except PlaywrightError as exc:
        raise (navigation_failure(exc) or exc) from exc
    return (f"The page navigated by script to {failed.url}, which could not be loaded ({failed.reason}); "
            f"this is the page it left, {failed.left}")


_STAY_JS = """(() => {
  if (typeof navigation === "undefined") return;
  const failed = %s;
  navigation.addEventListener("navigate", (event) => {
    if (event.destination.url === failed && event.cancelable) event.preventDefault();
  }, {capture: true});  // before the page's own listeners and the service's count of requests to leave
})();"""


def navigation_failure(exc: PlaywrightError) -> ApiError | None:
    """The NavigationFailed for a Playwright navigation error, or None when the error is not about the
    target (a closed browser, say), which the caller handles."""
    message = exc.message or str(exc)
    if "net::ERR_UNSAFE_REDIRECT" in message:
        # Chromium refuses a redirect to a scheme other than http(s) (file:, data:, chrome:...) itself; the
        # egress policy refuses the same, so the answer is the policy's (docs/api.md#errors,
        # docs/api.md#egress-policy).
        return UrlNotAllowed("The page redirected to a URL that is not http or https")
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


def _check_main_frame(
    page: Page, refusals: egress.RefusalLog, hops: list[str], documents: list[Response]
) -> None:
    if (failure := _main_frame_failure(page, refusals, hops, documents)) is not None:
        raise failure


def _main_frame_failure(
    page: Page, refusals: egress.RefusalLog, hops: list[str], documents: list[Response]
) -> ApiError | None:
    """Why the main frame's current document is not a page to capture, or None when it is."""
    current = page.url
    if not egress.navigation_allowed(current):
        # A refused https navigation leaves Chromium's error page (chrome-error://); a script can also
        # take the page to blob: (data:, file: and the like Chromium refuses itself, leaving the page).
        if (refused := _refused(refusals, hops, redirected=True)) is not None:
            return refused
        scheme = current.partition(":")[0]
        if scheme == "chrome-error":
            return NavigationFailed("The page navigated to an address that could not be loaded")
        return UrlNotAllowed(f"The page navigated to a {scheme}: URL; only http and https pages are captured")
    # Over plain http a refused navigation commits the proxy's own answer, marked with the egress header.
    outcome = egress.egress_outcome(documents[-1].headers) if documents else None
    if outcome == egress.REFUSED:
        return _refused(refusals, [documents[-1].url], redirected=True) or UrlNotAllowed()
    if outcome is not None:
        return NavigationFailed(f"The page could not be loaded: {_PROXY_FAILURES.get(outcome, outcome)}")
    return None


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
