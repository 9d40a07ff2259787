"""Test resolvers and a connector spy for the egress tests (a resolver answers behind the loopback DNS server
of tests/support/dns_server.py, or is passed to the proxy or the resolver functions directly).

Test names use the reserved .test TLD; a name the map does not know fails like NXDOMAIN, so a test never
asks real DNS.
"""

from __future__ import annotations

import ipaddress
import threading
from collections import Counter
from collections.abc import Callable, Sequence

from webcapture.egress.addresses import IPAddress
from webcapture.egress.proxy import Streams, open_tcp

Answer = Sequence[str] | Callable[[int], Sequence[str]]

_LOOPBACK_V4 = ipaddress.IPv4Network("127.0.0.0/8")


def rebinding(first: Sequence[str], then: Sequence[str]) -> Callable[[int], Sequence[str]]:
    """Answer `first` to the first lookup and `then` to every later one (DNS rebinding with TTL 0)."""
    return lambda call: first if call == 1 else then


class MapResolver:
    """A resolver from a dict of name -> addresses (or -> function of the lookup count)."""

    def __init__(self, mapping: dict[str, Answer]) -> None:
        self.mapping = {name.lower(): answer for name, answer in mapping.items()}
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, name: str) -> Sequence[str]:
        name = name.rstrip(".").lower()
        with self._lock:
            self.calls[name] += 1
            count = self.calls[name]
        answer = self.mapping.get(name)
        if answer is None:
            raise OSError(f"test resolver: {name} does not resolve")
        return answer(count) if callable(answer) else answer


class SpyConnector:
    """The proxy's connector, recording each attempt. It connects only inside 127.0.0.0/8 and refuses
    anything else without creating a socket, so no test can ever send a packet off the machine."""

    def __init__(self) -> None:
        self.attempts: list[tuple[str, int]] = []
        self._lock = threading.Lock()

    async def __call__(self, address: IPAddress, port: int) -> Streams:
        with self._lock:
            self.attempts.append((str(address), port))
        if not (isinstance(address, ipaddress.IPv4Address) and address in _LOOPBACK_V4):
            raise ConnectionRefusedError(f"test connector: {address} is not loopback, not connecting")
        return await open_tcp(address, port)

    def attempted(self, address: str) -> bool:
        with self._lock:
            return any(attempt[0] == address for attempt in self.attempts)
