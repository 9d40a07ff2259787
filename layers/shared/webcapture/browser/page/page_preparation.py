"""Page control (docs/api.md#page-control) on the loaded page: one preparation step for every browser
endpoint.

`PagePreparation` is made with the page, before navigation (so it counts requests from the first one);
`prepare` runs after navigation and before the endpoint's action, each time the action (re)starts on a
document: the load wait a bestAttempt request did not make the navigation wait for, injections, network
idle, waitForSelector, consent banners, scroll, hiding. The context's part is page_context.

An injected URL is fetched by Chromium like any subresource, through the egress proxy
(docs/api.md#egress-policy).
"""

from __future__ import annotations

from typing import Literal

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from webcapture import egress
from webcapture.browser.budget import MIN_STEP_MS, Deadline
from webcapture.browser.filters import ad_blocking, cookie_banners
from webcapture.browser.page.lazy_content import scroll_through
from webcapture.browser.page.network_idle import InFlightRequests
from webcapture.errors import ElementNotFound, NavigationFailed, NavigationTimeout, UrlNotAllowed
from webcapture.models.page_control import PageControl

# With bestAttempt, the waits stop this long before the budget ends, so the capture still fits.
_CAPTURE_RESERVE_MS = 4_000

_HIDE_JS = """
(selectors) => {
  // A constructed sheet: not subject to the page's CSP, and it also hides what appears later.
  const sheet = new CSSStyleSheet();
  for (const selector of selectors) {
    try { sheet.insertRule(selector + " { display: none !important; }", sheet.cssRules.length); }
    catch (e) { /* a selector the browser cannot parse hides nothing */ }
  }
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
"""


def capture_reserve_ms(deadline: Deadline) -> float:
    return min(_CAPTURE_RESERVE_MS, deadline.budget_ms / 4)


class PagePreparation:
    """The page's preparation for one request; made right after the page, before navigation."""

    def __init__(self, page: Page, control: PageControl | None) -> None:
        self.control = control
        if control is not None and control.emulateMediaType is not None:
            page.emulate_media(media=control.emulateMediaType)  # before the page lays itself out
        counts = control is not None and control.waitUntil.startswith("networkidle")
        self._idle = InFlightRequests(page) if counts else None

    @property
    def goto_wait_until(self) -> Literal["load", "domcontentloaded"]:
        """What page.goto waits for. With bestAttempt the load is waited for afterwards, within a shorter
        time, so a page whose load never ends is still captured."""
        control = self.control
        if control is None or (control.waitUntil == "load" and not control.bestAttempt):
            return "load"
        if control.waitUntil == "domcontentloaded" or control.bestAttempt:
            return "domcontentloaded"
        return "load"

    def close(self) -> None:
        if self._idle is not None:
            self._idle.close()

    def prepare(self, page: Page, deadline: Deadline, warnings: list[str]) -> None:
        control = self.control
        if control is None:
            return
        if control.waitUntil == "load" and self.goto_wait_until == "domcontentloaded":
            # networkidle* need no load of their own: with bestAttempt they wait for the network only, as
            # Puppeteer's do (networkidle0 cannot be reached while the load is pending anyway).
            self._wait_for_load(page, deadline, warnings)
        _inject(page, control, deadline)
        if self._idle is not None:
            self._wait_for_idle(deadline, warnings)
        if control.waitForSelector is not None:
            _wait_for_selector(page, control, deadline, warnings)
        if control.blockCookieBanners:
            cookie_banners.settle_cookie_banners(page, deadline)
        if control.scrollPage and (left := scroll_through(page, deadline, capture_reserve_ms(deadline))):
            warnings.append(f"{left} image(s) were still loading after the page was scrolled; used as is.")
        if control.hideSelectors:
            page.evaluate(_HIDE_JS, list(control.hideSelectors))
        if control.blockAds:
            ad_blocking.hide_ad_elements(page)

    def _wait_for_load(self, page: Page, deadline: Deadline, warnings: list[str]) -> None:
        try:
            page.wait_for_load_state("load", timeout=best_attempt_ms(deadline))
        except PlaywrightTimeoutError:
            warnings.append("The page's load event did not fire in time; the page was used as it was.")

    def _wait_for_idle(self, deadline: Deadline, warnings: list[str]) -> None:
        assert self._idle is not None and self.control is not None
        mode = self.control.waitUntil
        within = best_attempt_ms(deadline) if self.control.bestAttempt else deadline.timeout_ms()
        if self._idle.wait_until_idle(0 if mode == "networkidle0" else 2, within):
            return
        if not self.control.bestAttempt:
            raise deadline.expired()
        warnings.append(f"The network did not go idle ({mode}) in time; the page was used as it was.")


