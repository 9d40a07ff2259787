"""The IP-pinning egress proxy: every request Chromium makes goes through it (docs/api.md#egress-policy).

For each client connection: read one request head, resolve the host once, refuse unless every address is
allowed (policy.py), connect to an address that was checked (a socket to the IP, never to the name, so
DNS rebinding has no second lookup to exploit), then relay bytes both ways.

Stdlib asyncio rather than a proxy library: what is needed is small (one request head, CONNECT, byte
relay), the pinning has to sit exactly between resolution and connect, and the well-known Python proxies
(mitmproxy, proxy.py) bring TLS interception and plugin machinery we would have to switch off and audit.

One request per client connection (Connection: close both ways). Each request is then judged on its own,
a kept-alive connection can never carry a request for another host to an upstream chosen for the first,
and the proxy never parses bodies. The cost is a new upstream connection per plain-HTTP request; HTTPS
(most of the web) goes through CONNECT tunnels, inside which Chromium keeps its own keep-alive and HTTP/2.

Runs in a daemon thread with its own event loop, so it serves Chromium whatever the handler's thread does.

Each request's browser context gets a listener of its own (`open_scope`): connections that arrive there
share that request's `HostAnswers`, so a host is looked up once for the request (failures included) and
every connection to it goes to the addresses checked then. Nothing is shared between scopes; a scope is
closed with its context. Connections on the main listener (a context without a scope) resolve each time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from ipaddress import IPv6Address, ip_address
from typing import Any, Final

from webcapture.egress.addresses import IPAddress, allow_networks, classify
from webcapture.egress.hosts import Host, HostError, parse_host, parse_url, split_host_port
from webcapture.egress.http1 import (
    HEAD_LIMIT,
    HeadError,
    RequestHead,
    origin_request,
    parse_request,
    read_lines,
    relay_response_head,
    send,
    status_response,
)
from webcapture.egress.policy import EgressRefused, Route, route_async
from webcapture.egress.refusals import REFUSED, TIMED_OUT, UNREACHABLE, UNRESOLVED, Refusal, record_refusal
from webcapture.egress.resolver import HostAnswers, HostUnresolved, Resolver, resolve_async
from webcapture.settings import get_settings

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]
Connector = Callable[[IPAddress, int], Awaitable[Streams]]
Lookup = Callable[[str], Awaitable[tuple[IPAddress, ...]]]

CHUNK: Final = 64 * 1024
_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Timeouts:
    head: float = 15.0  # for the client's request head
    connect: float = 10.0  # for all connection attempts together
    idle: float = 30.0  # no byte either way; within the 25 s request budget a page never waits longer


async def open_tcp(address: IPAddress, port: int) -> Streams:
    """Connect to exactly this address: a socket connected to the IP, so no name lookup can happen."""
    family = socket.AF_INET6 if isinstance(address, IPv6Address) else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        await asyncio.get_running_loop().sock_connect(sock, (str(address), port))
    except BaseException:
        sock.close()
        raise
    return await asyncio.open_connection(sock=sock, limit=HEAD_LIMIT)


class _Clock:
    """When bytes last moved, in either direction (the idle timeout is for the exchange, not one side)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.last = loop.time()

    def touch(self) -> None:
        self.last = self._loop.time()


@dataclass
class ProxyScope:
    """One request's listener on the proxy: `url` for the context's proxy option, `answers` its lookups."""

    url: str
    answers: HostAnswers
    _server: asyncio.Server
    _loop: asyncio.AbstractEventLoop
    _open_ports: set[int]
    _closed: bool = field(default=False)

    def close(self) -> None:
        """Stop listening (the context is gone); idempotent, from any thread, without waiting."""
        if self._closed:
            return
        self._closed = True
        self._open_ports.discard(self._server.sockets[0].getsockname()[1])
        with contextlib.suppress(RuntimeError):  # the proxy's loop already stopped
            self._loop.call_soon_threadsafe(self._server.close)


