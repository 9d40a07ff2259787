"""Page control (docs/api.md#page-control) at context creation: the device, emulation, headers, credentials,
cookies and routes of a request's fresh context, before anything loads (the page's own preparation is
page_preparation).

Nothing here fetches anything: headers and cookies only change what Chromium asks, and every request it
makes still goes through the egress proxy (docs/api.md#egress-policy). Routes only abort or fall back, never
fulfil or fetch, so the handlers other features register on the context (ad blocking, consent banners) chain
with these.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import idna
from playwright._impl.isomorphic.url_match import resolve_glob_base
from playwright.sync_api import BrowserContext, Route, WebSocketRoute
from playwright.sync_api import Error as PlaywrightError

from webcapture.browser.filters import ad_blocking, cookie_banners
from webcapture.browser.page.lazy_content import watch_lazy_loading
from webcapture.errors import RequestValidationError
from webcapture.models.devices import device_descriptors
from webcapture.models.page_control import PageControl
from webcapture.url_globs import url_matcher


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


def target_origin(url: str) -> str:
    """scheme://host[:port] as a browser serialises an origin (default ports left out)."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if not host.isascii():
        host = idna.encode(host, uts46=True).decode("ascii")  # as the browser's URL.origin has it
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
    if control.headers and control.headersScope == "all":
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
    if control.headers and control.headersScope == "origin":
        _send_headers_to_origin(context, dict(control.headers), target_origin(url))
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
    if control.rejectRequestPattern:
        # Playwright's glob grammar, but matched here in linear time: given the strings, Playwright would
        # turn each into a backtracking regular expression (in the driver, and in Python too once any
        # route takes every request), and a crafted glob stalls the container for minutes.
        refused = url_matcher(tuple(resolve_glob_base(None, glob) for glob in control.rejectRequestPattern))
        context.route(refused.matches, _abort)
        context.route_web_socket(refused.matches, _close_socket)
    if control.scrollPage:
        watch_lazy_loading(context)
    if control.blockAds:
        ad_blocking.enable_ad_blocking(context, url)
    if control.blockCookieBanners:
        cookie_banners.enable_cookie_banner_handling(context)


def _send_headers_to_origin(context: BrowserContext, headers: dict[str, str], origin: str) -> None:
    """The caller's headers on requests for `origin` only: a frame, image or script of another origin gets
    none of them (a caller's token must not reach ad servers and CDNs)."""

    names = {name.lower() for name in headers}

    def with_headers(route: Route) -> None:
        request = route.request
        if target_origin(request.url) == origin:
            # The caller's value replaces the page's own for the same name, as extra headers do.
            kept = {name: value for name, value in request.headers.items() if name.lower() not in names}
            route.fallback(headers={**kept, **headers})
        else:
            route.fallback()

    context.route("**/*", with_headers)


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
    except PlaywrightError:
        # A cookie the browser refuses that the request model let through: find which one, alone, so the
        # issue names it (path ["cookies", i, field]) in our words rather than the driver's.
        index, field = _refused_cookie(context, cookies)
        raise RequestValidationError([{
            "code": "custom", "path": ["cookies", index, field],
            "message": f"The browser refuses this cookie's {field} for {host or 'the target'}",
        }]) from None


def _refused_cookie(context: BrowserContext, cookies: list[Any]) -> tuple[int, str]:
    for index, cookie in enumerate(cookies):
        try:
            context.add_cookies([cookie])
        except PlaywrightError as exc:
            return index, _cookie_field(exc.message or str(exc))
    return 0, "domain"  # refused together only: the pair's domains disagree with the target


def _cookie_field(message: str) -> str:
    """The cookie field the browser's refusal is about, from its words (domain when it does not say)."""
    lowered = message.lower()
    for name in ("samesite", "secure", "expires", "path", "name", "value"):
        if name in lowered:
            return "sameSite" if name == "samesite" else name
    return "domain"


def close_quietly(context: BrowserContext) -> None:
    """Close a context, ignoring a browser already gone (a context is only ever closed to free it)."""
    with contextlib.suppress(Exception):
        context.close()
