"""Egress policy (CONTRACT 13): no request the browser makes reaches a non-public address.

- `check_target(url)`: the fast check at the API edge (edge.py).
- `proxy_server()` / `chromium_args()`: the IP-pinning proxy every browser request goes through (proxy.py)
  and the Chromium flags that send everything to it (chromium.py).
- `refusal_log()`: which requests the proxy refused while a capture ran (refusals.py), so a main document
  redirected to an internal address is answered 400 URL_NOT_ALLOWED.

- `open_scope()`: a listener of the proxy for one request's context, with the request's own memory of
  host answers (each host looked up once per request, failures included).

Modules: addresses (which IPs), hosts (browser-exact URL/host parsing), resolver (which resolver, and a
request's answers), policy (the decision
for host:port), http1 (the proxy's HTTP), proxy, chromium, refusals, edge.
"""

from __future__ import annotations

from contextvars import ContextVar

from webcapture import request_scope
from webcapture.egress.addresses import Verdict, classify
from webcapture.egress.chromium import (
    SERVICE_WORKERS,
    context_options,
    hardening_args,
    navigation_allowed,
    sanitize_args,
)
from webcapture.egress.edge import check_target as _check_target
from webcapture.egress.hosts import parse_host
from webcapture.egress.policy import Route, port_allowed
from webcapture.egress.proxy import EgressProxy, ProxyScope, container_resolver, open_scope
from webcapture.egress.proxy import proxy_server as _start_proxy
from webcapture.egress.refusals import (
    EGRESS_HEADER,
    REFUSED,
    TIMED_OUT,
    UNREACHABLE,
    UNRESOLVED,
    Refusal,
    RefusalLog,
    egress_outcome,
    refusal_log,
)
from webcapture.egress.resolver import HostAnswers, Resolver

# The targets this request has checked: the operation checks before it reserves credits and the browser
# core again before it loads, and the request's one lookup must serve both. Tied to the request's scope
# object, so nothing is carried over to another request.
_checked: ContextVar[tuple[request_scope.RequestScope, dict[str, Route]] | None] = ContextVar(
    "webcapture_checked_targets", default=None
)


def check_target(url: str) -> Route:
    """The edge check (edge.py) with the resolver the container's proxy uses: both ask the same one. Within
    a request, a URL already checked answers with the route it got."""
    scope = request_scope.current()
    held = _checked.get()
    if scope is not None and (held is None or held[0] is not scope):
        held = (scope, {})
        _checked.set(held)
    known = held[1] if scope is not None and held is not None else None
    if known is not None and url in known:
        return known[url]
    route = _check_target(url, container_resolver())
    if known is not None:
        known[url] = route
    return route


def chromium_args() -> list[str]:
    """Extra Chromium flags the egress policy needs (proxy server, hardening). Starts the proxy."""
    return hardening_args(_start_proxy())


def proxy_server() -> str | None:
    """The egress proxy's address for Playwright's `proxy` launch option, starting it on first use."""
    return _start_proxy()


__all__ = [
    "EGRESS_HEADER",
    "REFUSED",
    "SERVICE_WORKERS",
    "TIMED_OUT",
    "UNREACHABLE",
    "UNRESOLVED",
    "EgressProxy",
    "HostAnswers",
    "ProxyScope",
    "Refusal",
    "RefusalLog",
    "Resolver",
    "Route",
    "Verdict",
    "check_target",
    "chromium_args",
    "classify",
    "context_options",
    "egress_outcome",
    "hardening_args",
    "navigation_allowed",
    "open_scope",
    "parse_host",
    "port_allowed",
    "proxy_server",
    "refusal_log",
    "sanitize_args",
]
