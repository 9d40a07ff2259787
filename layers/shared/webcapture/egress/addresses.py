"""Which IP addresses the browser may reach (docs/api.md#egress-policy): global unicast only.

The tables follow the IANA IPv4 and IPv6 special-purpose address registries rather than Python's
`ipaddress.is_global`, whose tables changed between patch releases (3.11.10, 3.12.4) and which calls
multicast, site-local and NAT64 addresses "global". Where the registry marks a block "global" but no web
server lives there (192.0.0.9/10, AMT, AS112 in 2001::/23), we refuse anyway: stricter costs nothing.

Addresses that carry an IPv4 address inside an IPv6 one (IPv4-mapped, NAT64 64:ff9b::/96, 6to4) are judged
by the IPv4 address they wrap, because that is where the packets end up.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOWED_GLOBAL: Final = "global"
ALLOWED_LISTED: Final = "allow-listed"

_v4 = ipaddress.IPv4Network
_v6 = ipaddress.IPv6Network

# Most specific first: the first match names the reason.
_V4_BLOCKS: Final[tuple[tuple[ipaddress.IPv4Network, str], ...]] = (
    (_v4("0.0.0.0/32"), "unspecified"),
    (_v4("0.0.0.0/8"), "this-network"),  # Linux routes 0.x to the local host
    (_v4("10.0.0.0/8"), "private"),
    (_v4("100.64.0.0/10"), "cgnat"),
    (_v4("127.0.0.0/8"), "loopback"),
    (_v4("169.254.0.0/16"), "link-local"),  # includes 169.254.169.254, the instance metadata service
    (_v4("172.16.0.0/12"), "private"),
    (_v4("192.0.0.0/24"), "ietf-protocol"),  # DS-Lite, NAT64 discovery, PCP/TURN anycast
    (_v4("192.0.2.0/24"), "documentation"),
    (_v4("192.88.99.0/24"), "6to4-relay"),  # deprecated anycast (RFC 7526)
    (_v4("192.168.0.0/16"), "private"),
    (_v4("198.18.0.0/15"), "benchmarking"),
    (_v4("198.51.100.0/24"), "documentation"),
    (_v4("203.0.113.0/24"), "documentation"),
    (_v4("224.0.0.0/4"), "multicast"),
    (_v4("255.255.255.255/32"), "broadcast"),
    (_v4("240.0.0.0/4"), "reserved"),
)

_MAPPED: Final = _v6("::ffff:0:0/96")
_NAT64: Final = _v6("64:ff9b::/96")
_SIX_TO_FOUR: Final = _v6("2002::/16")
# RFC 4291 2.4 / IANA: only 2000::/3 is allocated for global unicast. Everything outside it that is not
# unwrapped above (mapped, NAT64) is refused; the blocks below name the reason where one exists.
_GLOBAL_UNICAST: Final = _v6("2000::/3")

_V6_BLOCKS: Final[tuple[tuple[ipaddress.IPv6Network, str], ...]] = (
    (_v6("::/128"), "unspecified"),
    (_v6("::1/128"), "loopback"),
    (_v6("::/96"), "ipv4-compatible"),  # deprecated ::a.b.c.d (RFC 4291 2.5.5.1)
    (_v6("::ffff:0:0:0/96"), "ipv4-translated"),  # SIIT (RFC 2765)
    (_v6("64:ff9b:1::/48"), "nat64-local"),  # local-use NAT64 (RFC 8215): a private translator
    (_v6("100::/64"), "discard"),
    (_v6("2001::/32"), "teredo"),  # a tunnel whose far end we cannot judge
    (_v6("2001::/23"), "ietf-protocol"),
    (_v6("2001:db8::/32"), "documentation"),
    (_v6("3fff::/20"), "documentation"),
    (_v6("5f00::/16"), "srv6"),  # segment routing SIDs (RFC 9602), not hosts
    (_v6("fc00::/7"), "unique-local"),
    (_v6("fe80::/10"), "link-local"),
    (_v6("fec0::/10"), "site-local"),
    (_v6("ff00::/8"), "multicast"),
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judgement on one address.

    `connect_to` is the address a connection should use: the IPv4 address itself for an IPv4-mapped one
    (a v6 socket would only map it back), else the address as given.
    """

    address: IPAddress
    allowed: bool
    reason: str
    wrapped: str | None = None  # "ipv4-mapped", "nat64" or "6to4" when judged by the wrapped IPv4 address
    connect_to: IPAddress | None = None


