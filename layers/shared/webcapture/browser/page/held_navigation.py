"""A navigation the page's own script asks for while its document is still being parsed (an inline
`location = ...` in the `<head>`: an http-to-https hop, a localised copy) is held, then followed only if
its address can be loaded (docs/script-navigation.md#a-navigation-asked-for-while-the-page-is-parsed).

A navigation that starts stops the document it leaves: parsing ends there, and its DOMContentLoaded never
fires. When the new address then fails (a host that does not resolve, a port that refuses, no TLS where
https was asked for), Chromium commits an error page in place of the page, and the page has to be loaded a
second time to be captured. So such a request to leave is cancelled from the page's Navigation API
`navigate` event (a listener installed before any of the page's scripts), and remembered. Once the page is
loaded, the address is tried, with the egress policy's own resolution and no HTTP request: a name that does
not resolve, a connection that fails, a TLS handshake that fails all mean the page stays, answered with a
warning; anything else (and an address the policy refuses, which the browser's proxy refuses as ever) is
released: the page navigates there as it asked, and is captured where it lands.

Not held: navigations once the document is parsed (followed as they start, page_motion), form posts,
reloads, downloads, fragment changes, other schemes, navigations of frames, and pages that go through an
upstream proxy pool (this machine cannot try the pool's way out).
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Final

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from webcapture import egress
from webcapture.browser.budget import Deadline
from webcapture.browser.page.page_motion import PROXY_FAILURES, MainFrameMotion
from webcapture.egress.hosts import HostError, parse_url
from webcapture.egress.policy import EgressRefused, route
from webcapture.egress.proxy import container_resolver
from webcapture.egress.resolver import HostUnresolved
from webcapture.errors import NavigationTimeout

# The longest try of a held address: the egress proxy gives a connection as long before it calls the
# address unreachable.
CONNECT_TIMEOUT_S: Final = 10.0
# How long a released navigation may take to reach the browser before the page counts as staying.
_START_MS: Final = 2000
_POLL_MS: Final = 10
# A released navigation's landing can hold one of its own: followed this many times at most.
_MAX_RELEASES: Final = 4

_HELD = "__webcaptureHeld"
HOLD_JS = f"""(() => {{
  if (typeof navigation === "undefined" || window !== window.top) return;
  const held = {{url: null, replace: false, releasing: null}};
  Object.defineProperty(window, "{_HELD}", {{value: held, enumerable: false}});
  navigation.addEventListener("navigate", (event) => {{
    const url = event.destination.url;
    if (held.releasing === url) {{ held.releasing = null; return; }}
    if (document.readyState !== "loading" || event.defaultPrevented || !event.cancelable) return;
    if (event.destination.sameDocument || event.downloadRequest !== null || event.formData !== null) return;
    if (event.navigationType !== "push" && event.navigationType !== "replace") return;
    if (!/^https?:/i.test(url)) return;
    event.preventDefault();  // before the page's own listeners and the service's count of requests to leave
    held.url = url;
    held.replace = event.navigationType === "replace";
  }});
}})();"""
_TAKE = f"""() => {{
  const held = window.{_HELD};
  if (!held || held.url === null) return null;
  const taken = {{url: held.url, replace: held.replace}};
  held.url = null;
  return taken;
}}"""
_RELEASE = f"""([url, replace]) => {{
  window.{_HELD}.releasing = url;
  if (replace) location.replace(url); else location.assign(url);
}}"""


@dataclass(frozen=True)
class HeldNavigation:
    url: str
    replace: bool  # the page asked to replace its history entry (every navigation during a load does)


def take_held(page: Page) -> HeldNavigation | None:
    """The navigation the page's document asked for while it was parsed, if any (then forgotten)."""
    try:
        taken = page.evaluate(_TAKE)
    except PlaywrightError:
        return None  # the document is being replaced: nothing of it is held
    if not isinstance(taken, dict):
        return None
    return HeldNavigation(str(taken["url"]), bool(taken["replace"]))


def follow_held(
    page: Page, motion: MainFrameMotion, deadline: Deadline, returned_from: str | None
) -> str | None:
    """Decide the held navigation, if any: the warning for the answer when its address cannot be loaded (the
    page stays); otherwise it is released and waited for until its landing is at rest, and None.
    `returned_from` is an address the page was already sent back from (it is not tried twice)."""
    for _ in range(_MAX_RELEASES):
        held = take_held(page)
        if held is None or held.url == returned_from:
            return None
        reason = unreachable(held.url, deadline)
        if reason is not None:
            return (f"The page navigated by script to {held.url}, which could not be loaded ({reason}); "
                    f"this is the page it left, {page.url}")
        moves = motion.moves
        # The navigation may begin inside the call and take the document (and the call's answer) with it.
        with contextlib.suppress(PlaywrightError):
            page.evaluate(_RELEASE, [held.url, held.replace])
        gives_up = time.monotonic() + _START_MS / 1000
        while motion.moves == moves and time.monotonic() < gives_up:
            page.wait_for_timeout(min(_POLL_MS, deadline.timeout_ms()))
        motion.settle(deadline)
    return None


def unreachable(url: str, deadline: Deadline) -> str | None:
    """Chromium's word (net::ERR_...) for why `url` cannot be loaded: its host does not resolve, no address
    accepts a connection, or (https) no TLS handshake completes. None when it can be reached, or when it is
    not for this to judge: the policy refuses it (the browser's proxy refuses it, and says so), or it is no
    http(s) URL."""
    try:
        target = parse_url(url)
    except HostError:
        return None
    if target.scheme not in ("http", "https"):
        return None
    try:
        checked = route(target.host, target.port, container_resolver())
    except EgressRefused:
        return None
    except (HostUnresolved, NavigationTimeout):
        return PROXY_FAILURES[egress.UNRESOLVED]
    timeout_s = min(CONNECT_TIMEOUT_S, max(deadline.remaining_ms, 0) / 1000)
    failure = PROXY_FAILURES[egress.UNREACHABLE]
    for address in checked.addresses:
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout_s)
            try:
                sock.connect((str(address), target.port))
            except TimeoutError:
                failure = PROXY_FAILURES[egress.TIMED_OUT]
                continue
            except OSError:
                continue
            if target.scheme != "https":
                return None
            return _handshake(sock, target.host_text)
        finally:
            with contextlib.suppress(OSError):
                sock.close()
    return failure


def _handshake(sock: socket.socket, host: str) -> str | None:
    """A TLS handshake on a connected socket: None when one completes (whatever the certificate: a bad one
    is the browser's to report), else Chromium's word for a failed one."""
    try:
        with _any_certificate().wrap_socket(sock, server_hostname=host):
            return None
    except ssl.SSLError:
        return "net::ERR_SSL_PROTOCOL_ERROR"
    except TimeoutError:
        return PROXY_FAILURES[egress.TIMED_OUT]
    except OSError:
        return "net::ERR_CONNECTION_CLOSED"


def _any_certificate() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context
