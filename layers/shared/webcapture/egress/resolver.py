"""Name resolution for the egress policy, with a hook tests install to map names to addresses.

The proxy resolves each host once and connects to what it checked, so whatever this returns is exactly
where traffic goes. Production uses the system resolver (getaddrinfo, in a thread so neither the event
loop nor a stuck lookup blocks others).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import Final

from webcapture import request_scope
from webcapture.egress.addresses import IPAddress
from webcapture.errors import NavigationTimeout

# A hook maps a name to its addresses (strings or ipaddress objects); raising OSError, or returning
# nothing, means "does not resolve".
ResolverHook = Callable[[str], Iterable[str | IPAddress]]

DNS_TIMEOUT_S: Final = 5.0

_hook: ResolverHook | None = None
_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()

# RFC 6761: these names are the local host whatever DNS says (Chromium treats them so too).
_LOOPBACK: Final = (ipaddress.IPv4Address("127.0.0.1"), ipaddress.IPv6Address("::1"))


class HostUnresolved(OSError):
    """The name has no address (or the lookup timed out)."""


def set_resolver_hook(hook: ResolverHook | None) -> ResolverHook | None:
    """Install `hook` in place of DNS (tests and development); None restores DNS. Returns the previous."""
    global _hook
    previous, _hook = _hook, hook
    return previous


@contextmanager
def resolver_hook(hook: ResolverHook) -> Iterator[None]:
    previous = set_resolver_hook(hook)
    try:
        yield
    finally:
        set_resolver_hook(previous)


def resolve(name: str) -> tuple[IPAddress, ...]:
    """Every address `name` resolves to, in resolver order, de-duplicated. Blocking."""
    bare = name.rstrip(".").lower()
    if bare == "localhost" or bare.endswith(".localhost"):
        return _LOOPBACK
    hook = _hook
    try:
        raw: Iterable[str | IPAddress] = hook(name) if hook is not None else _system(name)
        addresses = tuple(dict.fromkeys(_address(item) for item in raw))
    except (OSError, UnicodeError, ValueError) as exc:
        raise HostUnresolved(name) from exc
    if not addresses:
        raise HostUnresolved(name)
    return addresses


def resolve_blocking(name: str, timeout: float = DNS_TIMEOUT_S) -> tuple[IPAddress, ...]:
    """`resolve` with a time limit, for synchronous callers (the API edge): the lookup's own limit or
    what is left of the request's deadline, whichever ends first (NavigationTimeout when it is the
    deadline)."""
    if _hook is not None:
        return resolve(name)
    left_s = request_scope.remaining_ms() / 1000
    if left_s <= 0:
        raise NavigationTimeout(f"No time was left to resolve {name}")
    future = _pool().submit(resolve, name)
    try:
        return future.result(timeout=min(timeout, left_s))
    except FutureTimeout as exc:
        # getaddrinfo cannot be cancelled; the worker finishes on its own.
        if left_s < timeout:
            raise NavigationTimeout(f"Resolving {name} did not finish within the time budget") from None
        raise HostUnresolved(name) from exc


async def resolve_async(name: str, timeout: float = DNS_TIMEOUT_S) -> tuple[IPAddress, ...]:
    try:
        return await asyncio.wait_for(asyncio.to_thread(resolve, name), timeout)
    except TimeoutError as exc:
        raise HostUnresolved(name) from exc


def _system(name: str) -> list[str]:
    # Looked up through the module so tests can stand in for the system resolver.
    infos = socket.getaddrinfo(name, None, family=socket.AF_UNSPEC, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


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
