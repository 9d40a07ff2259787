"""One request's time in the browser: a fresh context, the page loaded, the caller's work, the context closed
(once the caller has its answer).

A context is never reused: cookies, storage, cache and service workers of one caller's page must not reach
the next caller. The fresh context may have been made before the request arrived, between requests
(webcapture.browser.page.spare_context), but nothing has loaded in it. If the browser turns out to be dead
(killed between invocations, crashed), the request relaunches it and tries once more, so the caller never
sees the previous browser's death.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from webcapture import egress, request_scope
from webcapture.browser.budget import MIN_STEP_MS, WATCHDOG_GRACE_S, Deadline, watchdog
from webcapture.browser.launch import processes
from webcapture.browser.lifecycle import BrowserHost, abandon_host, host
from webcapture.browser.page.held_navigation import HOLD_JS, follow_held
from webcapture.browser.page.navigation import navigated, return_from_failed_move
from webcapture.browser.page.page_actions import run_actions
from webcapture.browser.page.page_context import PageSetup, close_quietly, context_options, prepare_context
from webcapture.browser.page.page_motion import RESTLESS, MainFrameMotion, PageMoving
from webcapture.browser.page.page_preparation import PagePreparation
from webcapture.browser.page.spare_context import new_context
from webcapture.browser.page.target_checks import check_status, check_target
from webcapture.egress.upstream import upstream_pool_proxy
from webcapture.errors import ActionFailed, NavigationFailed
from webcapture.models.page_control import PageControl
from webcapture.profiles import sessions
from webcapture.profiles.sessions import ProfileUse

log = logging.getLogger(__name__)

T = TypeVar("T")

# How long past the watchdog a caller still waits for the worker before declaring it stuck (it may be
# ending a failed page, BrowserHost.clear_failed_page, which takes up to a few seconds on a busy machine).
_STUCK_GRACE_S = 8.0
# How long a failed request waits at most for the browser to settle after its page was ended, and the time
# it keeps for answering (the refund, the envelope) before API Gateway's own limit.
_SETTLE_MAX_S = 3.0
_ANSWER_ROOM_S = 1.5
# How often the work starts again on a page that navigated itself under it before the page counts as never
# at rest (a refresh loop, say).
_MAX_RESTARTS = 3


__all__ = ["LoadedPage", "PageSetup", "with_loaded_page"]


@dataclass(frozen=True)
class LoadedPage:
    page: Page
    status_code: int | None
    deadline: Deadline
    motion: MainFrameMotion
    # What the answer must tell the caller about this page (a bestAttempt wait that ran out, say): the
    # action puts them on its result; the operations layer renders them (answer_warnings.with_warnings).
    warnings: list[str] = field(default_factory=list)


def with_loaded_page(
    url: str,
    wait_time_ms: int,
    action: Callable[[LoadedPage], T],
    setup: PageSetup | None = None,
    control: PageControl | None = None,
) -> T:
    """Load url in a fresh context, prepare it as `control` asks (docs/api.md#page-control), and return
    action(loaded page), all within the request budget."""
    # Before any browser work: a refused target costs nothing. Its answer is the request's first.
    target = egress.check_target(url)
    # The request's own deadline (fixed at handler entry), so DNS and metering come out of the same time.
    deadline = Deadline(max(int(request_scope.remaining_ms()), 0))
    scope = request_scope.current()
    gateway = scope.gateway_deadline if scope is not None else None
    current = host()
    # The request's profile (docs/profiles.md), read here: the worker thread does not see the request's
    # context variables.
    profile = sessions.active()

    def job() -> T:  # on the browser worker, which also counts the request towards recycling
        try:
            visit = _Visit(url, target, wait_time_ms, action, setup or PageSetup(), control, deadline,
                           profile)
            return _attempts(current, visit, gateway)
        finally:
            current.note_use()

    try:
        return current.submit(
            job,
            wait_s=max(deadline.remaining_ms, 0) / 1000 + WATCHDOG_GRACE_S + _STUCK_GRACE_S,
        )
    except FutureTimeout:
        log.error("browser worker stuck past the watchdog; abandoning it")
        abandon_host(current)
        raise deadline.expired() from None


@dataclass(frozen=True)
class _Visit(Generic[T]):
    """What a request asks of a page: where, how long to wait, what to make of it, by when."""

    url: str
    target: egress.Route
    wait_time_ms: int
    action: Callable[[LoadedPage], T]
    setup: PageSetup
    control: PageControl | None
    deadline: Deadline
    profile: ProfileUse | None = None


def _attempts(current: BrowserHost, visit: _Visit[T], gateway: float | None) -> T:
    deadline = visit.deadline
    attempt = 1
    while True:
        browser = current.browser(deadline)
        # The page's renderer first: a page looping in a script is ended and the browser kept; the whole
        # browser only when a call stays blocked even then.
        failed: list[tuple[BrowserContext, egress.ProxyScope]] = []
        try:
            with watchdog(deadline, current.kill_pages, current.kill_browser) as dog:
                try:
                    return _in_fresh_context(current, browser, visit, failed)
                except Exception as exc:
                    if dog.fired.is_set():
                        raise deadline.expired() from exc
                    if isinstance(exc, PlaywrightTimeoutError):
                        raise deadline.expired() from exc
                    browser_died = not browser.is_connected() or (
                        current.pid is not None and not processes.is_alive(current.pid)
                    )
                    if not isinstance(exc, PlaywrightError):
                        raise
                    if not browser_died:
                        # Chromium refused a command on a live page (a protocol error nothing above named):
                        # the browser failed, not our code; 502 and refunded, never a 500.
                        reason = _reason(exc)
                        raise NavigationFailed(
                            f"The browser failed while handling the page: {reason}") from exc
                    if attempt > 1 or deadline.remaining_ms < MIN_STEP_MS:
                        raise NavigationFailed("The browser stopped while loading the page") from exc
        finally:
            # The failed page is ended outside the watchdog: on a busy machine that takes a while, which
            # is not a call stuck on the page.
            for context, scope in failed:
                current.clear_failed_page(context, _settle_s(gateway))
                scope.close()
        log.warning("browser died during a request; relaunching and retrying once")
        attempt += 1


def _settle_s(gateway: float | None) -> float:
    """How long a failed request may wait for the browser to settle before it answers: long enough for the
    browser to take in a page's end on a busy machine (then the next request does not pay for it), never so
    long that API Gateway gives up first (`gateway`: when it answers 504 itself)."""
    if gateway is None:
        return _SETTLE_MAX_S
    return max(min(_SETTLE_MAX_S, gateway - time.monotonic() - _ANSWER_ROOM_S), 0.0)


def _reason(error: PlaywrightError) -> str:
    """Chromium's own words, without Playwright's call log or the protocol method's name."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else "unknown error"
    return first.rsplit("): ", 1)[-1][:200]


def _in_fresh_context(
    current: BrowserHost,
    browser: Browser,
    visit: _Visit[T],
    failed_contexts: list[tuple[BrowserContext, egress.ProxyScope]],
) -> T:
    """The visit's action on its url loaded in a fresh context; a context whose request failed is left in
    failed_contexts, with its proxy scope, for the caller to end (`BrowserHost.clear_failed_page`), any
    other is closed after the answer."""
    url, target, control, deadline = visit.url, visit.target, visit.control, visit.deadline
    options = {
        **context_options(visit.setup, control, url),
        # A context lives for one request, so a service worker could never serve a later one; blocked, it
        # cannot keep working after the capture either.
        "service_workers": egress.SERVICE_WORKERS,
        # Nothing a page offers as a download is written to disk.
        "accept_downloads": False,
    }
    if visit.profile is not None and visit.profile.state is not None:
        # The profile's cookies and localStorage (a caller's session: such a context is never a spare).
        options["storage_state"] = visit.profile.state
    pool = None
    if control is not None and control.proxy is not None:
        # The pool's own egress proxy: the same policy, then a tunnel through the operator's upstream proxy.
        pool = upstream_pool_proxy(control.proxy)
        options["proxy"] = {"server": pool.url}
    # The context and page made for this request between requests, if they fit it (spare_context).
    spare = current.spare.take(browser, options)
    context, scope = (spare[0], spare[2]) if spare is not None else new_context(browser, options, pool)
    if target.resolved:
        # The edge already looked the target's host up and checked it: the proxy uses that answer.
        scope.answers.seed(target.host, target.addresses)
    failed = True
    try:
        # Any Playwright call below without its own timeout still stops at the budget.
        context.set_default_timeout(deadline.timeout_ms())
        prepare_context(context, control, url)
        page = spare[1] if spare is not None else context.new_page()
        # Watching from the start: a navigation the page begins during the load or the wait is known.
        motion = MainFrameMotion(page)
        if pool is None:
            # A navigation the page asks for while it is parsed is held until its address is tried (a pool's
            # way out cannot be tried from here).
            page.add_init_script(HOLD_JS)
        preparation = PagePreparation(page, control)
        crashed: list[bool] = []

        def on_crash(_page: Page) -> None:
            crashed.append(True)
            # Chromium never answers a call pending on a crashed tab (a capture, an evaluate): they would
            # wait for the watchdog. Closing the context fails them at once.
            close_quietly(context)

        page.on("crash", on_crash)
        try:
            # The page is checked again after the action: it may have navigated itself somewhere refused.
            wait_until = preparation.goto_wait_until
            # bestAttempt covers the navigation's own wait too: a document that arrived but never fired its
            # event in time is used as it is, with this warning.
            late: list[str] | None = [] if control is not None and control.bestAttempt else None
            with navigated(page, url, deadline, visit.wait_time_ms, wait_until, motion, late) as (status,
                                                                                                  refusals):

                def back() -> str | None:
                    return return_from_failed_move(page, motion, refusals, deadline, wait_until, late)

                def held(returned_from: str | None) -> str | None:
                    return follow_held(page, motion, deadline, returned_from) if pool is None else None

                work = _prepared(preparation, visit.action, control)
                result = _at_rest(page, status, deadline, motion, work, back, held,
                                  late if late is not None else [])
            if visit.profile is not None and visit.profile.save:
                # After the output and the actions succeeded: what the session is now, to be saved.
                visit.profile.keep(dict(context.storage_state()))
            failed = False
            return result
        except PlaywrightError as exc:
            if crashed:
                # The renderer died on this page (out of memory, say): the page's fault, not ours.
                raise NavigationFailed("The page crashed the browser tab while loading") from exc
            raise
        finally:
            preparation.close()
            motion.close()
    finally:
        if failed:
            # The page may still be running (looping, its workers with it): its renderers are killed and the
            # browser checked idle before the answer, so the next request finds the browser free.
            failed_contexts.append((context, scope))
        else:
            # Closed once the caller has its answer: the answer need not wait for Chromium to tear the page
            # down. Nothing of the page reaches a later request either way: every request has its own context.
            current.after_answer(lambda: _close(context, scope))


def _close(context: BrowserContext, scope: egress.ProxyScope) -> None:
    close_quietly(context)
    scope.close()


def _prepared(
    preparation: PagePreparation, action: Callable[[LoadedPage], T], control: PageControl | None
) -> Callable[[LoadedPage], T]:
    """The action, after the page's preparation, the caller's actions and the checks of the final page
    (docs/actions-and-blocked-pages.md#actions-and-blocked-pages). Preparation and action run again on a
    document the page navigated to, which has none of the previous one's injections or hiding; the caller's
    actions run once, and a document they lead to is where the work starts again."""
    actions_ran = False

    def run(loaded: LoadedPage) -> T:
        nonlocal actions_ran
        preparation.prepare(loaded.page, loaded.deadline, loaded.warnings)
        if control is not None and control.actions and not actions_ran:
            check_status(control, loaded.status_code)
            actions_ran = True
            if run_actions(loaded.page, control.actions, loaded.deadline, loaded.motion):
                raise PageMoving("The actions took the page to another document")
        check_target(loaded.page, control, loaded.status_code, loaded.motion.document)
        return action(loaded)

    return run


def _at_rest(
    page: Page,
    status: int | None,
    deadline: Deadline,
    motion: MainFrameMotion,
    action: Callable[[LoadedPage], T],
    back: Callable[[], str | None],
    held: Callable[[str | None], str | None],
    late: list[str],
) -> T:
    """action on the loaded page, run again whenever the page navigated itself while it ran: a page that sends
    itself elsewhere right after loading (a login wall, a localised copy) is captured where it lands, as an
    HTTP redirect would be. The landing is checked against the egress policy like any navigation
    (`navigated`), and its status is the one reported. A landing that could not be loaded sends the page
    back where it was (`back`, once), and the action runs there with the warning `back` returned. A navigation
    the page asked for while it was parsed, held till now, is followed or refused first (`held`: the warning
    when its address cannot be loaded, and the page stays)."""
    warnings: list[str] = []
    returned = False
    returned_from: str | None = None
    restarts = _MAX_RESTARTS
    while restarts >= 0:
        restarts -= 1
        if motion.navigating:
            motion.settle(deadline)
        if (warning := held(returned_from)) is not None:
            warnings.append(warning)
        if not returned and motion.failed is not None:
            returned_from = motion.failed.url
        if not returned and (warning := back()) is not None:
            returned = True
            warnings.append(warning)
            # Loading the page again and its stopped navigation are not the page's restlessness.
            restarts += 2
        moves = motion.moves
        # From the work's start: a navigation the page asks for just after the work is also followed.
        watch = motion.watch_leaving()
        loaded = LoadedPage(page, motion.status if motion.status is not None else status, deadline, motion,
                            warnings + late)
        try:
            result = action(loaded)
        except PageMoving:
            pass
        except ActionFailed:
            raise  # a step's failure is the answer, whatever the page did meanwhile
        except Exception as exc:
            # Chromium can report the document gone before the navigation's own events reach us.
            if motion.moves == moves and not _navigated_under(exc):
                raise
        else:
            if not motion.leaving(watch, deadline):
                return result
        motion.settle(deadline)
    raise NavigationFailed(RESTLESS)


def _navigated_under(error: Exception) -> bool:
    """Whether the work failed because a navigation replaced the document it ran in."""
    return isinstance(error, PlaywrightError) and "Execution context was destroyed" in str(error)
