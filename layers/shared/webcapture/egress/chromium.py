"""Chromium settings the egress policy needs: everything through the proxy, nothing around it.

The proxy is the enforcement; these flags close the paths that would not go through it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from webcapture.egress.hosts import HostError, split_scheme

PROXY_HOST: Final = "127.0.0.1"

# Playwright's new_context() option: no flag disables service workers. Their fetches would still go through
# the proxy, but a blocked worker cannot intercept the page's requests or outlive a navigation.
SERVICE_WORKERS: Final = "block"

# Flags that weaken web security or steer traffic around the proxy. Dropped from any flag set (for instance
# the Lambda Chromium package's defaults) before our own are added.
UNSAFE_FLAGS: Final = frozenset(
    {
        "--disable-web-security",
        "--allow-running-insecure-content",
        "--allow-file-access-from-files",
        "--allow-file-access",
        "--no-proxy-server",
        "--proxy-auto-detect",
        "--proxy-pac-url",
        "--proxy-server",
        "--proxy-bypass-list",
        "--host-rules",
        "--host-resolver-rules",
        "--winhttp-proxy-resolver",
    }
)


def hardening_args(proxy_url: str) -> list[str]:
    """The egress flags, each for a reason. Do not add --disable-features/--enable-features here: Chromium
    keeps only the last of a repeated switch, and Playwright passes its own list."""
    return [
        # Every request, every scheme, through the IP-pinning proxy.
        f"--proxy-server={proxy_url}",
        # Chromium never proxies localhost, loopback or link-local (169.254/16, fe80::/10) by default; this
        # removes that implicit bypass so those requests reach the proxy and are refused there.
        "--proxy-bypass-list=<-loopback>",
        # Chromium's own resolver answers nothing, so a path that escaped the proxy (a bypass we did not
        # foresee, WebRTC, prefetch) cannot reach a named host. The proxy's IP literal needs no lookup.
        f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {PROXY_HOST}",
        # QUIC is UDP and cannot go through an HTTP proxy.
        "--disable-quic",
        # WebRTC may only use the proxy (TCP via CONNECT, judged like anything else), never raw UDP.
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        # No speculative DNS lookups of hosts the page mentions (moot with the resolver rules, kept so no
        # name even leaks to DNS).
        "--dns-prefetch-disable",
        # No background requests of Chromium's own (updates, field trials) competing with the page.
        "--disable-background-networking",
    ]


def sanitize_args(args: Iterable[str]) -> list[str]:
    """`args` without the flags in UNSAFE_FLAGS (with or without a value)."""
    return [arg for arg in args if arg.split("=", 1)[0] not in UNSAFE_FLAGS]


def context_options() -> dict[str, str]:
    """Keyword arguments for Playwright's `browser.new_context()`."""
    return {"service_workers": SERVICE_WORKERS}


def navigation_allowed(url: str) -> bool:
    """May a page be at this URL at top level? http(s) and about:blank only (addresses are the proxy's
    business). Refuses file:, view-source:, chrome:, data:, blob:, javascript:, filesystem: and the rest."""
    try:
        scheme, rest = split_scheme(url)
    except HostError:
        return False
    if scheme in ("http", "https"):
        return True
    return scheme == "about" and rest.split("?", 1)[0].split("#", 1)[0].lower() == "blank"
