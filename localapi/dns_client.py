"""Asking one DNS server directly (RFC 1035 over UDP): A and AAAA for a name, nothing else.

Development and tests only (it ships in no function): with `WEBCAPTURE_EGRESS_DNS_SERVER` set, the local
API's containers hand the egress guard `resolver_at(that server)` (webcapture.egress.resolver.use_resolver),
so a loopback server the test controls answers the guard's lookups: it can map names, answer slowly or
change its answer (rebinding) without touching the machine's resolver. Production asks the system resolver.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import struct
import time
from collections.abc import Callable
from typing import Final

from webcapture.egress.addresses import IPAddress

TYPE_A: Final = 1
TYPE_AAAA: Final = 28
_CLASS_IN: Final = 1
_HEADER: Final = struct.Struct("!HHHHHH")


class DnsError(OSError):
    """The server said the name does not exist, answered nonsense, or did not answer in time."""


def encode_name(name: str) -> bytes:
    labels = name.rstrip(".").encode("idna").split(b".")
    if any(not label or len(label) > 63 for label in labels):
        raise DnsError(f"not a DNS name: {name!r}")
    return b"".join(bytes([len(label)]) + label for label in labels) + b"\0"


def query(ident: int, name: str, qtype: int) -> bytes:
    # Recursion desired; one question.
    return _HEADER.pack(ident, 0x0100, 1, 0, 0, 0) + encode_name(name) + struct.pack("!HH", qtype, _CLASS_IN)


def lookup(server: tuple[str, int], name: str, timeout: float) -> list[IPAddress]:
    """Every A and AAAA address the server gives for `name` (both asked at once, on one socket)."""
    ids = {secrets.randbelow(0x10000): TYPE_A}
    ids[(next(iter(ids)) + 1) % 0x10000] = TYPE_AAAA
    family = socket.AF_INET6 if ":" in server[0] else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as sock:
        sock.connect(server)
        for ident, qtype in ids.items():
            sock.send(query(ident, name, qtype))
        found: list[IPAddress] = []
        failed = 0
        give_up = time.monotonic() + timeout
        while ids:
            left = give_up - time.monotonic()
            if left <= 0:
                raise DnsError(f"{name}: the DNS server did not answer in time")
            sock.settimeout(left)
            try:
                packet = sock.recv(4096)
            except TimeoutError:
                continue
            ident, answers, ok = parse_response(packet)
            if ids.pop(ident, None) is None:
                continue  # a late answer to something else
            found.extend(answers)
            failed += not ok
        if failed == 2:
            raise DnsError(f"{name} does not resolve")
        return found


def parse_response(packet: bytes) -> tuple[int, list[IPAddress], bool]:
    """(id, addresses, False when the server reported an error)."""
    ident, flags, qdcount, ancount, _, _ = _HEADER.unpack_from(packet)
    if flags & 0x000F:
        return ident, [], False
    offset = _HEADER.size
    for _ in range(qdcount):
        offset = _skip_name(packet, offset) + 4
    addresses: list[IPAddress] = []
    for _ in range(ancount):
        offset = _skip_name(packet, offset)
        rtype, _rclass, _ttl, length = struct.unpack_from("!HHIH", packet, offset)
        offset += 10
        data = packet[offset : offset + length]
        offset += length
        if rtype == TYPE_A and length == 4:
            addresses.append(ipaddress.IPv4Address(data))
        elif rtype == TYPE_AAAA and length == 16:
            addresses.append(ipaddress.IPv6Address(data))
    return ident, addresses, True


def _skip_name(packet: bytes, offset: int) -> int:
    while True:
        length = packet[offset]
        if length == 0:
            return offset + 1
        if length & 0xC0 == 0xC0:  # a compression pointer ends the name
            return offset + 2
        offset += 1 + length


DNS_SERVER_VARIABLE: Final = "WEBCAPTURE_EGRESS_DNS_SERVER"
LOOKUP_TIMEOUT_S: Final = 5.0


def resolver_at(server: str) -> Callable[[str], list[IPAddress]]:
    """A resolver for the egress guard that asks the DNS server at "address:port" ("[v6]:port" too)."""
    host, _, port = server.rpartition(":")
    address = (host.strip("[]"), int(port))
    return lambda name: lookup(address, name, LOOKUP_TIMEOUT_S)

