"""The decision for host:port (ports, mixed answers, allow-list), the resolvers (passed in, the system's, a
configured DNS server) and a request's remembered answers."""

from __future__ import annotations

import asyncio
import socket
import threading
from ipaddress import IPv4Address, ip_address
from typing import Any

import pytest

from tests.support.dns_server import answering
from tests.support.egress_resolvers import MapResolver, rebinding
from webcapture.egress.policy import CHROMIUM_UNSAFE_HIGH_PORTS, EgressRefused, port_allowed, route
from webcapture.egress.resolver import (
    HostAnswers,
    HostUnresolved,
    default_resolver,
    resolve,
    resolve_async,
    resolve_blocking,
    system_resolver,
)

pytest_plugins = ["tests.support.egress_fixtures"]


@pytest.mark.parametrize("port", [80, 443, 1024, 3000, 8000, 8080, 8443, 9000, 65535])
def test_web_ports_and_high_ports_are_allowed(port: int) -> None:
    assert port_allowed(port)


@pytest.mark.parametrize("port", [0, 1, 21, 22, 25, 53, 110, 143, 445, 587, 1023, 6000, 6667, 10080, 65536])
def test_low_ports_and_chromium_unsafe_ports_are_refused(port: int) -> None:
    assert not port_allowed(port)


def test_every_chromium_unsafe_high_port_is_refused() -> None:
    assert CHROMIUM_UNSAFE_HIGH_PORTS and not any(port_allowed(port) for port in CHROMIUM_UNSAFE_HIGH_PORTS)


def test_a_public_literal_needs_no_lookup() -> None:
    def fail(name: str) -> list[str]:
        raise AssertionError(f"looked up {name}")

    found = route(IPv4Address("93.184.216.34"), 443, fail)
    assert found.addresses == (IPv4Address("93.184.216.34"),) and not found.resolved


def test_a_name_is_resolved_once_and_every_address_kept_in_order() -> None:
    resolver = MapResolver({"two.test": ["93.184.216.34", "2606:4700::1", "93.184.216.34"]})
    found = route("two.test", 443, resolver)
    assert found.addresses == (ip_address("93.184.216.34"), ip_address("2606:4700::1"))
    assert resolver.calls["two.test"] == 1 and found.resolved


def test_mixed_answers_are_refused_even_with_a_public_address_first() -> None:
    answers = MapResolver({"mixed.test": ["93.184.216.34", "10.0.0.1"]})
    with pytest.raises(EgressRefused) as caught:
        route("mixed.test", 443, answers)
    assert (caught.value.reason, caught.value.address) == ("private", ip_address("10.0.0.1"))


def test_port_rule_applies_to_public_addresses_but_not_allow_listed_ones(egress_allow_public: None) -> None:
    names = MapResolver({"public.test": ["127.0.0.2"], "example.test": ["93.184.216.34"]})
    assert route("public.test", 25, names).port == 25  # allow-listed: any port (test servers use ephemeral ones)
    with pytest.raises(EgressRefused) as caught:
        route("example.test", 25, names)
    assert caught.value.reason == "port" and caught.value.address is None
    assert route("example.test", 8443, names).port == 8443


def test_the_allow_list_comes_from_the_environment(egress_allow_public: None) -> None:
    assert route(IPv4Address("127.0.0.2"), 1234).addresses == (IPv4Address("127.0.0.2"),)
    with pytest.raises(EgressRefused):
        route(IPv4Address("127.0.0.1"), 1234)


@pytest.mark.parametrize("name", ["localhost", "LOCALHOST.", "api.localhost", "a.b.localhost"])
def test_localhost_names_are_loopback_without_asking_dns(name: str) -> None:
    assert IPv4Address("127.0.0.1") in resolve(name, MapResolver({}))  # which would fail any lookup
    with pytest.raises(EgressRefused) as caught:
        route(name.lower(), 80)
    assert caught.value.reason == "loopback"


def test_unknown_names_and_empty_answers_do_not_resolve() -> None:
    names = MapResolver({"empty.test": []})
    with pytest.raises(HostUnresolved):
        resolve("nothing.test", names)
    with pytest.raises(HostUnresolved):
        resolve("empty.test", names)


def test_a_configured_dns_server_answers_every_lookup_and_can_rebind() -> None:
    names = MapResolver({
        "rebind.test": rebinding(["93.184.216.34"], ["127.0.0.1"]),
        "both.test": ["93.184.216.34", "2606:4700::1"],
        "empty.test": [],
    })
    with answering(names) as server:
        assert default_resolver() is not system_resolver
        assert resolve("rebind.test") == (ip_address("93.184.216.34"),)
        assert resolve("rebind.test") == (ip_address("127.0.0.1"),)
        assert set(resolve("both.test")) == {ip_address("93.184.216.34"), ip_address("2606:4700::1")}
        for name in ("nothing.test", "empty.test"):
            with pytest.raises(HostUnresolved):
                resolve(name)
    assert server.lookups("rebind.test") == 2 and names.calls["rebind.test"] == 2
    assert default_resolver() is system_resolver


def test_a_requests_answers_look_each_host_up_once_failures_included() -> None:
    names = MapResolver({"one.test": ["93.184.216.34"]})
    answers = HostAnswers(names)

    async def many() -> list[object]:
        lookups = [answers.resolve(name) for name in ["one.test", "ONE.test."] * 30 + ["none.test"] * 30]
        return await asyncio.gather(*lookups, return_exceptions=True)

    results = asyncio.run(many())
    assert results[:60] == [(ip_address("93.184.216.34"),)] * 60
    assert all(isinstance(result, HostUnresolved) for result in results[60:])
    assert names.calls == {"one.test": 1, "none.test": 1}
    assert answers.lookups == {"one.test": 1, "none.test": 1}


def test_answers_are_the_requests_own() -> None:
    names = MapResolver({"flip.test": rebinding(["93.184.216.34"], ["10.0.0.1"])})
    first, second = HostAnswers(names), HostAnswers(names)
    second.seed("seeded.test", (ip_address("93.184.216.35"),))
    assert asyncio.run(first.resolve("flip.test")) == (ip_address("93.184.216.34"),)
    assert asyncio.run(second.resolve("flip.test")) == (ip_address("10.0.0.1"),)  # asked again, not shared
    assert asyncio.run(second.resolve("seeded.test")) == (ip_address("93.184.216.35"),)
    with pytest.raises(HostUnresolved):
        asyncio.run(first.resolve("seeded.test"))


def test_by_default_the_system_resolver_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def fake_getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        calls.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", 0))]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    assert resolve("intranet.test") == (ip_address("10.1.2.3"),)
    assert asyncio.run(resolve_async("intranet.test")) == (ip_address("10.1.2.3"),)
    with pytest.raises(EgressRefused):
        route("intranet.test", 80)
    assert calls == ["intranet.test"] * 3


def test_a_stuck_lookup_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def stuck(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        release.wait(1.0)  # asyncio.run waits for its executor's threads on exit: keep this short
        return []

    monkeypatch.setattr(socket, "getaddrinfo", stuck)
    try:
        with pytest.raises(HostUnresolved):
            asyncio.run(resolve_async("slow.test", timeout=0.2))
        with pytest.raises(HostUnresolved):
            resolve_blocking("slow.test", timeout=0.2)
    finally:
        release.set()
