"""Images over 16,384 px a side or 100 megapixels (docs/api.md#limits): refused by the request model when the
request says so, cut in the browser when only the page knows (real Chromium, a page 10^6 px tall)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import browser_pid, take_screenshot
from webcapture.errors import RequestValidationError
from webcapture.models.requests import ScreenshotRequest
from webcapture.pixel_limits import MAX_PIXELS, MAX_SIDE_PX, largest_css_size, output_px, too_large
from webcapture.validation import validate_request

URL = "https://example.com/"


def issues(**body: Any) -> list[dict[str, Any]]:
    with pytest.raises(RequestValidationError) as caught:
        validate_request(ScreenshotRequest, {"url": URL, **body})
    return caught.value.issues


@pytest.mark.parametrize(("body", "path"), [
    ({"viewport": {"width": 3840, "height": 2160, "deviceScaleFactor": 10}}, ["viewport"]),
    ({"viewport": {"width": 3840, "height": 2160, "deviceScaleFactor": 10}, "screenshotOptions": {"fullPage": False}},
     ["viewport"]),
    ({"viewport": {"width": 3840, "height": 2160, "deviceScaleFactor": 4}}, ["viewport"]),  # 132 MP, sides fit
    ({"viewport": {"width": 1000, "height": 2000, "deviceScaleFactor": 8.5}}, ["viewport"]),  # 17,000 tall
    ({"screenshotOptions": {"clip": {"x": 0, "y": 0, "width": 16385, "height": 10}}}, ["screenshotOptions", "clip"]),
    ({"screenshotOptions": {"clip": {"x": 0, "y": 0, "width": 10, "height": 10**9}}}, ["screenshotOptions", "clip"]),
    ({"screenshotOptions": {"clip": {"x": 0, "y": 0, "width": 2000, "height": 2000, "scale": 3}},
      "viewport": {"deviceScaleFactor": 2}}, ["screenshotOptions", "clip"]),  # 12,000 x 12,000 = 144 MP
    ({"screenshotOptions": {"clip": {"x": 0, "y": 0, "width": 1000, "height": 10, "scale": 10}},
      "viewport": {"deviceScaleFactor": 2}}, ["screenshotOptions", "clip"]),  # 20,000 wide
])
def test_known_oversize_is_a_custom_422(body: dict[str, Any], path: list[str]) -> None:
    [issue] = issues(**body)
    assert issue["code"] == "custom" and issue["path"] == path
    assert "16384 px a side" in issue["message"] and "100 megapixels" in issue["message"]


@pytest.mark.parametrize("body", [
    {"viewport": {"width": 3840, "height": 2160, "deviceScaleFactor": 3}},  # 11,520 x 6,480 = 74.6 MP
    {"viewport": {"width": 1638, "height": 100, "deviceScaleFactor": 10}},  # 16,380 wide
    {"screenshotOptions": {"clip": {"x": 0, "y": 0, "width": 16384, "height": 6103}}},  # 99.99 MP
    {"screenshotOptions": {"clip": {"x": 5, "y": 5, "width": 10000, "height": 10000, "scale": 0.1}},
     "viewport": {"deviceScaleFactor": 10}},  # 10,000 x 10,000: the clip wins over the viewport
])
def test_sizes_within_the_limits_pass(body: dict[str, Any]) -> None:
    validate_request(ScreenshotRequest, {"url": URL, **body})


def test_largest_css_size() -> None:
    assert largest_css_size(1280, 10**6, 1) == (1280, MAX_SIDE_PX)
    assert largest_css_size(300, 10**6, 2) == (300, MAX_SIDE_PX // 2)
    assert largest_css_size(1280, 3000, 1) == (1280, 3000)  # fits: unchanged
    width, height = largest_css_size(3840, 10**6, 2)  # 7,680 px wide: the area limit cuts first
    assert width == 3840 and not too_large(output_px(width, 2), output_px(height, 2))
    assert output_px(width, 2) * output_px(height + 1, 2) > MAX_PIXELS
    assert largest_css_size(10**6, 500, 1.5) == (10922, 500)  # a page too wide is cut on the right
    for scale in (0.1, 0.3, 1.7, 3.3, 9.9):
        w, h = largest_css_size(10**5, 10**6, scale)
        assert not too_large(output_px(w, scale), output_px(h, scale))


@pytest.mark.parametrize(("viewport", "options", "size"), [
    ({"width": 300}, {}, (300, MAX_SIDE_PX)),
    ({"width": 300, "deviceScaleFactor": 2}, {}, (600, MAX_SIDE_PX)),
    ({"width": 300}, {"captureBeyondViewport": False}, (300, MAX_SIDE_PX)),
])
def test_a_page_a_million_px_tall_is_cut_with_a_warning(
    fixture_server: FixtureHttpServer, viewport: dict[str, Any], options: dict[str, Any], size: tuple[int, int]
) -> None:
    request = ScreenshotRequest.model_validate({"url": fixture_server.url("/huge.html"), "viewport": viewport,
                                                "screenshotOptions": options})
    shot = take_screenshot(request)
    assert (shot.width, shot.height) == size
    [warning] = shot.warnings
    assert "1000000" in warning and "cut" in warning
    pid = browser_pid()
    assert pid is not None
    after = take_screenshot(ScreenshotRequest.model_validate({"url": fixture_server.url("/plain.html")}))
    assert browser_pid() == pid and after.warnings == ()  # the same browser, still working
