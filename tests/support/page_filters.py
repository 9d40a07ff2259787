"""Helpers for the blockAds / blockCookieBanners tests and bench: host names the egress proxy resolves to
the loopback fixture server (so ad servers keep their real names, which is what the lists match), and a
fresh context on the service's own browser (real Chromium behind the egress proxy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from playwright.sync_api import BrowserContext

from tests.support.dns_server import answering
from tests.support.egress_resolvers import Answer, MapResolver
from webcapture import egress
from webcapture.browser import lifecycle
from webcapture.browser.budget import Deadline

T = TypeVar("T")

SITE = "news.test"
AD_HOSTS = ("pagead2.googlesyndication.com", "securepubads.g.doubleclick.net", "googleads.g.doubleclick.net")
THIRD_PARTY = "cdn.news.test"  # the site's own CDN: a third party the lists leave alone
REFUSED_THIRD_PARTY = "img.news.test"  # resolves to the metadata address: the proxy must refuse it


@contextmanager
def fixture_names(refused: tuple[str, ...] = (REFUSED_THIRD_PARTY,)) -> Iterator[MapResolver]:
    """The test names resolved by the egress proxy: all to the fixture server, `refused` to 169.254.169.254."""
    mapping: dict[str, Answer] = {name: ["127.0.0.1"] for name in (SITE, THIRD_PARTY, *AD_HOSTS)}
    mapping.update({name: ["169.254.169.254"] for name in refused})
    mapping.setdefault(REFUSED_THIRD_PARTY, ["127.0.0.1"])
    resolver = MapResolver(mapping)
    with answering(resolver):
        yield resolver


def in_fresh_context(job: Callable[[BrowserContext], T], budget_ms: int = 20_000) -> T:
    """job(a new context) on the browser worker, as the service runs it; the context is closed after."""
    current = lifecycle.host()

    def run() -> T:
        browser = current.browser(Deadline(budget_ms))
        context = browser.new_context(service_workers=egress.SERVICE_WORKERS, accept_downloads=False)
        context.set_default_timeout(budget_ms)
        try:
            return job(context)
        finally:
            context.close()

    return current.submit(run, wait_s=budget_ms / 1000 + 30)
