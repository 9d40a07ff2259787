"""A page that sends itself elsewhere by script right after loading is captured where it lands, by every
endpoint's core, whatever the moment the navigation hits the work: before it, during it (Chromium can leave
a CDP screenshot unanswered then), or after it."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import collect_links, load_page, take_screenshot
from webcapture.browser.pdf import print_pdf
from webcapture.browser.rendered_html import rendered_html
from webcapture.errors import NavigationFailed
from webcapture.models.requests import ContentRequest, LinksRequest, PdfRequest, ScreenshotRequest
from webcapture.settings import get_settings

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


@pytest.fixture
def wide_window(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A window for a page's own navigations (settings.script_navigation_window_ms) wide enough that a page
    leaving 600 ms after its load does so long after a capture's work, however busy the machine."""
    monkeypatch.setenv("WEBCAPTURE_SCRIPT_NAVIGATION_WINDOW_MS", "1500")
    get_settings.cache_clear()
    yield
    monkeypatch.delenv("WEBCAPTURE_SCRIPT_NAVIGATION_WINDOW_MS")
    get_settings.cache_clear()


# leaves.html leaves `after` ms after its load event: after the work is done, within the window.
@pytest.mark.parametrize("by", ["location", "meta", "form"])
def test_a_navigation_just_after_the_work_is_followed(
    fixture_server: FixtureHttpServer, wide_window: None, by: str
) -> None:
    result = collect_links(LinksRequest.model_validate(
        {"url": fixture_server.url(f"/leaves.html?by={by}&after=600")}))
    assert result.final_url.startswith(fixture_server.url("/links.html"))
    urls = [link.url for link in result.links]
    assert fixture_server.url("/about") in urls
    assert fixture_server.url("/left-behind") not in urls


@pytest.mark.parametrize("capture", ["screenshot", "links", "snapshot", "html", "pdf"])
def test_every_core_follows_a_navigation_just_after_load(
    fixture_server: FixtureHttpServer, wide_window: None, capture: str
) -> None:
    url = fixture_server.url("/leaves.html?to=/links.html&after=600")
    landing = fixture_server.url("/links.html")
    if capture == "screenshot":
        assert take_screenshot(ScreenshotRequest.model_validate({"url": url})).final_url == landing
    elif capture == "links":
        assert collect_links(LinksRequest.model_validate({"url": url})).final_url == landing
    elif capture == "snapshot":
        snapshot = load_page(url, 0)
        assert snapshot.final_url == landing and "Left behind" not in snapshot.html
    elif capture == "html":
        html = rendered_html(ContentRequest.model_validate({"url": url}))
        assert html.final_url == landing and "Left behind" not in html.html
    else:
        document = print_pdf(PdfRequest.model_validate({"url": url}))
        assert document.final_url == landing


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("by", ["location", "meta", "form"])
@pytest.mark.parametrize("after", [0, 25])
def test_a_failed_navigation_answers_the_page_that_loaded_with_a_warning(
    fixture_server: FixtureHttpServer, by: str, after: int
) -> None:
    gone = f"http://127.0.0.1:{closed_port()}/gone"
    url = fixture_server.url(f"/leaves.html?by={by}&after={after}&to={gone}")
    result = collect_links(LinksRequest.model_validate({"url": url}))
    assert result.final_url == url  # the page that did load
    assert fixture_server.url("/left-behind") in [link.url for link in result.links]
    (warning,) = result.warnings
    assert gone in warning and "could not be loaded" in warning


def test_a_failed_navigation_during_the_wait_still_answers_the_page(fixture_server: FixtureHttpServer) -> None:
    gone = f"http://127.0.0.1:{closed_port()}/gone"
    url = fixture_server.url(f"/leaves.html?to={gone}")
    shot = take_screenshot(ScreenshotRequest.model_validate({"url": url, "waitTime": 300}))
    assert shot.final_url == url and shot.status_code == 200
    assert any(gone in warning for warning in shot.warnings)