def best_attempt_ms(deadline: Deadline) -> float:
    """How long a bestAttempt wait may take: the budget less what the capture after it needs."""
    return max(deadline.remaining_ms - capture_reserve_ms(deadline), MIN_STEP_MS)


# One tag into the document, as Playwright's addStyleTag/addScriptTag do, but waiting for a URL's load
# within a time limit (theirs takes none, so a URL that never answers would hold the request until the
# watchdog killed the browser). Resolves to "" or to why it failed.
_INJECT_JS = """
([kind, content, url, limitMs]) => new Promise((done) => {
  const style = kind === "addStyleTag";
  let element;
  if (url !== null) {
    element = document.createElement(style ? "link" : "script");
    if (style) { element.rel = "stylesheet"; element.href = url; } else { element.src = url; }
    element.onload = () => done("");
    element.onerror = () => done("could not be loaded");
    setTimeout(() => done("did not load in time"), limitMs);
  } else {
    element = document.createElement(style ? "style" : "script");
    element.textContent = content;
  }
  (document.head || document.documentElement).appendChild(element);
  if (url === null) done("");
})
"""


def _inject(page: Page, control: PageControl, deadline: Deadline) -> None:
    for kind, tags in (("addStyleTag", control.addStyleTag), ("addScriptTag", control.addScriptTag)):
        for index, tag in enumerate(tags):
            limit = max(deadline.remaining_ms - capture_reserve_ms(deadline), MIN_STEP_MS)
            if failure := page.evaluate(_INJECT_JS, [kind, tag.content, tag.url, limit]):
                if tag.url is not None:
                    # A URL the egress policy refuses is the caller's to change (400 URL_NOT_ALLOWED, as for
                    # the target itself); any other failure is the page's (502).
                    try:
                        egress.check_target(tag.url)
                    except UrlNotAllowed as refused:
                        raise UrlNotAllowed(f"{kind}[{index}].url: {refused.message}") from None
                raise NavigationFailed(f"{kind}[{index}] failed: {tag.url} {failure}")


# The selector is the browser's own querySelector's, as for hideSelectors and screenshotOptions.selector:
# Playwright's css= engine parses and matches selectors itself, and a deeply nested one (15 levels of
# :is(), 60 :not() on a large page) kept it busy past the budget although the element was there. Visible
# is Playwright's sense: rendered with a non-empty box and not visibility:hidden.
_SELECTOR_STATE_JS = """
([selector, state]) => {
  const element = document.querySelector(selector);
  if (state === "attached") return element !== null;
  let visible = false;
  if (element !== null && element.checkVisibility({visibilityProperty: true})) {
    const box = element.getBoundingClientRect();
    visible = box.width > 0 && box.height > 0;
  }
  return state === "visible" ? visible : !visible;
}
"""
_SELECTOR_POLL_MS = 50


def _wait_for_selector(page: Page, control: PageControl, deadline: Deadline, warnings: list[str]) -> None:
    wait = control.waitForSelector
    assert wait is not None
    budget = best_attempt_ms(deadline) if control.bestAttempt else deadline.timeout_ms()
    timeout = min(wait.timeout, budget) if wait.timeout else budget  # 0: no limit but the budget's
    try:
        page.wait_for_function(
            _SELECTOR_STATE_JS, arg=[wait.selector, wait.state], polling=_SELECTOR_POLL_MS,
            timeout=max(timeout, 1),
        )
    except PlaywrightTimeoutError:
        message = f"waitForSelector '{wait.selector}' ({wait.state}) not satisfied within {round(timeout)} ms"
        if not control.bestAttempt:
            raise NavigationTimeout(message) from None
        warnings.append(f"{message}; the page was used as it was.")
    except PlaywrightError as exc:
        if is_selector_error(exc):
            raise ElementNotFound(f"'{wait.selector}' is not a valid CSS selector") from None
        raise


def is_selector_error(exc: PlaywrightError) -> bool:
    message = exc.message or str(exc)
    # The browser's own words (querySelector) and Playwright's selector parser's ("Error while parsing css
    # selector": wait_for_selector parses it first, e.g. "0").
    return any(words in message for words in ("is not a valid selector", "SyntaxError", "Unexpected token",
                                              "Error while parsing css selector"))
