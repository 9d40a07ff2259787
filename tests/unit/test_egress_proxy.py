"""The IP-pinning egress proxy over real sockets on loopback.

The canary (127.0.0.1) stands for every internal service: it must never see a connection. The public
fixture (127.0.0.2) is allowed only through the test allow-list. The spy connector records every connect
the proxy attempts and connects only inside 127.0.0.0/8, so nothing here can leave the machine.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import logging
import os
import re
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.dns_server import answering
from tests.support.egress_client import (
    connect,
    get,
    open_proxy,
    proxy_address,
    read_head,
    read_to_close,
    send_raw,
)
from tests.support.egress_names import CANARY, EXAMPLE_PUBLIC, PUBLIC, ProxyUnderTest
from tests.support.egress_resolvers import MapResolver
from tests.support.egress_servers import Servers
from webcapture.browser.lifecycle import shutdown_browser
from webcapture.egress import (
    EGRESS_HEADER,
    EgressProxy,
    RefusalLog,
    chromium_args,
    proxy_server,
)
from webcapture.egress import proxy as egress_proxy
from webcapture.egress.addresses import IPAddress
from webcapture.egress.proxy import Streams, Timeouts, container_proxy
from webcapture.egress.resolver import use_resolver
from webcapture.settings import get_settings

pytest_plugins = ["tests.support.egress_fixtures"]

HEADER = EGRESS_HEADER.lower()


@pytest.fixture
def servers(egress_servers: Servers) -> Servers:
    return egress_servers


@pytest.fixture
def proxy(egress_proxy: ProxyUnderTest) -> ProxyUnderTest:
    return egress_proxy


def assert_untouched(servers: Servers, proxy: ProxyUnderTest, *addresses: str) -> None:
    assert servers.canary.connections == 0, servers.canary.requests
    for address in (CANARY, "169.254.169.254", "::1", *addresses):
        assert not proxy.spy.attempted(address), proxy.spy.attempts


# Allowed traffic ----------------------------------------------------------------------------------------


def test_an_allowed_get_goes_through_with_the_host_rewritten(servers: Servers, proxy: ProxyUnderTest) -> None:
    url = f"http://public.test:{servers.port}/hello"
    response = get(
        proxy.url, url, {"Proxy-Authorization": "Basic c2VjcmV0", "Connection": "X-Hop", "X-Hop": "1"}
    )
    assert (response.status, response.body) == (200, b"hello from public")
    assert response.headers["connection"] == "close" and HEADER not in response.headers
    seen = servers.public.requests[-1]
    assert seen["path"] == "/hello"  # origin form, not the absolute URL
    headers = {name.lower(): value for name, value in seen["headers"].items()}
    assert headers["host"] == f"public.test:{servers.port}"
    assert headers["connection"] == "close"
    assert not {"proxy-authorization", "proxy-connection", "x-hop"} & set(headers)
    assert proxy.spy.attempts == [(PUBLIC, servers.port)]
    assert_untouched(servers, proxy)


def test_a_chunked_response_arrives_intact(servers: Servers, proxy: ProxyUnderTest) -> None:
    connection = http.client.HTTPConnection(*proxy_address(proxy.url), timeout=10)
    connection.request("GET", f"http://public.test:{servers.port}/chunked?chunks=200")
    response = connection.getresponse()
    body = response.read()
    connection.close()
    assert response.status == 200 and response.getheader("Transfer-Encoding") == "chunked"
    assert body == b"".join(f"chunk {i};".encode() for i in range(200))


def test_a_request_body_streams_to_the_server(servers: Servers, proxy: ProxyUnderTest) -> None:
    body = os.urandom(8 * 1024 * 1024)
    connection = http.client.HTTPConnection(*proxy_address(proxy.url), timeout=10)
    connection.request("POST", f"http://public.test:{servers.port}/digest", body=body)
    response = connection.getresponse()
    assert (response.status, response.read().decode()) == (200, hashlib.sha256(body).hexdigest())
    connection.close()


def test_a_large_body_streams_with_backpressure_and_bounded_memory(
    servers: Servers, proxy: ProxyUnderTest
) -> None:
    size = 128 * 1024 * 1024
    tracemalloc.start()
    try:
        baseline = tracemalloc.get_traced_memory()[0]
        with open_proxy(proxy.url, timeout=20) as sock:
            sock.sendall(f"GET http://public.test:{servers.port}/big?size={size} HTTP/1.1\r\n\r\n".encode())
            response, rest = read_head(sock)
            time.sleep(1.0)  # stop reading: a buffering proxy would now swallow the whole body
            sent_while_paused = servers.public.bytes_sent
            received, buffer = len(rest), bytearray(1 << 16)
            while count := sock.recv_into(buffer):
                received += count
        peak = tracemalloc.get_traced_memory()[1] - baseline
    finally:
        tracemalloc.stop()
    assert response.status == 200 and response.headers["content-length"] == str(size)
    assert received == size
    # Kernel socket buffers on the way hold some tens of MB at most; the rest waited at the server.
    assert sent_while_paused < size // 2, sent_while_paused
    assert peak < 8 * 1024 * 1024, f"proxy held {peak} bytes of a {size}-byte body"


def test_connect_tunnels_bytes_both_ways(servers: Servers, proxy: ProxyUnderTest) -> None:
    response, sock = connect(proxy.url, f"{PUBLIC}:{servers.echo.port}")
    with sock:
        assert response.status == 200 and response.body == b""
        payload = os.urandom(1024 * 1024)
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR)  # half-close: the echo still answers, then closes
        assert read_to_close(sock) == payload
    assert servers.echo.connections == 1
    assert_untouched(servers, proxy)


def test_connect_by_name_goes_to_the_checked_address(servers: Servers, proxy: ProxyUnderTest) -> None:
    response, sock = connect(proxy.url, f"public.test:{servers.echo.port}")
    with sock:
        assert response.status == 200
        sock.sendall(b"ping")
        assert sock.recv(4) == b"ping"
    assert proxy.spy.attempts == [(PUBLIC, servers.echo.port)]


def test_many_concurrent_requests_are_each_judged_alone(servers: Servers, proxy: ProxyUnderTest) -> None:
    # Chromium opens dozens of proxy connections at once; allowed and refused ones interleave.
    urls = [f"http://{name}:{servers.port}/hello" for name in ("public.test", "internal.test") * 25]
    results: dict[int, int] = {}

    def fetch(index: int) -> None:
        results[index] = get(proxy.url, urls[index]).status

    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(len(urls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert [results[i] for i in range(len(urls))] == [200, 403] * 25
    assert len(servers.public.requests) == 25
    assert_untouched(servers, proxy)


# Refusals -----------------------------------------------------------------------------------------------

HTTP_REFUSALS = [
    ("http://127.0.0.1:{port}/", "loopback", "127.0.0.1"),
    ("http://internal.test:{port}/", "loopback", "127.0.0.1"),
    ("http://2130706433:{port}/", "loopback", "127.0.0.1"),
    ("http://0177.0.0.1:{port}/", "loopback", "127.0.0.1"),
    ("http://0x7f.0.0.1:{port}/", "loopback", "127.0.0.1"),
    ("http://0x7f000001:{port}/", "loopback", "127.0.0.1"),
    ("http://127.1:{port}/", "loopback", "127.0.0.1"),
    ("http://[::1]:{port}/", "loopback", "::1"),
    ("http://[::ffff:127.0.0.1]:{port}/", "loopback", "::ffff:7f00:1"),
    ("http://[64:ff9b::7f00:1]:{port}/", "loopback", "64:ff9b::7f00:1"),
    ("http://[2002:7f00:1::]:{port}/", "loopback", "2002:7f00:1::"),
    ("http://0.0.0.0:{port}/", "unspecified", "0.0.0.0"),
    ("http://169.254.169.254/latest/meta-data/", "link-local", "169.254.169.254"),
    ("http://metadata.test/latest/meta-data/", "link-local", "169.254.169.254"),
    ("http://mixed.test:{port}/", "loopback", "127.0.0.1"),
    ("http://v6-loopback.test:{port}/", "loopback", "::1"),
    ("http://mapped.test:{port}/", "loopback", "::ffff:7f00:1"),
    ("http://localhost:{port}/", "loopback", "127.0.0.1"),
    ("http://app.localhost:{port}/", "loopback", "127.0.0.1"),
]


@pytest.mark.parametrize(("template", "reason", "address"), HTTP_REFUSALS)
def test_plain_http_to_internal_is_refused_without_a_connection(
    template: str, reason: str, address: str, servers: Servers, proxy: ProxyUnderTest, refusals: RefusalLog
) -> None:
    url = template.format(port=servers.port)
    response = get(proxy.url, url)
    assert response.status == 403 and response.headers[HEADER] == "refused"
    assert len(response.body) < 200 and reason.encode() in response.body
    # Recorded before the answer was sent: no waiting needed.
    assert [(r.reason, r.address, r.stage, r.url) for r in refusals.refusals] == [
        (reason, address, "proxy", url)
    ]
    assert proxy.spy.attempts == []  # refused before any connection attempt
    assert servers.public.connections == 0  # mixed.test: not even its public address
    assert_untouched(servers, proxy)


CONNECT_REFUSALS = [
    ("127.0.0.1:{port}", "loopback"),
    ("internal.test:{port}", "loopback"),
    ("0x7f.1:{port}", "loopback"),
    ("2130706433:{port}", "loopback"),
    ("[::1]:{port}", "loopback"),
    ("[::ffff:127.0.0.1]:{port}", "loopback"),
    ("0.0.0.0:{port}", "unspecified"),
    ("169.254.169.254:443", "link-local"),
    ("metadata.test:443", "link-local"),
    ("mixed.test:{port}", "loopback"),
    ("localhost:443", "loopback"),
    ("example.test:25", "port"),
    ("example.test:22", "port"),
    ("example.test:6667", "port"),
    ("bad host:443", "invalid-host"),
]


@pytest.mark.parametrize(("template", "reason"), CONNECT_REFUSALS)
def test_connect_to_internal_is_refused_without_a_connection(
    template: str, reason: str, servers: Servers, proxy: ProxyUnderTest, refusals: RefusalLog
) -> None:
    authority = template.format(port=servers.port)
    response, sock = connect(proxy.url, authority) if " " not in authority else (None, None)
    if sock is None:  # a space cannot go in a request line as is; send it raw
        response = send_raw(proxy.url, f"CONNECT {authority} HTTP/1.1\r\n\r\n".encode())
        assert response.status == 400
        return
    with sock:
        assert response is not None and response.status == 403 and response.headers[HEADER] == "refused"
        sock.settimeout(5)
        assert (response.body + read_to_close(sock)).startswith(b"Blocked by the egress policy")
    assert [r.reason for r in refusals.refusals] == [reason]
    assert proxy.spy.attempts == []
    assert servers.public.connections == servers.echo.connections == 0
    assert_untouched(servers, proxy, EXAMPLE_PUBLIC)


def test_dns_rebinding_gets_no_second_lookup(
    servers: Servers, proxy: ProxyUnderTest, egress_dns: MapResolver, refusals: RefusalLog
) -> None:
    # rebind.test answers the public fixture first and the canary after; both listen on the same port, so
    # a proxy that looked the name up again to connect would land on the canary.
    first = get(proxy.url, f"http://rebind.test:{servers.port}/hello")
    assert (first.status, first.body) == (200, b"hello from public")
    assert egress_dns.calls["rebind.test"] == 1
    assert proxy.spy.attempts == [(PUBLIC, servers.port)]
    second = get(proxy.url, f"http://rebind.test:{servers.port}/hello")
    assert second.status == 403 and second.headers[HEADER] == "refused"
    assert egress_dns.calls["rebind.test"] == 2
    assert [(r.host, r.reason) for r in refusals.refusals] == [("rebind.test", "loopback")]
    assert len(servers.public.requests) == 1
    assert_untouched(servers, proxy)


def test_a_scope_looks_each_host_up_once_and_keeps_the_answer(
    servers: Servers, proxy: ProxyUnderTest, egress_dns: MapResolver, refusals: RefusalLog
) -> None:
    # One request's listener: 60 connections to one host arrive together and pay one lookup; rebind.test
    # would answer the canary on a second lookup, so every connection landing on the public fixture shows
    # they all used the first, checked answer. An unresolvable name fails once, and stays failed.
    scope = proxy.proxy.open_scope()
    try:
        with ThreadPoolExecutor(max_workers=20) as pool:
            answers = list(pool.map(
                lambda _: get(scope.url, f"http://rebind.test:{servers.port}/hello"), range(60)))
            missing = list(pool.map(lambda _: get(scope.url, "http://nowhere.test/"), range(10)))
        assert {(a.status, a.body) for a in answers} == {(200, b"hello from public")}
        assert {m.headers[HEADER] for m in missing} == {"unresolved"}
        assert egress_dns.calls["rebind.test"] == 1 and egress_dns.calls["nowhere.test"] == 1
        assert scope.answers.lookups == {"rebind.test": 1, "nowhere.test": 1}
        assert len(servers.public.requests) == 60 and refusals.refusals == ()
    finally:
        scope.close()
    # Another request's scope asks afresh (and gets the rebound answer: nothing is shared between them).
    other = proxy.proxy.open_scope()
    try:
        assert get(other.url, f"http://rebind.test:{servers.port}/hello").status == 403
    finally:
        other.close()
    assert egress_dns.calls["rebind.test"] == 2
    with pytest.raises(OSError):
        socket.create_connection(proxy_address(scope.url), timeout=1).close()  # closed with its context
    assert_untouched(servers, proxy)


def test_dns_rebinding_through_the_system_resolver(
    servers: Servers, proxy: ProxyUnderTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same with no configured DNS server: the system resolver itself answers public, then internal. Any
    # lookup other than the proxy's one (asyncio's, the connector's) would also see the internal answer.
    real = socket.getaddrinfo
    lookups: list[str] = []

    def rebinding_getaddrinfo(host: str, *args: object, **kwargs: object) -> object:
        if host != "sysrebind.test":
            return real(host, *args, **kwargs)  # type: ignore[arg-type]
        lookups.append(host)
        address = PUBLIC if len(lookups) == 1 else CANARY
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding_getaddrinfo)
    replaced = use_resolver(None)  # no DNS server of the test's: the system resolver
    try:
        response, sock = connect(proxy.url, f"sysrebind.test:{servers.port}")
        with sock:
            assert response.status == 200
            sock.sendall(b"GET /hello HTTP/1.1\r\nHost: sysrebind.test\r\nConnection: close\r\n\r\n")
            assert read_to_close(sock).endswith(b"hello from public")
    finally:
        use_resolver(replaced)
    assert lookups == ["sysrebind.test"]
    assert_untouched(servers, proxy)


def test_public_hosts_may_use_high_ports(
    servers: Servers, proxy: ProxyUnderTest, refusals: RefusalLog
) -> None:
    # example.test is a real public address: the proxy tries it, and the spy refuses to actually connect.
    response, sock = connect(proxy.url, "example.test:8443")
    sock.close()
    assert response.status == 502 and response.headers[HEADER] == "unreachable"
    assert proxy.spy.attempts == [(EXAMPLE_PUBLIC, 8443)]
    assert len(refusals) == 0


def test_a_name_that_does_not_resolve_is_a_502(proxy: ProxyUnderTest, refusals: RefusalLog) -> None:
    response = get(proxy.url, "http://nowhere.test/")
    assert response.status == 502 and response.headers[HEADER] == "unresolved"
    assert b"ERR_NAME_NOT_RESOLVED" in response.body
    assert len(refusals) == 0 and proxy.spy.attempts == []


def test_a_closed_port_is_a_502(proxy: ProxyUnderTest) -> None:
    with socket.socket() as probe:
        probe.bind((PUBLIC, 0))
        closed = probe.getsockname()[1]
    response = get(proxy.url, f"http://public.test:{closed}/")
    assert response.status == 502 and response.headers[HEADER] == "unreachable"


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /hello HTTP/1.1\r\nHost: public.test\r\n\r\n",  # origin form: not a proxy request
        b"GET https://public.test/ HTTP/1.1\r\n\r\n",  # the proxy does not originate TLS
        b"GET http://public.test/ HTTP/2.0\r\n\r\n",
        b"GET http://public.test/\r\n\r\n",
        b"GET http://public.test/ HTTP/1.1\r\nBad Header : x\r\n\r\n",  # whitespace before the colon
        b"GET http://public.test/ HTTP/1.1\r\nX: a\r\n folded\r\n\r\n",  # obsolete line folding
        b"GET http://public.test/ HTTP/1.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n",
    ],
)
def test_malformed_requests_are_400(request_bytes: bytes, servers: Servers, proxy: ProxyUnderTest) -> None:
    response = send_raw(proxy.url, request_bytes)
    assert response.status == 400 and response.headers[HEADER] == "bad-request"
    assert proxy.spy.attempts == [] and servers.public.connections == 0


def test_refusals_from_the_proxy_thread_are_logged_and_counted(
    servers: Servers, proxy: ProxyUnderTest, capsys: pytest.CaptureFixture[str]
) -> None:
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign,assignment]
    logger = logging.getLogger(get_settings().service_name)
    logger.addHandler(handler)
    try:
        get(proxy.url, f"http://internal.test:{servers.port}/")
    finally:
        logger.removeHandler(handler)
    events = [vars(r) for r in records if getattr(r, "event", None) == "egress_refused"]
    assert [(e["host"], e["address"], e["reason"], e["stage"]) for e in events] == [
        ("internal.test", CANARY, "loopback", "proxy")
    ]
    output = capsys.readouterr().out
    assert re.search(r'"EgressRefused":\[1\.0\]', output) and '"stage":"proxy"' in output


def test_the_proxy_refuses_to_connect_to_itself(
    monkeypatch: pytest.MonkeyPatch, proxy: ProxyUnderTest, refusals: RefusalLog
) -> None:
    monkeypatch.setenv("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.0/8")  # a broad dev allow-list
    get_settings.cache_clear()
    port = proxy_address(proxy.url)[1]
    response = get(proxy.url, f"http://127.0.0.1:{port}/")
    assert response.status == 403 and [r.reason for r in refusals.refusals] == ["proxy-loop"]
    assert proxy.spy.attempts == []


def test_a_client_vanishing_mid_body_leaves_the_proxy_serving(
    servers: Servers, proxy: ProxyUnderTest
) -> None:
    sock = open_proxy(proxy.url)
    sock.sendall(
        f"GET http://public.test:{servers.port}/big?size={64 * 1024 * 1024} HTTP/1.1\r\n\r\n".encode()
    )
    read_head(sock)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    sock.close()  # reset, mid-body
    assert get(proxy.url, f"http://public.test:{servers.port}/hello").status == 200


# Timeouts -----------------------------------------------------------------------------------------------


@pytest.fixture
def quick_proxy(egress_allow_public: None, egress_dns: MapResolver) -> Iterator[EgressProxy]:
    async def slow_connector(address: IPAddress, port: int) -> Streams:
        if port == 9:  # the "black hole" port of this test
            await asyncio.sleep(30)
        from webcapture.egress.proxy import open_tcp

        return await open_tcp(address, port)

    proxy = EgressProxy(connector=slow_connector, timeouts=Timeouts(head=0.3, connect=0.3, idle=0.5))
    proxy.start()
    yield proxy
    proxy.stop()


def test_a_silent_client_is_dropped_after_the_head_timeout(quick_proxy: EgressProxy) -> None:
    started = time.monotonic()
    with open_proxy(quick_proxy.url) as sock:
        response, _ = read_head(sock)
    assert response.status == 400 and 0.2 < time.monotonic() - started < 3


def test_an_idle_tunnel_is_closed(quick_proxy: EgressProxy, servers: Servers) -> None:
    response, sock = connect(quick_proxy.url, f"{PUBLIC}:{servers.echo.port}")
    started = time.monotonic()
    with sock:
        assert response.status == 200
        assert read_to_close(sock) == b""
    assert 0.4 < time.monotonic() - started < 3


def test_a_connect_that_hangs_is_a_504(quick_proxy: EgressProxy) -> None:
    response = get(quick_proxy.url, f"http://{PUBLIC}:9/")
    assert response.status == 504 and response.headers[HEADER] == "timeout"


def test_traffic_keeps_a_tunnel_alive_past_the_idle_timeout(
    quick_proxy: EgressProxy, servers: Servers
) -> None:
    response, sock = connect(quick_proxy.url, f"{PUBLIC}:{servers.echo.port}")
    with sock:
        assert response.status == 200
        for _ in range(6):  # 1.2 s in all, more than twice the idle timeout
            sock.sendall(b"x")
            assert sock.recv(1) == b"x"
            time.sleep(0.2)


# The container's proxy ----------------------------------------------------------------------------------


@pytest.fixture
def default_proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The test starts from no container proxy (one an earlier test started is stopped, and started again on
    # its next use once the test has put it back) and stops the one it made. A browser this process launched
    # earlier keeps the proxy it was launched with: shut it down on both sides, so browser tests that run
    # later launch one on a proxy that is serving.
    shutdown_browser()
    earlier = egress_proxy._container
    if earlier is not None:
        earlier.stop()
    monkeypatch.setattr(egress_proxy, "_container", None)
    yield
    shutdown_browser()
    made = egress_proxy._container
    if made is not None:
        made.stop()


def test_proxy_server_starts_once_on_loopback(default_proxy: None, servers: Servers) -> None:
    first = proxy_server()
    assert first is not None and re.fullmatch(r"http://127\.0\.0\.1:\d+", first)
    assert proxy_server() == first
    assert f"--proxy-server={first}" in chromium_args()
    assert [t.name for t in threading.enumerate()].count("webcapture-egress-proxy") == 1
    assert next(t for t in threading.enumerate() if t.name == "webcapture-egress-proxy").daemon
    with answering(MapResolver({})):
        response = get(first, f"http://127.0.0.1:{servers.port}/")
    assert response.status == 403 and servers.canary.connections == 0


def test_a_stopped_container_proxy_is_freed_and_started_again_on_use(default_proxy: None) -> None:
    url = proxy_server()
    assert url is not None
    container_proxy().stop()
    with pytest.raises(OSError):
        socket.create_connection(proxy_address(url), timeout=1).close()
    assert "webcapture-egress-proxy" not in [t.name for t in threading.enumerate()]
    again = proxy_server()
    assert again is not None
    socket.create_connection(proxy_address(again), timeout=1).close()  # serving again
    assert [t.name for t in threading.enumerate()].count("webcapture-egress-proxy") == 1
