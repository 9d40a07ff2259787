"""Page control's waits, element shots, scrolling and hiding (docs/api.md#page-control) in real Chromium
against the loopback fixture pages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from tests.support.page_control import pixels, shoot, snapshot
from webcapture.errors import ElementNotFound, NavigationTimeout
from webcapture.settings import get_settings

WHITE, RED, GREEN, BLUE = (255, 255, 255, 255), (255, 0, 0, 255), (0, 128, 0, 255), (0, 0, 255, 255)


@pytest.fixture
def short_budget(monkeypatch: pytest.MonkeyPatch, egress_allows_fixtures: None) -> Iterator[None]:
    """A 6 s request budget: a page whose load never ends fails (or is used, with bestAttempt) sooner."""
    monkeypatch.setenv("WEBCAPTURE_REQUEST_BUDGET_MS", "6000")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


# -- waitForSelector ----------------------------------------------------------------------------------


def test_wait_for_selector_waits_for_the_late_element(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-late-element.html")
    assert 'id="late"' not in snapshot(url).html
    page = snapshot(url, waitForSelector="#late")
    assert 'id="late"' in page.html and page.warnings == ()


def test_wait_for_selector_hidden_waits_for_the_element_to_go(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-late-element.html")
    page = snapshot(url, waitForSelector={"selector": "#waiting", "hidden": True})
    assert 'id="waiting"' not in page.html and "arrived" in page.html


def test_wait_for_selector_visible(fixture_server: FixtureHttpServer) -> None:
    shot = shoot(
        fixture_server.url("/pc-late-element.html"),
        waitForSelector={"selector": "#late", "visible": True},
        screenshotOptions={"fullPage": False},
    )
    assert pixels(shot).at(57, 37) == BLUE  # the late box's corner, clear of its text


def test_an_unsatisfied_wait_is_a_timeout_naming_the_selector(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-late-element.html")
    with pytest.raises(NavigationTimeout) as caught:
        snapshot(url, waitForSelector={"selector": "#never", "timeout": 300})
    assert "#never" in caught.value.message and caught.value.status == 504


def test_best_attempt_uses_the_page_and_warns(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-late-element.html")
    page = snapshot(url, waitForSelector={"selector": "#never", "timeout": 300}, bestAttempt=True)
    assert "waiting" in page.html
    assert len(page.warnings) == 1 and "#never" in page.warnings[0]


def test_an_invalid_selector_is_element_not_found(fixture_server: FixtureHttpServer) -> None:
    with pytest.raises(ElementNotFound, match="not a valid CSS selector"):
        snapshot(fixture_server.url("/plain.html"), waitForSelector="##bad[")


# -- waitUntil ------------------------------------------------------------------------------------------


def test_dom_content_loaded_does_not_wait_for_a_hanging_image(
    fixture_server: FixtureHttpServer, short_budget: None
) -> None:
    url = fixture_server.url("/pc-hanging-subresource.html")
    with pytest.raises(NavigationTimeout):
        snapshot(url)  # the load event never fires: the default wait runs out of budget
    page = snapshot(url, waitUntil="domcontentloaded")
    assert "Hanging subresource" in page.html and page.warnings == ()


def test_load_with_best_attempt_uses_the_page_and_warns(
    fixture_server: FixtureHttpServer, short_budget: None
) -> None:
    page = snapshot(fixture_server.url("/pc-hanging-subresource.html"), bestAttempt=True)
    assert "Hanging subresource" in page.html
    assert len(page.warnings) == 1 and "load event" in page.warnings[0]


def test_network_idle_waits_for_the_late_fetch(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-idle.html")
    assert ">pending<" in snapshot(url).html
    assert ">arrived<" in snapshot(url, waitUntil="networkidle0").html


def test_network_idle2_tolerates_two_requests_in_flight(
    fixture_server: FixtureHttpServer, short_budget: None
) -> None:
    url = fixture_server.url("/pc-hanging-subresource.html")
    # One image hangs for ever: never 0 in flight, but at most 2 is reached.
    assert snapshot(url, waitUntil="networkidle2", bestAttempt=True).warnings == ()
    never_idle = snapshot(url, waitUntil="networkidle0", bestAttempt=True)
    assert len(never_idle.warnings) == 1 and "networkidle0" in never_idle.warnings[0]
    with pytest.raises(NavigationTimeout):
        snapshot(url, waitUntil="networkidle0")


# -- element screenshots --------------------------------------------------------------------------------


def test_selector_captures_the_element(fixture_server: FixtureHttpServer) -> None:
    shot = shoot(fixture_server.url("/pc-parts.html"), screenshotOptions={"selector": "#card"})
    image = pixels(shot)
    assert (shot.width, shot.height) == (200, 120)
    assert image.at(5, 5) == BLUE  # the dot, top left of the card
    assert image.at(100, 100) == image.at(199, 119) == GREEN


def test_selector_at_device_scale(fixture_server: FixtureHttpServer) -> None:
    shot = shoot(
        fixture_server.url("/pc-parts.html"),
        viewport={"deviceScaleFactor": 2},
        screenshotOptions={"selector": "#card .dot"},
    )
    assert (shot.width, shot.height) == (40, 40)
    assert set(pixels(shot).region(0, 0, 40, 40)) == {BLUE}


@pytest.mark.parametrize("selector", ["#nope", "#gone", "##bad["])
def test_selector_without_an_element_is_element_not_found(
    fixture_server: FixtureHttpServer, selector: str
) -> None:
    with pytest.raises(ElementNotFound) as caught:
        shoot(fixture_server.url("/pc-parts.html"), screenshotOptions={"selector": selector})
    assert caught.value.status == 400 and caught.value.code == "ELEMENT_NOT_FOUND"


# -- hide, scroll -------------------------------------------------------------------------------------


def test_hide_selectors_hides_the_banner(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-parts.html")
    assert pixels(shoot(url, screenshotOptions={"fullPage": False})).at(10, 10) == RED
    hidden = shoot(url, hideSelectors=[".cookie-banner", "not a { valid"], screenshotOptions={"fullPage": False})
    assert pixels(hidden).at(10, 10) == WHITE


def test_scroll_page_loads_lazy_images(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-lazy.html")
    lazy = ("/pixel.gif?name=native", "/pixel.gif?name=observed")
    start = len(fixture_server.requested)
    snapshot(url)
    assert not set(lazy) & set(fixture_server.requested[start:])
    start = len(fixture_server.requested)
    page = snapshot(url, scrollPage=True)
    assert set(lazy) <= set(fixture_server.requested[start:])
    assert page.warnings == ()
    # Both images loaded (complete, with their size) and the page was left at the top.
    assert 'src="/pixel.gif?name=observed"' in page.html


def test_scroll_page_serves_a_scroll_event_loader(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-lazy-scroll.html")
    start = len(fixture_server.requested)
    snapshot(url)
    assert "/pixel.gif?name=scrolled" not in fixture_server.requested[start:]
    snapshot(url, scrollPage=True)
    assert "/pixel.gif?name=scrolled" in fixture_server.requested[start:]


def test_scroll_page_does_not_walk_a_page_with_nothing_lazy(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-steady.html")
    assert snapshot(url, scrollPage=True).title == "0"
    # The same page with one lazy image is walked (and the title shows how far).
    lazy = "document.body.insertAdjacentHTML('beforeend', '<img loading=lazy src=/pixel.gif?name=steady>');"
    walked = snapshot(url, scrollPage=True, addScriptTag=[{"content": lazy}])
    assert int(walked.title) > 1000


def test_scroll_page_returns_to_the_top(fixture_server: FixtureHttpServer) -> None:
    shot = shoot(fixture_server.url("/pc-parts.html"), scrollPage=True, screenshotOptions={"fullPage": False})
    assert pixels(shot).at(10, 10) == RED  # the fixed banner is drawn over the top either way...
    # ...and the card (1500 px down) is not in the viewport: the page is back at its top.
    assert GREEN not in set(pixels(shot).region(100, 0, 101, 800))
