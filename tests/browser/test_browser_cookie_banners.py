"""blockCookieBanners against real Chromium: OneTrust, Cookiebot and Didomi banners with the markup their
SDKs render and the page APIs they expose (what autoconsent's rules look for), each recording the
visitor's choice as the real one does (a cookie, the SDK's state) so the tests see a refusal, not just a
banner gone; a Didomi notice without any way to refuse, which must be hidden instead; and a page with no
banner at all, which must be left as it is."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import BrowserContext

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from tests.support.page_filters import in_fresh_context
from webcapture.browser.budget import Deadline
from webcapture.browser.filters.cookie_banners import (
    consent_log,
    enable_cookie_banner_handling,
    settle_cookie_banners,
)

# Generous: what is tested is the outcome, not how fast it came on a machine shared by the whole suite.
CAP_S = 15.0

STATE = """(banner) => {
    const el = document.querySelector(banner);
    return {
        choice: window.consentChoice || null,
        cookies: document.cookie,
        bannerShown: !!el && getComputedStyle(el).display !== 'none' && el.getClientRects().length > 0,
        mainShown: getComputedStyle(document.querySelector('main') || document.body).display !== 'none',
    };
}"""


def settle(server: FixtureHttpServer, path: str, banner: str, *, enabled: bool = True) -> dict[str, Any]:
    def job(context: BrowserContext) -> dict[str, Any]:
        if enabled:
            enable_cookie_banner_handling(context)
        page = context.new_page()
        page.goto(server.url(path), wait_until="load")
        settle_cookie_banners(page, Deadline(20_000), cap_s=CAP_S)
        state: dict[str, Any] = page.evaluate(STATE, banner)
        consent = consent_log(context)
        state["settled"] = consent.settled() if consent else None
        state["refused"] = sorted(consent.refused) if consent else []
        return state

    return in_fresh_context(job, budget_ms=30_000)


@pytest.mark.parametrize(
    ("path", "banner", "cmp", "cookie"),
    [
        ("/consent-onetrust.html", "#onetrust-banner-sdk", "Onetrust", "OptanonConsent=groups=%2CC0001%2C"),
        ("/consent-cookiebot.html", "#CybotCookiebotDialog", "Cybotcookiebot", "marketing%3Afalse"),
        ("/consent-didomi.html", "#didomi-notice", "didomi", "didomi_token="),
    ],
)
def test_banners_are_refused(
    fixture_server: FixtureHttpServer, path: str, banner: str, cmp: str, cookie: str
) -> None:
    state = settle(fixture_server, path, banner)
    assert state["choice"] == "rejected"
    assert cookie in state["cookies"]
    assert not state["bannerShown"]
    assert state["mainShown"]
    assert state["settled"] is True
    assert state["refused"] == [cmp]


@pytest.mark.parametrize("path", ["/consent-onetrust.html", "/consent-didomi.html"])
def test_without_the_option_the_banner_stays(fixture_server: FixtureHttpServer, path: str) -> None:
    # The control: the same pages, nothing enabled, nothing chosen, the banner on screen.
    banner = "#onetrust-banner-sdk" if "onetrust" in path else "#didomi-notice"
    state = settle(fixture_server, path, banner, enabled=False)
    assert state["choice"] is None
    assert state["bannerShown"]


def test_a_banner_that_cannot_be_refused_is_hidden(fixture_server: FixtureHttpServer) -> None:
    # No "Disagree" button and no Didomi API: the opt-out fails, so the banner is hidden, and nothing is
    # accepted on the visitor's behalf.
    state = settle(fixture_server, "/consent-didomi.html?no-reject", "#didomi-notice")
    assert state["choice"] is None
    assert not state["bannerShown"]
    assert state["mainShown"]
    assert state["refused"] == []


def test_a_page_without_a_banner_is_left_alone(fixture_server: FixtureHttpServer) -> None:
    state = settle(fixture_server, "/plain.html", "h1")
    assert state["settled"] is True  # autoconsent finished looking and found nothing
    assert state["bannerShown"]  # the page's own heading is untouched
    assert state["refused"] == []


def test_settling_stops_at_the_deadline(fixture_server: FixtureHttpServer) -> None:
    # A deadline already spent: settle returns at once instead of waiting for the banner.
    def job(context: BrowserContext) -> bool:
        enable_cookie_banner_handling(context)
        page = context.new_page()
        page.goto(fixture_server.url("/consent-cookiebot.html"), wait_until="domcontentloaded")
        spent = Deadline(0)
        settle_cookie_banners(page, spent, cap_s=CAP_S)
        consent = consent_log(context)
        return consent is not None and not consent.refused

    assert in_fresh_context(job)
