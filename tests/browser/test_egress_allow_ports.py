"""WEBCAPTURE_EGRESS_ALLOW entries of the form `address:port` open that one port, not the whole address (so
`127.0.0.1:8080` lets a dev server through without opening the local AWS emulator's port to pages)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from ipaddress import ip_address, ip_network

import pytest

from tests.support.fixture_server import FixtureHttpServer, get_server
from webcapture.browser import take_screenshot
from webcapture.egress import check_target
from webcapture.egress.addresses import allow_networks
from webcapture.egress.policy import EgressRefused, judge
from webcapture.errors import UrlNotAllowed
from webcapture.models.requests import ScreenshotRequest
from webcapture.settings import get_settings


def test_entries_name_networks_for_every_port_or_for_one() -> None:
    entries = ("127.0.0.1:8080", "[::1]:8443", "10.0.0.0/8", "fd00::1", "[fd00::2]")
    assert allow_networks(entries, 8080) == (ip_network("127.0.0.1/32"), ip_network("10.0.0.0/8"),
                                             ip_network("fd00::1/128"), ip_network("fd00::2/128"))
    assert allow_networks(entries, 8443) == (ip_network("::1/128"), ip_network("10.0.0.0/8"),
                                             ip_network("fd00::1/128"), ip_network("fd00::2/128"))
    assert allow_networks(entries, 9000) == allow_networks(entries) == (
        ip_network("10.0.0.0/8"), ip_network("fd00::1/128"), ip_network("fd00::2/128"))


@pytest.mark.parametrize("entry", ["127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:http", "127.0.0.1:", "[::1]:x",
                                   "localhost:8080", "127.0.0.1:\uff18\uff10"])
def test_a_bad_entry_fails_loudly(entry: str) -> None:
    with pytest.raises(ValueError):
        allow_networks((entry,), 8080)


@pytest.fixture
def only_the_fixture_port(monkeypatch: pytest.MonkeyPatch) -> Iterator[FixtureHttpServer]:
    server = get_server()
    monkeypatch.setenv("WEBCAPTURE_EGRESS_ALLOW", f"127.0.0.1:{server.port}")
    get_settings.cache_clear()
    yield server
    get_settings.cache_clear()


def another_loopback_port() -> Iterator[int]:
    with socket.socket() as listener:  # a real listener, so a refusal is the policy's and not a closed port
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


@pytest.fixture(name="other_port")
def other_port_fixture() -> Iterator[int]:
    yield from another_loopback_port()


def test_the_named_port_is_allowed_and_another_loopback_port_refused(
    only_the_fixture_port: FixtureHttpServer, other_port: int
) -> None:
    loopback = ip_address("127.0.0.1")
    assert judge("127.0.0.1", only_the_fixture_port.port, [loopback], resolved=False).addresses == (loopback,)
    with pytest.raises(EgressRefused) as refused:
        judge("127.0.0.1", other_port, [loopback], resolved=False)
    assert refused.value.reason == "loopback"
    check_target(only_the_fixture_port.url("/plain.html"))
    with pytest.raises(UrlNotAllowed):
        check_target(f"http://127.0.0.1:{other_port}/plain.html")
    with pytest.raises(UrlNotAllowed):
        check_target(only_the_fixture_port.url("/plain.html", host="127.0.0.2"))  # same port, other address


def test_a_capture_through_the_proxy_reaches_the_named_port(only_the_fixture_port: FixtureHttpServer) -> None:
    shot = take_screenshot(ScreenshotRequest.model_validate(
        {"url": only_the_fixture_port.url("/plain.html"), "screenshotOptions": {"fullPage": False}}))
    assert shot.status_code == 200
