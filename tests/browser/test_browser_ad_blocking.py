"""blockAds against real Chromium: a news page with Google's ad tags as publishers paste them (AdSense's
`ins.adsbygoogle` and adsbygoogle.js, a Google Publisher Tag `div-gpt-ad-...` slot and gpt.js), the ad
servers under their real names (resolved by the egress proxy to the loopback fixture server, so every
request that got out is seen there), and the compiled EasyList/EasyPrivacy/uBlock Origin engine."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Route

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from tests.support.page_filters import (
    AD_HOSTS,
    REFUSED_THIRD_PARTY,
    SITE,
    THIRD_PARTY,
    fixture_names,
    in_fresh_context,
)
from webcapture.browser.filters.ad_blocking import enable_ad_blocking, hide_ad_elements
from webcapture.browser.filters.filter_lists import shared_engine
from webcapture.egress import refusal_log

SLOTS = "#div-gpt-ad-1700000000000-0, ins.adsbygoogle, aside.ad-slot"
STATE = """(slots) => ({
    adsense: !!window.__adsbygoogleLoaded, gpt: !!window.__gptLoaded, app: !!window.__appLoaded,
    shown: [...document.querySelectorAll(slots)].map(el => getComputedStyle(el).display !== 'none'),
    lead: getComputedStyle(document.getElementById('lead')).display,
    header: getComputedStyle(document.querySelector('.site-header')).display,
    adFrames: document.querySelectorAll('ins.adsbygoogle iframe').length,
})"""


def ads_url(server: FixtureHttpServer) -> str:
    return server.url("/ads.html", host=SITE)


def load(server: FixtureHttpServer, *, block: bool, hide: bool = False) -> dict[str, Any]:
    url = ads_url(server)

    def job(context: BrowserContext) -> dict[str, Any]:
        if block:
            enable_ad_blocking(context, url)
        page = context.new_page()
        page.goto(url, wait_until="load")
        if hide:
            hide_ad_elements(page)
        state: dict[str, Any] = page.evaluate(STATE, SLOTS)
        return state

    return in_fresh_context(job)


def ad_hits(server: FixtureHttpServer) -> dict[str, list[str]]:
    return {host: server.hits_for(host) for host in AD_HOSTS}


def test_without_blocking_the_ads_load(fixture_server: FixtureHttpServer) -> None:
    # The control: the same page, the same names, nothing blocked: the ad tags reach their servers.
    with fixture_names():
        before = len(fixture_server.hits)
        state = load(fixture_server, block=False)
    assert state["adsense"] and state["gpt"] and state["app"]
    assert state["adFrames"] == 1
    assert all(state["shown"])
    paths = [path for _host, path in fixture_server.hits[before:]]
    assert "/pagead/js/adsbygoogle.js" in paths and "/tag/js/gpt.js" in paths and "/pagead/ads" in paths


def test_blocked_ad_requests_never_leave_the_browser(fixture_server: FixtureHttpServer) -> None:
    with fixture_names():
        before = ad_hits(fixture_server)
        state = load(fixture_server, block=True)
        after = ad_hits(fixture_server)
    assert after == before, "an ad request reached the ad server"
    assert not state["adsense"] and not state["gpt"]
    # The page and its own third-party script still load.
    assert state["app"]
    assert state["lead"] == "block"


def test_cosmetic_rules_hide_the_slots_and_nothing_else(fixture_server: FixtureHttpServer) -> None:
    with fixture_names():
        state = load(fixture_server, block=True, hide=True)
    # AdSense's ins (EasyList's ins.adsbygoogle[data-ad-client]), the GPT slot ([id^="div-gpt-ad"]) and a
    # generic class rule (.ad-slot, found through the page's classes).
    assert state["shown"] == [False, False, False]
    assert state["lead"] == "block"
    assert state["header"] == "block"


def test_blocking_leaves_the_egress_guard_in_charge(fixture_server: FixtureHttpServer) -> None:
    """Requests the lists allow still go to the network through the egress proxy: the site's CDN (a name
    only the proxy's resolver knows) is served, and an image whose name resolves to the metadata address
    is refused by the proxy, not let through by the ad-blocking route."""
    with fixture_names(), refusal_log() as refusals:
        before = len(fixture_server.hits_for(THIRD_PARTY))
        state = load(fixture_server, block=True)
        assert refusals.find(f"http://{REFUSED_THIRD_PARTY}:{fixture_server.port}/") is not None
    assert state["app"]
    assert fixture_server.hits_for(THIRD_PARTY)[before:] == ["/static/app.js"]
    assert fixture_server.hits_for(REFUSED_THIRD_PARTY) == []


def test_other_route_handlers_still_see_what_blocking_lets_through(fixture_server: FixtureHttpServer) -> None:
    # rejectResourceTypes and friends register their own routes; ours falls back to them (never continues
    # past them), and blocked requests never reach them.
    url = ads_url(fixture_server)
    seen: list[str] = []

    def job(context: BrowserContext) -> bool:
        def other(route: Route) -> None:
            seen.append(route.request.url)
            route.fallback()

        context.route("**/*", other)
        enable_ad_blocking(context, url)
        page = context.new_page()
        page.goto(url, wait_until="load")
        return bool(page.evaluate("window.__appLoaded === true"))

    with fixture_names():
        assert in_fresh_context(job)
    assert any(u.endswith("/ads.html") for u in seen)
    assert any(THIRD_PARTY in u for u in seen)
    assert not any(host in u for u in seen for host in AD_HOSTS)


@pytest.mark.parametrize(
    ("url", "kind", "blocked"),
    [
        ("https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js?client=ca-pub-1", "script", True),
        ("https://securepubads.g.doubleclick.net/tag/js/gpt.js", "script", True),
        ("https://www.google-analytics.com/analytics.js", "script", True),  # EasyPrivacy
        ("https://example.org/static/app.js", "script", False),
        ("https://example.org/images/hero.jpg", "image", False),
    ],
)
def test_the_engine_carries_the_maintained_lists(url: str, kind: str, blocked: bool) -> None:
    result = shared_engine().check_network_urls(url, "https://example.org/article", kind)
    assert result.matched is blocked
