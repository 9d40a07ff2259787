"""The egress decision for one host and port: resolve once, judge every address, judge the port.

Shared by the API edge (`check_target`) and the proxy so that both refuse exactly the same things.

Mixed answers: a name is refused if ANY of its addresses is refused, even when some are public. Picking
only the public ones would also be safe for the proxy (it connects to what it checked), but a name that
answers both public and internal is either misconfigured or a rebinding attack, and refusing keeps the edge
check and the proxy in agreement about which names are fine.

Ports: 80 and 443, plus every port from 1024 up except the ones Chromium itself refuses to fetch (its
"unsafe ports": SIP, IRC, X11, NFS...). Users of a screenshot API expect what a browser can open to be
capturable, and http://host:8080/ or https://host:8443/ are common; refusing the low ports (other than
80/443) stops the proxy being used against mail, SSH, LDAP and other services on public hosts. CONNECT
follows the same rule as plain HTTP, since Chromium tunnels ws:// (port 80) through CONNECT too. Addresses
on the allow-list (development and tests) may use any port.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Final

from webcapture.egress.addresses import (
    ALLOWED_LISTED,
    IPAddress,
    allow_networks,
    allow_networks_on_any_port,
    classify,
)
from webcapture.egress.hosts import Host, HostError, host_text, parse_host
from webcapture.egress.resolver import HostUnresolved, Resolver, resolve_blocking
from webcapture.settings import get_settings

WEB_PORTS: Final = frozenset({80, 443})
# net/base/port_util.cc kRestrictedPorts, the part at or above 1024 (lower ones are refused anyway).
CHROMIUM_UNSAFE_HIGH_PORTS: Final = frozenset(
    {1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679,
     6697, 10080}
)  # fmt: skip


class EgressRefused(Exception):
    """The policy refuses this host or port. `address` is the offending address when there is one."""

    def __init__(self, host: str, port: int | None, reason: str, address: IPAddress | None = None) -> None:
        self.host, self.port, self.reason, self.address = host, port, reason, address
        super().__init__(f"{host}: {reason}")


@dataclass(frozen=True, slots=True)
class Route:
    """Where a connection for `host:port` may go: every address checked, in the order to try them."""

    host: str
    port: int
    addresses: tuple[IPAddress, ...]
    resolved: bool  # True when `host` was a name, False for an IP literal


def port_allowed(port: int) -> bool:
    return port in WEB_PORTS or (1024 <= port <= 65535 and port not in CHROMIUM_UNSAFE_HIGH_PORTS)


def judge(host: str, port: int, addresses: Iterable[IPAddress], *, resolved: bool) -> Route:
    """Apply the address and port rules to an already resolved host. Pure: no I/O."""
    allow = allow_networks(get_settings().egress_allow, port)
    verdicts = [classify(address, allow) for address in addresses]
    for verdict in verdicts:
        if not verdict.allowed:
            raise EgressRefused(host, port, verdict.reason, verdict.address)
    listed = bool(verdicts) and all(verdict.reason == ALLOWED_LISTED for verdict in verdicts)
    if not (1 <= port <= 65535) or not (listed or port_allowed(port)):
        raise EgressRefused(host, port, "port")
    targets = tuple(v.connect_to for v in verdicts if v.connect_to is not None)
    return Route(host, port, tuple(dict.fromkeys(targets)), resolved)


def route(host: Host, port: int, resolver: Resolver | None = None) -> Route:
    """Resolve (blocking, time-limited) and judge."""
    if isinstance(host, str):
        return judge(host, port, resolve_blocking(host, resolver), resolved=True)
    return judge(host_text(host), port, (host,), resolved=False)


async def route_async(
    host: Host, port: int, lookup: Callable[[str], Awaitable[tuple[IPAddress, ...]]]
) -> Route:
    """Resolve with `lookup` (the request's remembered answers, or a fresh lookup) and judge."""
    if isinstance(host, str):
        return judge(host, port, await lookup(host), resolved=True)
    return judge(host_text(host), port, (host,), resolved=False)


def host_allowed(raw_host: str, resolver: Resolver | None = None) -> bool:
    """Whether the browser could reach `raw_host` at all (on some allowed port): every address of it
    allowed. For what names a host without a port, such as a cookie's domain (a leading "." is a cookie's
    way of including subdomains). A host that is not valid or does not resolve is not reachable."""
    try:
        host = parse_host(raw_host.removeprefix(".").lower())
        addresses = resolve_blocking(host, resolver) if isinstance(host, str) else (host,)
    except (HostError, HostUnresolved):
        return False
    allow = allow_networks_on_any_port(get_settings().egress_allow)
    return bool(addresses) and all(classify(address, allow).allowed for address in addresses)
