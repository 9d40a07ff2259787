"""Pytest fixtures for the egress tests; load with `pytest_plugins = ["tests.support.egress_fixtures"]`.

Names the test resolver knows (a loopback DNS server the guard is configured to ask) (all under the reserved .test TLD):
  public.test     -> 127.0.0.2 (the public fixture, allowed by the test allow-list)
  internal.test   -> 127.0.0.1 (the canary)
  metadata.test   -> 169.254.169.254
  mixed.test      -> 127.0.0.2 and 127.0.0.1
  rebind.test     -> 127.0.0.2 on the first lookup, 127.0.0.1 after
  v6-loopback.test -> ::1;  mapped.test -> ::ffff:127.0.0.1
  example.test    -> 93.184.216.34, a public address the spy connector refuses to connect to
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.dns_server import answering
from tests.support.egress_names import CANARY, EXAMPLE_PUBLIC, PUBLIC, ProxyUnderTest
from tests.support.egress_resolvers import MapResolver, SpyConnector, rebinding
from tests.support.egress_servers import Servers
from webcapture.egress import EgressProxy, RefusalLog, refusal_log
from webcapture.egress.proxy import Timeouts
from webcapture.settings import get_settings


@pytest.fixture
def egress_allow_public(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The test allow-list: only the public fixture's address."""
    monkeypatch.setenv("WEBCAPTURE_EGRESS_ALLOW", f"{PUBLIC}/32")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture
def egress_servers() -> Iterator[Servers]:
    servers = Servers()
    yield servers
    servers.stop()


@pytest.fixture
def egress_dns() -> Iterator[MapResolver]:
    resolver = MapResolver(
        {
            "public.test": [PUBLIC],
            "internal.test": [CANARY],
            "metadata.test": ["169.254.169.254"],
            "mixed.test": [PUBLIC, CANARY],
            "rebind.test": rebinding([PUBLIC], [CANARY]),
            "v6-loopback.test": ["::1"],
            "mapped.test": ["::ffff:127.0.0.1"],
            "example.test": [EXAMPLE_PUBLIC],
        }
    )
    with answering(resolver):
        yield resolver


@pytest.fixture
def egress_proxy(egress_allow_public: None, egress_dns: MapResolver) -> Iterator[ProxyUnderTest]:
    spy = SpyConnector()
    proxy = EgressProxy(connector=spy, timeouts=Timeouts(head=5.0, connect=5.0, idle=5.0))
    url = proxy.start()
    yield ProxyUnderTest(url, spy, proxy)
    proxy.stop()


@pytest.fixture
def refusals() -> Iterator[RefusalLog]:
    with refusal_log() as log:
        yield log
