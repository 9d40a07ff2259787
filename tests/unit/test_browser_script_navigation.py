"""A page that sends itself elsewhere by script right after loading is captured where it lands."""

from __future__ import annotations

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import take_screenshot
from webcapture.models.requests import ScreenshotRequest


@pytest.mark.parametrize("wait_ms", [0, 1, 2, 3, 5, 8, 20])
def test_capture_follows_a_script_navigation(fixture_server: FixtureHttpServer, wait_ms: int) -> None:
    # hop.html leaves for plain.html 5 ms after load, so the capture may start before, during or after
    # the navigation; whatever the timing, the answer is the page it lands on, not an error.
    shot = take_screenshot(ScreenshotRequest.model_validate(
        {"url": fixture_server.url("/hop.html"), "waitTime": wait_ms, "screenshotOptions": {"fullPage": True}}))
    assert shot.final_url == fixture_server.url("/plain.html?via=script")
    assert shot.height < 4000  # plain.html, not the 4000 px tall hop.html