class EgressProxy:
    """One proxy on 127.0.0.1, in its own thread and event loop. `start()` returns its URL.

    `resolver`: where names are looked up (default: the system resolver, or the configured DNS server)."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        connector: Connector = open_tcp,
        timeouts: Timeouts | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        self._bind = (host, port)
        self._connector = connector
        self._timeouts = timeouts or Timeouts()
        self._resolver = resolver
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._address: tuple[str, int] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._scope_ports: set[int] = set()

    @property
    def url(self) -> str:
        if self._address is None:
            raise RuntimeError("the egress proxy is not running")
        return f"http://{self._address[0]}:{self._address[1]}"

    def start(self) -> str:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return self.url
            ready = threading.Event()
            failure: list[BaseException] = []
            thread = threading.Thread(
                target=self._run, args=(ready, failure), name="webcapture-egress-proxy", daemon=True
            )
            thread.start()
            ready.wait()
            if failure:
                raise failure[0]
            self._thread = thread
            return self.url

    @property
    def resolver(self) -> Resolver | None:
        return self._resolver

    def open_scope(self) -> ProxyScope:
        """A listener of its own for one request's context, with the request's own host answers."""
        self.start()
        loop = self._loop
        assert loop is not None
        answers = HostAnswers(self._resolver)

        async def listen() -> asyncio.Server:
            return await asyncio.start_server(
                partial(self._accept, answers=answers), self._bind[0], 0, limit=HEAD_LIMIT
            )

        server = asyncio.run_coroutine_threadsafe(listen(), loop).result(timeout=10)
        host, port = server.sockets[0].getsockname()[:2]
        self._scope_ports.add(port)
        return ProxyScope(f"http://{host}:{port}", answers, server, loop, self._scope_ports)

    def stop(self) -> None:
        with self._lock:
            thread, loop = self._thread, self._loop
            if thread is None or loop is None:
                return
            with contextlib.suppress(RuntimeError):  # the loop already closed
                loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)
            self._thread = self._loop = self._address = None

    # The thread -------------------------------------------------------------------------------------

    def _run(self, ready: threading.Event, failure: list[BaseException]) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            server = loop.run_until_complete(
                asyncio.start_server(self._accept, *self._bind, limit=HEAD_LIMIT, reuse_address=True)
            )
        except BaseException as exc:
            failure.append(exc)
            loop.close()
            ready.set()
            return
        host, port = server.sockets[0].getsockname()[:2]
        self._address, self._loop = (host, port), loop
        ready.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            for task in list(self._tasks):
                task.cancel()
            loop.run_until_complete(asyncio.gather(*self._tasks, return_exceptions=True))
            loop.run_until_complete(server.wait_closed())
            loop.close()

    async def _accept(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, answers: HostAnswers | None = None
    ) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(reader, writer, answers)
        except Exception:  # one broken connection must never take the proxy down
            _log.debug("egress proxy connection failed", exc_info=True)
        finally:
            writer.close()
            if task is not None:
                self._tasks.discard(task)

    # One connection ---------------------------------------------------------------------------------

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, answers: HostAnswers | None
    ) -> None:
        try:
            # asyncio.timeout, not wait_for: no extra task per connection (fewer event-loop turns).
            async with asyncio.timeout(self._timeouts.head):
                lines = await read_lines(reader)
            if lines is None:
                return
            head = parse_request(lines)
        except (HeadError, TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            await send(writer, status_response(400, "bad-request", "Bad request"))
            return
        lookup = answers.resolve if answers is not None else partial(resolve_async, resolver=self._resolver)
        if head.method == "CONNECT":
            await self._tunnel(head, reader, writer, lookup)
        else:
            await self._forward(head, reader, writer, lookup)

    async def _tunnel(
        self, head: RequestHead, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, lookup: Lookup
    ) -> None:
        try:
            host_raw, port = split_host_port(head.target, None)
            host = parse_host(host_raw)
        except HostError:
            await self._refuse(writer, EgressRefused(head.target, None, "invalid-host"), head.target)
            return
        upstream = await self._connect(host, port, writer, lookup, url=None)
        if upstream is None:
            return
        await send(writer, b"HTTP/1.1 200 Connection Established\r\n\r\n")
        await self._relay(reader, writer, *upstream, http=False)

    async def _forward(
        self, head: RequestHead, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, lookup: Lookup
    ) -> None:
        # Chromium sends plain http:// requests in absolute form; https, ws and wss always arrive as CONNECT.
        if head.target[:7].lower() != "http://":
            await send(writer, status_response(400, "bad-request", "Only absolute http:// requests"))
            return
        try:
            target = parse_url(head.target)
        except HostError:
            await self._refuse(writer, EgressRefused(head.target, None, "invalid-host"), head.target)
            return
        upstream = await self._connect(target.host, target.port, writer, lookup, url=head.target)
        if upstream is None:
            return
        up_reader, up_writer = upstream
        up_writer.write(origin_request(head, target))
        await self._relay(reader, writer, up_reader, up_writer, http=True)

    async def _connect(
        self, host: Host, port: int, writer: asyncio.StreamWriter, lookup: Lookup, *, url: str | None
    ) -> Streams | None:
        """Resolve, judge, connect; on any failure answer the client and return None."""
        try:
            route = await route_async(host, port, lookup)
            self._refuse_self(route)
        except EgressRefused as refused:
            await self._refuse(writer, refused, url)
            return None
        except HostUnresolved:
            await send(writer, status_response(502, UNRESOLVED, "net::ERR_NAME_NOT_RESOLVED"))
            return None
        try:
            return await self._open(route)
        except TimeoutError:
            await send(writer, status_response(504, TIMED_OUT, "net::ERR_CONNECTION_TIMED_OUT"))
        except OSError:
            await send(writer, status_response(502, UNREACHABLE, "net::ERR_CONNECTION_FAILED"))
        return None

    async def _open(self, route: Route) -> Streams:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeouts.connect
        allow = allow_networks(get_settings().egress_allow, route.port)
        error: BaseException = OSError("no address")
        for index, address in enumerate(route.addresses):
            # Belt and braces: whatever reaches the connector was judged allowed a moment ago.
            if not classify(address, allow).allowed:
                raise OSError("address not allowed")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError
            # Leave later addresses a share of the time, so one black-holed address can't use it all.
            share = remaining if index == len(route.addresses) - 1 else remaining / 2
            try:
                async with asyncio.timeout(share):
                    return await self._connector(address, route.port)
            except (OSError, TimeoutError) as exc:
                error = exc
        raise error

    def _refuse_self(self, route: Route) -> None:
        # With a broad dev allow-list (127.0.0.0/8) the proxy could otherwise be asked to connect to itself.
        if self._address is None:
            return
        own = ip_address(self._address[0])
        if (route.port == self._address[1] or route.port in self._scope_ports) and own in route.addresses:
            raise EgressRefused(route.host, route.port, "proxy-loop", own)

    async def _refuse(self, writer: asyncio.StreamWriter, refused: EgressRefused, url: str | None) -> None:
        # Recorded before answering: when Chromium reports the failure, the refusal log already has it.
        record_refusal(
            Refusal(
                host=refused.host,
                port=refused.port,
                address=None if refused.address is None else str(refused.address),
                reason=refused.reason,
                stage="proxy",
                url=url,
            )
        )
        await send(writer, status_response(403, REFUSED, f"Blocked by the egress policy ({refused.reason})"))

    async def _relay(
        self,
        client_reader: asyncio.StreamReader,
        client_writer: asyncio.StreamWriter,
        up_reader: asyncio.StreamReader,
        up_writer: asyncio.StreamWriter,
        *,
        http: bool,
    ) -> None:
        loop = asyncio.get_running_loop()
        clock = _Clock(loop)

        async def downstream() -> None:
            if http:
                await relay_response_head(up_reader, client_writer)
                clock.touch()
            await _pipe(up_reader, client_writer, clock)

        async def upstream() -> None:
            await _pipe(client_reader, up_writer, clock)
            with contextlib.suppress(OSError, RuntimeError):
                if up_writer.can_write_eof():
                    up_writer.write_eof()  # the client is done sending; the answer may still be coming

        down = asyncio.create_task(downstream())
        up = asyncio.create_task(upstream())
        pending: set[asyncio.Task[None]] = {down, up}
        idle = False
        try:
            # The exchange ends when the server side is done, the client side fails, or nothing moves.
            while down in pending:
                remaining = clock.last + self._timeouts.idle - loop.time()
                if remaining <= 0:
                    idle = True
                    break
                done, pending = await asyncio.wait(
                    pending, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                if up in done and up.exception() is not None:
                    break
        finally:
            for task in (down, up):
                task.cancel()
            await asyncio.gather(down, up, return_exceptions=True)
            for writer in (up_writer, client_writer):
                if idle:
                    writer.transport.abort()
                else:
                    writer.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, clock: _Clock) -> None:
    # One chunk in flight: drain() waits while the receiver's transport buffer is above its high-water
    # mark, so a slow reader slows the sender instead of filling our memory.
    while True:
        data = await reader.read(CHUNK)
        if not data:
            return
        clock.touch()
        writer.write(data)
        await writer.drain()


_container: EgressProxy | None = None
_container_lock = threading.Lock()


def container_proxy() -> EgressProxy:
    """The container's proxy, made on first use and running (started again if it was stopped)."""
    global _container
    with _container_lock:
        if _container is None:
            _container = EgressProxy()
        _container.start()
        return _container


def proxy_server() -> str:
    """The container's proxy URL ("http://127.0.0.1:PORT"), starting the proxy on first use."""
    return container_proxy().url


def open_scope() -> ProxyScope:
    """A listener of the container's proxy for one request's context (see EgressProxy.open_scope)."""
    return container_proxy().open_scope()


def container_resolver() -> Resolver | None:
    """The resolver the container's proxy uses, for the edge check to ask the same one."""
    return container_proxy().resolver
