"""Host and URL parsing as browsers do it: every IPv4 spelling, brackets, and the URL quirks."""

from __future__ import annotations

import socket
from ipaddress import IPv4Address, IPv6Address

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webcapture.egress.hosts import HostError, Target, parse_host, parse_url, split_host_port

LOOPBACK = IPv4Address("127.0.0.1")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("127.0.0.1", LOOPBACK),
        ("2130706433", LOOPBACK),  # decimal
        ("0177.0.0.1", LOOPBACK),  # octal
        ("0177.0000.0000.0001", LOOPBACK),
        ("017700000001", LOOPBACK),
        ("0x7f.0.0.1", LOOPBACK),  # hex
        ("0X7F.0x0.0x0.0x1", LOOPBACK),
        ("0x7f000001", LOOPBACK),
        ("127.1", LOOPBACK),  # short
        ("127.0.1", LOOPBACK),
        ("0x7f.1", LOOPBACK),
        ("127.0.0.1.", LOOPBACK),  # a trailing dot is dropped
        ("%31%32%37.0.0.1", LOOPBACK),  # percent-decoded first
        ("\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11", LOOPBACK),  # full-width digits and dots
        ("0", IPv4Address("0.0.0.0")),
        ("0x", IPv4Address("0.0.0.0")),  # an empty hex number is zero
        ("0.0.0.0", IPv4Address("0.0.0.0")),
        ("169.254.169.254", IPv4Address("169.254.169.254")),
        ("2852039166", IPv4Address("169.254.169.254")),
        ("0xa9.0xfe.0xa9.0xfe", IPv4Address("169.254.169.254")),
        ("4294967295", IPv4Address("255.255.255.255")),
        ("[::1]", IPv6Address("::1")),
        ("[::ffff:127.0.0.1]", IPv6Address("::ffff:7f00:1")),
        ("[0:0:0:0:0:ffff:7f00:1]", IPv6Address("::ffff:7f00:1")),
        ("[64:ff9b::127.0.0.1]", IPv6Address("64:ff9b::7f00:1")),
        ("example.com", "example.com"),
        ("EXAMPLE.Com", "example.com"),
        ("example.com.", "example.com."),
        ("localhost", "localhost"),
        ("1.example", "1.example"),
        ("under_score.example", "under_score.example"),
        ("b\u00fccher.example", "xn--bcher-kva.example"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
    ],
)
def test_hosts_parse_as_browsers_parse_them(raw: str, expected: object) -> None:
    assert parse_host(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "1.2.3.4.5",  # ends in a number, so it must be IPv4, and five parts is not
        "256.0.0.1",
        "1.2.3.256",
        "1.2.65536",
        "1.16777216",
        "4294967296",
        "09.0.0.1",  # 0 prefix means octal
        "1.2.3.08",
        "0xg.0.0.1",
        "1..2.3",
        "foo.1",  # ends in a number but is no IPv4 address
        "foo.0x1",
        "foo.09",
        "[::1",
        "[::1%25eth0]",  # no zone identifiers
        "[::1%eth0]",
        "[127.0.0.1]",
        "exa mple.com",
        "exa<mple.com",
        "a@b",
        "%zz.example\x00",
    ],
)
def test_hosts_browsers_reject_are_rejected(raw: str) -> None:
    with pytest.raises(HostError):
        parse_host(raw)


def spell(value: int, parts: int, radixes: list[str]) -> str:
    """Spell a 32-bit value with `parts` parts (1 to 4), the last part taking the remaining bytes."""
    pieces = [(value >> (8 * (3 - i))) & 0xFF for i in range(parts - 1)]
    pieces.append(value & ((1 << (8 * (5 - parts))) - 1))
    out = []
    for piece, radix in zip(pieces, radixes, strict=False):
        if radix == "hex":
            out.append(f"0x{piece:x}")
        elif radix == "HEX":
            out.append(f"0X{piece:X}")
        elif radix == "oct":
            out.append(f"0{piece:o}")
        else:
            out.append(str(piece))
    return ".".join(out)


