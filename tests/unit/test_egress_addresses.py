"""The address classifier against Python's ipaddress truth (hypothesis) and against each named range."""

from __future__ import annotations

import ipaddress
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webcapture.egress.addresses import IPAddress, IPNetwork, allow_networks, classify

NAT64 = IPv6Network("64:ff9b::/96")

# Where we are deliberately stricter than ipaddress (whose tables also vary between patch releases):
# blocks the IANA registry lists but where no web server lives. Each is refused, never allowed.
STRICTER_V4 = (
    IPv4Network("192.0.0.0/24"),  # ipaddress >= 3.11.10 calls 192.0.0.9 and .10 global
    IPv4Network("192.88.99.0/24"),  # deprecated 6to4 relay anycast
)
STRICTER_V6 = (
    IPv6Network("2001::/23"),  # newer ipaddress allows some IETF-protocol blocks (AMT, AS112)
    IPv6Network("3fff::/20"),  # documentation (RFC 9637), unknown to older ipaddress
    IPv6Network("5f00::/16"),  # SRv6 SIDs
    IPv6Network("64:ff9b:1::/48"),  # local-use NAT64
)


def inner_v4(address: IPAddress) -> IPv4Address | None:
    """The IPv4 address an IPv6 address delivers to, for the forms that wrap one."""
    if isinstance(address, IPv4Address):
        return address
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def truth(address: IPAddress) -> bool:
    """ipaddress's own answer to "global unicast?", with wrapped IPv4 forms judged by what they wrap."""
    inner = inner_v4(address)
    if inner is not None and inner != address:
        return truth(inner)
    flags = [
        address.is_multicast,
        address.is_reserved,
        address.is_loopback,
        address.is_link_local,
        address.is_unspecified,
        address.is_private,
    ]
    if isinstance(address, IPv6Address):
        flags.append(address.is_site_local)
    return address.is_global and not any(flags)


def stricter(address: IPAddress) -> bool:
    inner = inner_v4(address)
    if inner is not None:
        return any(inner in network for network in STRICTER_V4)
    return any(address in network for network in STRICTER_V6)


def wrap(kind: str, v4: IPv4Address, low: int = 0) -> IPv6Address:
    if kind == "mapped":
        return IPv6Address((0xFFFF << 32) | int(v4))
    if kind == "nat64":
        return IPv6Address(int(NAT64.network_address) | int(v4))
    return IPv6Address((0x2002 << 112) | (int(v4) << 80) | (low & ((1 << 80) - 1)))  # 6to4


SPECIAL_NETWORKS = [
    *(ip_network(n) for n in ("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16")),
    *(ip_network(n) for n in ("172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24")),
    *(ip_network(n) for n in ("192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24")),
    *(ip_network(n) for n in ("224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32")),
    *(ip_network(n) for n in ("::/96", "::ffff:0:0/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48")),
    *(ip_network(n) for n in ("100::/64", "2001::/32", "2001::/23", "2001:db8::/32", "2002::/16")),
    *(ip_network(n) for n in ("3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8")),
]

any_v4 = st.ip_addresses(v=4)
any_v6 = st.ip_addresses(v=6)
in_special = st.sampled_from(SPECIAL_NETWORKS).flatmap(lambda n: st.ip_addresses(network=n))
wrapped = st.builds(
    wrap, st.sampled_from(["mapped", "nat64", "6to4"]), any_v4 | in_special.filter(lambda a: a.version == 4),
    st.integers(min_value=0, max_value=(1 << 80) - 1),
)  # fmt: skip
addresses = any_v4 | any_v6 | in_special | wrapped


@given(addresses)
def test_allowed_exactly_when_ipaddress_says_global_unicast(address: IPAddress) -> None:
    verdict = classify(address)
    assert verdict.allowed == (truth(address) and not stricter(address)), verdict


@pytest.mark.parametrize("network", SPECIAL_NETWORKS, ids=str)
@settings(max_examples=40)
@given(data=st.data())
def test_each_special_range_and_its_edges_match_the_truth(network: IPNetwork, data: st.DataObject) -> None:
    inside = data.draw(st.ip_addresses(network=network))
    edges = [network.network_address, network.broadcast_address]
    outside = [a for a in (int(edges[0]) - 1, int(edges[1]) + 1) if 0 <= a < 2**network.max_prefixlen]
    for address in [
        inside,
        *edges,
        *(ip_address(a) if network.version == 4 else IPv6Address(a) for a in outside),
    ]:
        assert classify(address).allowed == (truth(address) and not stricter(address)), address
        if network.version == 4:
            for kind in ("mapped", "nat64", "6to4"):
                wrapped_form = wrap(kind, IPv4Address(address))
                assert classify(wrapped_form).allowed == classify(address).allowed, wrapped_form


@given(addresses)
def test_never_allows_what_ipaddress_calls_non_global(address: IPAddress) -> None:
    if not truth(address):
        assert not classify(address).allowed


@given(addresses)
def test_allowed_addresses_connect_to_the_judged_address(address: IPAddress) -> None:
    verdict = classify(address)
    if verdict.allowed:
        assert verdict.connect_to is not None
        assert truth(verdict.connect_to)
        # Only the IPv4-mapped form is rewritten, to the IPv4 address it means.
        expected = (
            address.ipv4_mapped if isinstance(address, IPv6Address) and address.ipv4_mapped else address
        )
        assert verdict.connect_to == expected
    else:
        assert verdict.connect_to is None


@given(addresses)
def test_the_allow_list_overrides(address: IPAddress) -> None:
    own = ip_network(address)
    assert classify(address, [own]).allowed
    assert classify(address, [own]).reason == "allow-listed"


