"""A page that sends itself elsewhere by script right after loading is captured where it lands, by every
endpoint's core, whatever the moment the navigation hits the work: before it, during it (Chromium can leave
a CDP screenshot unanswered then), or after it."""

from __future__ import annotations

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import collect_links, load_page, take_screenshot
from webcapture.errors import NavigationFailed
from webcapture.models.requests import LinksRequest, ScreenshotRequest

# hop.html leaves 5 ms after load; these waits put the capture before, across and after the navigation.
# Each runs four times: a race that used to hang one capture in twenty shows up here.
WAITS = [0, 1, 2, 3, 5, 8, 20] * 4


@pytest.mark.parametrize("wait_ms", WAITS)
def test_screenshot_follows_a_script_navigation(fixture_server: FixtureHttpServer, wait_ms: int) -> None:
    shot = take_screenshot(ScreenshotRequest.model_validate(
        {"url": fixture_server.url("/hop.html"), "waitTime": wait_ms, "screenshotOptions": {"fullPage": True}}))
    assert shot.final_url == fixture_server.url("/plain.html?via=script")
    assert shot.height < 4000  # plain.html, not the 4000 px tall hop.html
    assert shot.status_code == 200


@pytest.mark.parametrize("wait_ms", [0, 20])
def test_the_status_is_the_landing_pages(fixture_server: FixtureHttpServer, wait_ms: int) -> None:
    shot = take_screenshot(ScreenshotRequest.model_validate(
        {"url": fixture_server.url("/hop.html?to=/missing"), "waitTime": wait_ms}))
    assert shot.final_url == fixture_server.url("/missing")
    assert shot.status_code == 404  # hop.html answered 200; the page captured answered 404


@pytest.mark.parametrize("wait_ms", [0, 3, 8])
def test_links_come_from_the_landing_page(fixture_server: FixtureHttpServer, wait_ms: int) -> None:
    result = collect_links(LinksRequest.model_validate(
        {"url": fixture_server.url("/hop.html?to=/links.html"), "waitTime": wait_ms}))
    assert result.final_url == fixture_server.url("/links.html")
    urls = [link.url for link in result.links]
    assert fixture_server.url("/about") in urls
    assert fixture_server.url("/left-behind") not in urls  # nothing of the page it left


@pytest.mark.parametrize("wait_ms", [0, 3, 8])
def test_ai_snapshot_is_the_landing_page_with_hidden_text_removed(
    fixture_server: FixtureHttpServer, wait_ms: int
) -> None:
    snapshot = load_page(fixture_server.url("/hop.html?to=/injection.html"), wait_ms)
    assert snapshot.final_url == fixture_server.url("/injection.html")
    assert "Trailblazer 2 Hiking Boot" in snapshot.html
    # Stripping and serialising happened on the same document: nothing hidden survived the navigation.
    assert "INJECTED-DISPLAY-NONE" not in snapshot.html
    assert "INJECTED-CSS-CLASS" not in snapshot.html


def test_a_page_that_never_stops_navigating_is_a_navigation_failure(fixture_server: FixtureHttpServer) -> None:
    with pytest.raises(NavigationFailed, match="kept navigating"):
        take_screenshot(ScreenshotRequest.model_validate({"url": fixture_server.url("/restless.html")}))