spellings = st.tuples(
    st.integers(min_value=0, max_value=2**32 - 1),
    st.integers(min_value=1, max_value=4),
    st.lists(st.sampled_from(["dec", "hex", "HEX", "oct"]), min_size=4, max_size=4),
)


@given(spellings)
def test_every_ipv4_spelling_means_the_same_address(spelling: tuple[int, int, list[str]]) -> None:
    value, parts, radixes = spelling
    text = spell(value, parts, radixes)
    assert parse_host(text) == IPv4Address(value), text
    # The C library's inet_aton (what getaddrinfo accepts) agrees: the proxy and DNS see the same address.
    assert socket.inet_aton(text) == IPv4Address(value).packed


@given(st.ip_addresses(v=6))
def test_bracketed_ipv6_round_trips(address: IPv6Address) -> None:
    assert parse_host(f"[{address}]") == address
    assert parse_host(f"[{address.exploded.upper()}]") == address


@pytest.mark.parametrize(
    ("url", "host", "port", "path"),
    [
        ("http://example.com", "example.com", 80, "/"),
        ("https://example.com:8443/a?b#c", "example.com", 8443, "/a?b"),
        ("HTTP://EXAMPLE.COM:80/", "example.com", 80, "/"),
        ("http:127.0.0.1", LOOPBACK, 80, "/"),  # no slashes needed for special schemes
        ("http:/\\127.0.0.1/x", LOOPBACK, 80, "/x"),  # backslashes count as slashes
        ("http:\\\\127.1\\x", LOOPBACK, 80, "/x"),
        ("http://public.test\\@127.0.0.1/", "public.test", 80, "/@127.0.0.1/"),  # the host ends at "\"
        ("http://public.test@127.0.0.1/", LOOPBACK, 80, "/"),  # credentials end at the last "@"
        ("http://a:b@c@0x7f.1:8080/", LOOPBACK, 8080, "/"),
        ("http://127.0.0.1#@public.test/", LOOPBACK, 80, "/"),
        ("http://127.0.0.1?@public.test/", LOOPBACK, 80, "/?@public.test/"),
        ("  http://127.0.0.1/  ", LOOPBACK, 80, "/"),  # leading and trailing spaces are stripped
        ("ht\ttp://12\n7.0.0.1/", LOOPBACK, 80, "/"),  # tabs and newlines are removed anywhere
        ("http://[::1]:8080/", IPv6Address("::1"), 8080, "/"),
        ("https://[::ffff:127.0.0.1]/", IPv6Address("::ffff:7f00:1"), 443, "/"),
        ("http://0x7f000001:00080/", LOOPBACK, 80, "/"),
        ("http://h/a\\b?c\\d", "h", 80, "/a/b?c\\d"),
    ],
)
def test_urls_split_as_browsers_split_them(url: str, host: object, port: int, path: str) -> None:
    target = parse_url(url)
    assert (target.host, target.port, target.path) == (host, port, path)


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://example.com/", "javascript:alert(1)", "data:text/html,x", "http://", "//x/",
     "http://host:99999/", "http://host:80a/", "http://[::1/", "no-scheme"],
)  # fmt: skip
def test_urls_without_an_http_host_are_rejected(url: str) -> None:
    with pytest.raises(HostError):
        parse_url(url)


def test_authority_for_the_host_header() -> None:
    assert Target("http", "a.test", 80, "/").authority == "a.test"
    assert Target("http", "a.test", 8080, "/").authority == "a.test:8080"
    assert Target("https", IPv6Address("::1"), 443, "/").authority == "[::1]"
    assert Target("http", IPv6Address("::1"), 443, "/").authority == "[::1]:443"


def test_split_host_port() -> None:
    assert split_host_port("a.test:443", None) == ("a.test", 443)
    assert split_host_port("[::1]:8443", None) == ("[::1]", 8443)
    assert split_host_port("a.test", 80) == ("a.test", 80)
    with pytest.raises(HostError):
        split_host_port("a.test", None)  # CONNECT needs a port
    with pytest.raises(HostError):
        split_host_port("a.test:x", None)