@given(addresses, st.ip_addresses(v=4))
def test_an_unrelated_allow_list_changes_nothing(address: IPAddress, other: IPv4Address) -> None:
    inner = inner_v4(address)
    if other in (address, inner):
        return
    assert classify(address, [ip_network(other)]).allowed == classify(address).allowed


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("10.0.0.1", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.255", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("169.254.0.1", "link-local"),
        ("100.64.0.1", "cgnat"),
        ("100.127.255.255", "cgnat"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "broadcast"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "this-network"),
        ("198.18.0.1", "benchmarking"),
        ("198.19.255.255", "benchmarking"),
        ("192.0.2.1", "documentation"),
        ("198.51.100.1", "documentation"),
        ("203.0.113.1", "documentation"),
        ("192.0.0.9", "ietf-protocol"),
        ("192.0.0.170", "ietf-protocol"),
        ("192.88.99.1", "6to4-relay"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("::127.0.0.1", "ipv4-compatible"),
        ("::ffff:0:7f00:1", "ipv4-translated"),
        ("64:ff9b:1::a9fe:a9fe", "nat64-local"),
        ("100::1", "discard"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"),
        ("2001:2::1", "ietf-protocol"),
        ("2001:db8::1", "documentation"),
        ("3fff::1", "documentation"),
        ("5f00::1", "srv6"),
        ("fc00::1", "unique-local"),
        ("fd12:3456::1", "unique-local"),
        ("fe80::1", "link-local"),
        ("fe80::1%eth0", "link-local"),
        ("fec0::1", "site-local"),
        ("ff02::1", "multicast"),
        ("4000::1", "reserved"),
        ("1000::1", "reserved"),
    ],
)
def test_named_ranges_are_refused(text: str, reason: str) -> None:
    verdict = classify(ip_address(text))
    assert (verdict.allowed, verdict.reason, verdict.wrapped) == (False, reason, None)


@pytest.mark.parametrize(
    ("text", "reason", "wrapped"),
    [
        ("::ffff:127.0.0.1", "loopback", "ipv4-mapped"),
        ("::ffff:169.254.169.254", "link-local", "ipv4-mapped"),
        ("::ffff:10.1.2.3", "private", "ipv4-mapped"),
        ("::ffff:0.0.0.0", "unspecified", "ipv4-mapped"),
        ("64:ff9b::7f00:1", "loopback", "nat64"),
        ("64:ff9b::a9fe:a9fe", "link-local", "nat64"),
        ("64:ff9b::c0a8:101", "private", "nat64"),
        ("2002:7f00:1::", "loopback", "6to4"),
        ("2002:c0a8:101::1", "private", "6to4"),
        ("2002:a9fe:a9fe::", "link-local", "6to4"),
        ("2002:6440:1::", "cgnat", "6to4"),
    ],
)
def test_wrapped_ipv4_is_judged_by_what_it_wraps(text: str, reason: str, wrapped: str) -> None:
    verdict = classify(ip_address(text))
    assert (verdict.allowed, verdict.reason, verdict.wrapped) == (False, reason, wrapped)


@pytest.mark.parametrize(
    ("text", "connect_to"),
    [
        ("8.8.8.8", "8.8.8.8"),
        ("1.1.1.1", "1.1.1.1"),
        ("93.184.216.34", "93.184.216.34"),
        ("100.63.255.255", "100.63.255.255"),
        ("100.128.0.0", "100.128.0.0"),
        ("172.15.255.255", "172.15.255.255"),
        ("172.32.0.0", "172.32.0.0"),
        ("169.253.255.255", "169.253.255.255"),
        ("198.17.255.255", "198.17.255.255"),
        ("198.20.0.0", "198.20.0.0"),
        ("223.255.255.255", "223.255.255.255"),
        ("2606:4700:4700::1111", "2606:4700:4700::1111"),
        ("::ffff:8.8.8.8", "8.8.8.8"),
        ("64:ff9b::808:808", "64:ff9b::808:808"),
        ("2002:808:808::1", "2002:808:808::1"),
    ],
)
def test_public_addresses_are_allowed(text: str, connect_to: str) -> None:
    verdict = classify(ip_address(text))
    assert verdict.allowed and verdict.reason == "global"
    assert verdict.connect_to == ip_address(connect_to)


def test_allow_list_covers_the_wrapped_form_too() -> None:
    allow = allow_networks(("127.0.0.2/32",))
    assert classify(ip_address("127.0.0.2"), allow).reason == "allow-listed"
    mapped = classify(ip_address("::ffff:127.0.0.2"), allow)
    assert mapped.allowed and mapped.connect_to == ip_address("127.0.0.2")
    assert classify(ip_address("127.0.0.1"), allow).reason == "loopback"


def test_a_bad_allow_list_entry_fails_loudly() -> None:
    with pytest.raises(ValueError):
        allow_networks(("127.0.0.2/33",))
    assert allow_networks(("10.0.0.1/8", "fd00::/8")) == (ip_network("10.0.0.0/8"), ip_network("fd00::/8"))


def test_truth_helper_is_not_vacuous() -> None:
    # The oracle must itself tell public from internal, or the property tests above prove nothing.
    assert truth(ipaddress.ip_address("8.8.8.8")) and not truth(ipaddress.ip_address("127.0.0.1"))
    assert not truth(ipaddress.ip_address("::ffff:10.0.0.1")) and truth(
        ipaddress.ip_address("::ffff:8.8.8.8")
    )