def classify(address: IPAddress, allow: Iterable[IPNetwork] = ()) -> Verdict:
    """Judge `address`; `allow` (development and tests only) overrides the refusal."""
    address = _without_scope(address)
    inner, wrapped = _unwrap(address)
    connect_to: IPAddress = inner if wrapped == "ipv4-mapped" and inner is not None else address
    allow = tuple(allow)
    if allow and any(_in(a, net) for net in allow for a in (address, inner) if a is not None):
        return Verdict(address, True, ALLOWED_LISTED, wrapped, connect_to)
    if inner is not None:
        reason = _v4_reason(inner)
    else:
        assert isinstance(address, ipaddress.IPv6Address)  # IPv4 always unwraps to itself
        reason = _v6_reason(address)
    if reason is None:
        return Verdict(address, True, ALLOWED_GLOBAL, wrapped, connect_to)
    return Verdict(address, False, reason, wrapped, None)


@lru_cache(maxsize=64)
def allow_networks(entries: tuple[str, ...], port: int | None = None) -> tuple[IPNetwork, ...]:
    """Parse WEBCAPTURE_EGRESS_ALLOW: the networks it opens for `port`. An entry is a CIDR or an address
    (every port), or `address:port` / `[v6address]:port` (that port only: a dev server, not every service
    on loopback, such as the local AWS emulator). A bad entry raises: a dev setting that silently allows
    nothing (or everything) is worse than a loud failure."""
    networks = []
    for entry in entries:
        network, entry_port = _allow_entry(entry)
        if entry_port is None or entry_port == port:
            networks.append(network)
    return tuple(networks)


@lru_cache(maxsize=16)
def allow_networks_on_any_port(entries: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    """Every network WEBCAPTURE_EGRESS_ALLOW opens, whatever its port: for what names a host but no port
    (a cookie's domain)."""
    return tuple(_allow_entry(entry)[0] for entry in entries)


def _allow_entry(entry: str) -> tuple[IPNetwork, int | None]:
    address, port = entry, None
    if entry.startswith("["):
        address, _, rest = entry[1:].partition("]")
        port = _port(rest.removeprefix(":"), entry) if rest else None
    elif entry.count(":") == 1:
        address, _, text = entry.partition(":")
        port = _port(text, entry)
    return ipaddress.ip_network(address, strict=False), port


def _port(text: str, entry: str) -> int:
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ValueError(f"WEBCAPTURE_EGRESS_ALLOW: bad port in {entry!r}")
    return int(text)


def _unwrap(address: IPAddress) -> tuple[ipaddress.IPv4Address | None, str | None]:
    if isinstance(address, ipaddress.IPv4Address):
        return address, None
    if address in _MAPPED:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), "ipv4-mapped"
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), "nat64"
    if address in _SIX_TO_FOUR:
        return ipaddress.IPv4Address((int(address) >> 80) & 0xFFFFFFFF), "6to4"
    return None, None


def _v4_reason(address: ipaddress.IPv4Address) -> str | None:
    for network, reason in _V4_BLOCKS:
        if address in network:
            return reason
    return None


def _v6_reason(address: ipaddress.IPv6Address) -> str | None:
    for network, reason in _V6_BLOCKS:
        if address in network:
            return reason
    return None if address in _GLOBAL_UNICAST else "reserved"


def _in(address: IPAddress, network: IPNetwork) -> bool:
    # `in` across versions is simply False; spelled out so mypy sees matching types.
    if isinstance(address, ipaddress.IPv4Address):
        return isinstance(network, ipaddress.IPv4Network) and address in network
    return isinstance(network, ipaddress.IPv6Network) and address in network


def _without_scope(address: IPAddress) -> IPAddress:
    # "fe80::1%eth0" compares unequal to "fe80::1" in some versions; the zone never makes an address public.
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
        return ipaddress.IPv6Address(int(address))
    return address
