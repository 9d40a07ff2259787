"""A DNS server on loopback that answers from a test resolver (a MapResolver), asked by the egress guard
through localapi/dns_client.py as it would ask any DNS server (in this process, and in the containers of a
local API started with `WEBCAPTURE_EGRESS_DNS_SERVER`).

One lookup by the guard is an A and an AAAA query from one socket; the server asks the resolver once, on
the A query, and answers the AAAA query from that same answer, so `resolver.calls` counts lookups (and a
rebinding answer changes per lookup, not per query). `delay_s` holds every answer back (a slow resolver).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import struct
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from localapi.dns_client import DNS_SERVER_VARIABLE, TYPE_A, TYPE_AAAA, resolver_at
from webcapture.egress.resolver import use_resolver

Lookup = Callable[[str], Iterable[str]]
_HEADER = struct.Struct("!HHHHHH")


class DnsServer:
    def __init__(self, resolver: Lookup, *, delay_s: float = 0.0, host: str = "127.0.0.1") -> None:
        self.resolver = resolver
        self.delay_s = delay_s
        self.queries: list[tuple[str, int]] = []
        self._answers: dict[tuple[tuple[str, int], str], list[str] | None] = {}
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind((host, 0))
        self.address = f"{host}:{self._sock.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, name="test-dns", daemon=True)
        self._thread.start()

    def lookups(self, name: str) -> int:
        """How many lookups (A queries) of `name` the server was asked."""
        with self._lock:
            return sum(1 for queried, qtype in self.queries if queried == name and qtype == TYPE_A)

    def stop(self) -> None:
        self._sock.close()

    def _serve(self) -> None:
        while True:
            try:
                packet, client = self._sock.recvfrom(4096)
            except OSError:
                return
            try:
                reply = self._reply(packet, client)
            except (struct.error, IndexError, UnicodeError):
                continue
            if self.delay_s:
                threading.Timer(self.delay_s, self._send, (reply, client)).start()
            else:
                self._send(reply, client)

    def _send(self, reply: bytes, client: tuple[str, int]) -> None:
        with contextlib.suppress(OSError):  # the server stopped while the answer was held back
            self._sock.sendto(reply, client)

    def _reply(self, packet: bytes, client: tuple[str, int]) -> bytes:
        ident, _flags, _qd, _an, _ns, _ar = _HEADER.unpack_from(packet)
        labels, offset = [], _HEADER.size
        while packet[offset]:
            length = packet[offset]
            labels.append(packet[offset + 1 : offset + 1 + length].decode("ascii"))
            offset += 1 + length
        qtype, _qclass = struct.unpack_from("!HH", packet, offset + 1)
        question = packet[_HEADER.size : offset + 5]
        name = ".".join(labels).lower()
        with self._lock:
            self.queries.append((name, qtype))
        key = (client, name)
        if qtype == TYPE_A or key not in self._answers:
            try:
                self._answers[key] = [str(a) for a in self.resolver(name)]
            except OSError:
                self._answers[key] = None
        answer = self._answers[key] if qtype == TYPE_A else self._answers.pop(key, None)
        if answer is None:
            return _HEADER.pack(ident, 0x8183, 1, 0, 0, 0) + question  # NXDOMAIN
        records = b""
        count = 0
        for text in answer:
            address = ipaddress.ip_address(text)
            if (address.version == 4) != (qtype == TYPE_A) or qtype not in (TYPE_A, TYPE_AAAA):
                continue
            records += b"\xc0\x0c" + struct.pack("!HHIH", qtype, 1, 0, len(address.packed)) + address.packed
            count += 1
        return _HEADER.pack(ident, 0x8180, 1, count, 0, 0) + question + records


@contextmanager
def answering(resolver: Lookup, *, delay_s: float = 0.0) -> Iterator[DnsServer]:
    """A DNS server answering from `resolver` while the block runs: the egress guard's resolver in this
    process, and named in WEBCAPTURE_EGRESS_DNS_SERVER for a local API started inside the block."""
    server = DnsServer(resolver, delay_s=delay_s)
    previous = os.environ.get(DNS_SERVER_VARIABLE)
    os.environ[DNS_SERVER_VARIABLE] = server.address
    replaced = use_resolver(resolver_at(server.address))
    try:
        yield server
    finally:
        use_resolver(replaced)
        if previous is None:
            os.environ.pop(DNS_SERVER_VARIABLE, None)
        else:
            os.environ[DNS_SERVER_VARIABLE] = previous
        server.stop()
