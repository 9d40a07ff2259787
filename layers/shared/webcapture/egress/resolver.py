"""Name resolution for the egress policy, and the per-request memory of its answers.

The proxy resolves each host once and connects to what it checked, so whatever this returns is exactly
where traffic goes. A `Resolver` is any callable from a name to its addresses; the one used is passed in
(the proxy and the edge check take one) or, by default, the system resolver (getaddrinfo, in a thread so
neither the event loop nor a stuck lookup blocks others). Development and tests may put another in its
place with `use_resolver` (the local API's DNS client, a test's map of names).

`HostAnswers` keeps a request's answers: every host is looked up once for the request's life, failures
included, and every connection to it uses the addresses checked then. One per request, never shared.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Final

from webcapture import request_scope
from webcapture.egress.addresses import IPAddress
from webcapture.errors import NavigationTimeout

# A resolver maps a name to its addresses (strings or ipaddress objects); raising OSError, or returning
# nothing, means "does not resolve". Blocking: it runs in a worker thread.
Resolver = Callable[[str], Iterable[str | IPAddress]]

DNS_TIMEOUT_S: Final = 5.0

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()

# RFC 6761: these names are the local host whatever DNS says (Chromium treats them so too).
_LOOPBACK: Final = (ipaddress.IPv4Address("127.0.0.1"), ipaddress.IPv6Address("::1"))


class HostUnresolved(OSError):
    """The name has no address (or the lookup timed out)."""


def system_resolver(name: str) -> list[str]:
    infos = socket.getaddrinfo(name, None, family=socket.AF_UNSPEC, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


_replacement: Resolver | None = None


def use_resolver(resolver: Resolver | None) -> Resolver | None:
    """Development and tests: lookups without a resolver of their own ask `resolver` (None: the system's
    again). Returns the one it replaces, to put back."""
    global _replacement
    previous, _replacement = _replacement, resolver
    return previous


def default_resolver() -> Resolver:
    """The system resolver, or the one `use_resolver` put in its place."""
    return _replacement or system_resolver


def resolve(name: str, resolver: Resolver | None = None) -> tuple[IPAddress, ...]:
    """Every address `name` resolves to, in resolver order, de-duplicated. Blocking."""
    bare = name.rstrip(".").lower()
    if bare == "localhost" or bare.endswith(".localhost"):
        return _LOOPBACK
    try:
        raw = (resolver or default_resolver())(name)
        addresses = tuple(dict.fromkeys(_address(item) for item in raw))
    except (OSError, UnicodeError, ValueError) as exc:
        raise HostUnresolved(name) from exc
    if not addresses:
        raise HostUnresolved(name)
    return addresses


def resolve_blocking(
    name: str, resolver: Resolver | None = None, timeout: float = DNS_TIMEOUT_S
) -> tuple[IPAddress, ...]:
    """`resolve` with a time limit, for synchronous callers (the API edge): the lookup's own limit or
    what is left of the request's deadline, whichever ends first (NavigationTimeout when it is the
    deadline)."""
    left_s = request_scope.remaining_ms() / 1000
    if left_s <= 0:
        raise NavigationTimeout(f"No time was left to resolve {name}")
    future = _pool().submit(resolve, name, resolver)
    try:
        return future.result(timeout=min(timeout, left_s))
    except FutureTimeout as exc:
        # getaddrinfo cannot be cancelled; the worker finishes on its own.
        if left_s < timeout:
            raise NavigationTimeout(f"Resolving {name} did not finish within the time budget") from None
        raise HostUnresolved(name) from exc


async def resolve_async(
    name: str, resolver: Resolver | None = None, timeout: float = DNS_TIMEOUT_S
) -> tuple[IPAddress, ...]:
    try:
        return await asyncio.wait_for(asyncio.to_thread(resolve, name, resolver), timeout)
    except TimeoutError as exc:
        raise HostUnresolved(name) from exc


class HostAnswers:
    """One request's answers: each name is looked up once, and every later connection to it gets the same
    addresses, or the same failure, without asking again. Connections that arrive while the lookup runs
    wait for it rather than starting their own. A page with 60 resources on one host pays one lookup
    (Chromium opens up to six connections a host at once, and through the proxy each plain-HTTP request is
    a connection of its own).

    Lives on the proxy's event loop; `seed` (the edge's answer for the target) may come from any thread.
    """

    def __init__(self, resolver: Resolver | None = None) -> None:
        self._resolver = resolver
        self._lock = threading.Lock()
        self._known: dict[str, tuple[IPAddress, ...] | HostUnresolved] = {}
        self._pending: dict[str, asyncio.Future[tuple[IPAddress, ...]]] = {}
        self.lookups: Counter[str] = Counter()

    def seed(self, name: str, addresses: tuple[IPAddress, ...]) -> None:
        with self._lock:
            self._known.setdefault(name.rstrip(".").lower(), addresses)

    async def resolve(self, name: str) -> tuple[IPAddress, ...]:
        key = name.rstrip(".").lower()
        with self._lock:
            known = self._known.get(key)
        if isinstance(known, HostUnresolved):
            raise HostUnresolved(name)
        if known is not None:
            return known
        pending = self._pending.get(key)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._pending[key] = pending
            self.lookups[key] += 1
            try:
                answer: tuple[IPAddress, ...] | HostUnresolved = await resolve_async(name, self._resolver)
            except HostUnresolved as failed:
                answer = failed
            with self._lock:
                self._known[key] = answer
            del self._pending[key]
            if isinstance(answer, HostUnresolved):
                pending.set_exception(HostUnresolved(name))
                pending.exception()  # retrieved: no "never retrieved" warning when nobody else waited
                raise HostUnresolved(name)
            pending.set_result(answer)
            return answer
        return await asyncio.shield(pending)


def _address(item: str | IPAddress) -> IPAddress:
    return (
        item
        if isinstance(item, ipaddress.IPv4Address | ipaddress.IPv6Address)
        else ipaddress.ip_address(item)
    )


def _pool() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webcapture-dns")
        return _executor
