"""Page control (CONTRACT 14), one preparation step for every browser endpoint.

page_session calls it at three points of a request:
- `context_options` and `prepare_context`: the context's device, emulation, headers, credentials, cookies
  and routes, before anything loads;
- `PagePreparation` (made with the page, before navigation, so it counts requests from the first one):
  `prepare` runs after navigation and before the endpoint's action, each time the action (re)starts on a
  document: the load wait a bestAttempt request did not make the navigation wait for, injections, network
  idle, waitForSelector, consent banners, scroll, hiding.

Nothing here fetches anything: injected URLs, headers and cookies only change what Chromium asks, and
every request it makes still goes through the egress proxy (CONTRACT 13). Routes only abort or fall back,
never fulfil or fetch, so the handlers other features register on the context chain with these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Page, Route, WebSocketRoute
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from webcapture.browser import ad_blocking, cookie_banners
from webcapture.browser.budget import MIN_STEP_MS, Deadline
from webcapture.browser.lazy_content import scroll_through, watch_lazy_loading
from webcapture.browser.network_idle import InFlightRequests
from webcapture.errors import ElementNotFound, NavigationFailed, NavigationTimeout, RequestValidationError
from webcapture.models.devices import device_descriptors
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


@dataclass(frozen=True)
class PageSetup:
    """The emulated device. Defaults are the spec's viewport defaults; `explicit` names the fields the
    caller set (they win over a `device`'s)."""

    width: int = 1280
    height: int = 800
    device_scale_factor: float = 1
    is_mobile: bool = False
    has_touch: bool = False
    explicit: frozenset[str] = field(default_factory=frozenset)


def capture_reserve_ms(deadline: Deadline) -> float:
    return min(_CAPTURE_RESERVE_MS, deadline.budget_ms / 4)


def target_origin(url: str) -> str:
    """scheme://host[:port] as a browser serialises an origin (default ports left out)."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


def effective_setup(setup: PageSetup, control: PageControl | None) -> PageSetup:
    """The device the page gets: a `device`'s descriptor, with the caller's explicit viewport fields."""
    if control is None or control.device is None:
        return setup
    device = device_descriptors()[control.device]
    chosen: dict[str, Any] = {
        "width": device["viewport"]["width"],
        "height": device["viewport"]["height"],
        "device_scale_factor": device["deviceScaleFactor"],
        "is_mobile": device["isMobile"],
        "has_touch": device["hasTouch"],
    }
    chosen |= {name: getattr(setup, name) for name in setup.explicit}
    return PageSetup(**chosen, explicit=setup.explicit)


def context_options(setup: PageSetup, control: PageControl | None, url: str) -> dict[str, Any]:
    """Keyword arguments for browser.new_context: the device, then the caller's explicit choices."""
    device = effective_setup(setup, control)
    options: dict[str, Any] = {
        "viewport": {"width": device.width, "height": device.height},
        "device_scale_factor": device.device_scale_factor,
        "is_mobile": device.is_mobile,
        "has_touch": device.has_touch,
    }
    if control is not None and control.device is not None:
        descriptor = device_descriptors()[control.device]
        options["user_agent"] = descriptor["userAgent"]
        if "screen" in descriptor:
            options["screen"] = descriptor["screen"]
    if control is None:
        return options
    if control.userAgent is not None:
        options["user_agent"] = control.userAgent
    if control.headers:
        options["extra_http_headers"] = dict(control.headers)
    if control.authenticate is not None:
        # Answered for the target's origin only: a third-party frame or image that challenges gets nothing.
        options["http_credentials"] = {
            "username": control.authenticate.username,
            "password": control.authenticate.password,
            "origin": target_origin(url),
        }
    if control.colorScheme is not None:
        options["color_scheme"] = control.colorScheme
    if control.reducedMotion is not None:
        options["reduced_motion"] = control.reducedMotion
    if control.timezoneId is not None:
        options["timezone_id"] = control.timezoneId
    if control.locale is not None:
        options["locale"] = control.locale
    if control.addStyleTag or control.addScriptTag:
        # The caller asked for their own styles and scripts on the page: a page's CSP must not refuse them.
        options["bypass_csp"] = True
    return options


def prepare_context(context: BrowserContext, control: PageControl | None, url: str) -> None:
    """Cookies and routes, before navigation."""
    if control is None:
        return
    if control.cookies:
        _add_cookies(context, control, url)
    if control.rejectResourceTypes:
        rejected = frozenset(control.rejectResourceTypes)

        def by_type(route: Route) -> None:
            if route.request.resource_type in rejected:
                route.abort("blockedbyclient")
            else:
                route.fallback()  # other handlers (ad blocking, banners) still see it

        context.route("**/*", by_type)
        if "websocket" in rejected:
            context.route_web_socket("**/*", _close_socket)
    for pattern in control.rejectRequestPattern:
        # Playwright reads a string pattern as a glob, never as a regular expression.
        context.route(pattern, _abort)
        context.route_web_socket(pattern, _close_socket)
    if control.scrollPage:
        watch_lazy_loading(context)
    if control.blockAds:
        ad_blocking.enable_ad_blocking(context, url)
    if control.blockCookieBanners:
        cookie_banners.enable_cookie_banner_handling(context)


def _abort(route: Route) -> None:
    route.abort("blockedbyclient")


def _close_socket(socket: WebSocketRoute) -> None:
    # Never connected to the server: the socket is closed before anything leaves the browser.
    socket.close()


def _add_cookies(context: BrowserContext, control: PageControl, url: str) -> None:
    host = urlsplit(url).hostname or ""
    cookies: list[Any] = []
    for cookie in control.cookies:
        entry: dict[str, Any] = {
            "name": cookie.name,
            "value": cookie.value,
            "domain": cookie.domain or host,
            "path": cookie.path or "/",
        }
        for name in ("secure", "httpOnly", "sameSite", "expires"):
            if (value := getattr(cookie, name)) is not None:
                entry[name] = value
        cookies.append(entry)
    try:
        context.add_cookies(cookies)
    except PlaywrightError as exc:
        # A cookie Chromium refuses (sameSite None without secure, say): the caller's to fix.
        message = (exc.message or str(exc)).splitlines()[0]
        raise RequestValidationError([{"code": "custom", "path": ["cookies"], "message": message}]) from None


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
        _inject(page, control)
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
            page.wait_for_load_state("load", timeout=_best_attempt_ms(deadline))
        except PlaywrightTimeoutError:
            warnings.append("The page's load event did not fire in time; the page was used as it was.")

    def _wait_for_idle(self, deadline: Deadline, warnings: list[str]) -> None:
        assert self._idle is not None and self.control is not None
        mode = self.control.waitUntil
        within = _best_attempt_ms(deadline) if self.control.bestAttempt else deadline.timeout_ms()
        if self._idle.wait_until_idle(0 if mode == "networkidle0" else 2, within):
            return
        if not self.control.bestAttempt:
            raise deadline.expired()
        warnings.append(f"The network did not go idle ({mode}) in time; the page was used as it was.")


def _best_attempt_ms(deadline: Deadline) -> float:
    return max(deadline.remaining_ms - capture_reserve_ms(deadline), MIN_STEP_MS)


def _inject(page: Page, control: PageControl) -> None:
    for kind, tags in (("addStyleTag", control.addStyleTag), ("addScriptTag", control.addScriptTag)):
        for index, tag in enumerate(tags):
            try:
                if kind == "addStyleTag":
                    page.add_style_tag(content=tag.content, url=tag.url)
                else:
                    page.add_script_tag(content=tag.content, url=tag.url)
            except PlaywrightTimeoutError:
                raise
            except PlaywrightError as exc:
                what = tag.url if tag.url is not None else "its content"
                raise NavigationFailed(f"{kind}[{index}] failed: {what} could not be loaded or run") from exc


def _wait_for_selector(page: Page, control: PageControl, deadline: Deadline, warnings: list[str]) -> None:
    wait = control.waitForSelector
    assert wait is not None
    budget = _best_attempt_ms(deadline) if control.bestAttempt else deadline.timeout_ms()
    timeout = min(wait.timeout, budget) if wait.timeout else budget  # 0: no limit but the budget's
    try:
        page.wait_for_selector(f"css={wait.selector}", state=wait.state, timeout=max(timeout, 1))
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
    return "is not a valid selector" in message or "SyntaxError" in message or "Unexpected token" in message
