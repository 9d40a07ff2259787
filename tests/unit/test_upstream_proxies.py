"""Upstream proxy pools (docs/actions-and-blocked-pages.md#actions-and-blocked-pages): the configuration, and
the tunnel our egress proxy opens through a real CONNECT proxy on loopback. Credentials never appear in what
could be logged or answered."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from ipaddress import ip_address

import pytest

from tests.support.connect_proxy import CountingConnectProxy
from webcapture.egress.upstream import UpstreamRefused, tunnel_connector
from webcapture.egress.upstream_config import UpstreamProxy, parse_pools

PASSWORD = "p@ss:w0rd-Secret"


def test_pools_are_parsed_with_their_credentials_decoded() -> None:
    pools = parse_pools('{"us": "http://user:p%40ss%3Aw0rd-Secret@proxy.example:8080", "eu": "http://10.1.2.3:3128"}')
    assert pools["us"] == UpstreamProxy("us", "proxy.example", 8080, "user", PASSWORD)
    assert pools["eu"].username is None and pools["eu"].port == 3128
    assert PASSWORD not in repr(pools["us"]) and PASSWORD not in str(pools["us"])


@pytest.mark.parametrize("text", [
    "not json", "[]", '{"us": 5}', '{"us": "https://user:p%40ss%3Aw0rd-Secret@proxy.example:8080"}',
    '{"us": "http://user:p%40ss%3Aw0rd-Secret@proxy.example"}', '{"bad name": "http://proxy.example:1"}',
])
def test_an_unusable_configuration_is_refused_without_its_credentials(text: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_pools(text)
    assert "w0rd" not in str(refused.value)


@pytest.fixture
def echo() -> Iterator[int]:
    server = socket.create_server(("127.0.0.2", 0))
    port = server.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                connection.sendall(connection.recv(100).upper())

    threading.Thread(target=serve, daemon=True).start()
    yield port
    server.close()


def _through(upstream: UpstreamProxy, port: int) -> bytes:
    async def exchange() -> bytes:
        reader, writer = await tunnel_connector(upstream)(ip_address("127.0.0.2"), port)
        writer.write(b"hello")
        await writer.drain()
        answer = await reader.read(100)
        writer.close()
        return answer

    return asyncio.run(exchange())


def test_the_tunnel_goes_through_the_proxy_to_the_checked_address(echo: int) -> None:
    proxy = CountingConnectProxy("127.0.0.3", "user", PASSWORD, "127.0.0.4")
    try:
        assert _through(UpstreamProxy("loop", proxy.host, proxy.port, "user", PASSWORD), echo) == b"HELLO"
        assert [(t.target, t.authorized) for t in proxy.tunnels] == [(f"127.0.0.2:{echo}", True)]
        with pytest.raises(UpstreamRefused) as refused:
            _through(UpstreamProxy("loop", proxy.host, proxy.port, "user", "wrong"), echo)
        assert "407" in str(refused.value) and "wrong" not in str(refused.value)
    finally:
        proxy.stop()
