"""egress.fetch: our own HTTP requests (robots.txt, sitemaps, a start page) under the egress policy, each
redirect hop judged alone, the connection made to the address that was checked. The canary on 127.0.0.1
must never see a connection."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.support.egress_resolvers import MapResolver
from tests.support.egress_servers import Servers
from tests.support.tls_server import TlsServer, make_certificate, trusting
from webcapture.egress import RefusalLog
from webcapture.egress import fetch as fetch_module
from webcapture.egress.fetch import FetchFailed, FetchRefused, get
from webcapture.errors import NavigationTimeout

pytest_plugins = ["tests.support.egress_fixtures"]


@pytest.fixture
def servers(egress_allow_public: None, egress_dns: MapResolver, egress_servers: Servers) -> Iterator[Servers]:
    yield egress_servers
    assert egress_servers.canary.connections == 0, egress_servers.canary.requests


def _soon() -> float:
    return time.monotonic() + 10


def test_a_public_page_is_fetched_with_our_headers(servers: Servers) -> None:
    with get(f"http://public.test:{servers.port}/headers", deadline=_soon(),
             headers={"User-Agent": "webcapture-test"}) as response:
        body, more = response.read(10_000)
    assert response.status == 200 and not more
    assert b'"User-Agent": "webcapture-test"' in body
    assert f'"Host": "public.test:{servers.port}"'.encode() in body


def test_bodies_stop_at_the_limit(servers: Servers) -> None:
    with get(f"http://public.test:{servers.port}/big?size=1000000", deadline=_soon()) as response:
        body, more = response.read(1000)
    assert len(body) == 1000 and more
    with get(f"http://public.test:{servers.port}/chunked?chunks=3", deadline=_soon()) as response:
        body, more = response.read(1_000_000)
    assert body and not more


def test_redirects_are_followed_hop_by_hop(servers: Servers) -> None:
    with get(f"http://public.test:{servers.port}/redirect?to=/hello", deadline=_soon()) as response:
        assert response.read(100)[0] == b"hello from public"
    assert response.url == f"http://public.test:{servers.port}/hello"
    assert response.redirects == (response.url,)


@pytest.mark.parametrize("target", ["http://internal.test:{port}/", "http://127.0.0.1:{port}/",
                                    "http://2130706433:{port}/", "http://0x7f.1:{port}/",
                                    "http://[::ffff:127.0.0.1]:{port}/", "http://metadata.test/",
                                    "http://mixed.test:{port}/", "file:///etc/passwd"])
def test_a_redirect_inside_is_refused_without_a_connection(
        servers: Servers, refusals: RefusalLog, target: str) -> None:
    location = quote(target.format(port=servers.port), safe="")
    with pytest.raises(FetchRefused), get(f"http://public.test:{servers.port}/redirect?to={location}",
                                          deadline=_soon()):
        pass
    assert refusals.refusals and refusals.refusals[-1].stage == "fetch"


def test_internal_targets_are_refused(servers: Servers) -> None:
    for url in (f"http://internal.test:{servers.port}/", f"http://127.1:{servers.port}/",
                "http://v6-loopback.test/", "http://example.test:25/"):
        with pytest.raises(FetchRefused), get(url, deadline=_soon()):
            pass


def test_the_connection_goes_to_the_checked_address(servers: Servers, egress_dns: MapResolver) -> None:
    # rebind.test answers public first, the canary afterwards: one lookup per hop, and the socket goes
    # where that lookup said.
    with get(f"http://rebind.test:{servers.port}/hello", deadline=_soon()) as response:
        assert response.read(100)[0] == b"hello from public"
    with pytest.raises(FetchRefused), get(f"http://rebind.test:{servers.port}/hello", deadline=_soon()):
        pass
    assert egress_dns.calls["rebind.test"] == 2


def test_failures(servers: Servers) -> None:
    with pytest.raises(FetchFailed, match="could not be resolved"), get("http://nowhere.test/",
                                                                        deadline=_soon()):
        pass
    two_hops = f"/redirect?to={quote('/redirect?to=/hello', safe='')}"
    with pytest.raises(FetchFailed, match="more than 1 redirects"), get(
            f"http://public.test:{servers.port}{two_hops}", deadline=_soon(), max_redirects=1):
        pass
    with pytest.raises(NavigationTimeout), get(f"http://public.test:{servers.port}/hello",
                                               deadline=time.monotonic() - 1):
        pass


def test_https_verifies_the_name_on_the_checked_address(
        egress_allow_public: None, egress_dns: MapResolver, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = make_certificate(["public.test"], tmp_path)
    server = TlsServer("127.0.0.2", cert, key)
    try:
        # Not trusted by the system's certificate store: the connection fails, nothing is read.
        with pytest.raises(FetchFailed, match="could not connect"), get(
                f"https://public.test:{server.port}/", deadline=_soon()):
            pass
        monkeypatch.setattr(fetch_module, "_tls", lambda: trusting(cert))
        with get(f"https://public.test:{server.port}/page", deadline=_soon()) as response:
            body, _ = response.read(1000)
        assert body == f"secure /page for public.test:{server.port}".encode()
        # The certificate names public.test, not the address: reached by its IP, verification fails.
        with pytest.raises(FetchFailed), get(f"https://127.0.0.2:{server.port}/", deadline=_soon()):
            pass
    finally:
        server.stop()


def test_odd_paths_and_locations(servers: Servers) -> None:
    # Non-ASCII and spaces go on the request line percent-encoded, as browsers send them.
    with get(f"http://public.test:{servers.port}/caf\u00e9 menu?q=a b", deadline=_soon()) as response:
        assert response.status == 404
    assert servers.public.requests[-1]["path"] == "/caf%C3%A9%20menu?q=a%20b"
    with pytest.raises(FetchFailed, match="invalid URL"), get(
            f"http://public.test:{servers.port}/redirect?to={quote('http://[::1', safe='')}", deadline=_soon()):
        pass


def test_network_failures_are_named_in_our_words() -> None:
    import ssl

    import urllib3

    from webcapture.network_words import network_words

    assert network_words(ConnectionRefusedError(111, "Connection refused")) == "connection refused"
    assert network_words(TimeoutError("timed out")) == "timed out"
    assert network_words(ssl.SSLError("bad handshake")) == "TLS failed"
    wrapped = urllib3.exceptions.NewConnectionError(None, "Failed to establish a new connection: [Errno 111]")  # type: ignore[arg-type]
    wrapped.__cause__ = ConnectionRefusedError(111, "Connection refused")
    assert network_words(urllib3.exceptions.MaxRetryError(None, "/x", wrapped)) == "connection refused"  # type: ignore[arg-type]
    assert network_words(OSError(113, "No route to host 10.1.2.3:8443")) == "connection failed"
