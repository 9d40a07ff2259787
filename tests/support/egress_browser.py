"""The egress guard against real Chromium: an "internal" canary, a "public" site of attack pages, and the
browser core wired to a proxy whose connector is a spy (load with
`pytest_plugins = ["tests.support.egress_browser"]`).

- Canary on 127.0.0.1:P (HTTP, counts every connection) and a second one on [::1]:P (counts connections).
  The attack pages aim at these; every test asserts that neither saw anything.
- Site on 127.0.0.2:P (the only address the test allow-list lets through): pages that reach for the
  canary by every route a page has (/page/<name>), redirects (/redirect/<status>?to=URL), a service
  worker script, and /hold, an image that keeps the load event from firing until the test's condition
  holds (the proxy has refused the request a page sent asynchronously), so no test sleeps and hopes.
- The browser runs with the container's real launch path, but the proxy is one whose connector is the
  suite's spy: it records every connection attempt and never connects outside 127.0.0.0/8, so nothing
  can leave the machine even if the guard were broken (169.254.169.254 is never contacted).
- Names (a loopback DNS server the guard asks): public.test -> site, internal.test -> canary, metadata.test -> 169.254.169.254,
  rebind.test (public for the first lookup, the canary after), flip.test (public until the site has served /page/rebind,
  its page, the canary after).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.dns_server import answering
from tests.support.egress_names import CANARY, PUBLIC
from tests.support.egress_resolvers import MapResolver, SpyConnector, rebinding
from tests.support.egress_servers import CanaryServer
from tests.support.egress_site import Baseline, GuardedBrowser, Site, V6Canary
from webcapture.browser import lifecycle
from webcapture.egress import EgressProxy
from webcapture.egress import proxy as egress_proxy
from webcapture.settings import get_settings


@pytest.fixture(scope="module")
def guarded_browser() -> Iterator[GuardedBrowser]:
    canary = CanaryServer(CANARY)
    canary6 = V6Canary(canary.port)
    site = Site(canary.port)
    resolver = MapResolver(
        {
            "public.test": [PUBLIC],
            "internal.test": [CANARY],
            "metadata.test": ["169.254.169.254"],
            "rebind.test": rebinding([PUBLIC], [CANARY]),
            "flip.test": lambda _call: [CANARY] if site.flipped.is_set() else [PUBLIC],
        }
    )
    spy = SpyConnector()
    proxy = EgressProxy(connector=spy)
    with pytest.MonkeyPatch.context() as patch, answering(resolver):
        patch.setenv("WEBCAPTURE_EGRESS_ALLOW", f"{PUBLIC}/32")  # the site only, never the canary
        get_settings.cache_clear()
        # The browser keeps the proxy it was launched with: relaunch it on ours, and again afterwards.
        lifecycle.shutdown_browser()
        # Ours stands as the container's proxy; the container's own comes back when the patch is undone.
        patch.setattr(egress_proxy, "_container", proxy)
        try:
            yield GuardedBrowser(canary, canary6, site, spy, resolver, proxy)
        finally:
            lifecycle.shutdown_browser()
            proxy.stop()
            get_settings.cache_clear()
            site.stop()
            canary.stop()
            canary6.stop()


@pytest.fixture
def guard(guarded_browser: GuardedBrowser) -> Iterator[Baseline]:
    """A test's view of the guarded browser: its baseline, and the site's per-test state reset."""
    g = guarded_browser
    g.site.release = None
    g.site.flipped.clear()
    yield Baseline(g, g.canary.connections, g.canary6.connections, len(g.spy.attempts))
    g.site.release = None
