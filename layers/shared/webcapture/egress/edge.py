"""The check at the API edge: refuse an obviously internal target before any browser work or credit.

The proxy enforces the policy for every request the browser makes; this only makes the common refusal
fast and clear (400 URL_NOT_ALLOWED instead of a failed navigation). Both apply the same policy.
"""

from __future__ import annotations

from typing import NoReturn

from webcapture.egress.hosts import HostError, parse_url, split_scheme
from webcapture.egress.policy import EgressRefused, Route, route
from webcapture.egress.refusals import Refusal, record_refusal
from webcapture.egress.resolver import HostUnresolved, Resolver
from webcapture.errors import NavigationFailed, UrlNotAllowed


def check_target(url: str, resolver: Resolver | None = None) -> Route:
    """Raise UrlNotAllowed unless the URL is http(s) and every address of its host is allowed.

    An IP literal (in any spelling) costs no lookup. A name is resolved once, time-limited; a name that
    does not resolve raises NavigationFailed (502, as the browser's DNS failure would).
    Messages name only what the caller gave (or its canonical spelling), never an address a name
    resolved to: that would tell the caller about internal DNS.
    """
    try:
        scheme, _ = split_scheme(url)
    except HostError:
        _refuse(url, "", None, "invalid-url", "The URL is not valid")
    if scheme not in ("http", "https"):
        _refuse(url, "", None, "scheme", "Only http and https URLs are allowed")
    try:
        target = parse_url(url)
    except HostError:
        _refuse(url, "", None, "invalid-host", "The URL's host is not valid")
    try:
        return route(target.host, target.port, resolver)
    except EgressRefused as refused:
        if refused.reason == "port":
            message = f"Port {target.port} is not allowed"
        elif isinstance(target.host, str):
            message = f"The host {target.host_text} resolves to a non-public address"
        else:
            message = f"The address {target.host_text} is not a public address ({refused.reason})"
        address = None if refused.address is None else str(refused.address)
        _refuse(url, target.host_text, target.port, refused.reason, message, address)
    except HostUnresolved:
        raise NavigationFailed(
            f"net::ERR_NAME_NOT_RESOLVED: {target.host_text} could not be resolved"
        ) from None


def _refuse(
    url: str, host: str, port: int | None, reason: str, message: str, address: str | None = None
) -> NoReturn:
    record_refusal(Refusal(host=host, port=port, address=address, reason=reason, stage="edge", url=url))
    raise UrlNotAllowed(message)
